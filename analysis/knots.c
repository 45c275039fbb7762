/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots.c — knots and sinks of the wait-for graph: the search
 * (wperf-method(7) §7, wPerf paper §3.2–3.3) and its results.
 *
 * The search works on a private view of the graph (struct kgraph,
 * knots-graph.c): the out-edges of every vertex in compressed-sparse-row
 * form and one "active" flag per edge. An edge is active when it counts as
 * a dependency (weight above zero, target not a category vertex such as
 * `timer`) and refinement has not removed it yet. Everything else —
 * strongly connected components, terminal components, reachability from
 * the focus — reads only active edges.
 *
 * Which components are knots is the knot rule (knots.h): every component,
 * not only the terminal ones, is weighed (internal and leaving weight, one
 * pass over its edges); under the dominant rule a component that little
 * leaves is a knot too, and one that is heavy but fails the rule is kept
 * as a group for the report. Refinement then narrows a knot as the paper
 * does (knots-refine.c), and background knots are taken out round after
 * round (knots-background.c). This file owns one round of the search, the
 * work list and results, the focus's waits and the report order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/classify.h"
#include "wperf/knots.h"
#include "knots-search.h"


const char *wperf_knot_kind_name(enum wperf_knot_kind kind)
{
	switch (kind) {
	case WPERF_KNOT:       return "knot";
	case WPERF_SINK:       return "sink";
	case WPERF_BACKGROUND: return "background";
	}
	return "?";
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
/* Results and work list                                               */
/* ------------------------------------------------------------------ */

void piece_fini(struct piece *p)
{
	free(p->verts);
	free(p->removed);
	memset(p, 0, sizeof *p);
}

void knot_fini(struct wperf_knot *k)
{
	free(k->members);
	free(k->edges);
	free(k->component);
	free(k->removed);
	free(k->leaving);
	memset(k, 0, sizeof *k);
}

void group_fini(struct wperf_group *gr)
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
	free(s->reach);
	kgraph_fini(&s->kg);
	memset(s, 0, sizeof *s);
}

int knots_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

uint32_t *knots_copy_sorted(const uint32_t *src, size_t n)
{
	uint32_t *dst = malloc((n ? n : 1) * sizeof *dst);
	if (!dst)
		return NULL;
	memcpy(dst, src, n * sizeof *dst);
	qsort(dst, n, sizeof *dst, knots_cmp_u32);
	return dst;
}

struct wperf_knot *search_push_item(struct search *s)
{
	if (knots_grow((void **)&s->items, &s->cap_items, s->n_items, sizeof *s->items))
		return NULL;
	struct wperf_knot *k = &s->items[s->n_items++];
	memset(k, 0, sizeof *k);
	return k;
}

/* Takes ownership of p's arrays on success and on failure. */
int search_push_piece(struct search *s, struct piece *p)
{
	if (knots_grow((void **)&s->work, &s->cap_work, s->n_work, sizeof *s->work)) {
		piece_fini(p);
		return -1;
	}
	s->work[s->n_work++] = *p;
	memset(p, 0, sizeof *p);
	return 0;
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

/* How a group's part came to be judged (split_group): the group it was
 * cut from and the cuts that freed it. NULL for a component of the graph
 * as it is. */
struct split_from {
	const uint32_t *group;
	size_t n_group;
	const struct wperf_removed_edge *cuts;
	size_t n_cuts;
	unsigned depth;
};

/* Splits within splits stop here: every level is a strictly smaller
 * group, and a real graph's groups split in a few levels. */
#define MAX_SPLIT_DEPTH 32

static int classify_component(struct search *s, const uint32_t *members, size_t n,
			      int64_t inside, int64_t leaving, const struct in_sum *in,
			      const struct split_from *from);

/* The summed weight of the active edges from verts[] to each other
 * (*inside) and to any other vertex (*leaving). */
static void set_weights(struct kgraph *kg, const uint32_t *verts, size_t n,
			int64_t *inside, int64_t *leaving)
{
	*inside = *leaving = 0;
	kgraph_mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			if (!kg->active[e])
				continue;
			int64_t *sum = kg->in_set[kedge(kg, e)->to] ? inside : leaving;
			*sum = add_saturating(*sum, kedge(kg, e)->weight_ns);
		}
	}
	kgraph_mark_set(kg, verts, n, false);
}

/*
 * A heavy group that fails the knot rule can hold a knot that a few light
 * edges tie to the rest: a server and its disk, joined to the script that
 * drives them by the waits of its start and its end, while the script
 * waits on `timeout` for the whole run. Refinement's own principle
 * decides: edges lighter than the threshold are cut, lightest first, until
 * the group splits, and each part is judged again by the knot rule (a
 * part that fails it is split the same way). The group stays in the
 * report as it is; its parts that pass become knots to refine, with the
 * group as their component and its cuts as their first removed edges.
 */
static int split_group(struct search *s, const uint32_t *members, size_t n,
		       const struct in_sum *in, const struct split_from *from)
{
	struct wperf_removed_edge *cuts = NULL, *all = NULL;
	size_t n_cuts = 0, n_prev = from ? from->n_cuts : 0;
	struct scc c;
	int rc = refine_split_group(s, members, n, &cuts, &n_cuts, &c);

	if (rc <= 0)
		return rc;
	rc = -1;
	all = malloc((n_prev + n_cuts) * sizeof *all);
	if (!all)
		goto out;
	if (n_prev)
		memcpy(all, from->cuts, n_prev * sizeof *all);
	memcpy(all + n_prev, cuts, n_cuts * sizeof *all);
	struct split_from here = {
		.group = from ? from->group : members, .n_group = from ? from->n_group : n,
		.cuts = all, .n_cuts = n_prev + n_cuts, .depth = from ? from->depth + 1 : 1,
	};
	rc = 0;
	for (size_t ci = 0; ci < c.n_comp && rc == 0; ci++) {
		const uint32_t *part = &c.order[c.start[ci]];
		size_t np = c.start[ci + 1] - c.start[ci];
		int64_t inside, leaving;

		set_weights(&s->kg, part, np, &inside, &leaving);
		rc = classify_component(s, part, np, inside, leaving, in, &here);
	}
out:
	scc_fini(&c);
	free(cuts);
	free(all);
	return rc;
}

/* A knot to refine: its members, and what the component they came from
 * was (from: a group's part, with the group's cuts; NULL: themselves). */
static int push_knot(struct search *s, const uint32_t *members, size_t n,
		     const struct split_from *from)
{
	if (knots_grow((void **)&s->origins, &s->cap_origins, s->n_origins,
		 sizeof *s->origins))
		return -1;
	struct origin *o = &s->origins[s->n_origins];
	o->members = knots_copy_sorted(from ? from->group : members, from ? from->n_group : n);
	if (!o->members)
		return -1;
	o->n = from ? from->n_group : n;
	struct piece p = { .n = n, .origin = s->n_origins++ };
	p.verts = knots_copy_sorted(members, n);
	if (from && from->n_cuts) {
		p.removed = malloc(from->n_cuts * sizeof *p.removed);
		if (p.removed) {
			memcpy(p.removed, from->cuts, from->n_cuts * sizeof *p.removed);
			p.n_removed = from->n_cuts;
		}
	}
	if (!p.verts || (from && from->n_cuts && !p.removed)) {
		piece_fini(&p);
		return -1;
	}
	return search_push_piece(s, &p);
}

/*
 * A component becomes a piece to refine (a knot: it passes the knot
 * rule), a sink (a terminal single vertex others wait on), a heavy group
 * that is not a knot (kept for the report, and split for the knots it may
 * hold: split_group), or nothing. inside, leaving: its weights
 * (component_weights). from: NULL for a component of the graph, else the
 * group it is a part of (a part alone is never a sink: the cuts that
 * freed it were waits).
 */
static int classify_component(struct search *s, const uint32_t *members, size_t n,
			      int64_t inside, int64_t leaving, const struct in_sum *in,
			      const struct split_from *from)
{
	if (n == 1 && !has_self_loop(&s->kg, members[0])) {
		if (from || leaving > 0 || in[members[0]].count == 0)
			return 0;
		return emit_sink(s, members[0], &in[members[0]]);
	}
	if (knot_rule(s->leave_ppm, inside, leaving))
		return push_knot(s, members, n, from);
	if (inside < s->threshold_ns || (from && from->depth >= MAX_SPLIT_DEPTH))
		return 0;
	if (!from && record_group(s, members, n, inside))
		return -1;
	return split_group(s, members, n, in, from);
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
	    kgraph_component_weights(kg, &c, all, kg->nv, &inside, &leaving))
		goto out;
	rc = 0;
	for (size_t ci = 0; ci < c.n_comp && rc == 0; ci++) {
		const uint32_t *members = &c.order[c.start[ci]];
		/* A component is strongly connected: reaching one member
		 * reaches them all, so testing one is enough. */
		if (reach && !reach[members[0]])
			continue;
		rc = classify_component(s, members, c.start[ci + 1] - c.start[ci],
					inside[ci], leaving[ci], in, NULL);
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
	return knots_cmp_u32(&x->members[0], &y->members[0]);
}

/* Heavy groups that are not knots: heaviest first. */
static int cmp_groups(const void *a, const void *b)
{
	const struct wperf_group *x = a, *y = b;
	if (x->weight_ns != y->weight_ns)
		return x->weight_ns < y->weight_ns ? 1 : -1;
	return knots_cmp_u32(&x->members[0], &y->members[0]);
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
int search_round(struct search *s)
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
	free(s->reach);   /* the background rounds read this round's */
	s->reach = reach;
	reach = NULL;
	if (find_components(s, s->reach, in))
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
