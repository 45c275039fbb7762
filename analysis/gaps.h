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

#endif /* WPERF_ANALYSIS_GAPS_H */
