/* SPDX-License-Identifier: MIT */
/*
 * test-merge.c — merging thread vertices (wperf-method(7) §8, §9) on hand-built
 * graphs with exactly known results: merged names, members, summed
 * breakdowns, re-aggregated edges and self-loops, pseudo-vertices left
 * alone, the old -> new id map that carries a focus over, and the
 * short-lived children of one parent.
 */
#include <stdlib.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/knots.h"
#include "wperf/merge.h"
#include "wperf/report.h"

static void set_life(struct wperf_graph *g, uint32_t v, int64_t first, int64_t last,
		     int64_t running, int64_t runnable, int64_t waiting_thread)
{
	struct wperf_vertex *x = &g->vertices[v];

	x->first_ts = first;
	x->last_ts = last;
	x->running_ns = running;
	x->runnable_ns = runnable;
	x->waiting_ns[WPERF_V_THREAD] = waiting_thread;
	x->waits = 1;
}

static const struct wperf_edge *edge(const struct wperf_graph *g, uint32_t from, uint32_t to)
{
	size_t i = gb_find(g, from, to);

	return i == SIZE_MAX ? NULL : &g->edges[i];
}

static void check_sorted(const struct wperf_graph *g)
{
	for (size_t i = 1; i < g->n_edges; i++)
		CHECK(g->edges[i - 1].from < g->edges[i].from ||
		      (g->edges[i - 1].from == g->edges[i].from &&
		       g->edges[i - 1].to < g->edges[i].to));
	for (size_t i = 0; i < g->n_vertices; i++)
		CHECK_INT(g->vertices[i].id, i);
}

/* main, worker-0, worker-1, worker-12, a disk and the timer. */
static void build_pool(struct wperf_graph *g)
{
	gb_init(g, 0, 10000);
	uint32_t m = gb_thread(g, "main", 1);
	uint32_t w0 = gb_thread(g, "worker-0", 10), w1 = gb_thread(g, "worker-1", 11);
	uint32_t w2 = gb_thread(g, "worker-12", 12);
	uint32_t d = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	uint32_t t = gb_vertex(g, WPERF_V_TIMER, "timer");

	g->vertices[w0].pid = g->vertices[w1].pid = g->vertices[w2].pid = 1;
	g->vertices[d].busy_ns = 777;
	set_life(g, w0, 100, 9000, 1000, 10, 500);
	set_life(g, w1, 50, 8000, 2000, 20, 600);
	set_life(g, w2, 200, 9500, 3000, 30, 700);
	g->vertices[w0].state_mismatches = 2;
	g->vertices[w2].state_mismatches = 3;
	g->vertices[w1].waits_without_wakeup = 4;
	gb_edge(g, w0, w1, 100);
	gb_edge(g, w1, w0, 50);
	gb_edge(g, w2, w0, 30);
	gb_edge(g, w0, d, 20);
	gb_edge(g, w1, d, 40);
	gb_edge(g, m, w2, 7);
	gb_edge(g, d, w0, 5);
	gb_edge(g, w1, t, 9);
	gb_sort(g);
}

static void test_name_merge(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NAME };
	uint32_t *map = NULL;

	build_pool(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	REQUIRE_INT(g.n_vertices, 4);
	check_sorted(&g);
	const uint32_t want_map[] = { 0, 1, 1, 1, 2, 3 };
	for (int i = 0; i < 6; i++)
		CHECK_INT(map[i], want_map[i]);

	const struct wperf_vertex *w = &g.vertices[1];
	CHECK_INT(w->kind, WPERF_V_VIRTUAL);
	CHECK_STR(w->name, "worker-*");
	CHECK_INT(w->tid, -1);
	CHECK_INT(w->pid, 1);
	REQUIRE_INT(w->n_members, 3);
	CHECK_INT(w->members[0], 10);
	CHECK_INT(w->members[1], 11);
	CHECK_INT(w->members[2], 12);
	CHECK_INT(w->first_ts, 50);
	CHECK_INT(w->last_ts, 9500);
	CHECK_INT(w->running_ns, 6000);
	CHECK_INT(w->runnable_ns, 60);
	CHECK_INT(w->waiting_ns[WPERF_V_THREAD], 1800);
	CHECK_INT(w->waits, 3);
	CHECK_INT(w->state_mismatches, 5);      /* the members' lost events, summed */
	CHECK_INT(w->waits_without_wakeup, 4);

	/* Pseudo-vertices and the lone main thread are untouched. */
	CHECK_INT(g.vertices[0].kind, WPERF_V_THREAD);
	CHECK_STR(g.vertices[0].name, "main");
	CHECK_INT(g.vertices[0].tid, 1);
	CHECK_INT(g.vertices[0].n_members, 0);
	CHECK_INT(g.vertices[2].kind, WPERF_V_DISK);
	CHECK_STR(g.vertices[2].name, "disk:vda");
	CHECK_INT(g.vertices[2].busy_ns, 777);
	CHECK_STR(g.vertices[3].name, "timer");

	REQUIRE_INT(g.n_edges, 5);
	const struct wperf_edge *self = edge(&g, 1, 1), *disk = edge(&g, 1, 2);
	REQUIRE_INT(self != NULL && disk != NULL, 1);
	CHECK_INT(self->weight_ns, 180);
	CHECK_INT(self->direct_ns, 180);
	CHECK_INT(self->count, 3);
	CHECK_INT(self->hist[6], 1);   /* 100 ns */
	CHECK_INT(self->hist[5], 1);   /* 50 ns */
	CHECK_INT(self->hist[4], 1);   /* 30 ns */
	CHECK_INT(disk->weight_ns, 60);
	CHECK_INT(disk->count, 2);
	CHECK(edge(&g, 0, 1) && edge(&g, 0, 1)->weight_ns == 7);
	CHECK(edge(&g, 2, 1) && edge(&g, 2, 1)->weight_ns == 5);
	CHECK(edge(&g, 1, 3) && edge(&g, 1, 3)->weight_ns == 9);
	free(map);
	gb_free(&g);
}

/* A merged pool waiting only on itself is a knot: the self-loop. */
static void test_self_loop_is_knot(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NAME };
	struct wperf_knot_options ko = { .threshold_ns = INT64_MAX };
	struct wperf_knots k;

	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "pool-1", 1), b = gb_thread(&g, "pool-2", 2);
	/* Busy enough (120% of a CPU) not to look like background threads. */
	set_life(&g, a, 0, 1000, 600, 0, 200);
	set_life(&g, b, 0, 1000, 600, 0, 300);
	gb_edge(&g, a, b, 300);
	gb_edge(&g, b, a, 200);
	gb_sort(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	REQUIRE_INT(g.n_vertices, 1);
	REQUIRE_INT(g.n_edges, 1);
	CHECK_INT(g.edges[0].from, 0);
	CHECK_INT(g.edges[0].to, 0);
	CHECK_INT(g.edges[0].weight_ns, 500);
	REQUIRE_INT(wperf_knots_find(&g, &ko, &k), 0);
	REQUIRE_INT(k.n, 1);
	CHECK_INT(k.items[0].kind, WPERF_KNOT);
	REQUIRE_INT(k.items[0].n_members, 1);
	CHECK_INT(k.items[0].members[0], 0);
	wperf_knots_fini(&k);
	gb_free(&g);
}

/* A focus computed on the threads, carried over by the map. */
static void test_focus_mapping(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NAME };
	uint32_t *map = NULL;
	bool old_focus[6] = { false, false, true, false, false, false }; /* worker-1 */
	bool new_focus[4] = { false };

	build_pool(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	for (int i = 0; i < 6; i++)
		new_focus[map[i]] |= old_focus[i];
	CHECK(!new_focus[0]);
	CHECK(new_focus[1]);
	CHECK(!new_focus[2]);
	CHECK(!new_focus[3]);
	free(map);
	gb_free(&g);
}

static void test_process_merge(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_PROCESS };

	gb_init(&g, 0, 1000);
	uint32_t io = gb_thread(&g, "srv-io", 101);
	uint32_t srv = gb_thread(&g, "srv", 100);
	uint32_t cli = gb_thread(&g, "cli", 200);
	g.vertices[io].pid = 100;
	gb_edge(&g, srv, io, 40);
	gb_edge(&g, cli, srv, 25);
	gb_sort(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	REQUIRE_INT(g.n_vertices, 2);
	CHECK_INT(g.vertices[0].kind, WPERF_V_VIRTUAL);
	CHECK_STR(g.vertices[0].name, "process srv (100)");
	CHECK_INT(g.vertices[0].pid, 100);
	REQUIRE_INT(g.vertices[0].n_members, 2);
	CHECK_INT(g.vertices[0].members[0], 100);
	CHECK_INT(g.vertices[0].members[1], 101);
	CHECK_INT(g.vertices[1].kind, WPERF_V_THREAD);
	CHECK_STR(g.vertices[1].name, "cli");
	REQUIRE_INT(g.n_edges, 2);
	CHECK(edge(&g, 0, 0) && edge(&g, 0, 0)->weight_ns == 40);
	CHECK(edge(&g, 1, 0) && edge(&g, 1, 0)->weight_ns == 25);
	gb_free(&g);
}

/* Same-named interrupts and existing virtual vertices are not threads;
 * a name shared by one thread only is no group. */
static void test_not_merged(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NAME, .short_lived = true };
	uint32_t *map = NULL;

	gb_init(&g, 0, 1000);
	gb_vertex(&g, WPERF_V_IRQ, "irq:24");
	gb_vertex(&g, WPERF_V_IRQ, "irq:24");
	gb_vertex(&g, WPERF_V_VIRTUAL, "v-1");
	gb_vertex(&g, WPERF_V_VIRTUAL, "v-2");
	gb_thread(&g, "solo-1", 5);
	gb_thread(&g, "other-1", 6);
	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	REQUIRE_INT(g.n_vertices, 6);
	for (uint32_t i = 0; i < 6; i++)
		CHECK_INT(map[i], i);
	CHECK_INT(g.vertices[4].kind, WPERF_V_THREAD);
	CHECK_STR(g.vertices[4].name, "solo-1");
	CHECK_INT(g.vertices[4].tid, 5);
	free(map);
	gb_free(&g);
}

/* Short-lived is under WPERF_SHORT_LIVED_PERCENT (10%) of the analysed
 * duration, exactly at the boundary and with lifetimes whose product with
 * 100 does not fit in 64 bits (a trace of about 290 years). */
static void test_short_lived_bounds(void)
{
	struct wperf_graph g;
	const int64_t long_end = 9000000000000000000;   /* 10% = 9e17 */
	const struct { int64_t end, first, last; bool short_lived; } cases[] = {
		{ 1000, 100, 199, true },    /* 99 < 100 */
		{ 1000, 100, 200, false },   /* 100 is 10%: not under it */
		{ 1003, 100, 200, true },    /* 100 < 100.3 */
		{ 1009, 500, 600, true },
		{ 999, 100, 199, true },     /* 99 < 99.9 */
		{ 999, 100, 200, false },
		{ long_end, 0, 899999999999999999, true },
		{ long_end, 0, 900000000000000000, false },
		{ long_end, 1, 4000000000000000000, false },
		{ long_end + 9, 10, 900000000000000010, true },   /* under 9e17 + 0.9 */
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		gb_init(&g, 0, cases[i].end);
		uint32_t parent = gb_thread(&g, "parent", 1);
		uint32_t child = gb_thread(&g, "child", 2);

		set_life(&g, parent, 0, cases[i].end, 1, 0, 0);
		set_life(&g, child, cases[i].first, cases[i].last, 1, 0, 0);
		g.vertices[child].parent_tid = 1;
		if (wperf_vertex_is_short_lived(&g, &g.vertices[child]) != cases[i].short_lived) {
			fprintf(stderr, "case %zu: end %lld, life %lld..%lld: expected %s\n", i,
				(long long)cases[i].end, (long long)cases[i].first,
				(long long)cases[i].last, cases[i].short_lived ? "short" : "not short");
			CHECK(0);
		}
		gb_free(&g);
	}
}

/* server forks 2, 3, 4 (short), 5 (long) and 6 (alive at the end), and 7
 * forks 8 (one short child: no group). Duration 1000 ns, so short means
 * under 100 ns and ended before 1000. */
static void test_short_lived(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NONE, .short_lived = true };
	uint32_t *map = NULL;

	gb_init(&g, 0, 1000);
	uint32_t srv = gb_thread(&g, "server", 1);
	uint32_t c[5];
	const int64_t life[5][2] = { { 100, 150 }, { 200, 260 }, { 230, 280 },
				     { 100, 900 }, { 950, 1000 } };
	for (int i = 0; i < 5; i++) {
		c[i] = gb_thread(&g, "req", 2 + i);
		set_life(&g, c[i], life[i][0], life[i][1], 5, 1, 2);
		g.vertices[c[i]].parent_tid = 1;
	}
	uint32_t other = gb_thread(&g, "other", 7), lone = gb_thread(&g, "lone", 8);
	set_life(&g, lone, 10, 20, 5, 0, 0);
	g.vertices[lone].parent_tid = 7;
	set_life(&g, srv, 0, 1000, 100, 0, 0);
	gb_edge(&g, c[0], srv, 10);
	gb_edge(&g, c[1], c[2], 4);
	gb_sort(&g);
	CHECK(wperf_vertex_is_short_lived(&g, &g.vertices[c[0]]));
	CHECK(!wperf_vertex_is_short_lived(&g, &g.vertices[c[3]]));
	CHECK(!wperf_vertex_is_short_lived(&g, &g.vertices[c[4]]));

	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	REQUIRE_INT(g.n_vertices, 6);   /* server, children, 5, 6, other, lone */
	CHECK_INT(map[c[0]], 1);
	CHECK_INT(map[c[1]], 1);
	CHECK_INT(map[c[2]], 1);
	CHECK_INT(map[c[3]], 2);
	CHECK_INT(map[c[4]], 3);
	CHECK_INT(map[other], 4);
	CHECK_INT(map[lone], 5);
	const struct wperf_vertex *v = &g.vertices[1];
	CHECK_INT(v->kind, WPERF_V_VIRTUAL);
	CHECK_STR(v->name, "server-children");
	CHECK_INT(v->parent_tid, 1);
	REQUIRE_INT(v->n_members, 3);
	CHECK_INT(v->members[0], 2);
	CHECK_INT(v->members[2], 4);
	/* Each child a process of its own: what the finding counts. */
	REQUIRE_INT(v->member_pids != NULL, 1);
	CHECK_INT(v->member_pids[0], 2);
	CHECK_INT(v->member_pids[1], 3);
	CHECK_INT(v->member_pids[2], 4);
	CHECK_INT(v->first_ts, 100);
	CHECK_INT(v->last_ts, 280);
	CHECK_INT(v->running_ns, 15);
	CHECK_INT(v->runnable_ns, 3);
	/* Members' own waits (3 x 2) + the hole 150..200 waiting for server. */
	CHECK_INT(v->waiting_ns[WPERF_V_THREAD], 56);
	CHECK_INT(v->waits, 4);
	CHECK_INT(g.vertices[5].kind, WPERF_V_THREAD);
	REQUIRE_INT(g.n_edges, 2);
	const struct wperf_edge *up = edge(&g, 1, 0), *self = edge(&g, 1, 1);
	REQUIRE_INT(up != NULL && self != NULL, 1);
	CHECK_INT(up->weight_ns, 60);    /* 10 of child 2 + the 50 ns hole */
	CHECK_INT(up->count, 2);
	CHECK_INT(up->hist[5], 1);       /* 50 ns */
	CHECK_INT(up->hist[3], 1);       /* 10 ns */
	CHECK_INT(self->weight_ns, 4);
	free(map);
	gb_free(&g);
}

/* merge=none, short-lived kept: the same graph. */
static void test_identity(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NONE };

	build_pool(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	CHECK_INT(g.n_vertices, 6);
	CHECK_INT(g.n_edges, 8);
	CHECK_STR(g.vertices[3].name, "worker-12");
	CHECK_INT(g.vertices[3].kind, WPERF_V_THREAD);
	check_sorted(&g);
	gb_free(&g);
}

/* The writers name the merged threads: JSON `members`, text section. */
static void test_reports_list_members(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NAME };
	struct wperf_report r = { .graph = &g, .threshold_spec = "20%", .min_weight_spec = "0" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	build_pool(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	f = open_memstream(&buf, &len);
	REQUIRE_INT(f != NULL, 1);
	CHECK_INT(wperf_report_write_json(&r, f), 0);
	fclose(f);
	CHECK(buf && strstr(buf, "\"name\": \"worker-*\"") != NULL);
	CHECK(buf && strstr(buf, "\"members\": [10, 11, 12]") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE_INT(f != NULL, 1);
	CHECK_INT(wperf_report_write_text(&r, f), 0);
	fclose(f);
	CHECK(buf && strstr(buf, "Merged threads:\n  worker-*: 3 threads (merge=name), tids 10, 11, 12\n"));
	free(buf);
	gb_free(&g);
}

/* merge=stack: w-1 and w-2 of process 100 wait mostly in stack 0
 * (futex), w-3 in stack 1 (pipe): w-1 and w-2 become "w-* @ futex_wait",
 * and their edges to w-3 combine, stacks summed. */
static void test_stack_merge(void)
{
	struct wperf_graph g;
	static uint64_t ips0[] = { 0xffffffff81000100ull, 0xffffffff81000200ull };
	static uint64_t ips1[] = { 0xffffffff81000300ull };
	static char *syms0[] = { "__schedule+0x10", "futex_wait+0x20" };

	gb_init(&g, 0, 1000);
	uint32_t a = gb_thread(&g, "w-1", 101), b = gb_thread(&g, "w-2", 102),
		 c = gb_thread(&g, "w-3", 103);
	for (uint32_t v = a; v <= c; v++)
		g.vertices[v].pid = 100;
	struct wperf_edge *e = gb_edge(&g, a, c, 300);
	e->n_stacks = 2;
	e->stacks[0] = (struct wperf_edge_stack){ 0, 3, 200 };
	e->stacks[1] = (struct wperf_edge_stack){ 1, 1, 100 };
	e = gb_edge(&g, b, c, 250);
	e->n_stacks = 1;
	e->stacks[0] = (struct wperf_edge_stack){ 0, 2, 250 };
	e = gb_edge(&g, c, a, 400);
	e->n_stacks = 1;
	e->stacks[0] = (struct wperf_edge_stack){ 1, 4, 400 };
	gb_sort(&g);
	struct wperf_stack stacks[2] = { { ips0, 2, syms0 }, { ips1, 1, NULL } };
	g.stacks = stacks;
	g.n_stacks = 2;
	CHECK_INT(wperf_vertex_main_stack(&g, a), 0);
	CHECK_INT(wperf_vertex_main_stack(&g, c), 1);

	struct wperf_merge_options o = { .key = WPERF_MERGE_STACK };
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	CHECK_INT(g.n_vertices, 2);
	CHECK_STR(g.vertices[0].name, "w-* @ futex_wait");
	CHECK_INT(g.vertices[0].n_members, 2);
	const struct wperf_edge *m = edge(&g, 0, 1);
	REQUIRE_INT(m != NULL, 1);
	CHECK_INT(m->count, 2);
	CHECK_INT(m->n_stacks, 2);
	CHECK_INT(m->stacks[0].stack, 0);
	CHECK_INT(m->stacks[0].count, 5);
	CHECK_INT(m->stacks[0].ns, 450);
	CHECK_INT(m->stacks[1].ns, 100);
	g.stacks = NULL;   /* static: not gb_free's */
	g.n_stacks = 0;
	gb_free(&g);
}

/* A stack recorded with LTTng's callstack-kernel context opens with the
 * tracer's own frames (its probe, ring buffer and context) before the
 * scheduler's: the wait is named after the first frame past all of them
 * (lttng-modules 2.13.9 on Linux 6.1, in tests/guest). */
static void test_stack_wait_frame_lttng(void)
{
	static uint64_t ips[] = { 1, 2, 3, 4, 5, 6, 7 };
	static char *syms[] = {
		"lttng_callstack_sequence_get_size+0x10f", "lttng_event_reserve+0x533",
		"__event_probe__sched_switch+0x2d7", "__schedule+0x4f8", "schedule+0x5a",
		"futex_wait_queue+0x5f", "futex_wait+0x16c",
	};
	struct wperf_stack s = { ips, 7, syms };
	char buf[64];

	wperf_stack_wait_frame(buf, sizeof buf, &s);
	CHECK_STR(buf, "futex_wait_queue");
}

/* A thread of process pid, alive [first, last], forked by parent. */
static uint32_t pool_thread(struct wperf_graph *g, const char *comm, int64_t tid, int64_t pid,
			    int64_t parent, int64_t first, int64_t last)
{
	uint32_t v = gb_thread(g, comm, tid);

	g->vertices[v].pid = pid;
	g->vertices[v].parent_tid = parent;
	set_life(g, v, first, last, 10, 20, 30);
	return v;
}

/*
 * merge=pool (the default): alike threads only.
 *   process 1: main thread "worker-3" (tid 1) and workers worker-0..2
 *     (tids 10..12): the workers are a pool, the main thread stays apart
 *     though its name matches;
 *   process 2: one "worker-0": a pool of one is no pool;
 *   "fio" processes 30, 31, 32 forked by tid 5, side by side: a pool;
 *     "fio" 33 forked by tid 6 (another parent) and "fio" 34 forked by 5
 *     after the others ended stay apart;
 *   "sleep" 40, 41 forked by 5 one after the other: no pool;
 *   kworker/0:1, kworker/0:2, children of kthreadd: never;
 *   threads of unknown process (pid -1) with one name: never.
 */
static void test_pool_merge(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_POOL };
	uint32_t *map = NULL;

	gb_init(&g, 0, 10000);
	uint32_t main1 = pool_thread(&g, "worker-3", 1, 1, 0, 0, 10000);
	uint32_t w0 = pool_thread(&g, "worker-0", 10, 1, 1, 100, 9000);
	uint32_t w1 = pool_thread(&g, "worker-1", 11, 1, 1, 200, 9000);
	uint32_t w2 = pool_thread(&g, "worker-2", 12, 1, 1, 300, 9000);
	uint32_t lone = pool_thread(&g, "worker-0", 20, 2, 0, 0, 10000);
	uint32_t f0 = pool_thread(&g, "fio", 30, 30, 5, 1000, 5000);
	uint32_t f1 = pool_thread(&g, "fio", 31, 31, 5, 1100, 4000);
	uint32_t f2 = pool_thread(&g, "fio", 32, 32, 5, 4500, 6000);
	uint32_t other = pool_thread(&g, "fio", 33, 33, 6, 1000, 5000);
	uint32_t late = pool_thread(&g, "fio", 34, 34, 5, 6000, 7000);
	uint32_t s0 = pool_thread(&g, "sleep", 40, 40, 5, 100, 200);
	uint32_t s1 = pool_thread(&g, "sleep", 41, 41, 5, 300, 400);
	uint32_t k0 = pool_thread(&g, "kworker/0:1", 50, 50, 2, 0, 10000);
	uint32_t k1 = pool_thread(&g, "kworker/0:2", 51, 51, 2, 0, 10000);
	uint32_t u0 = pool_thread(&g, "anon", 60, -1, 0, 0, 10000);
	uint32_t u1 = pool_thread(&g, "anon", 61, -1, 0, 0, 10000);
	gb_edge(&g, w0, w1, 100);
	gb_edge(&g, w1, w2, 50);
	gb_edge(&g, main1, w0, 7);
	gb_edge(&g, f0, f1, 40);
	gb_edge(&g, other, f2, 9);
	gb_sort(&g);

	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	check_sorted(&g);
	/* 16 vertices, two pools of 3: 12 left. */
	CHECK_INT(g.n_vertices, 12);
	uint32_t wp = map[w0], fp = map[f0];
	CHECK_INT(map[w1], wp);
	CHECK_INT(map[w2], wp);
	CHECK_INT(map[f1], fp);
	CHECK_INT(map[f2], fp);
	CHECK_STR(g.vertices[wp].name, "worker-* \xc3\x97" "3");
	CHECK_STR(g.vertices[fp].name, "fio \xc3\x97" "3");
	CHECK_STR(g.vertices[wp].merged_by, "pool");
	CHECK_STR(g.vertices[fp].merged_by, "pool");
	CHECK_INT(g.vertices[wp].kind, WPERF_V_VIRTUAL);
	CHECK_INT(g.vertices[wp].pid, 1);          /* threads of one process */
	CHECK_INT(g.vertices[fp].pid, -1);         /* several processes */
	CHECK_INT(g.vertices[wp].n_members, 3);
	CHECK_INT(g.vertices[wp].members[0], 10);
	CHECK_INT(g.vertices[wp].members[2], 12);
	CHECK_INT(g.vertices[fp].members[0], 30);
	CHECK_INT(g.vertices[fp].members[2], 32);
	CHECK_INT(g.vertices[fp].first_ts, 1000);
	CHECK_INT(g.vertices[fp].last_ts, 6000);
	CHECK_INT(g.vertices[fp].running_ns, 30);
	/* Left alone, each its own vertex. */
	uint32_t alone[] = { main1, lone, other, late, s0, s1, k0, k1, u0, u1 };
	for (size_t i = 0; i < sizeof alone / sizeof alone[0]; i++) {
		CHECK_INT(g.vertices[map[alone[i]]].kind, WPERF_V_THREAD);
		for (size_t j = 0; j < i; j++)
			CHECK(map[alone[i]] != map[alone[j]]);
	}
	CHECK_INT(g.vertices[map[main1]].tid, 1);
	/* Waits between members are the pool's self-loop; others kept. */
	const struct wperf_edge *loop = edge(&g, wp, wp);
	REQUIRE_INT(loop != NULL, 1);
	CHECK_INT(loop->weight_ns, 150);
	CHECK_INT(loop->count, 2);
	CHECK_INT(edge(&g, fp, fp)->weight_ns, 40);
	CHECK_INT(edge(&g, map[main1], wp)->weight_ns, 7);
	CHECK_INT(edge(&g, map[other], fp)->weight_ns, 9);
	free(map);
	gb_free(&g);
}

/*
 * A pool is the threads that do its work: of five same-named threads of
 * one process alive side by side, three ran or wanted a CPU 1,000 to
 * 3,000 ns and two far less (a server's idle helpers with its workers'
 * name). Exactly a tenth of the busiest (300 ns) is the pool's; below it
 * is not. With only one busy thread there is no pool.
 */
static void test_pool_of_busy_threads(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_POOL };
	uint32_t *map = NULL;

	gb_init(&g, 0, 10000);
	uint32_t w[5];
	const int64_t running[5] = { 3000, 1000, 250, 299, 100 };
	const int64_t runnable[5] = { 0, 500, 50, 0, 0 };
	for (int i = 0; i < 5; i++) {
		w[i] = pool_thread(&g, "mariadbd", 10 + i, 1, 1, 0, 10000);
		g.vertices[w[i]].running_ns = running[i];
		g.vertices[w[i]].runnable_ns = runnable[i];
	}
	uint32_t b0 = pool_thread(&g, "solo", 20, 2, 1, 0, 10000);
	uint32_t b1 = pool_thread(&g, "solo", 21, 2, 1, 0, 10000);
	g.vertices[b0].running_ns = 5000;
	g.vertices[b1].running_ns = 1;
	gb_sort(&g);

	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	uint32_t p = map[w[0]];
	CHECK_INT(map[w[1]], p);
	CHECK_INT(map[w[2]], p);      /* 250 + 50 = 300: a tenth of 3,000 */
	CHECK(map[w[3]] != p);        /* 299 */
	CHECK(map[w[4]] != p);
	CHECK(map[w[3]] != map[w[4]]);
	CHECK_STR(g.vertices[p].name, "mariadbd \xc3\x97" "3");
	CHECK_INT(g.vertices[p].running_ns, 4250);
	CHECK_INT(g.vertices[map[w[3]]].kind, WPERF_V_THREAD);
	CHECK_INT(g.vertices[map[b0]].kind, WPERF_V_THREAD);
	CHECK(map[b0] != map[b1]);
	free(map);
	gb_free(&g);
}

/* The header names a pool that a finding names, and how to see it apart. */
static void test_pool_said_in_report(void)
{
	struct wperf_graph g;
	struct wperf_merge_options o = { .key = WPERF_MERGE_POOL };
	struct wperf_knots k = { 0 };
	struct wperf_classes cl = { 0 };
	struct wperf_knot_options ko = { 0 };
	struct wperf_report r = { .graph = &g, .knots = &k, .classes = &cl,
				  .threshold_spec = "20%", .min_weight_spec = "0" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	gb_init(&g, 0, 10000);
	uint32_t f0 = pool_thread(&g, "fio", 30, 30, 5, 0, 10000);
	uint32_t f1 = pool_thread(&g, "fio", 31, 31, 5, 0, 10000);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	gb_edge(&g, f0, d, 4000);
	gb_edge(&g, f1, d, 4000);
	gb_edge(&g, d, f0, 1000);
	gb_sort(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, NULL), 0);
	REQUIRE_INT(wperf_knots_find(&g, &ko, &k), 0);
	REQUIRE_INT(k.n, 1);
	REQUIRE_INT(wperf_classes_find(&g, &k, 0, &cl), 0);
	f = open_memstream(&buf, &len);
	REQUIRE_INT(f != NULL, 1);
	CHECK_INT(wperf_report_write_text(&r, f), 0);
	fclose(f);
	CHECK(buf && strstr(buf, "Pools      fio \xc3\x97" "2 = processes 30, 31 forked by one "
			    "thread. Alike threads") != NULL);
	CHECK(buf && strstr(buf, "merge=\"none\" shows") != NULL);
	CHECK(buf && strstr(buf, "the threads belong to 2 processes") != NULL);
	CHECK(buf && strstr(buf, "Knot 1: fio \xc3\x97" "2, disk:vda\n") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	REQUIRE_INT(f != NULL, 1);
	CHECK_INT(wperf_report_write_json(&r, f), 0);
	fclose(f);
	CHECK(buf && strstr(buf, "\"members\": [30, 31], \"merged_by\": \"pool\"") != NULL);
	free(buf);
	wperf_classes_fini(&cl);
	wperf_knots_fini(&k);
	gb_free(&g);
}

static void test_parse(void)
{
	enum wperf_merge_key k = WPERF_MERGE_NONE;

	CHECK_INT(wperf_merge_key_parse("name", &k), 0);
	CHECK_INT(k, WPERF_MERGE_NAME);
	CHECK_INT(wperf_merge_key_parse("process", &k), 0);
	CHECK_INT(k, WPERF_MERGE_PROCESS);
	CHECK_INT(wperf_merge_key_parse("none", &k), 0);
	CHECK_INT(k, WPERF_MERGE_NONE);
	CHECK_INT(wperf_merge_key_parse("stack", &k), 0);
	CHECK_INT(k, WPERF_MERGE_STACK);
	CHECK_INT(wperf_merge_key_parse("pool", &k), 0);
	CHECK_INT(k, WPERF_MERGE_POOL);
	CHECK_INT(wperf_merge_key_parse("stacks", &k), -1);
	CHECK_INT(wperf_merge_key_parse("", &k), -1);
}

int main(void)
{
	RUN_TEST(test_name_merge);
	RUN_TEST(test_self_loop_is_knot);
	RUN_TEST(test_focus_mapping);
	RUN_TEST(test_process_merge);
	RUN_TEST(test_not_merged);
	RUN_TEST(test_short_lived);
	RUN_TEST(test_short_lived_bounds);
	RUN_TEST(test_identity);
	RUN_TEST(test_reports_list_members);
	RUN_TEST(test_parse);
	RUN_TEST(test_stack_merge);
	RUN_TEST(test_stack_wait_frame_lttng);
	RUN_TEST(test_pool_merge);
	RUN_TEST(test_pool_of_busy_threads);
	RUN_TEST(test_pool_said_in_report);
	return check_finish();
}
