/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-background.c — background knots (wperf-method(7) §7):
 * knots with no device that use less than one CPU over their time and
 * that the focus's work does not wait on.
 *
 * They are found after refinement, one round at a time: each round
 * analyses the graph without the vertices found background so far, from
 * scratch (cut edges come back), so a round costs what one search costs
 * (knots.c, search_round()), and every round but the last removes at
 * least one vertex.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/classify.h"
#include "knots-search.h"

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

/* Is v one of the threads the report is about (the focus; without one,
 * every thread but the tracer's)? */
static bool of_focus(const struct search *s, uint32_t v)
{
	const struct wperf_vertex *x = &s->kg.g->vertices[v];

	if (x->kind != WPERF_V_THREAD && x->kind != WPERF_V_VIRTUAL)
		return false;
	return s->focus ? s->focus[v] : !(s->opaque && s->opaque[v]);
}

static bool holds_focus(const struct search *s, const struct wperf_knot *k)
{
	for (size_t m = 0; m < k->n_members; m++)
		if (of_focus(s, k->members[m]))
			return true;
	return false;
}

/* Does anything outside k that the focus reaches wait on k, above the
 * noise floor? Then the focus waits on k, directly or through others. */
static bool waited_on(const struct search *s, const struct wperf_knot *k, bool *in_k)
{
	const struct wperf_graph *g = s->kg.g;
	bool found = false;

	for (size_t m = 0; m < k->n_members; m++)
		in_k[k->members[m]] = true;
	for (size_t i = 0; i < g->n_edges && !found; i++) {
		const struct wperf_edge *e = &g->edges[i];
		uint32_t from = e->from;

		found = in_k[e->to] && !in_k[from] && !s->gone[from] &&
			!(s->opaque && s->opaque[from]) && !(s->reach && !s->reach[from]) &&
			wperf_edge_is_dependency(g, e, s->min_weight_ns);
	}
	for (size_t m = 0; m < k->n_members; m++)
		in_k[k->members[m]] = false;
	return found;
}

/*
 * Background means the focus's throughput does not wait on the knot
 * (wperf-analysis(7), "Background knots"): of this round's knots that use
 * less than one CPU and hold no device (cand[i]), a knot is background
 * unless something the focus reaches waits on it, or it holds focus
 * threads and no other finding holds any that work (a knot or a sink not
 * paced by timers): then it is the focus's own work, however little CPU
 * a pair passing one request back and forth can use.
 */
static void keep_foreground(const struct search *s, bool *cand, bool *in_k)
{
	bool other_work = false;

	for (size_t i = 0; i < s->n_items && !other_work; i++)
		other_work = !cand[i] && holds_focus(s, &s->items[i]) &&
			     (s->items[i].kind != WPERF_SINK ||
			      wperf_sink_limit(s->kg.g, &s->items[i], NULL) == WPERF_LIMIT_WORK);
	for (size_t i = 0; i < s->n_items; i++)
		if (cand[i] && (waited_on(s, &s->items[i], in_k) ||
				(!other_work && holds_focus(s, &s->items[i]))))
			cand[i] = false;
}

/* Move this round's background knots to s->bg and mark their vertices
 * gone. *moved: how many. -1 on allocation failure. */
static int take_background(struct search *s, size_t *moved)
{
	const struct wperf_graph *g = s->kg.g;
	bool *cand = calloc(s->n_items ? s->n_items : 1, sizeof *cand);
	bool *in_k = calloc(g->n_vertices ? g->n_vertices : 1, sizeof *in_k);
	int rc = -1;

	*moved = 0;
	if (!cand || !in_k)
		goto out;
	for (size_t i = 0; i < s->n_items; i++)
		cand[i] = classify_background(g, &s->items[i]);
	keep_foreground(s, cand, in_k);
	for (size_t i = 0; i < s->n_items; i++) {
		struct wperf_knot *k = &s->items[i];
		if (!cand[i])
			continue;
		if (knots_grow((void **)&s->bg, &s->cap_bg, s->n_bg, sizeof *s->bg))
			goto out;
		k->kind = WPERF_BACKGROUND;
		for (size_t m = 0; m < k->n_members; m++)
			s->gone[k->members[m]] = true;
		s->bg[s->n_bg++] = *k;
		memset(k, 0, sizeof *k);  /* owned by s->bg now */
		(*moved)++;
	}
	if (*moved)
		drop_round(s);
	rc = 0;
out:
	free(cand);
	free(in_k);
	return rc;
}

/* Search, take out the background knots, search again without them, until
 * a round finds none; then its results and every background knot are the
 * answer. Every round but the last removes a vertex: at most V + 1. */
int search_all(struct search *s)
{
	size_t moved;

	do {
		if (search_round(s) || take_background(s, &moved))
			return -1;
	} while (moved > 0);
	for (size_t i = 0; i < s->n_bg; i++) {
		struct wperf_knot *k = search_push_item(s);
		if (!k)
			return -1;
		*k = s->bg[i];
		memset(&s->bg[i], 0, sizeof s->bg[i]);
	}
	return 0;
}

