/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-graph.h — the knot search's view of the wait-for graph
 * and what it computes on it (knots-graph.c): the active out-edges of
 * every vertex in compressed-sparse-row form, strongly connected
 * components of a vertex set, the weights inside and leaving a component,
 * and the edges inside a vertex set ranked for refinement.
 *
 * Shared by the search (knots.c), refinement (knots-refine.c) and the
 * background rounds (knots-background.c); not part of the library's API.
 */
#ifndef WPERF_ANALYSIS_KNOTS_GRAPH_H
#define WPERF_ANALYSIS_KNOTS_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/knots.h"

#define UNVISITED UINT32_MAX

/* a + b without signed overflow: weights are sums of many waits and a
 * hostile or corrupt trace must not make them wrap. */
static inline int64_t add_saturating(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
}

struct frame {                  /* one level of Tarjan's explicit call stack */
	uint32_t v;
	size_t next;            /* next position in out_edge[] to look at */
};

struct kgraph {
	const struct wperf_graph *g;
	uint32_t nv;
	size_t *out_start;      /* nv + 1 offsets into out_edge */
	size_t *out_edge;       /* edge indexes grouped by their `from` vertex */
	bool *active;           /* per edge: still a dependency */
	int64_t *cut_weight;    /* per edge: its weight as refinement weighs it
				 * (kgraph_init says how) */
	/* Scratch of one SCC pass, per vertex. */
	uint32_t *index, *low, *comp;
	bool *on_stack, *in_set;
	uint32_t *stack;
	struct frame *calls;
};

static inline const struct wperf_edge *kedge(const struct kgraph *kg, size_t i)
{
	return &kg->g->edges[i];
}

struct scc {
	size_t n_comp;
	uint32_t *order;        /* the set's vertices grouped by component */
	size_t *start;          /* n_comp + 1 offsets into order */
	bool *terminal;         /* per component: no active edge leaves it */
};

struct ranked_edge {
	int64_t weight;
	uint32_t from, to;
	size_t idx;
};

void kgraph_fini(struct kgraph *kg);

/* Build the CSR by counting sort on `from`: it does not rely on the
 * graph's edges being sorted, only on their ids being in range. */
int kgraph_init(struct kgraph *kg, const struct wperf_graph *g,
		int64_t min_weight_ns);

void scc_fini(struct scc *s);

void kgraph_mark_set(struct kgraph *kg, const uint32_t *verts, size_t n, bool on);

/* Components of the subgraph induced by verts[] over active edges. */
int scc_compute(struct kgraph *kg, const uint32_t *verts, size_t n,
		struct scc *s);

/*
 * Per component of c (computed over verts[]): the summed weight of the
 * active edges inside it, and of those from it to other vertices of the
 * set. Both arrays malloc'd, n_comp long. -1 on allocation failure.
 */
int kgraph_component_weights(struct kgraph *kg, const struct scc *c,
			     const uint32_t *verts, size_t n,
			     int64_t **inside, int64_t **leaving);

/*
 * The knot rule (knots.h, doc/wperf-analysis.7.md): nothing leaves the
 * group (the paper's terminal component), or what leaves it weighs at
 * most leave_ppm of what stays inside (the dominant rule; strict is 0).
 */
bool knot_rule(int64_t leave_ppm, int64_t inside, int64_t leaving);

/* Heaviest first; ties by (from, to) so the output is deterministic. */
int cmp_heaviest_first(const void *a, const void *b);

/* Active edges from verts[] with their other end in verts[] too (inside)
 * or not (leaving): their indexes into *out (malloc'd, caller frees) and
 * their count into *n_out. */
int kgraph_edges_from(struct kgraph *kg, const uint32_t *verts, size_t n, bool inside,
		      size_t **out, size_t *n_out);

int kgraph_internal_edges(struct kgraph *kg, const uint32_t *verts, size_t n,
			  size_t **out, size_t *n_out);

/* The order refinement cuts edges in: lightest first, ties by lowest
 * (from, to). */
int cmp_lightest_first(const void *a, const void *b);

/* Sort edge indexes by `order` over their cut weights (cut_weight): the
 * order refinement cuts them in. -1 out of memory. */
int kgraph_rank_for_cutting(const struct kgraph *kg, size_t *edges, size_t n,
			    int (*order)(const void *, const void *));

/* Sort edge indexes by `order` and return the sum of their weights. */
int64_t kgraph_rank_edges(const struct kgraph *kg, size_t *edges, size_t n,
			  int (*order)(const void *, const void *), int *err);

/* Grow *arr (of elem-size items) so that one more fits. */
int knots_grow(void **arr, size_t *cap, size_t n, size_t elem);

#endif
