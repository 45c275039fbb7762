/* SPDX-License-Identifier: MIT */
/*
 * analysis/analysis-state.h — the state of one streaming analysis (struct
 * wperf_analysis, opaque in wperf/analysis.h): what analysis.c builds up
 * from the events, and analysis-finish.c turns into the graph at the end
 * of the input. Internal to analysis/.
 */
#ifndef WPERF_ANALYSIS_STATE_H
#define WPERF_ANALYSIS_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "wperf/analysis.h"
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

#endif /* WPERF_ANALYSIS_STATE_H */
