/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/report.c — `wperf report TRACE`: the knot report of a
 * recording (wperf(1)). TRACE is read in-process: the babeltrace2 graph
 * of `babeltrace2 TRACE -c sink.wperf.knots --params=...` (bt-graph.c),
 * with the options as the sink's parameters.
 *
 * What it adds to the graph:
 *  - a recording of a command (TRACE/command.pid) is reported focused on
 *    that command and what it forked, unless a focus or --all is given;
 *  - a flight recorder is reported through its latest snapshot;
 *  - a recording still being written is refused, one cut short is
 *    reported with a warning (recording.c);
 *  - metadata cut inside a packet is refused before babeltrace2 2.0 would
 *    loop on it (ctf-metadata.c);
 *  - a failure is one line (bt-failure.c; --verbose: the whole log and
 *    the error's causes too); a UST trace that cannot be read is left out
 *    of the report, with a warning, when the kernel's reads;
 *  - a reader gone from standard output (`wperf report ... | head`) ends
 *    the command quietly, with status 0.
 */
#include "wperf.h"
#include "as-user.h"
#include "bt-failure.h"
#include "bt-graph.h"
#include "bt-params.h"
#include "ctf-metadata.h"
#include "dir-names.h"
#include "options.h"
#include "output.h"
#include "recording.h"
#include "report-hosts.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ options */

/* Every format sink.wperf.knots writes (its `format` parameter). */
static const char *const formats[] = { "text", "json", "dot", "svg", "html", "graphml", NULL };
static const char *const knot_rules[] = { "dominant", "strict", NULL };

/* The options that are sink parameters come first, in the order they are
 * given to the sink (the Python command's order). */
enum { OPT_FORMAT, OPT_OUTPUT, OPT_PIDS, OPT_COMMS, OPT_THRESHOLD, OPT_MIN_WEIGHT,
       OPT_KNOT_RULE, OPT_BEGIN, OPT_END, N_SINK_OPTS,
       OPT_PLUGIN_PATH = N_SINK_OPTS, OPT_PARAMS, OPT_TIMEOUT, OPT_ALL, OPT_VERBOSE,
       OPT_HELP, N_OPTS };

/* In the order of the help. */
static const struct wperf_option options[N_OPTS + 1] = {
	[OPT_FORMAT] = { "format", 0, "FORMAT",
		"report format (sink.wperf.knots' format): text, json, dot, svg, html, graphml" },
	[OPT_OUTPUT] = { "output", 0, "FILE", "write the report to FILE" },
	[OPT_PIDS] = { "pids", 0, "LIST", "focus: pids or tids, comma-separated" },
	[OPT_COMMS] = { "comms", 0, "LIST", "focus: thread or process names, comma-separated" },
	[OPT_THRESHOLD] = { "threshold", 0, "T", "refinement threshold (\"20%\", \"250ms\")" },
	[OPT_MIN_WEIGHT] = { "min-weight", 0, "W", "noise floor (\"1%\", \"5ms\")" },
	[OPT_KNOT_RULE] = { "knot-rule", 0, "{dominant,strict}",
		"which groups are knots: dominant (little weight leaves them, the default) "
		"or strict (none, the paper's)" },
	[OPT_BEGIN] = { "begin", 0, "TIME",
		"count from TIME, the whole trace read for thread and disk names "
		"(babeltrace2 --begin's forms: \"hh:mm:ss\", seconds)" },
	[OPT_END] = { "end", 0, "TIME", "count up to TIME (as --begin)" },
	[OPT_PLUGIN_PATH] = { "plugin-path", 0, "DIR", "directory of babeltrace-plugin-wperf.so" },
	[OPT_PARAMS] = { "params", 0, "STR",
		"more sink parameters, in babeltrace2's --params syntax" },
	[OPT_TIMEOUT] = { "timeout", 0, "SECONDS",
		"stop babeltrace2 after SECONDS (default 3600; 0: no limit)" },
	[OPT_ALL] = { "all", 0, NULL,
		"report every thread, not only the recorded command (the default focus "
		"when TRACE/command.pid exists)" },
	[OPT_VERBOSE] = { "verbose", 0, NULL,
		"on failure, show babeltrace2's whole error, not only its cause" },
	[OPT_HELP] = { "help", 'h', NULL, "show this help message and exit" },
	{ NULL, 0, NULL, NULL },
};

/* The sink parameter of each of the first options. */
static const char *const sink_param[N_SINK_OPTS] = {
	"format", "path", "pids", "comms", "threshold", "min-weight", "knot-rule", "begin", "end",
};

/* Traces of several machines reported as one graph. */
#define REPORT_TRACES_MAX WPERF_REPORT_HOSTS_MAX

struct report_args {
	const char *trace;              /* the first of traces */
	const char *traces[REPORT_TRACES_MAX];
	size_t n_traces;
	const char *value[N_OPTS];      /* by option index */
	bool all, verbose, help;
	double timeout;
};

static void print_help(void)
{
	printf("usage: wperf report [-h] [--plugin-path DIR] [--format {text,json,dot,svg,html,graphml}]\n"
	       "                    [--output FILE] [--pids LIST] [--comms LIST] [--all] [--threshold T]\n"
	       "                    [--min-weight W] [--knot-rule {dominant,strict}] [--begin TIME]\n"
	       "                    [--end TIME] [--params STR] [--timeout SECONDS] [--verbose]\n"
	       "                    TRACE [TRACE...]\n\n"
	       "Print the knot report of TRACE (a wperf record directory, one of its snapshots, or\n"
	       "any trace babeltrace2 reads) with sink.wperf.knots, run in-process. Options become\n"
	       "the sink's parameters (see babeltrace2-sink.wperf.knots(7)). Several TRACEs of\n"
	       "different machines (up to 8) are reported as one graph, each vertex named with its host.\n\n"
	       "positional arguments:\n  TRACE\n\noptions:\n");
	for (int i = 0; options[i].name; i++) {
		char left[64];

		if (options[i].metavar)
			snprintf(left, sizeof(left), "--%s %s", options[i].name, options[i].metavar);
		else if (options[i].short_name)
			snprintf(left, sizeof(left), "-%c, --%s", options[i].short_name,
				 options[i].name);
		else
			snprintf(left, sizeof(left), "--%s", options[i].name);
		printf("  %-22s %s\n", left, options[i].help);
	}
}

/* The value of option o, checked; false after the usage error. */
static bool take_value(const struct wperf_options *p, struct report_args *a, int o,
		       const char *value)
{
	if (o == OPT_FORMAT && !wperf_option_choice(p, o, value, formats))
		return false;
	if (o == OPT_KNOT_RULE && !wperf_option_choice(p, o, value, knot_rules))
		return false;
	if (o == OPT_TIMEOUT) {
		if (!wperf_option_float(p, o, value, &a->timeout))
			return false;
		if (a->timeout < 0 || a->timeout > WPERF_MAX_SECONDS) {
			wperf_usage_error(p, "argument --timeout: '%s' is out of range (0, no limit, "
					  "to %.0f seconds)", value, WPERF_MAX_SECONDS);
			return false;
		}
	}
	a->value[o] = value;
	return true;
}

/* Parse argv (argv[0] is "report"): 0, or WPERF_EXIT_FAIL after saying why. */
static int parse_args(int argc, char **argv, struct report_args *a)
{
	struct wperf_options p;
	const char *value;
	int o;

	memset(a, 0, sizeof(*a));
	a->timeout = 3600;
	wperf_options_init(&p, "report", options, argc, argv);
	p.max_positional = REPORT_TRACES_MAX;   /* TRACE... */
	while ((o = wperf_options_next(&p, &value)) != WPERF_OPT_END) {
		if (o == WPERF_OPT_ERROR)
			return WPERF_EXIT_FAIL;
		if (o == WPERF_OPT_HELP) {
			a->help = true;
			return 0;
		}
		if (o == WPERF_OPT_POSITIONAL) {
			a->traces[a->n_traces++] = value;
			a->trace = a->traces[0];
		} else if (o == OPT_ALL) {
			a->all = true;
		} else if (o == OPT_VERBOSE) {
			a->verbose = true;
		} else if (!take_value(&p, a, o, value)) {
			return WPERF_EXIT_FAIL;
		}
	}
	if (!a->trace)
		return wperf_usage_error(&p, "the following arguments are required: TRACE");
	return 0;
}

/* ------------------------------------------------------------ focus */

/* Whether text (--params) sets pids or comms: `(^|,)\s*(pids|comms)\s*=`. */
static bool params_focus(const char *text)
{
	for (const char *p = text; p; p = strchr(p, ',')) {
		if (*p == ',')
			p++;
		p += strspn(p, " \t\n\r\f\v");
		for (const char *k = "pids\0comms\0"; *k; k += strlen(k) + 1)
			if (!strncmp(p, k, strlen(k)) &&
			    p[strlen(k) + strspn(p + strlen(k), " \t\n\r\f\v")] == '=')
				return true;
	}
	return false;
}

/* The pid of the command `wperf record` ran into trace, when the report
 * should focus on it: no focus asked and not --all. */
static bool focus_on_command(const struct report_args *a, char *pid, size_t pidlen)
{
	const char *params = a->value[OPT_PARAMS];

	if (a->all || a->value[OPT_PIDS] || a->value[OPT_COMMS] || a->n_traces > 1)
		return false;
	if (params && params_focus(params))
		return false;
	return wperf_recorded_command(a->trace, pid, pidlen);
}

/* ------------------------------------------------------------ running */

/* Standard output is a pipe whose reader has gone (POLLERR), as after
 * `wperf report ... | head`: the sink's failed write is no error. */
static bool stdout_closed(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP));
}

/* The sink's parameters: the options, the focus, then --params. NULL
 * after saying why. */
static bt_value *sink_params(const struct report_args *a, const char *trace, const char *pid)
{
	bt_value *params = bt_value_map_create();
	const char *more = a->value[OPT_PARAMS];
	char why[1024];

	if (!params) {
		wperf_fail("out of memory");
		return NULL;
	}
	for (int i = 0; i < N_SINK_OPTS; i++)
		if (a->value[i] && bt_value_map_insert_string_entry(params, sink_param[i],
								    a->value[i]))
			goto oom;
	if (pid && (bt_value_map_insert_string_entry(params, "pids", pid) ||
		    bt_value_map_insert_bool_entry(params, "follow-forks", BT_TRUE)))
		goto oom;
	if (more && *more && wperf_params_parse(more, params, why, sizeof(why))) {
		wperf_fail("cannot report %s: --params: %s", trace, why);
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
oom:
	wperf_fail("out of memory");
	bt_value_put_ref(params);
	return NULL;
}

/* ------------------------------------------------------------ the report file, as root */

/* path names one of this process's descriptors, which the sink writes
 * through (plugin/common/output.c): opened by whoever started wperf
 * already (the user's shell, for `> FILE`). */
static bool names_descriptor(const char *path)
{
	const char *n = NULL;

	if (!strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/stderr"))
		return true;
	if (!strncmp(path, "/dev/fd/", 8))
		n = path + 8;
	else if (!strncmp(path, "/proc/self/fd/", 14))
		n = path + 14;
	return n && *n && strspn(n, "0123456789") == strlen(n);
}

/* `sudo wperf report --output DIR/NAME`: the report file being made
 * in DIR for the user who ran sudo, put in place as NAME when the
 * report is complete (place_finish()). fd -1: none. */
static struct {
	int dirfd, fd;
	char tmp[WPERF_TEMP_NAME_LEN];  /* "": unnamed (O_TMPFILE) */
	char name[NAME_MAX + 1];
	const char *said_by, *shown;    /* "--output ", the path the user gave */
	struct wperf_user user;
} made = { .dirfd = -1, .fd = -1 };

/* `sudo wperf report --output DIR/NAME` (or --params path=...): the
 * sink writes the report as root, and would follow a link the user put
 * in place of DIR, or of a directory above it, into a directory only
 * root may write (root's report landing in /etc/cron.d). So DIR is
 * opened here by a child running as the user who ran sudo (as-user.h:
 * the kernel checks that user's rights at every step, as for `> FILE`),
 * and held; a child running as the user makes the report's file in it,
 * so that the file is the user's (who may then remove or overwrite the
 * report they asked for), and the sink writes it through
 * /proc/self/fd/N; place_finish() has the user put it in place as NAME
 * once it is complete. Root makes, renames and removes nothing in DIR
 * by any name. A device or FIFO at NAME is opened as the user and the
 * sink gets /proc/self/fd/N. Messages name the path given
 * (dir-names.h). Not root, or root without sudo: unchanged. false after
 * saying why. */
static bool place_as_user(bt_value *params, const char *said_by)
{
	static struct wperf_dir held = { .fd = -1 };
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, "path");
	char dir[PATH_MAX];
	const char *path, *slash, *name;
	struct stat st;
	int as, fd;

	if (geteuid() != 0 || !v || !bt_value_is_string(v))
		return true;
	path = bt_value_string_get(v);
	slash = strrchr(path, '/');
	name = slash ? slash + 1 : path;
	if (!*name || !strcmp(path, "-") || names_descriptor(path))
		return true;    /* standard output, a descriptor, or no file name (the sink says) */
	if ((as = wperf_sudo_user(NULL, &made.user)) <= 0)
		return as == 0;
	if (strlen(path) >= sizeof(dir) || strlen(name) > NAME_MAX) {
		wperf_fail("%s%s: the path is too long", said_by, path);
		return false;
	}
	snprintf(dir, sizeof(dir), "%.*s", !slash ? 1 : slash == path ? 1 : (int)(slash - path),
		 slash ? path : ".");
	fd = wperf_open_place_as(dir, name, &made.user);
	if (fd >= 0 && (fstat(fd, &st) != 0 || S_ISBLK(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = ENOTSUP;
	}
	if (fd >= 0 && S_ISDIR(st.st_mode)) {
		made.dirfd = fd;
		snprintf(made.name, sizeof(made.name), "%s", name);
		made.said_by = said_by;
		made.shown = path;
		fd = made.fd = wperf_temp_file_as(made.dirfd, made.tmp, &made.user);
	}
	if (fd < 0) {
		wperf_fail("%s%s: cannot write it as %s (who ran sudo; wperf report writes its "
			   "report where that user could): %s", said_by, path, made.user.name,
			   errno == EPERM ? "it is another user's file in a sticky directory "
			   "(as in /tmp)" : wperf_as_user_why(errno));
		return false;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	held.fd = fd;
	snprintf(held.at, sizeof(held.at), "/proc/self/fd/%d", fd);
	snprintf(held.pid_at, sizeof(held.pid_at), "/proc/%ld/fd/%d", (long)getpid(), fd);
	snprintf(held.shown, sizeof(held.shown), "%s", path);
	wperf_dir_names_add(&held);
	if (bt_value_map_insert_string_entry(params, "path", held.at)) {
		wperf_fail("out of memory");
		return false;
	}
	return true;
}

/* The report file made by place_as_user() emptied, for another run of
 * the graph (the sink writes through a copy of its descriptor, which
 * shares the offset). */
static void place_rewind(void)
{
	if (made.fd >= 0 && (ftruncate(made.fd, 0) != 0 || lseek(made.fd, 0, SEEK_SET) != 0))
		wperf_say("warning: cannot empty the report file %s: %s", made.shown,
			  strerror(errno));
}

/* The report file made by place_as_user(), when the report is complete
 * (rc 0): on the disk and put in place as NAME by the user; else
 * removed (a named temporary file; an unnamed one goes with its
 * descriptor). The exit status. */
static int place_finish(int rc)
{
	if (made.fd < 0)
		return rc;
	if (rc == WPERF_EXIT_OK && (fsync(made.fd) != 0 ||
	    wperf_place_file_as(made.dirfd, made.fd, made.tmp, made.name, &made.user) != 0))
		rc = wperf_fail("%s%s: cannot put the report in place as %s: %s",
				made.said_by, made.shown, made.user.name, wperf_as_user_why(errno));
	if (rc != WPERF_EXIT_OK && made.tmp[0])
		wperf_unlink_as(made.dirfd, made.tmp, &made.user);
	close(made.fd);
	close(made.dirfd);
	made.fd = made.dirfd = -1;
	return rc;
}

/* The CTF trace directories under trace (with a `metadata` file), sorted. */
static struct {
	char **dirs;
	size_t n, cap;
} traces;

static int collect_trace(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	if (traces.n == traces.cap) {
		size_t cap = traces.cap ? traces.cap * 2 : 8;
		char **bigger = realloc(traces.dirs, cap * sizeof(*bigger));

		if (!bigger)
			return 1;
		traces.dirs = bigger;
		traces.cap = cap;
	}
	/* The directory: the path without "/metadata". */
	if (!(traces.dirs[traces.n] = strndup(path, (size_t)ftw->base - 1)))
		return 1;
	traces.n++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_ust(const char *dir)
{
	return strstr(dir, "/ust/") || (strlen(dir) >= 4 && !strcmp(dir + strlen(dir) - 4, "/ust"));
}

/* Why the traces paths cannot be read (sink.utils.dummy), in one line, or
 * NULL when they can. */
static char *why_not_readable(const struct wperf_bt *bt, const char *const *paths, size_t n)
{
	struct wperf_run run;
	char why[4096];
	char *out = NULL;

	if (wperf_bt_run(bt, paths, n, bt->utils, "dummy", NULL, &run) != WPERF_RUN_OK) {
		wperf_run_failure(&run, why, sizeof(why));
		out = strdup(why);
	}
	wperf_run_fini(&run);
	return out;
}

/*
 * After a failed report of trace: its CTF traces as the readable ones and
 * the unreadable UST ones, each UST trace read alone; true when the
 * report should be run again on the readable ones (the kernel traces read
 * alone and some UST trace does not). Only UST traces are left out:
 * without the kernel's there is no report. LTTng can leave a UST trace
 * that names a stream class its metadata never got (an application
 * registering while the session stopped); it holds annotations, not the
 * scheduler's events.
 */
static bool split_unreadable(const struct wperf_bt *bt, const char *trace,
			     const char ***readable, size_t *nreadable)
{
	const char **kernel = NULL, **ust = NULL;
	size_t nk = 0, nu = 0, nbad = 0;
	bool split = false;
	char *why;

	traces.n = 0;
	nftw(trace, collect_trace, 16, FTW_PHYS);
	if (traces.n)
		qsort(traces.dirs, traces.n, sizeof(*traces.dirs), by_name);
	kernel = calloc(traces.n + 1, sizeof(*kernel));
	ust = calloc(traces.n + 1, sizeof(*ust));
	if (!kernel || !ust)
		goto end;
	for (size_t i = 0; i < traces.n; i++) {
		if (is_ust(traces.dirs[i]))
			ust[nu++] = traces.dirs[i];
		else
			kernel[nk++] = traces.dirs[i];
	}
	if (!nk || !nu)
		goto end;
	if ((why = why_not_readable(bt, kernel, nk))) {
		free(why);
		goto end;
	}
	*nreadable = nk;
	for (size_t i = 0; i < nu; i++) {
		const char *one[1] = { ust[i] };

		if ((why = why_not_readable(bt, one, 1))) {
			wperf_say("warning: %s cannot be read (%s): reporting without it", ust[i], why);
			free(why);
			nbad++;
		} else {
			kernel[(*nreadable)++] = ust[i];
		}
	}
	split = nbad > 0;
end:
	free(ust);
	if (split) {
		*readable = kernel;
	} else {
		free(kernel);
		*readable = NULL;
	}
	return split;
}

static void free_traces(void)
{
	for (size_t i = 0; i < traces.n; i++)
		free(traces.dirs[i]);
	free(traces.dirs);
	traces.dirs = NULL;
	traces.n = traces.cap = 0;
}

/* Why a trace can lack the command it recorded. A snapshot is of the
 * flight recorder's last seconds, which may follow the command's end;
 * a whole recording holds the command from its start, unless the kernel
 * overwrote its events before the recorder read them (a starved reader,
 * a disk that filled). */
static const char *why_command_missing(const char *trace)
{
	char mode[64];

	if (wperf_recording_mode(trace, mode, sizeof(mode)) && !strcmp(mode, "record"))
		return "its events lost before they were read? the report of --all counts the "
		       "discarded events";
	return "a snapshot taken after it ended?";
}

/* Run the report of the n traces inputs (one host's each); the
 * command's exit status. */
static int report(const struct report_args *a, const char *const *inputs, size_t n,
		  const char *pid, const struct wperf_bt *bt, bt_value *params)
{
	struct wperf_run run;
	const char *trace = inputs[0];
	const char **readable = NULL;
	size_t nreadable = 0;
	char why[4096];
	int64_t offsets[REPORT_TRACES_MAX];
	int rc;

	/* Several hosts: their clocks on one time base first. */
	if (n > 1 && (rc = wperf_report_sync_hosts(bt, inputs, n, params, offsets)))
		return rc;
	if (n > 1)
		wperf_bt_set_clock_offsets(inputs, offsets, n);
	wperf_bt_run(bt, inputs, n, bt->wperf, "knots", params, &run);
	wperf_bt_set_clock_offsets(NULL, NULL, 0);
	if (run.status == WPERF_RUN_FAILED && n == 1 && !stdout_closed() &&
	    split_unreadable(bt, trace, &readable, &nreadable)) {
		wperf_run_fini(&run);
		place_rewind();
		wperf_bt_run(bt, readable, nreadable, bt->wperf, "knots", params, &run);
	}
	free(readable);
	if (run.status == WPERF_RUN_INTERRUPTED) {
		wperf_run_fini(&run);
		wperf_say("interrupted");
		return WPERF_EXIT_INTERRUPTED;
	}
	if (run.status == WPERF_RUN_OK || a->verbose) {
		/* What the plugins and the graph wrote, as babeltrace2 would have. */
		fwrite(bt->log, 1, bt->loglen, stderr);
		fwrite(run.log, 1, run.loglen, stderr);
		wperf_run_print_causes(&run, stderr);
	}
	if (run.status == WPERF_RUN_OK) {
		if (pid)    /* after the report (failures stay one line): why it is focused */
			wperf_say("focus: the recorded command (pid %s) and what it forked; "
				  "--all reports every thread", pid);
		rc = WPERF_EXIT_OK;
	} else if (stdout_closed()) {
		rc = WPERF_EXIT_OK;    /* the reader went away: say nothing */
	} else if (pid && wperf_run_mentions(&run, "parameter `pids`: no thread of the trace matches")) {
		rc = wperf_fail("cannot report %s: the recorded command (pid %s, command.pid) is "
				"not in it (%s): --all reports every thread, --pids others", trace,
				pid, why_command_missing(trace));
	} else {
		wperf_run_failure(&run, why, sizeof(why));
		rc = wperf_fail("cannot report %s: %s%s", trace, why, a->verbose ? "" :
				" (wperf report --verbose shows babeltrace2's whole error)");
	}
	wperf_run_fini(&run);
	return rc;
}

/* A recording of `wperf record --relay` holds no trace (no kernel/): true
 * after saying where it went (or why its wperf.json cannot be read). */
static bool relayed(const char *trace)
{
	char url[512], session[256], kernel[PATH_MAX];
	struct stat st;

	if (!wperf_recording_string(trace, "relay", url, sizeof(url)) ||
	    !wperf_recording_string(trace, "session", session, sizeof(session)))
		return true;
	snprintf(kernel, sizeof(kernel), "%s/kernel", trace);
	if (!url[0] || stat(kernel, &st) == 0)
		return false;
	wperf_fail("cannot report %s: its trace was streamed to lttng-relayd at %s (wperf record "
		   "--relay): report the relay daemon's copy, HOSTNAME/%s-* below its output "
		   "directory", trace, url, session[0] ? session : "SESSION");
	return true;
}

/* ------------------------------------------------------------ readable */

/* The first part of a trace this user cannot read: babeltrace2 says only
 * "Cannot open file: Permission denied", naming none. */
static struct {
	char path[PATH_MAX];
	bool dir;
} unreadable;

static int find_unreadable(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	/* LTTng's ust/ belongs to its tracing group (0770): babeltrace2 reads
	 * the trace without a directory it cannot list, as wperf does. */
	if (type == FTW_DNR && ftw->level > 0 && !strcmp(path + ftw->base, "ust"))
		return 0;
	if ((type == FTW_DNR || type == FTW_NS) ||
	    (type == FTW_F && access(path, R_OK) != 0 && errno == EACCES)) {
		snprintf(unreadable.path, sizeof(unreadable.path), "%s", path);
		unreadable.dir = type == FTW_DNR;
		return 1;
	}
	return 0;
}

/* The first directory on the way to path that this user cannot enter, into
 * out; false when there is none. */
static bool blocked_on_the_way(const char *path, char *out, size_t len)
{
	char prefix[PATH_MAX];

	for (const char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		snprintf(prefix, sizeof(prefix), "%.*s", (int)(p - path), path);
		if (access(prefix, X_OK) != 0 && errno == EACCES) {
			snprintf(out, len, "%s", prefix);
			return true;
		}
	}
	return false;
}

/* Who owns path and its mode, "root's, mode 0640", or "" when unknown. */
static void owner_of(const char *path, char *out, size_t len)
{
	struct stat st;
	struct passwd *pw;

	out[0] = '\0';
	if (lstat(path, &st) != 0)
		return;
	pw = getpwuid(st.st_uid);
	if (pw)
		snprintf(out, len, " (%s's, mode %04o)", pw->pw_name, st.st_mode & 07777);
	else
		snprintf(out, len, " (uid %ld's, mode %04o)", (long)st.st_uid, st.st_mode & 07777);
}

/* 0 when this user can read every file of trace, else the exit status
 * after naming what cannot be read and how to read it: as its owner
 * (root, for a `sudo wperf record`), or made the user's own. */
static int check_readable(const char *trace, int stat_errno)
{
	struct passwd *pw = getpwuid(geteuid());
	char me[64], owner[96];

	unreadable.path[0] = '\0';
	if (stat_errno == EACCES) {
		if (!blocked_on_the_way(trace, unreadable.path, sizeof(unreadable.path)))
			snprintf(unreadable.path, sizeof(unreadable.path), "%s", trace);
		unreadable.dir = true;
	} else if (stat_errno) {
		return 0;
	} else {
		nftw(trace, find_unreadable, 16, FTW_PHYS);
	}
	if (!unreadable.path[0])
		return 0;
	if (pw)
		snprintf(me, sizeof(me), "%s", pw->pw_name);
	else
		snprintf(me, sizeof(me), "%ld", (long)geteuid());
	owner_of(unreadable.path, owner, sizeof(owner));
	if (stat_errno)    /* a directory above the trace: chown of the trace cannot help */
		return wperf_fail("cannot report %s: directory %s%s cannot be entered by %s: "
				  "report it as root (sudo wperf report %s) or move the trace "
				  "where %s can reach it and make it theirs (sudo chown -R %s)",
				  trace, unreadable.path, owner, me, trace, me, me);
	return wperf_fail("cannot report %s: %s %s%s cannot be read by %s: report it as root "
			  "(sudo wperf report %s) or make the trace %s's (sudo chown -R %s %s)",
			  trace, unreadable.dir ? "directory" : "file", unreadable.path, owner, me,
			  trace, me, me, trace);
}

/*
 * One TRACE made ready to read: a directory, a closed recording, through
 * its latest snapshot for a flight recorder (*snapshot, to free), with
 * metadata babeltrace2 can read. *out is what to read. 0, or the exit
 * status after saying why.
 */
static int prepare_trace(const char *trace, char **snapshot, const char **out)
{
	struct stat st;
	char mode[64], why[4096];

	*out = trace;
	if (stat(trace, &st) != 0) {
		int e = errno;

		return check_readable(trace, e) ? WPERF_EXIT_FAIL :
		       wperf_fail("no trace directory %s: %s", trace, strerror(e));
	}
	if (!S_ISDIR(st.st_mode))
		return wperf_fail("%s is a file, not a trace directory: give the directory of "
				  "a recording (wperf record -o DIR) or of a CTF trace", trace);
	if (check_readable(trace, 0))
		return WPERF_EXIT_FAIL;
	if (!wperf_check_closed(trace) || !wperf_recording_mode(trace, mode, sizeof(mode)))
		return WPERF_EXIT_FAIL;
	if (!strcmp(mode, "flight-recorder")) {
		/* Snapshots overlap in time: one at a time, the latest. */
		if (!(*snapshot = wperf_latest_snapshot(trace)))
			return WPERF_EXIT_FAIL;
		*out = *snapshot;
		wperf_say("reporting %s, the latest snapshot", *out);
	}
	if (relayed(*out))
		return WPERF_EXIT_FAIL;
	if (wperf_check_metadata(*out, why, sizeof(why)))
		return wperf_fail("cannot report %s: %s", *out, why);
	return 0;
}

int wperf_cmd_report(int argc, char **argv)
{
	struct report_args a;
	struct wperf_bt bt;
	char pid[32], why[4096], *plugins = NULL, *snapshots[REPORT_TRACES_MAX] = { NULL };
	const char *inputs[REPORT_TRACES_MAX];
	bool focus;
	bt_value *params = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a)) != 0)
		return rc;
	if (a.help) {
		print_help();
		return WPERF_EXIT_OK;
	}
	if (!(plugins = wperf_plugin_dir(a.value[OPT_PLUGIN_PATH])))
		return WPERF_EXIT_FAIL;
	/* A recording of a command is about that command: focus on it and on
	 * what it forked (a wrapper script's program), not on the whole
	 * machine, unless asked otherwise. */
	focus = focus_on_command(&a, pid, sizeof(pid));
	/* --timeout covers every step, from here: asking the session daemon
	 * about a cut-short recording's session as much as babeltrace2. */
	snprintf(why, sizeof(why), "cannot report %s: not done within %g s (--timeout SECONDS, "
		 "0 for no limit)", a.trace, a.timeout);
	wperf_bt_set_timeout(a.timeout, why);
	for (size_t i = 0; i < a.n_traces; i++)
		if ((rc = prepare_trace(a.traces[i], &snapshots[i], &inputs[i])) != 0)
			goto end;
	rc = WPERF_EXIT_FAIL;
	if (!(params = sink_params(&a, inputs[0], focus ? pid : NULL)) ||
	    !place_as_user(params, a.value[OPT_OUTPUT] ? "--output " : "--params path="))
		goto end;
	if (wperf_bt_load(&bt, plugins, why, sizeof(why))) {
		rc = wperf_fail("cannot report %s: %s", inputs[0], why);
		goto end;
	}
	/* A closed standard output is an error value (EPIPE), not a signal. */
	signal(SIGPIPE, SIG_IGN);
	wperf_bt_handle_sigint();
	rc = report(&a, inputs, a.n_traces, focus ? pid : NULL, &bt, params);
	wperf_bt_unload(&bt);
end:
	wperf_bt_set_timeout(0, "");
	rc = place_finish(rc);
	free_traces();
	bt_value_put_ref(params);
	for (size_t i = 0; i < a.n_traces; i++)
		free(snapshots[i]);
	free(plugins);
	return rc;
}
