/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-every.c — sink.wperf.knots' periodic reports
 * (every=PERIOD): a report of the period just ended and of the run so far
 * at each period of trace time, as a stream.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "wperf/report.h"
#include "knots-sink.h"

/* ------------------------------------------------------------------ */
/* Periodic reports (every=).                                          */
/* ------------------------------------------------------------------ */

/*
 * Two analyses run side by side: the sink's own, of the whole run, and
 * the current period's, started at the period's beginning from the run's
 * state there (wperf_analysis_seed: every thread's state, as a statedump
 * would give it) and fed the same events and losses (the decoder's
 * `also`). At the first event at or after a period's end (or a live
 * source's inactivity message past it), both are reported:
 *
 * - the period's analysis is finished and dropped; a new one is seeded;
 * - the run's analysis must go on undisturbed, and finishing it closes
 *   its open segments: so it is finished in a child process (fork()), on
 *   a copy of it, while this process waits, then reads on. The final
 *   report, at the end of the input, is thus the one without every=.
 *
 * The stream: in text, each report follows a line "=== wperf: ... ===";
 * in json, each report is one line, {"every": {...}, "report": {...}}
 * ("error" instead of "report" when there is none, such as a period
 * without scheduler events).
 */

/* The latest error appended to this thread's, as one line; cleared. */
static void take_error_text(char *buf, size_t len)
{
	const bt_error *e = bt_current_thread_take_error();
	uint64_t n = e ? bt_error_get_cause_count(e) : 0;
	const char *m = n ? bt_error_cause_get_message(bt_error_borrow_cause_by_index(e, n - 1))
			  : "unknown error";
	const char *prefix = COMP_NAME ": ";

	if (strncmp(m, prefix, strlen(prefix)) == 0)
		m += strlen(prefix);
	snprintf(buf, len, "%s", m);
	if (e)
		bt_error_release(e);
}

/* The JSON report on one line: a JSON text holds no raw newline inside
 * its strings, so dropping each newline with the indentation after it
 * leaves the same value. */
static void json_one_line(FILE *f, const char *text)
{
	for (const char *c = text; *c; c++) {
		if (*c != '\n') {
			fputc(*c, f);
			continue;
		}
		while (c[1] == ' ' || c[1] == '\t')
			c++;
	}
}

/* A duration in seconds, to the millisecond: "12.500s". */
static void fmt_seconds(char *buf, size_t len, int64_t d)
{
	snprintf(buf, len, "%" PRId64 ".%03" PRId64 "s", d / 1000000000, d % 1000000000 / 1000000);
}

/* Seconds since the first event, "+12.500s". */
static void fmt_offset(char *buf, size_t len, int64_t ns, int64_t first)
{
	buf[0] = '+';
	fmt_seconds(buf + 1, len - 1, ns - first);
}

/*
 * Finish analysis a and write its report as one section of the stream:
 * `what` is "period" (number index) or "run"; [begin, end] what it
 * covers. A report that cannot be made is said in its place, unless
 * `must` (the final report: then -1, the error appended).
 */
static int write_section(struct knots_sink *s, struct wperf_analysis *a, const char *what,
			 bool final, int64_t begin, int64_t end, bool must)
{
	FILE *out = s->every.out;
	struct wperf_graph graph;
	char err[1024] = "", b[32], e[32], d[32], p[32];
	char *body = NULL;
	size_t body_len = 0;
	FILE *mem = NULL;
	bool period = strcmp(what, "period") == 0;
	/* The input ended within the last period: it covers less than
	 * `every`, and says so (lttng-analyses' --refresh prints such a
	 * last interval too, with its own range); it cannot be folded into
	 * the one before, which a live session has already reported. */
	bool partial = period && final && end - begin < s->every_ns;
	int rc = -1;

	if (s->format == FORMAT_TEXT) {
		fmt_offset(b, sizeof b, begin, s->every.first);
		fmt_offset(e, sizeof e, end, s->every.first);
		fmt_seconds(d, sizeof d, end - begin);
		fmt_seconds(p, sizeof p, s->every_ns);
		if (partial)
			fprintf(out, "=== wperf: last period %" PRIu64 ", %s to %s, partial: "
				"%s of %s ===\n", s->every.index, b, e, d, p);
		else if (period)
			fprintf(out, "=== wperf: %speriod %" PRIu64 ", %s to %s ===\n",
				final ? "last " : "", s->every.index, b, e);
		else
			fprintf(out, "=== wperf: %s, %s to %s ===\n",
				final ? "whole run, final report" : "run so far", b, e);
	} else {
		mem = open_memstream(&body, &body_len);
		if (!mem) {
			sink_fail(s, "out of memory");
			return -1;
		}
	}
	if (period && s->every.period_events == 0) {
		snprintf(err, sizeof err, "no events in this period");
	} else if (wperf_decoder_finish(s->decoder, a, &graph) < 0) {
		snprintf(err, sizeof err, "%s",
			 wperf_decoder_explain(s->decoder, wperf_analysis_error(a)));
		if (must) {
			sink_fail(s, "%s", err);
			goto out;
		}
	} else if (sink_report_graph(s, &graph, mem ? mem : out) < 0) {
		if (must)
			goto out;
		take_error_text(err, sizeof err);
	}
	if (s->format == FORMAT_TEXT) {
		if (err[0])
			fprintf(out, "(no report: %s)\n", err);
		rc = 0;
		goto out;
	}
	if (fclose(mem) != 0) {
		mem = NULL;
		sink_fail(s, "out of memory");
		goto out;
	}
	mem = NULL;
	fprintf(out, "{\"every\": {\"report\": \"%s\", ", what);
	if (period)
		fprintf(out, "\"index\": %" PRIu64 ", \"partial\": %s, ", s->every.index,
			partial ? "true" : "false");
	fprintf(out, "\"final\": %s, \"begin_ns\": %" PRId64 ", \"end_ns\": %" PRId64
		", \"period_ns\": %" PRId64 "}, ", final ? "true" : "false", begin, end,
		s->every_ns);
	if (err[0]) {
		fputs("\"error\": ", out);
		wperf_json_string(out, err);
	} else {
		fputs("\"report\": ", out);
		json_one_line(out, body && body[0] ? body : "null");
	}
	fputs("}\n", out);
	rc = 0;
out:
	if (mem)
		fclose(mem);
	free(body);
	return rc;
}

/* In the child: the period's report and the run's, then exit. */
static void __attribute__((noreturn)) report_in_child(struct knots_sink *s, int64_t end)
{
	int rc = 0;

	wperf_analysis_bound(s->analysis, true, end);
	if (write_section(s, s->every.window, "period", false, s->every.begin, end, false) < 0 ||
	    write_section(s, s->analysis, "run", false, s->every.first, end, false) < 0)
		rc = 1;
	if (fflush(s->every.out) != 0 || ferror(s->every.out))
		rc = 1;
	_exit(rc);
}

/* A new period's analysis, begun where the run stands at t. */
static int start_period(struct knots_sink *s, int64_t t)
{
	struct wperf_analysis *w = wperf_analysis_create();

	if (!w || sink_setup_analysis(s, w) < 0) {
		wperf_analysis_destroy(w);
		return -1;
	}
	wperf_analysis_seed(w, s->analysis, t);
	wperf_analysis_destroy(s->every.window);
	s->every.window = w;
	wperf_decoder_set_also(s->decoder, w);
	s->every.begin = t;
	s->every.index++;
	s->every.period_events = 0;
	return 0;
}

/* The period ending at `end` is over: report it and the run so far. */
static int periodic_report(struct knots_sink *s, int64_t end, char *err, size_t len)
{
	int status = 0;
	pid_t pid;

	/* Nothing buffered may be written twice, by the child too. */
	if (fflush(s->every.out) != 0) {
		snprintf(err, len, "cannot write the periodic report: %s", strerror(errno));
		return -1;
	}
	wperf_analysis_bound(s->every.window, true, end);
	pid = fork();
	if (pid < 0) {
		snprintf(err, len, "cannot make the periodic report: fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0)
		report_in_child(s, end);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(err, len, "cannot make the periodic report: waitpid: %s",
				 strerror(errno));
			return -1;
		}
	}
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGPIPE) {
		/* The reader of the output went away (`wperf top | head`):
		 * end as the child did, and as babeltrace2 does when its own
		 * write meets a closed pipe, quietly with SIGPIPE. Where
		 * SIGPIPE is ignored or blocked, fall through to the error. */
		signal(SIGPIPE, SIG_DFL);
		raise(SIGPIPE);
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(err, len, "cannot write the periodic report to %s",
			 s->path ? s->path : "standard output");
		return -1;
	}
	if (start_period(s, end) < 0) {
		snprintf(err, len, "out of memory");
		return -1;
	}
	return 0;
}

/* The decoder's time hook: every period ended before ts is reported.
 * The periods count from the first event. */
static int every_time(void *data, int64_t ts, bool is_event, char *err, size_t len)
{
	struct knots_sink *s = data;

	if (!s->every.started && !is_event)
		return 0;
	if (!s->every.started) {
		s->every.started = true;
		s->every.first = s->every.begin = ts;
		s->every.next = ts + s->every_ns;
		s->every.index = 1;
	}
	while (ts >= s->every.next) {
		if (periodic_report(s, s->every.next, err, len) < 0)
			return -1;
		s->every.next += s->every_ns;
	}
	if (is_event) {
		s->every.period_events++;
		if (ts > s->every.last)
			s->every.last = ts;
	}
	return 0;
}

/* Set up every= (at initialization): the stream and the first period. */
int sink_every_init(struct knots_sink *s)
{
	char err[1024];

	if (!s->every_ns)
		return 0;
	s->every.window = wperf_analysis_create();
	if (!s->every.window || sink_setup_analysis(s, s->every.window) < 0) {
		sink_fail(s, "out of memory");
		return -1;
	}
	s->every.out = s->path ? wperf_output_stream(s->path, err, sizeof err) : stdout;
	if (!s->every.out) {
		sink_fail(s, "parameter `path`: %s", err);
		return -1;
	}
	wperf_decoder_set_time_hook(s->decoder, every_time, s);
	wperf_decoder_set_also(s->decoder, s->every.window);
	return 0;
}

/* End of input with every=: the last period, then the final report. */
int sink_finish_every(struct knots_sink *s)
{
	FILE *out = s->every.out;
	int rc = 0;

	/* The last period ends with the input (its last event, unless a live
	 * source's inactivity messages took the periods past it). */
	if (s->every.started &&
	    write_section(s, s->every.window, "period", true, s->every.begin,
			  s->every.last > s->every.begin ? s->every.last : s->every.begin,
			  false) < 0)
		rc = -1;
	if (rc == 0 && write_section(s, s->analysis, "run", true, s->every.first,
				     s->every.last, true) < 0)
		rc = -1;
	s->every.out = NULL;
	if ((fflush(out) != 0 || ferror(out)) && rc == 0) {
		sink_fail(s, "cannot write the report to %s: %s", s->path ? s->path : "standard output",
		     strerror(errno));
		rc = -1;
	}
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		sink_fail(s, "cannot write the report to %s: %s", s->path, strerror(errno));
		rc = -1;
	}
	return rc;
}

