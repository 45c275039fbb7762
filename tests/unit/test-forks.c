/* SPDX-License-Identifier: MIT */
/*
 * test-forks.c — which threads a report takes in, on hand-built graphs:
 * wperf_graph_mark_forked(), which extends a focus to what the focused
 * threads forked (sink.wperf.knots' follow-forks: generations, threads of
 * a forked process, a reused tid, whose parent is the thread of that tid
 * alive at the fork, and parent loops of a corrupt trace, which must end
 * and mark nothing), and wperf_graph_mark_tracer_threads(), the tracer's
 * own threads whose waits are no dependency.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/graph.h"

static uint32_t child(struct wperf_graph *g, const char *comm, int64_t tid, int64_t pid,
		      int64_t parent_tid, int64_t first_ts)
{
	uint32_t v = gb_thread(g, comm, tid);

	g->vertices[v].pid = pid;
	g->vertices[v].parent_tid = parent_tid;
	g->vertices[v].first_ts = first_ts;
	return v;
}

static void test_generations_and_reused_tids(void)
{
	struct wperf_graph g;
	bool marked[16] = { false };

	gb_init(&g, 0, 1000);
	uint32_t sh = child(&g, "sh", 100, 100, 0, 0);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	uint32_t prog = child(&g, "prog", 200, 200, 100, 10);
	uint32_t worker = child(&g, "prog-worker", 201, 200, 200, 20);
	uint32_t grandchild = child(&g, "helper", 300, 300, 201, 30);
	/* tid 400 ends, then is reused by a child of sh. */
	uint32_t old400 = child(&g, "old", 400, 400, 0, 0);
	uint32_t new400 = child(&g, "new", 400, 400, 100, 50);
	uint32_t of_old = child(&g, "of-old", 500, 500, 400, 40);   /* before the reuse */
	uint32_t of_new = child(&g, "of-new", 600, 600, 400, 60);   /* after it */
	uint32_t other = child(&g, "other", 900, 900, 1, 5);
	gb_sort(&g);

	marked[sh] = true;
	CHECK_INT(wperf_graph_mark_forked(&g, marked), 0);
	CHECK(marked[sh] && marked[prog] && marked[worker] && marked[grandchild]);
	CHECK(marked[new400] && marked[of_new]);
	CHECK(!marked[old400] && !marked[of_old] && !marked[other] && !marked[disk]);
	gb_free(&g);
}

static void test_parent_loops_end(void)
{
	struct wperf_graph g;
	bool marked[8] = { false };

	gb_init(&g, 0, 1000);
	uint32_t a = child(&g, "a", 700, 700, 701, 10);
	uint32_t b = child(&g, "b", 701, 701, 700, 10);
	uint32_t self = child(&g, "self", 800, 800, 800, 10);
	uint32_t root = child(&g, "root", 1, 1, 0, 0);
	gb_sort(&g);

	marked[root] = true;
	CHECK_INT(wperf_graph_mark_forked(&g, marked), 0);
	CHECK(marked[root] && !marked[a] && !marked[b] && !marked[self]);
	/* Marked inside the loop: the loop is marked, nothing more. */
	marked[a] = true;
	CHECK_INT(wperf_graph_mark_forked(&g, marked), 0);
	CHECK(marked[a] && marked[b] && !marked[self]);
	gb_free(&g);
}

static void test_empty_graph(void)
{
	struct wperf_graph g;
	bool marked[1] = { false };

	gb_init(&g, 0, 0);
	CHECK_INT(wperf_graph_mark_forked(&g, marked), 0);
	CHECK(!marked[0]);
	gb_free(&g);
}

static void test_tracer_threads(void)
{
	struct wperf_graph g;
	bool tracer[16] = { false };

	gb_init(&g, 0, 1000);
	uint32_t sessiond = child(&g, "lttng-sessiond", 300, 300, 1, 0);
	uint32_t timer = child(&g, "Timer", 301, 300, 300, 0);
	uint32_t consumerd = child(&g, "lttng-consumerd", 400, 400, 300, 0);
	uint32_t cli = child(&g, "lttng", 500, 500, 1, 0);
	uint32_t wperf = child(&g, "wperf", 600, 600, 1, 0);
	uint32_t listener = child(&g, "app-ust", 102, 100, 100, 0);
	uint32_t app = child(&g, "app", 100, 100, 1, 0);
	uint32_t timer_of_app = child(&g, "Timer", 101, 100, 100, 0);
	uint32_t unknown_pid = child(&g, "Timer", 700, -1, 0, 0);
	uint32_t like = child(&g, "lttng-sessiond2", 800, 800, 1, 0);
	/* No statedump, no fork seen: the process is unknown, the name is not. */
	uint32_t consumerd_no_pid = child(&g, "lttng-consumerd", 900, -1, 0, 0);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	gb_sort(&g);

	CHECK_INT(wperf_graph_mark_tracer_threads(&g, tracer), 0);
	CHECK(tracer[sessiond] && tracer[timer] && tracer[consumerd] && tracer[cli]);
	CHECK(tracer[wperf] && tracer[listener]);
	CHECK(!tracer[app] && !tracer[timer_of_app] && !tracer[unknown_pid]);
	CHECK(!tracer[like] && !tracer[disk]);
	CHECK(tracer[consumerd_no_pid]);
	gb_free(&g);
}

int main(void)
{
	RUN_TEST(test_tracer_threads);
	RUN_TEST(test_generations_and_reused_tids);
	RUN_TEST(test_parent_loops_end);
	RUN_TEST(test_empty_graph);
	return check_finish();
}
