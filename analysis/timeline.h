/* SPDX-License-Identifier: MIT */
/*
 * timeline.h — the per-thread timelines kept during the analysis for the
 * HTML report (timeline.c; the types are wperf/graph.h's).
 */
#ifndef WPERF_TIMELINE_H
#define WPERF_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

struct timeline_store {
	struct wperf_timeline *t;     /* by vertex id */
	size_t n;
	bool oom;
};

/* Add a closed segment of vertex v (target: what it waited for). */
void timeline_store_add(struct timeline_store *s, uint32_t v, enum wperf_span_state state,
			int64_t start, int64_t end, uint32_t target);

/* The timelines, one per vertex id below n_vertices (at least), for
 * wperf_graph.timelines; the store is left empty. NULL when out of memory
 * (the store keeps them, for timeline_store_fini). */
struct wperf_timeline *timeline_store_take(struct timeline_store *s, size_t n_vertices);

void timeline_store_fini(struct timeline_store *s);

/* Free an array of n timelines (a graph's). */
void wperf_timelines_free(struct wperf_timeline *t, size_t n);

#endif /* WPERF_TIMELINE_H */
