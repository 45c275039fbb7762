/* SPDX-License-Identifier: MIT */
/*
 * clocksync.c — the convex-hull clock transform between two hosts
 * (wperf/clocksync.h): owns the hulls, the bounding lines and the
 * accuracy of one host pair's transform.
 *
 * Points are moved to an origin inside the data (the smallest x and y)
 * so coordinates are differences of at most a few hours in ns; the hull
 * tests use exact 128-bit cross products, the slopes long double.
 */
#include "wperf/clocksync.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

__extension__ typedef __int128 i128;

/* A point relative to the origin. */
struct pt {
	int64_t x, y;
};

/* A line y = a*x + b in origin coordinates. */
struct line {
	long double a, b;
	bool set;
};

/* > 0 when o->p->q turns left (counter-clockwise). */
static i128 cross(struct pt o, struct pt p, struct pt q)
{
	return (i128)(p.x - o.x) * (q.y - o.y) - (i128)(p.y - o.y) * (q.x - o.x);
}

static int by_x(const void *a, const void *b)
{
	const struct pt *p = a, *q = b;

	if (p->x != q->x)
		return p->x < q->x ? -1 : 1;
	return (p->y > q->y) - (p->y < q->y);
}

/* Replace pts[0..n) (sorted by x) with its lower hull (lower = true) or
 * upper hull; the hull's size. For one x, only the lowest (lower hull) or
 * highest (upper hull) point can bind, and the chain keeps that one. */
static size_t hull(struct pt *pts, size_t n, bool lower)
{
	size_t h = 0;

	for (size_t i = 0; i < n; i++) {
		struct pt p = pts[i];

		if (h > 0 && pts[h - 1].x == p.x) {
			if (lower)
				continue;   /* sorted by y: the first is the lowest */
			h--;                /* the last is the highest */
		}
		while (h >= 2 && (lower ? cross(pts[h - 2], pts[h - 1], p) <= 0
					: cross(pts[h - 2], pts[h - 1], p) >= 0))
			h--;
		pts[h++] = p;
	}
	return h;
}

/* The line through p and q (p.x != q.x). */
static struct line through(struct pt p, struct pt q)
{
	long double a = (long double)(q.y - p.y) / (long double)(q.x - p.x);

	return (struct line){ .a = a, .b = (long double)p.y - a * (long double)p.x, .set = true };
}

/*
 * The steepest feasible line (a pair l, u with u.x > l.x: slope at most
 * (u.y - l.y) / (u.x - l.x); the smallest such bound) and the flattest
 * (pairs with l.x > u.x; the largest lower bound). -1 when a pair at the
 * same x has its receive before its send (nothing is feasible).
 */
static int bounding_lines(const struct pt *u, size_t nu, const struct pt *l, size_t nl,
			  struct line *steep, struct line *flat)
{
	*steep = *flat = (struct line){ 0 };
	for (size_t i = 0; i < nu; i++) {
		for (size_t j = 0; j < nl; j++) {
			if (u[i].x == l[j].x) {
				if (u[i].y < l[j].y)
					return -1;
				continue;
			}
			struct line t = u[i].x > l[j].x ? through(l[j], u[i]) : through(u[i], l[j]);

			if (u[i].x > l[j].x && (!steep->set || t.a < steep->a))
				*steep = t;
			else if (u[i].x < l[j].x && (!flat->set || t.a > flat->a))
				*flat = t;
		}
	}
	return 0;
}

/* Does the line keep every u on or above it and every l on or below it
 * (within rounding)? */
static bool feasible(struct line ln, const struct pt *u, size_t nu, const struct pt *l, size_t nl)
{
	const long double eps = 1e-6L;

	for (size_t i = 0; i < nu; i++)
		if ((long double)u[i].y < ln.a * (long double)u[i].x + ln.b - eps)
			return false;
	for (size_t j = 0; j < nl; j++)
		if ((long double)l[j].y > ln.a * (long double)l[j].x + ln.b + eps)
			return false;
	return true;
}

/* How far from `ln` at x any feasible line can be: the feasible set's
 * extremes are lines through two hull points, so try them all. */
static long double spread_at(struct line ln, long double x, const struct pt *u, size_t nu,
			     const struct pt *l, size_t nl)
{
	size_t n = nu + nl;
	long double worst = 0;

	for (size_t i = 0; i < n; i++) {
		struct pt p = i < nu ? u[i] : l[i - nu];

		for (size_t j = i + 1; j < n; j++) {
			struct pt q = j < nu ? u[j] : l[j - nu];

			if (p.x == q.x)
				continue;
			struct line t = through(p, q);

			if (!feasible(t, u, nu, l, nl))
				continue;
			long double d = fabsl((t.a - ln.a) * x + (t.b - ln.b));

			if (d > worst)
				worst = d;
		}
	}
	return worst;
}

/* Both bounding lines exist: their mean, ACCURATE (or FAIL when the
 * flattest is steeper than the steepest). */
static enum wperf_sync_quality mean_line(struct line steep, struct line flat, struct line *out)
{
	if (flat.a > steep.a)
		return WPERF_SYNC_FAIL;
	*out = (struct line){ (steep.a + flat.a) / 2, (steep.b + flat.b) / 2, true };
	return WPERF_SYNC_ACCURATE;
}

/* One bound only: slope 1 within it, and the middle of the offsets that
 * keep every message the right way at that slope. */
static enum wperf_sync_quality unit_slope(struct line steep, struct line flat, const struct pt *u,
					  size_t nu, const struct pt *l, size_t nl,
					  struct line *out)
{
	long double lo = -INFINITY, hi = INFINITY;

	if ((steep.set && steep.a < 1) || (flat.set && flat.a > 1))
		return WPERF_SYNC_FAIL;
	for (size_t i = 0; i < nu; i++)
		hi = fminl(hi, (long double)(u[i].y - u[i].x));
	for (size_t j = 0; j < nl; j++)
		lo = fmaxl(lo, (long double)(l[j].y - l[j].x));
	if (lo > hi)
		return WPERF_SYNC_FAIL;
	*out = (struct line){ 1, (lo + hi) / 2, true };
	return WPERF_SYNC_APPROXIMATE;
}

/* Copy points to origin coordinates, sorted by x. */
static struct pt *relative(const struct wperf_sync_point *src, size_t n, int64_t ox, int64_t oy)
{
	struct pt *p = malloc((n ? n : 1) * sizeof(*p));

	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++)
		p[i] = (struct pt){ src[i].x - ox, src[i].y - oy };
	qsort(p, n, sizeof(*p), by_x);
	return p;
}

static void span(const struct wperf_sync_point *ab, size_t n_ab, const struct wperf_sync_point *ba,
		 size_t n_ba, struct wperf_clock_sync *s, int64_t *min_y)
{
	s->first_x = n_ab ? ab[0].x : ba[0].x;
	s->last_x = s->first_x;
	*min_y = n_ab ? ab[0].y : ba[0].y;
	for (size_t i = 0; i < n_ab + n_ba; i++) {
		const struct wperf_sync_point *p = i < n_ab ? &ab[i] : &ba[i - n_ab];

		if (p->x < s->first_x)
			s->first_x = p->x;
		if (p->x > s->last_x)
			s->last_x = p->x;
		if (p->y < *min_y)
			*min_y = p->y;
	}
}

/* The result in absolute coordinates, and its accuracy. */
static void finish(struct wperf_clock_sync *s, struct line ln, int64_t oy, const struct pt *u,
		   size_t nu, const struct pt *l, size_t nl)
{
	int64_t ox = s->first_x;
	long double e0 = spread_at(ln, 0, u, nu, l, nl);
	long double e1 = spread_at(ln, (long double)(s->last_x - ox), u, nu, l, nl);

	s->alpha = ln.a;
	s->anchor_x = ox;
	s->anchor_y = (long double)oy + ln.b;
	s->beta = s->anchor_y - ln.a * (long double)ox;
	s->accuracy_ns = (double)fmaxl(e0, e1);
}

int wperf_clock_sync_compute(const struct wperf_sync_point *ab, size_t n_ab,
			     const struct wperf_sync_point *ba, size_t n_ba,
			     struct wperf_clock_sync *out)
{
	struct wperf_clock_sync s = { .alpha = 1, .alpha_min = 1, .alpha_max = 1,
				      .n_ab = n_ab, .n_ba = n_ba };
	struct line steep = { 0 }, flat = { 0 }, ln = { 0 };
	int64_t oy;

	if (n_ab + n_ba == 0) {
		*out = s;
		return 0;
	}
	span(ab, n_ab, ba, n_ba, &s, &oy);
	s.anchor_x = s.first_x;
	struct pt *u = relative(ab, n_ab, s.first_x, oy);
	struct pt *l = relative(ba, n_ba, s.first_x, oy);

	if (!u || !l) {
		free(u);
		free(l);
		return -1;
	}
	s.hull_ab = hull(u, n_ab, true);
	s.hull_ba = hull(l, n_ba, false);
	if (!n_ab || !n_ba)
		s.quality = WPERF_SYNC_INCOMPLETE;
	else if (bounding_lines(u, s.hull_ab, l, s.hull_ba, &steep, &flat) < 0)
		s.quality = WPERF_SYNC_FAIL;
	else if (steep.set && flat.set)
		s.quality = mean_line(steep, flat, &ln);
	else
		s.quality = unit_slope(steep, flat, u, s.hull_ab, l, s.hull_ba, &ln);
	if (n_ab && n_ba && s.quality != WPERF_SYNC_FAIL) {
		s.alpha_max = steep.set ? steep.a : INFINITY;
		s.alpha_min = flat.set ? flat.a : -INFINITY;
	}
	if (s.quality == WPERF_SYNC_ACCURATE || s.quality == WPERF_SYNC_APPROXIMATE)
		finish(&s, ln, oy, u, s.hull_ab, l, s.hull_ba);
	free(u);
	free(l);
	*out = s;
	return 0;
}

int64_t wperf_clock_sync_apply(const struct wperf_clock_sync *s, int64_t x)
{
	return (int64_t)llroundl(s->anchor_y + s->alpha * (long double)(x - s->anchor_x));
}

/* ------------------------------------------------------------ several hosts */

static bool links(const struct wperf_clock_sync *s)
{
	return s->quality == WPERF_SYNC_ACCURATE || s->quality == WPERF_SYNC_APPROXIMATE;
}

/* Time t of host `from` (one of pair p's two) on the other's clock. */
static long double across(const struct wperf_clock_pair *p, unsigned from, long double t)
{
	const struct wperf_clock_sync *s = p->sync;

	if (from == p->a)
		return s->anchor_y + s->alpha * (t - (long double)s->anchor_x);
	return (long double)s->anchor_x + (t - s->anchor_y) / s->alpha;
}

/* The placement of p's other host through host u (placed at *pu): the
 * chain to u, then p. The composed line is anchored at the reference's
 * time where the chain's first pair is (its first match), so it is
 * applied to differences of a few seconds, never to 1e18 ns. */
static struct wperf_clock_place through_pair(const struct wperf_clock_place *pu, unsigned u,
					     const struct wperf_clock_pair *p)
{
	const struct wperf_clock_sync *s = p->sync;
	struct wperf_clock_place v = { .placed = true, .prev = u, .hops = pu->hops + 1,
				       .accuracy_ns = pu->accuracy_ns + s->accuracy_ns };
	long double x;

	if (pu->hops == 0) {
		/* u is the reference: anchor at the pair's own anchor. */
		v.anchor_x = u == p->a ? s->anchor_x : (int64_t)llroundl(s->anchor_y);
		x = (long double)v.anchor_x;
	} else {
		v.anchor_x = pu->anchor_x;
		x = pu->anchor_y;
	}
	v.anchor_y = across(p, u, x);
	v.alpha = pu->alpha * (u == p->a ? s->alpha : 1 / s->alpha);
	return v;
}

/* The placed host not settled yet with the smallest (accuracy, hops),
 * the first of equals; -1 when none is left. */
static int nearest(const struct wperf_clock_place *out, const bool *settled, unsigned n)
{
	int best = -1;

	for (unsigned h = 0; h < n; h++) {
		if (!out[h].placed || settled[h])
			continue;
		if (best < 0 || out[h].accuracy_ns < out[best].accuracy_ns ||
		    (out[h].accuracy_ns == out[best].accuracy_ns && out[h].hops < out[best].hops))
			best = (int)h;
	}
	return best;
}

/* Dijkstra's shortest paths, the accuracies as the lengths: each host is
 * settled with its tightest chain before any chain through it is tried. */
int wperf_clock_tree(const struct wperf_clock_pair *pairs, size_t npairs, unsigned nhosts,
		     unsigned ref, struct wperf_clock_place *out)
{
	bool *settled;
	int u;

	if (ref >= nhosts)
		return -1;
	for (size_t k = 0; k < npairs; k++)
		if (pairs[k].a >= nhosts || pairs[k].b >= nhosts || pairs[k].a == pairs[k].b)
			return -1;
	if (!(settled = calloc(nhosts, sizeof(*settled))))
		return -1;
	for (unsigned h = 0; h < nhosts; h++)
		out[h] = (struct wperf_clock_place){ .prev = h, .alpha = 1 };
	out[ref].placed = true;
	while ((u = nearest(out, settled, nhosts)) >= 0) {
		settled[u] = true;
		for (size_t k = 0; k < npairs; k++) {
			const struct wperf_clock_pair *p = &pairs[k];
			unsigned v = p->a == (unsigned)u ? p->b : p->a;
			struct wperf_clock_place c;

			if ((p->a != (unsigned)u && p->b != (unsigned)u) || settled[v] ||
			    !links(p->sync))
				continue;
			c = through_pair(&out[u], (unsigned)u, p);
			if (!out[v].placed || c.accuracy_ns < out[v].accuracy_ns ||
			    (c.accuracy_ns == out[v].accuracy_ns && c.hops < out[v].hops))
				out[v] = c;
		}
	}
	free(settled);
	return 0;
}

int64_t wperf_clock_place_apply(const struct wperf_clock_place *p, int64_t x)
{
	return (int64_t)llroundl(p->anchor_y + p->alpha * (long double)(x - p->anchor_x));
}

int64_t wperf_clock_place_invert(const struct wperf_clock_place *p, int64_t y)
{
	return p->anchor_x + (int64_t)llroundl(((long double)y - p->anchor_y) / p->alpha);
}

const char *wperf_sync_quality_name(enum wperf_sync_quality q)
{
	switch (q) {
	case WPERF_SYNC_ABSENT: return "absent";
	case WPERF_SYNC_INCOMPLETE: return "incomplete";
	case WPERF_SYNC_APPROXIMATE: return "approximate";
	case WPERF_SYNC_ACCURATE: return "accurate";
	case WPERF_SYNC_FAIL: return "fail";
	}
	return "?";
}
