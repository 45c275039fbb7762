/* SPDX-License-Identifier: MIT */
/*
 * timeline.c — each thread's running / runnable / waiting spans, kept for
 * the HTML report's timeline (wperf/graph.h, struct wperf_timeline) within
 * a fixed bound per thread, whatever the length of the trace.
 *
 * A timeline starts exact: one span per stretch of one state, neighbours
 * in the same state (and waiting for the same vertex) joined, so a
 * hand-built scenario reads back exactly. When a thread changes state for
 * the WPERF_TIMELINE_SPANS-th time (or a span arrives out of order) it is
 * folded: its spans become equal time buckets from the first span's start,
 * each holding the time spent in each state inside it and the vertex
 * waited for most; when time runs past the last bucket, neighbouring
 * buckets are added pairwise and the width doubles. Memory is thus at
 * most WPERF_TIMELINE_SPANS spans (7 KiB) per thread, and the picture of
 * a long trace has the resolution of its duration / 64 at worst.
 *
 * The store at the bottom keeps one timeline per vertex id during the
 * analysis (analysis.c feeds it every closed segment) and hands the array
 * over to the graph when it is finished.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "timeline.h"

#define NO_TARGET UINT32_MAX

static void span_clear(struct wperf_span *s, int64_t start, int64_t end)
{
	memset(s, 0, sizeof *s);
	s->start_ns = start;
	s->end_ns = end;
	s->target = NO_TARGET;
}

/* The vertex waited for most: the same one adds up; another one replaces
 * it when it alone weighs more (the heaviest met, exact for one target). */
static void add_target(struct wperf_span *s, uint32_t target, int64_t ns)
{
	if (target == NO_TARGET || ns <= 0)
		return;
	if (s->target == target) {
		s->target_ns += ns;
	} else if (ns > s->target_ns) {
		s->target = target;
		s->target_ns = ns;
	}
}

enum wperf_span_state wperf_span_dominant(const struct wperf_span *s)
{
	enum wperf_span_state best = WPERF_SPAN_STATES;
	int64_t best_ns = 0;

	for (int i = 0; i < WPERF_SPAN_STATES; i++)
		if (s->ns[i] > best_ns) {
			best_ns = s->ns[i];
			best = (enum wperf_span_state)i;
		}
	return best;
}

void wperf_timeline_fini(struct wperf_timeline *t)
{
	free(t->spans);
	memset(t, 0, sizeof *t);
}

/* ---- folded timelines: equal buckets from spans[0].start_ns ---- */

static int64_t origin(const struct wperf_timeline *t)
{
	return t->spans[0].start_ns;
}

/* Add the buckets pairwise and double the width. */
static void fold_pairs(struct wperf_timeline *t)
{
	int64_t o = origin(t), w = t->width_ns * 2;
	uint32_t n = (t->n + 1) / 2;

	for (uint32_t j = 0; j < n; j++) {
		struct wperf_span a = t->spans[2 * j];
		struct wperf_span *d = &t->spans[j];

		span_clear(d, o + (int64_t)j * w, o + (int64_t)(j + 1) * w);
		for (int k = 0; k < WPERF_SPAN_STATES; k++)
			d->ns[k] = a.ns[k];
		add_target(d, a.target, a.target_ns);
		if (2 * j + 1 < t->n) {
			const struct wperf_span *b = &t->spans[2 * j + 1];

			for (int k = 0; k < WPERF_SPAN_STATES; k++)
				d->ns[k] += b->ns[k];
			add_target(d, b->target, b->target_ns);
		}
	}
	t->n = n;
	t->width_ns = w;
}

/* Make the buckets reach `end`, widening them as needed. */
static void cover(struct wperf_timeline *t, int64_t end)
{
	int64_t o = origin(t);

	while (end - o > (int64_t)WPERF_TIMELINE_SPANS * t->width_ns)
		fold_pairs(t);
	while (t->n < WPERF_TIMELINE_SPANS && o + (int64_t)t->n * t->width_ns < end) {
		span_clear(&t->spans[t->n], o + (int64_t)t->n * t->width_ns,
			   o + (int64_t)(t->n + 1) * t->width_ns);
		t->n++;
	}
}

/* part * num / den without overflow (den > 0). */
static int64_t scale(int64_t part, int64_t num, int64_t den)
{
	return (int64_t)((__int128)part * num / den);
}

/*
 * Spread ns[] (and target_ns), spent over [start, end), on the buckets in
 * proportion to their overlap; the last bucket gets what rounding left,
 * so the totals are kept. One state over its own length lands exactly.
 */
static void spread(struct wperf_timeline *t, int64_t start, int64_t end,
		   const int64_t ns[WPERF_SPAN_STATES], uint32_t target, int64_t target_ns)
{
	int64_t o = origin(t), len = end - start, given[WPERF_SPAN_STATES] = { 0 }, tgiven = 0;

	if (start < o)
		start = o;         /* before the first span: cannot happen in time order */
	if (end <= start || len <= 0)
		return;
	cover(t, end);
	size_t first = (size_t)((start - o) / t->width_ns);
	size_t last = (size_t)((end - 1 - o) / t->width_ns);

	for (size_t i = first; i <= last && i < t->n; i++) {
		struct wperf_span *b = &t->spans[i];
		int64_t lo = start > b->start_ns ? start : b->start_ns;
		int64_t hi = end < b->end_ns ? end : b->end_ns;
		bool final = i == last || i + 1 == t->n;

		for (int k = 0; k < WPERF_SPAN_STATES; k++) {
			int64_t part = final ? ns[k] - given[k] : scale(ns[k], hi - lo, len);

			b->ns[k] += part;
			given[k] += part;
		}
		int64_t tpart = final ? target_ns - tgiven : scale(target_ns, hi - lo, len);

		add_target(b, target, tpart);
		tgiven += tpart;
	}
}

/* Turn the spans into buckets starting at `from` (<= the first span). */
static int refold(struct wperf_timeline *t, int64_t from)
{
	struct wperf_span *old = t->spans, *fresh = malloc(WPERF_TIMELINE_SPANS * sizeof *fresh);
	uint32_t n = t->n;

	if (!fresh)
		return -1;
	t->spans = fresh;
	t->cap = WPERF_TIMELINE_SPANS;
	t->width_ns = 1;
	t->n = 1;
	span_clear(&fresh[0], from, from + 1);
	for (uint32_t i = 0; i < n; i++)
		spread(t, old[i].start_ns, old[i].end_ns, old[i].ns, old[i].target,
		       old[i].target_ns);
	free(old);
	return 0;
}

/* ---- adding ---- */

static int add_exact(struct wperf_timeline *t, enum wperf_span_state state, int64_t start,
		     int64_t end, uint32_t target)
{
	struct wperf_span *last = t->n ? &t->spans[t->n - 1] : NULL;
	int64_t d = end - start;

	if (last && last->end_ns == start && last->ns[state] == last->end_ns - last->start_ns &&
	    last->target == target) {
		last->end_ns = end;
		last->ns[state] += d;
		last->target_ns += target == NO_TARGET ? 0 : d;
		return 0;
	}
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 8;
		struct wperf_span *p = realloc(t->spans, cap * sizeof *p);

		if (!p)
			return -1;
		t->spans = p;
		t->cap = cap;
	}
	struct wperf_span *s = &t->spans[t->n++];

	span_clear(s, start, end);
	s->ns[state] = d;
	add_target(s, target, d);
	return 0;
}

int wperf_timeline_add(struct wperf_timeline *t, enum wperf_span_state state, int64_t start,
		       int64_t end, uint32_t target)
{
	int64_t ns[WPERF_SPAN_STATES] = { 0 };

	if ((unsigned)state >= WPERF_SPAN_STATES || end <= start)
		return 0;
	if (state != WPERF_SPAN_WAITING)
		target = NO_TARGET;
	if (t->width_ns == 0) {
		bool in_order = t->n == 0 || start >= t->spans[t->n - 1].end_ns;

		if (in_order && (t->n < WPERF_TIMELINE_SPANS ||
				 (t->spans[t->n - 1].end_ns == start &&
				  t->spans[t->n - 1].target == target &&
				  t->spans[t->n - 1].ns[state] ==
				  t->spans[t->n - 1].end_ns - t->spans[t->n - 1].start_ns)))
			return add_exact(t, state, start, end, target);
		if (refold(t, t->n && t->spans[0].start_ns < start ? t->spans[0].start_ns
								      : start) < 0)
			return -1;
	}
	ns[state] = end - start;
	if (start < origin(t) && refold(t, start) < 0)
		return -1;
	spread(t, start, end, ns, target, state == WPERF_SPAN_WAITING ? end - start : 0);
	return 0;
}

int wperf_timeline_absorb(struct wperf_timeline *dst, const struct wperf_timeline *src,
			  const uint32_t *map, size_t n_map)
{
	if (!src || src->n == 0)
		return 0;
	int64_t from = src->spans[0].start_ns;

	if (dst->n && dst->spans[0].start_ns < from)
		from = dst->spans[0].start_ns;
	if ((dst->width_ns == 0 || (dst->n && from < origin(dst)) || dst->n == 0) &&
	    refold(dst, from) < 0)
		return -1;
	for (uint32_t i = 0; i < src->n; i++) {
		const struct wperf_span *s = &src->spans[i];
		uint32_t target = s->target < n_map && map ? map[s->target] : s->target;

		spread(dst, s->start_ns, s->end_ns, s->ns, target, s->target_ns);
	}
	return 0;
}

/* ---- the analysis's store, by vertex id ---- */

void timeline_store_add(struct timeline_store *s, uint32_t v, enum wperf_span_state state,
			int64_t start, int64_t end, uint32_t target)
{
	if (!array_reserve_index((void **)&s->t, &s->n, v, 256, sizeof *s->t) ||
	    wperf_timeline_add(&s->t[v], state, start, end, target) < 0)
		s->oom = true;
}

struct wperf_timeline *timeline_store_take(struct timeline_store *s, size_t n_vertices)
{
	struct wperf_timeline *t = s->t;

	/* One per vertex, also for the vertices that had no segment. */
	if (n_vertices && !array_reserve_index((void **)&t, &s->n, n_vertices - 1, 256,
					       sizeof *t))
		return NULL;
	s->t = NULL;
	s->n = 0;
	return t;
}

void timeline_store_fini(struct timeline_store *s)
{
	for (size_t i = 0; i < s->n; i++)
		wperf_timeline_fini(&s->t[i]);
	free(s->t);
	memset(s, 0, sizeof *s);
}

void wperf_timelines_free(struct wperf_timeline *t, size_t n)
{
	for (size_t i = 0; t && i < n; i++)
		wperf_timeline_fini(&t[i]);
	free(t);
}
