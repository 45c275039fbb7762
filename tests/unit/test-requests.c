/* SPDX-License-Identifier: MIT */
/*
 * test-requests.c — inherited waiting (wperf-analysis(7), "Cascaded
 * redistribution"): a wait cascades into all of its waker's waits over it
 * only when the waiter had asked the waker for something — woke it since
 * the waker last woke it, or created it and was not woken by it since —
 * else into the waker's last wait only. Exact weights on hand-built event
 * sequences.
 */
#include "check.h"
#include "feed.h"
#include "wperf/analysis.h"

/*
 * Inherited waiting (wperf-analysis(7)): a wait cascades into all of its
 * waker's waits over it only when the waiter had asked the waker for
 * something (woken it since the waker last woke it); else into the
 * waker's last wait before the wakeup only. Client C (1) wakes server S
 * (2) at 10 ms (a request), then waits for it [10, 70]; S waits for D (3)
 * over [20, 30] and [40, 60] and answers C at 70. I (4), idle in a poll()
 * since 0, is woken by S at 80: it asked S for nothing. C's wait cascades
 * both of S's waits on D (10 + 20); I's only S's last one (20), not S's
 * wait for C's request [0, 10] nor its first wait on D. S -> D = 30 + 30
 * + 20 = 80 ms (90 by the plain cascade), S -> C = 10 (20).
 */
static void test_inherited_waiting(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	for (int t = 1; t <= 4; t++)
		sw(a, 0, t - 1, 0, 0, t);       /* thread t on cpu t-1 */
	sw(a, 0, 3, 4, 1, 0);                   /* I polls */
	sw(a, 0, 1, 2, 1, 0);                   /* S waits for a request */
	wake(a, 10 * MS, 0, 2);                 /* C asks S */
	sw(a, 10 * MS, 1, 0, 0, 2);
	sw(a, 10 * MS, 0, 1, 1, 0);             /* C waits for the answer */
	sw(a, 20 * MS, 1, 2, 1, 0);             /* S waits for D */
	wake(a, 30 * MS, 2, 2);
	sw(a, 30 * MS, 1, 0, 0, 2);
	sw(a, 40 * MS, 1, 2, 1, 0);             /* and again */
	wake(a, 60 * MS, 2, 2);
	sw(a, 60 * MS, 1, 0, 0, 2);
	wake(a, 70 * MS, 1, 1);                 /* S answers C */
	sw(a, 70 * MS, 0, 0, 0, 1);
	wake(a, 80 * MS, 1, 4);                 /* S wakes I */
	sw(a, 80 * MS, 3, 0, 0, 4);
	sw(a, 100 * MS, 2, 3, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("C -> S", weight(&g, 1, 2), 60 * MS);
	CHECK_EQ("I -> S", weight(&g, 4, 2), 80 * MS);
	CHECK_EQ("S -> D: its own 30, C's 30, I's last 20", weight(&g, 2, 3), 80 * MS);
	CHECK_EQ("S -> C: its own only", weight(&g, 2, 1), 10 * MS);
	wperf_graph_fini(&g);
}

/*
 * A fork is a request. P (1) forks C (2) at 1 ms and waits for it from
 * 10 to 70 ms (a wait for a child's exit, a join); C waits twice on D (3),
 * [20, 30] and [40, 60], then wakes P. C works for P, so P's wait passes
 * into both: C -> D = its own 30 + P's 30 = 60 ms (50 when only C's last
 * wait is inherited, as for a waiter that asked nothing).
 */
static void test_fork_is_a_request(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);                   /* P on cpu 0 */
	sw(a, 0, 2, 0, 0, 3);                   /* D on cpu 2 */
	fork_thread(a, 1 * MS, 0, 1, 2, 2, "child");
	sw(a, 1 * MS, 1, 0, 0, 2);              /* C on cpu 1 */
	sw(a, 10 * MS, 0, 1, 1, 0);             /* P waits for C */
	sw(a, 20 * MS, 1, 2, 1, 0);             /* C waits for D */
	wake(a, 30 * MS, 2, 2);
	sw(a, 30 * MS, 1, 0, 0, 2);
	sw(a, 40 * MS, 1, 2, 1, 0);             /* and again */
	wake(a, 60 * MS, 2, 2);
	sw(a, 60 * MS, 1, 0, 0, 2);
	wake(a, 70 * MS, 1, 1);                 /* C ends: P goes on */
	sw(a, 70 * MS, 0, 0, 0, 1);
	sw(a, 80 * MS, 2, 3, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("P -> C", weight(&g, 1, 2), 60 * MS);
	CHECK_EQ("C -> D: its own 30, P's 30", weight(&g, 2, 3), 60 * MS);
	wperf_graph_fini(&g);
}

/*
 * The request a fork makes is answered by the first wakeup back: P waits
 * for C over [10, 15] (C wakes it: an answer), then again over [20, 70],
 * having asked nothing more. The second wait inherits only C's last wait
 * [40, 60]: C -> D = 30 + 20 = 50 ms.
 */
static void test_fork_request_answered(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);
	sw(a, 0, 2, 0, 0, 3);
	fork_thread(a, 1 * MS, 0, 1, 2, 2, "child");
	sw(a, 1 * MS, 1, 0, 0, 2);
	sw(a, 10 * MS, 0, 1, 1, 0);             /* P waits for C */
	wake(a, 15 * MS, 1, 1);                 /* C answers */
	sw(a, 15 * MS, 0, 0, 0, 1);
	sw(a, 20 * MS, 0, 1, 1, 0);             /* P waits again, unasked */
	sw(a, 20 * MS, 1, 2, 1, 0);             /* C waits for D */
	wake(a, 30 * MS, 2, 2);
	sw(a, 30 * MS, 1, 0, 0, 2);
	sw(a, 40 * MS, 1, 2, 1, 0);
	wake(a, 60 * MS, 2, 2);
	sw(a, 60 * MS, 1, 0, 0, 2);
	wake(a, 70 * MS, 1, 1);
	sw(a, 70 * MS, 0, 0, 0, 1);
	sw(a, 80 * MS, 2, 3, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("P -> C", weight(&g, 1, 2), 55 * MS);
	CHECK_EQ("C -> D: its own 30, P's last 20", weight(&g, 2, 3), 50 * MS);
	wperf_graph_fini(&g);
}

int main(void)
{
	RUN_TEST(test_inherited_waiting);
	RUN_TEST(test_fork_is_a_request);
	RUN_TEST(test_fork_request_answered);
	return check_finish();
}
