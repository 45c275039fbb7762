/* SPDX-License-Identifier: MIT */
/*
 * report-cases.c — see report-cases.h.
 *
 * "basic" is shaped like a real database trace: a knot of a thread, the
 * journal thread and the disk (with one light edge refinement cuts), a
 * sink, waits on timer/unknown, every vertex kind, more threads than the
 * text report lists, gaps and every quality counter set.
 *
 * "leaky" is a cycle of two threads and a disk that one light edge leaves
 * (to a setup thread): a knot under the dominant rule, with its leaving
 * edge; "leaky-strict" is the same graph under the strict rule, where it
 * is a heavy group that is not a knot.
 *
 * "machine" is a whole-machine trace without focus: 14 processes, one
 * knot, and six sinks from 50% down to 2% of the analysed time, the
 * heaviest one heavier than the knot.
 *
 * "sinks" has one sink of each kind (doc/wperf-report.7.md, Sink kinds):
 * a disk, a NIC, an interrupt, a thread that ran, one that waited on
 * nothing that counts, one paced by timers, one waiting on what the trace
 * does not show.
 */
#include <stdlib.h>
#include <string.h>

#include "graph-builder.h"
#include "report-cases.h"

const char *const report_case_names[] = {
	"basic", "focus", "empty", "timers-only", "strings", "children-12", "children-9",
	"children-12-focus", "leaky", "leaky-strict", "machine", "sinks", "focus-pool", NULL
};

#define MS 1000000LL
#define EXTRA_THREADS 25

static void set_times(struct wperf_graph *g, uint32_t v, int64_t running,
		      int64_t runnable, enum wperf_vertex_kind waker, int64_t waiting)
{
	struct wperf_vertex *x = &g->vertices[v];
	x->first_ts = g->begin_ns;
	x->last_ts = g->end_ns;
	x->running_ns = running;
	x->runnable_ns = runnable;
	x->waiting_ns[waker] += waiting;
	x->waits += 10;
}

static void add_quality(struct wperf_graph *g)
{
	struct wperf_quality *q = &g->quality;
	q->events = 123456;
	q->discarded_events = 10;
	q->discarded_packets = 1;
	q->gaps = calloc(2, sizeof *q->gaps);
	if (q->gaps) {
		q->n_gaps = 2;
		q->gaps[0] = (struct wperf_gap){ 1, g->begin_ns + 100 * MS,
						 g->begin_ns + 101 * MS, 10, false };
		q->gaps[1] = (struct wperf_gap){ -1, -1, -1, 0, true };
	}
	q->unmatched_wakeups = 3;
	q->unknown_initial_threads = 2;
	q->waits_without_wakeup = 1;
	q->waits_open_at_end = 4;
	q->unmatched_block_completions = 5;
	q->state_mismatches = 6;
	q->has_waking = true;
}

static void build_basic(struct wperf_graph *g)
{
	gb_init(g, 5000 * MS, 6000 * MS);       /* one second */
	uint32_t m0 = gb_thread(g, "mysqld", 100);
	uint32_t m1 = gb_thread(g, "mysqld", 101);
	uint32_t jbd = gb_thread(g, "jbd2/vda1-8", 200);
	uint32_t disk = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	uint32_t client = gb_thread(g, "client", 300);
	uint32_t server = gb_thread(g, "server", 301);
	uint32_t timer = gb_vertex(g, WPERF_V_TIMER, "timer");
	uint32_t unknown = gb_vertex(g, WPERF_V_UNKNOWN, "unknown");
	gb_vertex(g, WPERF_V_IRQ, "irq:24:virtio1");
	gb_vertex(g, WPERF_V_NIC, "nic:eth0");
	gb_vertex(g, WPERF_V_SOFTIRQ, "softirq:TASKLET");
	uint32_t pool = gb_vertex(g, WPERF_V_VIRTUAL, "worker-*");

	struct wperf_edge *e = gb_edge(g, m0, m1, 200 * MS);
	e->count = 40;
	e->direct_ns = 150 * MS;
	memset(e->hist, 0, sizeof e->hist);
	e->hist[20] = 10;
	e->hist[22] = 30;
	gb_edge(g, m1, jbd, 300 * MS)->count = 25;
	gb_edge(g, jbd, disk, 400 * MS)->count = 80;
	gb_edge(g, disk, m1, 250 * MS)->count = 80;
	gb_edge(g, m1, disk, 50 * MS)->count = 5;       /* cut by refinement */
	gb_edge(g, m0, timer, 100 * MS);
	gb_edge(g, m0, unknown, 10 * MS);
	e = gb_edge(g, client, server, 150 * MS);
	e->count = 1000;
	e->direct_ns = 100 * MS;        /* 50 ms cascaded: others held up meanwhile */
	gb_edge(g, pool, server, 50 * MS);
	gb_edge(g, server, timer, 900 * MS);
	gb_sort(g);

	g->vertices[disk].busy_ns = 600 * MS;
	g->vertices[disk].bytes = 1 << 20;
	g->vertices[m1].unknown_initial_state = true;
	/* Their share of add_quality()'s 6 mismatches and 1 lost wakeup: a
	 * knot member and a thread in no knot or sink. */
	g->vertices[m1].state_mismatches = 2;
	g->vertices[client].state_mismatches = 4;
	g->vertices[client].waits_without_wakeup = 1;
	set_times(g, m0, 300 * MS, 10 * MS, WPERF_V_THREAD, 200 * MS);
	set_times(g, m1, 200 * MS, 350 * MS, WPERF_V_DISK, 250 * MS);
	set_times(g, jbd, 100 * MS, 0, WPERF_V_DISK, 400 * MS);
	set_times(g, client, 50 * MS, 0, WPERF_V_THREAD, 150 * MS);
	set_times(g, server, 100 * MS, 0, WPERF_V_TIMER, 900 * MS);
	set_times(g, pool, 20 * MS, 0, WPERF_V_THREAD, 50 * MS);
	for (int i = 0; i < EXTRA_THREADS; i++) {
		char name[32];
		snprintf(name, sizeof name, "idle-%d", i);
		uint32_t t = gb_thread(g, name, 1000 + i);
		set_times(g, t, i * MS, 0, WPERF_V_IRQ, MS);
	}
	add_quality(g);
}

/* Names a kernel may hand over: quotes, backslashes, control characters,
 * bytes that are not UTF-8 (including a UTF-16 surrogate and an overlong
 * encoding), and real UTF-8. */
#define HOSTILE_COMM "q\"b\\n\n\x01\x7f\xff\xed\xa0\x80\xc0\xaf-\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80"

static void build_strings(struct wperf_graph *g)
{
	gb_init(g, 0, 1000);
	uint32_t a = gb_thread(g, HOSTILE_COMM, 1);
	uint32_t b = gb_thread(g, NULL, 2);           /* no comm at all */
	uint32_t c = gb_vertex(g, WPERF_V_DISK, NULL); /* no name at all */
	gb_edge(g, a, b, 10);
	gb_edge(g, b, c, 10);
	gb_edge(g, c, a, 10);
	gb_sort(g);
}

/* sh (tid 10) runs `n` short-lived children one after another (5 ms each
 * in a 1 s trace), waiting for each: one 5 ms edge per child. */
static void build_children(struct wperf_graph *g, int n)
{
	gb_init(g, 0, 1000 * MS);
	uint32_t sh = gb_thread(g, "sh", 10);

	set_times(g, sh, 100 * MS, 0, WPERF_V_THREAD, 900 * MS);
	for (int i = 0; i < n; i++) {
		uint32_t c = gb_thread(g, "true", 100 + i);
		struct wperf_vertex *v = &g->vertices[c];

		v->parent_tid = 10;
		v->first_ts = (int64_t)(i + 1) * 20 * MS;
		v->last_ts = v->first_ts + 5 * MS;
		v->running_ns = 5 * MS;
		gb_edge(g, sh, c, 5 * MS);
	}
	gb_sort(g);
}

static void build_timers_only(struct wperf_graph *g)
{
	gb_init(g, 0, 1000 * MS);
	uint32_t a = gb_thread(g, "sleeper", 1);
	uint32_t t = gb_vertex(g, WPERF_V_TIMER, "timer");
	gb_edge(g, a, t, 900 * MS);
	gb_sort(g);
	set_times(g, a, 100 * MS, 0, WPERF_V_TIMER, 900 * MS);
}

static void build_leaky(struct wperf_graph *g)
{
	gb_init(g, 0, 1000 * MS);
	uint32_t a = gb_thread(g, "writer", 1), b = gb_thread(g, "flusher", 2);
	uint32_t d = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	uint32_t s = gb_thread(g, "setup", 3);
	gb_edge(g, a, d, 400 * MS);
	gb_edge(g, d, b, 300 * MS);
	gb_edge(g, b, a, 300 * MS);
	gb_edge(g, a, s, 100 * MS);
	gb_sort(g);
	set_times(g, a, 900 * MS, 0, WPERF_V_DISK, 100 * MS);
	set_times(g, b, 900 * MS, 0, WPERF_V_THREAD, 100 * MS);
	set_times(g, s, 100 * MS, 0, WPERF_V_TIMER, 900 * MS);
}

static void build_machine(struct wperf_graph *g)
{
	static const int64_t sink_ms[] = { 500, 150, 60, 40, 30, 20 };
	static const char *const names[] = { "big", "mid", "six", "four", "three", "two" };

	gb_init(g, 0, 1000 * MS);
	uint32_t a = gb_thread(g, "ping", 1), b = gb_thread(g, "pong", 2);
	gb_edge(g, a, b, 100 * MS);
	gb_edge(g, b, a, 100 * MS);
	for (int i = 0; i < 6; i++) {
		uint32_t sink = gb_thread(g, names[i], 10 + i);
		uint32_t waiter = gb_thread(g, "client", 20 + i);
		gb_edge(g, waiter, sink, sink_ms[i] * MS);
	}
	gb_sort(g);
	for (uint32_t v = 0; v < g->n_vertices; v++)
		set_times(g, v, 900 * MS, 0, WPERF_V_THREAD, 100 * MS);
	g->quality.cpus = 16;   /* 14 threads running 900 ms each */
}

static void build_sinks(struct wperf_graph *g)
{
	static const int64_t waited_ms[] = { 400, 300, 250, 200, 150, 120, 110 };
	uint32_t sinks[7];

	gb_init(g, 0, 1000 * MS);
	sinks[0] = gb_vertex(g, WPERF_V_DISK, "disk:sda");
	sinks[1] = gb_vertex(g, WPERF_V_NIC, "nic:eth0");
	sinks[2] = gb_vertex(g, WPERF_V_IRQ, "irq:30:eth0");
	sinks[3] = gb_thread(g, "cruncher", 10);
	sinks[4] = gb_thread(g, "idler", 11);
	sinks[5] = gb_thread(g, "sleeper", 12);
	sinks[6] = gb_thread(g, "lost", 13);
	g->vertices[sinks[0]].busy_ns = 800 * MS;
	for (int i = 0; i < 7; i++) {
		uint32_t waiter = gb_thread(g, "waiter", 20 + i);
		gb_edge(g, waiter, sinks[i], waited_ms[i] * MS);
		set_times(g, waiter, 500 * MS, 0, WPERF_V_THREAD, 500 * MS);
	}
	gb_sort(g);
	set_times(g, sinks[3], 800 * MS, 100 * MS, WPERF_V_TIMER, 100 * MS);
	/* Waits on threads with no edge: all under the noise floor. */
	set_times(g, sinks[4], 100 * MS, 0, WPERF_V_THREAD, 900 * MS);
	set_times(g, sinks[5], 100 * MS, 0, WPERF_V_TIMER, 900 * MS);
	set_times(g, sinks[6], 100 * MS, 0, WPERF_V_UNKNOWN, 900 * MS);
	g->quality.cpus = 8;    /* 11 threads, 4.6 s of running */
}

/* Two threads of one program with a long name wait on each other: the
 * knot's edge rows must tell them apart by tid. */
static void build_long_names(struct wperf_graph *g)
{
	gb_init(g, 0, 1000 * MS);
	uint32_t a = gb_thread(g, "qemu-system-x86", 20757);
	uint32_t b = gb_thread(g, "qemu-system-x86", 20770);
	gb_edge(g, a, b, 500 * MS)->count = 10;
	gb_edge(g, b, a, 400 * MS)->count = 10;
	gb_sort(g);
	set_times(g, a, 500 * MS, 0, WPERF_V_THREAD, 500 * MS);
	set_times(g, b, 600 * MS, 0, WPERF_V_THREAD, 400 * MS);
}

static int build_graph(const char *name, struct wperf_graph *g)
{
	if (!strcmp(name, "basic") || !strcmp(name, "focus") || !strcmp(name, "focus-pool"))
		build_basic(g);
	else if (!strcmp(name, "empty"))
		gb_init(g, 0, 0);
	else if (!strcmp(name, "timers-only"))
		build_timers_only(g);
	else if (!strcmp(name, "strings"))
		build_strings(g);
	else if (!strcmp(name, "children-12") || !strcmp(name, "children-12-focus"))
		build_children(g, 12);
	else if (!strcmp(name, "children-9"))
		build_children(g, 9);
	else if (!strcmp(name, "leaky") || !strcmp(name, "leaky-strict"))
		build_leaky(g);
	else if (!strcmp(name, "machine"))
		build_machine(g);
	else if (!strcmp(name, "sinks"))
		build_sinks(g);
	else if (!strcmp(name, "long-names"))
		build_long_names(g);
	else
		return -1;
	return 0;
}

int report_case_build(const char *name, struct report_case *c)
{
	memset(c, 0, sizeof *c);
	if (build_graph(name, &c->g))
		return -1;
	int64_t duration = c->g.end_ns - c->g.begin_ns;
	if (!strcmp(name, "focus")) {
		c->focus = calloc(c->g.n_vertices, sizeof *c->focus);
		if (!c->focus)
			return -1;
		c->focus[4] = true;             /* client: reaches the sink only */
	}
	if (!strcmp(name, "focus-pool")) {
		c->focus = calloc(c->g.n_vertices, sizeof *c->focus);
		if (!c->focus)
			return -1;
		c->focus[11] = true;            /* worker-*: waits on the server less
						   than the client does */
	}
	if (!strcmp(name, "children-12-focus")) {
		c->focus = calloc(c->g.n_vertices, sizeof *c->focus);
		if (!c->focus)
			return -1;
		c->focus[0] = true;             /* sh alone: its children are not */
	}
	/* The sink's defaults, but the "leaky-strict" case. */
	bool strict = !strcmp(name, "leaky-strict");
	struct wperf_knot_options o = {
		.threshold_ns = duration / 5, .focus = c->focus,
		.leave_ppm = strict ? 0 : WPERF_KNOT_LEAVE_DEFAULT_PPM,
		.tie_ppm = WPERF_KNOT_TIE_DEFAULT_PPM,
	};
	if (wperf_knots_find(&c->g, &o, &c->knots) ||
	    wperf_classes_find(&c->g, &c->knots, 0, &c->classes))
		return -1;
	c->r = (struct wperf_report){ .graph = &c->g, .knots = &c->knots,
				      .classes = &c->classes, .threshold_ns = duration / 5,
				      .threshold_spec = "20%", .focus = c->focus,
				      .strict_rule = strict, .leave_ppm = o.leave_ppm,
				      .tie_ppm = o.tie_ppm };
	return 0;
}

void report_case_free(struct report_case *c)
{
	wperf_classes_fini(&c->classes);
	wperf_knots_fini(&c->knots);
	gb_free(&c->g);
	free(c->focus);
	memset(c, 0, sizeof *c);
}
