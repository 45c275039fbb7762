/* SPDX-License-Identifier: MIT */
/*
 * threads.h — thread state and per-CPU context (wperf-method(7) §3).
 *
 * Follows every thread through running / runnable / waiting from the
 * scheduler events, and every CPU's current thread and interrupt context
 * (hard irq, softirq vector, timer expiry), so that each wakeup names its
 * waker: the interrupt, the disk, the timer, or the thread that ran it.
 * Each time a thread leaves a state, the segment it spent there is handed
 * to the segment sink; nothing here weighs or stores segments.
 */
#ifndef WPERF_THREADS_H
#define WPERF_THREADS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/analysis.h"
#include "wperf/event.h"
#include "array.h"
#include "disk.h"
#include "locks.h"
#include "stacks.h"
#include "vertex.h"

enum thread_state {
	TS_UNKNOWN,     /* not yet seen doing anything we can interpret */
	TS_RUNNING,
	TS_RUNNABLE,
	TS_WAITING,
	TS_DEAD,
	TS_SPINNING,    /* on a CPU, but busy-waiting for a lock (annotated) */
};

struct sched_thread {
	uint8_t state;          /* enum thread_state */
	bool exiting;           /* sched_process_exit seen */
	bool inferred;          /* state guessed (statedump, first sight): no mismatch counting */
	bool known_origin;      /* born in the trace or described by the statedump */
	bool spinning;          /* between before_spin and after_spin */
	bool wait_idle;         /* the current wait is a wait for work (idle state) */
	bool woken_from_device; /* runnable since a wakeup that ended a wait on a
	                           disk, a NIC or an interrupt (not a wait for work) */
	int64_t woken_part;     /* of the runnable state closing now, the device
	                           wakeup's delay counted (closed_segment.woken_ns) */
	int64_t device_delay;   /* of the same, what the cascade adds to the device
	                           wait: woken_part and an idle CPU's wakeup latency
	                           (closed_segment.device_delay_ns) */
	uint64_t spin_lock;     /* the lock it spins on */
	int64_t since;          /* when the current state began */
	uint32_t wait_stack;    /* stack id + 1 of the current wait, 0: none */
	uint32_t forked_by;     /* vertex id + 1 of the thread that forked it, 0: unseen */
	uint32_t cpu;           /* running: index of its CPU in sched.cpus, 0: unknown */
};

#define CTX_MAX_DEPTH 8

#define SCHED_IRQ_SEEN_SLOTS 32   /* a power of two */

enum ctx_kind { CTX_IRQ, CTX_SOFTIRQ, CTX_TIMER };

struct ctx_frame {
	uint8_t kind;           /* enum ctx_kind */
	int64_t num;            /* irq number or softirq vector */
	uint32_t vertex;        /* irq: the irq vertex */
	uint32_t disk;          /* irq: disk whose request completed in this handler */
};

struct cpu_ctx {
	bool seen;
	int64_t first_ts;
	int64_t last_ts;        /* its latest event: lost ones came after it */
	int64_t current_tid;    /* -1: unknown (start of trace, after lost events) */
	uint32_t running;       /* the thread last switched in here (VERTEX_NONE: none
	                           known): a CPU runs one thread at a time */
	bool lost;              /* events were lost here: who ran before is unknown */
	int64_t idle_since;     /* when it last switched to the idle task, -1: it runs
	                           a thread, or since when it idles is unknown */
	struct ctx_frame stack[CTX_MAX_DEPTH];
	int depth;
	uint32_t last_disk;     /* disk of the last completion on this CPU */
	uint32_t last_nic;      /* interface of the last packet on this CPU */
	/* Loopback: the last packet received on this CPU came through `lo`,
	 * and the thread that last sent one through `lo` from thread context
	 * here (VERTEX_NONE: none seen). loopback_xmit() queues the packet
	 * on this CPU's backlog and the NET_RX softirq that delivers it runs
	 * right after, in the sender's context or ksoftirqd's. */
	bool last_recv_lo;
	uint32_t lo_sender;
	/* The thread that sent the last packet received here, when the
	 * trace pairs the send with the receive (netpeer.h), else VERTEX_NONE:
	 * NET_RX wakeups here are that thread's. */
	uint32_t net_sender;
	bool net_by_skb;        /* ... paired by its skb (NET_RECV) */
	/* Softirq vectors raised on this CPU and not run yet (bit = vector),
	 * and the last one raised (-1: none): what ksoftirqd is woken for. */
	uint16_t softirq_pending;
	int8_t softirq_raised_last;
};

struct closed_segment {
	uint32_t vertex;
	enum wperf_segment_state state;
	int64_t start, end;
	uint32_t waker;         /* waiting only */
	bool spin;              /* a busy-wait on a lock, not a sleep */
	bool after_gap;         /* the rest of a wait cut short by a gap in the trace */
	uint32_t stack;         /* waiting: stack id + 1 of the waiting side, 0: none */
	bool idle;              /* waiting: begun in the kernel's idle state (TASK_IDLE),
	                           a wait for work (threads.c, wait_is_for_work) */
	int64_t woken_ns;       /* runnable: its first woken_ns were the delay after a
	                           device's wakeup (wperf_vertex.woken_cpu_wait_ns),
	                           no wait for a CPU for whoever waits on it */
	int64_t device_delay_ns; /* runnable: its first device_delay_ns followed a
	                           device's wakeup (woken_ns and the wakeup latency
	                           of an idle CPU): the cascade extends that device
	                           wait over them (cascade_extend_device_wait) */
};

typedef void (*segment_sink)(void *data, const struct closed_segment *seg);

/*
 * The thread enters state (TS_WAITING or TS_DEAD) at t. For a wait, the
 * sink may answer an earlier start (a false wakeup merged the previous
 * wait into this one, wperf-method(7) §6); otherwise it returns t.
 */
typedef int64_t (*state_hook)(void *data, uint32_t vertex, enum thread_state state, int64_t t);

struct sched {
	struct vertex_table *vt;
	struct disk_tracker *disks;
	struct wperf_quality *quality;
	segment_sink sink;
	state_hook state_begins;      /* may be NULL */
	void *sink_data;
	struct lock_table locks;
	struct stack_table *stacks;   /* where wait stacks are interned; may be NULL */

	struct sched_thread *th;      /* by vertex id */
	size_t n_th;
	struct cpu_ctx *cpus;         /* by CPU number; [0] is CPU "unknown" */
	size_t n_cpus;
	uint32_t irq_disk_map_irq[64], irq_disk_map_disk[64]; /* irq line -> disk learned */
	size_t n_irq_disk;
	/* The vertex of each irq line met, by line (wakers.c, irq_vertex): an
	 * irq_handler_entry finds its line's vertex without formatting its
	 * name and comparing it with every pseudo vertex's. */
	struct irq_seen {
		int64_t irq;
		uint32_t host;
		uint32_t vertex_plus1;  /* vertex id + 1; 0: slot unused */
		uint32_t name_at;       /* where the handler's name begins in the
		                           vertex's name ("irq:24:" is 7 bytes) */
	} irq_seen[SCHED_IRQ_SEEN_SLOTS];
	uint64_t switches, wakeups;
	int64_t gap_until;            /* latest end of a gap in the trace, INT64_MIN: none */
	bool oom;
};

void sched_init(struct sched *s, struct vertex_table *vt, struct disk_tracker *disks,
		struct wperf_quality *q, segment_sink sink, void *sink_data);
void sched_fini(struct sched *s);

/* Scheduler, interrupt, statedump and spin-annotation events (block
 * issue is disk.h's). */
void sched_event(struct sched *s, const struct wperf_event *ev);

/* A block request completed on ev->cpu: remember the disk for the waker. */
void sched_block_completed(struct sched *s, const struct wperf_event *ev, uint32_t disk);

/* A packet went through interface nic on ev->cpu (VERTEX_NONE: a TCP
 * key only): network softirq wakeups there are that interface's; on
 * loopback, the sender's (sender: the thread that sent it from thread
 * context, or VERTEX_NONE); and those of a receive the thread's that
 * sent what it delivers, when netpeer.h paired them (peer). */
void sched_net_seen(struct sched *s, const struct wperf_event *ev, uint32_t nic,
		    uint32_t sender, uint32_t peer);

/* The thread running ev in thread context (not in an interrupt), or
 * VERTEX_NONE. */
uint32_t sched_thread_context(struct sched *s, const struct wperf_event *ev);

/* The thread an I/O request is attributed to, VERTEX_NONE if unknown. */
uint32_t sched_current_thread(struct sched *s, const struct wperf_event *ev, int64_t tid);

/* Events were lost on cpu (-1: anywhere): forget what we believed about it. */
void sched_lost_events(struct sched *s, int cpu);

/* Time of the latest event seen on cpu, or INT64_MAX if none was. */
int64_t sched_cpu_last_event(const struct sched *s, int cpu);

/* Events were lost (on some CPU) until `end`: a wait that overlaps the
 * gap may have ended and begun again unseen. Up to `end` it is put on the
 * `trace-gap` vertex, not on the waker seen after the gap. */
void sched_gap(struct sched *s, int64_t end);

/* Close every open segment at `end` (waits end with the `unknown` waker). */
void sched_finish(struct sched *s, int64_t end);

/* sched_thread_vertex() of a thread not seen yet: its new vertex, with
 * its state slot (state unknown). Here, not in threads.c, so that wakers.c,
 * which threads.c calls, names a waking thread without calling back. */
static inline uint32_t sched_new_thread_vertex(struct sched *s, int64_t tid)
{
	uint32_t v = vt_new_thread(s->vt, tid);

	if (v != VERTEX_NONE &&
	    !array_reserve_index((void **)&s->th, &s->n_th, v, 256, sizeof *s->th)) {
		s->oom = true;
		return VERTEX_NONE;
	}
	return v;
}

/* The vertex of thread tid, made when first seen; VERTEX_NONE for tid <= 0
 * or when out of memory. Inline: one or two per switch and wakeup, and
 * nearly always a thread already seen. Not for tid <= 0: the idle thread,
 * "unknown", or a corrupt field (INT64_MIN is the tid index's empty key:
 * looking it up returned garbage, found by tests/fuzz). */
static inline uint32_t sched_thread_vertex(struct sched *s, int64_t tid)
{
	if (tid <= 0)
		return VERTEX_NONE;
	uint32_t v = vt_find_thread(s->vt, tid);

	return v != VERTEX_NONE ? v : sched_new_thread_vertex(s, tid);
}

/* After the lifetimes are final (clipped to a window): each thread's
 * unknown_ns, the part of its life the trace showed in no state
 * (lose_sight), and its wakeup latency kept within its
 * runnable time. */
void sched_account_unknown(struct sched *s);

/* Earliest start of a wait still open (INT64_MAX if none). */
int64_t sched_oldest_open_wait(const struct sched *s);

#endif /* WPERF_THREADS_H */
