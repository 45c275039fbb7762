/* SPDX-License-Identifier: MIT */
/*
 * wperf/analysis.h — the streaming analysis: normalised events in, a
 * weighted wait-for graph out.
 *
 * Feed events in time order (per CPU at least; globally as babeltrace2's
 * muxer delivers them): an event earlier than the one fed before it is
 * taken as happening at that time, and counted in
 * quality.events_out_of_order. Segments (running / runnable / waiting) are cut as
 * events arrive, waits are weighted by cascaded redistribution the moment
 * their waker is known, and only the history an open wait may still reach
 * is kept. wperf_analysis_finish() closes what is still open and hands the
 * graph over.
 */
#ifndef WPERF_ANALYSIS_H
#define WPERF_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "wperf/event.h"
#include "wperf/graph.h"

struct wperf_analysis;

enum wperf_segment_state {
	WPERF_SEG_RUNNING,
	WPERF_SEG_RUNNABLE,
	WPERF_SEG_WAITING,
};

const char *wperf_segment_state_name(enum wperf_segment_state s);

/* One closed segment of one thread's time. */
struct wperf_segment {
	uint32_t vertex;            /* the thread's vertex id */
	int64_t tid, pid;
	const char *comm;
	enum wperf_segment_state state;
	int64_t start_ns, end_ns;
	/* Waiting segments only (else UINT32_MAX / NULL / 0). */
	uint32_t waker;             /* vertex id of what ended the wait */
	const char *waker_name;
	enum wperf_vertex_kind waker_kind;
	int64_t cascade_ns;         /* weight this wait added beyond its own
	                               duration, along its waker's waits */
};

typedef void (*wperf_segment_cb)(const struct wperf_segment *seg, void *data);

struct wperf_analysis *wperf_analysis_create(void);
void wperf_analysis_destroy(struct wperf_analysis *a);

/* Called for every segment as it closes (in closing-time order). */
void wperf_analysis_on_segment(struct wperf_analysis *a, wperf_segment_cb cb,
			       void *data);

void wperf_analysis_feed(struct wperf_analysis *a, const struct wperf_event *ev);

/* A thread as the analysis knows it now: ids, name, and the vertex of the
 * thread that forked it (UINT32_MAX when the trace did not show its fork).
 * For a filter choosing segments by process lineage (follow-forks). */
struct wperf_thread_info {
	int64_t tid, pid;           /* pid -1 until the trace says */
	const char *comm;           /* NULL when not yet named */
	uint32_t forked_by;
};

/* 0, or -1 when v is not a thread vertex of this analysis. */
int wperf_analysis_thread_info(const struct wperf_analysis *a, uint32_t v,
			       struct wperf_thread_info *out);

/* The trace lost events (count 0: unknown) or packets on a CPU (-1: unknown)
 * between begin and end (-1: unknown). */
void wperf_analysis_discarded(struct wperf_analysis *a, int cpu, bool packets,
			      uint64_t count, int64_t begin_ns, int64_t end_ns);

/* The link speed of a network interface ("eth0", "lo"), in bits per
 * second: without it the interface's idle time is unknown and it gets no
 * edges back to the threads that send through it. 0, or -1 when out of
 * memory. */
int wperf_analysis_set_nic_capacity(struct wperf_analysis *a, const char *dev,
				    uint64_t bits_per_second);

/* The trace can contain wperf:false_wakeup annotations: hold each thread's
 * segments from a wakeup until its next wait, so they can be merged
 * (wperf-method(7) §6). Call before the first event; other traces' segments then
 * flow through undelayed. */
void wperf_analysis_expect_false_wakeups(struct wperf_analysis *a);

/* Keep each thread's timeline for the HTML report's picture
 * (wperf_graph.timelines, at most 7 KiB per thread): on unless turned off
 * here, before the first event. */
void wperf_analysis_keep_timelines(struct wperf_analysis *a, bool keep);

/*
 * The analysed range runs from the first to the last event fed. Upstream
 * may have chosen a wider one: babeltrace2's --begin/--end (a trimmer)
 * cuts the trace at times it gives the streams' beginnings and ends. Say
 * so here (end: false for a beginning, true for an end): the range then
 * runs from the earliest beginning to the latest end said, or the events
 * outside them. Packet bounds are no such choice: a packet can begin long
 * before its first event (a tracing session's idle buffers).
 */
void wperf_analysis_bound(struct wperf_analysis *a, bool end, int64_t ts);

/*
 * Count only the time window [begin, end] (ns from the clock's origin;
 * INT64_MIN / INT64_MAX for an open end) while still reading every event.
 * What the trace says before the window (thread names, processes, forks,
 * disk names from the statedump, each thread's state) is known inside it,
 * unlike in a trace cut at the window's edges: segments are cut as usual
 * and clipped to the window when they close (a wait that crosses an edge
 * counts for its part inside, its waker known); segments outside count
 * for nothing. Disk busy time and the bytes that share a disk's idle time
 * are clipped the same way, packets and progress points count inside the
 * window only, and the analysed range is the window within the trace's.
 * Quality counters (lost events, wakeups without a wait, ...) are of the
 * whole trace read. Call before the first event: 0, or -1 (begin > end,
 * or events were fed already).
 */
int wperf_analysis_set_window(struct wperf_analysis *a, int64_t begin, int64_t end);

/*
 * Start `dst`, a new analysis, where `src` stands at time t: every thread
 * src follows gets, at t, what an LTTng statedump would say of it (its
 * ids, name and state: running, runnable or waiting), every disk its
 * name, and the analysed range begins at t. dst then analyses what is fed
 * to it from t on as a trace recorded from t with a statedump: a window
 * of a live run (sink.wperf.knots every=). src is only read. Call before
 * dst's first event.
 */
void wperf_analysis_seed(struct wperf_analysis *dst, const struct wperf_analysis *src,
			 int64_t t);

/*
 * Close every open segment at the end of the analysed range and move the
 * result into *out (released with wperf_graph_fini). Returns 0, or -1 when
 * the trace cannot be analysed: then wperf_analysis_error() says why and
 * how to record what is missing, in one line.
 */
int wperf_analysis_finish(struct wperf_analysis *a, struct wperf_graph *out);
const char *wperf_analysis_error(const struct wperf_analysis *a);

#endif /* WPERF_ANALYSIS_H */
