/* SPDX-License-Identifier: MIT */
/*
 * analysis/segments.c — a thread's moves from state to state (see
 * segments.h), and the segment each move closes: running, runnable, or
 * waiting on its waker, handed to the segment sink (threads.h).
 *
 * Where the trace has a gap, what is certain is only the part of a wait
 * or a runnable stretch after it: the part before goes to the `trace-gap`
 * category, never to the waker seen after the gap. A spinning thread is
 * on a CPU yet waiting for its lock's holder. threads.c decides which
 * event makes which move.
 */
#include <stdint.h>

#include "segments.h"
#include "threads.h"

static void emit_segment(struct sched *s, const struct closed_segment *seg)
{
	struct wperf_vertex *vx = vt_get(s->vt, seg->vertex);

	if (seg->end > vx->last_ts)
		vx->last_ts = seg->end;
	if (seg->end > seg->start)
		s->sink(s->sink_data, seg);
}

static void emit(struct sched *s, uint32_t v, enum wperf_segment_state state,
		 int64_t start, int64_t end, uint32_t waker, bool spin)
{
	struct closed_segment seg = { v, state, start, end, waker, spin, false, 0, false, 0, 0 };

	if (state == WPERF_SEG_WAITING) {
		seg.stack = s->th[v].wait_stack;
		seg.idle = !spin && s->th[v].wait_idle;
	}
	emit_segment(s, &seg);
}

/*
 * A wait [start, end] on waker. If it overlaps a gap in the trace, the
 * thread may have been woken, run and slept again where events were lost:
 * what is certain is only the part after the gap. The part up to the
 * gap's end goes to the `trace-gap` category, never to the waker seen
 * after it: no wait is invented across a gap.
 */
static void emit_wait(struct sched *s, uint32_t v, int64_t start, int64_t end, uint32_t waker)
{
	if (s->gap_until > start && end > start) {
		int64_t cut = s->gap_until < end ? s->gap_until : end;

		s->quality->waits_cut_by_gaps++;
		emit(s, v, WPERF_SEG_WAITING, start, cut,
		     vt_pseudo(s->vt, WPERF_V_UNKNOWN, "trace-gap"), false);
		struct closed_segment seg = { v, WPERF_SEG_WAITING, cut, end, waker, false, true,
					      s->th[v].wait_stack, s->th[v].wait_idle, 0, 0 };

		emit_segment(s, &seg);
		return;
	}
	emit(s, v, WPERF_SEG_WAITING, start, end, waker, false);
}

/*
 * Runnable over [start, end]. Across a gap the same holds as for a wait:
 * the thread may have run, slept and been woken among the lost events
 * (its switch-in lost, it would otherwise stay "runnable" until next
 * seen, up to the trace's end). Only the part after the gap is certain;
 * the part up to its end goes to `trace-gap`, as a wait's does, so the
 * CPU finding gets no runnable time the trace did not show.
 */
static void emit_runnable(struct sched *s, uint32_t v, int64_t start, int64_t end)
{
	if (s->gap_until > start && end > start) {
		int64_t cut = s->gap_until < end ? s->gap_until : end;

		s->quality->runnable_cut_by_gaps++;
		emit(s, v, WPERF_SEG_WAITING, start, cut,
		     vt_pseudo(s->vt, WPERF_V_UNKNOWN, "trace-gap"), false);
		emit(s, v, WPERF_SEG_RUNNABLE, cut, end, VERTEX_NONE, false);
		return;
	}
	struct closed_segment seg = { v, WPERF_SEG_RUNNABLE, start, end, VERTEX_NONE, false,
				      false, 0, false, s->th[v].woken_part,
				      s->th[v].device_delay };

	emit_segment(s, &seg);
}

/* Who a spinning thread waits for: the last thread to take its lock. */
static uint32_t spin_holder(struct sched *s, uint32_t v)
{
	uint32_t h = locks_holder(&s->locks, vt_get(s->vt, v)->pid, s->th[v].spin_lock);

	if (h == UINT32_MAX || h == v)
		return vt_pseudo(s->vt, WPERF_V_UNKNOWN, "unknown");
	return h;
}

/* Close the segment of the state v is in, at t. waker: for waits. */
void sched_leave_state(struct sched *s, uint32_t v, int64_t t, uint32_t waker)
{
	struct sched_thread *th = &s->th[v];

	/* The pseudo vertices below ("unknown", "trace-gap") are v's host's,
	 * also when the trace's end closes every host's threads. */
	s->vt->current_host = vt_get(s->vt, v)->host;
	switch (th->state) {
	case TS_RUNNING:
		emit(s, v, WPERF_SEG_RUNNING, th->since, t, VERTEX_NONE, false);
		break;
	case TS_RUNNABLE:
		emit_runnable(s, v, th->since, t);
		break;
	case TS_WAITING:
		if (waker == VERTEX_NONE)
			waker = vt_pseudo(s->vt, WPERF_V_UNKNOWN, "unknown");
		emit_wait(s, v, th->since, t, waker);
		break;
	case TS_SPINNING:
		/* On a CPU, yet waiting: the holder, not the CPU, is what it needs. */
		emit(s, v, WPERF_SEG_WAITING, th->since, t, spin_holder(s, v), true);
		break;
	default:
		break;
	}
}

void sched_enter_state(struct sched *s, uint32_t v, enum thread_state st, int64_t t)
{
	if ((st == TS_WAITING || st == TS_DEAD) && s->state_begins)
		t = s->state_begins(s->sink_data, v, st, t);
	s->th[v].state = (uint8_t)st;
	s->th[v].since = t;
	s->th[v].woken_from_device = false;   /* on_wakeup sets it after */
	s->th[v].woken_part = 0;
	s->th[v].device_delay = 0;
}

/* The thread's observed lifetime begins at t in state st. */
void sched_begin_life(struct sched *s, uint32_t v, enum thread_state st, int64_t t)
{
	struct wperf_vertex *vx = vt_get(s->vt, v);

	if (vx->first_ts < 0)
		vx->first_ts = t;
	if (vx->last_ts < t)
		vx->last_ts = t;
	if (!s->th[v].known_origin && !vx->unknown_initial_state) {
		vx->unknown_initial_state = true;
		s->quality->unknown_initial_threads++;
	}
	sched_enter_state(s, v, st, t);
}

/* A scheduler event of thread v contradicted its tracked state: counted
 * for the trace and for the thread (reports say whose events were lost). */
void sched_state_mismatch(struct sched *s, uint32_t v)
{
	s->quality->state_mismatches++;
	vt_get(s->vt, v)->state_mismatches++;
}

/* Thread v ran again, or left the CPU, while waiting: its wakeup was lost. */
void sched_lost_wakeup(struct sched *s, uint32_t v)
{
	s->quality->waits_without_wakeup++;
	vt_get(s->vt, v)->waits_without_wakeup++;
}

/* The thread is gone (exited, or its tid was reused under our eyes). */
void sched_end_life(struct sched *s, uint32_t v, int64_t t)
{
	sched_leave_state(s, v, t, VERTEX_NONE);
	sched_enter_state(s, v, TS_DEAD, t);
	vt_forget_tid(s->vt, vt_get(s->vt, v)->tid, v);
}

void sched_account_unknown(struct sched *s)
{
	for (size_t i = 0; i < s->vt->n; i++) {
		struct wperf_vertex *v = &s->vt->v[i];
		int64_t seen = v->running_ns + v->runnable_ns;

		for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
			seen += v->waiting_ns[k];
		if (v->kind == WPERF_V_THREAD && v->first_ts >= 0 &&
		    v->last_ts - v->first_ts > seen)
			v->unknown_ns = v->last_ts - v->first_ts - seen;
		/* A window clips runnable time, not the latencies counted. */
		if (v->wake_latency_ns > v->runnable_ns)
			v->wake_latency_ns = v->runnable_ns > 0 ? v->runnable_ns : 0;
		if (v->woken_cpu_wait_ns > wperf_vertex_cpu_wait_ns(v))
			v->woken_cpu_wait_ns = wperf_vertex_cpu_wait_ns(v);
	}
}
