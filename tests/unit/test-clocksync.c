/* SPDX-License-Identifier: MIT */
/*
 * test-clocksync.c — TCP matching across hosts (analysis/netmatch.c) and
 * the convex-hull clock transform (analysis/clocksync.c), on hand-made
 * matches whose answer is known: exact lines, hulls and accuracy on a
 * small case worked out by hand, and a known offset (5.000123 s) and
 * drift (100 ppm) recovered from synthetic messages at real-trace
 * magnitudes (1.36e18 ns).
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "wperf/clocksync.h"
#include "wperf/netmatch.h"

#define CHECK_NEAR(got, want, tol) do { \
	long double g_ = (got), w_ = (want); \
	if (fabsl(g_ - w_) > (tol)) { \
		fprintf(stderr, "# %s:%d: %s is %.12Lg, want %.12Lg (within %g)\n", \
			__FILE__, __LINE__, #got, g_, w_, (double)(tol)); \
		check_test_failures++; \
	} \
} while (0)

/* Worked by hand. A->B (above the line): u1 (0, 100), u2 (1000, 1300);
 * B->A (below): l1 (200, 150), l2 (1200, 1300). The steepest feasible
 * line goes through l1 and u2 (slope 1150/800 = 1.4375, b -137.5), the
 * flattest through u1 and l2 (slope 1, b 100): the mean is 1.21875x -
 * 18.75. The feasible lines through two points are those two and (u1,
 * u2) 1.2x + 100, (l1, l2) 1.15x - 80: at x = 1200 they span 1300 ..
 * 1587.5 around 1443.75, so the accuracy is 143.75 (118.75 at x = 0). */
static void hand_case(void)
{
	struct wperf_sync_point ab[] = { { 1000, 1300 }, { 0, 100 } };
	struct wperf_sync_point ba[] = { { 200, 150 }, { 1200, 1300 } };
	struct wperf_clock_sync s;

	REQUIRE_INT(wperf_clock_sync_compute(ab, 2, ba, 2, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "accurate");
	CHECK_NEAR(s.alpha_max, 1.4375L, 1e-15);
	CHECK_NEAR(s.alpha_min, 1.0L, 1e-15);
	CHECK_NEAR(s.alpha, 1.21875L, 1e-15);
	CHECK_NEAR(s.beta, -18.75L, 1e-12);
	CHECK_NEAR(s.accuracy_ns, 143.75L, 1e-9);
	CHECK_INT(s.hull_ab, 2);
	CHECK_INT(s.hull_ba, 2);
	CHECK_INT(s.first_x, 0);
	CHECK_INT(s.last_x, 1200);
	CHECK_INT(wperf_clock_sync_apply(&s, 1200), 1444);   /* 1443.75 */
}

/* B's clock: 100 ppm fast and 5.000123 s ahead of A's. */
#define T0 INT64_C(1361214078000000000)
#define BETA INT64_C(5000123000)
static int64_t truth(int64_t t)
{
	return t + t / 10000 + BETA;   /* t is a multiple of 10,000 ns */
}

/* n messages each way every 10 ms from T0, with one-way delays d (in
 * A's time).
 * A->B sent at x: (x, truth(x + d(i))); B->A received at x:
 * (x, truth(x - d(i + shift))). */
static void synthetic(struct wperf_sync_point *ab, struct wperf_sync_point *ba, int n,
		      int64_t (*delay)(int), int shift)
{
	for (int i = 0; i < n; i++) {
		int64_t x = T0 + (int64_t)i * 10000000;

		ab[i] = (struct wperf_sync_point){ x, truth(x + delay(i)) };
		ba[i] = (struct wperf_sync_point){ x, truth(x - delay(i + shift)) };
	}
}

static int64_t fifth_fast(int i)
{
	return 20000 + 10000 * (i % 5 ? 1 + (i * 7) % 4 : 0);
}

/* Every fifth message at the minimum delay, the first and the last
 * included, the same positions both ways: the hulls are the two end
 * points of each side, the bounding lines cross symmetrically, and their
 * mean is the truth itself. A feasible line can be off by one minimum
 * delay on B's clock (20 us * 1.0001) at the ends: the accuracy. */
static void known_drift(void)
{
	enum { N = 1001 };   /* 10 s; 0 and 1000 are multiples of 5 */
	static struct wperf_sync_point ab[N], ba[N];
	struct wperf_clock_sync s;

	synthetic(ab, ba, N, fifth_fast, 0);
	REQUIRE_INT(wperf_clock_sync_compute(ab, N, ba, N, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "accurate");
	CHECK_INT(s.n_ab, N);
	CHECK_INT(s.n_ba, N);
	CHECK_INT(s.hull_ab, 2);
	CHECK_INT(s.hull_ba, 2);
	CHECK_NEAR(s.alpha, 1.0001L, 1e-15);
	CHECK_NEAR(s.accuracy_ns, 20002.0L, 1e-3);
	for (int i = 0; i < N; i += 100)
		CHECK_NEAR((long double)wperf_clock_sync_apply(&s, ab[i].x),
			   (long double)truth(ab[i].x), 1.0L);
	CHECK_NEAR(s.beta, (long double)BETA, 1.0L);
	CHECK(s.alpha_min < 1.0001L && 1.0001L < s.alpha_max);
}

static int64_t uneven(int i)
{
	return 15000 + (int64_t)((i * 2654435761u) % 90000u);
}

/* Delays with no pattern: the truth is still within the stated accuracy
 * at both ends of the span (so everywhere in it), and after the
 * transform no message arrives before it was sent. */
static void truth_within_accuracy(void)
{
	enum { N = 500 };
	static struct wperf_sync_point ab[N], ba[N];
	struct wperf_clock_sync s;

	synthetic(ab, ba, N, uneven, 7);
	REQUIRE_INT(wperf_clock_sync_compute(ab, N, ba, N, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "accurate");
	CHECK(s.accuracy_ns > 0 && s.accuracy_ns < 90000);
	CHECK(llabs(wperf_clock_sync_apply(&s, s.first_x) - truth(s.first_x)) <= s.accuracy_ns + 1);
	CHECK(llabs(wperf_clock_sync_apply(&s, s.last_x) - truth(s.last_x)) <= s.accuracy_ns + 1);
	CHECK(s.alpha_min <= 1.0001L && 1.0001L <= s.alpha_max);
	for (int i = 0; i < N; i++) {
		CHECK(wperf_clock_sync_apply(&s, ab[i].x) <= ab[i].y + 1);
		CHECK(wperf_clock_sync_apply(&s, ba[i].x) >= ba[i].y - 1);
	}
}

/* A B->A message received before an A->B one that left later, relative
 * to the rest: no line keeps both right. One way only bounds nothing. */
static void fail_and_incomplete(void)
{
	struct wperf_sync_point ab[] = { { 0, 100 }, { 1000, 1100 } };
	struct wperf_sync_point ba[] = { { 500, 700 } };
	struct wperf_clock_sync s;

	REQUIRE_INT(wperf_clock_sync_compute(ab, 2, ba, 1, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "fail");
	CHECK_INT(s.accuracy_ns, 0);
	REQUIRE_INT(wperf_clock_sync_compute(ab, 2, NULL, 0, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "incomplete");
	REQUIRE_INT(wperf_clock_sync_compute(NULL, 0, NULL, 0, &s), 0);
	CHECK_STR(wperf_sync_quality_name(s.quality), "absent");
}

static struct wperf_net_side side(unsigned host, int64_t ns, uint64_t tag)
{
	return (struct wperf_net_side){ host, ns, tag };
}

/* Receives before their sends, a retransmission, loopback, unmatched. */
static void matching_rules(void)
{
	struct wperf_netmatch *m = wperf_netmatch_create();
	struct wperf_tcp_key k1 = { 100, 7, 0x18 }, k2 = { 200, 7, 0x18 }, k3 = { 300, 9, 0x10 };
	struct wperf_netmatch_stats st;

	REQUIRE_INT(m != NULL, 1);
	/* k1: the receive on host 1 comes first (its clock is behind) */
	CHECK_INT(wperf_netmatch_receive(m, &k1, &(struct wperf_net_side){ 1, 50, 11 }), 0);
	CHECK_INT(wperf_netmatch_send(m, &k1, &(struct wperf_net_side){ 0, 90, 10 }), 1);
	/* k2: sent twice by host 0 (a retransmission), received once: the
	 * receive pairs with the first copy (a looser point, never a wrong one) */
	CHECK_INT(wperf_netmatch_send(m, &k2, &(struct wperf_net_side){ 0, 100, 20 }), 0);
	CHECK_INT(wperf_netmatch_send(m, &k2, &(struct wperf_net_side){ 0, 300, 21 }), 0);
	CHECK_INT(wperf_netmatch_receive(m, &k2, &(struct wperf_net_side){ 1, 310, 22 }), 1);
	/* k3: loopback on host 0 never matches; host 1's send is unmatched */
	CHECK_INT(wperf_netmatch_send(m, &k3, &(struct wperf_net_side){ 0, 400, 30 }), 0);
	CHECK_INT(wperf_netmatch_receive(m, &k3, &(struct wperf_net_side){ 0, 401, 31 }), 0);
	REQUIRE_INT(wperf_netmatch_count(m), 2);
	const struct wperf_net_match *a = wperf_netmatch_get(m, 0), *b = wperf_netmatch_get(m, 1);

	CHECK_INT(a->send.host, 0);
	CHECK_INT(a->send.ns, 90);
	CHECK_INT(a->send.tag, 10);
	CHECK_INT(a->recv.host, 1);
	CHECK_INT(a->recv.ns, 50);
	CHECK_INT(a->recv.tag, 11);
	CHECK_INT(b->send.ns, 100);   /* the first copy: copies pair in order */
	CHECK_INT(b->send.tag, 20);
	CHECK_INT(b->recv.tag, 22);
	CHECK(wperf_netmatch_get(m, 2) == NULL);
	wperf_netmatch_stats(m, &st);
	CHECK_INT(st.sends, 4);
	CHECK_INT(st.receives, 3);
	CHECK_INT(st.matched, 2);
	CHECK_INT(st.repeated, 1);
	CHECK_INT(st.unmatched_sends, 2);    /* k2's second copy, k3 */
	CHECK_INT(st.unmatched_receives, 1);
	wperf_netmatch_destroy(m);
	(void)side;
}

/* Two copies of one segment, both delivered (a repeated pure ACK): the
 * k-th sent pairs with the k-th received whichever host's events come
 * first, so no receive lands before its send. (A rule keeping only the
 * latest waiting copy paired the second send with the first receive,
 * which came before it: the clocks of two guests could then not be
 * synchronised at all.) */
static void copies_pair_in_order(void)
{
	struct wperf_tcp_key k = { 500, 9, 0x10 };

	for (int receives_first = 0; receives_first < 2; receives_first++) {
		struct wperf_netmatch *m = wperf_netmatch_create();
		struct wperf_netmatch_stats st;

		REQUIRE_INT(m != NULL, 1);
		if (receives_first) {
			/* host 1's clock is behind: its receives come first */
			CHECK_INT(wperf_netmatch_receive(m, &k, &(struct wperf_net_side){ 1, 110, 3 }), 0);
			CHECK_INT(wperf_netmatch_receive(m, &k, &(struct wperf_net_side){ 1, 210, 4 }), 0);
		}
		CHECK_INT(wperf_netmatch_send(m, &k, &(struct wperf_net_side){ 0, 100, 1 }),
			  receives_first);
		CHECK_INT(wperf_netmatch_send(m, &k, &(struct wperf_net_side){ 0, 200, 2 }),
			  receives_first);
		if (!receives_first) {
			CHECK_INT(wperf_netmatch_receive(m, &k, &(struct wperf_net_side){ 1, 110, 3 }), 1);
			CHECK_INT(wperf_netmatch_receive(m, &k, &(struct wperf_net_side){ 1, 210, 4 }), 1);
		}
		REQUIRE_INT(wperf_netmatch_count(m), 2);
		for (size_t i = 0; i < 2; i++) {
			const struct wperf_net_match *x = wperf_netmatch_get(m, i);

			CHECK_INT(x->recv.tag, x->send.tag + 2);
			CHECK(x->recv.ns > x->send.ns);
		}
		wperf_netmatch_stats(m, &st);
		CHECK_INT(st.repeated, 1);
		CHECK_INT(st.unmatched_sends + st.unmatched_receives, 0);
		/* Copies: left out of the transforms all the same. */
		CHECK(!wperf_netmatch_unique(m, 0) && !wperf_netmatch_unique(m, 1));
		CHECK_INT(st.ambiguous, 2);
		wperf_netmatch_destroy(m);
	}
}

/* A FIN sent twice, the first copy missing from the sender's trace (lost
 * in a gap): the one send traced pairs with the first receive, which came
 * before it (seen in two guests' live recordings). The second receive
 * makes that match ambiguous, after it was made. */
static void missing_copy_is_ambiguous(void)
{
	struct wperf_netmatch *m = wperf_netmatch_create();
	struct wperf_tcp_key fin = { 700, 9, 0x11 }, other = { 800, 9, 0x18 };
	struct wperf_netmatch_stats st;

	REQUIRE_INT(m != NULL, 1);
	CHECK_INT(wperf_netmatch_send(m, &other, &(struct wperf_net_side){ 0, 10, 0 }), 0);
	CHECK_INT(wperf_netmatch_receive(m, &other, &(struct wperf_net_side){ 1, 20, 0 }), 1);
	CHECK_INT(wperf_netmatch_send(m, &fin, &(struct wperf_net_side){ 0, 400, 1 }), 0);
	CHECK_INT(wperf_netmatch_receive(m, &fin, &(struct wperf_net_side){ 1, 300, 2 }), 1);
	CHECK(wperf_netmatch_unique(m, 1));
	CHECK_INT(wperf_netmatch_receive(m, &fin, &(struct wperf_net_side){ 1, 410, 3 }), 0);
	CHECK(wperf_netmatch_unique(m, 0));
	CHECK(!wperf_netmatch_unique(m, 1));
	wperf_netmatch_stats(m, &st);
	CHECK_INT(st.ambiguous, 1);
	wperf_netmatch_destroy(m);
}

/* Many segments in flight at once (the table grows, entries are erased
 * from the middle of probe runs): every one matched once, to its own. */
static void many_in_flight(void)
{
	enum { N = 20000 };
	struct wperf_netmatch *m = wperf_netmatch_create();
	struct wperf_netmatch_stats st;
	long bad = 0;

	REQUIRE_INT(m != NULL, 1);
	for (int i = 0; i < N; i++) {
		struct wperf_tcp_key k = { (uint32_t)i * 1448u, 1, 0x10 };
		struct wperf_net_side s = side(0, i, (uint64_t)i);

		CHECK_INT(wperf_netmatch_send(m, &k, &s), 0);
	}
	for (int i = N - 1; i >= 0; i -= 2) {   /* odd ones, then even ones */
		struct wperf_tcp_key k = { (uint32_t)i * 1448u, 1, 0x10 };
		struct wperf_net_side s = side(1, 1000000 + i, (uint64_t)i);

		bad += wperf_netmatch_receive(m, &k, &s) != 1;
	}
	for (int i = N - 2; i >= 0; i -= 2) {
		struct wperf_tcp_key k = { (uint32_t)i * 1448u, 1, 0x10 };
		struct wperf_net_side s = side(1, 1000000 + i, (uint64_t)i);

		bad += wperf_netmatch_receive(m, &k, &s) != 1;
	}
	CHECK_INT(bad, 0);
	REQUIRE_INT(wperf_netmatch_count(m), N);
	for (size_t i = 0; i < wperf_netmatch_count(m); i++) {
		const struct wperf_net_match *x = wperf_netmatch_get(m, i);

		bad += x->send.tag != x->recv.tag || x->key.seq != (uint32_t)x->send.tag * 1448u;
	}
	CHECK_INT(bad, 0);
	wperf_netmatch_stats(m, &st);
	CHECK_INT(st.matched, N);
	CHECK_INT(st.unmatched_sends + st.unmatched_receives, 0);
	wperf_netmatch_destroy(m);
}

/* ------------------------------------------------------------ several hosts */

/* Hosts' clocks as lines of one true time t (A's: the reference). */
struct true_clock {
	long double alpha, beta;
};

static const struct true_clock CHAIN[] = {
	{ 1.0L, 0 },                          /* A */
	{ 1.0001L, 5000123000.0L },           /* B: 100 ppm fast, 5.000123 s ahead */
	{ 0.99995L, -3000456000.0L },         /* C: 50 ppm slow, 3.000456 s behind */
	{ 1.0L, 7000000000.0L },              /* D: talks to no one both ways */
};

static int64_t clock_at(unsigned h, long double t)
{
	return (int64_t)llroundl(CHAIN[h].alpha * t + CHAIN[h].beta);
}

/* n segments each way between hosts a and b every 10 ms from T0, with
 * one-way delays min_ns and up (every fifth at min_ns, first and last
 * included), as points on (a's clock, b's clock). */
static void exchange(unsigned a, unsigned b, int64_t min_ns, struct wperf_sync_point *ab,
		     struct wperf_sync_point *ba, int n)
{
	for (int i = 0; i < n; i++) {
		long double t = (long double)(T0 + (int64_t)i * 10000000);
		long double d = (long double)(min_ns + (i % 5 ? 10000 * (1 + (i * 7) % 4) : 0));

		ab[i] = (struct wperf_sync_point){ clock_at(a, t), clock_at(b, t + d) };
		/* b -> a sent 5 ms later */
		ba[i] = (struct wperf_sync_point){ clock_at(a, t + 5000000 + d),
						    clock_at(b, t + 5000000) };
	}
}

enum { CHAIN_N = 301 };   /* 3 s of segments */

static void sync_pair(unsigned a, unsigned b, int64_t min_ns, bool both_ways,
		      struct wperf_clock_sync *s)
{
	static struct wperf_sync_point ab[CHAIN_N], ba[CHAIN_N];

	exchange(a, b, min_ns, ab, ba, CHAIN_N);
	REQUIRE_INT(wperf_clock_sync_compute(ab, CHAIN_N, ba, both_ways ? CHAIN_N : 0, s), 0);
}

/* A <-> B and C <-> B only (C's pair given as t(B) = f(t(C)): walked
 * backwards), D with segments one way to A: C is placed on A's time
 * through B, its transform the two composed, within the two accuracies
 * added of the truth over the span; D is not placed. */
static void chain_of_three(void)
{
	struct wperf_clock_sync ab, cb, da;
	struct wperf_clock_pair pairs[3] = { { 0, 1, &ab }, { 2, 1, &cb }, { 3, 0, &da } };
	struct wperf_clock_place out[4];

	sync_pair(0, 1, 20000, true, &ab);
	sync_pair(2, 1, 20000, true, &cb);
	sync_pair(3, 0, 20000, false, &da);
	CHECK_STR(wperf_sync_quality_name(ab.quality), "accurate");
	CHECK_STR(wperf_sync_quality_name(cb.quality), "accurate");
	CHECK_STR(wperf_sync_quality_name(da.quality), "incomplete");
	REQUIRE_INT(wperf_clock_tree(pairs, 3, 4, 0, out), 0);
	CHECK(out[0].placed && out[1].placed && out[2].placed && !out[3].placed);
	CHECK_INT(out[0].hops, 0);
	CHECK_INT(out[1].prev, 0);
	CHECK_INT(out[1].hops, 1);
	CHECK_INT(out[2].prev, 1);
	CHECK_INT(out[2].hops, 2);
	CHECK_NEAR(out[1].accuracy_ns, ab.accuracy_ns, 0);
	CHECK_NEAR(out[2].accuracy_ns, ab.accuracy_ns + cb.accuracy_ns, 1e-9);
	CHECK(ab.accuracy_ns > 1000 && cb.accuracy_ns > 1000);
	/* slope: C per A = (C per B) = 1 / (B per C), times B per A */
	CHECK_NEAR(out[2].alpha, ab.alpha / cb.alpha, 1e-18);
	/* the truth, within the slope the summed bound allows over the 3 s */
	CHECK_NEAR(out[2].alpha, 0.99995L, 2 * out[2].accuracy_ns / 3e9);
	for (int64_t x = T0; x <= T0 + (CHAIN_N - 1) * INT64_C(10000000); x += 250000000) {
		int64_t y = wperf_clock_place_apply(&out[2], x);
		int64_t b = wperf_clock_sync_apply(&ab, x);
		/* exact composition: B's time, then C's for it by cb's line */
		long double c = (long double)cb.anchor_x +
				((long double)b - cb.anchor_y) / cb.alpha;

		CHECK_NEAR((long double)y, c, 1.0L);
		CHECK_NEAR((long double)y, (long double)clock_at(2, (long double)x),
			   out[2].accuracy_ns + 1);
		CHECK_NEAR((long double)wperf_clock_place_invert(&out[2], y), (long double)x, 1.0L);
		/* B's placement is its pair's transform itself */
		CHECK_INT(wperf_clock_place_apply(&out[1], x), b);
	}
	CHECK_INT(wperf_clock_place_apply(&out[0], T0 + 17), T0 + 17);
}

/* A <-> C direct too: used when its accuracy beats the chain's sum, the
 * chain through B when it does not. */
static void direct_when_better(void)
{
	struct wperf_clock_sync ab, cb, ac;
	struct wperf_clock_pair pairs[3] = { { 0, 1, &ab }, { 2, 1, &cb }, { 0, 2, &ac } };
	struct wperf_clock_place out[3];

	sync_pair(0, 1, 20000, true, &ab);
	sync_pair(2, 1, 20000, true, &cb);
	sync_pair(0, 2, 2000, true, &ac);    /* tight: 2 us minimum delays */
	CHECK(ac.accuracy_ns < ab.accuracy_ns + cb.accuracy_ns);
	REQUIRE_INT(wperf_clock_tree(pairs, 3, 3, 0, out), 0);
	CHECK_INT(out[2].prev, 0);
	CHECK_INT(out[2].hops, 1);
	CHECK_NEAR(out[2].accuracy_ns, ac.accuracy_ns, 0);
	CHECK_NEAR(out[2].alpha, ac.alpha, 0);
	/* B stays on its own pair: A -> C -> B is looser */
	CHECK_INT(out[1].prev, 0);
	sync_pair(0, 2, 80000, true, &ac);   /* loose: 80 us */
	CHECK(ac.accuracy_ns > ab.accuracy_ns + cb.accuracy_ns);
	REQUIRE_INT(wperf_clock_tree(pairs, 3, 3, 0, out), 0);
	CHECK_INT(out[2].prev, 1);
	CHECK_INT(out[2].hops, 2);
	/* A failed pair links nothing, however tight */
	ac.quality = WPERF_SYNC_FAIL;
	ab.quality = WPERF_SYNC_FAIL;
	REQUIRE_INT(wperf_clock_tree(pairs, 3, 3, 0, out), 0);
	CHECK(!out[1].placed && !out[2].placed);
	/* from C as the reference: pairs walked either way */
	ab.quality = WPERF_SYNC_ACCURATE;
	REQUIRE_INT(wperf_clock_tree(pairs, 3, 3, 2, out), 0);
	CHECK(out[0].placed && out[1].placed);
	CHECK_INT(out[0].prev, 1);
	CHECK_NEAR((long double)wperf_clock_place_apply(&out[0], clock_at(2, T0 + 1000000000)),
		   (long double)(T0 + 1000000000), out[0].accuracy_ns + 1);
	/* out of range */
	pairs[1].a = 1;
	CHECK_INT(wperf_clock_tree(pairs, 3, 3, 0, out), -1);
	CHECK_INT(wperf_clock_tree(pairs, 0, 3, 3, out), -1);
}

int main(void)
{
	RUN_TEST(hand_case);
	RUN_TEST(known_drift);
	RUN_TEST(truth_within_accuracy);
	RUN_TEST(fail_and_incomplete);
	RUN_TEST(matching_rules);
	RUN_TEST(copies_pair_in_order);
	RUN_TEST(missing_copy_is_ambiguous);
	RUN_TEST(many_in_flight);
	RUN_TEST(chain_of_three);
	RUN_TEST(direct_when_better);
	return check_finish();
}
