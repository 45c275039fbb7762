/* SPDX-License-Identifier: MIT */
/* graph-builder.c — see graph-builder.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph-builder.h"

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fprintf(stderr, "graph-builder: out of memory\n");
		abort();
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

void gb_init(struct wperf_graph *g, int64_t begin_ns, int64_t end_ns)
{
	memset(g, 0, sizeof *g);
	g->begin_ns = begin_ns;
	g->end_ns = end_ns;
	g->quality.cpus = 4;   /* enough for the threads the tests build */
}

/* Grow by doubling: the 100,000-vertex tests call this in a loop. */
static void reserve(void **arr, size_t n, size_t elem)
{
	if (n == 0 || (n & (n - 1)) == 0)
		*arr = xrealloc(*arr, (n ? 2 * n : 1) * elem);
}

uint32_t gb_vertex(struct wperf_graph *g, enum wperf_vertex_kind kind, const char *name)
{
	reserve((void **)&g->vertices, g->n_vertices, sizeof *g->vertices);
	struct wperf_vertex *v = &g->vertices[g->n_vertices];
	memset(v, 0, sizeof *v);
	v->id = (uint32_t)g->n_vertices;
	v->kind = kind;
	v->name = name ? xstrdup(name) : NULL;
	v->tid = v->pid = -1;
	g->n_vertices++;
	return v->id;
}

uint32_t gb_thread(struct wperf_graph *g, const char *comm, int64_t tid)
{
	uint32_t id = gb_vertex(g, WPERF_V_THREAD, comm);
	struct wperf_vertex *v = &g->vertices[id];
	v->tid = v->pid = tid;
	v->comm = comm ? xstrdup(comm) : NULL;
	return id;
}

void gb_threads(struct wperf_graph *g, const char *const names[], size_t n,
		int64_t first_tid, uint32_t ids[])
{
	for (size_t i = 0; i < n; i++)
		ids[i] = gb_thread(g, names[i], first_tid + (int64_t)i);
}

void gb_waits(struct wperf_graph *g, const uint32_t ids[], const struct gb_wait waits[],
	      size_t n)
{
	for (size_t i = 0; i < n; i++)
		gb_edge(g, ids[waits[i].from], ids[waits[i].to], waits[i].weight_ns);
	gb_sort(g);
}

static int bucket_of(int64_t ns)
{
	int b = 0;
	while (b + 1 < WPERF_HIST_BUCKETS && ns >> (b + 1))
		b++;
	return b;
}

struct wperf_edge *gb_edge(struct wperf_graph *g, uint32_t from, uint32_t to,
			   int64_t weight_ns)
{
	reserve((void **)&g->edges, g->n_edges, sizeof *g->edges);
	struct wperf_edge *e = &g->edges[g->n_edges++];
	memset(e, 0, sizeof *e);
	e->from = from;
	e->to = to;
	e->weight_ns = e->direct_ns = weight_ns;
	e->count = 1;
	if (weight_ns > 0)
		e->hist[bucket_of(weight_ns)] = 1;
	return e;
}

static int cmp_edges(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

void gb_sort(struct wperf_graph *g)
{
	if (g->n_edges)
		qsort(g->edges, g->n_edges, sizeof *g->edges, cmp_edges);
}

size_t gb_find(const struct wperf_graph *g, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < g->n_edges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to)
			return i;
	return SIZE_MAX;
}

void gb_free(struct wperf_graph *g)
{
	wperf_graph_fini(g);
}
