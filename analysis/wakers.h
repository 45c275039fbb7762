/* SPDX-License-Identifier: MIT */
/*
 * analysis/wakers.h — who ended a wait, and the interrupt context of each
 * CPU that tells it (wperf-method(7) §3-4): the functions threads.c calls
 * on wakeups and on interrupt entries and exits (wakers.c).
 */
#ifndef WPERF_WAKERS_H
#define WPERF_WAKERS_H

#include "threads.h"

/* The pseudo-vertex (irq, softirq, timer, unknown...) of that name. */
uint32_t sched_named_pseudo(struct sched *s, enum wperf_vertex_kind kind, const char *name);

/* A block request of disk completed in irq line irq's handler: that
 * line's later wakeups are the disk's. */
void sched_learn_irq_disk(struct sched *s, int64_t irq, uint32_t disk);

/* What ran the wakeup ev of wakee on its CPU (wperf-method(7) §3). */
uint32_t sched_waker_of(struct sched *s, const struct cpu_ctx *c, const struct wperf_event *ev,
			uint32_t wakee);

/* Interrupt frames of a CPU: entered, and left (with any frame above
 * whose exit was lost). */
void ctx_push(struct cpu_ctx *c, struct ctx_frame f);
void ctx_pop(struct cpu_ctx *c, enum ctx_kind kind);

/* Softirq raise and entry: what is pending (softirq_daemon_waker). */
void ctx_softirq_raise(struct cpu_ctx *c, int64_t vec);
void ctx_softirq_entry(struct cpu_ctx *c, int64_t vec);

/* A network event of type `type` on c (a receive pairs, in which case
 * peer is the sender's vertex, else VERTEX_NONE): the sender NET_RX
 * wakeups on c are then the thread's (netpeer.h). */
void ctx_net_received(struct cpu_ctx *c, enum wperf_event_type type, uint32_t peer);

/* A hard irq handler begins: its frame names the irq's vertex. */
void ctx_irq_entry(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev);

#endif /* WPERF_WAKERS_H */
