/* SPDX-License-Identifier: MIT */
/*
 * test-timeline.c — the per-thread timelines the HTML report draws
 * (wperf/graph.h struct wperf_timeline, analysis/timeline.c): exact while
 * short, folded into at most WPERF_TIMELINE_SPANS buckets however long,
 * every state's time kept through folding and merging.
 */
#include <stdlib.h>

#include "check.h"
#include "wperf/graph.h"

#define NONE UINT32_MAX

static int64_t total(const struct wperf_timeline *t, enum wperf_span_state st)
{
	int64_t sum = 0;

	for (uint32_t i = 0; i < t->n; i++)
		sum += t->spans[i].ns[st];
	return sum;
}

/* Neighbours in one state (waiting for one vertex) join; nothing else. */
static void test_exact(void)
{
	struct wperf_timeline t = { 0 };

	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNING, 0, 10, NONE), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNING, 10, 20, 7), 0); /* target ignored */
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_WAITING, 20, 30, 5), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_WAITING, 30, 40, 5), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_WAITING, 40, 50, 6), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNABLE, 50, 55, NONE), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNING, 60, 60, NONE), 0); /* empty */
	CHECK_INT(t.width_ns, 0);
	REQUIRE_INT(t.n, 4);
	CHECK_INT(t.spans[0].start_ns, 0);
	CHECK_INT(t.spans[0].end_ns, 20);
	CHECK_INT(t.spans[0].ns[WPERF_SPAN_RUNNING], 20);
	CHECK_INT(t.spans[0].target, NONE);
	CHECK_INT(t.spans[1].start_ns, 20);
	CHECK_INT(t.spans[1].end_ns, 40);
	CHECK_INT(t.spans[1].target, 5);
	CHECK_INT(t.spans[1].target_ns, 20);
	CHECK_INT(wperf_span_dominant(&t.spans[1]), WPERF_SPAN_WAITING);
	CHECK_INT(t.spans[2].target, 6);
	CHECK_INT(t.spans[3].ns[WPERF_SPAN_RUNNABLE], 5);
	CHECK_INT(wperf_span_dominant(&t.spans[3]), WPERF_SPAN_RUNNABLE);
	wperf_timeline_fini(&t);
}

/* A million state changes: at most WPERF_TIMELINE_SPANS buckets, equal,
 * tiling the time, every state's total kept to the ns. */
static void test_bounded(void)
{
	struct wperf_timeline t = { 0 };
	int64_t at = 1000;

	for (int i = 0; i < 1000000; i++) {
		CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNING, at, at + 3, NONE), 0);
		CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_WAITING, at + 3, at + 10,
					     i % 2 ? 1 : 2), 0);
		at += 10;
	}
	CHECK(t.n <= WPERF_TIMELINE_SPANS);
	CHECK(t.cap <= WPERF_TIMELINE_SPANS);
	CHECK(t.n >= WPERF_TIMELINE_SPANS / 2);
	CHECK(t.width_ns > 0);
	CHECK_INT(total(&t, WPERF_SPAN_RUNNING), 3000000);
	CHECK_INT(total(&t, WPERF_SPAN_WAITING), 7000000);
	CHECK_INT(total(&t, WPERF_SPAN_RUNNABLE), 0);
	REQUIRE_INT(t.spans[0].start_ns, 1000);
	for (uint32_t i = 0; i < t.n; i++) {
		CHECK_INT(t.spans[i].end_ns - t.spans[i].start_ns, t.width_ns);
		if (i)
			CHECK_INT(t.spans[i].start_ns, t.spans[i - 1].end_ns);
		CHECK(t.spans[i].target == 1 || t.spans[i].target == 2);
	}
	CHECK(t.spans[t.n - 1].end_ns >= at);
	CHECK(t.spans[t.n - 1].start_ns < at);
	/* Mostly waiting everywhere but where the thread's time ends. */
	CHECK_INT(wperf_span_dominant(&t.spans[0]), WPERF_SPAN_WAITING);
	wperf_timeline_fini(&t);
}

/* A span earlier than the last one folds rather than overlaps. */
static void test_out_of_order(void)
{
	struct wperf_timeline t = { 0 };

	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_RUNNING, 100, 200, NONE), 0);
	CHECK_INT(wperf_timeline_add(&t, WPERF_SPAN_WAITING, 0, 50, 4), 0);
	CHECK(t.width_ns > 0);
	REQUIRE_INT(t.spans[0].start_ns, 0);
	CHECK_INT(total(&t, WPERF_SPAN_RUNNING), 100);
	CHECK_INT(total(&t, WPERF_SPAN_WAITING), 50);
	CHECK(t.n <= WPERF_TIMELINE_SPANS);
	wperf_timeline_fini(&t);
}

/* A merged vertex: its threads' time summed, targets renamed. */
static void test_absorb(void)
{
	struct wperf_timeline a = { 0 }, b = { 0 }, m = { 0 };
	uint32_t map[10] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 3 };

	CHECK_INT(wperf_timeline_add(&a, WPERF_SPAN_RUNNING, 50, 150, NONE), 0);
	CHECK_INT(wperf_timeline_add(&b, WPERF_SPAN_WAITING, 0, 100, 9), 0);
	CHECK_INT(wperf_timeline_absorb(&m, &a, map, 10), 0);
	CHECK_INT(wperf_timeline_absorb(&m, &b, map, 10), 0);
	CHECK(m.width_ns > 0);
	REQUIRE_INT(m.spans[0].start_ns, 0);
	CHECK_INT(total(&m, WPERF_SPAN_RUNNING), 100);
	CHECK_INT(total(&m, WPERF_SPAN_WAITING), 100);
	CHECK_INT(m.spans[0].target, 3);
	CHECK(m.spans[m.n - 1].end_ns >= 150);
	wperf_timeline_fini(&a);
	wperf_timeline_fini(&b);
	wperf_timeline_fini(&m);
}

int main(void)
{
	RUN_TEST(test_exact);
	RUN_TEST(test_bounded);
	RUN_TEST(test_out_of_order);
	RUN_TEST(test_absorb);
	return check_finish();
}
