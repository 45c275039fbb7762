/* SPDX-License-Identifier: MIT */
/*
 * analysis/threads.c — thread state (see threads.h): every thread through
 * running, runnable and waiting from the scheduler events, and the
 * segment each state leaves behind: which event moves a thread to which
 * state. The moves themselves, and the segments they close, are
 * segments.c's; who ended a wait, and the interrupt context that tells
 * it, is wakers.c's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "segments.h"
#include "threads.h"
#include "wakers.h"

#define MAX_CPUS 65536

/* prev_state bits (kernels >= 4.14; older kernels agree on these). */
#define STATE_EXIT_DEAD   16
#define STATE_EXIT_ZOMBIE 32
/* Raw TASK_DEAD: kernels before 4.14 report the raw task state, where it
 * is 64 (the decoder flags it as WPERF_PREV_STATE_DEAD when the trace says
 * which kernel); lttng-modules reports the raw state on later kernels too,
 * where it is 128. Both also mean something else on some kernels (64 a
 * parked kthread, 128 an idle one from 4.14), so unflagged they mean
 * death only after sched_process_exit. */
#define STATE_RAW_TASK_DEAD_OLD 64
#define STATE_RAW_TASK_DEAD_NEW 128

void sched_init(struct sched *s, struct vertex_table *vt, struct disk_tracker *disks,
		struct wperf_quality *q, segment_sink sink, void *sink_data)
{
	memset(s, 0, sizeof *s);
	s->vt = vt;
	s->disks = disks;
	s->quality = q;
	s->sink = sink;
	s->sink_data = sink_data;
	s->gap_until = INT64_MIN;
	locks_init(&s->locks);
}

void sched_fini(struct sched *s)
{
	free(s->th);
	free(s->cpus);
	locks_fini(&s->locks);
	memset(s, 0, sizeof *s);
}

/* ---- lookups ---- */

/* cpu_of() of a CPU not seen yet (slot i). */
static struct cpu_ctx *first_cpu_of(struct sched *s, size_t i, int64_t ts)
{
	if (!array_reserve_index((void **)&s->cpus, &s->n_cpus, i, 8, sizeof *s->cpus)) {
		s->oom = true;
		return NULL;
	}
	struct cpu_ctx *c = &s->cpus[i];

	if (!c->seen) {
		c->seen = true;
		c->first_ts = c->last_ts = ts;
		c->current_tid = -1;
		c->running = VERTEX_NONE;
		c->idle_since = -1;
		c->last_disk = VERTEX_NONE;
		c->last_nic = c->lo_sender = c->net_sender = VERTEX_NONE;
		c->softirq_raised_last = -1;
	}
	if (ts > c->last_ts)
		c->last_ts = ts;
	return c;
}

/* The context of CPU cpu (-1, or out of range: CPU "unknown"), which
 * the trace reached at ts. Inline: once per event. */
static inline struct cpu_ctx *cpu_of(struct sched *s, int cpu, int64_t ts)
{
	size_t i = (cpu < 0 || cpu >= MAX_CPUS) ? 0 : (size_t)cpu + 1;

	if (i >= s->n_cpus || !s->cpus[i].seen)
		return first_cpu_of(s, i, ts);
	struct cpu_ctx *c = &s->cpus[i];

	if (ts > c->last_ts)
		c->last_ts = ts;
	return c;
}

/* ---- scheduler events ---- */

static bool preempted_or_running(int64_t prev_state)
{
	/* 0 = running; 256 (>= 4.14) or TASK_STATE_MAX 1024/2048 (4.4-4.13)
	 * mark preemption: no sleeping bit in the low byte. */
	return (prev_state & 0xFF) == 0;
}

/* prev_state as reported from 4.14 (tracefs, perf, lttng-modules 2.11+):
 * one bit per state, TASK_REPORT_IDLE for a task in TASK_IDLE. */
#define STATE_REPORT_IDLE 0x80
/* The raw TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD, both values since
 * Linux 4.2): kernels before 4.14, and lttng-modules up to 2.10 on any. */
#define STATE_RAW_IDLE 0x402

static bool is_kworker(const struct sched *s, uint32_t v)
{
	return vt_comm_flags(s->vt, v) & VT_COMM_KWORKER;
}

/*
 * Does a wait that begins with this prev_state begin in the kernel's idle
 * state? TASK_IDLE is how the kernel itself says "this sleep is a wait for
 * work": kworkers between work items, RCU's grace-period threads,
 * kthread workers, kdamond (a reported 0x80 with no other bit, or the raw
 * 0x402; a raw 0x80 is TASK_DEAD after sched_process_exit or TASK_WAKEKILL,
 * never alone, and the caller handles death first).
 */
static bool state_is_idle(int64_t prev_state)
{
	return (prev_state & ~(int64_t)WPERF_PREV_STATE_DEAD) == STATE_REPORT_IDLE ||
	       (prev_state & STATE_RAW_IDLE) == STATE_RAW_IDLE;
}

/*
 * Is the wait v begins now (switched out in prev_state) a wait for work?
 * In the idle state, yes. Kernels without it for kworkers (Linux 4.4, the
 * traces show them in S) cannot say so: there, until the trace has shown
 * one idle-state switch, a kworker's interruptible sleep (1, S) is its
 * wait for work, as worker_thread() sleeps in TASK_INTERRUPTIBLE and the
 * work items it runs sleep in D on disks and locks. Once the idle state is
 * seen, an S sleep of a kworker is one inside a work item: a dependency.
 */
static bool wait_is_for_work(struct sched *s, uint32_t v, int64_t prev_state)
{
	if (state_is_idle(prev_state)) {
		s->quality->has_idle_state = true;
		return true;
	}
	return !s->quality->has_idle_state && prev_state == 1 && is_kworker(s, v);
}

/* A new wait of v begins: its stack, when the event carries one.
 * Inline: most traces carry no stacks, and then it is one store. */
static inline void set_wait_stack(struct sched *s, uint32_t v, const struct wperf_event *ev)
{
	uint32_t id = s->stacks && ev->n_stack && ev->stack
		? stacks_intern(s->stacks, ev->stack, ev->n_stack) : STACK_NONE;

	s->th[v].wait_stack = id == STACK_NONE ? 0 : id + 1;
}

static bool on_a_cpu(const struct sched_thread *th)
{
	return th->state == TS_RUNNING || th->state == TS_SPINNING;
}

/*
 * Thread v left its CPU unseen (its switch-out was lost): its running
 * ends at `end`, and from then on its state is unknown, as a thread's
 * never seen, until an event shows it again. A CPU runs one thread at a
 * time: time after the last sure sight of it is not running time
 * (wperf-analysis(7), "Figures a recording can hold").
 */
static void lose_sight(struct sched *s, uint32_t v, int64_t end)
{
	struct sched_thread *th = &s->th[v];

	if (end < th->since)
		end = th->since;
	sched_leave_state(s, v, end, VERTEX_NONE);
	th->state = TS_UNKNOWN;
	th->since = end;
	th->cpu = 0;
}

/* Another thread switched out of CPU c while v was believed to run there:
 * v's switch-out was lost, at a moment the trace does not say. */
static void cpu_changed_hands(struct sched *s, struct cpu_ctx *c, uint32_t prev)
{
	uint32_t v = c->running;

	c->running = VERTEX_NONE;
	if (v == VERTEX_NONE || v == prev || v >= s->n_th || !on_a_cpu(&s->th[v]) ||
	    s->th[v].cpu != (uint32_t)(c - s->cpus))
		return;
	if (!s->th[v].inferred)
		sched_state_mismatch(s, v);
	lose_sight(s, v, s->th[v].since);
}

/* prev: prev_tid's vertex as on_switch found it (VERTEX_NONE: not seen
 * yet, made here), so that a switch probes the tid index once for it. */
static void switch_out(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev,
		       uint32_t prev)
{
	uint32_t v = prev != VERTEX_NONE ? prev : sched_new_thread_vertex(s, ev->u.sw.prev_tid);
	int64_t t = ev->ts;

	if (v == VERTEX_NONE)
		return;
	struct sched_thread *th = &s->th[v];

	if (ev->u.sw.prev_comm)
		vt_set_comm(s->vt, v, ev->u.sw.prev_comm);
	/* The switch is recorded while prev runs: the event's own process
	 * context (perf_pid, LTTng pid) is prev's process. */
	if (ev->current_pid > 0 && ev->current_tid == ev->u.sw.prev_tid)
		vt_get(s->vt, v)->pid = ev->current_pid;
	switch (th->state) {
	case TS_UNKNOWN:
		/* Running since this CPU's first event if nothing ran before;
		 * after lost events, since when is unknown. */
		sched_begin_life(s, v, TS_RUNNING,
				 c->current_tid < 0 && !c->lost ? c->first_ts : t);
		break;
	case TS_RUNNING:
	case TS_SPINNING:
		break;
	case TS_RUNNABLE:
		/* Runnable by the state dump, switched out: it ran here since,
		 * if no other thread was switched in here meanwhile. */
		if (th->inferred && c->current_tid < 0 && !c->lost)
			th->state = TS_RUNNING;
		else if (th->inferred) {   /* the dump was wrong about it */
			sched_state_mismatch(s, v);
			lose_sight(s, v, th->since);
		}
		else
			sched_state_mismatch(s, v);
		break;
	case TS_WAITING:
		if (!th->inferred)
			sched_lost_wakeup(s, v);
		/* fall through */
	default:
		if (!th->inferred)
			sched_state_mismatch(s, v);
		break;
	}
	sched_leave_state(s, v, t, VERTEX_NONE);
	th->inferred = false;
	th->cpu = 0;
	/* After sched_process_exit a task can still be preempted, or sleep
	 * (tearing down its memory, waking its joiner) and run again: it is
	 * gone only when it leaves the CPU dead (X or Z; TASK_DEAD when the
	 * kernel reports the raw state), or at sched_process_free. */
	int64_t state = ev->u.sw.prev_state;
	bool runnable = preempted_or_running(state);
	bool raw_dead = state == STATE_RAW_TASK_DEAD_OLD || state == STATE_RAW_TASK_DEAD_NEW;

	if ((state & (STATE_EXIT_DEAD | STATE_EXIT_ZOMBIE | WPERF_PREV_STATE_DEAD)) ||
	    (th->exiting && raw_dead)) {
		sched_enter_state(s, v, TS_DEAD, t);
		vt_forget_tid(s->vt, ev->u.sw.prev_tid, v);
	} else {
		sched_enter_state(s, v, runnable ? TS_RUNNABLE : TS_WAITING, t);
		if (!runnable) {
			set_wait_stack(s, v, ev);
			th = &s->th[v];
			th->wait_idle = wait_is_for_work(s, v, state);
		}
	}
}

/* A kernel stack recorded right after its thread switched out (ftrace's
 * stacktrace trigger): the stack of the wait that thread just began. */
static void on_stack(struct sched *s, const struct wperf_event *ev)
{
	uint32_t v = ev->current_tid > 0 ? vt_find_thread(s->vt, ev->current_tid) : VERTEX_NONE;

	if (v != VERTEX_NONE && v < s->n_th && s->th[v].state == TS_WAITING &&
	    s->th[v].since <= ev->ts)
		set_wait_stack(s, v, ev);
}

/*
 * v, runnable since th->since, runs on a CPU that idled since idle_from
 * (-1: it ran another thread, or since when is unknown): the part of its
 * runnable time that CPU sat idle is a wakeup's latency, not a wait for a
 * CPU another thread held (wperf-analysis(7), "The CPUs").
 */
static void count_wake_latency(struct sched *s, uint32_t v, int64_t idle_from, int64_t t)
{
	int64_t since = s->th[v].since;
	int64_t from = since > idle_from ? since : idle_from;
	int64_t idle = idle_from >= 0 && t > from ? t - from : 0;
	struct wperf_vertex *vx = vt_get(s->vt, v);

	vx->wake_latency_ns += idle;
	if (s->th[v].woken_from_device && t - since > idle) {
		int64_t delay = t - since - idle;

		s->th[v].woken_part = delay < WPERF_LOST_TURN_NS ? delay : WPERF_LOST_TURN_NS;
		vx->woken_cpu_wait_ns += s->th[v].woken_part;
	}
	/* Both belong to the device wait before them: relieving it removes
	 * them too (wperf-analysis(7), "The CPUs"). */
	if (s->th[v].woken_from_device)
		s->th[v].device_delay = s->th[v].woken_part + idle;
}

static void switch_in(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev,
		      int64_t idle_from)
{
	uint32_t v = sched_thread_vertex(s, ev->u.sw.next_tid);
	int64_t t = ev->ts;

	if (v == VERTEX_NONE)
		return;
	struct sched_thread *th = &s->th[v];

	if (ev->u.sw.next_comm)
		vt_set_comm(s->vt, v, ev->u.sw.next_comm);
	switch (th->state) {
	case TS_UNKNOWN:
		sched_begin_life(s, v, TS_RUNNING, t);
		s->th[v].cpu = (uint32_t)(c - s->cpus);
		c->running = v;
		return;
	case TS_RUNNABLE:
		count_wake_latency(s, v, idle_from, t);
		break;
	case TS_WAITING:     /* its wakeup was lost */
		if (!th->inferred)
			sched_lost_wakeup(s, v);
		break;
	default:             /* already running elsewhere: a switch-out was lost */
		if (!th->inferred)
			sched_state_mismatch(s, v);
		/* It ran there at most until that CPU's last event. */
		if (on_a_cpu(th) && th->cpu && th->cpu < s->n_cpus &&
		    s->cpus[th->cpu].last_ts < t)
			lose_sight(s, v, s->cpus[th->cpu].last_ts);
		break;
	}
	sched_leave_state(s, v, t, VERTEX_NONE);
	th->inferred = false;
	/* Preempted while spinning: back on the CPU, it spins on. */
	sched_enter_state(s, v, th->spinning ? TS_SPINNING : TS_RUNNING, t);
	th->cpu = (uint32_t)(c - s->cpus);
	c->running = v;
}

static void on_switch(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev)
{
	s->switches++;
	s->quality->switches++;
	if (ev->u.sw.prev_tid == 0)
		s->quality->switches_from_idle++;
	c->depth = 0;   /* the scheduler never runs in interrupt context */
	uint32_t prev = ev->u.sw.prev_tid > 0 ? vt_find_thread(s->vt, ev->u.sw.prev_tid)
					      : VERTEX_NONE;

	cpu_changed_hands(s, c, prev);
	int64_t idle_from = ev->u.sw.prev_tid == 0 ? c->idle_since : -1;

	c->idle_since = ev->u.sw.next_tid == 0 ? ev->ts : -1;
	if (ev->u.sw.prev_tid > 0)
		switch_out(s, c, ev, prev);
	if (ev->u.sw.next_tid > 0)
		switch_in(s, c, ev, idle_from);
	c->current_tid = ev->u.sw.next_tid;
}

/*
 * A wakeup by a disk, a NIC or an interrupt ends a wait on a device: the
 * thread's wait for a CPU after it, up to one lost turn
 * (WPERF_LOST_TURN_NS), is that wait's cost (had the I/O not blocked it,
 * it would have kept its CPU until its turn ended), not a need for more
 * CPUs. A wakeup by a thread is not: that thread ran to wake it, and among
 * threads that share the CPUs the delay measures the CPUs
 * (wperf-analysis(7), "The CPUs").
 */
static bool woken_by_device(enum wperf_vertex_kind waker)
{
	return waker == WPERF_V_DISK || waker == WPERF_V_NIC || waker == WPERF_V_IRQ ||
	       waker == WPERF_V_SOFTIRQ;
}

static void on_wakeup(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev)
{
	/* sched_wakeup repeats what sched_waking said, later and on the
	 * target CPU: use it only on kernels without sched_waking. */
	if (!ev->u.wake.waking && s->quality->has_waking)
		return;
	if (ev->u.wake.waking)
		s->quality->has_waking = true;
	s->wakeups++;
	if (ev->u.wake.tid <= 0)
		return;
	uint32_t v = sched_thread_vertex(s, ev->u.wake.tid);

	if (v == VERTEX_NONE)
		return;
	switch (s->th[v].state) {
	case TS_WAITING: {
		/* May create the waker's vertex, moving s->th: no pointer kept. */
		uint32_t waker = sched_waker_of(s, c, ev, v);

		if (waker == v)   /* cannot wake oneself: the context is stale */
			waker = sched_named_pseudo(s, WPERF_V_UNKNOWN, "unknown");
		bool on_device = !s->th[v].wait_idle &&
			woken_by_device(vt_get(s->vt, waker)->kind);

		sched_leave_state(s, v, ev->ts, waker);
		sched_enter_state(s, v, TS_RUNNABLE, ev->ts);
		s->th[v].inferred = false;
		s->th[v].woken_from_device = on_device;
		break;
	}
	case TS_UNKNOWN:
		sched_begin_life(s, v, TS_RUNNABLE, ev->ts);
		break;
	default:
		s->quality->unmatched_wakeups++;
		break;
	}
}

/* A new thread becomes runnable. After its fork event it already is. */
static void on_wakeup_new(struct sched *s, const struct wperf_event *ev)
{
	uint32_t v = sched_thread_vertex(s, ev->u.wake.tid);

	if (v == VERTEX_NONE || s->th[v].state != TS_UNKNOWN)
		return;
	s->th[v].known_origin = true;
	if (ev->u.wake.comm)
		vt_set_comm(s->vt, v, ev->u.wake.comm);
	sched_begin_life(s, v, TS_RUNNABLE, ev->ts);
}

/* How far a child's first events may precede its fork event. */
#define FORK_SKEW_NS 10000000   /* 10 ms */

/*
 * The child was already seen (switched in or woken on another CPU) just
 * before its fork event: per-CPU streams merged with a little clock skew,
 * or a recorder that had to nudge a late event forward. It is the same
 * thread, not a reuse of its tid: keep its vertex, now of known origin.
 */
static bool adopt_early_child(struct sched *s, uint32_t v, const struct wperf_event *ev)
{
	struct wperf_vertex *vx = vt_get(s->vt, v);

	if (s->th[v].known_origin || vx->first_ts < ev->ts - FORK_SKEW_NS)
		return false;
	if (vx->unknown_initial_state) {
		vx->unknown_initial_state = false;
		s->quality->unknown_initial_threads--;
	}
	return true;
}

static void on_fork(struct sched *s, const struct wperf_event *ev)
{
	int64_t tid = ev->u.fork.child_tid;
	uint32_t v, parent = VERTEX_NONE;

	if (ev->u.fork.parent_tid > 0 && ev->u.fork.parent_pid > 0) {
		parent = sched_thread_vertex(s, ev->u.fork.parent_tid);
		if (parent != VERTEX_NONE)
			vt_get(s->vt, parent)->pid = ev->u.fork.parent_pid;
	}
	if (tid <= 0)
		return;
	v = vt_find_thread(s->vt, tid);
	if (v != VERTEX_NONE && vt_get(s->vt, v)->first_ts >= 0 && !adopt_early_child(s, v, ev)) {
		/* The tid is reused by a new thread: the old one is over. */
		sched_end_life(s, v, ev->ts);
		v = VERTEX_NONE;
	}
	if (v == VERTEX_NONE)
		v = sched_thread_vertex(s, tid);
	if (v == VERTEX_NONE)
		return;
	s->th[v].known_origin = true;
	s->th[v].forked_by = parent != VERTEX_NONE && parent != v ? parent + 1 : 0;
	vt_get(s->vt, v)->parent_tid = ev->u.fork.parent_tid > 0 ? ev->u.fork.parent_tid : 0;
	vt_get(s->vt, v)->pid = ev->u.fork.child_pid > 0 ? ev->u.fork.child_pid : tid;
	if (ev->u.fork.child_comm)
		vt_set_comm(s->vt, v, ev->u.fork.child_comm);
	/* The kernel makes the child runnable right after this event
	 * (sched_wakeup_new, which a trace may lack): its life begins here,
	 * not at its first switch-in, or its first wait for a CPU is lost. */
	if (s->th[v].state == TS_UNKNOWN)
		sched_begin_life(s, v, TS_RUNNABLE, ev->ts);
}

static void on_task(struct sched *s, const struct wperf_event *ev)
{
	uint32_t v = vt_find_thread(s->vt, ev->u.task.tid);

	if (v == VERTEX_NONE || ev->u.task.tid <= 0)
		return;
	switch (ev->type) {
	case WPERF_EV_EXEC:
		if (ev->u.task.comm)
			vt_set_comm(s->vt, v, ev->u.task.comm);
		break;
	case WPERF_EV_EXIT:
		s->th[v].exiting = true;
		break;
	default: /* FREE: the tid may now be reused; close what is open. */
		sched_end_life(s, v, ev->ts);
		break;
	}
}

static void on_statedump(struct sched *s, const struct wperf_event *ev)
{
	int64_t tid = ev->u.statedump.tid;

	if (tid <= 0)
		return;
	uint32_t v = sched_thread_vertex(s, tid);

	if (v == VERTEX_NONE)
		return;
	struct wperf_vertex *vx = vt_get(s->vt, v);

	if (ev->u.statedump.pid > 0)
		vx->pid = ev->u.statedump.pid;
	if (ev->u.statedump.name && !vx->comm)
		vt_set_comm(s->vt, v, ev->u.statedump.name);
	if (s->th[v].state != TS_UNKNOWN || vx->first_ts >= 0)
		return;   /* we already follow it: events beat the dump */
	s->th[v].known_origin = true;
	s->th[v].inferred = true;
	switch (ev->u.statedump.status) {
	case WPERF_STATEDUMP_WAIT:
		sched_begin_life(s, v, TS_WAITING, ev->ts);
		/* The dump does not say which sleep: a kworker asleep when
		 * the trace began is, but for the moments it runs work that
		 * sleeps, waiting for work (wperf-analysis(7)). */
		s->th[v].wait_idle = is_kworker(s, v);
		break;
	case WPERF_STATEDUMP_WAIT_CPU:
	case WPERF_STATEDUMP_RUN:
		/* "Running" in a dump is the kernel's TASK_RUNNING: on a CPU or
		 * queued for one, and a 2-CPU machine under load has dozens.
		 * Runnable until an event says which: a switch-out shows it
		 * was on that CPU (switch_out), a switch-in that it waited. */
		sched_begin_life(s, v, TS_RUNNABLE, ev->ts);
		break;
	default:
		break;
	}
}

/* The thread an annotation event was recorded in (its vtid context, else
 * the thread running on that CPU), with its process learnt from vpid. */
static uint32_t annotated_thread(struct sched *s, struct cpu_ctx *c,
				 const struct wperf_event *ev)
{
	int64_t tid = ev->current_tid > 0 ? ev->current_tid : c->current_tid;

	if (tid <= 0)
		return VERTEX_NONE;
	uint32_t v = sched_thread_vertex(s, tid);

	if (v != VERTEX_NONE && ev->current_pid > 0)
		vt_get(s->vt, v)->pid = ev->current_pid;
	return v;
}

/* wperf:before_spin: from now on the thread waits for the lock's holder,
 * though the scheduler says it runs (wperf-method(7) §6). */
static void on_spin_begin(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev)
{
	uint32_t v = annotated_thread(s, c, ev);

	if (v == VERTEX_NONE)
		return;
	s->th[v].spinning = true;
	s->th[v].spin_lock = ev->u.spin.lock;
	if (s->th[v].state == TS_RUNNING) {
		sched_leave_state(s, v, ev->ts, VERTEX_NONE);
		sched_enter_state(s, v, TS_SPINNING, ev->ts);
	}
}

/* wperf:after_spin: the thread has the lock; it is now the one others wait for. */
static void on_spin_end(struct sched *s, struct cpu_ctx *c, const struct wperf_event *ev)
{
	uint32_t v = annotated_thread(s, c, ev);

	if (v == VERTEX_NONE)
		return;
	if (s->th[v].state == TS_SPINNING) {
		s->th[v].spin_lock = ev->u.spin.lock;
		sched_leave_state(s, v, ev->ts, VERTEX_NONE);
		sched_enter_state(s, v, TS_RUNNING, ev->ts);
	}
	s->th[v].spinning = false;
	locks_set_holder(&s->locks, vt_get(s->vt, v)->pid, ev->u.spin.lock, v);
}

void sched_event(struct sched *s, const struct wperf_event *ev)
{
	struct cpu_ctx *c = cpu_of(s, ev->cpu, ev->ts);

	if (!c)
		return;
	switch (ev->type) {
	case WPERF_EV_SWITCH:
		on_switch(s, c, ev);
		break;
	case WPERF_EV_WAKEUP:
		on_wakeup(s, c, ev);
		break;
	case WPERF_EV_WAKEUP_NEW:
		on_wakeup_new(s, ev);
		break;
	case WPERF_EV_FORK:
		on_fork(s, ev);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_EXIT:
	case WPERF_EV_FREE:
		on_task(s, ev);
		break;
	case WPERF_EV_IRQ_ENTRY:
		ctx_irq_entry(s, c, ev);
		break;
	case WPERF_EV_IRQ_EXIT:
		ctx_pop(c, CTX_IRQ);
		break;
	case WPERF_EV_SOFTIRQ_ENTRY:
		ctx_softirq_entry(c, ev->u.softirq.vec);
		break;
	case WPERF_EV_SOFTIRQ_RAISE:
		ctx_softirq_raise(c, ev->u.softirq.vec);
		break;
	case WPERF_EV_SOFTIRQ_EXIT:
		ctx_pop(c, CTX_SOFTIRQ);
		break;
	case WPERF_EV_TIMER_ENTRY:
		ctx_push(c, (struct ctx_frame){ .kind = CTX_TIMER,
						.vertex = VERTEX_NONE, .disk = VERTEX_NONE });
		break;
	case WPERF_EV_TIMER_EXIT:
		ctx_pop(c, CTX_TIMER);
		break;
	case WPERF_EV_STATEDUMP_PROCESS:
		on_statedump(s, ev);
		break;
	case WPERF_EV_SPIN_BEGIN:
		on_spin_begin(s, c, ev);
		break;
	case WPERF_EV_SPIN_END:
		on_spin_end(s, c, ev);
		break;
	case WPERF_EV_STACK:
		on_stack(s, ev);
		break;
	default:
		break;
	}
}

void sched_block_completed(struct sched *s, const struct wperf_event *ev, uint32_t disk)
{
	struct cpu_ctx *c = cpu_of(s, ev->cpu, ev->ts);

	if (!c || disk == VERTEX_NONE)
		return;
	c->last_disk = disk;
	for (int i = c->depth - 1; i >= 0; i--) {
		if (c->stack[i].kind == CTX_IRQ) {
			c->stack[i].disk = disk;
			sched_learn_irq_disk(s, c->stack[i].num, disk);
			break;
		}
	}
}

void sched_net_seen(struct sched *s, const struct wperf_event *ev, uint32_t nic,
		    uint32_t sender, uint32_t peer)
{
	struct cpu_ctx *c = cpu_of(s, ev->cpu, ev->ts);
	bool lo = ev->u.net.dev && strcmp(ev->u.net.dev, "lo") == 0;

	if (c)
		ctx_net_received(c, ev->type, peer);
	if (!c || nic == VERTEX_NONE)
		return;
	c->last_nic = nic;
	if (ev->type == WPERF_EV_NET_RECV)
		c->last_recv_lo = lo;
	else if (lo && sender != VERTEX_NONE)
		c->lo_sender = sender;
}

uint32_t sched_thread_context(struct sched *s, const struct wperf_event *ev)
{
	struct cpu_ctx *c = cpu_of(s, ev->cpu, ev->ts);

	if (!c)
		return VERTEX_NONE;
	if (ev->context_flags != WPERF_CTX_UNKNOWN
	    ? (ev->context_flags & (WPERF_CTX_HARDIRQ | WPERF_CTX_SOFTIRQ)) != 0
	    : c->depth > 0)
		return VERTEX_NONE;   /* sent by the kernel on nobody's behalf */
	return sched_current_thread(s, ev, -1);
}

uint32_t sched_current_thread(struct sched *s, const struct wperf_event *ev, int64_t tid)
{
	struct cpu_ctx *c;

	if (tid <= 0)
		tid = ev->current_tid;
	if (tid <= 0 && (c = cpu_of(s, ev->cpu, ev->ts)))
		tid = c->current_tid;
	return tid > 0 ? sched_thread_vertex(s, tid) : VERTEX_NONE;
}

void sched_lost_events(struct sched *s, int cpu)
{
	for (size_t i = 0; i < s->n_cpus; i++) {
		if (cpu >= 0 && i != (size_t)cpu + 1)
			continue;
		uint32_t v = s->cpus[i].running;

		/* Whoever ran here may have left it in the lost events. */
		if (v != VERTEX_NONE && v < s->n_th && on_a_cpu(&s->th[v]) &&
		    s->th[v].cpu == i)
			lose_sight(s, v, s->cpus[i].last_ts);
		s->cpus[i].running = VERTEX_NONE;
		s->cpus[i].lost = true;
		s->cpus[i].idle_since = -1;
		s->cpus[i].current_tid = -1;
		s->cpus[i].depth = 0;
		s->cpus[i].last_disk = s->cpus[i].last_nic = VERTEX_NONE;
		s->cpus[i].lo_sender = s->cpus[i].net_sender = VERTEX_NONE;
		s->cpus[i].last_recv_lo = false;
		s->cpus[i].softirq_pending = 0;
		s->cpus[i].softirq_raised_last = -1;
	}
}

int64_t sched_cpu_last_event(const struct sched *s, int cpu)
{
	size_t i = (size_t)cpu + 1;

	if (cpu < 0 || cpu >= MAX_CPUS || i >= s->n_cpus || !s->cpus[i].seen)
		return INT64_MAX;
	return s->cpus[i].last_ts;
}

void sched_gap(struct sched *s, int64_t end)
{
	if (end > s->gap_until)
		s->gap_until = end;
}

void sched_finish(struct sched *s, int64_t end)
{
	/* Slot 0 is "CPU unknown" (cpu_of()): events a CPU did not emit,
	 * as `wperf top` meets between its periods; no CPU to count. */
	s->quality->cpus = 0;
	for (size_t i = 1; i < s->n_cpus; i++)
		s->quality->cpus += s->cpus[i].seen;
	for (size_t v = 0; v < s->n_th && v < s->vt->n; v++) {
		struct sched_thread *th = &s->th[v];

		if (th->state == TS_WAITING)
			s->quality->waits_open_at_end++;
		if (th->state == TS_RUNNING || th->state == TS_RUNNABLE ||
		    th->state == TS_WAITING || th->state == TS_SPINNING) {
			sched_leave_state(s, (uint32_t)v, end, VERTEX_NONE);
			th->since = end;   /* not a new state: no hooks */
		}
	}
}

int64_t sched_oldest_open_wait(const struct sched *s)
{
	int64_t oldest = INT64_MAX;

	for (size_t v = 0; v < s->n_th; v++)
		if ((s->th[v].state == TS_WAITING || s->th[v].state == TS_SPINNING) &&
		    s->th[v].since < oldest)
			oldest = s->th[v].since;
	return oldest;
}
