/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-refine.c — refinement of a knot (wperf-method(7) §7,
 * wPerf paper §3.3), and emitting what the search found.
 *
 * Refinement cuts a knot's edges in an order fixed by their weights, a tie
 * (edges within the tie tolerance of the lightest) at a time, and cutting
 * never reconnects a graph, so where the cutting stops is found by
 * bisection: O(log E) passes per piece rather than one per cut tie
 * (tests/unit/test-knots-reference.c checks this against the
 * one-tie-at-a-time definition). Of the parts a cut leaves, the terminal
 * ones are refined further (pieces on the search's work list); what
 * refinement ends with is emitted as a knot or a sink with the edges it
 * removed on the way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "knots-search.h"

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

	kgraph_mark_set(kg, verts, n, true);
	for (size_t i = 0; i < n; i++) {
		uint32_t v = verts[i];
		for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
			size_t e = kg->out_edge[k];
			if (kg->active[e] && kg->in_set[kedge(kg, e)->to])
				sum = add_saturating(sum, kedge(kg, e)->direct_ns);
		}
	}
	kgraph_mark_set(kg, verts, n, false);
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
	if (kgraph_edges_from(kg, verts, n, false, out, n_out))
		return -1;
	*sum = kgraph_rank_edges(kg, *out, *n_out, cmp_heaviest_first, &err);
	return err;
}

/* A heavy strongly connected group that fails the knot rule, kept so the
 * report can say why it is not a knot. */
int record_group(struct search *s, const uint32_t *members, size_t n,
		 int64_t inside)
{
	struct wperf_group *gr;

	if (knots_grow((void **)&s->groups, &s->cap_groups, s->n_groups, sizeof *s->groups))
		return -1;
	gr = &s->groups[s->n_groups++];
	memset(gr, 0, sizeof *gr);
	gr->members = knots_copy_sorted(members, n);
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
	int64_t weight = kgraph_rank_edges(&s->kg, edges, n_edges, cmp_heaviest_first, &err);

	if (err || !(k = search_push_item(s))) {
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
	k->component = knots_copy_sorted(o->members, o->n);
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
		    bsearch(&e->from, o->members, o->n, sizeof *o->members, knots_cmp_u32) &&
		    wperf_edge_is_dependency(g, e, 0)) {
			weight = add_saturating(weight, e->weight_ns);
			own = add_saturating(own, e->direct_ns);
			/* One edge per (from, to): each waiter once. */
			waiters = add_saturating(waiters, wperf_vertex_time(g, e->from));
		}
	}
	if (!(k = search_push_item(s))) {
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
	k->component = knots_copy_sorted(o->members, o->n);
	if (!k->component)
		return -1;
	k->n_component = o->n;
	/* Nothing of its knot is left that it waits on, but a component the
	 * dominant rule admitted may have edges out of it. */
	return find_leaving(&s->kg, k->members, 1, &k->leaving, &k->n_leaving,
			    &k->leaving_ns);
}

int emit_sink(struct search *s, uint32_t v, const struct in_sum *in)
{
	struct wperf_knot *k = search_push_item(s);

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
 * inherits the edges removed so far. p itself is released. The parts
 * that pass the knot rule within the piece: the terminal ones (the
 * paper's), and under the dominant rule a part whose waits on the others
 * weigh at most that share of its own, as it would be a knot had the
 * light edges refinement cut never joined it to them. Else a wait of
 * 83 ms (an InnoDB purge thread's on the disk) tying a database's
 * 30-second knot of clients, connection threads and disk to three purge
 * threads left, once cut, only the purge threads as a knot: the rest
 * waited on them 110 ms.
 */
static int split_piece(struct search *s, struct piece *p, const struct scc *c)
{
	int64_t *inside = NULL, *leaving = NULL;
	int rc = 0;

	if (kgraph_component_weights(&s->kg, c, p->verts, p->n, &inside, &leaving)) {
		piece_fini(p);
		return -1;
	}
	for (size_t ci = 0; ci < c->n_comp && rc == 0; ci++) {
		if (!c->terminal[ci] && !knot_rule(s->leave_ppm, inside[ci], leaving[ci]))
			continue;   /* it waits on another part: not inescapable */
		size_t n = c->start[ci + 1] - c->start[ci];
		struct piece child = { .n = n, .origin = p->origin,
				       .n_removed = p->n_removed };
		child.verts = knots_copy_sorted(&c->order[c->start[ci]], n);
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
		rc = search_push_piece(s, &child);
	}
	free(inside);
	free(leaving);
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
		int64_t lightest = s->kg.cut_weight[cut[j]];
		size_t end = j + 1;

		while (end < n_edges &&
		       wperf_within_ppm(s->kg.cut_weight[cut[end]] - lightest,
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
		if (s->kg.cut_weight[cut[bounds[t] - 1]] >= s->threshold_ns) {
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

/* What thread v waited, itself, on the piece's other vertices: the
 * direct_ns of its edges into the piece, active or cut; -1 when it keeps
 * an active self-loop (alone, it is then a knot, not a sink). */
static int64_t own_waits_on_piece(struct kgraph *kg, const struct piece *p, uint32_t v)
{
	int64_t sum = 0;

	for (size_t k = kg->out_start[v]; k < kg->out_start[v + 1]; k++) {
		const struct wperf_edge *e = kedge(kg, kg->out_edge[k]);
		if (e->to == v && kg->active[kg->out_edge[k]])
			return -1;
		if (e->to != v &&
		    bsearch(&e->to, p->verts, p->n, sizeof *p->verts, knots_cmp_u32))
			sum = add_saturating(sum, e->direct_ns);
	}
	return sum;
}

/*
 * 1 when the cut just made leaves a thread alone as a terminal part (a
 * sink to be) although it waited on the rest of the piece and on timers
 * longer than it ran and was runnable: a sink is a vertex limited by its
 * own execution (wperf-method(7) §7), and this one is mostly waiting on
 * the others, through edges each lighter than the threshold but together
 * more than its work, or sleeping. Such a cut does not find where the
 * time goes; it breaks the cycle the thread is part of (a writeback
 * worker between the threads that wait on it and the disk it waits on;
 * fio's main thread, which sleeps between its status checks and which
 * its workers waited on once, at their start). c: the piece's components
 * after the cut.
 */
static bool cut_isolates_a_waiter(struct kgraph *kg, const struct piece *p,
				  const struct scc *c)
{
	const struct wperf_graph *g = kg->g;
	bool found = false;

	for (size_t ci = 0; ci < c->n_comp && !found; ci++) {
		if (!c->terminal[ci] || c->start[ci + 1] - c->start[ci] != 1)
			continue;
		uint32_t v = c->order[c->start[ci]];
		const struct wperf_vertex *x = &g->vertices[v];
		if (x->kind != WPERF_V_THREAD && x->kind != WPERF_V_VIRTUAL)
			continue;
		int64_t work = add_saturating(x->running_ns > 0 ? x->running_ns : 0,
					      x->runnable_ns > 0 ? x->runnable_ns : 0);
		int64_t own = own_waits_on_piece(kg, p, v);
		/* Sleeps and timeouts count as waiting too: a thread paced
		 * by timers is no more limited by its own work. */
		if (own >= 0)
			own = add_saturating(own, x->waiting_ns[WPERF_V_TIMER] > 0
						  ? x->waiting_ns[WPERF_V_TIMER] : 0);
		found = own > work;
	}
	return found;
}

/* Stop refining p with the first n_cut edges of the cut order cut: what
 * is left is the knot. Takes ownership of p and of cut. */
static int emit_after_cuts(struct search *s, struct piece *p, size_t *cut, size_t n_edges,
			   size_t n_cut, const char *why)
{
	if (record_removals(&s->kg, p, cut, n_cut)) {
		free(cut);
		piece_fini(p);
		return -1;
	}
	if (n_cut)
		memmove(cut, cut + n_cut, (n_edges - n_cut) * sizeof *cut);
	return emit_knot(s, p, cut, n_edges - n_cut, why);
}

/* Cut the first k edges for good, record them, and put the terminal parts
 * of what remains (c, its components) on the work list. Takes ownership
 * of p. */
static int split_after_cut(struct search *s, struct piece *p, const size_t *cut,
			   size_t k, const struct scc *c)
{
	if (record_removals(&s->kg, p, cut, k)) {
		piece_fini(p);
		return -1;
	}
	return split_piece(s, p, c);
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
int refine_piece(struct search *s, struct piece *p)
{
	struct kgraph *kg = &s->kg;
	size_t *cut = NULL, *bounds = NULL, n_edges = 0, n_ties = 0, now = 0, k;
	const char *why;
	int err;

	if (kgraph_internal_edges(kg, p->verts, p->n, &cut, &n_edges)) {
		piece_fini(p);
		return -1;
	}
	if (p->n == 1 && n_edges == 0)
		return emit_refined_sink(s, p, cut);
	if (p->n == 1)
		return emit_knot(s, p, cut, n_edges, "single vertex");
	err = kgraph_rank_for_cutting(kg, cut, n_edges, cmp_lightest_first);
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
		return emit_after_cuts(s, p, cut, n_edges, limit, why);
	}
	struct scc c;
	if (sc < 0 || first_disconnecting_cut(kg, p, cut, bounds, &now, ties, &k) ||
	    scc_compute(kg, p->verts, p->n, &c)) {
		free(bounds);
		free(cut);
		piece_fini(p);
		return -1;
	}
	if (cut_isolates_a_waiter(kg, p, &c)) {
		/* Undo the disconnecting tie: the piece as it stood is the knot. */
		size_t before = 0;
		for (size_t t = 0; t < n_ties && bounds[t] < k; t++)
			before = bounds[t];
		scc_fini(&c);
		free(bounds);
		cut_prefix(kg, cut, &now, before);
		return emit_after_cuts(s, p, cut, n_edges, before, "waiter");
	}
	free(bounds);
	int rc = split_after_cut(s, p, cut, k, &c);
	scc_fini(&c);
	free(cut);
	return rc;
}


/*
 * Cut a heavy group's lightest edges, a tie at a time and never one that
 * weighs the threshold, as refinement cuts a knot's, until the group is no
 * longer strongly connected. 1 when it split: the cuts stay made, *cuts
 * (malloc'd) lists them lightest first, and *parts holds the group's
 * components after them. 0 when no permitted cut splits it (nothing is
 * cut), -1 on allocation failure.
 */
int refine_split_group(struct search *s, const uint32_t *verts, size_t n,
		       struct wperf_removed_edge **cuts, size_t *n_cuts, struct scc *parts)
{
	struct kgraph *kg = &s->kg;
	struct piece g = { .verts = (uint32_t *)verts, .n = n };
	size_t *cut = NULL, *bounds = NULL, n_edges = 0, n_ties = 0, now = 0, k = 0;
	const char *why;
	int err, rc = -1;

	*cuts = NULL;
	*n_cuts = 0;
	if (kgraph_internal_edges(kg, verts, n, &cut, &n_edges))
		return -1;
	kgraph_rank_edges(kg, cut, n_edges, cmp_lightest_first, &err);
	if (err || !(bounds = tie_bounds(s, cut, n_edges, &n_ties)))
		goto out;
	size_t ties = n_edges ? cut_limit(s, &g, cut, n_edges, bounds, &why) : 0;
	rc = 0;
	if (ties == 0)
		goto out;
	cut_prefix(kg, cut, &now, bounds[ties - 1]);
	int sc = strongly_connected(kg, verts, n);
	if (sc != 0) {
		cut_prefix(kg, cut, &now, 0);   /* still one piece: cut nothing */
		rc = sc < 0 ? -1 : 0;
		goto out;
	}
	rc = -1;
	if (first_disconnecting_cut(kg, &g, cut, bounds, &now, ties, &k) ||
	    scc_compute(kg, verts, n, parts))
		goto out;
	struct piece rec = { 0 };
	if (record_removals(kg, &rec, cut, k)) {
		scc_fini(parts);
		goto out;
	}
	*cuts = rec.removed;
	*n_cuts = rec.n_removed;
	rc = 1;
out:
	free(bounds);
	free(cut);
	return rc;
}
