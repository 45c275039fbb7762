/* SPDX-License-Identifier: MIT */
/*
 * graph-builder.h — build a struct wperf_graph by hand in tests, without
 * the streaming analysis. Allocation failure aborts the test program.
 * Graphs made here are released with gb_free (not wperf_graph_fini, which
 * belongs to the analysis and may expect its own allocation scheme).
 */
#ifndef WPERF_TEST_GRAPH_BUILDER_H
#define WPERF_TEST_GRAPH_BUILDER_H

#include "wperf/graph.h"

void gb_init(struct wperf_graph *g, int64_t begin_ns, int64_t end_ns);

/* A thread vertex "comm" with tid (pid = tid). Returns its id. */
uint32_t gb_thread(struct wperf_graph *g, const char *comm, int64_t tid);

/* A vertex of any kind, named. Returns its id. */
uint32_t gb_vertex(struct wperf_graph *g, enum wperf_vertex_kind kind, const char *name);

/* Append edge from -> to (count 1, one wait of `weight` in the histogram).
 * The pointer is valid until the next gb_edge. Call gb_sort when done. */
struct wperf_edge *gb_edge(struct wperf_graph *g, uint32_t from, uint32_t to,
			   int64_t weight_ns);

/*
 * The usual shape of a test graph, from two tables: threads names[0..n)
 * with tids first_tid, first_tid + 1, ... (their ids in ids[0..n)), then
 * the waits between them, w.from -> w.to as indexes into ids, appended in
 * table order and sorted (gb_sort).
 */
struct gb_wait {
	unsigned from, to;
	int64_t weight_ns;
};

void gb_threads(struct wperf_graph *g, const char *const names[], size_t n,
		int64_t first_tid, uint32_t ids[]);
void gb_waits(struct wperf_graph *g, const uint32_t ids[], const struct gb_wait waits[],
	      size_t n);

/* Sort edges by (from, to), as the graph contract requires. */
void gb_sort(struct wperf_graph *g);

/* Index of the edge from -> to, or SIZE_MAX. */
size_t gb_find(const struct wperf_graph *g, uint32_t from, uint32_t to);

void gb_free(struct wperf_graph *g);

#endif
