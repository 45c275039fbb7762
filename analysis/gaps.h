/* SPDX-License-Identifier: MIT */
/*
 * gaps.h — what the report says about gaps in the trace (discarded events
 * or packets, wperf_quality.gaps) for one knot.
 *
 * The analysis cuts every wait that overlaps a gap (threads.c): the part up
 * to the gap's end goes to the `trace-gap` category, the rest to the waker
 * and counts in its edge's gap_waits. A knot with such edges was measured
 * across a hole in the trace: its weights are lower bounds, and an edge
 * that only the lost events showed may be missing. The writers mark it.
 */
#ifndef WPERF_ANALYSIS_GAPS_H
#define WPERF_ANALYSIS_GAPS_H

#include <stdint.h>
#include <stdlib.h>

#include "wperf/graph.h"
#include "wperf/knots.h"

/* Waits on the knot's edges (those between its members, and those
 * refinement cut) that a gap cut short. */
static inline uint64_t wperf_knot_gap_waits(const struct wperf_graph *g,
					    const struct wperf_knot *k)
{
	uint64_t n = 0;

	for (size_t i = 0; i < k->n_edges; i++)
		n += g->edges[k->edges[i]].gap_waits;
	for (size_t i = 0; i < k->n_removed; i++)
		n += g->edges[k->removed[i].edge].gap_waits;
	return n;
}

/*
 * Time inside gaps while the knot's members lived (the union of gaps on
 * any CPU within the first to the last event of its threads; the whole
 * analysed range when it has none), or -1 when out of memory. A gap the
 * reader reported only after the waits it hid had ended (source.wperf.
 * tracefs learns of an overrun when the next page arrives) cut no wait,
 * so gap_waits alone can be 0 for a knot measured mostly in gaps: this
 * says how much of its time the trace did not see.
 */
static inline int64_t wperf_knot_gap_ns(const struct wperf_graph *g,
					const struct wperf_knot *k)
{
	int64_t begin = INT64_MAX, end = INT64_MIN;

	if (g->quality.n_gaps == 0)
		return 0;
	for (size_t i = 0; i < k->n_members; i++) {
		const struct wperf_vertex *v = &g->vertices[k->members[i]];

		if ((v->kind != WPERF_V_THREAD && v->kind != WPERF_V_VIRTUAL) ||
		    v->last_ts <= v->first_ts)
			continue;
		begin = v->first_ts < begin ? v->first_ts : begin;
		end = v->last_ts > end ? v->last_ts : end;
	}
	if (begin >= end) {
		begin = g->begin_ns;
		end = g->end_ns;
	}
	return wperf_gap_coverage(&g->quality, begin, end);
}

#endif /* WPERF_ANALYSIS_GAPS_H */
