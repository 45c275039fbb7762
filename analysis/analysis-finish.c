/* SPDX-License-Identifier: MIT */
/*
 * analysis/analysis-finish.c — the end of a streaming analysis
 * (wperf_analysis_finish, wperf/analysis.h): the input checked (with the
 * hint naming the kernel events to record, from wperf/kernel-events.h),
 * the analysed range settled and narrowed to the window, what is still
 * open closed, the disks' and NICs' idle edges added, and the graph
 * handed over. The events came in through analysis.c; the state both
 * share is analysis-state.h's.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "wperf/analysis.h"
#include "wperf/kernel-events.h"
#include "analysis-state.h"

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
