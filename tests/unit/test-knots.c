/* SPDX-License-Identifier: MIT */
/*
 * test-knots.c — knots, sinks, refinement, focus and background knots on
 * hand-built graphs with exactly known answers (wperf-method(7) §7).
 */
#include <pthread.h>
#include <stdlib.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/knots.h"

#define NO_THRESHOLD INT64_MAX

static int find_as_is(const struct wperf_graph *g, int64_t threshold, const bool *focus,
		      struct wperf_knots *out)
{
	struct wperf_knot_options o = { .threshold_ns = threshold, .focus = focus };
	return wperf_knots_find(g, &o, out);
}

/* Every thread ran the whole analysed time: no knot is background. */
static void busy(struct wperf_graph *g)
{
	for (size_t i = 0; i < g->n_vertices; i++)
		if (g->vertices[i].kind == WPERF_V_THREAD)
			g->vertices[i].running_ns = g->end_ns - g->begin_ns;
}

/* The tests of knots and refinement: their threads are busy, so that
 * background knots (tested on their own below) stay out of the way. */
static int find(struct wperf_graph *g, int64_t threshold, const bool *focus,
		struct wperf_knots *out)
{
	busy(g);
	return find_as_is(g, threshold, focus, out);
}

static uint32_t thread_running(struct wperf_graph *g, const char *comm, int64_t tid,
			       int64_t running_ns)
{
	uint32_t id = gb_thread(g, comm, tid);
	g->vertices[id].running_ns = running_ns;
	return id;
}

/* Check that k->members is exactly want[0..n). */
static void check_ids(const uint32_t *got, size_t n_got, const uint32_t *want, size_t n)
{
	CHECK_INT(n_got, n);
	for (size_t i = 0; i < n && i < n_got; i++)
		CHECK_INT(got[i], want[i]);
}

static void check_edge(const struct wperf_graph *g, size_t idx, uint32_t from, uint32_t to)
{
	CHECK(idx < g->n_edges);
	if (idx < g->n_edges) {
		CHECK_INT(g->edges[idx].from, from);
		CHECK_INT(g->edges[idx].to, to);
	}
}

/* A <-> B next to a chain C -> D -> E: one knot {A,B}, one sink {E}. */
static void test_cycle_and_sink(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "a", 1), b = gb_thread(&g, "b", 2);
	uint32_t c = gb_thread(&g, "c", 3), d = gb_thread(&g, "d", 4);
	uint32_t e = gb_thread(&g, "e", 5);
	gb_thread(&g, "idle", 6);               /* no edges: not reported */
	gb_edge(&g, a, b, 100);
	gb_edge(&g, b, a, 50);
	gb_edge(&g, c, d, 30);
	gb_edge(&g, d, e, 20);
	gb_edge(&g, c, a, 10);                  /* into the knot: irrelevant */
	gb_sort(&g);

	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	const struct wperf_knot *knot = &k.items[0], *sink = &k.items[1];
	CHECK_INT(knot->kind, WPERF_KNOT);
	check_ids(knot->members, knot->n_members, (uint32_t[]){ a, b }, 2);
	check_ids(knot->component, knot->n_component, (uint32_t[]){ a, b }, 2);
	CHECK_INT(knot->weight_ns, 150);
	REQUIRE_INT(knot->n_edges, 2);
	check_edge(&g, knot->edges[0], a, b);   /* heaviest first */
	check_edge(&g, knot->edges[1], b, a);
	CHECK_INT(knot->n_removed, 0);
	CHECK_STR(knot->stop_reason, "simple cycle");

	CHECK_INT(sink->kind, WPERF_SINK);
	check_ids(sink->members, sink->n_members, (uint32_t[]){ e }, 1);
	CHECK_INT(sink->weight_ns, 20);
	CHECK_INT(sink->n_edges, 0);
	CHECK_STR(sink->stop_reason, "sink");
	CHECK_STR(wperf_knot_kind_name(knot->kind), "knot");
	CHECK_STR(wperf_knot_kind_name(sink->kind), "sink");
	wperf_knots_fini(&k);
	CHECK_INT(k.n, 0);
	gb_free(&g);
}

/* A vertex that waits on itself (a merged pool) is a knot of one. */
static void test_self_loop(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "pool", 1), b = gb_thread(&g, "client", 2);
	gb_edge(&g, a, a, 40);
	gb_edge(&g, b, a, 10);
	gb_sort(&g);

	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ a }, 1);
	CHECK_INT(k.items[0].weight_ns, 40);
	REQUIRE_INT(k.items[0].n_edges, 1);
	check_edge(&g, k.items[0].edges[0], a, a);
	CHECK_STR(k.items[0].stop_reason, "single vertex");
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* Waits on timer/unknown and empty edges are not dependencies. */
static void test_category_ignored(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "a", 1);
	uint32_t t = gb_vertex(&g, WPERF_V_TIMER, "timer");
	uint32_t u = gb_vertex(&g, WPERF_V_UNKNOWN, "unknown");
	uint32_t c = gb_thread(&g, "c", 3), d = gb_thread(&g, "d", 4);
	gb_edge(&g, a, t, 100);
	gb_edge(&g, a, u, 50);
	gb_edge(&g, c, d, 0);                   /* weight 0: ignored */
	gb_sort(&g);

	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	CHECK_INT(k.n, 0);                      /* timer is not a sink */
	wperf_knots_fini(&k);

	/* Once someone really waits on A, A is the sink, not the timer. */
	uint32_t b = gb_thread(&g, "b", 2);
	gb_edge(&g, b, a, 10);
	gb_sort(&g);
	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ a }, 1);
	CHECK_INT(k.items[0].weight_ns, 10);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * Four threads, all strongly connected:
 *   A->B 100, B->A 90, B->C 20, C->D 40, D->C 30, D->A 8, C->A 5, D->D 3
 * Refinement cuts D->D (3; still strongly connected), C->A (5; still
 * strongly connected through D->A), D->A (8; now C and D cannot reach A
 * or B). {A,B} waits on {C,D} through B->C, so {C,D} is the terminal part:
 * a simple cycle of weight 70.
 */
static void build_four(struct wperf_graph *g, uint32_t v[4])
{
	static const char *const names[] = { "A", "B", "C", "D" };
	static const struct gb_wait waits[] = {
		{ 0, 1, 100 }, { 1, 0, 90 }, { 1, 2, 20 }, { 2, 3, 40 },
		{ 3, 2, 30 }, { 3, 0, 8 }, { 2, 0, 5 }, { 3, 3, 3 },
	};

	gb_init(g, 0, 1000);
	gb_threads(g, names, 4, 10, v);
	gb_waits(g, v, waits, sizeof waits / sizeof waits[0]);
}

static void test_refinement_order(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t v[4];
	build_four(&g, v);

	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	const struct wperf_knot *kn = &k.items[0];
	CHECK_INT(kn->kind, WPERF_KNOT);
	check_ids(kn->members, kn->n_members, (uint32_t[]){ v[2], v[3] }, 2);
	check_ids(kn->component, kn->n_component, v, 4);
	CHECK_INT(kn->weight_ns, 70);
	CHECK_STR(kn->stop_reason, "simple cycle");
	REQUIRE_INT(kn->n_edges, 2);
	check_edge(&g, kn->edges[0], v[2], v[3]);
	check_edge(&g, kn->edges[1], v[3], v[2]);
	REQUIRE_INT(kn->n_removed, 3);
	check_edge(&g, kn->removed[0].edge, v[3], v[3]);
	CHECK_INT(kn->removed[0].weight_ns, 3);
	check_edge(&g, kn->removed[1].edge, v[2], v[0]);
	CHECK_INT(kn->removed[1].weight_ns, 5);
	check_edge(&g, kn->removed[2].edge, v[3], v[0]);
	CHECK_INT(kn->removed[2].weight_ns, 8);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* Same answer when the edges do not come sorted. */
static void test_unsorted_edges(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t v[4];
	build_four(&g, v);
	for (size_t i = 0; i < g.n_edges / 2; i++) {
		struct wperf_edge t = g.edges[i];
		g.edges[i] = g.edges[g.n_edges - 1 - i];
		g.edges[g.n_edges - 1 - i] = t;
	}
	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ v[2], v[3] }, 2);
	REQUIRE_INT(k.items[0].n_removed, 3);
	check_edge(&g, k.items[0].removed[2].edge, v[3], v[0]);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * A->B 10, B->A 2, A->C 3, C->A 10: cutting B->A leaves B waiting on
 * nobody, the terminal part is {B} alone: without a self-loop that is a
 * sink (wperf-method(7) §7), weighed by what its component waits on it (A->B).
 */
/* A -> B 10, B -> A 2, A -> C 3, C -> A 10: refinement leaves B alone. */
static void build_three(struct wperf_graph *g, uint32_t v[3])
{
	static const char *const names[] = { "A", "B", "C" };
	static const struct gb_wait waits[] = {
		{ 0, 1, 10 }, { 1, 0, 2 }, { 0, 2, 3 }, { 2, 0, 10 },
	};

	gb_init(g, 0, 1000);
	gb_threads(g, names, 3, 1, v);
	gb_waits(g, v, waits, sizeof waits / sizeof waits[0]);
}

static void test_refine_to_single_vertex(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t v[3];

	build_three(&g, v);
	uint32_t a = v[0], b = v[1], c = v[2];

	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	const struct wperf_knot *kn = &k.items[0];
	CHECK_INT(kn->kind, WPERF_SINK);
	check_ids(kn->members, kn->n_members, (uint32_t[]){ b }, 1);
	check_ids(kn->component, kn->n_component, (uint32_t[]){ a, b, c }, 3);
	CHECK_INT(kn->weight_ns, 10);
	CHECK_INT(kn->n_edges, 0);
	CHECK_STR(kn->stop_reason, "single vertex");
	REQUIRE_INT(kn->n_removed, 1);
	check_edge(&g, kn->removed[0].edge, b, a);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* The threshold stops refinement as soon as the lightest edge reaches it. */
static void test_threshold(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t v[4];
	build_four(&g, v);

	CHECK_INT(find(&g, 6, NULL, &k), 0);   /* cuts 3 and 5, not 8 */
	REQUIRE_INT(k.n, 1);
	const struct wperf_knot *kn = &k.items[0];
	check_ids(kn->members, kn->n_members, v, 4);
	CHECK_STR(kn->stop_reason, "threshold");
	CHECK_INT(kn->weight_ns, 100 + 90 + 40 + 30 + 20 + 8);
	REQUIRE_INT(kn->n_removed, 2);
	CHECK_INT(kn->removed[0].weight_ns, 3);
	CHECK_INT(kn->removed[1].weight_ns, 5);
	REQUIRE_INT(kn->n_edges, 6);
	check_edge(&g, kn->edges[0], v[0], v[1]);
	check_edge(&g, kn->edges[1], v[1], v[0]);
	check_edge(&g, kn->edges[2], v[2], v[3]);
	check_edge(&g, kn->edges[3], v[3], v[2]);
	check_edge(&g, kn->edges[4], v[1], v[2]);
	check_edge(&g, kn->edges[5], v[3], v[0]);
	wperf_knots_fini(&k);

	/* Lightest edge (3) already at the threshold: nothing is cut. */
	CHECK_INT(find(&g, 3, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].n_removed, 0);
	CHECK_INT(k.items[0].n_edges, 8);
	CHECK_INT(k.items[0].weight_ns, 100 + 90 + 40 + 30 + 20 + 8 + 5 + 3);
	CHECK_STR(k.items[0].stop_reason, "threshold");
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * Two knots and a sink: {C,D} (200) before {A,B} (20) before sink E (7).
 * G waits on C, I only on a timer, H on nothing.
 */
struct focus_graph {
	struct wperf_graph g;
	uint32_t a, b, c, d, e, f, gg, h, i, timer;
};

static void build_focus(struct focus_graph *fg)
{
	struct wperf_graph *g = &fg->g;
	gb_init(g, 0, 1000);
	fg->a = gb_thread(g, "a", 1);
	fg->b = gb_thread(g, "b", 2);
	fg->c = gb_thread(g, "c", 3);
	fg->d = gb_thread(g, "d", 4);
	fg->e = gb_thread(g, "e", 5);
	fg->f = gb_thread(g, "f", 6);
	fg->gg = gb_thread(g, "g", 7);
	fg->h = gb_thread(g, "h", 8);
	fg->i = gb_thread(g, "i", 9);
	fg->timer = gb_vertex(g, WPERF_V_TIMER, "timer");
	gb_edge(g, fg->a, fg->b, 10);
	gb_edge(g, fg->b, fg->a, 10);
	gb_edge(g, fg->c, fg->d, 100);
	gb_edge(g, fg->d, fg->c, 100);
	gb_edge(g, fg->f, fg->e, 7);
	gb_edge(g, fg->gg, fg->c, 1);
	gb_edge(g, fg->i, fg->timer, 500);
	gb_sort(g);
}

/* Run with focus on the given vertices (none: no focus) and check the
 * first member of each result, in report order. */
static void focus_run(struct focus_graph *fg, const uint32_t *on, size_t n_on,
		      const uint32_t *want_first, size_t n_want)
{
	bool focus[16] = { false };
	struct wperf_knots k;

	for (size_t i = 0; i < n_on; i++)
		focus[on[i]] = true;
	CHECK_INT(find(&fg->g, NO_THRESHOLD, n_on ? focus : NULL, &k), 0);
	CHECK_INT(k.n, n_want);
	for (size_t i = 0; i < n_want && i < k.n; i++)
		CHECK_INT(k.items[i].members[0], want_first[i]);
	wperf_knots_fini(&k);
}

static void test_focus(void)
{
	struct focus_graph fg;
	build_focus(&fg);
	/* Unfocused: knots heaviest first, then the sink. */
	focus_run(&fg, NULL, 0, (uint32_t[]){ fg.c, fg.a, fg.e }, 3);
	focus_run(&fg, (uint32_t[]){ fg.a }, 1, (uint32_t[]){ fg.a }, 1);
	focus_run(&fg, (uint32_t[]){ fg.gg }, 1, (uint32_t[]){ fg.c }, 1);
	focus_run(&fg, (uint32_t[]){ fg.f }, 1, (uint32_t[]){ fg.e }, 1);
	focus_run(&fg, (uint32_t[]){ fg.e }, 1, (uint32_t[]){ fg.e }, 1);
	focus_run(&fg, (uint32_t[]){ fg.a, fg.f }, 2, (uint32_t[]){ fg.a, fg.e }, 2);
	focus_run(&fg, (uint32_t[]){ fg.h }, 1, NULL, 0);
	focus_run(&fg, (uint32_t[]){ fg.i }, 1, NULL, 0);  /* timer: not a sink */
	gb_free(&fg.g);
}

/* Nothing in, nothing out; corrupt edges are skipped, not followed. */
static void test_degenerate_input(void)
{
	struct wperf_graph g;
	struct wperf_knots k;

	gb_init(&g, 0, 0);
	CHECK_INT(wperf_knots_find(&g, NULL, &k), 0);
	CHECK_INT(k.n, 0);
	wperf_knots_fini(&k);

	uint32_t a = gb_thread(&g, "a", 1), b = gb_thread(&g, "b", 2);
	gb_edge(&g, a, 77, 10);                 /* target out of range */
	gb_edge(&g, 99, a, 10);                 /* source out of range */
	gb_edge(&g, b, a, -5);                  /* negative weight */
	CHECK_INT(wperf_knots_find(&g, NULL, &k), 0);
	CHECK_INT(k.n, 0);
	wperf_knots_fini(&k);
	wperf_knots_fini(NULL);
	gb_free(&g);
}

/*
 * 100,000-vertex cycle (weight 10 per edge) with one light chord, and a
 * 100,000-vertex chain (weight 5) beside it. Depth-first search goes
 * 100,000 deep in both: this runs on a thread with a 256 KiB stack, which
 * a recursive search would overflow.
 */
#define BIG 100000u

static void *big_graph_thread(void *arg)
{
	struct wperf_graph g;
	struct wperf_knots k;
	(void)arg;

	gb_init(&g, 0, 1000000);
	for (uint32_t i = 0; i < 2 * BIG; i++)
		gb_vertex(&g, WPERF_V_THREAD, NULL);
	for (uint32_t i = 0; i < BIG; i++)
		gb_edge(&g, i, (i + 1) % BIG, 10);
	gb_edge(&g, 0, BIG / 2, 1);
	for (uint32_t i = BIG; i + 1 < 2 * BIG; i++)
		gb_edge(&g, i, i + 1, 5);
	gb_sort(&g);
	busy(&g);

	CHECK_INT(wperf_knots_find(&g, NULL, &k), 0);
	if (k.n == 2) {
		CHECK_INT(k.items[0].kind, WPERF_KNOT);
		CHECK_INT(k.items[0].n_members, BIG);
		CHECK_INT(k.items[0].n_edges, BIG);
		CHECK_INT(k.items[0].weight_ns, 10 * (int64_t)BIG);
		CHECK_STR(k.items[0].stop_reason, "simple cycle");
		CHECK_INT(k.items[0].n_removed, 1);
		if (k.items[0].n_removed == 1)
			check_edge(&g, k.items[0].removed[0].edge, 0, BIG / 2);
		CHECK_INT(k.items[1].kind, WPERF_SINK);
		CHECK_INT(k.items[1].members[0], 2 * BIG - 1);
		CHECK_INT(k.items[1].weight_ns, 5);
	} else {
		CHECK_INT(k.n, 2);
	}
	wperf_knots_fini(&k);
	gb_free(&g);
	return NULL;
}

static void test_big_graph_small_stack(void)
{
	pthread_attr_t attr;
	pthread_t t;

	CHECK_INT(pthread_attr_init(&attr), 0);
	CHECK_INT(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
	CHECK_INT(pthread_create(&t, &attr, big_graph_thread, NULL), 0);
	CHECK_INT(pthread_join(t, NULL), 0);
	pthread_attr_destroy(&attr);
}


/* ------------------------------------------------------------------ */
/* Background knots                                                    */
/* ------------------------------------------------------------------ */

/*
 * A heartbeat and its helper wait on each other (300 + 200) and run 150
 * of 1000 ns between them; the writer and the disk wait on each other
 * (500 + 300) and the writer runs 400. Only the first is background: the
 * disk keeps the second a knot. Background knots come last.
 */
static void test_background_beside_device_knot(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t hb = thread_running(&g, "hb", 1, 100);
	uint32_t helper = thread_running(&g, "helper", 2, 50);
	uint32_t writer = thread_running(&g, "writer", 3, 400);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	gb_edge(&g, hb, helper, 300);
	gb_edge(&g, helper, hb, 200);
	gb_edge(&g, writer, disk, 500);
	gb_edge(&g, disk, writer, 300);
	gb_sort(&g);

	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	const struct wperf_knot *io = &k.items[0], *bg = &k.items[1];
	CHECK_INT(io->kind, WPERF_KNOT);
	check_ids(io->members, io->n_members, (uint32_t[]){ writer, disk }, 2);
	CHECK_INT(io->weight_ns, 800);
	CHECK_INT(io->cpu_ns, 400);
	CHECK_INT(bg->kind, WPERF_BACKGROUND);
	check_ids(bg->members, bg->n_members, (uint32_t[]){ hb, helper }, 2);
	check_ids(bg->component, bg->n_component, (uint32_t[]){ hb, helper }, 2);
	CHECK_INT(bg->weight_ns, 500);
	CHECK_INT(bg->cpu_ns, 150);
	REQUIRE_INT(bg->n_edges, 2);
	check_edge(&g, bg->edges[0], hb, helper);
	check_edge(&g, bg->edges[1], helper, hb);
	CHECK_STR(bg->stop_reason, "simple cycle");
	CHECK_STR(wperf_knot_kind_name(bg->kind), "background");
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * Background is what the focus's work does not wait on
 * (doc/wperf-analysis.7.md, "Background knots"):
 *   {A,B} (idle, 50 + 50): C waits on A (40) and D on C (30);
 *   {E,F} (busy, 60 + 60) waits on A (5);
 *   {I,J} (idle, 20 + 20) waits on A (5).
 * Everything waits on {A,B}, directly or through C: it is the knot, however
 * little CPU it uses. Without those waits ({A,B} alone, {E,F} busy), it is
 * background; and when it holds the focus's only work, it is not.
 */
struct exposing_graph {
	struct wperf_graph g;
	uint32_t a, b, c, d, e, f, i, j;
};

static void build_exposing(struct exposing_graph *x, bool waits_on_a)
{
	struct wperf_graph *g = &x->g;
	gb_init(g, 0, 1000);
	x->a = thread_running(g, "a", 1, 10);
	x->b = thread_running(g, "b", 2, 10);
	x->c = thread_running(g, "c", 3, 900);
	x->d = thread_running(g, "d", 4, 900);
	x->e = thread_running(g, "e", 5, 600);
	x->f = thread_running(g, "f", 6, 600);
	x->i = thread_running(g, "i", 7, 1);
	x->j = thread_running(g, "j", 8, 1);
	gb_edge(g, x->a, x->b, 50);
	gb_edge(g, x->b, x->a, 50);
	gb_edge(g, x->d, x->c, 30);
	gb_edge(g, x->e, x->f, 60);
	gb_edge(g, x->f, x->e, 60);
	gb_edge(g, x->i, x->j, 20);
	gb_edge(g, x->j, x->i, 20);
	if (waits_on_a) {
		gb_edge(g, x->c, x->a, 40);
		gb_edge(g, x->e, x->a, 5);
		gb_edge(g, x->i, x->a, 5);
	}
	gb_sort(g);
}

static void test_background_is_what_nobody_waits_on(void)
{
	struct exposing_graph x;
	struct wperf_knots k;
	build_exposing(&x, true);

	/* Waited on by C, E and I: the one knot, idle or not. */
	CHECK_INT(find_as_is(&x.g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ x.a, x.b }, 2);
	CHECK_INT(k.items[0].weight_ns, 100);
	CHECK_INT(k.items[0].cpu_ns, 20);
	wperf_knots_fini(&k);
	gb_free(&x.g);

	/* Nobody waits on the idle knots: background, after the busy knot
	 * and C (D waits on it, C waits on nothing: a sink). */
	build_exposing(&x, false);
	CHECK_INT(find_as_is(&x.g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 4);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ x.e, x.f }, 2);
	CHECK_INT(k.items[0].cpu_ns, 1200);
	CHECK_INT(k.items[1].kind, WPERF_SINK);
	check_ids(k.items[1].members, k.items[1].n_members, (uint32_t[]){ x.c }, 1);
	CHECK_INT(k.items[2].kind, WPERF_BACKGROUND);   /* heavier background first */
	check_ids(k.items[2].members, k.items[2].n_members, (uint32_t[]){ x.a, x.b }, 2);
	CHECK_INT(k.items[2].cpu_ns, 20);
	CHECK_INT(k.items[3].kind, WPERF_BACKGROUND);
	check_ids(k.items[3].members, k.items[3].n_members, (uint32_t[]){ x.i, x.j }, 2);
	wperf_knots_fini(&k);

	/* Focused on A: {A,B} is the focus's only work, not background. */
	bool focus[8] = { false };
	focus[x.a] = true;
	CHECK_INT(find_as_is(&x.g, NO_THRESHOLD, focus, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ x.a, x.b }, 2);
	wperf_knots_fini(&k);
	/* Focused on A and E: E's knot is the work, {A,B} background. */
	focus[x.e] = true;
	CHECK_INT(find_as_is(&x.g, NO_THRESHOLD, focus, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ x.e, x.f }, 2);
	CHECK_INT(k.items[1].kind, WPERF_BACKGROUND);
	check_ids(k.items[1].members, k.items[1].n_members, (uint32_t[]){ x.a, x.b }, 2);
	wperf_knots_fini(&k);
	gb_free(&x.g);
}

/* A disk in the knot: blocking I/O, never background, however idle. */
static void test_device_knot_never_background(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t w = thread_running(&g, "writer", 1, 10);
	uint32_t s = thread_running(&g, "syncer", 2, 0);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	gb_edge(&g, w, s, 100);
	gb_edge(&g, s, disk, 300);
	gb_edge(&g, disk, w, 200);
	gb_sort(&g);

	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	check_ids(k.items[0].members, k.items[0].n_members, (uint32_t[]){ w, s, disk }, 3);
	CHECK_INT(k.items[0].weight_ns, 600);
	CHECK_INT(k.items[0].cpu_ns, 10);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* The rule is strict: exactly one CPU's worth of demand (600 + 400 of
 * 1000) is not background, one nanosecond less is, and runnable time is
 * demand too. So is a lone idle
 * thread waiting on itself (a knot of one). */
static void test_background_boundary(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	gb_init(&g, 0, 1000);
	uint32_t a = thread_running(&g, "a", 1, 600), b = thread_running(&g, "b", 2, 400);
	/* A busy pair beside: the report's work is not all in {a, b}
	 * (alone, {a, b} would be the work, never background). */
	uint32_t p = thread_running(&g, "p", 4, 1000), q = thread_running(&g, "q", 5, 1000);
	gb_edge(&g, a, b, 70);
	gb_edge(&g, b, a, 30);
	gb_edge(&g, p, q, 500);
	gb_edge(&g, q, p, 500);
	gb_sort(&g);

	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	CHECK_INT(k.items[1].cpu_ns, 1000);
	wperf_knots_fini(&k);

	g.vertices[a].running_ns = 599;
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[1].kind, WPERF_BACKGROUND);
	CHECK_INT(k.items[1].cpu_ns, 999);
	wperf_knots_fini(&k);

	/* Focused on a: {a, b} is the focus's only work. */
	bool focus[8] = { false };
	focus[a] = true;
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, focus, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[0].cpu_ns, 999);
	wperf_knots_fini(&k);

	/* Wanting a CPU counts as much as having one: a lock-contention knot
	 * of CPU-starved threads is not background. */
	g.vertices[b].runnable_ns = 1;
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	CHECK_INT(k.items[1].cpu_ns, 1000);
	wperf_knots_fini(&k);
	g.vertices[b].runnable_ns = 0;

	uint32_t solo = thread_running(&g, "solo", 3, 999);
	gb_edge(&g, solo, solo, 5);
	gb_sort(&g);
	g.vertices[a].running_ns = 600;
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 3);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	check_ids(k.items[1].members, k.items[1].n_members, (uint32_t[]){ a, b }, 2);
	CHECK_INT(k.items[2].kind, WPERF_BACKGROUND);
	check_ids(k.items[2].members, k.items[2].n_members, (uint32_t[]){ solo }, 1);
	CHECK_STR(k.items[2].stop_reason, "single vertex");
	wperf_knots_fini(&k);

	/* An empty analysed range says nothing about utilisation. */
	g.end_ns = 0;
	g.vertices[solo].running_ns = 0;
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 3);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	CHECK_INT(k.items[2].kind, WPERF_KNOT);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* ---- The knot rule: strict (the paper) and dominant (the default) ---- */

static int find_rule(struct wperf_graph *g, int64_t threshold, int64_t leave_ppm,
		     int64_t tie_ppm, struct wperf_knots *out)
{
	struct wperf_knot_options o = { .threshold_ns = threshold, .leave_ppm = leave_ppm,
					.tie_ppm = tie_ppm };
	busy(g);
	return wperf_knots_find(g, &o, out);
}

/* A cycle A -> disk -> B -> A weighing 1000 in all; A waited once on the
 * setup thread S (leaving). S waits on nothing. */
static void build_leaky_group(struct wperf_graph *g, int64_t leaving,
			      uint32_t *a, uint32_t *b, uint32_t *d, uint32_t *setup)
{
	gb_init(g, 0, 1000);
	*a = gb_thread(g, "a", 1);
	*b = gb_thread(g, "b", 2);
	*d = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	*setup = gb_thread(g, "setup", 3);
	gb_edge(g, *a, *d, 400);
	gb_edge(g, *d, *b, 300);
	gb_edge(g, *b, *a, 300);
	gb_edge(g, *a, *setup, leaving);
}

/* Leaving weight at most 20% of the internal weight: a knot, with its
 * leaving edge; the setup thread is still a sink of its own. Exactly 20%
 * is in (the rule is <=). */
static void test_dominant_light_leaving_edge(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t a, b, d, setup;

	build_leaky_group(&g, 200, &a, &b, &d, &setup);
	gb_sort(&g);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, WPERF_KNOT_LEAVE_DEFAULT_PPM, 0, &k), 0);
	REQUIRE_INT(k.n, 2);
	const struct wperf_knot *kn = &k.items[0];
	CHECK_INT(kn->kind, WPERF_KNOT);
	check_ids(kn->members, kn->n_members, (uint32_t[]){ a, b, d }, 3);
	CHECK_INT(kn->weight_ns, 1000);
	CHECK_INT(kn->n_removed, 0);
	CHECK_STR(kn->stop_reason, "simple cycle");
	REQUIRE_INT(kn->n_leaving, 1);
	check_edge(&g, kn->leaving[0], a, setup);
	CHECK_INT(kn->leaving_ns, 200);
	CHECK_INT(k.items[1].kind, WPERF_SINK);
	check_ids(k.items[1].members, 1, (uint32_t[]){ setup }, 1);
	CHECK_INT(k.n_groups, 0);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* Over 20% leaves: not a knot. Heavy (internal weight >= threshold), it
 * is kept as a group with its leaving edge, for the report. */
static void test_dominant_heavy_leaving_edge(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t a, b, d, setup;

	build_leaky_group(&g, 201, &a, &b, &d, &setup);
	gb_sort(&g);
	CHECK_INT(find_rule(&g, 400, WPERF_KNOT_LEAVE_DEFAULT_PPM, 0, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	check_ids(k.items[0].members, 1, (uint32_t[]){ setup }, 1);
	REQUIRE_INT(k.n_groups, 1);
	check_ids(k.groups[0].members, k.groups[0].n_members, (uint32_t[]){ a, b, d }, 3);
	CHECK_INT(k.groups[0].weight_ns, 1000);
	CHECK_INT(k.groups[0].leaving_ns, 201);
	REQUIRE_INT(k.groups[0].n_leaving, 1);
	check_edge(&g, k.groups[0].leaving[0], a, setup);
	wperf_knots_fini(&k);
	/* Lighter than the threshold: not worth a word. */
	CHECK_INT(find_rule(&g, 1001, WPERF_KNOT_LEAVE_DEFAULT_PPM, 0, &k), 0);
	CHECK_INT(k.n, 1);
	CHECK_INT(k.n_groups, 0);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* The strict rule (leave_ppm 0, the paper's) keeps the old answer: any
 * leaving edge, however light, and the group is no knot. */
static void test_strict_rule(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t a, b, d, setup;

	build_leaky_group(&g, 1, &a, &b, &d, &setup);
	gb_sort(&g);
	CHECK_INT(find_rule(&g, 400, 0, 0, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	check_ids(k.items[0].members, 1, (uint32_t[]){ setup }, 1);
	REQUIRE_INT(k.n_groups, 1);
	CHECK_INT(k.groups[0].leaving_ns, 1);
	/* Its internal edges' own waiting (all of it, gb_edge) and its
	 * members' time: a and b ran all along (find_rule), the disk's is
	 * the analysed duration. */
	CHECK_INT(k.groups[0].own_ns, 1000);
	CHECK_INT(k.groups[0].waiters_ns, 3000);
	wperf_knots_fini(&k);
	/* Without the leaving edge it is a knot under both rules. */
	gb_free(&g);
	build_leaky_group(&g, 0, &a, &b, &d, &setup);
	gb_sort(&g);
	CHECK_INT(find_rule(&g, 400, 0, 0, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[0].n_leaving, 0);
	CHECK_INT(k.items[0].leaving_ns, 0);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* The rule decides which components are knots, and which parts of a knot
 * refinement keeps: {A,B} (1000) and {C,D} (1000) joined by A -> C 50 and
 * C -> A 10. Cutting C -> A leaves {C,D} terminal and {A,B} waiting on it
 * through an edge refinement did not cut: {C,D} is a knot under both
 * rules, and {A,B}, which leaves 50 of its 1000, under the dominant rule
 * too, as it is when C -> A was never there: a 10 ns wait must not decide
 * whether a knot of 1000 exists. */
/* {a,b} and {c,d}, 500 each way, a -> c 50 and, when back, c -> a 10. */
static void build_two_cycles(struct wperf_graph *g, uint32_t v[4], bool back)
{
	static const char *const names[] = { "a", "b", "c", "d" };
	static const struct gb_wait waits[] = {
		{ 0, 1, 500 }, { 1, 0, 500 }, { 2, 3, 500 }, { 3, 2, 500 },
		{ 0, 2, 50 }, { 2, 0, 10 },
	};

	gb_init(g, 0, 1000);
	gb_threads(g, names, 4, 1, v);
	gb_waits(g, v, waits, sizeof waits / sizeof waits[0] - !back);
}

static void test_dominant_and_refinement(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t v[4];

	build_two_cycles(&g, v, true);
	uint32_t a = v[0], b = v[1], c = v[2], d = v[3];
	for (int strict = 0; strict < 2; strict++) {
		CHECK_INT(find_rule(&g, NO_THRESHOLD, strict ? 0 : WPERF_KNOT_LEAVE_DEFAULT_PPM, 0,
				    &k), 0);
		REQUIRE_INT(k.n, strict ? 1 : 2);
		const struct wperf_knot *kn = NULL;
		for (size_t i = 0; i < k.n; i++)
			if (k.items[i].leaving_ns == 0)
				kn = &k.items[i];
		REQUIRE_INT(kn != NULL, 1);
		CHECK_INT(kn->kind, WPERF_KNOT);
		check_ids(kn->members, kn->n_members, (uint32_t[]){ c, d }, 2);
		check_ids(kn->component, kn->n_component, (uint32_t[]){ a, b, c, d }, 4);
		REQUIRE_INT(kn->n_removed, 1);
		check_edge(&g, kn->removed[0].edge, c, a);
		if (!strict) {
			const struct wperf_knot *up = kn == &k.items[0] ? &k.items[1] : &k.items[0];
			CHECK_INT(up->kind, WPERF_KNOT);
			check_ids(up->members, up->n_members, (uint32_t[]){ a, b }, 2);
			CHECK_INT(up->leaving_ns, 50);
		}
		wperf_knots_fini(&k);
	}
	gb_free(&g);

	build_two_cycles(&g, v, false);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, WPERF_KNOT_LEAVE_DEFAULT_PPM, 0, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	CHECK_INT(k.items[0].leaving_ns + k.items[1].leaving_ns, 50);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* ---- Ties: alike edges are cut together ---- */

/* Four workers each waiting w[i] on the disk, the disk idle 2000 for
 * each of them: refinement cuts the lightest worker -> disk edges first. */
static void build_pool(struct wperf_graph *g, const int64_t w[4], uint32_t ids[4])
{
	gb_init(g, 0, 10000);
	uint32_t d = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	for (int i = 0; i < 4; i++)
		ids[i] = gb_thread(g, "worker", 10 + i);
	for (int i = 0; i < 4; i++) {
		gb_edge(g, ids[i], d, w[i]);
		gb_edge(g, d, ids[i], 2000);
	}
	gb_sort(g);
}

/* The sinks of k, as a bitmask of positions in ids[]. */
static unsigned sinks_among(const struct wperf_knots *k, const uint32_t ids[4])
{
	unsigned m = 0;
	for (size_t i = 0; i < k->n; i++)
		for (int j = 0; j < 4; j++)
			if (k->items[i].kind == WPERF_SINK && k->items[i].members[0] == ids[j])
				m |= 1u << j;
	return m;
}

/* Four equal workers: all four edges are cut at once, and all four are
 * left (sinks of the same knot), not one picked by its vertex id. */
static void test_equal_ties_cut_together(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t ids[4];

	build_pool(&g, (int64_t[]){ 1000, 1000, 1000, 1000 }, ids);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, 0, 0, &k), 0);
	CHECK_INT(k.n, 4);
	CHECK_INT(sinks_among(&k, ids), 0xf);
	for (size_t i = 0; i < k.n; i++) {
		CHECK_INT(k.items[i].n_component, 5);
		CHECK_INT(k.items[i].n_removed, 4);
		CHECK_INT(k.items[i].weight_ns, 2000);
	}
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* Near-equal (within 1% of the lightest): one tie with the tolerance,
 * all four stay; without it only the two exactly equal ones are cut. An
 * edge 1.1% above the lightest is not in the tie. */
static void test_near_equal_ties(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t ids[4];

	build_pool(&g, (int64_t[]){ 1000, 1000, 1006, 1010 }, ids);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, 0, WPERF_KNOT_TIE_DEFAULT_PPM, &k), 0);
	CHECK_INT(sinks_among(&k, ids), 0xf);
	wperf_knots_fini(&k);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, 0, 0, &k), 0);
	CHECK_INT(sinks_among(&k, ids), 0x3);
	wperf_knots_fini(&k);
	gb_free(&g);

	build_pool(&g, (int64_t[]){ 1000, 1000, 1006, 1011 }, ids);
	CHECK_INT(find_rule(&g, NO_THRESHOLD, 0, WPERF_KNOT_TIE_DEFAULT_PPM, &k), 0);
	CHECK_INT(sinks_among(&k, ids), 0x7);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* A tie with an edge at the threshold is not cut at all: the knot stops
 * whole rather than losing some of its alike members. */
static void test_tie_at_threshold(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	uint32_t ids[4];

	build_pool(&g, (int64_t[]){ 1000, 1000, 1006, 1010 }, ids);
	CHECK_INT(find_rule(&g, 1005, 0, WPERF_KNOT_TIE_DEFAULT_PPM, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	CHECK_INT(k.items[0].n_members, 5);
	CHECK_INT(k.items[0].n_removed, 0);
	CHECK_STR(k.items[0].stop_reason, "threshold");
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* Findings are ranked by weight, knots and sinks together: a sink heavier
 * than a knot comes first; a sink paced by timers (it sleeps, others wait
 * on it) comes after them however heavy; background knots come last
 * whatever their weight. */
static void test_report_order(void)
{
	struct wperf_graph g;
	struct wperf_knots k;

	gb_init(&g, 0, 1000);
	uint32_t a = thread_running(&g, "a", 1, 1000), b = thread_running(&g, "b", 2, 1000);
	uint32_t c = thread_running(&g, "c", 3, 0), s = thread_running(&g, "s", 4, 1000);
	uint32_t h1 = thread_running(&g, "h1", 5, 10), h2 = thread_running(&g, "h2", 6, 10);
	uint32_t sleeper = thread_running(&g, "main", 7, 100), parent = thread_running(&g, "sh", 8, 0);
	g.vertices[sleeper].waiting_ns[WPERF_V_TIMER] = 900;
	gb_edge(&g, a, b, 10);
	gb_edge(&g, b, a, 10);          /* knot {a,b}: 20 */
	gb_edge(&g, c, s, 30);          /* sink s: 30 */
	gb_edge(&g, h1, h2, 400);
	gb_edge(&g, h2, h1, 400);       /* background {h1,h2}: 800, 20 of CPU */
	gb_edge(&g, parent, sleeper, 500);      /* paced by timers: 500 */
	gb_sort(&g);
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 4);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	check_ids(k.items[0].members, 1, (uint32_t[]){ s }, 1);
	CHECK_INT(k.items[1].kind, WPERF_KNOT);
	check_ids(k.items[1].members, 2, (uint32_t[]){ a, b }, 2);
	CHECK_INT(k.items[2].kind, WPERF_SINK);
	check_ids(k.items[2].members, 1, (uint32_t[]){ sleeper }, 1);
	CHECK(k.items[2].paced && !k.items[0].paced);
	CHECK_INT(k.items[3].kind, WPERF_BACKGROUND);
	check_ids(k.items[3].members, 2, (uint32_t[]){ h1, h2 }, 2);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * With a focus, what the focus waits on a finding ranks it before its
 * weight (knots.c, weigh_focus_waits): the program p waits 300 on the
 * worker w (a sink of its own work) and 20 on the flusher k, whose knot
 * with the disk weighs 900, most of it the disk's idle edge. Unfocused,
 * the knot comes first; focused on p, the sink, and focus_ns says why.
 */
static void test_focused_order(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	bool focus[8] = { false };

	gb_init(&g, 0, 1000);
	uint32_t p = gb_thread(&g, "p", 1), w = gb_thread(&g, "w", 2);
	uint32_t kw = gb_thread(&g, "kworker", 3);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	gb_edge(&g, p, w, 300);
	gb_edge(&g, p, kw, 20);
	gb_edge(&g, kw, disk, 300);
	gb_edge(&g, disk, kw, 600);
	gb_sort(&g);
	REQUIRE_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	check_ids(k.items[0].members, 2, (uint32_t[]){ kw, disk }, 2);
	check_ids(k.items[1].members, 1, (uint32_t[]){ w }, 1);
	CHECK_INT(k.items[0].focus_ns, 0);
	wperf_knots_fini(&k);
	focus[p] = true;
	REQUIRE_INT(find(&g, NO_THRESHOLD, focus, &k), 0);
	REQUIRE_INT(k.n, 2);
	check_ids(k.items[0].members, 1, (uint32_t[]){ w }, 1);
	CHECK_INT(k.items[0].focus_ns, 300);
	CHECK_INT(k.items[0].weight_ns, 300);
	check_ids(k.items[1].members, 2, (uint32_t[]){ kw, disk }, 2);
	CHECK_INT(k.items[1].focus_ns, 20);
	CHECK_INT(k.items[1].weight_ns, 900);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/*
 * Every finding splits its weight into the waiters' own waiting (direct_ns
 * summed over the same edges) and the cascaded rest, and gives the time
 * of those waiters (doc/wperf-report.7.md, "Weights"): a knot and a group
 * their members' time, a sink its waiters', a sink refinement left the
 * waiters of its component. Times of threads are running + runnable +
 * waiting; a disk's is the analysed duration (1000).
 */
static void test_own_and_cascaded(void)
{
	struct wperf_graph g;
	struct wperf_knots k;
	struct wperf_edge *e;

	/* Knot {A, B} with 30 of its 70 cascaded; sink S waited on by C
	 * (100, 60 of it cascaded) and by the disk (50, all its own). */
	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "A", 1), b = gb_thread(&g, "B", 2);
	uint32_t c = gb_thread(&g, "C", 3), sink = gb_thread(&g, "S", 4);
	uint32_t disk = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	e = gb_edge(&g, a, b, 40);
	e->direct_ns = 25;
	e = gb_edge(&g, b, a, 30);
	e->direct_ns = 15;
	e = gb_edge(&g, c, sink, 100);
	e->direct_ns = 40;
	gb_edge(&g, disk, sink, 50);
	gb_sort(&g);
	g.vertices[a].running_ns = 100;
	g.vertices[a].waiting_ns[WPERF_V_THREAD] = 100;
	g.vertices[b].runnable_ns = 50;
	g.vertices[b].waiting_ns[WPERF_V_THREAD] = 50;
	g.vertices[c].running_ns = 360;
	g.vertices[c].waiting_ns[WPERF_V_THREAD] = 40;
	CHECK_INT(wperf_vertex_time(&g, a), 200);
	CHECK_INT(wperf_vertex_time(&g, disk), 1000);
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 2);
	CHECK_INT(k.items[0].kind, WPERF_SINK);
	CHECK_INT(k.items[0].weight_ns, 150);
	CHECK_INT(k.items[0].own_ns, 90);
	CHECK_INT(k.items[0].waiters_ns, 400 + 1000);
	/* A background knot (less than a CPU), split the same way. */
	CHECK_INT(k.items[1].weight_ns, 70);
	CHECK_INT(k.items[1].own_ns, 40);
	CHECK_INT(k.items[1].waiters_ns, 200 + 100);
	wperf_knots_fini(&k);
	/* Focused on C: the sink still counts every waiter. */
	bool focus[5] = { [3] = true };
	CHECK_INT(find_as_is(&g, NO_THRESHOLD, focus, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].own_ns, 90);
	CHECK_INT(k.items[0].waiters_ns, 1400);
	wperf_knots_fini(&k);
	gb_free(&g);

	/* A sink refinement left (test_refine_to_single_vertex): B, waited
	 * on by A only. */
	uint32_t v[3];
	build_three(&g, v);
	g.edges[gb_find(&g, v[0], v[1])].direct_ns = 4;
	CHECK_INT(find(&g, NO_THRESHOLD, NULL, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].weight_ns, 10);
	CHECK_INT(k.items[0].own_ns, 4);
	CHECK_INT(k.items[0].waiters_ns, 1000);    /* A ran all along (find) */
	wperf_knots_fini(&k);
	gb_free(&g);
}

static void test_within_ppm(void)
{
	CHECK(wperf_within_ppm(100, 1000, 100000));
	CHECK(!wperf_within_ppm(101, 1000, 100000));
	CHECK(wperf_within_ppm(0, 0, 0));
	CHECK(!wperf_within_ppm(1, 1000, 0));
	CHECK(wperf_within_ppm(INT64_MAX, INT64_MAX, 1000000));
	CHECK(!wperf_within_ppm(INT64_MAX / 10 + 1, INT64_MAX, 100000));
	CHECK(wperf_within_ppm(INT64_MAX / 10, INT64_MAX, 100000));
}

int main(void)
{
	RUN_TEST(test_cycle_and_sink);
	RUN_TEST(test_self_loop);
	RUN_TEST(test_category_ignored);
	RUN_TEST(test_refinement_order);
	RUN_TEST(test_unsorted_edges);
	RUN_TEST(test_refine_to_single_vertex);
	RUN_TEST(test_threshold);
	RUN_TEST(test_focus);
	RUN_TEST(test_degenerate_input);
	RUN_TEST(test_big_graph_small_stack);
	RUN_TEST(test_background_beside_device_knot);
	RUN_TEST(test_background_is_what_nobody_waits_on);
	RUN_TEST(test_device_knot_never_background);
	RUN_TEST(test_background_boundary);
	RUN_TEST(test_dominant_light_leaving_edge);
	RUN_TEST(test_dominant_heavy_leaving_edge);
	RUN_TEST(test_strict_rule);
	RUN_TEST(test_dominant_and_refinement);
	RUN_TEST(test_equal_ties_cut_together);
	RUN_TEST(test_near_equal_ties);
	RUN_TEST(test_tie_at_threshold);
	RUN_TEST(test_within_ppm);
	RUN_TEST(test_own_and_cascaded);
	RUN_TEST(test_report_order);
	RUN_TEST(test_focused_order);
	return check_finish();
}
