/* SPDX-License-Identifier: MIT */
/*
 * analysis/wakers.c — who ended a wait (wakers.h): the interrupt, the
 * softirq and the device behind it, the timer, or the thread that ran.
 *
 * A wakeup is recorded on the CPU that did it, in whatever context that
 * CPU was in: the innermost interrupt frame names the waker when there is
 * one (an irq line, a disk whose request completed in that handler, a
 * softirq vector, a timer), otherwise the thread running there. This file
 * keeps that per-CPU interrupt context; threads.c follows the threads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wakers.h"


static const char *const softirq_names[] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
	"TASKLET", "SCHED", "HRTIMER", "RCU",
};

uint32_t sched_named_pseudo(struct sched *s, enum wperf_vertex_kind kind, const char *name)
{
	return vt_pseudo(s->vt, kind, name);
}

static uint32_t learned_irq_disk(const struct sched *s, int64_t irq)
{
	for (size_t i = 0; i < s->n_irq_disk; i++)
		if (s->irq_disk_map_irq[i] == (uint32_t)irq)
			return s->irq_disk_map_disk[i];
	return VERTEX_NONE;
}

void sched_learn_irq_disk(struct sched *s, int64_t irq, uint32_t disk)
{
	if (learned_irq_disk(s, irq) != VERTEX_NONE || s->n_irq_disk == 64)
		return;
	s->irq_disk_map_irq[s->n_irq_disk] = (uint32_t)irq;
	s->irq_disk_map_disk[s->n_irq_disk++] = disk;
}

static uint32_t irq_waker(struct sched *s, const struct ctx_frame *f)
{
	if (f->disk != VERTEX_NONE)
		return f->disk;
	uint32_t disk = learned_irq_disk(s, f->num);

	return disk != VERTEX_NONE ? disk : f->vertex;
}

static uint32_t softirq_waker(struct sched *s, const struct cpu_ctx *c, int64_t vec)
{
	char name[48];

	switch (vec) {
	case WPERF_SOFTIRQ_BLOCK:
		if (c->last_disk != VERTEX_NONE)
			return c->last_disk;
		break;
	case WPERF_SOFTIRQ_NET_RX:
		/* The sender of the packet received, on another host (its TCP
		 * key) or through a veth pair (its skb): netpeer.h. */
		if (c->net_sender != VERTEX_NONE)
			return c->net_sender;
		/* A packet over loopback: its receive softirq runs on the
		 * sender's behalf, right after it sent; the sender woke the
		 * receiver, not a link (nothing waits for a wire there). */
		if (c->last_recv_lo && c->lo_sender != VERTEX_NONE)
			return c->lo_sender;
		/* fall through */
	case WPERF_SOFTIRQ_NET_TX:
		if (c->last_nic != VERTEX_NONE)
			return c->last_nic;
		return sched_named_pseudo(s, WPERF_V_NIC, "net");
	case WPERF_SOFTIRQ_TIMER:
	case WPERF_SOFTIRQ_HRTIMER:
		return sched_named_pseudo(s, WPERF_V_TIMER, "timer");
	default:
		break;
	}
	if (vec >= 0 && vec < (int64_t)(sizeof softirq_names / sizeof *softirq_names))
		snprintf(name, sizeof name, "softirq:%s", softirq_names[vec]);
	else
		snprintf(name, sizeof name, "softirq:%" PRId64, vec);
	return sched_named_pseudo(s, WPERF_V_SOFTIRQ, name);
}

static uint32_t frame_waker(struct sched *s, const struct cpu_ctx *c, const struct ctx_frame *f)
{
	switch (f->kind) {
	case CTX_IRQ:
		return irq_waker(s, f);
	case CTX_SOFTIRQ:
		return softirq_waker(s, c, f->num);
	default:
		return sched_named_pseudo(s, WPERF_V_TIMER, "timer");
	}
}

/* Innermost frame of a kind, or NULL. */
static const struct ctx_frame *innermost(const struct cpu_ctx *c, enum ctx_kind kind)
{
	for (int i = c->depth - 1; i >= 0; i--)
		if (c->stack[i].kind == kind)
			return &c->stack[i];
	return NULL;
}

/*
 * A wakeup in interrupt context whose interrupt the trace does not show
 * (no irq/timer events recorded, or the local timer and IPIs, which have
 * no irq_handler events). Most are timer expiries, but we cannot tell:
 * it is an `unknown` category, never a bottleneck of its own.
 */
static uint32_t untraced_interrupt(struct sched *s)
{
	s->quality->untraced_interrupt_wakeups++;
	return sched_named_pseudo(s, WPERF_V_UNKNOWN, "untraced-interrupt");
}

/*
 * ksoftirqd runs the softirqs an interrupt's tail could not: __do_softirq
 * wakes it when vectors are still pending after its restart limit (a
 * softirq that raises itself again, as RCU's does), and raise_softirq()
 * does outside interrupt context. That wakeup comes after the last
 * softirq_exit, in the context of whatever thread the interrupt hit, and
 * the method's rule (the running thread woke it) would make that thread a
 * server ksoftirqd waits for: "ksoftirqd/0 -> cc1 4.8 s" in a compile's
 * trace. What ksoftirqd waited for is the pending softirq: it is the
 * waker, by the raise events (irq_softirq_raise), which every wperf
 * recording has. Without them the running thread stays the waker.
 */
static bool is_softirq_daemon(const struct sched *s, uint32_t v)
{
	return vt_comm_flags(s->vt, v) & VT_COMM_KSOFTIRQD;
}

/* The pending softirq that woke wakee if it is ksoftirqd, else
 * VERTEX_NONE: the last vector raised if still pending, else the lowest. */
static uint32_t softirq_daemon_waker(struct sched *s, const struct cpu_ctx *c, uint32_t wakee)
{
	int vec;

	if (!c->softirq_pending || !is_softirq_daemon(s, wakee))
		return VERTEX_NONE;
	vec = c->softirq_raised_last;
	if (vec < 0 || !(c->softirq_pending & (1u << vec)))
		vec = __builtin_ctz(c->softirq_pending);
	return softirq_waker(s, c, vec);
}

/*
 * The last thread of a process to exit wakes the parent that waits for it
 * (the exit notification). When that thread is the tracer's (LTTng-UST's
 * listeners outlive the program's own threads, killed last by the exit),
 * the parent waited for the program, not for the tracer, whose threads are
 * no one's work (wperf_comm_is_tracer_thread): the waker is the program's
 * main thread, a zombie until the parent reaps it.
 */
static uint32_t exit_notifier(struct sched *s, uint32_t v)
{
	const struct wperf_vertex *vx = vt_get(s->vt, v);
	uint32_t main_thread;

	if (!s->th[v].exiting || vx->pid <= 0 || vx->pid == vx->tid ||
	    !(vt_comm_flags(s->vt, v) & VT_COMM_TRACER))
		return v;
	/* Ended at its last switch, but its tid is not reused before the
	 * parent reaps it: the newest vertex of that tid is the one. */
	main_thread = vt_find_last_thread(s->vt, vx->pid);
	return main_thread == VERTEX_NONE ? v : main_thread;
}

static uint32_t thread_waker(struct sched *s, const struct cpu_ctx *c,
			     const struct wperf_event *ev)
{
	int64_t tid = ev->current_tid >= 0 ? ev->current_tid : c->current_tid;

	if (tid > 0)
		return exit_notifier(s, sched_thread_vertex(s, tid));
	if (tid == 0)   /* the idle thread woke someone: an interrupt we did not see */
		return untraced_interrupt(s);
	return sched_named_pseudo(s, WPERF_V_UNKNOWN, "unknown");
}

/* What ran the wakeup ev of wakee on its CPU (wperf-method(7) §3). */
uint32_t sched_waker_of(struct sched *s, const struct cpu_ctx *c, const struct wperf_event *ev,
			uint32_t wakee)
{
	uint32_t daemon;

	if (ev->context_flags != WPERF_CTX_UNKNOWN) {
		/* perf marks the context on every event; the frames say which. */
		const struct ctx_frame *f;

		if (ev->context_flags & WPERF_CTX_HARDIRQ) {
			f = innermost(c, CTX_IRQ);
			return f ? irq_waker(s, f) : untraced_interrupt(s);
		}
		if (ev->context_flags & WPERF_CTX_SOFTIRQ) {
			f = innermost(c, CTX_SOFTIRQ);
			if (innermost(c, CTX_TIMER))
				return sched_named_pseudo(s, WPERF_V_TIMER, "timer");
			if (f)
				return softirq_waker(s, c, f->num);
			/* __do_softirq's tail, past its last softirq_exit. */
			daemon = softirq_daemon_waker(s, c, wakee);
			return daemon != VERTEX_NONE ? daemon : untraced_interrupt(s);
		}
	} else if (c->depth > 0) {
		return frame_waker(s, c, &c->stack[c->depth - 1]);
	}
	daemon = softirq_daemon_waker(s, c, wakee);
	return daemon != VERTEX_NONE ? daemon : thread_waker(s, c, ev);
}

/* ---- interrupt context ---- */

void ctx_push(struct cpu_ctx *c, struct ctx_frame f)
{
	if (c->depth == CTX_MAX_DEPTH)
		c->depth = 0;   /* exits were lost: start over rather than overflow */
	c->stack[c->depth++] = f;
}

void ctx_pop(struct cpu_ctx *c, enum ctx_kind kind)
{
	for (int i = c->depth - 1; i >= 0; i--) {
		if (c->stack[i].kind == kind) {
			c->depth = i;   /* also drops frames whose exit we missed */
			return;
		}
	}
}

/* Softirq raise and entry: what is pending (softirq_daemon_waker). */
void ctx_softirq_raise(struct cpu_ctx *c, int64_t vec)
{
	if (vec < 0 || vec >= 16)   /* the kernel has 10 vectors */
		return;
	c->softirq_pending |= (uint16_t)(1u << vec);
	c->softirq_raised_last = (int8_t)vec;
}

/*
 * The sender's edge holds for the packets received in the NET_RX softirq
 * run that wakes: each run starts without one. A receive sets it to its
 * pair or to none (an unpaired packet's wakeups are the NIC's), except
 * the TCP key of a packet whose skb the receive before paired (an
 * lttng-modules 2.1 trace's inet_sock_local_in after netif_receive_skb:
 * a key pairs across hosts only).
 */
void ctx_net_received(struct cpu_ctx *c, enum wperf_event_type type, uint32_t peer)
{
	if (type == WPERF_EV_NET_XMIT || type == WPERF_EV_TCP_SEND ||
	    (type == WPERF_EV_TCP_RECV && peer == VERTEX_NONE && c->net_by_skb))
		return;
	c->net_sender = peer;
	c->net_by_skb = type == WPERF_EV_NET_RECV && peer != VERTEX_NONE;
}

void ctx_softirq_entry(struct cpu_ctx *c, int64_t vec)
{
	if (vec == WPERF_SOFTIRQ_NET_RX) {
		c->net_sender = VERTEX_NONE;
		c->net_by_skb = false;
	}
	if (vec >= 0 && vec < 16)
		c->softirq_pending &= (uint16_t)~(1u << vec);
	ctx_push(c, (struct ctx_frame){ .kind = CTX_SOFTIRQ, .num = vec,
					.vertex = VERTEX_NONE, .disk = VERTEX_NONE });
}

/*
 * The vertex "irq:LINE:HANDLER" of this host. Every interrupt enters a
 * handler, and formatting the name and searching the pseudo vertices for
 * it cost more than the rest of the event: the line's slot remembers its
 * vertex, taken when the handler's name is still the one that vertex has.
 */
static uint32_t irq_vertex(struct sched *s, int64_t irq, const char *handler)
{
	struct irq_seen *e = &s->irq_seen[(uint64_t)irq & (SCHED_IRQ_SEEN_SLOTS - 1)];
	char name[128];
	int at;
	uint32_t v;

	if (e->vertex_plus1 && e->irq == irq && e->host == s->vt->current_host &&
	    strcmp(vt_get(s->vt, e->vertex_plus1 - 1)->name + e->name_at, handler) == 0)
		return e->vertex_plus1 - 1;
	at = snprintf(name, sizeof name, "irq:%" PRId64 ":", irq);
	snprintf(name + at, sizeof name - (size_t)at, "%s", handler);
	v = sched_named_pseudo(s, WPERF_V_IRQ, name);
	if (v != VERTEX_NONE)
		*e = (struct irq_seen){ .irq = irq, .host = s->vt->current_host,
					.vertex_plus1 = v + 1, .name_at = (uint32_t)at };
	return v;
}

void ctx_irq_entry(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev)
{
	ctx_push(c, (struct ctx_frame){
		.kind = CTX_IRQ, .num = ev->u.irq.irq,
		.vertex = irq_vertex(s, ev->u.irq.irq, ev->u.irq.name ? ev->u.irq.name : "?"),
		.disk = VERTEX_NONE });
}

