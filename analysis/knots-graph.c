/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-graph.c — the knot search's view of the graph
 * (knots-graph.h): building it, strongly connected components of a vertex
 * set by an iterative Tarjan (nothing recurses: it keeps its own call
 * stack; one pass costs O(V + E) of the set it is given), the weights
 * inside and leaving a component with the knot rule (and its exact ppm
 * comparison, wperf_within_ppm), and the edges inside a vertex set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/classify.h"
#include "knots-graph.h"

/* ------------------------------------------------------------------ */
/* The search's view of the graph                                      */
/* ------------------------------------------------------------------ */

/* A kernel service thread (graph.h), or threads merged under its name
 * (merge="name" makes "ksoftirqd/" followed by a star): its waits are
 * for work, no dependency. */
static bool waits_only_for_work(const struct wperf_vertex *v)
{
	if (v->kind == WPERF_V_THREAD)
		return wperf_comm_waits_only_for_work(v->comm);
	return v->kind == WPERF_V_VIRTUAL && wperf_comm_waits_only_for_work(v->name);
}

bool wperf_edge_is_dependency(const struct wperf_graph *g, const struct wperf_edge *e,
			      int64_t min_weight_ns)
{
	if (e->from >= g->n_vertices || e->to >= g->n_vertices)
		return false;       /* corrupt input: never index with it */
	if (e->weight_ns <= 0 || e->weight_ns < min_weight_ns)
		return false;
	return !wperf_vertex_kind_is_category(g->vertices[e->to].kind) &&
	       !waits_only_for_work(&g->vertices[e->from]);
}

void kgraph_fini(struct kgraph *kg)
{
	free(kg->out_start);
	free(kg->out_edge);
	free(kg->active);
	free(kg->cut_weight);
	free(kg->index);
	free(kg->low);
	free(kg->comp);
	free(kg->on_stack);
	free(kg->in_set);
	free(kg->stack);
	free(kg->calls);
	memset(kg, 0, sizeof *kg);
}

static bool wakes_from_device(enum wperf_vertex_kind k)
{
	return k == WPERF_V_DISK || k == WPERF_V_NIC || k == WPERF_V_IRQ || k == WPERF_V_SOFTIRQ;
}

/*
 * Refinement's weight of each edge: its weight, and for a thread's (or a
 * merged vertex's) wait on a disk, NIC or interrupt, the thread's delays
 * for a CPU after such wakeups (woken_cpu_wait_ns), shared among those
 * edges in proportion to their direct time. That delay is the device
 * wait's cost (wperf-analysis(7), "The CPUs"), and the weight alone left
 * it out: on a loaded machine a writer woken by its disk waited 2.5 s
 * for its CPU after 0.2 s of fsyncs, and its edge to the disk, lighter
 * than the threshold, was cut first, the writer reported as a sink.
 */
static int set_cut_weights(struct kgraph *kg)
{
	const struct wperf_graph *g = kg->g;
	int64_t *on_devices = calloc(kg->nv ? kg->nv : 1, sizeof *on_devices);

	kg->cut_weight = malloc((g->n_edges ? g->n_edges : 1) * sizeof *kg->cut_weight);
	if (!on_devices || !kg->cut_weight) {
		free(on_devices);
		return -1;
	}
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (e->from < kg->nv && e->to < kg->nv && e->direct_ns > 0 &&
		    wakes_from_device(g->vertices[e->to].kind))
			on_devices[e->from] = add_saturating(on_devices[e->from], e->direct_ns);
	}
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		bool in_range = e->from < kg->nv && e->to < kg->nv;
		int64_t woken = in_range ? g->vertices[e->from].woken_cpu_wait_ns : 0;

		kg->cut_weight[i] = e->weight_ns;
		if (woken > 0 && on_devices[e->from] > 0 && e->direct_ns > 0 &&
		    wakes_from_device(g->vertices[e->to].kind))
			kg->cut_weight[i] = add_saturating(e->weight_ns, (int64_t)((double)woken *
				(double)e->direct_ns / (double)on_devices[e->from]));
	}
	free(on_devices);
	return 0;
}

/* Build the CSR by counting sort on `from`: it does not rely on the
 * graph's edges being sorted, only on their ids being in range. */
int kgraph_init(struct kgraph *kg, const struct wperf_graph *g,
		int64_t min_weight_ns)
{
	size_t nv = g->n_vertices, ne = g->n_edges;

	memset(kg, 0, sizeof *kg);
	if (nv >= UNVISITED) {
		errno = EOVERFLOW;
		return -1;
	}
	kg->g = g;
	kg->nv = (uint32_t)nv;
	kg->out_start = calloc(nv + 1, sizeof *kg->out_start);
	kg->out_edge = malloc((ne ? ne : 1) * sizeof *kg->out_edge);
	kg->active = calloc(ne ? ne : 1, sizeof *kg->active);
	kg->index = malloc((nv ? nv : 1) * sizeof *kg->index);
	kg->low = malloc((nv ? nv : 1) * sizeof *kg->low);
	kg->comp = malloc((nv ? nv : 1) * sizeof *kg->comp);
	kg->on_stack = calloc(nv ? nv : 1, sizeof *kg->on_stack);
	kg->in_set = calloc(nv ? nv : 1, sizeof *kg->in_set);
	kg->stack = malloc((nv ? nv : 1) * sizeof *kg->stack);
	kg->calls = malloc((nv ? nv : 1) * sizeof *kg->calls);
	if (!kg->out_start || !kg->out_edge || !kg->active || !kg->index ||
	    !kg->low || !kg->comp || !kg->on_stack || !kg->in_set ||
	    !kg->stack || !kg->calls || set_cut_weights(kg)) {
		kgraph_fini(kg);
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < ne; i++) {
		kg->active[i] = wperf_edge_is_dependency(g, &g->edges[i], min_weight_ns);
		if (kg->active[i])
			kg->out_start[g->edges[i].from + 1]++;
	}
	for (size_t v = 0; v < nv; v++)
		kg->out_start[v + 1] += kg->out_start[v];
	/* Second pass: place each edge at its vertex's next free slot. */
	size_t *cursor = malloc((nv ? nv : 1) * sizeof *cursor);
	if (!cursor) {
		kgraph_fini(kg);
		errno = ENOMEM;
		return -1;
	}
	memcpy(cursor, kg->out_start, nv * sizeof *cursor);
	for (size_t i = 0; i < ne; i++)
		if (kg->active[i])
			kg->out_edge[cursor[g->edges[i].from]++] = i;
	free(cursor);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Strongly connected components of a vertex set (iterative Tarjan)    */
/* ------------------------------------------------------------------ */

void scc_fini(struct scc *s)
{
	free(s->order);
	free(s->start);
	free(s->terminal);
	memset(s, 0, sizeof *s);
}

void kgraph_mark_set(struct kgraph *kg, const uint32_t *verts, size_t n, bool on)
{
	for (size_t i = 0; i < n; i++)
		kg->in_set[verts[i]] = on;
}

/* Tarjan's DFS entry into w: number it and push it on both stacks. */
static void tarjan_enter(struct kgraph *kg, uint32_t w, uint32_t *counter,
			 size_t *sp, size_t *cp)
{
	kg->index[w] = kg->low[w] = (*counter)++;
	kg->stack[(*sp)++] = w;
	kg->on_stack[w] = true;
	kg->calls[*cp].v = w;
	kg->calls[*cp].next = kg->out_start[w];
	(*cp)++;
}

/* v is the root of a component: pop it off the Tarjan stack into order[]. */
static void tarjan_pop_component(struct kgraph *kg, struct scc *s, uint32_t v,
				 size_t *sp, size_t *filled)
{
	uint32_t w;

	s->start[s->n_comp] = *filled;
	do {
		w = kg->stack[--(*sp)];
		kg->on_stack[w] = false;
		kg->comp[w] = (uint32_t)s->n_comp;
		s->order[(*filled)++] = w;
	} while (w != v);
	s->n_comp++;
}

static void tarjan_from(struct kgraph *kg, struct scc *s, uint32_t root,
			uint32_t *counter, size_t *filled)
{
	size_t sp = 0, cp = 0;

	tarjan_enter(kg, root, counter, &sp, &cp);
	while (cp > 0) {
		struct frame *f = &kg->calls[cp - 1];
		uint32_t v = f->v;

		if (f->next < kg->out_start[v + 1]) {
			size_t e = kg->out_edge[f->next++];
			uint32_t w = kedge(kg, e)->to;

			if (!kg->active[e] || !kg->in_set[w])
				continue;
			if (kg->index[w] == UNVISITED)
				tarjan_enter(kg, w, counter, &sp, &cp);
			else if (kg->on_stack[w] && kg->index[w] < kg->low[v])
				kg->low[v] = kg->index[w];
			continue;
		}
		if (kg->low[v] == kg->index[v])
			tarjan_pop_component(kg, s, v, &sp, filled);
		cp--;
		if (cp > 0) {
			uint32_t parent = kg->calls[cp - 1].v;
			if (kg->low[v] < kg->low[parent])
				kg->low[parent] = kg->low[v];
		}
	}
}

static void scc_mark_terminal(struct kgraph *kg, struct scc *s,
			      const uint32_t *verts, size_t n)
{
	for (size_t c = 0; c < s->n_comp; c++)
		s->terminal[c] = true;
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			uint32_t w = kedge(kg, e)->to;
			if (kg->active[e] && kg->in_set[w] && kg->comp[w] != kg->comp[v])
				s->terminal[kg->comp[v]] = false;
		}
	}
}

/* Components of the subgraph induced by verts[] over active edges. */
int scc_compute(struct kgraph *kg, const uint32_t *verts, size_t n,
		struct scc *s)
{
	uint32_t counter = 0;
	size_t filled = 0;

	memset(s, 0, sizeof *s);
	s->order = malloc((n ? n : 1) * sizeof *s->order);
	s->start = malloc((n + 1) * sizeof *s->start);
	s->terminal = malloc((n ? n : 1) * sizeof *s->terminal);
	if (!s->order || !s->start || !s->terminal) {
		scc_fini(s);
		return -1;
	}
	kgraph_mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++)
		kg->index[verts[i]] = UNVISITED;
	for (size_t i = 0; i < n; i++)
		if (kg->index[verts[i]] == UNVISITED)
			tarjan_from(kg, s, verts[i], &counter, &filled);
	s->start[s->n_comp] = filled;
	scc_mark_terminal(kg, s, verts, n);
	kgraph_mark_set(kg, verts, n, false);
	return 0;
}

/*
 * Per component of c (computed over verts[]): the summed weight of the
 * active edges inside it, and of those from it to other vertices of the
 * set. Both arrays malloc'd, n_comp long. -1 on allocation failure.
 */
int kgraph_component_weights(struct kgraph *kg, const struct scc *c,
			     const uint32_t *verts, size_t n,
			     int64_t **inside, int64_t **leaving)
{
	*inside = calloc(c->n_comp ? c->n_comp : 1, sizeof **inside);
	*leaving = calloc(c->n_comp ? c->n_comp : 1, sizeof **leaving);
	if (!*inside || !*leaving) {
		free(*inside);
		free(*leaving);
		*inside = *leaving = NULL;
		return -1;
	}
	kgraph_mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			uint32_t w = kedge(kg, e)->to;
			if (!kg->active[e] || !kg->in_set[w])
				continue;
			int64_t *sum = kg->comp[w] == kg->comp[v] ? &(*inside)[kg->comp[v]]
								  : &(*leaving)[kg->comp[v]];
			*sum = add_saturating(*sum, kedge(kg, e)->weight_ns);
		}
	}
	kgraph_mark_set(kg, verts, n, false);
	return 0;
}

bool wperf_within_ppm(int64_t a, int64_t b, int64_t ppm)
{
	if (a <= 0)
		return true;
	if (b <= 0 || ppm <= 0)
		return false;
	if (ppm > WPERF_PPM_MAX)
		ppm = WPERF_PPM_MAX;
	/* floor(b * ppm / 10^6) without overflow: b = q * 10^6 + r, and
	 * q * ppm <= b, r * ppm < 10^12. */
	int64_t q = b / WPERF_PPM_MAX, r = b % WPERF_PPM_MAX;
	return a <= q * ppm + r * ppm / WPERF_PPM_MAX;
}

/*
 * The knot rule (knots.h, doc/wperf-analysis.7.md): nothing leaves the
 * group (the paper's terminal component), or what leaves it weighs at
 * most leave_ppm of what stays inside (the dominant rule; strict is 0).
 */
bool knot_rule(int64_t leave_ppm, int64_t inside, int64_t leaving)
{
	return leaving <= 0 || wperf_within_ppm(leaving, inside, leave_ppm);
}


/* ------------------------------------------------------------------ */
/* Edges inside a vertex set                                           */
/* ------------------------------------------------------------------ */

/* Heaviest first; ties by (from, to) so the output is deterministic. */
int cmp_heaviest_first(const void *a, const void *b)
{
	const struct ranked_edge *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Active edges from verts[] with their other end in verts[] too (inside)
 * or not (leaving): their indexes into *out (malloc'd, caller frees) and
 * their count into *n_out. */
int kgraph_edges_from(struct kgraph *kg, const uint32_t *verts, size_t n, bool inside,
		      size_t **out, size_t *n_out)
{
	size_t count = 0, cap = 0;
	size_t *list = NULL;

	kgraph_mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			if (!kg->active[e] || kg->in_set[kedge(kg, e)->to] != inside)
				continue;
			if (knots_grow((void **)&list, &cap, count, sizeof *list)) {
				kgraph_mark_set(kg, verts, n, false);
				free(list);
				return -1;
			}
			list[count++] = e;
		}
	}
	kgraph_mark_set(kg, verts, n, false);
	*out = list;
	*n_out = count;
	return 0;
}

int kgraph_internal_edges(struct kgraph *kg, const uint32_t *verts, size_t n,
			  size_t **out, size_t *n_out)
{
	return kgraph_edges_from(kg, verts, n, true, out, n_out);
}

/* The order refinement cuts edges in: lightest first, ties by lowest
 * (from, to). */
int cmp_lightest_first(const void *a, const void *b)
{
	const struct ranked_edge *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	return cmp_heaviest_first(a, b);    /* equal weights: by (from, to) */
}

/* Sort edge indexes by `order` over their cut weights (refinement's). */
int kgraph_rank_for_cutting(const struct kgraph *kg, size_t *edges, size_t n,
			    int (*order)(const void *, const void *))
{
	struct ranked_edge *r = malloc((n ? n : 1) * sizeof *r);

	if (!r)
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct wperf_edge *e = kedge(kg, edges[i]);
		r[i] = (struct ranked_edge){ kg->cut_weight[edges[i]], e->from, e->to, edges[i] };
	}
	qsort(r, n, sizeof *r, order);
	for (size_t i = 0; i < n; i++)
		edges[i] = r[i].idx;
	free(r);
	return 0;
}

/* Sort edge indexes by `order` and return the sum of their weights. */
int64_t kgraph_rank_edges(const struct kgraph *kg, size_t *edges, size_t n,
			  int (*order)(const void *, const void *), int *err)
{
	struct ranked_edge *r = malloc((n ? n : 1) * sizeof *r);
	int64_t sum = 0;

	*err = 0;
	if (!r) {
		*err = -1;
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const struct wperf_edge *e = kedge(kg, edges[i]);
		r[i] = (struct ranked_edge){ e->weight_ns, e->from, e->to, edges[i] };
		sum = add_saturating(sum, e->weight_ns);
	}
	qsort(r, n, sizeof *r, order);
	for (size_t i = 0; i < n; i++)
		edges[i] = r[i].idx;
	free(r);
	return sum;
}


/* Grow *arr (of elem-size items) so that one more fits. */
int knots_grow(void **arr, size_t *cap, size_t n, size_t elem)
{
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 8;
	if (ncap > SIZE_MAX / elem)
		return -1;
	void *p = realloc(*arr, ncap * elem);
	if (!p)
		return -1;
	*arr = p;
	*cap = ncap;
	return 0;
}
