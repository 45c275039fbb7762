/*
 * plugin/knots/knots-sink.c — sink.wperf.knots: kernel events in, knot report out.
 *
 * Every message of the input port goes through the decoder (decode.c) into
 * the streaming analysis. At the end of the input the analysis closes its
 * segments and hands over the wait-for graph; the sink finds its knots and
 * writes the report, as text or JSON, to standard output or atomically to a
 * file (output.c).
 *
 * Nothing is written before the whole input has been analysed: an error, or
 * an interruption (Ctrl-C makes the babeltrace2 CLI stop the graph without
 * delivering END and then finalize the components), leaves no report at all
 * rather than a partial one.
 *
 * Except with every=PERIOD (a live session): then a report of the period
 * just ended and of the run so far is written at each period of trace
 * time, as a stream (see "Periodic reports" below).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "components.h"
#include "common/decode.h"
#include "common/output.h"
#include "common/symbols.h"
#include "common/params.h"
#include "common/shared-analysis.h"
#include "wperf/analysis.h"
#include "wperf/knots.h"
#include "wperf/merge.h"
#include "wperf/cpu.h"
#include "wperf/report.h"

#define COMP_NAME "sink.wperf.knots"
#define DEFAULT_THRESHOLD "20%"
#define DEFAULT_MIN_WEIGHT "1%"
#define DEFAULT_LEAVE_RATIO "20%"      /* WPERF_KNOT_LEAVE_DEFAULT_PPM */
#define DEFAULT_TIE_TOLERANCE "1%"     /* WPERF_KNOT_TIE_DEFAULT_PPM */

const char wperf_knots_description[] =
	"Find the knots (cycles of waiting) that bound a multi-threaded program's "
	"throughput, from kernel scheduler, interrupt and block events.";

const char wperf_knots_help[] =
	"Reads kernel events (LTTng kernel traces, perf CTF from `perf data convert\n"
	"--to-ctf`, source.wperf.tracefs), builds the wait-for graph of the\n"
	"program's threads with cascaded redistribution of waiting time (wPerf,\n"
	"OSDI'18), and reports its knots, sinks and per-thread breakdown.\n"
	"It can follow filter.wperf.waits directly: that filter's own output is\n"
	"ignored, so nothing is counted twice.\n"
	"\n"
	"Record at least sched_switch and sched_waking (or sched_wakeup), plus\n"
	"irq_handler_*, irq_softirq_* and block_rq_* events to see interrupts and\n"
	"disks; the LTTng statedump gives every thread's initial state.\n"
	"\n"
	"Parameters:\n"
	"\n"
	"  format=F             Report format: text (default), json, dot (Graphviz),\n"
	"                       svg (the dot picture laid out by Graphviz, which\n"
	"                       must be installed), html (one self-contained page:\n"
	"                       findings, picture, sortable tables) or graphml.\n"
	"  path=FILE            Write the report to FILE, atomically (a temporary\n"
	"                       file beside it, renamed when complete).\n"
	"                       Default: standard output (also `-`).\n"
	"  threshold=T          Termination threshold of knot refinement: stop\n"
	"                       removing a knot's lightest edge once it weighs T.\n"
	"                       A duration (\"250ms\", \"1.5s\", a number of seconds)\n"
	"                       or a share of the analysed duration (\"20%\").\n"
	"                       Default: " DEFAULT_THRESHOLD ".\n"
	"  min-weight=W         Noise floor: edges lighter than W take no part in\n"
	"                       knot finding (a few stray wakeups would otherwise\n"
	"                       tie every thread of a busy system into one knot).\n"
	"                       Same forms as threshold; 0 keeps every edge.\n"
	"                       Default: " DEFAULT_MIN_WEIGHT ".\n"
	"  knot-rule=R          Which strongly connected groups are knots:\n"
	"                       dominant (those whose edges leaving the group\n"
	"                       weigh at most leave-ratio of its internal edges)\n"
	"                       or strict (the paper's: no edge leaves it).\n"
	"                       Default: dominant.\n"
	"  leave-ratio=P        With knot-rule=dominant: the largest share of a\n"
	"                       group's internal weight that may leave it (\"20%\").\n"
	"                       Default: " DEFAULT_LEAVE_RATIO ".\n"
	"  tie-tolerance=P      Refinement cuts edges whose weights are within P of\n"
	"                       the lightest of them together (\"0%\": only exactly\n"
	"                       equal ones), so alike threads stay or go together.\n"
	"                       Default: " DEFAULT_TIE_TOLERANCE ".\n"
	"  pids=LIST            Focus on these processes or threads: a thread\n"
	"                       matches if its pid (tgid) or tid is listed,\n"
	"                       except LTTng-UST's own threads (\"<comm>-ust\"),\n"
	"                       whose waits the focus does not follow either.\n"
	"                       An array or a comma-separated string. Default: none.\n"
	"  nic-capacity=LIST    Link speeds, \"DEV=SPEED,...\" (e.g. \"eth0=1Gbit,lo=10Gbit\";\n"
	"                       bit/s or B/s with k, M, G, T). A NIC's idle time, and\n"
	"                       so its edges back to the threads that send through\n"
	"                       it, needs its speed: without it the report says the\n"
	"                       idle time is unknown. Default: none.\n"
	"  comms=LIST           Focus on threads with these names (comm).\n"
	"                       An array or a comma-separated string. Default: none.\n"
	"                       With pids and/or comms, only knots and sinks that\n"
	"                       the focused threads wait on are reported.\n"
	"  follow-forks=BOOL    With pids or comms: the focus also takes in every\n"
	"                       thread the focused ones forked, directly or not,\n"
	"                       in the trace (a wrapper script's program, a\n"
	"                       server's workers). Default: false.\n"
	"  merge=KEY            Merge similar threads into one vertex before looking\n"
	"                       for knots: pool (the default: alike threads, same\n"
	"                       name with trailing digits stripped, either the\n"
	"                       non-main threads of one process or processes\n"
	"                       forked by one thread; \"worker-* \xc3\x97" "4\"), none,\n"
	"                       process (\"process COMM (PID)\"), name (across\n"
	"                       processes: worker-12 -> \"worker-*\"), or stack\n"
	"                       (threads of a process whose heaviest wait has the\n"
	"                       same call stack: \"worker-* @ futex_wait_queue\";\n"
	"                       the trace needs stacks). Waits between members\n"
	"                       become a self-loop. The focus still matches the\n"
	"                       threads. Default: pool.\n"
	"  begin=TIME, end=TIME Count only this time window, reading the whole trace:\n"
	"                       the names of threads, their processes and disks, and\n"
	"                       every thread's state, come from before the window\n"
	"                       too (babeltrace2's --begin/--end drop them). Segments\n"
	"                       and waits crossing an edge count for their part\n"
	"                       inside. TIME as for --begin/--end: \"YYYY-MM-DD\n"
	"                       hh:mm[:ss[.ns]]\", \"YYYY-MM-DD\", \"hh:mm[:ss[.ns]]\" (on\n"
	"                       the trace's first date) or seconds from the clock's\n"
	"                       origin \"[-]s[.ns]\". Default: the whole trace.\n"
	"  gmt=BOOL             Dates and times of day are UTC, not local time.\n"
	"                       Default: false.\n"
	"  every=DURATION       Also report periodically, at each DURATION of trace\n"
	"                       time (\"5s\"): the knots of the period just ended and\n"
	"                       of the whole run so far, then at the end those of\n"
	"                       the last period and the final report (the same as\n"
	"                       without every=). For `-i lttng-live`. Text or json\n"
	"                       (one object per line); path= is then written as a\n"
	"                       stream, flushed after each report. Default: none.\n"
	"  short-lived=merge|keep  merge: the short-lived children of one parent\n"
	"                       (forked and ended in the trace, alive under 10%\n"
	"                       of it, at least two) become \"PARENT-children\",\n"
	"                       which waits for the parent between them.\n"
	"                       Default: keep.\n"
	"\n"
	"Connected straight to filter.wperf.waits, the sink reuses that filter's\n"
	"analysis of the kernel events instead of repeating it (same report).\n"
	"\n"
	"Environment: WPERF_DECODE_STATS=1 prints the number of decoded events of\n"
	"each type to standard error at the end (and whether they were decoded by\n"
	"filter.wperf.waits). WPERF_SHARE_ANALYSIS=0 makes the sink analyse on its\n"
	"own even behind filter.wperf.waits.\n"
	"\n"
	"Example:\n"
	"  babeltrace2 TRACE -c sink.wperf.knots -p 'format=\"json\",path=\"knots.json\"'\n"
	"\n"
	"See the babeltrace2-sink.wperf.knots(7) manual page; the report:\n"
	"wperf-report(7); the method: wperf-method(7).\n";

enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_DOT, FORMAT_SVG, FORMAT_HTML,
		     FORMAT_GRAPHML };

/* A weight limit as given (the termination threshold, the noise floor):
 * absolute, or a share of the analysed duration, known only once the
 * analysis is finished. */
struct weight_limit {
	bool is_percent;
	double percent;
	int64_t ns;
	char spec[64];       /* as the user wrote it, for the report */
};

struct knots_sink {
	bt_self_component *self;
	bt_message_iterator *iter;
	struct wperf_decoder *decoder;
	struct wperf_analysis *analysis;   /* NULL while reusing `shared` */
	/* The analysis of a filter.wperf.waits connected straight to our
	 * input, reused instead of ours (shared-analysis.h), or NULL. */
	struct wperf_shared_analysis *shared;
	uint64_t messages_in;              /* received while reusing it */
	enum report_format format;
	char *path;                     /* NULL: standard output */
	struct weight_limit threshold;
	struct weight_limit min_weight;
	bool strict_rule;               /* knot-rule=strict */
	int64_t leave_ppm;              /* leave-ratio, dominant rule */
	int64_t tie_ppm;                /* tie-tolerance */
	int64_t *pids;
	size_t n_pids;
	struct wperf_string_list comms;
	bool follow_forks;              /* the focus takes in what it forked */
	struct wperf_merge_options merge;
	struct wperf_string_list nic_capacity;  /* "dev=RATE" items, checked */
	struct wperf_window window;     /* begin/end: the time counted */
	struct wperf_output out;        /* open only while the report is written */
	/* every=: periodic reports (0: none). */
	int64_t every_ns;
	struct {
		struct wperf_analysis *window;  /* the current period's analysis */
		FILE *out;                      /* the stream of reports */
		int64_t first, next;            /* first event; next period's start */
		int64_t last;                   /* the latest event's time */
		uint64_t period_events;         /* events in the current period */
		int64_t begin;                  /* the current period's start */
		uint64_t index;                 /* the current period's number, from 1 */
		bool started;
	} every;
};

/* One error line, prefixed with the component class name, as the cause of
 * the ERROR status about to be returned. */
static void fail(struct knots_sink *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct knots_sink *s, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(s->self, "%s: %s", COMP_NAME, msg);
}

static void sink_destroy(struct knots_sink *s)
{
	if (!s)
		return;
	/* Interrupted or failed before the report was committed: leave no
	 * temporary file behind. */
	wperf_output_abort(&s->out);
	bt_message_iterator_put_ref(s->iter);
	wperf_decoder_destroy(s->decoder);
	wperf_analysis_destroy(s->analysis);
	wperf_analysis_destroy(s->every.window);
	if (s->every.out && s->every.out != stdout)
		fclose(s->every.out);
	wperf_shared_analysis_put(s->shared);
	free(s->path);
	free(s->pids);
	wperf_string_list_free(&s->comms);
	wperf_string_list_free(&s->nic_capacity);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Parameters.                                                         */
/* ------------------------------------------------------------------ */

static int read_format(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "format", &v, err, sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_DOT] = "dot",
		[FORMAT_SVG] = "svg", [FORMAT_HTML] = "html", [FORMAT_GRAPHML] = "graphml",
	};
	size_t i = 0, n = sizeof names / sizeof names[0];

	s->format = FORMAT_TEXT;
	if (rc == 0)
		return 0;
	while (i < n && strcmp(v, names[i]) != 0)
		i++;
	if (i == n) {
		fail(s, "parameter `format`: unknown value \"%s\" (expected text, json, dot, "
		     "svg, html or graphml)", v);
		return -1;
	}
	s->format = (enum report_format)i;
	/* Say so now rather than after reading a long trace. (html does
	 * without: the page says why it has no picture.) */
	if (s->format == FORMAT_SVG && !wperf_graphviz_available()) {
		fail(s, "parameter `format`: svg needs Graphviz's `dot`, which is not on "
		     "PATH: install it (apt-get install graphviz) or use format=dot");
		return -1;
	}
	return 0;
}

/* Refuse early, before a long trace is read, a path whose directory does
 * not exist or cannot be written, or that names a directory. */
static int check_path_writable(struct knots_sink *s, const char *path)
{
	char *dir = strdup(path);
	const char *dir_name = ".";
	char *slash;
	struct stat st;
	int rc = 0;

	if (!dir) {
		fail(s, "parameter `path`: out of memory");
		return -1;
	}
	slash = strrchr(dir, '/');
	if (slash == dir) {          /* "/name": the root directory */
		dir[1] = '\0';
		dir_name = dir;
	} else if (slash) {
		*slash = '\0';
		dir_name = dir;
	}
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		fail(s, "parameter `path`: `%s` is a directory (give a file name)", path);
		rc = -1;
	} else if (access(dir_name, W_OK | X_OK) != 0) {
		fail(s, "parameter `path`: cannot write `%s`: directory `%s`: %s", path,
		     dir_name, strerror(errno));
		rc = -1;
	}
	free(dir);
	return rc;
}

static int read_path(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "path", &v, err, sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (rc == 0 || strcmp(v, "-") == 0)
		return 0;
	if (v[0] == '\0') {
		fail(s, "parameter `path`: empty file name (omit it, or give `-`, for "
		     "standard output)");
		return -1;
	}
	if (check_path_writable(s, v) < 0)
		return -1;
	s->path = strdup(v);
	if (!s->path) {
		fail(s, "parameter `path`: out of memory");
		return -1;
	}
	return 0;
}

/* "20%", "12.5 %": a share of the analysed duration. 0 or -1. */
static int parse_percent(const char *v, double *out)
{
	char *end;
	double p;

	p = strtod(v, &end);
	if (end == v)
		return -1;
	while (*end == ' ')
		end++;
	if (*end != '%' || end[1] != '\0' || !(p >= 0 && p <= 100))
		return -1;
	*out = p;
	return 0;
}

/* The parameter name, a duration or a percentage of the analysed duration
 * (default_spec when absent), into *t. */
static int read_weight_limit(struct knots_sink *s, const bt_value *params,
			     const char *name, const char *default_spec,
			     struct weight_limit *t)
{
	const bt_value *v = bt_value_is_map(params)
		? bt_value_map_borrow_entry_value_const(params, name) : NULL;
	const char *spec = v && bt_value_is_string(v) ? bt_value_string_get(v) : default_spec;
	char err[512];

	if (!v || (bt_value_is_string(v) && strchr(spec, '%'))) {
		if (parse_percent(spec, &t->percent) < 0) {
			fail(s, "parameter `%s`: \"%s\" is not a percentage between "
			     "0%% and 100%% (e.g. \"%s\")", name, spec, default_spec);
			return -1;
		}
		t->is_percent = true;
		snprintf(t->spec, sizeof t->spec, "%s", spec);
		return 0;
	}
	if (wperf_params_get_duration_ns(params, name, &t->ns, err, sizeof err) < 0) {
		fail(s, "%s, or a percentage of the analysed duration such as \"%s\"",
		     err, default_spec);
		return -1;
	}
	t->is_percent = false;
	if (bt_value_is_string(v))
		snprintf(t->spec, sizeof t->spec, "%s", spec);
	else
		snprintf(t->spec, sizeof t->spec, "%.9gs", (double)t->ns / 1e9);
	return 0;
}

static int read_pids(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_id_list(params, "pids", &s->pids, &s->n_pids, err,
				     sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	return 0;
}

static int read_comms(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_nonempty_list(params, "comms", "thread name", &s->comms, err,
					   sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* follow-forks=true: a focus on a command takes in the processes it
 * started (a wrapper script's program, a forking server's workers). */
static int read_follow_forks(struct knots_sink *s, const bt_value *params)
{
	char err[512];
	int rc = wperf_params_get_bool(params, "follow-forks", &s->follow_forks, err,
				       sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (rc > 0 && s->follow_forks && s->n_pids == 0 && s->comms.n == 0) {
		fail(s, "parameter `follow-forks`: there is no focus to follow "
		     "(give `pids` or `comms` too)");
		return -1;
	}
	return 0;
}

/* nic-capacity="eth0=1Gbit,lo=10Gbit": link speeds, without which a
 * NIC's idle time is unknown (we never assume one). */
static int read_nic_capacity(struct knots_sink *s, const bt_value *params)
{
	char err[512];
	int rc = wperf_params_get_string_list(params, "nic-capacity", &s->nic_capacity,
					      err, sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < s->nic_capacity.n; i++) {
		const char *item = s->nic_capacity.items[i];
		const char *eq = strchr(item, '=');
		uint64_t bps;

		if (!eq || eq == item || wperf_parse_rate_bps(eq + 1, &bps) < 0) {
			fail(s, "parameter `nic-capacity`: \"%s\" is not DEVICE=SPEED "
			     "(e.g. \"eth0=1Gbit,lo=10Gbit\"; units bit/s or B/s with k, M, G, T)",
			     item);
			return -1;
		}
	}
	return 0;
}

static int apply_nic_capacity(struct knots_sink *s, struct wperf_analysis *a)
{
	for (size_t i = 0; i < s->nic_capacity.n; i++) {
		char dev[64];
		const char *item = s->nic_capacity.items[i];
		const char *eq = strchr(item, '=');
		uint64_t bps = 0;

		snprintf(dev, sizeof dev, "%.*s", (int)(eq - item), item);
		wperf_parse_rate_bps(eq + 1, &bps);   /* checked by read_nic_capacity */
		if (wperf_analysis_set_nic_capacity(a, dev, bps) < 0)
			return -1;
	}
	return 0;
}

/* An analysis of this sink's own (not a shared one, which other sinks may
 * read): the link speeds given, and the timelines only the HTML page draws
 * (wperf_analysis_keep_timelines: up to 7 KiB per thread). */
static int setup_analysis(struct knots_sink *s, struct wperf_analysis *a)
{
	wperf_analysis_keep_timelines(a, s->format == FORMAT_HTML);
	return apply_nic_capacity(s, a);
}

/* merge=pool|none|process|name|stack and short-lived=merge|keep
 * (wperf/merge.h). Pools are merged unless told otherwise: an unmerged
 * pool of equal workers splits its weight among them, and refinement
 * keeps a different subset of them on every run. */
static int read_merge(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "merge", &v, err, sizeof err);

	s->merge.key = WPERF_MERGE_POOL;

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (rc > 0 && wperf_merge_key_parse(v, &s->merge.key) < 0) {
		fail(s, "parameter `merge`: unknown value \"%s\" (expected pool, none, "
		     "process, name or stack)", v);
		return -1;
	}
	rc = wperf_params_get_string(params, "short-lived", &v, err, sizeof err);
	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	s->merge.short_lived = rc > 0 && strcmp(v, "merge") == 0;
	if (rc > 0 && !s->merge.short_lived && strcmp(v, "keep") != 0) {
		fail(s, "parameter `short-lived`: unknown value \"%s\" (expected merge "
		     "or keep)", v);
		return -1;
	}
	return 0;
}

/* A share (\"10%\") into parts per million; default_spec when absent. */
static int read_ppm(struct knots_sink *s, const bt_value *params, const char *name,
		    const char *default_spec, int64_t *ppm)
{
	const char *v = default_spec;
	char err[512];
	double p;
	int rc = wperf_params_get_string(params, name, &v, err, sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (rc == 0)
		v = default_spec;
	if (parse_percent(v, &p) < 0) {
		fail(s, "parameter `%s`: \"%s\" is not a percentage between 0%% and 100%% "
		     "(e.g. \"%s\")", name, v, default_spec);
		return -1;
	}
	*ppm = (int64_t)(p * 10000.0 + 0.5);
	return 0;
}

/* knot-rule, leave-ratio and tie-tolerance (wperf/knots.h). */
static int read_knot_rule(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "knot-rule", &v, err, sizeof err);

	if (rc < 0) {
		fail(s, "%s", err);
		return -1;
	}
	s->strict_rule = rc > 0 && strcmp(v, "strict") == 0;
	if (rc > 0 && !s->strict_rule && strcmp(v, "dominant") != 0) {
		fail(s, "parameter `knot-rule`: unknown value \"%s\" (expected dominant or "
		     "strict)", v);
		return -1;
	}
	if (read_ppm(s, params, "leave-ratio", DEFAULT_LEAVE_RATIO, &s->leave_ppm) < 0 ||
	    read_ppm(s, params, "tie-tolerance", DEFAULT_TIE_TOLERANCE, &s->tie_ppm) < 0)
		return -1;
	if (s->strict_rule)
		s->leave_ppm = 0;
	return 0;
}

/* begin, end and gmt: the time window counted (window.h). */
static int read_window(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_window(params, &s->window, err, sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* every=DURATION: periodic reports, text or json only (a stream of
 * pictures or pages would be no use). */
static int read_every(struct knots_sink *s, const bt_value *params)
{
	const bt_value *v = bt_value_is_map(params)
		? bt_value_map_borrow_entry_value_const(params, "every") : NULL;
	char err[512];

	if (!v)
		return 0;
	if (wperf_params_get_duration_ns(params, "every", &s->every_ns, err, sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (s->every_ns <= 0) {
		fail(s, "parameter `every`: the period must be longer than 0 (e.g. \"5s\")");
		return -1;
	}
	if (s->format != FORMAT_TEXT && s->format != FORMAT_JSON) {
		fail(s, "parameter `every`: periodic reports are text or json, not %s",
		     s->format == FORMAT_DOT ? "dot" : s->format == FORMAT_SVG ? "svg" :
		     s->format == FORMAT_HTML ? "html" : "graphml");
		return -1;
	}
	if (wperf_window_given(&s->window)) {
		fail(s, "parameter `every`: cannot be combined with begin/end (every= "
		     "reports periods of the whole input)");
		return -1;
	}
	return 0;
}

static int every_init(struct knots_sink *s);

static int read_params(struct knots_sink *s, const bt_value *params)
{
	static const char *const known[] = {
		"format", "path", "threshold", "min-weight", "pids", "comms", "nic-capacity",
		"merge", "short-lived", "follow-forks", "knot-rule", "leave-ratio",
		"tie-tolerance", "begin", "end", "gmt", "every", NULL
	};
	char err[512];

	if (wperf_params_check_known(params, known, err, sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	if (read_format(s, params) < 0 || read_path(s, params) < 0 ||
	    read_weight_limit(s, params, "threshold", DEFAULT_THRESHOLD, &s->threshold) < 0 ||
	    read_weight_limit(s, params, "min-weight", DEFAULT_MIN_WEIGHT, &s->min_weight) < 0 ||
	    read_knot_rule(s, params) < 0 ||
	    read_pids(s, params) < 0 || read_nic_capacity(s, params) < 0 ||
	    read_comms(s, params) < 0 || read_follow_forks(s, params) < 0 ||
	    read_merge(s, params) < 0 || read_window(s, params) < 0 ||
	    read_every(s, params) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Component methods.                                                  */
/* ------------------------------------------------------------------ */

bt_component_class_initialize_method_status wperf_knots_init(
	bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	const bt_value *params, void *init_data)
{
	struct knots_sink *s = calloc(1, sizeof *s);

	(void)config;
	(void)init_data;
	if (!s)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	s->self = bt_self_component_sink_as_self_component(self);
	if (read_params(s, params) < 0)
		goto error;
	s->decoder = wperf_decoder_create();
	s->analysis = wperf_analysis_create();
	if (!s->decoder || !s->analysis || setup_analysis(s, s->analysis) < 0) {
		fail(s, "out of memory");
		goto error;
	}
	wperf_decoder_set_window(s->decoder, &s->window);
	if (every_init(s) < 0)
		goto error;
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		fail(s, "cannot add input port `in`");
		goto error;
	}
	bt_self_component_set_data(s->self, s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	sink_destroy(s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_knots_finalize(bt_self_component_sink *self)
{
	sink_destroy(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self)));
}

static bool sharing_disabled(void)
{
	const char *env = getenv("WPERF_SHARE_ANALYSIS");

	return env && strcmp(env, "0") == 0;
}

/*
 * Reuse the analysis of a filter.wperf.waits connected straight to our
 * input port (shared-analysis.h): it decodes exactly the kernel messages
 * we would, so analysing them again only doubles the cost. Our options
 * go to the shared analysis now, before its first event: nic-capacity is
 * only read when the analysis finishes, and the false-wakeup stage is
 * switched on by the filter's decoder from the same stream classes ours
 * would see. Our own analysis is dropped so nothing can feed it.
 */
static int try_reuse(struct knots_sink *s, const bt_port *in)
{
	const bt_connection *conn = bt_port_borrow_connection_const(in);
	const bt_port_output *up;

	/* every= feeds a second analysis from our decoder. */
	if (!conn || sharing_disabled() || s->every_ns)
		return 0;
	up = bt_connection_borrow_upstream_port_const(conn);
	/* The filter's window is its analysis': only the same one will do. */
	s->shared = wperf_shared_analysis_claim(
		bt_port_borrow_component_const(bt_port_output_as_port_const(up)), &s->window);
	if (!s->shared)
		return 0;
	if (apply_nic_capacity(s, s->shared->analysis) < 0) {
		fail(s, "out of memory");
		return -1;
	}
	wperf_analysis_destroy(s->analysis);
	s->analysis = NULL;
	return 0;
}

bt_component_class_sink_graph_is_configured_method_status
wperf_knots_graph_is_configured(bt_self_component_sink *self)
{
	struct knots_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_name(self, "in");

	if (!bt_port_is_connected(bt_self_component_port_as_port(
		    bt_self_component_port_input_as_self_component_port(port)))) {
		fail(s, "input port `in` is not connected: connect a source of kernel "
		     "events (e.g. source.ctf.fs) to it");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_sink_component(self, port, &s->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		fail(s, "cannot create a message iterator on input port `in`");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	/* Creating our iterator created the upstream one: a filter.wperf.waits
	 * there has registered its analysis by now. */
	if (try_reuse(s, bt_self_component_port_as_port(
		    bt_self_component_port_input_as_self_component_port(port))) < 0)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* ------------------------------------------------------------------ */
/* The report.                                                         */
/* ------------------------------------------------------------------ */

static int64_t resolve_limit(const struct weight_limit *t, const struct wperf_graph *g)
{
	int64_t duration = wperf_graph_duration(g);

	if (!t->is_percent)
		return t->ns;
	return (int64_t)((double)duration * t->percent / 100.0 + 0.5);
}

static bool pid_listed(const struct knots_sink *s, int64_t id)
{
	return wperf_id_list_contains(s->pids, s->n_pids, id);
}

static bool comm_listed(const struct knots_sink *s, const char *comm)
{
	return wperf_string_list_contains(&s->comms, comm);
}

static bool vertex_in_focus(const struct knots_sink *s, const struct wperf_vertex *v)
{
	if (v->kind != WPERF_V_THREAD && v->kind != WPERF_V_VIRTUAL)
		return false;
	if (comm_listed(s, v->comm) || comm_listed(s, v->name))
		return true;
	if (wperf_comm_is_tracer_thread(v->comm))
		return false;
	return (v->tid >= 0 && pid_listed(s, v->tid)) || (v->pid >= 0 && pid_listed(s, v->pid));
}

/*
 * The tracer's own threads (LTTng-UST's listeners, LTTng's daemons and
 * tool: wperf_graph_mark_tracer_threads) wait for no one's work: their
 * waits are no dependency, or the session daemon's timer thread, waited
 * on by its rotation thread for the whole recording, is the first "sink"
 * of every report of a machine. With a focus they are not followed either:
 * the focused program waits for its listeners while they register with the
 * session daemon, which is the recording, not the program's work. Focused
 * or named in comms, they count. -1 when out of memory.
 */
static int build_opaque(struct knots_sink *s, const struct wperf_graph *g, const bool *focus,
			bool **opaque)
{
	*opaque = calloc(g->n_vertices ? g->n_vertices : 1, sizeof **opaque);
	if (!*opaque) {
		fail(s, "out of memory");
		return -1;
	}
	if (wperf_graph_mark_tracer_threads(g, *opaque) < 0) {
		fail(s, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if ((focus && focus[i]) || comm_listed(s, v->comm ? v->comm : v->name))
			(*opaque)[i] = false;
	}
	return 0;
}

/* "a, b, c, ..." : a few distinct thread names, to help fix a focus that
 * matched nothing. */
static void list_some_comms(const struct wperf_graph *g, char *buf, size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->n_vertices && shown < 12; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		const char *c = v->comm ? v->comm : v->name;
		bool dup = false;
		int n;

		if (v->kind != WPERF_V_THREAD || !c)
			continue;
		for (size_t j = 0; j < i && !dup; j++) {
			const struct wperf_vertex *w = &g->vertices[j];
			const char *d = w->comm ? w->comm : w->name;

			dup = w->kind == WPERF_V_THREAD && d && strcmp(c, d) == 0;
		}
		if (dup)
			continue;
		n = snprintf(buf + used, len - used, "%s%s", shown ? ", " : "", c);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		shown++;
	}
	if (shown == 12 && used + 6 < len)
		snprintf(buf + used, len - used, ", ...");
}

/* A thread's process id for list_some_pids: its pid, or its tid when the
 * trace gave no pid. */
static int64_t pid_or_tid(const struct wperf_vertex *v)
{
	return v->pid > 0 ? v->pid : v->tid;
}

/* "1234 (nginx), 1240 (mariadbd), ...": a few pids of the graph (a tid
 * where the trace gave no pid), each with a thread's name, for an error
 * about pids=: the user asked by pid, pids help them pick. */
static void list_some_pids(const struct wperf_graph *g, char *buf, size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->n_vertices && shown < 12; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		bool dup = false;
		int n;

		if (v->kind != WPERF_V_THREAD || pid_or_tid(v) <= 0)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = g->vertices[j].kind == WPERF_V_THREAD &&
			      pid_or_tid(&g->vertices[j]) == pid_or_tid(v);
		if (dup)
			continue;
		n = snprintf(buf + used, len - used, "%s%" PRId64 " (%s)", shown ? ", " : "",
			     pid_or_tid(v), v->comm ? v->comm : v->name ? v->name : "?");
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
		shown++;
	}
	if (shown == 12 && used + 6 < len)
		snprintf(buf + used, len - used, ", ...");
}

/* follow-forks: what the focused threads forked joins the focus, except
 * the tracer's own threads (LTTng-UST's listeners, forked by every traced
 * process; the `lttng` tool or a session daemon a script starts) unless
 * their name was asked for. */
static int add_forked(struct knots_sink *s, const struct wperf_graph *g, bool *focus)
{
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool *asked = malloc(n * sizeof *asked);
	bool *tracer = calloc(n, sizeof *tracer);
	int rc = -1;

	if (!asked || !tracer)
		goto out;
	memcpy(asked, focus, g->n_vertices * sizeof *focus);
	if (wperf_graph_mark_forked(g, focus) < 0 ||
	    wperf_graph_mark_tracer_threads(g, tracer) < 0)
		goto out;
	for (size_t i = 0; i < g->n_vertices; i++)
		if (focus[i] && !asked[i] && tracer[i] && !comm_listed(s, g->vertices[i].comm))
			focus[i] = false;
	rc = 0;
out:
	if (rc < 0)
		fail(s, "out of memory");
	free(asked);
	free(tracer);
	return rc;
}

/* The focus array for the knot search, or NULL when no focus was asked.
 * -1 when the focus matches no thread (error appended). */
static int build_focus(struct knots_sink *s, const struct wperf_graph *g, bool **focus)
{
	size_t matched = 0;
	char seen[512];

	*focus = NULL;
	if (s->n_pids == 0 && s->comms.n == 0)
		return 0;
	*focus = calloc(g->n_vertices ? g->n_vertices : 1, sizeof **focus);
	if (!*focus) {
		fail(s, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < g->n_vertices; i++) {
		(*focus)[i] = vertex_in_focus(s, &g->vertices[i]);
		matched += (*focus)[i];
	}
	if (matched > 0)
		return s->follow_forks ? add_forked(s, g, *focus) : 0;
	if (s->n_pids && !s->comms.n) {
		list_some_pids(g, seen, sizeof seen);
		fail(s, "parameter `pids`: no thread of the trace matches (pids seen, "
		     "pid (name): %s)", seen[0] ? seen : "none");
	} else {
		list_some_comms(g, seen, sizeof seen);
		fail(s, "parameter `%s`: no thread of the trace matches (threads seen: %s)",
		     s->n_pids ? "pids`/`comms" : "comms", seen[0] ? seen : "none");
	}
	free(*focus);
	*focus = NULL;
	return -1;
}

/* The HTML page, with the picture when Graphviz is installed. */
static int write_html(const struct wperf_report *r, FILE *f, char *err, size_t len)
{
	char *svg = NULL;
	size_t n = 0;
	FILE *mem;
	int rc;

	if (!wperf_graphviz_available())
		return wperf_report_write_html(r, NULL, "Graphviz is not installed "
					       "(apt-get install graphviz)", f);
	mem = open_memstream(&svg, &n);
	if (!mem)
		return -1;
	rc = wperf_report_write_svg(r, mem, err, len);
	if (fclose(mem) != 0 && rc == 0)
		rc = -1;
	if (rc == 0)
		rc = wperf_report_write_html(r, svg, NULL, f);
	free(svg);
	return rc;
}

/* Write the report in the chosen format; -1 with a reason in err. */
static int write_format(struct knots_sink *s, const struct wperf_report *r, FILE *f,
			char *err, size_t len)
{
	int rc;

	err[0] = '\0';
	switch (s->format) {
	case FORMAT_JSON:    rc = wperf_report_write_json(r, f); break;
	case FORMAT_DOT:     rc = wperf_report_write_dot(r, f); break;
	case FORMAT_SVG:     rc = wperf_report_write_svg(r, f, err, len); break;
	case FORMAT_HTML:    rc = write_html(r, f, err, len); break;
	case FORMAT_GRAPHML: rc = wperf_report_write_graphml(r, f); break;
	default:             rc = wperf_report_write_text(r, f); break;
	}
	if (rc < 0 && !err[0])
		snprintf(err, len, "cannot write the report to %s: %s",
			 s->path ? s->path : "standard output", strerror(errno));
	return rc;
}

static int write_report(struct knots_sink *s, const struct wperf_report *r)
{
	char err[512];

	if (wperf_output_open(&s->out, s->path, err, sizeof err) < 0) {
		fail(s, "parameter `path`: %s", err);
		return -1;
	}
	if (write_format(s, r, s->out.f, err, sizeof err) < 0) {
		fail(s, "%s", err);
		wperf_output_abort(&s->out);
		return -1;
	}
	if (wperf_output_commit(&s->out, err, sizeof err) < 0) {
		fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* The decoder that fed the analysis we report. */
static const struct wperf_decoder *used_decoder(const struct knots_sink *s)
{
	return s->shared ? s->shared->decoder : s->decoder;
}

static void print_decode_stats(const struct knots_sink *s)
{
	static const char *const names[WPERF_EV_TYPE_COUNT] = {
		"switch", "wakeup", "wakeup_new", "fork", "exec", "exit", "free",
		"irq_entry", "irq_exit", "softirq_entry", "softirq_exit",
		"timer_entry", "timer_exit", "block_insert", "block_issue",
		"block_complete", "statedump_process", "statedump_block_device",
		"spin_begin", "spin_end", "false_wakeup", "progress", "net_xmit", "net_recv",
		"stack", "softirq_raise",
	};
	const uint64_t *counts = wperf_decoder_event_counts(used_decoder(s));
	const char *env = getenv("WPERF_DECODE_STATS");

	if (!env || !*env || strcmp(env, "0") == 0)
		return;
	fprintf(stderr, "%s: decoded events%s:", COMP_NAME,
		s->shared ? " (by filter.wperf.waits, whose analysis is reused)" : "");
	for (int i = 0; i < WPERF_EV_TYPE_COUNT; i++)
		fprintf(stderr, " %s=%" PRIu64, names[i], counts[i]);
	fputc('\n', stderr);
}

/* Merge threads as asked (wperf/merge.h). The focus was computed on the
 * threads themselves; it follows them to their merged vertices. */
static int apply_merge(struct knots_sink *s, struct wperf_graph *g, bool **focus)
{
	size_t n_old = g->n_vertices;
	uint32_t *map = NULL;
	bool *merged = NULL;

	if (s->merge.key == WPERF_MERGE_NONE && !s->merge.short_lived)
		return 0;
	if (s->merge.key == WPERF_MERGE_STACK && g->n_stacks == 0) {
		fail(s, "parameter `merge`: \"stack\" needs call stacks and the trace has "
		     "none: record them (`wperf record --stacks`, source.wperf.tracefs "
		     "stacks=\"kernel\", LTTng's callstack-kernel/callstack-user contexts "
		     "on sched_switch, or `perf record -g`), or use pool, none, process or name");
		return -1;
	}
	if (wperf_graph_merge(g, &s->merge, &map) < 0)
		goto oom;
	if (*focus) {
		merged = calloc(g->n_vertices ? g->n_vertices : 1, sizeof *merged);
		if (!merged)
			goto oom;
		for (size_t i = 0; i < n_old; i++)
			merged[map[i]] |= (*focus)[i];
		free(*focus);
		*focus = merged;
	}
	free(map);
	return 0;
oom:
	free(map);
	fail(s, "out of memory while merging threads");
	return -1;
}

/*
 * The finished analysis' graph: ours, or the one the filter we reuse
 * finished before it ended. That filter handed us every message it
 * produced; if the counts disagree, something we cannot see came between
 * us, and a report from it could be wrong: refuse rather than guess.
 */
static int take_graph(struct knots_sink *s, struct wperf_graph *graph)
{
	memset(graph, 0, sizeof *graph);
	if (!s->shared) {
		if (wperf_analysis_finish(s->analysis, graph) == 0)
			return 0;
		fail(s, "%s", wperf_decoder_explain(s->decoder,
						    wperf_analysis_error(s->analysis)));
		return -1;
	}
	if (!s->shared->finished || s->shared->messages_out != s->messages_in) {
		fail(s, "internal error: the analysis of filter.wperf.waits, reused here, "
		     "did not see the messages received here (%" PRIu64 " sent, %" PRIu64
		     " received); run again with WPERF_SHARE_ANALYSIS=0",
		     s->shared->messages_out, s->messages_in);
		return -1;
	}
	*graph = s->shared->graph;   /* moved: ours to free now */
	memset(&s->shared->graph, 0, sizeof s->shared->graph);
	s->shared->finished = false;
	return 0;
}

/*
 * A finished analysis' graph: find the knots and write the report, into
 * f (every=: the stream of reports) or, f NULL, to the output (path=).
 * The graph is released. -1 with the error appended.
 */
static int report_graph(struct knots_sink *s, struct wperf_graph *graph_in, FILE *f)
{
	struct wperf_graph graph = *graph_in;
	struct wperf_knots knots = { 0 };
	struct wperf_knot_options opts = { 0 };
	struct wperf_cpu_finding cpu;
	struct wperf_report report;
	bool *focus = NULL, *opaque = NULL;
	char stacks_note[256], err[512];
	int rc = -1;

	memset(graph_in, 0, sizeof *graph_in);
	if (wperf_symbolize_stacks(&graph, wperf_decoder_clock_uuid(used_decoder(s)),
				   wperf_decoder_kernel_text(used_decoder(s)),
				   stacks_note, sizeof stacks_note) < 0) {
		fail(s, "out of memory while naming stack frames");
		goto out;
	}
	if (build_focus(s, &graph, &focus) < 0 || apply_merge(s, &graph, &focus) < 0)
		goto out;
	opts.threshold_ns = resolve_limit(&s->threshold, &graph);
	opts.min_weight_ns = resolve_limit(&s->min_weight, &graph);
	opts.leave_ppm = s->leave_ppm;
	opts.tie_ppm = s->tie_ppm;
	opts.focus = focus;
	if (build_opaque(s, &graph, focus, &opaque) < 0)
		goto out;
	opts.opaque = opaque;
	if (wperf_knots_find(&graph, &opts, &knots) < 0 ||
	    wperf_cpu_find(&graph, focus, opaque, opts.min_weight_ns, &cpu) < 0) {
		fail(s, "out of memory while looking for knots");
		goto out;
	}
	report = (struct wperf_report){
		.graph = &graph,
		.knots = &knots,
		.threshold_ns = opts.threshold_ns,
		.threshold_spec = s->threshold.spec,
		.min_weight_ns = opts.min_weight_ns,
		.min_weight_spec = s->min_weight.spec,
		.strict_rule = s->strict_rule,
		.leave_ppm = opts.leave_ppm,
		.tie_ppm = opts.tie_ppm,
		.focus = focus,
		.opaque = opaque,
		.stacks_note = stacks_note[0] ? stacks_note : NULL,
		.cpu = &cpu,
	};
	if (!f) {
		rc = write_report(s, &report);
	} else {
		rc = write_format(s, &report, f, err, sizeof err);
		if (rc < 0)
			fail(s, "%s", err);
	}
out:
	wperf_knots_fini(&knots);
	wperf_graph_fini(&graph);
	free(focus);
	free(opaque);
	return rc;
}

static int finish_every(struct knots_sink *s);

/* End of input: finish the analysis, find the knots, write the report. */
static int finish(struct knots_sink *s)
{
	struct wperf_graph graph;

	print_decode_stats(s);
	if (s->every_ns)
		return finish_every(s);
	if (take_graph(s, &graph) < 0)
		return -1;
	return report_graph(s, &graph, NULL);
}

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

/* s as a JSON string (quotes included). */
static void json_string(FILE *f, const char *str)
{
	fputc('"', f);
	for (const unsigned char *c = (const unsigned char *)str; *c; c++) {
		if (*c == '"' || *c == '\\')
			fprintf(f, "\\%c", *c);
		else if (*c < 0x20)
			fprintf(f, "\\u%04x", *c);
		else
			fputc(*c, f);
	}
	fputc('"', f);
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
			fail(s, "out of memory");
			return -1;
		}
	}
	if (period && s->every.period_events == 0) {
		snprintf(err, sizeof err, "no events in this period");
	} else if (wperf_analysis_finish(a, &graph) < 0) {
		snprintf(err, sizeof err, "%s",
			 wperf_decoder_explain(s->decoder, wperf_analysis_error(a)));
		if (must) {
			fail(s, "%s", err);
			goto out;
		}
	} else if (report_graph(s, &graph, mem ? mem : out) < 0) {
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
		fail(s, "out of memory");
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
		json_string(out, err);
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

	if (!w || setup_analysis(s, w) < 0) {
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
static int every_init(struct knots_sink *s)
{
	if (!s->every_ns)
		return 0;
	s->every.window = wperf_analysis_create();
	if (!s->every.window || setup_analysis(s, s->every.window) < 0) {
		fail(s, "out of memory");
		return -1;
	}
	s->every.out = s->path ? fopen(s->path, "w") : stdout;
	if (!s->every.out) {
		fail(s, "parameter `path`: cannot write `%s`: %s", s->path, strerror(errno));
		return -1;
	}
	wperf_decoder_set_time_hook(s->decoder, every_time, s);
	wperf_decoder_set_also(s->decoder, s->every.window);
	return 0;
}

/* End of input with every=: the last period, then the final report. */
static int finish_every(struct knots_sink *s)
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
		fail(s, "cannot write the report to %s: %s", s->path ? s->path : "standard output",
		     strerror(errno));
		rc = -1;
	}
	if (out != stdout && fclose(out) != 0 && rc == 0) {
		fail(s, "cannot write the report to %s: %s", s->path, strerror(errno));
		rc = -1;
	}
	return rc;
}

/* Decode a batch; on error, the messages not yet decoded are released too.
 * While reusing a filter's analysis, that filter has decoded them already. */
static int feed_batch(struct knots_sink *s, bt_message_array_const msgs, uint64_t count)
{
	char err[512];
	int rc = 0;

	if (s->shared) {
		for (uint64_t i = 0; i < count; i++)
			bt_message_put_ref(msgs[i]);
		s->messages_in += count;
		return 0;
	}

	for (uint64_t i = 0; i < count; i++) {
		if (rc == 0 &&
		    wperf_decoder_feed_message(s->decoder, s->analysis, msgs[i],
					       err, sizeof err) < 0) {
			fail(s, "%s", err);
			rc = -1;
		}
		bt_message_put_ref(msgs[i]);
	}
	return rc;
}

/*
 * Upstream failed (a corrupt or truncated trace: the reader said why, in
 * a chain of causes). Say in one line what the user needs: the analysis
 * stopped, no report was written, and the root cause, whitespace folded.
 */
static void fail_upstream(struct knots_sink *s)
{
	const bt_error *e = bt_current_thread_take_error();
	char root[512] = "see the causes that follow";
	uint64_t n = e ? bt_error_get_cause_count(e) : 0;

	if (n > 0) {
		/* Index 0 is the oldest cause: where the error began (the
		 * reader of the trace); later ones are its way down the graph. */
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, 0);
		const char *m = bt_error_cause_get_message(c);
		size_t j = 0;

		if (bt_error_cause_get_actor_type(c) == BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT) {
			const char *plugin = bt_error_cause_component_actor_get_plugin_name(c);
			int len = snprintf(root, sizeof root, "%s.%s: ", plugin ? plugin : "?",
					   bt_error_cause_component_actor_get_component_class_name(c));

			j = len > 0 && (size_t)len < sizeof root ? (size_t)len : 0;
		}

		for (; m && *m && j + 1 < sizeof root; m++) {
			bool space = *m == ' ' || *m == '\n' || *m == '\t';

			if (!space || (j > 0 && root[j - 1] != ' '))
				root[j++] = space ? ' ' : *m;
		}
		root[j] = '\0';
	}
	if (e)
		bt_current_thread_move_error(e);
	/* The muxer's words for clocks that disagree are cryptic. */
	fail(s, "cannot read the trace to its end: %s%s; no report was written", root,
	     strstr(root, "muxer") && strstr(root, "timestamp is less than")
	     ? " (events go back in time across streams: a corrupt packet, or traces "
	       "whose clocks cannot be correlated, such as two hosts: analyse one "
	       "host's trace at a time)" : "");
}

bt_component_class_sink_consume_method_status
wperf_knots_consume(bt_self_component_sink *self)
{
	struct knots_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(s->iter, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		if (feed_batch(s, msgs, count) < 0)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(s->iter);
		if (finish(s) < 0)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR:
	default:
		fail_upstream(s);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}
