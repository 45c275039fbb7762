/* SPDX-License-Identifier: MIT */
/*
 * test-oom.c — every allocation of knot finding and of the report writers
 * may fail: make the 1st, 2nd, 3rd, ... allocation fail in turn and check
 * that the call fails cleanly (knots: -1 and nothing leaked; writers: a
 * report is still written) until a run needs no failure at all.
 *
 * malloc, calloc, realloc and free are interposed here (glibc allows a
 * program to define them) and count live blocks; the real ones are
 * glibc's __libc_* entry points. Not built under sanitizers, which
 * interpose the same functions.
 */
#include <stdlib.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/knots.h"
#include "wperf/report.h"

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

/* volatile: the compiler takes malloc and free for the builtins, which
 * touch no memory of the program's, and with LTO it may move the
 * counting in these wrappers across the calls that were inlined. */
static volatile long fail_at = -1;   /* index of the allocation to fail; -1: none */
static volatile long allocations;    /* since arming */
static volatile long live;           /* blocks allocated and not freed */

static int should_fail(void)
{
	return fail_at >= 0 && allocations++ == fail_at;
}

void *malloc(size_t n)
{
	if (should_fail())
		return NULL;
	void *p = __libc_malloc(n);
	live += p != NULL;
	return p;
}

void *calloc(size_t n, size_t size)
{
	if (should_fail())
		return NULL;
	void *p = __libc_calloc(n, size);
	live += p != NULL;
	return p;
}

void *realloc(void *old, size_t n)
{
	if (should_fail())
		return NULL;
	void *p = __libc_realloc(old, n);
	if (!old && p)
		live++;
	return p;
}

void free(void *p)
{
	live -= p != NULL;
	__libc_free(p);
}

static void arm(long at)
{
	allocations = 0;
	fail_at = at;
}

/* A busy knot, an idle one to refine, a sink and a focus: every
 * allocation site of wperf_knots_find is on this path. Threads 0 and 1
 * are busy, 2 and 3 idle and waited on by no one: {2,3} is a background
 * knot (refined: 3's self-loop is cut), and without it {0,1} is a knot in
 * a second round. */
static void build(struct wperf_graph *g)
{
	gb_init(g, 0, 1000);
	for (int i = 0; i < 6; i++)
		gb_thread(g, "t", i);
	g->vertices[0].running_ns = g->vertices[1].running_ns = 1000;
	gb_edge(g, 0, 1, 100);
	gb_edge(g, 1, 0, 90);
	gb_edge(g, 2, 3, 40);
	gb_edge(g, 3, 2, 30);
	gb_edge(g, 3, 3, 3);
	gb_edge(g, 4, 5, 7);
	gb_sort(g);
}

static void test_knots_out_of_memory(void)
{
	struct wperf_graph g;
	bool focus[6] = { true, false, true, false, true, false };
	struct wperf_knot_options o = { .threshold_ns = INT64_MAX, .focus = focus };
	struct wperf_knots k;
	long failures_seen = 0;

	build(&g);
	for (long at = 0;; at++) {
		long before = live;
		arm(at);
		int rc = wperf_knots_find(&g, &o, &k);
		fail_at = -1;
		if (rc == 0) {
			CHECK_INT(k.n, 3);      /* knot {0,1}, sink {5}, background {2,3} */
			wperf_knots_fini(&k);
			CHECK_INT(live, before);
			if (allocations <= at)
				break;          /* no allocation was failed: done */
			continue;               /* a failure was absorbed: fine */
		}
		failures_seen++;
		CHECK_INT(k.n, 0);
		CHECK(k.items == NULL);
		CHECK_INT(live, before);        /* nothing leaked */
		if (live != before)
			break;
	}
	printf("# wperf_knots_find failed cleanly at %ld allocation points\n", failures_seen);
	CHECK(failures_seen > 10);
	gb_free(&g);
}

/* The dominant rule, ties and a heavy group that is not a knot: the same
 * graph plus {6,7} (600 inside) that leaves 150 (25%) to 8, and a tie
 * of two equal edges in the refined knot. Every allocation failure is
 * absorbed or reported, and nothing leaks. */
static void test_groups_out_of_memory(void)
{
	struct wperf_graph g;
	struct wperf_knot_options o = { .threshold_ns = 150,
					.leave_ppm = WPERF_KNOT_LEAVE_DEFAULT_PPM,
					.tie_ppm = WPERF_KNOT_TIE_DEFAULT_PPM };
	struct wperf_knots k;
	long failures_seen = 0;

	build(&g);
	for (int i = 6; i < 9; i++)
		gb_thread(&g, "u", i);
	gb_edge(&g, 6, 7, 300);
	gb_edge(&g, 7, 6, 300);
	gb_edge(&g, 6, 8, 150);
	gb_edge(&g, 2, 1, 20);          /* ties 1 -> 2 */
	gb_sort(&g);
	CHECK_INT(wperf_knots_find(&g, &o, &k), 0);
	size_t n = k.n, groups = k.n_groups;
	CHECK_INT(groups, 1);
	wperf_knots_fini(&k);
	for (long at = 0;; at++) {
		long before = live;
		arm(at);
		int rc = wperf_knots_find(&g, &o, &k);
		fail_at = -1;
		if (rc == 0) {
			CHECK_INT(k.n, n);
			CHECK_INT(k.n_groups, groups);
			wperf_knots_fini(&k);
			CHECK_INT(live, before);
			if (allocations <= at)
				break;
			continue;
		}
		failures_seen++;
		CHECK_INT(k.n, 0);
		CHECK_INT(k.n_groups, 0);
		CHECK_INT(live, before);
		if (live != before)
			break;
	}
	printf("# with groups and ties: failed cleanly at %ld allocation points\n", failures_seen);
	CHECK(failures_seen > 10);
	gb_free(&g);
}

static void test_writers_out_of_memory(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	struct wperf_classes cl;
	bool focus[6] = { true, false, false, false, false, false };
	FILE *null = fopen("/dev/null", "w");

	CHECK(null != NULL);
	if (!null)
		return;
	fputs("", null);        /* let stdio allocate its buffer now */
	build(&g);
	CHECK_INT(wperf_knots_find(&g, NULL, &k), 0);
	CHECK_INT(wperf_classes_find(&g, &k, 0, &cl), 0);
	struct wperf_report r = { .graph = &g, .knots = &k, .threshold_ns = 200,
				  .threshold_spec = "20%", .focus = focus, .classes = &cl };
	long at;
	for (at = 0; at < 64; at++) {
		long before = live;
		arm(at);
		CHECK_INT(wperf_report_write_text(&r, null), 0);
		CHECK_INT(wperf_report_write_json(&r, null), 0);
		fail_at = -1;
		CHECK_INT(live, before);
		if (allocations <= at)
			break;
	}
	printf("# the writers survived %ld failed allocations\n", at);
	CHECK(at > 0 && at < 64);
	wperf_classes_fini(&cl);
	wperf_knots_fini(&k);
	gb_free(&g);
	fclose(null);
}

int main(void)
{
	RUN_TEST(test_knots_out_of_memory);
	RUN_TEST(test_groups_out_of_memory);
	RUN_TEST(test_writers_out_of_memory);
	return check_finish();
}
