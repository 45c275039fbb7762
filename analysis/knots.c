/*
 * knots.c — knots and sinks of the wait-for graph, and their refinement
 * (wperf-method(7) §7, wPerf paper §3.2–3.3).
 *
 * The search works on a private view of the graph (struct kgraph): the
 * out-edges of every vertex in compressed-sparse-row form and one "active"
 * flag per edge. An edge is active when it counts as a dependency (weight
 * above zero, target not a category vertex such as `timer`) and refinement
 * has not removed it yet. Everything else — strongly connected components,
 * terminal components, reachability from the focus — reads only active
 * edges.
 *
 * Nothing recurses: Tarjan's algorithm keeps its own call stack, and the
 * pieces of a knot still to refine wait on a work list. One SCC pass costs
 * O(V + E) of the vertex set it is given. Refinement cuts edges in an
 * order fixed by their weights, a tie (edges within the tie tolerance of
 * the lightest) at a time, and cutting never reconnects a graph, so
 * where the cutting stops is found by bisection: O(log E) passes per
 * piece rather than one per cut tie (tests/unit/test-knots-reference.c
 * checks this against the one-tie-at-a-time definition).
 *
 * Which components are knots is the knot rule (knots.h): every component,
 * not only the terminal ones, is weighed (internal and leaving weight, one
 * pass over its edges); under the dominant rule a component that little
 * leaves is a knot too, and one that is heavy but fails the rule is kept
 * as a group for the report. Refinement then narrows a knot as the paper
 * does: of the parts a cut leaves, the terminal ones.
 *
 * Background knots are found after refinement, one round at a time: each
 * round analyses the graph without the vertices found background so far,
 * from scratch (cut edges come back), so a round costs what one search
 * costs, and every round but the last removes at least one vertex.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/classify.h"
#include "wperf/knots.h"

#define UNVISITED UINT32_MAX

const char *wperf_knot_kind_name(enum wperf_knot_kind kind)
{
	switch (kind) {
	case WPERF_KNOT:       return "knot";
	case WPERF_SINK:       return "sink";
	case WPERF_BACKGROUND: return "background";
	}
	return "?";
}

/* a + b without signed overflow: weights are sums of many waits and a
 * hostile or corrupt trace must not make them wrap. */
static int64_t add_saturating(int64_t a, int64_t b)
{
	if (b > 0 && a > INT64_MAX - b)
		return INT64_MAX;
	if (b < 0 && a < INT64_MIN - b)
		return INT64_MIN;
	return a + b;
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

/* ------------------------------------------------------------------ */
/* The search's view of the graph                                      */
/* ------------------------------------------------------------------ */

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
	/* Scratch of one SCC pass, per vertex. */
	uint32_t *index, *low, *comp;
	bool *on_stack, *in_set;
	uint32_t *stack;
	struct frame *calls;
};

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

static void kgraph_fini(struct kgraph *kg)
{
	free(kg->out_start);
	free(kg->out_edge);
	free(kg->active);
	free(kg->index);
	free(kg->low);
	free(kg->comp);
	free(kg->on_stack);
	free(kg->in_set);
	free(kg->stack);
	free(kg->calls);
	memset(kg, 0, sizeof *kg);
}

/* Build the CSR by counting sort on `from`: it does not rely on the
 * graph's edges being sorted, only on their ids being in range. */
static int kgraph_init(struct kgraph *kg, const struct wperf_graph *g,
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
	    !kg->stack || !kg->calls) {
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

static const struct wperf_edge *kedge(const struct kgraph *kg, size_t i)
{
	return &kg->g->edges[i];
}

/* ------------------------------------------------------------------ */
/* Strongly connected components of a vertex set (iterative Tarjan)    */
/* ------------------------------------------------------------------ */

struct scc {
	size_t n_comp;
	uint32_t *order;        /* the set's vertices grouped by component */
	size_t *start;          /* n_comp + 1 offsets into order */
	bool *terminal;         /* per component: no active edge leaves it */
};

static void scc_fini(struct scc *s)
{
	free(s->order);
	free(s->start);
	free(s->terminal);
	memset(s, 0, sizeof *s);
}

static void mark_set(struct kgraph *kg, const uint32_t *verts, size_t n, bool on)
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
static int scc_compute(struct kgraph *kg, const uint32_t *verts, size_t n,
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
	mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++)
		kg->index[verts[i]] = UNVISITED;
	for (size_t i = 0; i < n; i++)
		if (kg->index[verts[i]] == UNVISITED)
			tarjan_from(kg, s, verts[i], &counter, &filled);
	s->start[s->n_comp] = filled;
	scc_mark_terminal(kg, s, verts, n);
	mark_set(kg, verts, n, false);
	return 0;
}

/*
 * Per component of c (computed over verts[]): the summed weight of the
 * active edges inside it, and of those from it to other vertices of the
 * set. Both arrays malloc'd, n_comp long. -1 on allocation failure.
 */
static int component_weights(struct kgraph *kg, const struct scc *c,
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
	mark_set(kg, verts, n, true);
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
	mark_set(kg, verts, n, false);
	return 0;
}

/*
 * The knot rule (knots.h, doc/wperf-analysis.7.md): nothing leaves the
 * group (the paper's terminal component), or what leaves it weighs at
 * most leave_ppm of what stays inside (the dominant rule; strict is 0).
 */
static bool knot_rule(int64_t leave_ppm, int64_t inside, int64_t leaving)
{
	return leaving <= 0 || wperf_within_ppm(leaving, inside, leave_ppm);
}

/* ------------------------------------------------------------------ */
/* Results and work list                                               */
/* ------------------------------------------------------------------ */

/* A strongly connected vertex set still to refine. It owns its arrays. */
struct piece {
	uint32_t *verts;                    /* ascending */
	size_t n;
	size_t origin;                      /* index in search.origins */
	struct wperf_removed_edge *removed; /* on the way here, in order */
	size_t n_removed;
};

struct origin {                             /* an unrefined terminal component */
	uint32_t *members;                  /* ascending */
	size_t n;
};

struct search {
	struct kgraph kg;
	int64_t threshold_ns;
	int64_t min_weight_ns;
	const bool *focus;
	const bool *opaque;                 /* not entered from the focus */
	int64_t leave_ppm;                  /* the knot rule (knots.h) */
	int64_t tie_ppm;                    /* ties in the cut order (knots.h) */
	bool *gone;                         /* per vertex: in a background knot */
	struct wperf_knot *bg;              /* background knots of past rounds */
	size_t n_bg, cap_bg;
	struct wperf_knot *items;
	size_t n_items, cap_items;
	struct piece *work;
	size_t n_work, cap_work;
	struct origin *origins;
	size_t n_origins, cap_origins;
	struct wperf_group *groups;         /* heavy groups that are not knots */
	size_t n_groups, cap_groups;
};

/* Grow *arr (of elem-size items) so that one more fits. */
static int grow(void **arr, size_t *cap, size_t n, size_t elem)
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

static void piece_fini(struct piece *p)
{
	free(p->verts);
	free(p->removed);
	memset(p, 0, sizeof *p);
}

static void knot_fini(struct wperf_knot *k)
{
	free(k->members);
	free(k->edges);
	free(k->component);
	free(k->removed);
	free(k->leaving);
	memset(k, 0, sizeof *k);
}

static void group_fini(struct wperf_group *gr)
{
	free(gr->members);
	free(gr->leaving);
	memset(gr, 0, sizeof *gr);
}

static void search_fini(struct search *s)
{
	for (size_t i = 0; i < s->n_items; i++)
		knot_fini(&s->items[i]);
	free(s->items);
	for (size_t i = 0; i < s->n_work; i++)
		piece_fini(&s->work[i]);
	free(s->work);
	for (size_t i = 0; i < s->n_origins; i++)
		free(s->origins[i].members);
	free(s->origins);
	for (size_t i = 0; i < s->n_groups; i++)
		group_fini(&s->groups[i]);
	free(s->groups);
	for (size_t i = 0; i < s->n_bg; i++)
		knot_fini(&s->bg[i]);
	free(s->bg);
	free(s->gone);
	kgraph_fini(&s->kg);
	memset(s, 0, sizeof *s);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static uint32_t *copy_sorted(const uint32_t *src, size_t n)
{
	uint32_t *dst = malloc((n ? n : 1) * sizeof *dst);
	if (!dst)
		return NULL;
	memcpy(dst, src, n * sizeof *dst);
	qsort(dst, n, sizeof *dst, cmp_u32);
	return dst;
}

static struct wperf_knot *push_item(struct search *s)
{
	if (grow((void **)&s->items, &s->cap_items, s->n_items, sizeof *s->items))
		return NULL;
	struct wperf_knot *k = &s->items[s->n_items++];
	memset(k, 0, sizeof *k);
	return k;
}

/* Takes ownership of p's arrays on success and on failure. */
static int push_piece(struct search *s, struct piece *p)
{
	if (grow((void **)&s->work, &s->cap_work, s->n_work, sizeof *s->work)) {
		piece_fini(p);
		return -1;
	}
	s->work[s->n_work++] = *p;
	memset(p, 0, sizeof *p);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Edges inside a vertex set                                           */
/* ------------------------------------------------------------------ */

struct ranked_edge {
	int64_t weight;
	uint32_t from, to;
	size_t idx;
};

/* Heaviest first; ties by (from, to) so the output is deterministic. */
static int cmp_heaviest_first(const void *a, const void *b)
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
static int edges_from(struct kgraph *kg, const uint32_t *verts, size_t n, bool inside,
		      size_t **out, size_t *n_out)
{
	size_t count = 0, cap = 0;
	size_t *list = NULL;

	mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			if (!kg->active[e] || kg->in_set[kedge(kg, e)->to] != inside)
				continue;
			if (grow((void **)&list, &cap, count, sizeof *list)) {
				mark_set(kg, verts, n, false);
				free(list);
				return -1;
			}
			list[count++] = e;
		}
	}
	mark_set(kg, verts, n, false);
	*out = list;
	*n_out = count;
	return 0;
}

static int internal_edges(struct kgraph *kg, const uint32_t *verts, size_t n,
			  size_t **out, size_t *n_out)
{
	return edges_from(kg, verts, n, true, out, n_out);
}

/* The order refinement cuts edges in: lightest first, ties by lowest
 * (from, to). */
static int cmp_lightest_first(const void *a, const void *b)
{
	const struct ranked_edge *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	return cmp_heaviest_first(a, b);    /* equal weights: by (from, to) */
}

/* Sort edge indexes by `order` and return the sum of their weights. */
static int64_t rank_edges(const struct kgraph *kg, size_t *edges, size_t n,
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

/* ------------------------------------------------------------------ */
/* Emitting knots and sinks                                            */
/* ------------------------------------------------------------------ */

/* The summed wperf_vertex_time() of verts: the time whose waits a knot's
 * or group's own_ns is a part of. */
static int64_t vertices_time(const struct wperf_graph *g, const uint32_t *verts, size_t n)
{
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum = add_saturating(sum, wperf_vertex_time(g, verts[i]));
	return sum;
}

/* The summed direct_ns of the given edges: their waiters' own waiting. */
static int64_t edges_own(const struct kgraph *kg, const size_t *edges, size_t n)
{
	int64_t sum = 0;

	for (size_t i = 0; i < n; i++)
		sum = add_saturating(sum, kedge(kg, edges[i])->direct_ns);
	return sum;
}

/* The summed direct_ns of the active edges between verts: what a group's
 * internal weight holds of its members' own waiting. */
static int64_t own_inside(struct kgraph *kg, const uint32_t *verts, size_t n)
{
	int64_t sum = 0;

	mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			if (kg->active[e] && kg->in_set[kedge(kg, e)->to])
				sum = add_saturating(sum, kedge(kg, e)->direct_ns);
		}
	}
	mark_set(kg, verts, n, false);
	return sum;
}

/* The active edges from verts[] to other vertices, heaviest first, and
 * their summed weight: what a knot or group waits on outside itself. */
static int find_leaving(struct kgraph *kg, const uint32_t *verts, size_t n,
			size_t **out, size_t *n_out, int64_t *sum)
{
	int err;

	*out = NULL;
	*n_out = 0;
	*sum = 0;
	if (edges_from(kg, verts, n, false, out, n_out))
		return -1;
	*sum = rank_edges(kg, *out, *n_out, cmp_heaviest_first, &err);
	return err;
}

/* A heavy strongly connected group that fails the knot rule, kept so the
 * report can say why it is not a knot. */
static int record_group(struct search *s, const uint32_t *members, size_t n,
			int64_t inside)
{
	struct wperf_group *gr;

	if (grow((void **)&s->groups, &s->cap_groups, s->n_groups, sizeof *s->groups))
		return -1;
	gr = &s->groups[s->n_groups++];
	memset(gr, 0, sizeof *gr);
	gr->members = copy_sorted(members, n);
	if (!gr->members)
		return -1;
	gr->n_members = n;
	gr->weight_ns = inside;
	gr->own_ns = own_inside(&s->kg, gr->members, n);
	gr->waiters_ns = vertices_time(s->kg.g, gr->members, n);
	return find_leaving(&s->kg, gr->members, n, &gr->leaving, &gr->n_leaving,
			    &gr->leaving_ns);
}

/* Turn a finished piece into a reported knot. Takes ownership of p's
 * arrays and of `edges` (its internal edges) in every case. */
static int emit_knot(struct search *s, struct piece *p, size_t *edges,
		     size_t n_edges, const char *why)
{
	const struct origin *o = &s->origins[p->origin];
	struct wperf_knot *k;
	int err;
	int64_t weight = rank_edges(&s->kg, edges, n_edges, cmp_heaviest_first, &err);

	if (err || !(k = push_item(s))) {
		free(edges);
		piece_fini(p);
		return -1;
	}
	k->kind = WPERF_KNOT;
	k->members = p->verts;
	k->n_members = p->n;
	k->edges = edges;
	k->n_edges = n_edges;
	k->weight_ns = weight;
	k->own_ns = edges_own(&s->kg, edges, n_edges);
	k->waiters_ns = vertices_time(s->kg.g, p->verts, p->n);
	k->removed = p->removed;
	k->n_removed = p->n_removed;
	k->stop_reason = why;
	memset(p, 0, sizeof *p);
	k->component = copy_sorted(o->members, o->n);
	if (!k->component)
		return -1;      /* the item is complete enough for knot_fini */
	k->n_component = o->n;
	return find_leaving(&s->kg, k->members, k->n_members, &k->leaving,
			    &k->n_leaving, &k->leaving_ns);
}

/*
 * Refinement left one vertex with no self-loop: by wperf-method(7) §7 that is a
 * sink, the part of the knot the rest waits on. Its weight is what the
 * component's other members wait on it, cut edges included; it keeps the
 * component and the cuts that isolated it. Takes ownership of p and edges.
 */
static int emit_refined_sink(struct search *s, struct piece *p, size_t *edges)
{
	const struct origin *o = &s->origins[p->origin];
	const struct wperf_graph *g = s->kg.g;
	uint32_t v = p->verts[0];
	int64_t weight = 0, own = 0, waiters = 0;
	struct wperf_knot *k;

	free(edges);
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (e->to == v && e->from != v && e->from < g->n_vertices &&
		    bsearch(&e->from, o->members, o->n, sizeof *o->members, cmp_u32) &&
		    wperf_edge_is_dependency(g, e, 0)) {
			weight = add_saturating(weight, e->weight_ns);
			own = add_saturating(own, e->direct_ns);
			/* One edge per (from, to): each waiter once. */
			waiters = add_saturating(waiters, wperf_vertex_time(g, e->from));
		}
	}
	if (!(k = push_item(s))) {
		piece_fini(p);
		return -1;
	}
	k->kind = WPERF_SINK;
	k->members = p->verts;
	k->n_members = 1;
	k->weight_ns = weight;
	k->own_ns = own;
	k->waiters_ns = waiters;
	k->removed = p->removed;
	k->n_removed = p->n_removed;
	k->stop_reason = "single vertex";
	memset(p, 0, sizeof *p);
	k->component = copy_sorted(o->members, o->n);
	if (!k->component)
		return -1;
	k->n_component = o->n;
	/* Nothing of its knot is left that it waits on, but a component the
	 * dominant rule admitted may have edges out of it. */
	return find_leaving(&s->kg, k->members, 1, &k->leaving, &k->n_leaving,
			    &k->leaving_ns);
}

/* What waits on one vertex in the whole graph (incoming()): the active
 * edges into it, their weight and direct_ns summed, and their waiters'
 * wperf_vertex_time() summed (one edge per waiter). */
struct in_sum {
	int64_t weight, own, waiters;
	uint64_t count;
};

static int emit_sink(struct search *s, uint32_t v, const struct in_sum *in)
{
	struct wperf_knot *k = push_item(s);

	if (!k)
		return -1;
	k->kind = WPERF_SINK;
	k->weight_ns = in->weight;
	k->own_ns = in->own;
	k->waiters_ns = in->waiters;
	k->stop_reason = "sink";
	k->members = malloc(sizeof *k->members);
	k->component = malloc(sizeof *k->component);
	if (!k->members || !k->component)
		return -1;
	k->members[0] = k->component[0] = v;
	k->n_members = k->n_component = 1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Refinement                                                          */
/* ------------------------------------------------------------------ */

/*
 * A new piece for each terminal component of p's remaining subgraph; each
 * inherits the edges removed so far. p itself is released. Only terminal
 * parts, whatever the knot rule: what is left between the parts after
 * the cuts are edges heavier than every edge cut, which refinement has
 * judged to hold the knot together, so a part that still waits on
 * another through them is upstream of it, not a knot of its own (the
 * knot rule decides which components are knots; refinement then narrows
 * a knot as the paper does).
 */
static int split_piece(struct search *s, struct piece *p, const struct scc *c)
{
	int rc = 0;

	for (size_t ci = 0; ci < c->n_comp && rc == 0; ci++) {
		if (!c->terminal[ci])
			continue;   /* it waits on another part: not inescapable */
		size_t n = c->start[ci + 1] - c->start[ci];
		struct piece child = { .n = n, .origin = p->origin,
				       .n_removed = p->n_removed };
		child.verts = copy_sorted(&c->order[c->start[ci]], n);
		child.removed = malloc((p->n_removed ? p->n_removed : 1) *
				       sizeof *child.removed);
		if (!child.verts || !child.removed) {
			piece_fini(&child);
			rc = -1;
			break;
		}
		if (p->n_removed)       /* p->removed is NULL when nothing was cut */
			memcpy(child.removed, p->removed,
			       p->n_removed * sizeof *child.removed);
		rc = push_piece(s, &child);
	}
	piece_fini(p);
	return rc;
}

/* Append the first n of the cut order to p's removed edges. */
static int record_removals(const struct kgraph *kg, struct piece *p,
			   const size_t *cut, size_t n)
{
	struct wperf_removed_edge *r =
		realloc(p->removed, (p->n_removed + n + 1) * sizeof *r);
	if (!r)
		return -1;
	p->removed = r;
	for (size_t i = 0; i < n; i++) {
		r[p->n_removed].edge = cut[i];
		r[p->n_removed].weight_ns = kedge(kg, cut[i])->weight_ns;
		p->n_removed++;
	}
	return 0;
}

/* Make exactly the first `want` edges of the cut order inactive; `*now`
 * is how many are inactive at the moment. */
static void cut_prefix(struct kgraph *kg, const size_t *cut, size_t *now, size_t want)
{
	/* Both loops count up: gcc's loop analysis then sees no index below 0
	 * (a down-counting one drew a false -Waggressive-loop-optimizations). */
	for (size_t i = *now; i < want; i++)
		kg->active[cut[i]] = false;
	for (size_t i = want; i < *now; i++)
		kg->active[cut[i]] = true;
	*now = want;
}

/* 1 when verts[] is strongly connected over the active edges, 0 when
 * not, -1 on allocation failure. */
static int strongly_connected(struct kgraph *kg, const uint32_t *verts, size_t n)
{
	struct scc c;
	if (scc_compute(kg, verts, n, &c))
		return -1;
	int one = c.n_comp == 1;
	scc_fini(&c);
	return one;
}

/*
 * The ties of the cut order (lightest first): a tie is the run of edges
 * within tie_ppm of its first, lightest, edge (exactly equal weights are
 * always one tie), and refinement cuts a tie whole or not at all, so that
 * alike members (a pool's workers, each waiting on one disk as much as
 * the others) stay or go together. bounds[t] is how many edges are cut
 * once ties 0..t are. NULL on allocation failure.
 */
static size_t *tie_bounds(const struct search *s, const size_t *cut, size_t n_edges,
			  size_t *n_ties)
{
	size_t *bounds = malloc((n_edges ? n_edges : 1) * sizeof *bounds);
	size_t n = 0;

	if (!bounds)
		return NULL;
	for (size_t j = 0; j < n_edges;) {
		int64_t lightest = kedge(&s->kg, cut[j])->weight_ns;
		size_t end = j + 1;

		while (end < n_edges &&
		       wperf_within_ppm(kedge(&s->kg, cut[end])->weight_ns - lightest,
					lightest, s->tie_ppm))
			end++;
		bounds[n++] = end;
		j = end;
	}
	*n_ties = n;
	return bounds;
}

/*
 * How many ties of the cut order can go before the piece must stop, and
 * why: with as many edges left as vertices what is left is a simple cycle
 * (or, fewer, no longer strongly connected), and a tie holding an edge
 * that weighs the threshold is never cut (an edge that heavy is never
 * cut, and its tie goes with it). The simple-cycle test comes first, as
 * in the one-tie-at-a-time description.
 */
static size_t cut_limit(const struct search *s, const struct piece *p,
			const size_t *cut, size_t n_edges, const size_t *bounds,
			const char **why)
{
	size_t t = 0, at = 0;   /* ties cut so far, and their edges */

	for (;; t++) {
		if (n_edges - at <= p->n) {
			*why = "simple cycle";
			return t;
		}
		/* at < n_edges, so tie t exists; its last edge is its heaviest. */
		if (kedge(&s->kg, cut[bounds[t] - 1])->weight_ns >= s->threshold_ns) {
			*why = "threshold";
			return t;
		}
		at = bounds[t];
	}
}

/* Smallest t in [1, hi] such that cutting the first t ties disconnects
 * the piece, knowing that hi ties do. Cutting more edges never reconnects
 * a graph, so the answer can be found by bisection: O((V + E) log E)
 * instead of one SCC pass per tie. Leaves exactly those ties cut and
 * their edge count in *k. -1 on failure. */
static int first_disconnecting_cut(struct kgraph *kg, const struct piece *p,
				   const size_t *cut, const size_t *bounds, size_t *now,
				   size_t hi, size_t *k)
{
	size_t lo = 1;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		cut_prefix(kg, cut, now, bounds[mid - 1]);
		int sc = strongly_connected(kg, p->verts, p->n);
		if (sc < 0)
			return -1;
		if (sc)
			lo = mid + 1;
		else
			hi = mid;
	}
	cut_prefix(kg, cut, now, bounds[hi - 1]);
	*k = bounds[hi - 1];
	return 0;
}

/* Cut the first k edges for good, record them, and put the terminal parts
 * of what remains on the work list. Takes ownership of p. */
static int split_after_cut(struct search *s, struct piece *p, const size_t *cut,
			   size_t k)
{
	struct scc c;

	if (record_removals(&s->kg, p, cut, k) ||
	    scc_compute(&s->kg, p->verts, p->n, &c)) {
		piece_fini(p);
		return -1;
	}
	int rc = split_piece(s, p, &c);
	scc_fini(&c);
	return rc;
}

/*
 * Refine a strongly connected piece (wperf-method(7) §7): cut its lightest edges
 * (a tie at a time) again and again until it is a single vertex or a
 * simple cycle, its lightest edge reaches the threshold, or it is no
 * longer strongly connected (then its terminal parts go back on the work
 * list). The cut order is fixed by the weights, so
 * instead of cutting one tie at a time this finds directly how far the
 * cutting goes. Takes ownership of p.
 */
static int refine_piece(struct search *s, struct piece *p)
{
	struct kgraph *kg = &s->kg;
	size_t *cut = NULL, *bounds = NULL, n_edges = 0, n_ties = 0, now = 0, k;
	const char *why;
	int err;

	if (internal_edges(kg, p->verts, p->n, &cut, &n_edges)) {
		piece_fini(p);
		return -1;
	}
	if (p->n == 1 && n_edges == 0)
		return emit_refined_sink(s, p, cut);
	if (p->n == 1)
		return emit_knot(s, p, cut, n_edges, "single vertex");
	rank_edges(kg, cut, n_edges, cmp_lightest_first, &err);
	if (err || !(bounds = tie_bounds(s, cut, n_edges, &n_ties))) {
		free(cut);
		piece_fini(p);
		return -1;
	}
	size_t ties = cut_limit(s, p, cut, n_edges, bounds, &why);
	size_t limit = ties ? bounds[ties - 1] : 0;
	cut_prefix(kg, cut, &now, limit);
	int sc = limit == 0 ? 1 : strongly_connected(kg, p->verts, p->n);
	if (sc > 0) {
		/* Stops before disconnecting: what is left is the knot. */
		free(bounds);
		if (record_removals(kg, p, cut, limit)) {
			free(cut);
			piece_fini(p);
			return -1;
		}
		if (limit)
			memmove(cut, cut + limit, (n_edges - limit) * sizeof *cut);
		return emit_knot(s, p, cut, n_edges - limit, why);
	}
	if (sc < 0 || first_disconnecting_cut(kg, p, cut, bounds, &now, ties, &k)) {
		free(bounds);
		free(cut);
		piece_fini(p);
		return -1;
	}
	free(bounds);
	int rc = split_after_cut(s, p, cut, k);
	free(cut);
	return rc;
}

/* ------------------------------------------------------------------ */
/* The top level                                                       */
/* ------------------------------------------------------------------ */

static bool is_device(const struct kgraph *kg, uint32_t v)
{
	return wperf_vertex_kind_is_device(kg->g->vertices[v].kind);
}

/*
 * Vertices the focus waits for, transitively, along active edges (breadth
 * first). A device's idle edges are not followed: the disk waiting for
 * another program to give it work is that program's story, not the
 * focused application's. Opaque vertices (the tracer's threads) are not
 * entered either.
 */
static bool *reachable_from(const struct kgraph *kg, const bool *focus, const bool *opaque)
{
	bool *seen = calloc(kg->nv ? kg->nv : 1, sizeof *seen);
	uint32_t *queue = malloc((kg->nv ? kg->nv : 1) * sizeof *queue);
	size_t head = 0, tail = 0;

	if (!seen || !queue) {
		free(seen);
		free(queue);
		return NULL;
	}
	for (uint32_t v = 0; v < kg->nv; v++)
		if (focus[v]) {
			seen[v] = true;
			queue[tail++] = v;
		}
	while (head < tail) {
		uint32_t v = queue[head++];
		if (is_device(kg, v))
			continue;
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			uint32_t w = kedge(kg, kg->out_edge[k])->to;
			if (kg->active[kg->out_edge[k]] && !seen[w] && !(opaque && opaque[w])) {
				seen[w] = true;
				queue[tail++] = w;
			}
		}
	}
	free(queue);
	return seen;
}

/* Keep only the edges between vertices of the set: the focused graph. */
static void restrict_to(struct kgraph *kg, const bool *set)
{
	for (size_t i = 0; i < kg->g->n_edges; i++)
		if (kg->active[i] && (!set[kedge(kg, i)->from] || !set[kedge(kg, i)->to]))
			kg->active[i] = false;
}

static bool has_self_loop(const struct kgraph *kg, uint32_t v)
{
	for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++)
		if (kg->active[kg->out_edge[k]] && kedge(kg, kg->out_edge[k])->to == v)
			return true;
	return false;
}

/* Sums and count of the active edges into each vertex (for sinks). */
static int incoming(const struct kgraph *kg, struct in_sum **in)
{
	*in = calloc(kg->nv ? kg->nv : 1, sizeof **in);
	if (!*in)
		return -1;
	for (size_t i = 0; i < kg->g->n_edges; i++) {
		if (!kg->active[i])
			continue;
		const struct wperf_edge *e = kedge(kg, i);
		struct in_sum *to = &(*in)[e->to];

		to->weight = add_saturating(to->weight, e->weight_ns);
		to->own = add_saturating(to->own, e->direct_ns);
		to->waiters = add_saturating(to->waiters, wperf_vertex_time(kg->g, e->from));
		to->count++;
	}
	return 0;
}

/*
 * A component becomes a piece to refine (a knot: it passes the knot
 * rule), a sink (a terminal single vertex others wait on), a heavy group
 * that is not a knot (kept for the report), or nothing. inside, leaving:
 * its weights (component_weights).
 */
static int classify_component(struct search *s, const uint32_t *members, size_t n,
			      int64_t inside, int64_t leaving, const struct in_sum *in)
{
	if (n == 1 && !has_self_loop(&s->kg, members[0])) {
		if (leaving > 0 || in[members[0]].count == 0)
			return 0;
		return emit_sink(s, members[0], &in[members[0]]);
	}
	if (!knot_rule(s->leave_ppm, inside, leaving))
		return inside >= s->threshold_ns ? record_group(s, members, n, inside) : 0;
	if (grow((void **)&s->origins, &s->cap_origins, s->n_origins,
		 sizeof *s->origins))
		return -1;
	struct origin *o = &s->origins[s->n_origins];
	o->members = copy_sorted(members, n);
	if (!o->members)
		return -1;
	o->n = n;
	struct piece p = { .n = n, .origin = s->n_origins++ };
	p.verts = copy_sorted(members, n);
	if (!p.verts)
		return -1;
	return push_piece(s, &p);
}

/* The knots (to refine), sinks and heavy groups of the graph.
 * in: what waits on each vertex in the whole graph, so a
 * focused thread others wait on is still a sink. */
static int find_components(struct search *s, const bool *reach, const struct in_sum *in)
{
	struct kgraph *kg = &s->kg;
	uint32_t *all = malloc((kg->nv ? kg->nv : 1) * sizeof *all);
	int64_t *inside = NULL, *leaving = NULL;
	struct scc c = { 0 };
	int rc = -1;

	if (!all)
		goto out;
	for (uint32_t v = 0; v < kg->nv; v++)
		all[v] = v;
	if (scc_compute(kg, all, kg->nv, &c) ||
	    component_weights(kg, &c, all, kg->nv, &inside, &leaving))
		goto out;
	rc = 0;
	for (size_t ci = 0; ci < c.n_comp && rc == 0; ci++) {
		const uint32_t *members = &c.order[c.start[ci]];
		/* A component is strongly connected: reaching one member
		 * reaches them all, so testing one is enough. */
		if (reach && !reach[members[0]])
			continue;
		rc = classify_component(s, members, c.start[ci + 1] - c.start[ci],
					inside[ci], leaving[ci], in);
	}
out:
	free(inside);
	free(leaving);
	scc_fini(&c);
	free(all);
	return rc;
}

/* The tier of a finding in the report order: 0 for knots and sinks
 * limited by their own work, 1 for sinks paced by timers or by what the
 * trace does not show, 2 for background knots. */
static int report_tier(const struct wperf_knot *k)
{
	if (k->kind == WPERF_BACKGROUND)
		return 2;
	return k->paced ? 1 : 0;
}

static bool is_member(const struct wperf_knot *k, uint32_t v)
{
	size_t lo = 0, hi = k->n_members;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->members[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < k->n_members && k->members[lo] == v;
}

/*
 * What the focus waits on each finding (wperf_knot.focus_ns). A finding's
 * weight says how much waiting meets there, but with a focus the question
 * is what holds the focus up: a writeback knot {kworker, disk} weighs the
 * disk's idle time while the program reaches it through one 0.2 s wait,
 * and must not come before the program's own work on that account.
 */
static void weigh_focus_waits(struct search *s)
{
	const struct wperf_graph *g = s->kg.g;

	if (!s->focus)
		return;
	for (size_t e = 0; e < g->n_edges; e++) {
		const struct wperf_edge *x = &g->edges[e];

		if (!s->focus[x->from] || !wperf_edge_is_dependency(g, x, s->min_weight_ns))
			continue;
		for (size_t i = 0; i < s->n_items; i++)
			if (is_member(&s->items[i], x->to))
				s->items[i].focus_ns += x->weight_ns;
	}
}

/*
 * Tier by tier (report_tier), knots and sinks together by weight,
 * heaviest first (a knot before a sink of the same weight): the report is
 * read from the top for what to optimise, the heaviest finding first
 * whatever its kind. A sink paced by timers waits for nothing but time
 * (a sleep, a timeout) and one paced by unseen causes for what the trace
 * does not show: others' waits on it are real, but there is no work to
 * speed up behind them, so they follow the findings that have some. A
 * background knot is by definition not where throughput is lost. With a
 * focus, within a tier, what the focus waits on a finding comes before
 * its weight (weigh_focus_waits).
 */
static int cmp_report_order(const void *a, const void *b)
{
	const struct wperf_knot *x = a, *y = b;
	int xt = report_tier(x), yt = report_tier(y);

	if (xt != yt)
		return xt > yt ? 1 : -1;
	if (x->focus_ns != y->focus_ns)
		return x->focus_ns < y->focus_ns ? 1 : -1;
	if (x->weight_ns != y->weight_ns)
		return x->weight_ns < y->weight_ns ? 1 : -1;
	if (x->kind != y->kind)   /* enum order: knot, sink */
		return (x->kind > y->kind) - (x->kind < y->kind);
	return cmp_u32(&x->members[0], &y->members[0]);
}

/* Heavy groups that are not knots: heaviest first. */
static int cmp_groups(const void *a, const void *b)
{
	const struct wperf_group *x = a, *y = b;
	if (x->weight_ns != y->weight_ns)
		return x->weight_ns < y->weight_ns ? 1 : -1;
	return cmp_u32(&x->members[0], &y->members[0]);
}

/* Every dependency edge between vertices not removed as background is
 * active again: a new round starts from the whole remaining graph. Opaque
 * vertices (the tracer's threads) take no part: their waits are no one's
 * work (LTTng-UST's listeners wait on the program's main thread for its
 * whole life, which would make it a sink "waited on" for many times the
 * trace), and a wait on them ends in the recording, whose own waits are
 * not followed (a thread waiting for the lttng tool would otherwise make
 * it a sink that "waits for nothing" while it waits for the daemon). */
static void reset_active(struct search *s)
{
	const struct wperf_graph *g = s->kg.g;

	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		s->kg.active[i] = wperf_edge_is_dependency(g, e, s->min_weight_ns) &&
				  !s->gone[e->from] && !s->gone[e->to] &&
				  !(s->opaque && (s->opaque[e->from] || s->opaque[e->to]));
	}
}

/* One search of the remaining graph: terminal components, refined, into
 * s->items. */
static int search_round(struct search *s)
{
	bool *reach = NULL;
	struct in_sum *in = NULL;
	int rc = -1;

	reset_active(s);
	if (incoming(&s->kg, &in))
		goto out;
	if (s->focus) {
		if (!(reach = reachable_from(&s->kg, s->focus, s->opaque)))
			goto out;
		restrict_to(&s->kg, reach);
	}
	if (find_components(s, reach, in))
		goto out;
	while (s->n_work > 0) {
		struct piece p = s->work[--s->n_work];
		if (refine_piece(s, &p))
			goto out;
	}
	rc = 0;
out:
	free(reach);
	free(in);
	return rc;
}

/* Sum the CPU demand of k's threads and virtual threads (running plus
 * runnable: on a CPU or wanting one) into k->cpu_ns; true when k is
 * background (wperf-method(7) §7): a knot, no device among its members, and
 * strictly less than one CPU's worth of demand over the analysed duration.
 * Choice: runnable time counts too, or threads of a lock-contention knot
 * starved of CPUs (each running only while it holds the lock) would pass
 * for heartbeats on a busy machine. */
static bool classify_background(const struct wperf_graph *g, struct wperf_knot *k)
{
	bool device = false;
	int64_t first = INT64_MAX, last = INT64_MIN;

	k->cpu_ns = 0;
	k->span_ns = wperf_graph_duration(g);   /* 0: no knot is background */
	if (k->kind != WPERF_KNOT)
		return false;
	for (size_t i = 0; i < k->n_members; i++) {
		const struct wperf_vertex *v = &g->vertices[k->members[i]];
		if (wperf_vertex_kind_is_device(v->kind)) {
			device = true;
		} else if (v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL) {
			k->cpu_ns = add_saturating(k->cpu_ns,
						   add_saturating(v->running_ns > 0 ? v->running_ns : 0,
								  v->runnable_ns > 0 ? v->runnable_ns : 0));
			if (v->first_ts >= 0 && v->first_ts < first)
				first = v->first_ts;
			if (v->last_ts > last)
				last = v->last_ts;
		}
	}
	/* Utilisation over the time the threads existed: a program traced
	 * for a part of the recording is not background for being short. */
	if (first < last && last - first < k->span_ns)
		k->span_ns = last - first;
	return !device && k->cpu_ns < k->span_ns;
}

/* Forget this round's results (the next round finds them again, or what
 * they become without the background knots). */
static void drop_round(struct search *s)
{
	for (size_t i = 0; i < s->n_items; i++)
		knot_fini(&s->items[i]);
	s->n_items = 0;
	for (size_t i = 0; i < s->n_origins; i++)
		free(s->origins[i].members);
	s->n_origins = 0;
	for (size_t i = 0; i < s->n_groups; i++)
		group_fini(&s->groups[i]);
	s->n_groups = 0;
}

/* Move this round's background knots to s->bg and mark their vertices
 * gone. *moved: how many. -1 on allocation failure. */
static int take_background(struct search *s, size_t *moved)
{
	const struct wperf_graph *g = s->kg.g;

	*moved = 0;
	for (size_t i = 0; i < s->n_items; i++) {
		struct wperf_knot *k = &s->items[i];
		if (!classify_background(g, k))
			continue;
		if (grow((void **)&s->bg, &s->cap_bg, s->n_bg, sizeof *s->bg))
			return -1;
		k->kind = WPERF_BACKGROUND;
		for (size_t m = 0; m < k->n_members; m++)
			s->gone[k->members[m]] = true;
		s->bg[s->n_bg++] = *k;
		memset(k, 0, sizeof *k);  /* owned by s->bg now */
		(*moved)++;
	}
	if (*moved)
		drop_round(s);
	return 0;
}

/* Search, take out the background knots, search again without them, until
 * a round finds none; then its results and every background knot are the
 * answer. Every round but the last removes a vertex: at most V + 1. */
static int search_all(struct search *s)
{
	size_t moved;

	do {
		if (search_round(s) || take_background(s, &moved))
			return -1;
	} while (moved > 0);
	for (size_t i = 0; i < s->n_bg; i++) {
		struct wperf_knot *k = push_item(s);
		if (!k)
			return -1;
		*k = s->bg[i];
		memset(&s->bg[i], 0, sizeof s->bg[i]);
	}
	return 0;
}

int wperf_knots_find(const struct wperf_graph *g,
		     const struct wperf_knot_options *opts,
		     struct wperf_knots *out)
{
	struct search s = { 0 };
	int rc = -1;

	memset(out, 0, sizeof *out);
	/* Without options: refine until simple, report everything. */
	s.threshold_ns = opts ? opts->threshold_ns : INT64_MAX;
	s.min_weight_ns = opts ? opts->min_weight_ns : 0;
	s.focus = opts ? opts->focus : NULL;
	s.opaque = opts ? opts->opaque : NULL;
	s.leave_ppm = opts ? opts->leave_ppm : 0;
	s.tie_ppm = opts ? opts->tie_ppm : 0;
	if (kgraph_init(&s.kg, g, s.min_weight_ns))
		return -1;
	s.gone = calloc(g->n_vertices ? g->n_vertices : 1, sizeof *s.gone);
	if (!s.gone || search_all(&s))
		goto out;
	for (size_t i = 0; i < s.n_items; i++)
		s.items[i].paced = s.items[i].kind == WPERF_SINK &&
				   wperf_sink_limit(g, &s.items[i], NULL) != WPERF_LIMIT_WORK;
	weigh_focus_waits(&s);
	if (s.n_items > 0)
		qsort(s.items, s.n_items, sizeof *s.items, cmp_report_order);
	if (s.n_groups > 0)
		qsort(s.groups, s.n_groups, sizeof *s.groups, cmp_groups);
	out->items = s.items;
	out->n = s.n_items;
	out->groups = s.groups;
	out->n_groups = s.n_groups;
	s.items = NULL;
	s.n_items = 0;
	s.groups = NULL;
	s.n_groups = 0;
	rc = 0;
out:
	if (rc)
		errno = ENOMEM;
	search_fini(&s);
	return rc;
}

void wperf_knots_fini(struct wperf_knots *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->n; i++)
		knot_fini(&k->items[i]);
	free(k->items);
	k->items = NULL;
	k->n = 0;
	for (size_t i = 0; i < k->n_groups; i++)
		group_fini(&k->groups[i]);
	free(k->groups);
	k->groups = NULL;
	k->n_groups = 0;
}
