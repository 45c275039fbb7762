/* SPDX-License-Identifier: MIT */
/*
 * test-cascade.c — the cascade's worst cases (doc/performance.md): exact weights where
 * they can be derived, and the counters of struct cascade_stats proving the
 * work stays linear in the number of waits and the memory bounded by the
 * threads, however long the trace.
 *
 * It drives analysis/cascade.c directly: each call is "this wait ended",
 * in the order the analysis would make them (analysis.c prunes behind the
 * oldest open wait every so often; the tests do the same).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "cascade.h"
#include "check.h"
#include "edges.h"

#define U 1000 /* one time unit, ns */

static int64_t weight(struct edge_map *m, uint32_t from, uint32_t to)
{
	return m->e[edges_get(m, from, to)].weight_ns;
}

/* wperf-method(7) §4: A waits B [100, 400], B waits C [50, 300]: B -> C gets
 * the overlap, 200. */
static void test_nested(void)
{
	struct cascade c;
	struct edge_map m;

	cascade_init(&c);
	edges_init(&m);
	/* B's wait cascades nothing */
	CHECK_INT(cascade_wait_ended(&c, &m, 1, 2, CASCADE_WAKER_THREAD, true, 50, 300), 0);
	/* A's wait cascades the overlap */
	CHECK_INT(cascade_wait_ended(&c, &m, 0, 1, CASCADE_WAKER_THREAD, true, 100, 400), 200);
	/* B -> C */
	CHECK_INT(weight(&m, 1, 2), 200);
	cascade_fini(&c);
	edges_fini(&m);
}

/* wperf-method(7) §4 step 2 walks every wait of B, whatever woke it: A waits B
 * [0, 1000], B waits on a disk (a pseudo-thread, vertex 9) [200, 600]:
 * B -> disk gets the overlap, 400, and the branch ends there. */
static void test_into_a_pseudo_thread(void)
{
	struct cascade c;
	struct edge_map m;

	cascade_init(&c);
	edges_init(&m);
	CHECK_INT(cascade_wait_ended(&c, &m, 1, 9, CASCADE_WAKER_DEVICE, true, 200, 600), 0);
	CHECK_INT(cascade_wait_ended(&c, &m, 0, 1, CASCADE_WAKER_THREAD, true, 0, 1000), 400);
	CHECK_INT(weight(&m, 1, 9), 400);
	/* A was held up by the disk through B over the overlap. */
	CHECK_INT(m.e[edges_get(&m, 0, 1)].device_ns, 400);
	CHECK_INT(c.stats.walks, 1);
	cascade_fini(&c);
	edges_fini(&m);
}

/*
 * A chain of N threads, round after round: T0 asks T1, which asks T2, ...;
 * the answers come back. T_i waits on T_{i+1} over [i, 2N-2-i] (units from
 * the round's start), so the waits end innermost first. T_i's walk visits
 * T_{i+1} .. T_{N-2}'s waits, each fully inside: it adds
 * sum_{j=i+1}^{N-2} (2N-2-2j) units, and visits N-1-i frames.
 */
static void test_chain(void)
{
	enum { N = 64, ROUNDS = 2000 };
	struct cascade c;
	struct edge_map m;
	int64_t round_len = 2 * N * U;
	int exact = 1;

	cascade_init(&c);
	edges_init(&m);
	for (int r = 0; r < ROUNDS; r++) {
		int64_t t0 = r * round_len;

		for (int i = N - 2; i >= 0; i--) {
			int64_t want = 0, got;

			for (int j = i + 1; j <= N - 2; j++)
				want += (2 * N - 2 - 2 * j) * U;
			got = cascade_wait_ended(&c, &m, i, i + 1, CASCADE_WAKER_THREAD, true, t0 + i * U,
						 t0 + (2 * N - 2 - i) * U);
			exact &= got == want;
		}
		/* The analysis prunes behind the oldest open wait: here the
		 * next round's start. */
		cascade_prune(&c, t0 + round_len);
	}
	/* every chain walk adds the exact cascade */
	CHECK(exact);
	/* T0 -> T1's weight is direct only (not added here); T1 -> T2 got
	 * T0's cascade: (2N-4) units per round. */
	/* T1 -> T2 cascaded */
	CHECK_INT(weight(&m, 1, 2), (int64_t)ROUNDS * (2 * N - 4) * U);
	/* walks */
	CHECK_INT(c.stats.walks, (uint64_t)ROUNDS * (N - 1));
	/* Linear: the frames of one round are the same every round,
	 * sum_{i=0}^{N-2} (N-1-i) = N(N-1)/2, however many rounds came before. */
	/* frames */
	CHECK_INT(c.stats.frames, (uint64_t)ROUNDS * N * (N - 1) / 2);
	/* records scanned stay within one round's */
	CHECK(c.stats.records_scanned <= c.stats.frames);
	/* history bounded by one round */
	CHECK(c.stats.peak_live <= N);
	/* nothing dropped */
	CHECK_INT(c.stats.records_dropped, 0);
	cascade_fini(&c);
	edges_fini(&m);
}

/*
 * 1,000 clients wait on one server H. Client k's wait is [k-1000, k]
 * units; H waits on a backend D over [k+0.1, k+0.5] each unit. Every
 * client's walk covers 1,000 of H's waits: it adds 1000 * 0.4 units, and
 * scans about 1,000 records (the overlap itself, no more: linear in the
 * output).
 */
static void test_fanin(void)
{
	enum { CLIENTS = 1000, UNITS = 20000, H = 0, D = 1 };
	struct cascade c;
	struct edge_map m;
	int exact = 1;
	uint64_t client_walks = 0;

	cascade_init(&c);
	edges_init(&m);
	for (int64_t k = 0; k < UNITS; k++) {
		cascade_wait_ended(&c, &m, H, D, CASCADE_WAKER_THREAD, true, k * U + U / 10, k * U + U / 2);
		if (k >= CLIENTS) {
			uint32_t client = 2 + (uint32_t)(k % CLIENTS);
			int64_t got = cascade_wait_ended(&c, &m, client, H, CASCADE_WAKER_THREAD, true,
							 (k - CLIENTS) * U + U / 2 + 1, k * U + U / 2 + 1);

			exact &= got == CLIENTS * (U / 2 - U / 10);
			client_walks++;
		}
		if (k % 4096 == 0) /* the oldest open wait began 1,000 units ago */
			cascade_prune(&c, (k - CLIENTS) * U);
	}
	/* every client's walk adds 1000 * 0.4 units */
	CHECK(exact);
	/* H -> D cascaded */
	CHECK_INT(weight(&m, H, D),
		  (int64_t)client_walks * CLIENTS * (U / 2 - U / 10));
	/* records scanned: the overlap, plus one per walk */
	CHECK(c.stats.records_scanned <= client_walks * (CLIENTS + 1) + UNITS);
	/* frames: one per overlapping wait, plus the root's */
	CHECK(c.stats.frames <= client_walks * (CLIENTS + 1) + UNITS);
	/* History bounded by the open waits' reach: H keeps the 1,000 waits
	 * a client's window covers (the cap is 1,024); the clients' own waits
	 * since the horizon (1,001) and the 4,096 between prunes. */
	CHECK(c.stats.peak_live <= CASCADE_HISTORY_MAX + CLIENTS + 1 + 4096);
	cascade_fini(&c);
	edges_fini(&m);
}

/*
 * One thread W sleeps for the whole trace while 100 pairs of threads
 * ping-pong (A waits B over [2k, 2k+1], B waits A over [2k+1, 2k+2]).
 * W's open wait pins the prune horizon at 0, so only the per-thread cap
 * bounds the history: memory stays at most 2 * cap records per thread
 * whatever the length. At the end a pair's A wakes W: the walk covers A's
 * last `cap` waits only (documented in cascade.h), adds exactly cap units
 * (each B frame overlaps nothing new) and says it was truncated.
 */
static void test_long_waiter(void)
{
	enum { PAIRS = 100, STEPS = 20000, CAP = 256, W = 0 };
	struct cascade c;
	struct edge_map m;
	int64_t end = 2 * STEPS * U, added;

	cascade_init(&c);
	c.max_records = CAP;
	edges_init(&m);
	for (int64_t k = 0; k < STEPS; k++) {
		for (uint32_t p = 0; p < PAIRS; p++) {
			uint32_t a = 1 + 2 * p, b = a + 1;

			cascade_wait_ended(&c, &m, a, b, CASCADE_WAKER_THREAD, true, 2 * k * U, (2 * k + 1) * U);
			cascade_wait_ended(&c, &m, b, a, CASCADE_WAKER_THREAD, true, (2 * k + 1) * U, (2 * k + 2) * U);
		}
		if (k % 512 == 0)
			cascade_prune(&c, 0); /* W is still waiting since 0 */
	}
	/* history is capped per thread */
	CHECK(c.stats.peak_live <= 2 * PAIRS * CAP);
	/* the arrays hold at most twice the cap */
	CHECK(cascade_capacity(&c) <= 2 * 2 * PAIRS * CAP);
	/* dropped */
	CHECK_INT(c.stats.records_dropped, (uint64_t)2 * PAIRS * (STEPS - CAP));
	/* no walk was truncated before W's */
	CHECK(c.stats.truncated_walks == 0);
	added = cascade_wait_ended(&c, &m, W, 1, CASCADE_WAKER_THREAD, true, 0, end);
	/* W's walk adds A's kept waits */
	CHECK_INT(added, (int64_t)CAP * U);
	/* and is reported truncated */
	CHECK(c.stats.truncated_walks >= 1);
	/* one wait truncated: W's (the report's quality.cascades_truncated) */
	CHECK_INT(c.stats.truncated_waits, 1);
	/* Work per wait is bounded by the threads' histories, not by the
	 * trace: all 4,000,000 waits together scanned a few records each. */
	/* records scanned per wait stay small */
	CHECK(c.stats.records_scanned <= 4 * c.stats.walks + CAP);
	cascade_fini(&c);
	edges_fini(&m);
}

/*
 * A wait that asked nothing of its waker (requested false) cascades into
 * the waker's last wait begun before the wakeup only, clipped; with a
 * request, into all of them (wperf-method(7) §4). B waits on D (9) over [10, 20],
 * [30, 40], [50, 60], the last one unrequested; A waits on B over [0, 100]:
 * 10 units without a request, 30 with. The rule holds down the walk, by
 * each record's flag: B's last wait, [50, 60], asked nothing of D.
 * X (3) waits on B over [55, 100], unrequested: [55, 60] of B's last wait.
 */
static void test_unrequested(void)
{
	struct cascade c;
	struct edge_map m;

	cascade_init(&c);
	edges_init(&m);
	cascade_wait_ended(&c, &m, 1, 9, CASCADE_WAKER_OTHER, true, 10, 20);
	cascade_wait_ended(&c, &m, 1, 9, CASCADE_WAKER_OTHER, true, 30, 40);
	cascade_wait_ended(&c, &m, 1, 9, CASCADE_WAKER_OTHER, false, 50, 60);
	/* unrequested: B's last wait only */
	CHECK_INT(cascade_wait_ended(&c, &m, 0, 1, CASCADE_WAKER_THREAD, false, 0, 100), 10);
	/* requested: all three */
	CHECK_INT(cascade_wait_ended(&c, &m, 2, 1, CASCADE_WAKER_THREAD, true, 0, 100), 30);
	/* clipped to the window */
	CHECK_INT(cascade_wait_ended(&c, &m, 3, 1, CASCADE_WAKER_THREAD, false, 55, 100), 5);
	/* B -> D: 10 + 30 + 5 cascaded */
	CHECK_INT(weight(&m, 1, 9), 45);
	/* a window before B's first wait finds nothing */
	CHECK_INT(cascade_wait_ended(&c, &m, 4, 1, CASCADE_WAKER_THREAD, false, 0, 5), 0);
	cascade_fini(&c);
	edges_fini(&m);
}

/* Where a wait ends (wperf_edge.device_ns): A waits on B [0, 1000]; B
 * waited on C [100, 500], C on the disk (vertex 9) [200, 400]; B on the
 * disk [600, 800] and on a timer (vertex 8) [850, 950]. A was held up by
 * the disk 200 through C and 200 through B directly; the timer's 100 and
 * the times B and C ran do not count. B -> C has C's 200. */
static void test_ends_at_device(void)
{
	struct cascade c;
	struct edge_map m;

	cascade_init(&c);
	edges_init(&m);
	cascade_wait_ended(&c, &m, 2, 9, CASCADE_WAKER_DEVICE, true, 200, 400);
	cascade_wait_ended(&c, &m, 1, 2, CASCADE_WAKER_THREAD, true, 100, 500);
	cascade_wait_ended(&c, &m, 1, 9, CASCADE_WAKER_DEVICE, true, 600, 800);
	cascade_wait_ended(&c, &m, 1, 8, CASCADE_WAKER_OTHER, true, 850, 950);
	CHECK_INT(m.e[edges_get(&m, 1, 2)].device_ns, 200);
	CHECK_INT(cascade_wait_ended(&c, &m, 0, 1, CASCADE_WAKER_THREAD, true, 0, 1000),
		  400 + 200 + 200 + 100);
	CHECK_INT(m.e[edges_get(&m, 0, 1)].device_ns, 400);
	CHECK_INT(m.e[edges_get(&m, 1, 8)].device_ns, 0);
	cascade_fini(&c);
	edges_fini(&m);
}

/* A wait for a CPU at two removes (wperf_edge.runnable_ns): A waits on
 * B [0, 1000]; B waited on C [100, 500]; C was runnable [200, 300] and
 * [450, 600] (the part after 500 held no one up). A -> B gets C's 150. */
static void test_runnable_below(void)
{
	struct cascade c;
	struct edge_map m;
	struct runhist rh;

	cascade_init(&c);
	edges_init(&m);
	runhist_init(&rh);
	c.runhist = &rh;
	runhist_add(&rh, 2, 200, 300);
	runhist_add(&rh, 2, 450, 600);
	cascade_wait_ended(&c, &m, 1, 2, CASCADE_WAKER_THREAD, true, 100, 500);
	cascade_wait_ended(&c, &m, 0, 1, CASCADE_WAKER_THREAD, true, 0, 1000);
	CHECK_INT(m.e[edges_get(&m, 0, 1)].runnable_ns, 150);
	CHECK_INT(m.e[edges_get(&m, 0, 1)].device_ns, 0);
	runhist_fini(&rh);
	cascade_fini(&c);
	edges_fini(&m);
}

int main(void)
{
	RUN_TEST(test_nested);
	RUN_TEST(test_into_a_pseudo_thread);
	RUN_TEST(test_ends_at_device);
	RUN_TEST(test_runnable_below);
	RUN_TEST(test_chain);
	RUN_TEST(test_fanin);
	RUN_TEST(test_long_waiter);
	RUN_TEST(test_unrequested);
	return check_finish();
}
