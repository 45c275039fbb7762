/* SPDX-License-Identifier: MIT */
/*
 * analysis/analysis.c — the streaming analysis facade (see wperf/analysis.h).
 *
 * Data flows one way: normalised events -> thread state (threads.c, with
 * wakers.c naming who ended each wait) -> closed segments -> per-thread
 * breakdown, direct edge weights and the cascade (cascade.c) -> at the
 * end, disk idle edges (disk.c) -> graph. The finished graph's own
 * functions are graph.c's, so the stages below call them without
 * depending on this file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wperf/analysis.h"
#include "wperf/kernel-events.h"
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

struct wperf_analysis {
	struct vertex_table vt;
	struct edge_map edges;
	struct cascade cascade;
	struct runhist runhist;       /* runnable intervals: waits on runnable threads */
	struct disk_tracker disks;
	struct nic_tracker nics;
	struct sched sched;
	struct falsewake falsewake;
	struct stack_table stacks;
	struct timeline_store timelines; /* for the HTML report's timeline */
	bool no_timelines;               /* wperf_analysis_keep_timelines(false) */
	struct wperf_quality quality;
	struct cpu_census cpus;
	struct wperf_progress_point *progress;
	size_t n_progress, cap_progress;
	size_t cap_gaps;

	wperf_segment_cb cb;
	void *cb_data;

	int64_t begin, end;            /* first and last event so far */
	/* Of the event fed last, per host: each host's events come in order,
	 * but hosts merged on clocks moved by an offset only (the transform's
	 * drift applied after the muxer) may interleave a little out of it. */
	int64_t last_event_ts[WPERF_HOSTS_MAX];
	bool have_time;
	/* The range upstream chose (wperf_analysis_bound), if it said. */
	int64_t chosen_begin, chosen_end;
	bool have_chosen_begin, have_chosen_end;
	/* The window counted (wperf_analysis_set_window); open ends are
	 * INT64_MIN / INT64_MAX. */
	int64_t win_begin, win_end;
	bool has_window;
	uint64_t window_events;        /* events fed inside the window */
	uint64_t counts[WPERF_EV_TYPE_COUNT];
	uint64_t waits_since_prune;
	bool finished;
	char error[1024];
};

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

static bool in_window(const struct wperf_analysis *a, int64_t ts)
{
	return ts >= a->win_begin && ts <= a->win_end;
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

static void on_closed_segment(void *data, const struct closed_segment *whole)
{
	struct wperf_analysis *a = data;
	struct closed_segment clipped;
	const struct closed_segment *seg = whole;

	/* With a window, only the segment's part inside it counts: for the
	 * breakdown, the edges, the cascade (whose history then holds only
	 * windowed waits, so a walk never reaches outside the window) and a
	 * filter's segment events alike. */
	if (a->has_window) {
		if (!clip_segment(a, whole, &clipped))
			return;
		seg = &clipped;
	}
	struct wperf_vertex *v = vt_get(&a->vt, seg->vertex);
	int64_t d = seg->end - seg->start;
	const struct wperf_vertex *w = NULL;
	int64_t cascade_ns = 0;
	bool requested;

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
		break;
	case WPERF_SEG_WAITING:
		w = vt_get(&a->vt, seg->waker);
		v->waiting_ns[w->kind] += d;
		v->waits++;
		if (seg->idle && !wperf_vertex_kind_is_device(w->kind)) {
			/* A wait for work (TASK_IDLE): like a disk's idle time,
			 * no dependency; it neither cascades nor is walked
			 * through (not in the history): whoever gave the worker
			 * work did not hold it up. Unless a device's completion
			 * gave it the work: then the worker is the device's
			 * completion path (ext4's end-io work, say), and whoever
			 * waits for it waits for the device. */
			edges_add_idle_wait(&a->edges, seg->vertex, seg->waker, seg->start,
					    seg->end);
			break;
		}
		requested = edges_add_wait(&a->edges, seg->vertex, seg->waker, seg->start,
					   seg->end);
		/* The part of it the waker spent waiting for a CPU (the CPU
		 * finding's, wperf/cpu.h). */
		if (w->kind == WPERF_V_THREAD)
			v->waited_on_runnable_ns += runhist_overlap(&a->runhist, seg->waker,
								    seg->start, seg->end);
		if (seg->stack)
			stacks_add_wait(&a->stacks, seg->vertex, seg->waker, seg->stack - 1, d);
		if (seg->after_gap)
			mark_gap_wait(&a->edges, seg->vertex, seg->waker);
		/* A tracer thread's wait is not work (graph.h): it neither
		 * cascades nor is cascaded through. Else LTTng-UST's listener,
		 * waiting all along for the program to exit, and the session
		 * daemon's threads waiting on it, would each add the whole
		 * run's waiting again to every edge under the main thread.
		 * Nor does a kernel service thread's wait for work: idle
		 * time, not held up by the waits of whoever gave it work. */
		if (!(vt_comm_flags(&a->vt, seg->vertex) &
		      (VT_COMM_TRACER | VT_COMM_WAITS_FOR_WORK)))
			cascade_ns = cascade_wait_ended(&a->cascade, &a->edges, seg->vertex,
							seg->waker, w->kind == WPERF_V_THREAD,
							requested, seg->start, seg->end);
		maybe_prune(a);
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

/* Scheduler segments go through the false-wakeup stage first. */
static void on_sched_segment(void *data, const struct closed_segment *seg)
{
	struct wperf_analysis *a = data;

	/* Without false wakeups to merge (most traces), straight on: a
	 * direct call rather than the stage's pointer. */
	if (!a->falsewake.enabled)
		on_closed_segment(a, seg);
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
	cpus_init(&a->cpus);
	disk_init(&a->disks);
	nic_init(&a->nics);
	sched_init(&a->sched, &a->vt, &a->disks, &a->quality, on_sched_segment, a);
	a->sched.state_begins = on_state_begins;
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
	out->forked_by = v < a->sched.n_th && a->sched.th[v].forked_by ?
			 a->sched.th[v].forked_by - 1 : UINT32_MAX;
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

void wperf_analysis_expect_false_wakeups(struct wperf_analysis *a)
{
	a->falsewake.enabled = true;
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

	dst->falsewake.enabled = src->falsewake.enabled;
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

static void on_block(struct wperf_analysis *a, const struct wperf_event *ev)
{
	uint64_t bytes = ev->u.block.bytes ? ev->u.block.bytes : ev->u.block.nr_sector * 512;

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

/*
 * The analysed range: the first to the last event, widened to what
 * upstream chose (a trimmer's bounds). Called once there were events.
 */
static void settle_range(struct wperf_analysis *a)
{
	if (a->have_chosen_begin && a->chosen_begin < a->begin)
		a->begin = a->chosen_begin;
	if (a->have_chosen_end && a->chosen_end > a->end)
		a->end = a->chosen_end;
}

/* Gaps are where events were lost inside the analysed range: a loss
 * reported from a packet's beginning or end, outside the events, is
 * clipped to it (its count stays). Unknown times (-1) stay unknown. */
static void clip_gaps(struct wperf_quality *q, int64_t begin, int64_t end)
{
	for (size_t i = 0; i < q->n_gaps; i++) {
		struct wperf_gap *g = &q->gaps[i];

		if (g->begin_ns >= 0)
			g->begin_ns = g->begin_ns < begin ? begin :
				      g->begin_ns > end ? end : g->begin_ns;
		if (g->end_ns >= 0)
			g->end_ns = g->end_ns < begin ? begin : g->end_ns > end ? end : g->end_ns;
	}
}

static int fail(struct wperf_analysis *a, const char *msg)
{
	snprintf(a->error, sizeof a->error, "%s", msg);
	return -1;
}

/* "1521484760.000123456": ns from the origin as babeltrace2 writes them. */
static void fmt_seconds(char *buf, size_t len, int64_t ns)
{
	uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	snprintf(buf, len, "%s%llu.%09llu", ns < 0 ? "-" : "",
		 (unsigned long long)(mag / 1000000000u),
		 (unsigned long long)(mag % 1000000000u));
}

/* 2001-09-09 in ns: a clock that reads past it counts from the Unix epoch
 * (no clock counting from boot gets there), as the report assumes too. */
#define EPOCH_LOOKING_NS 1000000000000000000LL

/* "; 2026-11-26 06:49:00.123456789 to ... UTC" for a range on a clock that
 * counts from the Unix epoch (the form babeltrace2 prints and --begin
 * takes), else "". */
static void fmt_utc_range(char *buf, size_t len, int64_t from, int64_t to)
{
	char a[32], b[32];
	time_t fs = (time_t)(from / 1000000000LL), ts = (time_t)(to / 1000000000LL);
	struct tm ftm, ttm;

	buf[0] = '\0';
	if (from < EPOCH_LOOKING_NS || !gmtime_r(&fs, &ftm) || !gmtime_r(&ts, &ttm) ||
	    !strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", &ftm) ||
	    !strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S", &ttm))
		return;
	snprintf(buf, len, "; %s.%09lld to %s.%09lld UTC", a, (long long)(from % 1000000000LL),
		 b, (long long)(to % 1000000000LL));
}

/*
 * With a window: the analysed range becomes its part inside the trace's
 * range (the events, or a trimmer's bounds). -1 when they do not meet.
 */
static int narrow_to_window(struct wperf_analysis *a)
{
	char wb[32] = "the beginning", we[32] = "the end", tb[32], te[32], utc[96], msg[384];

	if (!a->has_window)
		return 0;
	if (a->win_begin <= a->end && a->win_end >= a->begin) {
		if (a->win_begin > a->begin)
			a->begin = a->win_begin;
		if (a->win_end < a->end)
			a->end = a->win_end;
		return 0;
	}
	if (a->win_begin != INT64_MIN)
		fmt_seconds(wb, sizeof wb, a->win_begin);
	if (a->win_end != INT64_MAX)
		fmt_seconds(we, sizeof we, a->win_end);
	fmt_seconds(tb, sizeof tb, a->begin);
	fmt_seconds(te, sizeof te, a->end);
	fmt_utc_range(utc, sizeof utc, a->begin, a->end);
	snprintf(msg, sizeof msg, "the time window (from %s to %s) holds none of the trace, "
		 "which runs from %s to %s (seconds from the clock's origin%s)", wb, we, tb, te,
		 utc);
	return fail(a, msg);
}

/* A thread's observed lifetime, seen through the window: what lies
 * outside it is not analysed. Threads that lived only outside it keep
 * no lifetime (-1), as threads never seen. */
static void clip_lifetimes(struct wperf_analysis *a)
{
	for (size_t i = 0; a->has_window && i < a->vt.n; i++) {
		struct wperf_vertex *v = &a->vt.v[i];

		if (v->kind != WPERF_V_THREAD || v->first_ts < 0)
			continue;
		if (v->first_ts < a->begin)
			v->first_ts = a->begin;
		if (v->last_ts > a->end)
			v->last_ts = a->end;
		if (v->last_ts < v->first_ts)
			v->first_ts = v->last_ts = -1;
	}
}

/* The events the hint names: wperf/kernel-events.h's, in its order. */
struct hinted_event {
	const char *name;
	int flags;
};
#define HINT_TRACEPOINT(id, system, event, name, lttng_name, flags) { lttng_name, flags },
#define HINT_STATEDUMP(name, flags) { name, flags },
static const struct hinted_event hinted_events[] = {
	WPERF_KERNEL_TRACEPOINTS(HINT_TRACEPOINT)
	WPERF_LTTNG_STATEDUMP_EVENTS(HINT_STATEDUMP)
};

/* what, then how to record the events wperf reads. */
static int fail_without_events(struct wperf_analysis *a, const char *what)
{
	char events[512];
	size_t n = 0;

	events[0] = '\0';
	for (size_t i = 0; i < sizeof hinted_events / sizeof hinted_events[0]; i++)
		if (hinted_events[i].flags & WPERF_KEV_IN_HINT && n < sizeof events)
			n += (size_t)snprintf(events + n, sizeof events - n, "%s%s",
					      n ? "," : "", hinted_events[i].name);
	snprintf(a->error, sizeof a->error, "%s; record them with `lttng enable-event "
		 "--kernel %s` (or with `babeltrace2 -c source.wperf.tracefs` where "
		 "LTTng's kernel tracer is unavailable)", what, events);
	return -1;
}

static int check_input(struct wperf_analysis *a)
{
	if (a->quality.events == 0)
		return fail_without_events(a, "the trace has no kernel scheduler, interrupt "
					   "or block events that wperf reads");
	if (a->counts[WPERF_EV_SWITCH] == 0)
		return fail_without_events(a, "no sched_switch events in the trace: wperf "
					   "cannot tell when threads run or wait without them");
	if (a->counts[WPERF_EV_WAKEUP] == 0)
		return fail_without_events(a, "no sched_waking or sched_wakeup events in the "
					   "trace: without wakeups no wait has a waker");
	return 0;
}

int wperf_analysis_finish(struct wperf_analysis *a, struct wperf_graph *out)
{
	memset(out, 0, sizeof *out);
	if (a->finished)
		return fail(a, "the analysis was already finished");
	a->finished = true;
	if (check_input(a))
		return -1;
	settle_range(a);
	/* Segments still open close at the trace's end (then clipped to
	 * the window, if any); the range is the window's part of it. */
	int64_t trace_end = a->end;

	if (narrow_to_window(a) < 0)
		return -1;
	clip_gaps(&a->quality, a->begin, a->end);
	sched_finish(&a->sched, trace_end);
	falsewake_flush_all(&a->falsewake);
	clip_lifetimes(a);
	sched_account_unknown(&a->sched);
	disk_finish(&a->disks, &a->vt, &a->edges, a->begin, a->end);
	nic_finish(&a->nics, &a->vt, &a->edges, a->begin, a->end);
	a->quality.unmatched_block_completions = a->disks.unmatched_completions;
	a->quality.false_wakeups_merged = a->falsewake.merged;
	a->quality.false_wakeups_unmerged = a->falsewake.unmerged;
	a->quality.cascades_truncated = a->cascade.stats.truncated_waits;
	a->quality.has_timer_events = a->counts[WPERF_EV_TIMER_ENTRY] > 0;
	a->quality.gap_ns = wperf_gap_coverage(&a->quality, a->begin, a->end);
	/* The events analysed are those of the range the report is about. */
	if (a->has_window)
		a->quality.events = a->window_events;
	if (cpus_finish(&a->cpus, &a->vt, &a->quality) < 0)
		a->vt.oom = true;
	if (a->vt.oom || a->edges.oom || a->cascade.oom || a->runhist.oom || a->disks.oom ||
	    a->sched.oom || a->falsewake.oom || a->sched.locks.oom || a->nics.oom ||
	    a->quality.gap_ns < 0 || a->stacks.oom)
		return fail(a, "out of memory while analysing the trace");

	out->begin_ns = a->begin;
	out->end_ns = a->end;
	out->vertices = a->vt.v;
	out->n_vertices = a->vt.n;
	a->vt.v = NULL;
	a->vt.n = a->vt.cap = 0;
	edges_take_sorted(&a->edges, &out->edges, &out->n_edges);
	if (stacks_attach(&a->stacks, out) < 0) {
		wperf_graph_fini(out);
		return fail(a, "out of memory while analysing the trace");
	}
	out->progress = a->progress;
	out->n_progress = a->n_progress;
	a->progress = NULL;
	a->n_progress = a->cap_progress = 0;
	/* The timelines are for a picture: without memory for them, the
	 * report has none (and says so) rather than failing. */
	if (!a->timelines.oom && !a->no_timelines)
		out->timelines = timeline_store_take(&a->timelines, out->n_vertices);
	out->quality = a->quality;
	a->quality.gaps = NULL;
	a->quality.n_gaps = 0;
	a->quality.missing_cpus = NULL;
	a->quality.n_missing_cpus = 0;
	return 0;
}

const char *wperf_analysis_error(const struct wperf_analysis *a)
{
	return a->error[0] ? a->error : "no error";
}
