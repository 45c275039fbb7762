/* SPDX-License-Identifier: MIT */
/*
 * test-classify.c — the classification of knots (wperf/classify.h) on
 * hand-built graphs: each rule, the order of the rules, and the evidence
 * with its exact numbers.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/classify.h"
#include "wperf/knots.h"
#include "wperf/merge.h"
#include "wperf/report.h"

#define MS 1000000LL
#define DURATION (1000 * MS)

/* A thread of process pid that ran `running` and was runnable `runnable`. */
static uint32_t thread(struct wperf_graph *g, const char *comm, int64_t tid, int64_t pid,
		       int64_t running, int64_t runnable)
{
	uint32_t id = gb_thread(g, comm, tid);
	g->vertices[id].pid = pid;
	g->vertices[id].running_ns = running;
	g->vertices[id].runnable_ns = runnable;
	return id;
}

/* `count` waits of `each` ns, in `turns` runs. */
static void waits(struct wperf_graph *g, uint32_t from, uint32_t to, uint64_t count,
		  int64_t each, uint64_t turns)
{
	struct wperf_edge *e = gb_edge(g, from, to, each * (int64_t)count);
	memset(e->hist, 0, sizeof e->hist);
	e->count = count;
	e->turns = turns;
	int b = 0;
	while (b + 1 < WPERF_HIST_BUCKETS && each >> (b + 1))
		b++;
	e->hist[b] = count;
}

/* Find the knots and classify the first; -1 when there is none. */
static int classify_first(struct wperf_graph *g, struct wperf_classification *c,
			  enum wperf_knot_kind *kind)
{
	struct wperf_knot_options o = { .threshold_ns = INT64_MAX };
	struct wperf_knots k;
	int rc = -1;

	gb_sort(g);
	if (wperf_knots_find(g, &o, &k) < 0)
		return -1;
	if (k.n > 0) {
		*kind = k.items[0].kind;
		rc = wperf_classify_knot(g, &k.items[0], 0, c);
	}
	wperf_knots_fini(&k);
	return rc;
}

/* The first knot as found, refinement off (its threshold 0): a knot that
 * holds a device and threads waiting on each other, as recorded ones do
 * when refinement stops early. */
static int classify_unrefined(struct wperf_graph *g, struct wperf_classification *c,
			      enum wperf_knot_kind *kind)
{
	struct wperf_knot_options o = { .threshold_ns = 0 };
	struct wperf_knots k;
	int rc = -1;

	gb_sort(g);
	if (wperf_knots_find(g, &o, &k) < 0)
		return -1;
	if (k.n > 0) {
		*kind = k.items[0].kind;
		CHECK_INT(k.items[0].n_members, 3);
		rc = wperf_classify_knot(g, &k.items[0], 0, c);
	}
	wperf_knots_fini(&k);
	return rc;
}

/* The same for the last finding (background knots come last). */
static int classify_last(struct wperf_graph *g, struct wperf_classification *c,
			 enum wperf_knot_kind *kind)
{
	struct wperf_knot_options o = { .threshold_ns = INT64_MAX };
	struct wperf_knots k;
	int rc = -1;

	gb_sort(g);
	if (wperf_knots_find(g, &o, &k) < 0)
		return -1;
	if (k.n > 0) {
		*kind = k.items[k.n - 1].kind;
		rc = wperf_classify_knot(g, &k.items[k.n - 1], 0, c);
	}
	wperf_knots_fini(&k);
	return rc;
}

static void check_text(const struct wperf_graph *g, const struct wperf_evidence *ev,
		       const char *want)
{
	char buf[512];

	wperf_evidence_describe(buf, sizeof buf, g, ev);
	if (!strstr(buf, want)) {
		fprintf(stderr, "# evidence \"%s\" lacks \"%s\"\n", buf, want);
		check_test_failures++;
	}
}

static void test_blocking_io(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t w = thread(&g, "writer", 10, 10, 300 * MS, 0);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	waits(&g, w, d, 100, 4 * MS, 1);
	waits(&g, d, w, 100, 3 * MS, 1);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_BLOCKING_IO);
	CHECK_STR(wperf_knot_class_name(c.cls), "blocking_io");
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_DEVICE);
	CHECK_INT(c.evidence[0].vertex, d);
	CHECK_INT(c.evidence[0].a_ns, 400 * MS);
	CHECK_INT(c.evidence[0].b_ns, 300 * MS);
	check_text(&g, &c.evidence[0], "disk:vda is a member: the threads wait for it 400 ms, "
		   "and it waits for them (idle) 300 ms");
	gb_free(&g);
}

/* An fsyncing writer on a busy machine: runnable 900 ms, 800 ms of it
 * right after the disk woke it (that wait's cost, not a wait for a CPU).
 * Still blocking I/O, and the CPU-demand fact says how much of the
 * device's side those delays are, so that the thread table's runnable
 * time can be read against it. */
static void test_blocking_io_woken_delays(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t w = thread(&g, "writer", 10, 10, 300 * MS, 900 * MS);
	g.vertices[w].woken_cpu_wait_ns = 800 * MS;
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	waits(&g, w, d, 100, 4 * MS, 1);
	waits(&g, d, w, 100, 3 * MS, 1);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_BLOCKING_IO);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_CPU_DEMAND);
	CHECK_INT(c.evidence[1].a_ns, 100 * MS);
	CHECK_INT(c.evidence[1].b_ns, 1200 * MS);
	CHECK_INT(c.evidence[1].woken_ns, 800 * MS);
	/* The thread table says runnable 900 ms: the words say which part
	 * of it this 100 ms is, and what the rest was. */
	CHECK_INT(c.evidence[1].runnable_ns, 900 * MS);
	check_text(&g, &c.evidence[1], "the members waited for a CPU another thread held 100 ms "
		   "in all, not more than the 1.20 s they waited on each other and on disk:vda "
		   "(800 ms of it the CPU delays after the device woke them, that wait's cost); "
		   "of their 900 ms runnable in all (the threads table's), 800 ms was those "
		   "delays");
	/* With a wakeup's latency on idle CPUs too: 50 ms of the 900. */
	g.vertices[w].wake_latency_ns = 50 * MS;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_CPU_DEMAND);
	CHECK_INT(c.evidence[1].a_ns, 50 * MS);
	check_text(&g, &c.evidence[1], "of their 900 ms runnable in all (the threads table's), "
		   "50.0 ms was a wakeup's latency on an idle CPU and 800 ms those delays");
	g.vertices[w].wake_latency_ns = 0;
	CHECK_INT(c.evidence[0].woken_ns, 0);
	gb_free(&g);
}

/* Group commit: one thread fsyncs while another waits on it. The
 * follower waited on the fsyncer 300 ms, 250 ms of it while the fsyncer
 * was on the disk (device_ns); the fsyncer waited on the follower 50 ms
 * and on the disk 200 ms. Where the waiting ends: the disk 200 + 250 ms,
 * the threads 50 + 50 ms. Blocking I/O, though the threads' own waits on
 * each other (350 ms) outweigh their waits on the disk. */
static void test_device_weight_in_device(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t f = thread(&g, "fsyncer", 90, 90, 200 * MS, 0);
	uint32_t x = thread(&g, "follower", 91, 90, 200 * MS, 0);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	waits(&g, x, f, 100, 3 * MS, 100);
	g.edges[gb_find(&g, x, f)].device_ns = 250 * MS;
	waits(&g, f, x, 100, MS / 2, 100);
	waits(&g, f, d, 100, 2 * MS, 1);
	waits(&g, d, f, 100, MS, 1);
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_BLOCKING_IO);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_DEVICE);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_DEVICE_WEIGHT);
	CHECK(c.evidence[1].decides);
	CHECK_INT(c.evidence[1].vertex, d);
	CHECK_INT(c.evidence[1].a_ns, 450 * MS);
	CHECK_INT(c.evidence[1].through_ns, 250 * MS);
	CHECK_INT(c.evidence[1].b_ns, 100 * MS);
	CHECK_INT(c.evidence[1].total, 1);
	CHECK_STR(wperf_evidence_kind_name(c.evidence[1].kind), "device_weight");
	check_text(&g, &c.evidence[1], "the threads waited on disk:vda 450 ms, directly or "
		   "through each other (250 ms of it on a thread that was waiting on it), at least "
		   "the 100 ms of their other waits on each other: the knot's waiting ends in the "
		   "device");
	/* Without the fsyncer's disk waits under the follower's, the same
	 * waits end between the threads: 200 ms against 350 ms. */
	g.edges[gb_find(&g, x, f)].device_ns = 0;
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK(c.cls != WPERF_CLASS_BLOCKING_IO);
	/* Unless the fsyncer was runnable 200 ms of them: a CPU's, on
	 * neither side (200 ms against 150 ms). */
	g.edges[gb_find(&g, x, f)].runnable_ns = 200 * MS;
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_BLOCKING_IO);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_DEVICE_WEIGHT);
	CHECK_INT(c.evidence[1].on_runnable_ns, 200 * MS);
	check_text(&g, &c.evidence[1], "the threads waited on disk:vda 200 ms, directly or "
		   "through each other, at least the 150 ms of their other waits on each other "
		   "(and 200 ms on a runnable thread, directly or down the chain: a wait for a "
		   "CPU, on neither side): the knot's waiting ends in the device");
	gb_free(&g);
}

/* A client and its server, two programs: the client waited on the server
 * 400 ms, 100 ms of it while the server fsynced (device_ns) and 250 ms
 * while the server worked on its request (served_ns); the server waited
 * on the disk 100 ms and on the client 50 ms, 40 ms of it while the
 * client ran. The service time is on neither side: the disk's 200 ms
 * against the threads' 50 + 10 ms, blocking I/O. Counted on the threads'
 * side, 350 ms would outweigh the disk's. */
static void test_device_weight_service(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t cl = thread(&g, "client", 70, 70, 300 * MS, 0);
	uint32_t sv = thread(&g, "server", 71, 71, 300 * MS, 0);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	waits(&g, cl, sv, 100, 4 * MS, 100);
	g.edges[gb_find(&g, cl, sv)].device_ns = 100 * MS;
	g.edges[gb_find(&g, cl, sv)].served_ns = 250 * MS;
	waits(&g, sv, cl, 100, MS / 2, 100);
	g.edges[gb_find(&g, sv, cl)].served_ns = 40 * MS;
	waits(&g, sv, d, 100, MS, 1);
	waits(&g, d, sv, 100, MS, 1);
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_BLOCKING_IO);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_DEVICE_WEIGHT);
	CHECK(c.evidence[1].decides);
	CHECK_INT(c.evidence[1].a_ns, 200 * MS);
	CHECK_INT(c.evidence[1].b_ns, 60 * MS);
	CHECK_INT(c.evidence[1].served_ns, 290 * MS);
	check_text(&g, &c.evidence[1], "the threads waited on disk:vda 200 ms, directly or "
		   "through each other (100 ms of it on a thread that was waiting on it), at least "
		   "the 60.0 ms of their other waits on each other (and 290 ms on another program "
		   "working on their request: its service time, on neither side): the knot's "
		   "waiting ends in the device");
	/* A served time larger than what is left of the waits (a rounding
	 * of merged edges) counts no more than that. */
	g.edges[gb_find(&g, sv, cl)].served_ns = 80 * MS;
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.evidence[1].b_ns, 50 * MS);
	CHECK_INT(c.evidence[1].served_ns, 300 * MS);
	/* Without the service time, the threads' side outweighs the disk's. */
	g.edges[gb_find(&g, cl, sv)].served_ns = 0;
	g.edges[gb_find(&g, sv, cl)].served_ns = 0;
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK(c.cls != WPERF_CLASS_BLOCKING_IO);
	gb_free(&g);
}

/* A lock whose holder sometimes writes: two threads of one process pass
 * a lock 4000 times (400 ms of waits) while one of them waits on the disk
 * 50 ms. The disk is a member of their knot, but the knot's weight lies
 * between the threads: lock contention, not blocking I/O (a database
 * whose transactions all update the same rows, with some writeback). */
static void test_device_member_lock(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "backend", 80, 80, 600 * MS, 0);
	uint32_t b = thread(&g, "backend", 81, 80, 600 * MS, 0);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	waits(&g, a, b, 2000, 100000, 2000);
	waits(&g, b, a, 2000, 100000, 1990);
	waits(&g, a, d, 10, 5 * MS, 1);
	waits(&g, d, a, 10, 5 * MS, 1);
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	REQUIRE_INT(kind, WPERF_KNOT);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_DEVICE_WEIGHT);
	CHECK(c.evidence[0].decides);
	CHECK_INT(c.evidence[0].a_ns, 50 * MS);
	CHECK_INT(c.evidence[0].b_ns, 400 * MS);
	check_text(&g, &c.evidence[0], "the threads waited on disk:vda 50.0 ms, directly or "
		   "through each other, less than the 400 ms of their other waits on each other: "
		   "the device is a member, but the knot's waiting ends between its threads");
	/* The device's own fact stays, not deciding. */
	bool device_fact = false;
	for (size_t i = 0; i < c.n_evidence; i++)
		if (c.evidence[i].kind == WPERF_EV_DEVICE) {
			device_fact = true;
			CHECK(!c.evidence[i].decides);
			CHECK_INT(c.evidence[i].a_ns, 50 * MS);
		}
	CHECK(device_fact);
	gb_free(&g);
}

/* Four workers on a machine too small for them: each was runnable 400 ms
 * while they waited on each other 2 x 100 ms. */
static void test_too_few_cpus(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t m = thread(&g, "main", 20, 20, 500 * MS, 0);
	uint32_t w = thread(&g, "worker", 21, 20, 500 * MS, 400 * MS);
	waits(&g, m, w, 10, 10 * MS, 10);
	waits(&g, w, m, 10, 10 * MS, 10);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_TOO_FEW_CPUS);
	/* The deciding facts first: the runnable worker and the demand. */
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_RUNNABLE);
	CHECK_INT(c.evidence[0].vertex, w);
	CHECK_INT(c.evidence[0].a_ns, 400 * MS);
	CHECK_INT(c.evidence[0].ppm, 444444);   /* 400 / (500 + 400) */
	check_text(&g, &c.evidence[0], "worker (21) was runnable 44.4% of its time (400 ms)");
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_CPU_DEMAND);
	CHECK_INT(c.evidence[1].a_ns, 400 * MS);
	CHECK_INT(c.evidence[1].b_ns, 200 * MS);
	CHECK(wperf_vertex_is_runnable_bound(&g.vertices[w]));
	CHECK(!wperf_vertex_is_runnable_bound(&g.vertices[m]));
	gb_free(&g);
}

/* Two threads of one process: 20 waits each way in 2 runs each (phases
 * of ten), long waits. */
static void test_load_imbalance(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "phase-a", 30, 30, 600 * MS, 0);
	uint32_t b = thread(&g, "phase-b", 31, 30, 600 * MS, 0);
	waits(&g, a, b, 20, 10 * MS, 2);
	waits(&g, b, a, 20, 12 * MS, 2);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOAD_IMBALANCE);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_TURNS);
	CHECK_INT(c.evidence[0].count, 40);
	CHECK_INT(c.evidence[0].turns, 4);
	/* The heavier direction first: b -> a 240 ms. */
	CHECK_INT(c.evidence[0].vertex, b);
	CHECK_INT(c.evidence[0].a_ns, 240 * MS);
	CHECK_INT(c.evidence[0].b_ns, 200 * MS);
	check_text(&g, &c.evidence[0], "about 10 in a row");
	/* Neither waited on the other while that one waited itself. */
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_QUEUE);
	CHECK_INT(c.evidence[1].count, 0);
	CHECK_INT(c.evidence[1].total, 40);
	CHECK_INT(c.evidence[1].vertex, b);
	CHECK_INT(c.evidence[1].vertex2, a);
	check_text(&g, &c.evidence[1], "0 of their 40 waits (0.0%) began while the thread "
		   "that ended them was waiting itself: it was working, not queued");
	/* Half of the waits chained is not yet a queue. */
	g.edges[gb_find(&g, a, b)].chained = 20;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOAD_IMBALANCE);
	/* Runs of 2 both ways: a queue of threads, not phases. */
	g.edges[gb_find(&g, a, b)].chained = 0;
	g.edges[gb_find(&g, a, b)].turns = 10;
	g.edges[gb_find(&g, b, a)].turns = 10;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	REQUIRE_INT(c.evidence[2].kind, WPERF_EV_GROUP);
	CHECK_INT(c.evidence[2].count, 0);
	CHECK_INT(c.evidence[2].total, 40);
	REQUIRE_INT(c.evidence[3].kind, WPERF_EV_WAIT_LENGTH);
	CHECK_INT(c.evidence[3].count, 40);
	gb_free(&g);
}

/*
 * Three threads of one process handing a lock along a queue: each waits
 * on the thread queued before it, 20 times in a row, so the runs look
 * like phases; but nearly every wait began while the waker was queued
 * itself. Lock contention, and the queue evidence says why.
 */
static void test_lock_queue_of_three(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "mutex-0", 70, 70, 400 * MS, 0);
	uint32_t b = thread(&g, "mutex-1", 71, 70, 400 * MS, 0);
	uint32_t d = thread(&g, "mutex-2", 72, 70, 400 * MS, 0);
	waits(&g, a, d, 100, 2 * MS, 5);
	waits(&g, b, a, 100, 2 * MS, 5);
	waits(&g, d, b, 100, 2 * MS, 5);
	waits(&g, a, b, 60, 2 * MS, 3);
	waits(&g, b, d, 20, 2 * MS, 1);
	for (size_t i = 0; i < g.n_edges; i++)
		g.edges[i].chained = g.edges[i].count - 1;   /* the first found the lock held */
	/* Unrefined: refinement would cut b -> d and a -> b, and with them
	 * the pair waiting both ways. */
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	/* The heaviest pair both ways: a <-> b, 100 + 60 waits. */
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_TURNS);
	CHECK_INT(c.evidence[0].count, 160);
	CHECK_INT(c.evidence[0].turns, 8);
	check_text(&g, &c.evidence[0], "about 20 in a row");
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_QUEUE);
	CHECK_INT(c.evidence[1].count, 158);
	CHECK_INT(c.evidence[1].total, 160);
	check_text(&g, &c.evidence[1], "158 of their 160 waits (98.8%) began while the "
		   "thread that ended them was waiting itself: a queue, each woken by the "
		   "one queued before it");
	/* Without the queue it would read as phases. */
	for (size_t i = 0; i < g.n_edges; i++)
		g.edges[i].chained = 0;
	REQUIRE_INT(classify_unrefined(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOAD_IMBALANCE);
	gb_free(&g);
}

/* The same two threads ping-ponging on a lock: every wait a turn. */
static void test_lock_contention(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "lock-a", 40, 40, 600 * MS, 0);
	uint32_t b = thread(&g, "lock-b", 41, 40, 600 * MS, 0);
	waits(&g, a, b, 2000, 100000, 2000);
	waits(&g, b, a, 2000, 100000, 1990);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_TURNS);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_QUEUE);
	REQUIRE_INT(c.evidence[2].kind, WPERF_EV_GROUP);
	check_text(&g, &c.evidence[2], "0 of the 4000 waits of threads on each other (0.0%) "
		   "ended in a wakeup that woke others at the same moment: one waiter at a "
		   "time, as a lock hands over or a barrier with one waiter");
	REQUIRE_INT(c.evidence[3].kind, WPERF_EV_WAIT_LENGTH);
	CHECK_INT(c.evidence[3].a_ns, 65536);     /* 100 us is in [2^16, 2^17) */
	CHECK_INT(c.evidence[3].b_ns, 131072);
	REQUIRE_INT(c.evidence[4].kind, WPERF_EV_ONE_PROCESS);
	CHECK_INT(c.evidence[4].count, 2);
	CHECK_INT(c.evidence[4].pid, 40);
	check_text(&g, &c.evidence[4], "all 2 threads belong to process 40");
	gb_free(&g);
}

/*
 * Three threads of one process in a cycle a -> b -> c -> a, and b waiting
 * on a a little: refinement cuts b -> a and reports the cycle. The pair
 * a, b no longer waits both ways inside the finding, so no evidence may
 * count b -> a's waits ("220 waits in 25 turns"): the counts printed are
 * the finding's own edges'.
 */
static void test_turns_not_of_cut_edges(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "ring-a", 80, 80, 300 * MS, 0);
	uint32_t b = thread(&g, "ring-b", 81, 80, 300 * MS, 0);
	uint32_t d = thread(&g, "ring-c", 82, 80, 300 * MS, 0);
	waits(&g, a, b, 200, 1 * MS, 20);
	waits(&g, b, d, 200, 1 * MS, 20);
	waits(&g, d, a, 200, 1 * MS, 20);
	waits(&g, b, a, 20, 1 * MS, 5);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_KNOT);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	for (size_t i = 0; i < c.n_evidence; i++) {
		CHECK(c.evidence[i].kind != WPERF_EV_TURNS);
		CHECK(c.evidence[i].kind != WPERF_EV_QUEUE);
		if (c.evidence[i].kind == WPERF_EV_GROUP)
			CHECK_INT(c.evidence[i].total, 600);   /* the ring's waits, not b -> a's */
		if (c.evidence[i].kind == WPERF_EV_WAIT_LENGTH)
			CHECK_INT(c.evidence[i].count, 600);
	}
	CHECK(!c.sink);
	gb_free(&g);
}

/* The same pattern between two processes is not called a lock. */
static void test_two_processes_unknown(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "client", 50, 50, 600 * MS, 0);
	uint32_t b = thread(&g, "server", 60, 60, 600 * MS, 0);
	waits(&g, a, b, 2000, 100000, 2000);
	waits(&g, b, a, 2000, 100000, 2000);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_UNKNOWN);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_PROCESSES);
	CHECK_INT(c.evidence[0].count, 2);
	gb_free(&g);
}

/*
 * A shell script starting short `dd`s that each write and fsync, merged
 * (short-lived="merge") into one vertex sh-children, in a cycle with a
 * flusher thread: the finding holds 3 processes of the children and the
 * flusher's, 4 in all, not the 2 vertices ("the threads belong to 2
 * processes" counted the merged vertex as one process).
 */
static void test_merged_children_processes(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	struct wperf_merge_options o = { .key = WPERF_MERGE_NONE, .short_lived = true };
	enum wperf_knot_kind kind;
	uint32_t *map = NULL;

	gb_init(&g, 0, DURATION);
	uint32_t sh = thread(&g, "sh", 100, 100, 10 * MS, 0);
	g.quality.cpus = 2;   /* busy one CPU: not background, nor saturating both */
	uint32_t kw = thread(&g, "flusher", 9, 9, 990 * MS, 0);
	g.vertices[kw].first_ts = 0;
	g.vertices[kw].last_ts = DURATION;
	g.vertices[sh].first_ts = 0;
	g.vertices[sh].last_ts = DURATION;
	for (int i = 0; i < 3; i++) {
		uint32_t dd = thread(&g, "dd", 101 + i, 101 + i, 5 * MS, 0);
		g.vertices[dd].parent_tid = 100;
		g.vertices[dd].first_ts = (100 + 30 * i) * MS;
		g.vertices[dd].last_ts = (120 + 30 * i) * MS;
		waits(&g, dd, kw, 10, 5 * MS, 10);   /* turn by turn: no phases */
		waits(&g, kw, dd, 10, 5 * MS, 10);
		waits(&g, sh, dd, 1, 20 * MS, 1);   /* the script waits for each */
	}
	gb_sort(&g);
	REQUIRE_INT(wperf_graph_merge(&g, &o, &map), 0);
	free(map);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_KNOT);
	CHECK_INT(c.cls, WPERF_CLASS_UNKNOWN);
	size_t i = 0;
	while (i < c.n_evidence && c.evidence[i].kind != WPERF_EV_PROCESSES)
		i++;
	REQUIRE_INT(i < c.n_evidence, 1);
	CHECK_INT(c.evidence[i].count, 4);
	check_text(&g, &c.evidence[i], "the threads belong to 4 processes");
	gb_free(&g);
}

/* A pipeline on 2 CPUs: a reader and a worker of two processes hand work
 * along, each waiting on the other, rarely runnable, but running 90% of
 * what the two CPUs could run: too few CPUs (wperf-analysis(7) rule 2).
 * The same pair at 70% of the CPUs waits on each other in no known
 * pattern. */
static void pipeline(struct wperf_graph *g, int64_t reader_running, int64_t worker_running)
{
	gb_init(g, 0, DURATION);
	g->quality.cpus = 2;
	uint32_t a = thread(g, "reader", 50, 50, reader_running, 10 * MS);
	uint32_t b = thread(g, "worker", 60, 60, worker_running, 10 * MS);
	waits(g, a, b, 2000, 100000, 2000);
	waits(g, b, a, 2000, 100000, 2000);
}

static void test_cpu_saturated(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	pipeline(&g, 800 * MS, 1000 * MS);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_TOO_FEW_CPUS);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_CPU_SATURATED);
	CHECK(c.evidence[0].decides);
	CHECK_INT(c.evidence[0].a_ns, 1800 * MS);
	CHECK_INT(c.evidence[0].b_ns, 2000 * MS);
	CHECK_INT(c.evidence[0].count, 2);
	CHECK_INT(c.evidence[0].ppm, 900000);
	check_text(&g, &c.evidence[0], "the members ran 1.80 s on the CPUs, 90.0% of the 2.00 s "
		   "that 2 CPUs could run while they existed: they kept the CPUs busy themselves, "
		   "so shorter waits cannot make room for more work");
	/* The CPU demand stays, against the class: 20 ms runnable. */
	for (size_t i = 0; i < c.n_evidence; i++)
		if (c.evidence[i].kind == WPERF_EV_CPU_DEMAND)
			CHECK(!c.evidence[i].decides);
	gb_free(&g);

	pipeline(&g, 600 * MS, 800 * MS);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_UNKNOWN);
	for (size_t i = 0; i < c.n_evidence; i++)
		CHECK(c.evidence[i].kind != WPERF_EV_CPU_SATURATED);
	gb_free(&g);
}

/* merge="name": one vertex of four threads waiting on itself. */
static void test_merged_self_loop(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t v = gb_vertex(&g, WPERF_V_VIRTUAL, "worker-*");
	g.vertices[v].pid = 70;
	g.vertices[v].running_ns = 1500 * MS;
	static int64_t tids[] = { 71, 72, 73, 74 };
	g.vertices[v].members = tids;
	g.vertices[v].n_members = 4;
	waits(&g, v, v, 5000, 300000, 3000);
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_KNOT);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_SELF_LOOP);
	CHECK_INT(c.evidence[0].a_ns, 1500 * MS);
	CHECK_INT(c.evidence[0].count, 5000);
	REQUIRE_INT(c.evidence[1].kind, WPERF_EV_GROUP);
	REQUIRE_INT(c.evidence[3].kind, WPERF_EV_ONE_PROCESS);
	CHECK_INT(c.evidence[3].count, 4);
	/* The same self-loop where most waits end in group wakeups by a
	 * working waker: a barrier among the merged threads. */
	g.edges[gb_find(&g, v, v)].grouped = 4000;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOAD_IMBALANCE);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_GROUP);
	CHECK_INT(c.evidence[0].count, 4000);
	CHECK_INT(c.evidence[0].total, 5000);
	check_text(&g, &c.evidence[0], "4000 of the 5000 waits of threads on each other "
		   "(80.0%) ended in a wakeup that woke others at the same moment: a group "
		   "woken at once, as when a barrier opens for the last to arrive");
	/* Grouped but queued (a broadcast into a queue): not a barrier. */
	g.edges[gb_find(&g, v, v)].chained = 3000;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	/* Half grouped is not yet a barrier. */
	g.edges[gb_find(&g, v, v)].chained = 0;
	g.edges[gb_find(&g, v, v)].grouped = 2500;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(c.cls, WPERF_CLASS_LOCK_CONTENTION);
	g.vertices[v].members = NULL;   /* static: not gb_free's */
	g.vertices[v].n_members = 0;
	gb_free(&g);
}

/* Two threads that ran 100 ms in all: background, whatever else. */
static void test_background(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "heartbeat", 80, 80, 60 * MS, 0);
	uint32_t b = thread(&g, "helper", 81, 80, 40 * MS, 0);
	waits(&g, a, b, 10, 5 * MS, 10);
	waits(&g, b, a, 10, 5 * MS, 10);
	/* Alone, the pair is all the work there is: not background. */
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_KNOT);
	/* Beside a busy worker that does not wait on it, it is. */
	uint32_t w = thread(&g, "worker", 82, 82, DURATION, 0);
	uint32_t w2 = thread(&g, "worker2", 83, 82, DURATION, 0);
	waits(&g, w, w2, 10, 30 * MS, 10);
	waits(&g, w2, w, 10, 30 * MS, 10);
	REQUIRE_INT(classify_last(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_BACKGROUND);
	CHECK_INT(c.cls, WPERF_CLASS_BACKGROUND);
	REQUIRE_INT(c.evidence[0].kind, WPERF_EV_BACKGROUND);
	CHECK_INT(c.evidence[0].a_ns, 100 * MS);
	CHECK_INT(c.evidence[0].ppm, 100000);
	gb_free(&g);
}

static void test_sink_not_classified(void)
{
	struct wperf_graph g;
	struct wperf_classification c;
	enum wperf_knot_kind kind;

	gb_init(&g, 0, DURATION);
	uint32_t a = thread(&g, "client", 90, 90, 600 * MS, 0);
	uint32_t b = thread(&g, "server", 91, 91, 600 * MS, 0);
	waits(&g, a, b, 10, 10 * MS, 10);
	CHECK_INT(classify_first(&g, &c, &kind), -1);
	CHECK_INT(kind, WPERF_SINK);
	/* The same server runnable 300 ms of its 900: it needs a CPU. */
	g.vertices[b].runnable_ns = 300 * MS;
	REQUIRE_INT(classify_first(&g, &c, &kind), 0);
	CHECK_INT(kind, WPERF_SINK);
	CHECK_INT(c.cls, WPERF_CLASS_TOO_FEW_CPUS);
	CHECK_INT(c.n_evidence, 1);
	CHECK_INT(c.evidence[0].kind, WPERF_EV_RUNNABLE);
	CHECK_INT(c.evidence[0].ppm, 333333);
	/* In a sink's words: one thread, no members, no knot to wait inside. */
	CHECK(c.sink);
	CHECK_STR(wperf_classification_summary(&c),
		  "too few CPUs: its own work waits for a CPU another thread holds");
	gb_free(&g);
}

int main(void)
{
	RUN_TEST(test_blocking_io);
	RUN_TEST(test_blocking_io_woken_delays);
	RUN_TEST(test_device_weight_in_device);
	RUN_TEST(test_device_weight_service);
	RUN_TEST(test_device_member_lock);
	RUN_TEST(test_too_few_cpus);
	RUN_TEST(test_load_imbalance);
	RUN_TEST(test_lock_contention);
	RUN_TEST(test_lock_queue_of_three);
	RUN_TEST(test_turns_not_of_cut_edges);
	RUN_TEST(test_two_processes_unknown);
	RUN_TEST(test_merged_children_processes);
	RUN_TEST(test_cpu_saturated);
	RUN_TEST(test_merged_self_loop);
	RUN_TEST(test_background);
	RUN_TEST(test_sink_not_classified);
	return check_finish();
}
