/* SPDX-License-Identifier: MIT */
/*
 * wperf/knots.h — knots and sinks of a wait-for graph (wperf-method(7) §7).
 *
 * Strongly connected components (iterative Tarjan), the condensation, the
 * knots among them, and refinement of knots that are not simple: remove
 * the lowest-weight edges until the knot is no longer strongly connected,
 * then look for knots inside it again; stop at a single vertex, a simple
 * cycle, or when the lowest edge weight reaches the termination threshold.
 *
 * Which components are knots (doc/wperf-analysis.7.md, "Knots"): under the
 * strict rule of the paper, those no edge leaves (terminal); under the
 * dominant rule, those whose leaving weight is at most `leave_ppm` of
 * their internal weight (the strict rule is the dominant one with 0). A
 * strongly connected group at least as heavy as the threshold that fails
 * the rule is kept apart (struct wperf_group), so the report can say why
 * it is not a knot. Refinement narrows a knot as the paper does: of the
 * parts a cut leaves, the terminal ones go on.
 *
 * Ties: edges whose weights are within `tie_ppm` of the lightest of them
 * are cut together, all or none, so that alike threads (a pool's workers
 * waiting on one disk) stay or go together.
 *
 * Edges to category vertices (timer, unknown) are ignored here: a timeout
 * is not a dependency on anything that could be sped up. So are edges
 * lighter than the noise floor (min_weight_ns): whatever optimising them
 * could gain is negligible, yet on a busy system a few stray wakeups would
 * otherwise tie every thread into one component that never terminates.
 *
 * Background knots (wperf-method(7) §7): a knot with no device (disk, NIC) whose
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
	WPERF_KNOT,        /* a component with >= 2 vertices or a self-loop that
	                      passes the knot rule (terminal, or nearly: above) */
	WPERF_SINK,        /* a terminal single vertex that others wait for */
	WPERF_BACKGROUND,  /* a knot without device using less than one CPU (wperf-method(7) §7) */
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
	/* The same edges' waits, split (doc/wperf-report.7.md, "Weights"):
	 * own_ns sums their direct_ns, the waiters' own waiting; the rest of
	 * weight_ns (weight_ns - own_ns) reached them by cascaded
	 * redistribution. waiters_ns sums wperf_vertex_time() of the vertices
	 * whose waits these are (a knot's members; a sink's waiters), so
	 * own_ns <= waiters_ns. */
	int64_t own_ns;
	int64_t waiters_ns;
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
	/* Dependency edges from its members to other vertices, still in
	 * force when it was found (the dominant rule lets a knot have
	 * some), heaviest first, and their summed weight. */
	size_t *leaving;
	size_t n_leaving;
	int64_t leaving_ns;
	/* Sinks: paced by timers or by causes the trace does not show
	 * (wperf_sink_limit() is not "work"); such sinks rank after the
	 * knots and the other sinks. */
	bool paced;
	/* With a focus: what the focus waits on it, the weight of the
	 * dependency edges from focus vertices to its members (a knot's
	 * edges from its own focus members included); it ranks findings
	 * before their weight does. 0 without a focus. */
	int64_t focus_ns;
};

/* A strongly connected group of at least two vertices (or one with a
 * self-loop), at least as heavy as the threshold, that is not a knot
 * because too much of its weight leaves it. */
struct wperf_group {
	uint32_t *members;         /* vertex ids, ascending */
	size_t n_members;
	int64_t weight_ns;         /* sum of its internal edge weights */
	int64_t own_ns;            /* their direct_ns summed (wperf_knot) */
	int64_t waiters_ns;        /* its members' wperf_vertex_time() summed */
	size_t *leaving;           /* edges to other vertices, heaviest first */
	size_t n_leaving;
	int64_t leaving_ns;        /* their summed weight */
};

/* The dominant rule's default ratio and the default tie tolerance, in
 * parts per million (doc/wperf-analysis.7.md says why these values). */
#define WPERF_KNOT_LEAVE_DEFAULT_PPM 200000    /* 20% */
#define WPERF_KNOT_TIE_DEFAULT_PPM 10000       /* 1% */
#define WPERF_PPM_MAX 1000000                  /* both are at most 100% */

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
	int64_t leave_ppm;         /* a component is a knot when the weight of the
	                              edges leaving it is at most this many parts
	                              per million of its internal weight: 0 is the
	                              paper's strict rule (no edge leaves), the
	                              default of a zeroed struct and of NULL
	                              options; at most WPERF_PPM_MAX */
	int64_t tie_ppm;           /* refinement cuts edges within this many ppm
	                              of the lightest together (0: exactly equal
	                              weights only); at most WPERF_PPM_MAX */
};

struct wperf_knots {
	struct wperf_knot *items;  /* the findings: knots and sinks together by
	                              weight (heaviest first; a knot before a sink
	                              of equal weight), then sinks paced by timers
	                              or unseen causes by weight, then background
	                              knots by weight */
	size_t n;
	struct wperf_group *groups; /* heavy groups that are not knots, heaviest
	                               first (from the final background round) */
	size_t n_groups;
};

/* a <= b * ppm / 10^6 (rounded down), exactly, for 0 <= ppm <= WPERF_PPM_MAX
 * and non-negative a and b: the one comparison of both rules. */
bool wperf_within_ppm(int64_t a, int64_t b, int64_t ppm);

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
