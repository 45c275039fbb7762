/* SPDX-License-Identifier: MIT */
/*
 * test-report.c — the text and JSON report writers on the cases of
 * report-cases.c: the lines a person looks for are there, the text fits
 * 100 columns and carries no control characters, strings are escaped
 * exactly, write errors are reported. (The JSON is checked against the
 * schema by validate-report.py.)
 */
#include <errno.h>
#include <stdlib.h>

#include "check.h"
#include "report-cases.h"
#include "report/report-format.h"

/* The whole report of one case as a string (free it), or NULL. */
static char *render(const char *name, int json)
{
	struct report_case c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (report_case_build(name, &c)) {
		report_case_free(&c);
		return NULL;
	}
	f = open_memstream(&text, &len);
	if (f) {
		int rc = json ? wperf_report_write_json(&c.r, f)
			      : wperf_report_write_text(&c.r, f);
		CHECK_INT(rc, 0);
		fclose(f);
	}
	report_case_free(&c);
	return text;
}

static void check_contains(const char *text, const char *want)
{
	if (!text || !strstr(text, want)) {
		fprintf(stderr, "# report lacks: %s\n", want);
		check_test_failures++;
	}
}

/* Every line at most 100 characters, valid UTF-8, no control characters
 * but newlines: what a terminal shows as intended. */
static void check_terminal_safe(const char *text)
{
	size_t col = 0, line = 1;
	const unsigned char *p = (const unsigned char *)text;

	while (p && *p) {
		size_t n = wperf_fmt_utf8_length(p);
		if (n == 0) {
			fprintf(stderr, "# invalid UTF-8 on line %zu\n", line);
			check_test_failures++;
			n = 1;
		} else if (*p == '\n') {
			line++;
			col = 0;
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(stderr, "# control character 0x%02x on line %zu\n", *p, line);
			check_test_failures++;
		} else if (++col == 101) {
			fprintf(stderr, "# line %zu is longer than 100 columns\n", line);
			check_test_failures++;
		}
		p += n;
	}
}

static void test_text_basic(void)
{
	char *t = render("basic", 0);

	CHECK(t != NULL);
	check_contains(t, "Analysed   5.000000000 s .. 6.000000000 s (1.00 s)");
	check_contains(t, "Threshold  200 ms (20%)");
	check_contains(t, "Found      1 knot, 1 sink\n");
	check_contains(t, "\nKnot 1: mysqld (101), jbd2/vda1-8 (200), disk:vda\n");
	/* Own waiting as a share of the members' time (800 + 500 ms of the
	 * threads, the disk's 1 s), never of the analysed time. */
	check_contains(t, "  weight 950 ms = own 950 ms (41.3% of the members' time) + cascaded 0 ns "
			  "(sum of its 3 edges)\n");
	check_contains(t, "\nWeights: weight = own + cascaded. Own is the waiters' own waiting, ");
	check_contains(t, "  Looks like blocking I/O: threads wait for a device that waits for them\n"
			  "    - disk:vda is a member: the threads wait for it");
	check_contains(t, "jbd2/vda1-8 (200) -> disk:vda");
	check_contains(t, "Refinement cut 1 edge, lightest first, from a component of 3 vertices:\n"
			  "     1. mysqld (101) -> disk:vda  50.0 ms\n"
			  "  and stopped: it is a simple cycle.\n");
	check_contains(t, "    - mysqld (101) was runnable 43.8% of its time");
	check_contains(t, "\nSink 1: server (301)\n");
	/* client's 100 ms of its 200 ms, worker-*'s 50 ms of its 70 ms; the
	 * other 50 ms of client -> server cascaded to it. */
	check_contains(t, "  waited on for 200 ms = own 150 ms (55.6% of its waiters' time) + "
			  "cascaded 50.0 ms; it waits for\n");
	check_contains(t, "  waits for (from -> to)                    weight       own   own%    "
			  "waits  median wait length\n"
			  "  client (300) -> server (301)              150 ms    100 ms  50.0%     "
			  "1000  [134ms, 268ms)\n");
	CHECK(t && !strstr(t, "of the analysed time (sum") && !strstr(t, "of the analysed time; it"));
	free(t);
	t = render("basic", 1);
	check_contains(t, "{\"from\": 4, \"to\": 5, \"weight_ns\": 150000000, \"direct_ns\": 100000000, "
			  "\"cascaded_ns\": 50000000, \"own_share\": 0.500000, \"count\": 1000,");
	check_contains(t, "\"kind\": \"sink\", \"members\": [5], \"weight_ns\": 200000000, "
			  "\"own_ns\": 150000000, \"cascaded_ns\": 50000000, \"waiters_ns\": "
			  "270000000, \"own_share\": 0.555556, ");
	free(t);
	t = render("basic", 0);
	check_contains(t, "client (300) -> server (301)");
	check_contains(t, "Threads: 20 of 31");
	check_contains(t, "... 11 more threads omitted");
	check_contains(t, "\n* mysqld (101)  ");
	check_contains(t, "Data quality");
	/* Said before the findings too: 10 of 123466 traced events. */
	check_contains(t, "cut together\nLost       10 events (under 0.1% of what was traced) and 1 "
			  "packet discarded by the tracer. Waits\n           across a gap are cut or "
			  "missing:");
	check_contains(t, "discarded events                         10");
	check_contains(t, "cpu 1: 5.100000000 s .. 5.101000000 s, 10 events lost");
	check_contains(t, "cpu ?: time unknown, packets lost (count unknown)");
	check_contains(t, "waits open at end                         4");
	/* Whose lost events they were, and whether a knot or sink has them. */
	check_contains(t, "waits without wakeup                      1  (switched in with no wakeup seen)\n"
			  "      in 1 thread: client (300) 1; none in a knot or sink\n");
	check_contains(t, "scheduler state mismatches                6  (events contradicting the tracked state)\n"
			  "      in 2 threads: client (300) 4, mysqld (101) 2\n"
			  "      in knots and sinks: mysqld (101) 2 (of its 10 waits)\n");
	check_terminal_safe(t);
	free(t);
}

static void test_text_focus(void)
{
	char *t = render("focus", 0);

	check_contains(t, "Focus      1 vertex; only knots and sinks reachable from it are shown:\n"
			  "           client (300)\n");
	check_contains(t, "client (300)");
	check_contains(t, "Found      0 knots, 1 sink\n");
	check_contains(t, "\nSink 1: server (301)\n");
	CHECK(t && !strstr(t, "Knot 1"));
	check_terminal_safe(t);
	free(t);
	/* What the focus reaches: client (4) and the server it waits on; the
	 * server's waits on the timer are no dependency. */
	t = render("focus", 1);
	check_contains(t, "  \"focus\": [4],\n  \"focus_start\": {");
	check_contains(t, "},\n  \"focus_reach\": [4, 5],\n  \"vertices\": [");
	free(t);
	t = render("basic", 1);
	check_contains(t, "  \"focus_start\": null,\n  \"focus_reach\": null,\n");
	free(t);
	/* A sink's table lists the focus's waits first, then the heavier:
	 * worker-* (50 ms, the focus) before client (150 ms). */
	t = render("focus-pool", 0);
	const char *pool = t ? strstr(t, "  worker-* -> server (301)") : NULL;
	const char *client = t ? strstr(t, "  client (300) -> server (301)") : NULL;
	CHECK(pool && client && pool < client);
	free(t);
}

static void test_text_nothing_found(void)
{
	char *t = render("empty", 0);

	check_contains(t, "No knots and no sinks were found.");
	check_contains(t, "The graph has no edges");
	check_contains(t, "Threads: 0 of 0");
	check_terminal_safe(t);
	free(t);

	t = render("timers-only", 0);
	check_contains(t, "No knots and no sinks were found.");
	check_contains(t, "The only edge ends at `timer` or `unknown`");
	check_contains(t, "sleeper (1)");
	check_terminal_safe(t);
	free(t);
}

static void test_text_hostile_strings(void)
{
	char *t = render("strings", 0);

	check_contains(t, "Knot 1: q\"b\\n?????????" "-\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80 (1), ? (2), ?\n");
	check_terminal_safe(t);
	free(t);
}

/* A parent with 10 or more short-lived children (in the focus) gets the
 * line that points to short-lived=merge; fewer, or outside the focus: none. */
static void test_text_short_lived_hint(void)
{
	char *t = render("children-12", 0);

	check_contains(t, "Children   sh (10) has 12 short-lived children: its waits for them "
		       "are as many light\n           edges, which short-lived=\"merge\" makes one");
	check_terminal_safe(t);
	free(t);
	t = render("children-9", 0);
	CHECK(t && !strstr(t, "short-lived children"));
	free(t);
	t = render("children-12-focus", 0);
	CHECK(t && !strstr(t, "short-lived children"));
	free(t);
}

static void test_json_escaping(void)
{
	char *j = render("strings", 1);

	/* quote, backslash, newline, \x01, DEL kept, then \xff, a UTF-16
	 * surrogate (3 bytes) and an overlong '/' (2 bytes) each become one
	 * U+FFFD per byte, then valid e-acute, check mark and emoji. */
	check_contains(j, "\"name\": \"q\\\"b\\\\n\\n\\u0001\x7f"
			  "\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd-"
			  "\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80\"");
	check_contains(j, "\"comm\": null");        /* thread without comm */
	check_contains(j, "\"kind\": \"disk\", \"name\": \"\"");
	free(j);
}

static void test_json_basic(void)
{
	char *j = render("basic", 1);

	check_contains(j, "\"format\": \"wperf-report\",\n  \"version\": 2,\n");
	check_contains(j, "\"time_range\": {\"begin_ns\": 5000000000, \"end_ns\": 6000000000, "
			  "\"duration_ns\": 1000000000, \"cpus\": 4}");
	check_contains(j, "\"threshold\": {\"ns\": 200000000, \"spec\": \"20%\"}");
	check_contains(j, "\"focus\": null");
	/* A weight is no share of the analysed time (wperf-report(7), WEIGHTS):
	 * it comes split, own + cascaded (validate-report.py checks that every
	 * share in the report is at most 1). */
	check_contains(j, "{\"rank\": 1, \"kind\": \"knot\", \"members\": [1, 2, 3], \"weight_ns\": 950000000, "
			  "\"own_ns\": ");
	check_contains(j, "\"component\": [1, 2, 3], \"removed\": [{\"from\": 1, \"to\": 3, "
			  "\"weight_ns\": 50000000}], \"leaving_ns\": 0, \"leaving\": [], "
			  "\"stop_reason\": \"simple cycle\", "
			  "\"classification\": {\"class\": \"blocking_io\"");
	check_contains(j, "\"knot_rule\": {\"rule\": \"dominant\", \"leave_ratio\": 0.200000, "
			  "\"tie_tolerance\": 0.010000}");
	check_contains(j, "\"groups\": [],\n");
	check_contains(j, "{\"rank\": 2, \"kind\": \"sink\", \"members\": [5], \"weight_ns\": 200000000, "
			  "\"own_ns\": 150000000, \"cascaded_ns\": 50000000, "
			  "\"waiters_ns\": 270000000, \"own_share\": 0.555556, \"edges\": []");
	check_contains(j, "\"hist\": {\"20\": 10, \"22\": 30}");
	check_contains(j, "{\"cpu\": -1, \"begin_ns\": -1, \"end_ns\": -1, \"count\": 0, "
			  "\"packets\": true}");
	check_contains(j, "\"has_waking\": true,\n    \"has_timer_events\": false,\n    \"has_irq_context\": false,\n    \"has_idle_state\": false\n  },\n  \"caveats\": [\n    {\"kind\": \"lost_events\", \"may_be_wrong\": ");
	/* The caveats close the report, a flag a program can check last. */
	check_contains(j, "\n  ],\n  \"findings_may_be_wrong\": ");
	check_contains(j, "\n}\n");
	free(j);

	j = render("focus", 1);
	check_contains(j, "\"focus\": [4]");
	free(j);
}

/* A knot that one light edge leaves (the dominant rule): the edge is
 * shown; under the strict rule the same group is not a knot, and the
 * report says why. */
static void test_text_leaving(void)
{
	char *t = render("leaky", 0);

	check_terminal_safe(t);
	check_contains(t, "Knot rule  dominant: a group is a knot when at most 20.0% of its "
			  "weight leaves it;\n           ties within 1.0% cut together\n");
	check_contains(t, "Found      1 knot, 1 sink\n");
	check_contains(t, "\nKnot 1: writer (1), flusher (2), disk:vda\n"
			  "  weight 1.00 s = own 1.00 s (33.3% of the members' time) + cascaded 0 ns "
			  "(sum of its 3 edges)\n");
	check_contains(t, "  Leaves the knot: 100 ms = 10.0% of its weight (knot-rule=dominant "
			  "admits 20.0% of its\n  component's):\n    writer (1) -> setup (3), 100 ms "
			  "(1 wait)\n");
	CHECK(t && !strstr(t, "Not knots"));
	free(t);

	t = render("leaky-strict", 0);
	check_terminal_safe(t);
	check_contains(t, "Knot rule  strict: a group is a knot when no edge leaves it; ties "
			  "within 1.0% cut together\n");
	check_contains(t, "Found      0 knots, 1 sink; 1 heavy group not a knot (below)\n");
	check_contains(t, "\nNot knots: 1 heavy group that waits too much outside itself\n"
			  "  Group: writer (1), flusher (2), disk:vda\n"
			  "    weighs 1.00 s = own 1.00 s (33.3% of the members' time) + cascaded 0 ns, "
			  "but 100 ms = 10.0% of\n    its weight leaves it (knot-rule=strict allows none)");
	check_contains(t, "(knot-rule=strict allows none): not a knot.");
	check_contains(t, "    writer (1) -> setup (3), 100 ms (1 wait)\n");
	CHECK(t && !strstr(t, "Leaves the knot"));
	free(t);

	t = render("leaky", 1);
	check_contains(t, "\"leaving_ns\": 100000000, \"leaving\": [{\"from\": 0, \"to\": 3, "
			  "\"weight_ns\": 100000000, \"count\": 1}]");
	free(t);
	t = render("leaky-strict", 1);
	check_contains(t, "\"knot_rule\": {\"rule\": \"strict\", \"leave_ratio\": 0.000000");
	check_contains(t, "\"groups\": [\n    {\"members\": [0, 1, 2], \"weight_ns\": 1000000000, "
			  "\"own_ns\": 1000000000, \"cascaded_ns\": 0, "
			  "\"waiters_ns\": 3000000000, \"own_share\": 0.333333, \"leaving_ns\": 100000000, \"leaving\": [{\"from\": 0, "
			  "\"to\": 3, \"weight_ns\": 100000000, \"count\": 1}]}\n  ],\n");
	free(t);
}

/* A whole-machine trace without focus: findings ranked by weight, knots
 * and sinks together; the small sinks past the first three in one line;
 * a line saying how to focus. The JSON keeps every finding, with its rank. */
static void test_text_ranking(void)
{
	char *t = render("machine", 0);
	const char *big, *knot, *mid, *six, *rest;

	check_terminal_safe(t);
	check_contains(t, "Processes  14 in the trace and no focus: the findings are the whole "
			  "machine's, ranked by weight.\n           To study one program, focus on "
			  "it: pids=PID (sink.wperf.knots), `wperf report --pids\n           PID "
			  "TRACE`, or record it with `wperf record -- COMMAND`.\n");
	check_contains(t, "Found      1 knot, 6 sinks\n");
	big = t ? strstr(t, "\nSink 1: big (10)\n") : NULL;
	knot = t ? strstr(t, "\nKnot 1: ping (1), pong (2)\n") : NULL;
	mid = t ? strstr(t, "\nSink 2: mid (11)\n") : NULL;
	six = t ? strstr(t, "\nSink 3: six (12)\n") : NULL;
	rest = t ? strstr(t, "\nAnd 3 more sinks, each weighing at most 40.0 ms (sinks 4 to 6; the "
			  "JSON report has them all):\n  four (13) 40.0 ms, three (14) 30.0 ms, "
			  "two (15) 20.0 ms\n") : NULL;
	CHECK(big && knot && mid && six && rest);
	CHECK(big < knot && knot < mid && mid < six && six < rest);
	CHECK(t && !strstr(t, "Sink 4:"));
	free(t);

	t = render("machine", 1);
	check_contains(t, "{\"rank\": 1, \"kind\": \"sink\", \"members\": [2], \"weight_ns\": 500000000");
	check_contains(t, "{\"rank\": 2, \"kind\": \"knot\", \"members\": [0, 1]");
	check_contains(t, "{\"rank\": 7, \"kind\": \"sink\", \"members\": [12], \"weight_ns\": 20000000");
	free(t);

	/* A focus, or a few processes: no such line. */
	t = render("basic", 0);
	check_contains(t, "Processes  ");
	free(t);
	t = render("focus", 0);
	CHECK(t && !strstr(t, "Processes  "));
	free(t);
	t = render("leaky", 0);
	CHECK(t && !strstr(t, "Processes  "));
	free(t);
}

/* /dev/full accepts the open and fails every flush with ENOSPC. */
static void test_write_errors(void)
{
	struct report_case c;

	CHECK_INT(report_case_build("basic", &c), 0);
	FILE *f = fopen("/dev/full", "w");
	CHECK(f != NULL);
	if (f) {
		errno = 0;
		CHECK_INT(wperf_report_write_json(&c.r, f), -1);
		CHECK(errno != 0);
		clearerr(f);
		CHECK_INT(wperf_report_write_text(&c.r, f), -1);
		fclose(f);
	}
	CHECK_INT(wperf_report_write_text(NULL, stdout), -1);
	CHECK_INT(wperf_report_write_json(NULL, stdout), -1);
	report_case_free(&c);
}

/* Each kind of sink says what it is and what to do (wperf-report(7),
 * Sink kinds), in the text, and as sink_kind in the JSON. */
static void test_sink_kinds(void)
{
	char *t = render("sinks", 0);

	check_terminal_safe(t);
	check_contains(t, "\nSink 1: disk:sda\n  waited on for 400 ms = own 400 ms (40.0% of its "
			  "waiters' time) + cascaded 0 ns; it waits for\n  nothing in the graph. A "
			  "disk, busy 800 ms (80.0%) of the 1.00 s analysed: its service time is\n  the limit.");
	check_contains(t, "\nSink 2: nic:eth0\n  waited on for 300 ms = own 300 ms (30.0% of its "
			  "waiters' time) + cascaded 0 ns; it waits for\n  nothing in the graph. A "
			  "network interface: the link (or the peer) paces the threads.");
	check_contains(t, "\nSink 3: irq:30:eth0\n");
	check_contains(t, "nothing in the graph. An interrupt: the threads were woken from its "
			  "handler, so they wait for\n  the device or event behind it");
	check_contains(t, "nothing in the graph. A thread bounded by its own work: of its 1.00 s "
			  "it ran 800 ms and waited\n  for a CPU 100 ms.");
	check_contains(t, "nothing in the graph. A thread that waited most of its 1.00 s itself "
			  "(it ran 100 ms, runnable 0\n  ns): 0 ns on timers, 0 ns on what the trace "
			  "does not show, 900 ms on threads and devices, each\n  too light to be a "
			  "dependency (below the noise floor, min-weight), a wait for work or one on "
			  "the\n  tracer.");
	check_contains(t, "so time paces\n  it, not another thread. A shorter sleep, timeout or "
			  "polling interval, or not waiting for it, is\n  what helps.\n");
	check_contains(t, "did not show). What it waited for is outside\n  the trace: ");
	/* No sink of a device or interrupt is called a thread's own work. */
	CHECK(t && !strstr(t, "its limit is its own work"));
	free(t);

	t = render("sinks", 1);
	check_contains(t, "\"members\": [0], \"weight_ns\": 400000000");
	check_contains(t, "\"limit\": \"work\", \"sink_kind\": \"disk\"");
	check_contains(t, "\"limit\": \"work\", \"sink_kind\": \"nic\"");
	check_contains(t, "\"limit\": \"work\", \"sink_kind\": \"interrupt\"");
	check_contains(t, "\"limit\": \"work\", \"sink_kind\": \"thread_work\"");
	check_contains(t, "\"limit\": \"work\", \"sink_kind\": \"thread_waiting\"");
	check_contains(t, "\"limit\": \"timer\", \"sink_kind\": \"timer\"");
	check_contains(t, "\"limit\": \"unseen\", \"sink_kind\": \"unseen\"");
	free(t);
}

/*
 * The threads behind a lost-event counter, counted as threads: a pool of
 * three merged threads (`worker-* ×3`, 9 mismatches) is three of them, so
 * "in N threads" agrees with the names listed and "and N more" counts
 * the threads not named (jbd2's one). And a knot member with mismatches
 * but no waits of its own gets no "(of its 0 waits)".
 */
static void test_text_losers_counted_as_threads(void)
{
	static int64_t members[] = { 400, 401, 402 };
	struct report_case c;
	char *t = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_INT(report_case_build("basic", &c), 0);
	c.g.vertices[11].members = members;     /* worker-*: a pool */
	c.g.vertices[11].n_members = 3;
	c.g.vertices[11].merged_by = "pool";
	free(c.g.vertices[11].name);            /* as merge.c names a pool */
	c.g.vertices[11].name = strdup("worker-* \xc3\x97" "3");
	c.g.vertices[11].state_mismatches = 9;
	c.g.vertices[2].waits = 0;              /* jbd2/vda1-8 (200), a knot member */
	c.g.vertices[2].state_mismatches = 1;
	f = open_memstream(&t, &len);
	CHECK(f != NULL);
	if (f) {
		CHECK_INT(wperf_report_write_text(&c.r, f), 0);
		fclose(f);
	}
	check_contains(t, "      in 6 threads: worker-* \xc3\x97" "3 9, client (300) 4, "
			  "mysqld (101) 2 and 1 more\n");
	check_contains(t, "      in knots and sinks: mysqld (101) 2 (of its 10 waits), "
			  "jbd2/vda1-8 (200) 1\n");
	c.g.vertices[11].members = NULL;        /* static: not the case's to free */
	report_case_free(&c);
	free(t);
}

/* The text report of case `name` with thread vertex 12 (idle-0) named by
 * the trace but never seen in the analysed range (free it). */
static char *render_with_unseen(const char *name)
{
	struct report_case c;
	char *t = NULL;
	size_t len = 0;
	FILE *f;

	CHECK_INT(report_case_build(name, &c), 0);
	c.g.vertices[12].first_ts = -1;
	c.g.vertices[12].last_ts = -1;
	f = open_memstream(&t, &len);
	if (f) {
		CHECK_INT(wperf_report_write_text(&c.r, f), 0);
		fclose(f);
	}
	report_case_free(&c);
	return t;
}

/*
 * A thread the trace names but never shows in the analysed range is
 * counted under the threads table; with a focus the table lists only
 * the focus, so the count of the rest of the machine's unseen threads
 * (a recording's statedump names every thread) says nothing about it.
 */
static void test_text_unseen_threads(void)
{
	char *t = render_with_unseen("basic");

	check_contains(t, "  (1 thread the trace names outside the analysed range, none in it: "
			  "not listed)\n");
	free(t);
	t = render_with_unseen("focus");
	check_contains(t, "\nThreads: ");
	CHECK(t && !strstr(t, "outside the analysed range"));
	free(t);
}

/* A knot of two threads of one long-named program: each edge row keeps
 * both tids, the comms cut instead ("qemu-system-x86 (20770) ->
 * qemu-sys..." told no row from another). */
static void test_text_edge_rows_keep_tids(void)
{
	char *t = render("long-names", 0);

	check_contains(t, "\nKnot 1: ");
	check_contains(t, "\n  qemu-s... (20757) -> qemu-s... (20770)    500 ms");
	check_contains(t, "\n  qemu-s... (20770) -> qemu-s... (20757)    400 ms");
	free(t);
}

int main(void)
{
	RUN_TEST(test_sink_kinds);
	RUN_TEST(test_text_basic);
	RUN_TEST(test_text_focus);
	RUN_TEST(test_text_nothing_found);
	RUN_TEST(test_text_hostile_strings);
	RUN_TEST(test_text_short_lived_hint);
	RUN_TEST(test_json_escaping);
	RUN_TEST(test_json_basic);
	RUN_TEST(test_text_leaving);
	RUN_TEST(test_text_ranking);
	RUN_TEST(test_write_errors);
	RUN_TEST(test_text_losers_counted_as_threads);
	RUN_TEST(test_text_unseen_threads);
	RUN_TEST(test_text_edge_rows_keep_tids);
	return check_finish();
}
