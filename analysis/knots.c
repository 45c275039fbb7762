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
 * round (knots-background.c), each round one search of what is left
 * (knots-round.c); the results and the work list are knots-results.c's.
 * This file owns the entry point: it sets the search up, runs it, weighs
 * the focus's waits and puts the findings in the report order.
 *
 * The files call one way: knots.c -> knots-background.c -> knots-round.c
 * -> knots-refine.c -> knots-graph.c, knots-results.c (knots-search.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/classify.h"
#include "wperf/knots.h"
#include "knots-search.h"


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
