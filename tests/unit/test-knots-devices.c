/* SPDX-License-Identifier: MIT */
/*
 * test-knots-devices.c — refinement weighs a thread's wait on a device
 * with the delays for a CPU that followed the device's wakeups
 * (woken_cpu_wait_ns, wperf-analysis(7) "The CPUs"), and a thread so
 * delayed is not taken for one limited by its own execution.
 *
 * The graph is Figure 1 of the paper recorded on a loaded two-CPU
 * machine (stress-ng --cpu 2 beside it), in milliseconds: the writer ran
 * 127 ms, waited 210 ms in 1883 fsyncs and was runnable 2691 ms, 2542 of
 * them right after its disk woke it. Its edge to the disk weighs 356 ms,
 * under the threshold (20% of 3.55 s); the disk's idle time charged to
 * the main thread (683 ms) closes a cycle through the producer. Cut by
 * its weight alone, the writer's wait went first and the writer was
 * reported alone, as a sink; its delays counted, the disk's wait on the
 * main thread goes first, the main thread and the producer are upstream,
 * and the knot is {writer, disk}.
 *
 * A thread paced by timers is not limited by its own execution either:
 * fio's main thread, which sleeps between status checks and which its
 * workers waited on once, at their start, is not what refinement leaves
 * of the {workers, disk} knot.
 */
#include "check.h"
#include "graph-builder.h"
#include "wperf/knots.h"

#define MS 1000000LL

static void build_loaded_fig1(struct wperf_graph *g, uint32_t *main_, uint32_t *producer,
			      uint32_t *writer, uint32_t *disk)
{
	gb_init(g, 0, 3550 * MS);
	*main_ = gb_thread(g, "fig1-pipeline", 100);
	*producer = gb_thread(g, "fig1-producer", 101);
	*writer = gb_thread(g, "fig1-writer", 102);
	*disk = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	g->vertices[*main_].running_ns = 21 * MS;
	g->vertices[*producer].running_ns = 19 * MS;
	g->vertices[*writer].running_ns = 127 * MS;
	g->vertices[*writer].runnable_ns = 2691 * MS;
	g->vertices[*writer].woken_cpu_wait_ns = 2542 * MS;
	gb_edge(g, *main_, *producer, 3003 * MS);
	gb_edge(g, *producer, *writer, 2891 * MS);
	gb_edge(g, *disk, *writer, 1530 * MS);
	gb_edge(g, *disk, *main_, 683 * MS);
	gb_edge(g, *writer, *disk, 356 * MS)->direct_ns = 210 * MS;
	gb_sort(g);
}

static void test_delays_after_disk_wakeups_hold_the_knot(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t main_, producer, writer, disk;
	struct wperf_knot_options o = { .threshold_ns = 710 * MS };

	build_loaded_fig1(&g, &main_, &producer, &writer, &disk);
	REQUIRE_INT(wperf_knots_find(&g, &o, &k), 0);
	REQUIRE_INT(k.n >= 1, 1);
	const struct wperf_knot *first = &k.items[0];
	CHECK_INT(first->kind, WPERF_KNOT);
	REQUIRE_INT(first->n_members, 2);
	CHECK_INT(first->members[0], writer);
	CHECK_INT(first->members[1], disk);
	CHECK_STR(first->stop_reason, "simple cycle");
	REQUIRE_INT(first->n_removed, 1);
	CHECK_INT(first->removed[0].edge, gb_find(&g, disk, main_));
	CHECK_INT(first->removed[0].weight_ns, 683 * MS);
	/* The weights reported are the edges' own. */
	CHECK_INT(first->weight_ns, (1530 + 356) * MS);
	wperf_knots_fini(&k);

	/* Without the delays (the same waits on an idle machine would have
	 * left none), the lightest edge is the writer's: it is cut and the
	 * writer, running and runnable longer than it waited, is a sink. */
	g.vertices[writer].woken_cpu_wait_ns = 0;
	REQUIRE_INT(wperf_knots_find(&g, &o, &k), 0);
	REQUIRE_INT(k.n >= 1, 1);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	REQUIRE_INT(k.items[0].n_members, 1);
	CHECK_INT(k.items[0].members[0], writer);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * fio recorded for 2 s (ms): the main thread M ran 227, was runnable 88
 * and slept 2060 on timers; its five workers W (one pool) waited on it
 * 421 at their start, and on the disk D 1200; D's idle time is charged to
 * W (900) and M (134); M waited on D 79, the workers on each other 67.
 * Cutting 67 and then 79 leaves M terminal, waited on through heavier
 * edges: a sink by its weights, but one that slept most of its time.
 */
static void test_sleeper_is_not_left_as_a_sink(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	struct wperf_knot_options o = { .threshold_ns = 600 * MS };

	gb_init(&g, 0, 3000 * MS);
	uint32_t m = gb_thread(&g, "fio", 200);
	uint32_t w = gb_thread(&g, "fio ×5", 201);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	g.vertices[m].running_ns = 227 * MS;
	g.vertices[m].runnable_ns = 88 * MS;
	g.vertices[m].waiting_ns[WPERF_V_TIMER] = 2060 * MS;
	g.vertices[w].running_ns = 500 * MS;
	gb_edge(&g, w, d, 1200 * MS);
	gb_edge(&g, d, w, 900 * MS);
	gb_edge(&g, w, m, 421 * MS);
	gb_edge(&g, d, m, 134 * MS);
	gb_edge(&g, m, d, 79 * MS);
	gb_edge(&g, w, w, 67 * MS);
	gb_sort(&g);
	REQUIRE_INT(wperf_knots_find(&g, &o, &k), 0);
	REQUIRE_INT(k.n >= 1, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[0].n_members, 3);
	CHECK_STR(k.items[0].stop_reason, "waiter");
	REQUIRE_INT(k.items[0].n_removed, 1);
	CHECK_INT(k.items[0].removed[0].edge, gb_find(&g, w, w));
	wperf_knots_fini(&k);

	/* Awake all along (its 2060 ms running instead), M is a sink. */
	g.vertices[m].waiting_ns[WPERF_V_TIMER] = 0;
	g.vertices[m].running_ns = 2287 * MS;
	REQUIRE_INT(wperf_knots_find(&g, &o, &k), 0);
	REQUIRE_INT(k.n >= 1, 1);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	REQUIRE_INT(k.items[0].n_members, 1);
	CHECK_INT(k.items[0].members[0], m);
	wperf_knots_fini(&k);
	gb_free(&g);
}

int main(void)
{
	RUN_TEST(test_delays_after_disk_wakeups_hold_the_knot);
	RUN_TEST(test_sleeper_is_not_left_as_a_sink);
	return check_finish();
}
