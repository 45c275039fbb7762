/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-round.c — one round of the knot search (knots.c): the
 * edges that count, the part of the graph the focus reaches, the strongly
 * connected components weighed by the knot rule (knots.h), a heavy group
 * that fails it cut until it splits, and each knot found refined
 * (knots-refine.c) into the search's results.
 */
#include <stdlib.h>
#include <string.h>

#include "wperf/knots.h"
#include "knots-search.h"

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
