/* SPDX-License-Identifier: MIT */
/*
 * wperf/clocksync.h — the clock transform between two hosts from matched
 * messages, by the convex-hull method (Duda et al.; the "fully
 * incremental" algorithm of Jabbarifar, Dagenais and Shameli-Sendi that
 * Trace Compass uses, here computed exactly over all matches at once).
 *
 * Host A is the reference. A message sent on A at x and received on B at
 * y is the point (x, y); one sent on B at y and received on A at x is the
 * point (x, y) too. If B's clock reads f(t) = alpha*t + beta when A's
 * reads t, every message is received after it is sent: the A->B points
 * lie above the line y = f(x), the B->A points below it. The lines that
 * keep both sets on their sides (the feasible lines) are bounded by the
 * steepest one (alpha_max) and the flattest one (alpha_min), each through
 * a point of the A->B set's lower hull and one of the B->A set's upper
 * hull; the result is their mean (alpha and beta averaged, as Trace
 * Compass does), itself feasible since the feasible set is convex: after
 * the transform no matched message is received before it was sent.
 *
 * Accuracy: over the span of the matches, every transform the matches
 * allow stays within `accuracy_ns` of the result (the exact feasible
 * range at the span's first and last match, where a difference of two
 * lines is largest). That bounds the error if the clocks drift linearly
 * over the span and the matches are right.
 */
#ifndef WPERF_CLOCKSYNC_H
#define WPERF_CLOCKSYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A matched message: x on host A's clock, y on host B's (ns). */
struct wperf_sync_point {
	int64_t x, y;
};

enum wperf_sync_quality {
	WPERF_SYNC_ABSENT,      /* no matches */
	WPERF_SYNC_INCOMPLETE,  /* matches one way only: no offset can be bounded */
	WPERF_SYNC_APPROXIMATE, /* both ways, but the slope is bounded on one side
				 * only: alpha is taken as 1 */
	WPERF_SYNC_ACCURATE,    /* both ways, slope bounded on both sides */
	WPERF_SYNC_FAIL,        /* no line keeps every send before its receive:
				 * a clock jumped or matches are wrong */
};

struct wperf_clock_sync {
	enum wperf_sync_quality quality;
	/* B's time from A's: y = alpha * x + beta (ns). beta is large when
	 * alpha is not 1 (the line is anchored at time 0): use
	 * wperf_clock_sync_apply. */
	long double alpha, beta;
	long double alpha_min, alpha_max;  /* the bounding lines' slopes */
	double accuracy_ns;     /* see above; 0 unless APPROXIMATE or ACCURATE */
	size_t n_ab, n_ba;      /* matches each way */
	size_t hull_ab, hull_ba; /* points on the two hulls */
	int64_t first_x, last_x; /* the span of the matches on A's clock */
	/* The same line anchored in the span (what apply uses: no rounding
	 * of a product of two large numbers): y(anchor_x) = anchor_y. */
	int64_t anchor_x;
	long double anchor_y;
};

/* Compute the transform; 0, or -1 when out of memory (out untouched). */
int wperf_clock_sync_compute(const struct wperf_sync_point *ab, size_t n_ab,
			     const struct wperf_sync_point *ba, size_t n_ba,
			     struct wperf_clock_sync *out);

/* B's time for A's time x (ns, rounded to the nearest). */
int64_t wperf_clock_sync_apply(const struct wperf_clock_sync *s, int64_t x);

/*
 * Several hosts: each placed on the reference host's time through a chain
 * of synchronised pairs (a spanning tree). A database that talks only to
 * the front end, and the front end to the client, is placed on the
 * client's time through the front end: the transforms along the chain
 * composed exactly (slopes multiplied, each applied to the previous one's
 * result), their accuracies added (the truth of each pair is within its
 * bound over its span, so the composed truth is within their sum, up to
 * the ppm by which a later slope scales an earlier bound). Of all chains,
 * the one with the smallest sum (then the fewest pairs) is taken: a
 * direct pair is used unless a chain through others is tighter.
 */

/* The transform of host pair (a, b): t(b) = sync->alpha * t(a) + beta.
 * Only pairs of quality ACCURATE or APPROXIMATE link their hosts. */
struct wperf_clock_pair {
	unsigned a, b;
	const struct wperf_clock_sync *sync;
};

/* A host's clock on the reference's. */
struct wperf_clock_place {
	bool placed;            /* false: no chain of synchronised pairs reaches it */
	unsigned prev;          /* the host before it on its chain (the reference: itself) */
	unsigned hops;          /* pairs on the chain (0: the reference) */
	long double alpha;      /* its clock's rate against the reference's */
	int64_t anchor_x;       /* a time of the reference's (the first pair's first match) */
	long double anchor_y;   /* its time then: y = anchor_y + alpha * (x - anchor_x) */
	double accuracy_ns;     /* the pairs' accuracies added along the chain */
};

/* Place hosts 0..nhosts-1 on host ref's time from the npairs pairs;
 * out[nhosts]. 0, or -1 when an argument is out of range (a host index
 * >= nhosts, a pair of a host with itself). */
int wperf_clock_tree(const struct wperf_clock_pair *pairs, size_t npairs, unsigned nhosts,
		     unsigned ref, struct wperf_clock_place *out);

/* The host's time for the reference's time x (ns, rounded), and the
 * reference's time for the host's time y. */
int64_t wperf_clock_place_apply(const struct wperf_clock_place *p, int64_t x);
int64_t wperf_clock_place_invert(const struct wperf_clock_place *p, int64_t y);

/* "absent", "incomplete", "approximate", "accurate", "fail". */
const char *wperf_sync_quality_name(enum wperf_sync_quality q);

#endif /* WPERF_CLOCKSYNC_H */
