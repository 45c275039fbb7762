/* SPDX-License-Identifier: MIT */
/*
 * analysis/analysis.c — the streaming analysis facade (see wperf/analysis.h).
 *
 * Data flows one way: normalised events -> thread state (threads.c, with
 * wakers.c naming who ended each wait) -> closed segments -> per-thread
 * breakdown, direct edge weights and the cascade (cascade.c) -> at the
 * end, disk idle edges (disk.c) -> graph. This file takes the events
 * in; analysis-finish.c hands the graph out at the end of the input, and
 * the state both share is analysis-state.h's. The finished graph's own
 * functions are graph.c's, so the stages below call them without
 * depending on this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/analysis.h"
#include "analysis-state.h"
#include "array.h"
#include "cascade.h"
#include "cpus.h"
#include "disk.h"
#include "edges.h"
#include "falsewake.h"
#include "nic.h"
#include "runhist.h"
#include "stacks.h"
#include "threads.h"
#include "timeline.h"
#include "vertex.h"

_Static_assert((int)WPERF_SEG_RUNNING == (int)WPERF_SPAN_RUNNING &&
	       (int)WPERF_SEG_RUNNABLE == (int)WPERF_SPAN_RUNNABLE &&
	       (int)WPERF_SEG_WAITING == (int)WPERF_SPAN_WAITING,
	       "a segment's state is its timeline span's");

/* Prune cascade history after this many waits (amortises the O(threads) scan). */
#define PRUNE_EVERY 8192


const char *wperf_segment_state_name(enum wperf_segment_state s)
{
	switch (s) {
	case WPERF_SEG_RUNNING:
		return "running";
	case WPERF_SEG_RUNNABLE:
		return "runnable";
	default:
		return "waiting";
	}
}

/* ---- segments: the breakdown, the edges and the cascade ---- */

static void maybe_prune(struct wperf_analysis *a)
{
	if (++a->waits_since_prune < PRUNE_EVERY)
		return;
	a->waits_since_prune = 0;
	/* A future cascade walks windows that start no earlier than the
	 * oldest wait still open, or than now for waits not yet begun. */
	int64_t horizon = sched_oldest_open_wait(&a->sched);
	int64_t held = falsewake_oldest_held(&a->falsewake);

	if (held < horizon)
		horizon = held;
	if (horizon > a->end)
		horizon = a->end;
	cascade_prune(&a->cascade, horizon);
	runhist_prune(&a->runhist, horizon);
}

/* The edge's evidence touches a gap: knots holding it are marked. */
static void mark_gap_wait(struct edge_map *m, uint32_t from, uint32_t to)
{
	size_t e = edges_get(m, from, to);

	if (e != EDGE_NONE)
		m->e[e].gap_waits++;
}

/* The vertex of the thread that forked thread v, or VERTEX_NONE (UINT32_MAX). */
static uint32_t forked_by(const struct wperf_analysis *a, uint32_t v)
{
	return v < a->sched.n_th && a->sched.th[v].forked_by ? a->sched.th[v].forked_by - 1 :
							       VERTEX_NONE;
}

static bool in_window(const struct wperf_analysis *a, int64_t ts)
{
	return ts >= a->win_begin && ts <= a->win_end;
}

/*
 * A wait still open at the window's end, as at a trace's end: who ended
 * it later is outside what is analysed, and waits on `unknown`. A
 * recording's window is the load's; the threads that waited through it
 * for the end (a server's shutdown, the driver's wait for its benchmark)
 * were woken by the teardown, and with those wakers their waits made a
 * knot of the whole run around the load's.
 */
static void open_at_window_end(struct wperf_analysis *a, struct closed_segment *seg)
{
	uint32_t unknown = vt_pseudo(&a->vt, WPERF_V_UNKNOWN, "unknown");

	/* Still open at the trace's end too, it is counted there already
	 * (its waker is `unknown` then). */
	if (seg->waker != unknown)
		a->quality.waits_open_at_end++;
	seg->waker = unknown;
}

/* A closed segment's part inside the window, in *out; false when none. */
static bool clip_segment(const struct wperf_analysis *a, const struct closed_segment *seg,
			 struct closed_segment *out)
{
	*out = *seg;
	if (out->start < a->win_begin)
		out->start = a->win_begin;
	if (out->end > a->win_end)
		out->end = a->win_end;
	return out->end > out->start;
}

static enum cascade_waker cascade_waker_kind(enum wperf_vertex_kind kind)
{
	if (kind == WPERF_V_THREAD)
		return CASCADE_WAKER_THREAD;
	return wperf_vertex_kind_is_device(kind) ? CASCADE_WAKER_DEVICE : CASCADE_WAKER_OTHER;
}

/* Are the waiter and its waker threads of two programs: two processes
 * (both known) of two names? A client and its server; not two threads of
 * one process, nor two processes of one program (PostgreSQL's backends),
 * which may share locks (wperf_edge.served_ns). */
static bool other_program(struct wperf_analysis *a, const struct closed_segment *seg,
			  const struct wperf_vertex *v, const struct wperf_vertex *w)
{
	return v->pid > 0 && w->pid > 0 && v->pid != w->pid && v->comm && w->comm &&
	       !vt_same_name_base(&a->vt, seg->vertex, seg->waker);
}

/* A wait on a thread of another program: the time that thread ran
 * meanwhile, neither waiting nor runnable (on_runnable), is its work for
 * the waiter (wperf_edge.served_ns), added to edge e, which
 * edges_add_wait just weighed. A kernel thread's waits for work are not
 * in its history (they would count as running): its time is not judged. */
static void add_served(struct wperf_analysis *a, const struct closed_segment *seg,
		       const struct wperf_vertex *v, const struct wperf_vertex *w,
		       int64_t on_runnable, size_t e)
{
	int64_t served;

	if (e >= a->edges.n || !other_program(a, seg, v, w) ||
	    (vt_comm_flags(&a->vt, seg->waker) & (VT_COMM_TRACER | VT_COMM_WAITS_FOR_WORK)))
		return;
	served = seg->end - seg->start - on_runnable -
		 cascade_waited_within(&a->cascade, seg->waker, seg->start, seg->end);
	if (served > 0)
		a->edges.e[e].served_ns += served;
}

/* A closed wait's consumers: the breakdown by waker kind, the edge, the
 * CPU finding, the stacks and the cascade; returns the cascaded weight.
 * A function of its own: the running and runnable segments (two in three)
 * then take a short path that saves no registers for the waits'. */
static __attribute__((noinline)) int64_t
on_wait_segment(struct wperf_analysis *a, const struct closed_segment *seg,
		struct wperf_vertex *v, const struct wperf_vertex *w)
{
	int64_t d = seg->end - seg->start;
	int64_t cascade_ns = 0;
	bool requested;
	size_t e;

	v->waiting_ns[w->kind] += d;
	v->waits++;
	if (seg->idle && !wperf_vertex_kind_is_device(w->kind)) {
		/* A wait for work (TASK_IDLE): like a disk's idle time, no
		 * dependency; it neither cascades nor is walked through (not
		 * in the history): whoever gave the worker work did not hold
		 * it up. Unless a device's completion gave it the work: then
		 * the worker is the device's completion path (ext4's end-io
		 * work, say), and whoever waits for it waits for the device. */
		edges_add_idle_wait(&a->edges, seg->vertex, seg->waker, seg->start, seg->end);
		return 0;
	}
	/* The part of it the waker spent waiting for a CPU (the CPU
	 * finding's, wperf/cpu.h). */
	int64_t on_runnable = w->kind == WPERF_V_THREAD
				      ? runhist_overlap(&a->runhist, seg->waker, seg->start, seg->end)
				      : 0;

	v->waited_on_runnable_ns += on_runnable;
	e = edges_add_wait(&a->edges, seg->vertex, seg->waker, seg->start, seg->end,
			   on_runnable, forked_by(a, seg->waker) == seg->vertex, &requested);
	if (seg->stack)
		stacks_add_wait(&a->stacks, seg->vertex, seg->waker, seg->stack - 1, d);
	if (seg->after_gap)
		mark_gap_wait(&a->edges, seg->vertex, seg->waker);
	/* A tracer thread's wait is not work (graph.h): it neither cascades
	 * nor is cascaded through. Else LTTng-UST's listener, waiting all
	 * along for the program to exit, and the session daemon's threads
	 * waiting on it, would each add the whole run's waiting again to
	 * every edge under the main thread. Nor does a kernel service
	 * thread's wait for work: idle time, not held up by the waits of
	 * whoever gave it work. */
	if (!(vt_comm_flags(&a->vt, seg->vertex) & (VT_COMM_TRACER | VT_COMM_WAITS_FOR_WORK))) {
		cascade_ns = cascade_wait_ended(&a->cascade, &a->edges, seg->vertex,
						seg->waker, cascade_waker_kind(w->kind),
						requested, seg->start, seg->end);
		if (w->kind == WPERF_V_THREAD)
			add_served(a, seg, v, w, on_runnable, e);
	}
	maybe_prune(a);
	return cascade_ns;
}

/* A closed segment, to every consumer. Inline in the scheduler's sink
 * (on_sched_segment), which hands it every segment of most traces: a
 * call less per segment. */
static inline __attribute__((always_inline)) void
closed_segment(struct wperf_analysis *a, const struct closed_segment *whole)
{
	struct closed_segment clipped;
	const struct closed_segment *seg = whole;

	/* With a window, only the segment's part inside it counts: for the
	 * breakdown, the edges, the cascade (whose history then holds only
	 * windowed waits, so a walk never reaches outside the window) and a
	 * filter's segment events alike. */
	if (a->has_window) {
		if (!clip_segment(a, whole, &clipped))
			return;
		if (whole->state == WPERF_SEG_WAITING && whole->end > a->win_end)
			open_at_window_end(a, &clipped);
		seg = &clipped;
	}
	struct wperf_vertex *v = vt_get(&a->vt, seg->vertex);
	int64_t d = seg->end - seg->start;
	const struct wperf_vertex *w = NULL;
	int64_t cascade_ns = 0;

	switch (seg->state) {
	case WPERF_SEG_RUNNING:
		v->running_ns += d;
		break;
	case WPERF_SEG_RUNNABLE:
		v->runnable_ns += d;
		/* A device wakeup's delay is that device's cost, not a wait
		 * for a CPU at one remove for those waiting on this thread. */
		if (seg->woken_ns < d)
			runhist_add(&a->runhist, seg->vertex, seg->start + seg->woken_ns, seg->end);
		/* Nor is it the thread's own time for the cascade: its device
		 * wait goes on until then (cascade_extend_device_wait). */
		if (seg->device_delay_ns > 0)
			cascade_extend_device_wait(&a->cascade, seg->vertex, seg->start,
						   seg->start + (seg->device_delay_ns < d
								 ? seg->device_delay_ns : d));
		break;
	case WPERF_SEG_WAITING:
		w = vt_get(&a->vt, seg->waker);
		cascade_ns = on_wait_segment(a, seg, v, w);
		break;
	}
	/* The segment's state numbers are the span's (wperf/graph.h). */
	if (!a->no_timelines)
		timeline_store_add(&a->timelines, seg->vertex, (enum wperf_span_state)seg->state,
				   seg->start, seg->end, w ? seg->waker : UINT32_MAX);
	/* Only a filter.wperf.waits listens: without one, the segment's
	 * description (and the cache line of the vertex it reads) is skipped. */
	if (a->cb) {
		struct wperf_segment out = {
			.vertex = seg->vertex, .tid = v->tid, .pid = v->pid, .comm = v->comm,
			.state = seg->state, .start_ns = seg->start, .end_ns = seg->end,
			.waker = w ? seg->waker : UINT32_MAX,
			.waker_name = w ? w->name : NULL,
			.waker_kind = w ? w->kind : WPERF_V_UNKNOWN,
			.cascade_ns = cascade_ns,
		};

		a->cb(&out, a->cb_data);
	}
}

/* The false-wakeup stage's output. */
static void on_closed_segment(void *data, const struct closed_segment *seg)
{
	closed_segment(data, seg);
}

/* Scheduler segments go through the false-wakeup stage first. */
static void on_sched_segment(void *data, const struct closed_segment *seg)
{
	struct wperf_analysis *a = data;

	/* Without false wakeups to merge (most traces), straight on: a
	 * direct call rather than the stage's pointer. */
	if (!a->falsewake.enabled)
		closed_segment(a, seg);
	else
		falsewake_segment(&a->falsewake, seg);
}

static int64_t on_state_begins(void *data, uint32_t v, enum thread_state st, int64_t t)
{
	struct wperf_analysis *a = data;

	return falsewake_state_begins(&a->falsewake, v, st, t);
}

/* ---- annotations ---- */

static void on_false_wakeup(struct wperf_analysis *a, const struct wperf_event *ev)
{
	uint32_t v = sched_current_thread(&a->sched, ev, -1);

	if (v != VERTEX_NONE)
		falsewake_declared(&a->falsewake, v, ev->ts);
}

/* A packet: its interface is what network softirqs on this CPU serve
 * next; a packet sent from thread context counts for its sender; a
 * receive names its sender when the trace pairs them (netpeer.h). A
 * TCP_* event only pairs. */
static void on_net(struct wperf_analysis *a, const struct wperf_event *ev)
{
	bool send = ev->type == WPERF_EV_NET_XMIT || ev->type == WPERF_EV_TCP_SEND;
	uint32_t sender = send ? sched_thread_context(&a->sched, ev) : VERTEX_NONE;
	uint32_t peer = netpeer_seen(&a->nics.peers, ev, sender);
	uint32_t nic = ev->type == WPERF_EV_TCP_SEND || ev->type == WPERF_EV_TCP_RECV
		       ? VERTEX_NONE : nic_vertex(&a->nics, &a->vt, ev->u.net.dev);

	sched_net_seen(&a->sched, ev, nic, sender, peer);
	if (ev->type == WPERF_EV_NET_XMIT && in_window(a, ev->ts))
		nic_sent(&a->nics, &a->vt, nic, sender, ev->u.net.len);
}

static void on_progress(struct wperf_analysis *a, const struct wperf_event *ev)
{
	const char *name = ev->u.progress.name ? ev->u.progress.name : "";

	if (!in_window(a, ev->ts))
		return;
	for (size_t i = 0; i < a->n_progress; i++) {
		if (strcmp(a->progress[i].name, name) == 0) {
			a->progress[i].count++;
			return;
		}
	}
	if (a->n_progress == a->cap_progress) {
		size_t cap = a->cap_progress ? a->cap_progress * 2 : 8;
		struct wperf_progress_point *p = realloc(a->progress, cap * sizeof *p);

		if (!p) {
			a->vt.oom = true;
			return;
		}
		a->progress = p;
		a->cap_progress = cap;
	}
	char *copy = strdup(name);

	if (!copy) {
		a->vt.oom = true;
		return;
	}
	a->progress[a->n_progress++] = (struct wperf_progress_point){ copy, 1 };
}

/* ---- the public API ---- */

struct wperf_analysis *wperf_analysis_create(void)
{
	struct wperf_analysis *a = calloc(1, sizeof *a);

	if (!a)
		return NULL;
	for (int h = 0; h < WPERF_HOSTS_MAX; h++)
		a->last_event_ts[h] = INT64_MIN;
	vt_init(&a->vt);
	edges_init(&a->edges);
	cascade_init(&a->cascade);
	runhist_init(&a->runhist);
	a->cascade.runhist = &a->runhist;
	cpus_init(&a->cpus);
	disk_init(&a->disks);
	nic_init(&a->nics);
	/* No state_begins hook until false wakeups are expected
	 * (enable_false_wakeups): without them it would answer every wait's
	 * start unchanged, a call per wait for nothing. */
	sched_init(&a->sched, &a->vt, &a->disks, &a->quality, on_sched_segment, a);
	stacks_init(&a->stacks);
	a->sched.stacks = &a->stacks;
	falsewake_init(&a->falsewake, on_closed_segment, a);
	a->win_begin = INT64_MIN;
	a->win_end = INT64_MAX;
	return a;
}

void wperf_analysis_destroy(struct wperf_analysis *a)
{
	if (!a)
		return;
	sched_fini(&a->sched);
	falsewake_fini(&a->falsewake);
	for (size_t i = 0; i < a->n_progress; i++)
		free(a->progress[i].name);
	free(a->progress);
	disk_fini(&a->disks);
	nic_fini(&a->nics);
	cascade_fini(&a->cascade);
	runhist_fini(&a->runhist);
	cpus_fini(&a->cpus);
	edges_fini(&a->edges);
	stacks_fini(&a->stacks);
	timeline_store_fini(&a->timelines);
	vt_fini(&a->vt);
	free(a->quality.gaps);
	free(a->quality.missing_cpus);
	free(a);
}

void wperf_analysis_keep_timelines(struct wperf_analysis *a, bool keep)
{
	a->no_timelines = !keep;
}

void wperf_analysis_on_segment(struct wperf_analysis *a, wperf_segment_cb cb, void *data)
{
	a->cb = cb;
	a->cb_data = data;
}

int wperf_analysis_thread_info(const struct wperf_analysis *a, uint32_t v,
			       struct wperf_thread_info *out)
{
	const struct wperf_vertex *x;

	if (v >= a->vt.n || a->vt.v[v].kind != WPERF_V_THREAD)
		return -1;
	x = &a->vt.v[v];
	out->tid = x->tid;
	out->pid = x->pid;
	out->comm = x->comm;
	out->forked_by = forked_by(a, v);
	return 0;
}

int wperf_analysis_set_nic_capacity(struct wperf_analysis *a, const char *dev,
				    uint64_t bits_per_second)
{
	return nic_set_capacity(&a->nics, dev, bits_per_second);
}

int wperf_analysis_set_window(struct wperf_analysis *a, int64_t begin, int64_t end)
{
	if (begin > end || a->quality.events > 0 || a->finished)
		return -1;
	a->win_begin = begin;
	a->win_end = end;
	a->has_window = begin != INT64_MIN || end != INT64_MAX;
	disk_set_window(&a->disks, begin, end);
	return 0;
}

/* The false-wakeup stage holds segments and may move a wait's start. */
static void enable_false_wakeups(struct wperf_analysis *a)
{
	a->falsewake.enabled = true;
	a->sched.state_begins = on_state_begins;
}

void wperf_analysis_expect_false_wakeups(struct wperf_analysis *a)
{
	enable_false_wakeups(a);
}

/* An event at ts: the range of events so far reaches it. */
static void event_time(struct wperf_analysis *a, int64_t ts)
{
	if (!a->have_time) {
		a->begin = a->end = ts;
		a->have_time = true;
		return;
	}
	if (ts < a->begin)
		a->begin = ts;
	if (ts > a->end)
		a->end = ts;
}

void wperf_analysis_bound(struct wperf_analysis *a, bool end, int64_t ts)
{
	if (a->finished)
		return;
	if (end && (!a->have_chosen_end || ts > a->chosen_end)) {
		a->chosen_end = ts;
		a->have_chosen_end = true;
	} else if (!end && (!a->have_chosen_begin || ts < a->chosen_begin)) {
		a->chosen_begin = ts;
		a->have_chosen_begin = true;
	}
}

/* What a statedump would say of a thread in state st; -1: nothing (not
 * yet seen doing anything, or dead). */
static int64_t statedump_status(enum thread_state st)
{
	switch (st) {
	case TS_RUNNING:
	case TS_SPINNING:
		return WPERF_STATEDUMP_RUN;
	case TS_RUNNABLE:
		return WPERF_STATEDUMP_WAIT_CPU;
	case TS_WAITING:
		return WPERF_STATEDUMP_WAIT;
	default:
		return -1;
	}
}

/*
 * The seed is fed as the statedump events LTTng would record at t, so a
 * window is analysed by the same code, with the same inferences (a
 * kworker asleep is waiting for work), as a trace that begins there.
 */
void wperf_analysis_seed(struct wperf_analysis *dst, const struct wperf_analysis *src,
			 int64_t t)
{
	struct wperf_event ev;

	if (src->falsewake.enabled)
		enable_false_wakeups(dst);
	wperf_analysis_bound(dst, false, t);
	memset(&ev, 0, sizeof ev);
	ev.ts = t;
	ev.cpu = -1;
	ev.current_tid = ev.current_pid = -1;
	ev.context_flags = WPERF_CTX_UNKNOWN;
	ev.type = WPERF_EV_STATEDUMP_BLOCK_DEVICE;
	for (size_t i = 0; i < src->disks.n_names; i++) {
		ev.u.blockdev.dev = src->disks.name_devs[i];
		ev.u.blockdev.name = src->disks.names[i];
		wperf_analysis_feed(dst, &ev);
	}
	ev.type = WPERF_EV_STATEDUMP_PROCESS;
	for (size_t v = 0; v < src->vt.n && v < src->sched.n_th; v++) {
		const struct wperf_vertex *x = &src->vt.v[v];
		int64_t status = statedump_status((enum thread_state)src->sched.th[v].state);

		if (x->kind != WPERF_V_THREAD || x->tid <= 0 || status < 0)
			continue;
		memset(&ev.u, 0, sizeof ev.u);
		ev.u.statedump.tid = x->tid;
		ev.u.statedump.pid = x->pid;
		ev.u.statedump.ppid = -1;
		ev.u.statedump.name = x->comm;
		ev.u.statedump.status = status;
		wperf_analysis_feed(dst, &ev);
	}
}

/* The data a request moves: a discard's sectors are a range it frees,
 * not data, and would take the disk's idle time from the threads that
 * gave it work (an 8 MiB discard beside a thread's 4 KiB writes). */
static uint64_t block_bytes(const struct wperf_event *ev)
{
	if (ev->u.block.rwbs & WPERF_RWBS_DISCARD)
		return 0;
	return ev->u.block.bytes ? ev->u.block.bytes : ev->u.block.nr_sector * 512;
}

static void on_block(struct wperf_analysis *a, const struct wperf_event *ev)
{
	uint64_t bytes = block_bytes(ev);

	switch (ev->type) {
	case WPERF_EV_BLOCK_INSERT:
		disk_request_insert(&a->disks, ev->u.block.dev, ev->u.block.sector,
				    ev->u.block.nr_sector, bytes,
				    sched_current_thread(&a->sched, ev, ev->u.block.tid));
		break;
	case WPERF_EV_BLOCK_ISSUE:
		disk_request_issue(&a->disks, &a->vt, ev->ts, ev->u.block.dev,
				   ev->u.block.sector, ev->u.block.nr_sector, bytes,
				   sched_current_thread(&a->sched, ev, ev->u.block.tid));
		break;
	default: {
		uint32_t disk = disk_request_complete(&a->disks, &a->vt, ev->ts,
						      ev->u.block.dev, ev->u.block.sector,
						      ev->u.block.nr_sector);

		sched_block_completed(&a->sched, ev, disk);
		break;
	}
	}
}

void wperf_analysis_feed(struct wperf_analysis *a, const struct wperf_event *in)
{
	struct wperf_event moved;
	const struct wperf_event *ev = in;

	if (a->finished || (unsigned)in->type >= WPERF_EV_TYPE_COUNT)
		return;
	/* Streams whose clocks disagree, or a source that does not sort: the
	 * report says so, and a late event is taken as happening now, so that
	 * time only moves forward and segments still tile each lifetime. */
	uint32_t h = in->host < WPERF_HOSTS_MAX ? in->host : 0;

	if (in->ts < a->last_event_ts[h]) {
		a->quality.events_out_of_order++;
		moved = *in;
		moved.ts = a->last_event_ts[h];
		ev = &moved;
	}
	a->last_event_ts[h] = ev->ts;
	a->vt.current_host = ev->host;
	if (ev->context_flags != WPERF_CTX_UNKNOWN)
		a->quality.has_irq_context = true;
	event_time(a, ev->ts);
	cpus_event(&a->cpus, ev->cpu);
	if ((ev->type == WPERF_EV_WAKEUP || ev->type == WPERF_EV_WAKEUP_NEW) &&
	    ev->u.wake.has_target_cpu)
		cpus_wakeup_target(&a->cpus, ev->u.wake.target_cpu, ev->u.wake.tid);
	a->counts[ev->type]++;
	a->quality.events++;
	/* Only a window's report counts them apart (set before any event). */
	if (a->has_window)
		a->window_events += in_window(a, ev->ts);
	switch (ev->type) {
	case WPERF_EV_BLOCK_INSERT:
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
		on_block(a, ev);
		break;
	case WPERF_EV_STATEDUMP_BLOCK_DEVICE:
		disk_set_name(&a->disks, &a->vt, ev->u.blockdev.dev, ev->u.blockdev.name);
		break;
	case WPERF_EV_FALSE_WAKEUP:
		on_false_wakeup(a, ev);
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
	case WPERF_EV_TCP_SEND:
	case WPERF_EV_TCP_RECV:
		on_net(a, ev);
		break;
	case WPERF_EV_PROGRESS:
		on_progress(a, ev);
		break;
	default:
		sched_event(&a->sched, ev);
		break;
	}
}

void wperf_analysis_discarded(struct wperf_analysis *a, int cpu, bool packets,
			      uint64_t count, int64_t begin_ns, int64_t end_ns)
{
	struct wperf_quality *q = &a->quality;

	if (packets)
		q->discarded_packets += count ? count : 1;
	else
		q->discarded_events += count;
	/* The events lost on a CPU came after the last one it recorded. A
	 * reader may learn of the loss only later (source.wperf.tracefs when
	 * the page that says so arrives, while other CPUs went on): the gap
	 * begins at that CPU's last event, whatever begin it was given. */
	if (begin_ns >= 0 && sched_cpu_last_event(&a->sched, cpu) < begin_ns)
		begin_ns = sched_cpu_last_event(&a->sched, cpu);
	if (q->n_gaps == a->cap_gaps) {
		size_t cap = a->cap_gaps ? a->cap_gaps * 2 : 16;
		struct wperf_gap *g = realloc(q->gaps, cap * sizeof *g);

		if (g) {
			q->gaps = g;
			a->cap_gaps = cap;
		}
	}
	if (q->n_gaps < a->cap_gaps)
		q->gaps[q->n_gaps++] = (struct wperf_gap){ cpu, begin_ns, end_ns, count, packets };
	/* Who runs where, and in which interrupt, is no longer known there. */
	sched_lost_events(&a->sched, cpu);
	/* Waits open now, or beginning before the gap ends, may have ended
	 * unseen. Without an end time, the loss is known to be over by now. */
	sched_gap(&a->sched, end_ns > a->end ? end_ns : a->end);
}
