/*
 * wperf/knots.h — knots and sinks of a wait-for graph (METHOD.md §7).
 *
 * Strongly connected components (iterative Tarjan), the condensation, the
 * terminal components, and refinement of knots that are not simple: remove
 * the lowest-weight edge until the knot is no longer strongly connected,
 * then look for knots inside it again; stop at a single vertex, a simple
 * cycle, or when the lowest edge weight reaches the termination threshold.
 *
 * Edges to category vertices (timer, unknown) are ignored here: a timeout
 * is not a dependency on anything that could be sped up. So are edges
 * lighter than the noise floor (min_weight_ns): whatever optimising them
 * could gain is negligible, yet on a busy system a few stray wakeups would
 * otherwise tie every thread into one component that never terminates.
 *
 * Background knots (METHOD.md §7): a knot with no device (disk, NIC) whose
 * threads' CPU demand (running + runnable) sums to less than the time they
 * existed (less than one CPU's worth) behaves like heartbeats or timers:
 * throughput does
 * not hinge on it. It is reported as WPERF_BACKGROUND, its vertices and
 * their edges are removed, and the rest of the graph is analysed again
 * (what only waited on it may now be a knot or a sink), until no knot is
 * background.
 */
#ifndef WPERF_KNOTS_H
#define WPERF_KNOTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

enum wperf_knot_kind {
	WPERF_KNOT,        /* a terminal component with >= 2 vertices or a self-loop */
	WPERF_SINK,        /* a terminal single vertex that others wait for */
	WPERF_BACKGROUND,  /* a knot without device using less than one CPU (METHOD.md §7) */
};

const char *wperf_knot_kind_name(enum wperf_knot_kind kind);

struct wperf_removed_edge {
	size_t edge;           /* index in wperf_graph.edges */
	int64_t weight_ns;
};

struct wperf_knot {
	enum wperf_knot_kind kind;
	uint32_t *members;         /* vertex ids, ascending */
	size_t n_members;
	size_t *edges;             /* indexes of edges between members, by weight, heaviest first */
	size_t n_edges;
	int64_t weight_ns;         /* knot: sum of internal edge weights; sink: sum of incoming */
	/* Refinement: the terminal component it came from and what was cut. */
	uint32_t *component;       /* vertex ids of the unrefined component, ascending */
	size_t n_component;
	struct wperf_removed_edge *removed; /* in removal order */
	size_t n_removed;
	const char *stop_reason;   /* "simple cycle", "single vertex", "threshold", "sink" */
	/* Knots and background knots: summed CPU demand (running + runnable)
	 * of the members that are threads or virtual threads (0 for sinks).
	 * Background means this is below the analysed duration. */
	int64_t cpu_ns;
	/* Knots and background knots: the time their threads existed, from
	 * the first one's first event to the last one's last (the analysed
	 * duration when unknown): the denominator of CPU utilisation. */
	int64_t span_ns;
};

struct wperf_knot_options {
	int64_t threshold_ns;      /* stop refining when the lowest edge weighs this much */
	int64_t min_weight_ns;     /* lighter edges are noise, not dependencies */
	const bool *focus;         /* NULL: the whole graph. Else per vertex id: the
	                              graph is restricted to the focus vertices and
	                              what they wait for, transitively (not through
	                              device idle edges), and only its knots and
	                              sinks are reported */
	const bool *opaque;        /* NULL, or per vertex id: vertices that take
	                              no part in knots and sinks, their waits and
	                              the waits on them no dependency (the
	                              tracer's own threads: what they wait for, or
	                              the program for them, is the recording, not
	                              its work) */
};

struct wperf_knots {
	struct wperf_knot *items;  /* knots by weight (heaviest first), then sinks by
	                              weight, then background knots by weight */
	size_t n;
};

/* Does this edge take part in knot finding: not empty, not to a category
 * vertex, not below the noise floor, not the wait for work of a kernel
 * service thread (wperf_comm_waits_only_for_work)? (The one rule, for the
 * writers too.) */
bool wperf_edge_is_dependency(const struct wperf_graph *g, const struct wperf_edge *e,
			      int64_t min_weight_ns);

/* 0 on success, -1 on allocation failure. */
int wperf_knots_find(const struct wperf_graph *g,
		     const struct wperf_knot_options *opts,
		     struct wperf_knots *out);
void wperf_knots_fini(struct wperf_knots *k);

#endif /* WPERF_KNOTS_H */
