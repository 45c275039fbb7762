/* SPDX-License-Identifier: MIT */
/*
 * test-cpu.c — the CPU finding (wperf/cpu.h) on hand-built graphs with
 * exactly known results: which threads count, the comparison of their
 * runnable time with their waits (each thread weighed by the share of
 * its time it asked for a CPU, a wait on a runnable thread counting as a
 * wait for a CPU), the quarter-of-a-thread bound, who else ran, merged
 * pools, the most runnable process, and the text and JSON reports
 * leading with it.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "graph-builder.h"
#include "wperf/cpu.h"
#include "wperf/knots.h"
#include "wperf/merge.h"
#include "wperf/report.h"

/* A thread of process pid alive over [0, 10 s]: running, runnable, and
 * waiting split between the disk and timers. */
static uint32_t thread(struct wperf_graph *g, const char *comm, int64_t tid, int64_t running,
		       int64_t runnable, int64_t on_disk, int64_t on_timer)
{
	uint32_t v = gb_thread(g, comm, tid);

	g->vertices[v].first_ts = 0;
	g->vertices[v].last_ts = running + runnable + on_disk + on_timer;
	g->vertices[v].running_ns = running;
	g->vertices[v].runnable_ns = runnable;
	g->vertices[v].waiting_ns[WPERF_V_DISK] = on_disk;
	g->vertices[v].waiting_ns[WPERF_V_TIMER] = on_timer;
	return v;
}

#define S 1000000000LL

/*
 * The writer of the issue: runnable 7.1 s, on the disk 2.9 s (a sink disk
 * before): the CPUs come first. A hog ran 9 s beside it, a quiet daemon
 * 1 s; the focus is the writer alone.
 */
static void build_writer(struct wperf_graph *g, uint32_t *writer, uint32_t *hog,
			 uint32_t *daemon)
{
	gb_init(g, 0, 10 * S);
	*writer = thread(g, "writer", 10, 0, 71 * S / 10, 29 * S / 10, 0);
	*hog = thread(g, "hog", 20, 9 * S, S, 0, 0);
	*daemon = thread(g, "daemon", 30, S, 0, 0, 9 * S);
	uint32_t d = gb_vertex(g, WPERF_V_DISK, "disk:vda");
	gb_edge(g, *writer, d, 29 * S / 10);
	gb_sort(g);
}

static void test_runnable_outweighs_waits(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	uint32_t w, hog, daemon;
	bool focus[4] = { false };

	build_writer(&g, &w, &hog, &daemon);
	focus[w] = true;
	CHECK_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	CHECK_INT(c.first, 1);
	CHECK_INT(c.n_threads, 1);
	CHECK_INT(c.runnable_ns, 71 * S / 10);
	CHECK_INT(c.waiting_ns, 29 * S / 10);
	CHECK_INT(c.span_ns, 10 * S);
	CHECK_INT(c.n_runnable, 1);
	CHECK_INT(c.runnable[0], w);
	/* Who else ran: the hog first, then the daemon; 10 s in all. */
	CHECK_INT(c.n_others, 2);
	CHECK_INT(c.others[0], hog);
	CHECK_INT(c.others[1], daemon);
	CHECK_INT(c.others_running_ns, 10 * S);
	gb_free(&g);
}

/* Waits on timers and `unknown` are no dependency: a program with a
 * leading sleep that was runnable 63% of its time leads with the CPUs;
 * its waits on the disk, once they outweigh its runnable time, do not. */
static void test_timers_do_not_count_devices_do(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	bool focus[2] = { true, false };

	gb_init(&g, 0, 10 * S);
	thread(&g, "sleepy", 10, S, 63 * S / 10, 0, 27 * S / 10);
	gb_vertex(&g, WPERF_V_TIMER, "timer");
	CHECK_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	CHECK_INT(c.first, 1);
	CHECK_INT(c.waiting_ns, 0);
	g.vertices[0].waiting_ns[WPERF_V_DISK] = 63 * S / 10;  /* equal: not more */
	CHECK_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	CHECK_INT(c.first, 0);
	g.vertices[0].waiting_ns[WPERF_V_DISK] = 63 * S / 10 - 1;
	CHECK_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	CHECK_INT(c.first, 1);
	gb_free(&g);
}

/* Runnable time must be at least a quarter of the span (and the noise
 * floor): a thread runnable 2 s of 10 s that never waited is no CPU
 * problem; 2.5 s is. */
static void test_quarter_bound(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;

	gb_init(&g, 0, 10 * S);
	thread(&g, "busy", 10, 8 * S, 2 * S, 0, 0);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.first, 0);
	g.vertices[0].running_ns = 75 * S / 10;
	g.vertices[0].runnable_ns = 25 * S / 10;
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.first, 1);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 25 * S / 10 + 1, &c), 0);
	CHECK_INT(c.first, 0);                  /* under the noise floor */
	gb_free(&g);
}

static void unwrap(char *s);
static char *write(const struct wperf_report *r, bool json);

/* Without a focus every thread but the tracer's counts, and nobody is
 * "other"; a merged pool counts its members; the idle task never. */
static void test_whole_trace_pool_tracer(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	bool opaque[4] = { false, false, true, false };
	static int64_t members[] = { 11, 12, 13, 14 };

	gb_init(&g, 0, 10 * S);
	uint32_t pool = thread(&g, "fio", 11, 2 * S, 8 * S, 6 * S, 0);
	g.vertices[pool].kind = WPERF_V_VIRTUAL;
	g.vertices[pool].members = members;
	g.vertices[pool].n_members = 4;
	g.vertices[pool].merged_by = "pool";
	/* As the merge sums them: four members running 0.5 s, runnable 2 s,
	 * on the disk 1.5 s each, weighed 2.5 / 4 of their 4 s. */
	g.vertices[pool].cpu_weighted_runnable_ns = 4 * (25 * S / 10 * 2 / 4);
	g.vertices[pool].cpu_weighted_waiting_ns = 4 * (25 * S / 10 * 15 / 10 / 4);
	thread(&g, "main", 10, S, S, S, 0);
	thread(&g, "lttng-consumerd", 50, 3 * S, 5 * S, 0, 0);
	thread(&g, "swapper/0", 0, 10 * S, 0, 0, 0);
	CHECK_INT(wperf_cpu_find(&g, NULL, opaque, 0, &c), 0);
	CHECK_INT(c.n_threads, 5);
	CHECK_INT(c.runnable_ns, 9 * S);
	CHECK_INT(c.waiting_ns, 7 * S);
	/* main: 2/3 of (1 s, 1 s); the pool: what its members weighed. */
	CHECK_INT(c.weighted_runnable_ns, 5 * S + 2 * S / 3);
	CHECK_INT(c.weighted_waiting_ns, 375 * S / 100 + 2 * S / 3);
	CHECK_INT(c.first, 1);
	CHECK_INT(c.n_others, 1);               /* the tracer ran beside them */
	CHECK_INT(c.others_running_ns, 3 * S);
	/* Several threads: their runnable time over their span is a count
	 * of threads at once, not a percentage above 100%. */
	{
		struct wperf_knots k = { 0 };
		struct wperf_classes cl = { 0 };
		struct wperf_knot_options ko = { 0 };
		char *text;

		CHECK_INT(wperf_knots_find(&g, &ko, &k), 0);
		CHECK_INT(wperf_classes_find(&g, &k, 0, &cl), 0);
		struct wperf_report r = { .graph = &g, .knots = &k, .cpu = &c, .classes = &cl,
					  .threshold_spec = "20%", .min_weight_spec = "0" };
		text = write(&r, false);
		unwrap(text);
		CHECK(text && strstr(text, "5 threads of the trace were runnable (ready, waiting "
				     "for a CPU) 9.00 s in all, on average 0.56 of them at once "
				     "over the 16.0 s they existed,") != NULL);
		free(text);
		wperf_classes_fini(&cl);
		wperf_knots_fini(&k);
	}
	g.vertices[pool].members = NULL;        /* static: not gb_free's */
	g.vertices[pool].n_members = 0;
	g.vertices[pool].kind = WPERF_V_THREAD;
	gb_free(&g);
}

/* A thread of process pid waiting on threads (a closed loop, a pool's
 * helpers): running, runnable, waits on threads and, of those, on a
 * thread that was runnable meanwhile; alive over [0, the sum]. */
static uint32_t looper(struct wperf_graph *g, const char *comm, int64_t tid, int64_t pid,
		       int64_t running, int64_t runnable, int64_t on_threads, int64_t on_runnable)
{
	uint32_t v = thread(g, comm, tid, running, runnable, 0, 0);

	g->vertices[v].pid = pid;
	g->vertices[v].waiting_ns[WPERF_V_THREAD] = on_threads;
	g->vertices[v].waited_on_runnable_ns = on_runnable;
	g->vertices[v].last_ts += on_threads;
	return v;
}

/*
 * A closed loop: a client and its server each ran 1 s, were runnable 1 s
 * and waited 2 s on the other, 1.5 s of it while the other was runnable.
 * Summed, waits (4 s) outweigh runnable time (2 s), but 3 s of those
 * waits were for a CPU at one remove: each thread weighs (1 + 1.5) s
 * against 0.5 s, times 2/4 (it asked for a CPU 2 s of its 4). Had the
 * other been running all along, 1 s against 2 s: not first.
 */
static void test_closed_loop(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;

	gb_init(&g, 0, 4 * S);
	looper(&g, "client", 10, 10, S, S, 2 * S, 15 * S / 10);
	looper(&g, "server", 20, 20, S, S, 2 * S, 15 * S / 10);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.runnable_ns, 2 * S);
	CHECK_INT(c.waiting_ns, 4 * S);
	CHECK_INT(c.waited_on_runnable_ns, 3 * S);
	CHECK_INT(c.weighted_runnable_ns, 2 * (2 * S * 25 / 10 / 4));
	CHECK_INT(c.weighted_waiting_ns, 2 * (2 * S * 5 / 10 / 4));
	CHECK_INT(c.first, 1);
	g.vertices[0].waited_on_runnable_ns = 0;
	g.vertices[1].waited_on_runnable_ns = 0;
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.weighted_runnable_ns, 2 * (2 * S * 1 / 4));
	CHECK_INT(c.weighted_waiting_ns, 2 * (2 * S * 2 / 4));
	CHECK_INT(c.first, 0);
	gb_free(&g);
}

/*
 * Idle helpers: a server process whose one busy thread ran 1 s, was
 * runnable 2 s and waited 1 s on its client, beside twelve helpers that
 * waited 8 s each on it and never asked for a CPU; the client ran 1 s,
 * was runnable 1.5 s, waited 1.5 s. Summed, 98.5 s of waits drown 3.5 s
 * of runnable time; weighed, the helpers count for nothing, also once the
 * process is merged into one vertex (the merge weighs each member).
 */
static void test_idle_helpers(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	struct wperf_merge_options mo = { .key = WPERF_MERGE_PROCESS };

	gb_init(&g, 0, 8 * S);
	looper(&g, "server", 101, 100, S, 2 * S, S, 0);
	for (int i = 0; i < 12; i++)
		looper(&g, "server", 102 + i, 100, 0, 0, 8 * S, 0);
	looper(&g, "client", 201, 200, S, 15 * S / 10, 15 * S / 10, 0);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.runnable_ns, 35 * S / 10);
	CHECK_INT(c.waiting_ns, 985 * S / 10);
	/* server: 3/4 of (2 s, 1 s); client: 2.5/4 of (1.5 s, 1.5 s) */
	CHECK_INT(c.weighted_runnable_ns, 15 * S / 10 + 9375 * S / 10000);
	CHECK_INT(c.weighted_waiting_ns, 75 * S / 100 + 9375 * S / 10000);
	CHECK_INT(c.first, 1);
	REQUIRE_INT(wperf_graph_merge(&g, &mo, NULL), 0);
	CHECK_INT(g.n_vertices, 2);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.n_threads, 14);
	CHECK_INT(c.weighted_runnable_ns, 15 * S / 10 + 9375 * S / 10000);
	CHECK_INT(c.weighted_waiting_ns, 75 * S / 100 + 9375 * S / 10000);
	CHECK_INT(c.first, 1);
	gb_free(&g);
}

/*
 * The most runnable process, not vertex: a client pool merged into one
 * vertex (runnable 3 s) against a server's four unmerged workers (1 s
 * each) and its main thread (0.1 s): the server's process, 4.1 s, is the
 * one named, by its three most runnable threads.
 */
static void test_most_runnable_process(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	static int64_t members[] = { 301, 302, 303, 304 };

	gb_init(&g, 0, 4 * S);
	uint32_t pool = looper(&g, "memcslap", 301, 300, S, 3 * S, 0, 0);
	g.vertices[pool].kind = WPERF_V_VIRTUAL;
	g.vertices[pool].members = members;
	g.vertices[pool].n_members = 4;
	g.vertices[pool].merged_by = "pool";
	looper(&g, "memcached", 400, 400, S, S / 10, 0, 0);
	uint32_t w1 = looper(&g, "memcached", 401, 400, S, S, 0, 0);
	uint32_t w2 = looper(&g, "memcached", 402, 400, S, S, 0, 0);
	uint32_t w3 = looper(&g, "memcached", 403, 400, S, S, 0, 0);
	looper(&g, "memcached", 404, 400, S, S, 0, 0);
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.process_pid, 400);
	CHECK_INT(c.process_runnable_ns, 41 * S / 10);
	CHECK_INT(c.n_runnable, 3);
	CHECK_INT(c.runnable[0], w1);
	CHECK_INT(c.runnable[1], w2);
	CHECK_INT(c.runnable[2], w3);
	/* The pool's process alone, once it outweighs them. */
	g.vertices[pool].runnable_ns = 5 * S;
	CHECK_INT(wperf_cpu_find(&g, NULL, NULL, 0, &c), 0);
	CHECK_INT(c.process_pid, 300);
	CHECK_INT(c.n_runnable, 1);
	CHECK_INT(c.runnable[0], pool);
	g.vertices[pool].members = NULL;        /* static: not gb_free's */
	g.vertices[pool].n_members = 0;
	g.vertices[pool].kind = WPERF_V_THREAD;
	gb_free(&g);
}

/* The text with its line wrapping undone: every run of white space one
 * space, so a sentence is checked whole wherever the lines broke. */
static void unwrap(char *s)
{
	char *out = s, *start = s;

	for (; s && *s; s++)
		if (*s != ' ' && *s != '\n')
			*out++ = *s;
		else if (out == start || out[-1] != ' ')
			*out++ = ' ';
	if (out)
		*out = '\0';
}

static char *write(const struct wperf_report *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	CHECK_INT(json ? wperf_report_write_json(r, f) : wperf_report_write_text(r, f), 0);
	fclose(f);
	return buf;
}

/* The reports lead with it: before the first knot or sink, with the
 * numbers and who else ran; JSON `cpu.first`. Not first: no such section. */
static void test_reports(void)
{
	struct wperf_graph g;
	struct wperf_cpu_finding c;
	struct wperf_knots k = { 0 };
	struct wperf_classes cl = { 0 };
	struct wperf_knot_options ko = { 0 };
	uint32_t w, hog, daemon;
	bool focus[4] = { false };
	char *text, *js;

	build_writer(&g, &w, &hog, &daemon);
	focus[w] = true;
	ko.focus = focus;
	REQUIRE_INT(wperf_knots_find(&g, &ko, &k), 0);
	REQUIRE_INT(wperf_classes_find(&g, &k, 0, &cl), 0);
	REQUIRE_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	struct wperf_report r = { .graph = &g, .knots = &k, .focus = focus, .cpu = &c,
				  .classes = &cl, .threshold_spec = "20%", .min_weight_spec = "0" };
	text = write(&r, false);
	CHECK(text && strstr(text, "Found      0 knots, 1 sink; first: the CPUs\n") != NULL);
	CHECK(text && strstr(text, "\nFirst: the CPUs. Too few CPUs, or other load\n") != NULL);
	unwrap(text);
	CHECK(text && strstr(text, " 1 thread of the focus was runnable (ready, waiting for a "
			     "CPU) 7.10 s in all, 71.0% of the 10.0 s they existed,") != NULL);
	CHECK(text && strstr(text, "and waited 2.90 s on threads, devices and interrupts, 0 ns "
			     "of it on threads that were themselves runnable. Each weighed by "
			     "the share of its time it asked for a CPU, waiting for a CPU "
			     "(5.04 s) outweighs the other waits (2.06 s)") != NULL);
	CHECK(text && strstr(text, "Most runnable: process 10 (7.10 s in all): writer (10) "
			     "7.10 s.") != NULL);
	CHECK(text && strstr(text, "Meanwhile other threads ran 10.0 s on the CPUs: hog (20) "
			     "9.00 s, daemon (30) 1.00 s.") != NULL);
	CHECK(text && strstr(text, "First: the CPUs") &&
	      strstr(text, "First: the CPUs") < strstr(text, "Sink 1: disk:vda"));
	free(text);
	{
		char *html = NULL;
		size_t hlen = 0;
		FILE *f = open_memstream(&html, &hlen);

		REQUIRE_INT(f != NULL, 1);
		CHECK_INT(wperf_report_write_html(&r, NULL, NULL, "no picture here", f), 0);
		fclose(f);
		CHECK(html && strstr(html, "; first: <b>the CPUs</b>") != NULL);
		CHECK(html && strstr(html, "<h3>First: the CPUs. Too few CPUs, or other load</h3>") &&
		      strstr(html, "First: the CPUs.") < strstr(html, "disk:vda</"));
		free(html);
	}
	js = write(&r, true);
	CHECK(js && strstr(js, "\"cpu\": {\"first\": true, \"threads\": 1, \"runnable_ns\": "
			   "7100000000, \"wake_latency_ns\": 0, \"waiting_ns\": 2900000000, "
			   "\"waited_on_runnable_ns\": 0, "
			   "\"weighted_runnable_ns\": 5041000000, \"weighted_waiting_ns\": "
			   "2059000000, \"span_ns\": 10000000000, \"most_runnable_pid\": 10, "
			   "\"most_runnable_process_ns\": 7100000000, \"most_runnable\": [0], \"others_running_ns\": 10000000000, "
			   "\"own_running_ns\": 0, \"others\": [1, 2]},") != NULL);
	free(js);
	/* Less runnable than waiting: reported in JSON, not in the text. */
	g.vertices[w].runnable_ns = 2 * S;
	REQUIRE_INT(wperf_cpu_find(&g, focus, NULL, 0, &c), 0);
	wperf_classes_fini(&cl);
	REQUIRE_INT(wperf_classes_find(&g, &k, 0, &cl), 0);
	text = write(&r, false);
	CHECK(text && strstr(text, "First: the CPUs") == NULL);
	CHECK(text && strstr(text, "Found      0 knots, 1 sink\n") != NULL);
	free(text);
	wperf_classes_fini(&cl);
	wperf_knots_fini(&k);
	gb_free(&g);
}

int main(void)
{
	RUN_TEST(test_runnable_outweighs_waits);
	RUN_TEST(test_timers_do_not_count_devices_do);
	RUN_TEST(test_quarter_bound);
	RUN_TEST(test_whole_trace_pool_tracer);
	RUN_TEST(test_closed_loop);
	RUN_TEST(test_idle_helpers);
	RUN_TEST(test_most_runnable_process);
	RUN_TEST(test_reports);
	return check_finish();
}
