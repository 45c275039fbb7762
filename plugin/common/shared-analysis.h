/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/shared-analysis.h — one analysis for filter.wperf.waits and the
 * sink.wperf.knots right behind it.
 *
 * In `-c filter.wperf.waits -c sink.wperf.knots` both components would
 * decode and analyse the same kernel events: the filter to cut its
 * segments, the sink to build its graph. That doubles wperf's cost for
 * nothing. Instead, each filter iterator keeps its decoder and analysis
 * in a refcounted `struct wperf_shared_analysis`, registered under the
 * filter component; a knots sink whose input port is connected straight
 * to that filter's output claims it, stops decoding, and takes the graph
 * the filter's wperf_analysis_finish() produced.
 *
 * Why it is the same analysis: the filter forwards every upstream message
 * unchanged and in order, and its own `wperf` trace is skipped by every
 * decoder, so the kernel messages a directly connected sink would decode
 * are exactly those the filter decoded (with segments-only it forwards
 * none, and the filter's analysis is the only one there is). The window
 * counted (`begin`, `end`) must be the sink's too. Anything else between them (a
 * trimmer, another filter) and the sink is not directly connected: it
 * finds nothing to claim and analyses on its own, as before.
 *
 * Lifetime: the filter iterator and the sink each hold a reference; the
 * sink may put its iterator (and so destroy the filter's) before it takes
 * the graph, and either may be finalized first. A babeltrace2 graph runs
 * in one thread, but several graphs may run in several threads of one
 * process (Python bt2), so the registry and the reference counts are
 * guarded by one mutex.
 */
#ifndef WPERF_PLUGIN_SHARED_ANALYSIS_H
#define WPERF_PLUGIN_SHARED_ANALYSIS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "decode.h"
#include "window.h"
#include "wperf/analysis.h"
#include "wperf/graph.h"

struct wperf_shared_analysis {
	struct wperf_decoder *decoder;
	struct wperf_analysis *analysis;
	bool claimed;               /* a sink takes the graph: keep it */
	bool finished;              /* the filter finished the analysis: graph valid */
	struct wperf_graph graph;   /* the result, until the sink takes it */
	uint64_t messages_out;      /* messages the filter handed downstream */
	struct wperf_window window; /* the filter's `begin`/`end`: the analysis
	                               counts only that window */
	/* private */
	unsigned refs;
	const bt_component *filter; /* registry key; NULL once unregistered */
	struct wperf_shared_analysis *next;
};

/* A new decoder and analysis for an iterator of filter component `filter`,
 * registered under it, with one reference (the caller's). NULL when out
 * of memory. */
struct wperf_shared_analysis *wperf_shared_analysis_create(const bt_component *filter);

/* The filter iterator is going: no sink may claim it any more. */
void wperf_shared_analysis_unregister(struct wperf_shared_analysis *s);

/* Drop one reference; the last one frees everything (NULL: nothing). */
void wperf_shared_analysis_put(struct wperf_shared_analysis *s);

/*
 * The analysis of `upstream`, the component directly connected to a knots
 * sink's input port, with a new reference, marked claimed; NULL when
 * upstream is not a filter.wperf.waits, has no iterator or more than one
 * (which one feeds us would be a guess), was already claimed, or counts
 * another time window than `window`, the sink's.
 */
struct wperf_shared_analysis *wperf_shared_analysis_claim(const bt_component *upstream,
							  const struct wperf_window *window);

#endif /* WPERF_PLUGIN_SHARED_ANALYSIS_H */
