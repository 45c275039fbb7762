/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/top.c — `wperf top`: watch the running system, a knot
 * report of the period just ended and of the run so far at every
 * --every (wperf(1)). sink.wperf.knots does the reporting (its every=
 * parameter); this command chooses and feeds its source:
 *
 *  - LTTng's kernel tracer answers: a live session read by
 *    source.ctf.lttng-live (top-live.c);
 *  - otherwise ftrace, through source.wperf.tracefs (this file), whose
 *    duration= ends the trace cleanly.
 *
 * This file also owns the options (their table; options.c reads them).
 * The process that runs the graph is top-viewer.c's.
 */
#include "wperf.h"
#include "as-user.h"
#include "bt-failure.h"
#include "bt-graph.h"
#include "bt-params.h"
#include "command.h"
#include "dir-names.h"
#include "lttng.h"
#include "options.h"
#include "orphans.h"
#include "output.h"
#include "recorder.h"
#include "sessiond.h"
#include "top.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ options */

static const char help_text[] =
"usage: wperf top [-h] [--every DURATION] [--duration SECONDS]\n"
"                 [--format {text,json}] [--output FILE] [--pids LIST]\n"
"                 [--comms LIST] [--threshold T] [--min-weight W]\n"
"                 [--params STR] [--buffer-size-kb KB] [--plugin-path DIR]\n"
"                 [--relay URL --hosts HOST[/SESSION],...]\n"
"\n"
"Watch the running system: an LTTng live session (lttng-relayd, `lttng create\n"
"--live`, the wperf profile's events) read by babeltrace2's lttng-live source\n"
"into sink.wperf.knots with every=: at each period, the knots of the period\n"
"just ended and of the whole run so far. Ctrl-C (or --duration) destroys the\n"
"session; the final report follows. Without lttng-modules, ftrace through\n"
"source.wperf.tracefs. The graph runs inside wperf (libbabeltrace2).\n"
"\n"
"options:\n"
"  -h, --help            show this help message and exit\n"
"  --every DURATION      report period (\"5s\", \"500ms\", seconds; default 5s)\n"
"  --duration SECONDS    stop after SECONDS (default: until Ctrl-C)\n"
"  --format {text,json}  text (default) or json: one object per line\n"
"  --output FILE         write the reports to FILE as they come (default:\n"
"                        standard output)\n"
"  --pids LIST           focus: pids or tids, comma-separated\n"
"  --comms LIST          focus: thread or process names, comma-separated\n"
"  --threshold T         refinement threshold (\"20%\", \"250ms\")\n"
"  --min-weight W        noise floor (\"1%\", \"5ms\")\n"
"  --params STR          more sink parameters, in babeltrace2's --params syntax\n"
"  --buffer-size-kb KB   ring buffer size per CPU of each channel (default\n"
"                        4096)\n"
"  --plugin-path DIR     directory of babeltrace-plugin-wperf.so\n"
"  --relay URL           watch other machines instead: the live sessions they\n"
"                        stream to the lttng-relayd at URL (net://HOST[:PORT],\n"
"                        its live port, default 5344), one graph across them\n"
"  --hosts LIST          with --relay: the hosts to watch (their hostnames,\n"
"                        HOST/SESSION to choose a session); their clocks are\n"
"                        synchronised from the TCP segments matched so far\n";

enum { O_EVERY, O_DURATION, O_FORMAT, O_OUTPUT, O_PIDS, O_COMMS, O_THRESHOLD,
       O_MIN_WEIGHT, O_PARAMS, O_BUFFER, O_PLUGIN_PATH, O_RELAY, O_HOSTS, O_HELP, N_OPTS };

static const struct wperf_option options[N_OPTS + 1] = {
	[O_EVERY] = { "every", 0, "DURATION", NULL },
	[O_DURATION] = { "duration", 0, "SECONDS", NULL },
	[O_FORMAT] = { "format", 0, "{text,json}", NULL },
	[O_OUTPUT] = { "output", 0, "FILE", NULL },
	[O_PIDS] = { "pids", 0, "LIST", NULL },
	[O_COMMS] = { "comms", 0, "LIST", NULL },
	[O_THRESHOLD] = { "threshold", 0, "T", NULL },
	[O_MIN_WEIGHT] = { "min-weight", 0, "W", NULL },
	[O_PARAMS] = { "params", 0, "STR", NULL },
	[O_BUFFER] = { "buffer-size-kb", 0, "KB", NULL },
	[O_PLUGIN_PATH] = { "plugin-path", 0, "DIR", NULL },
	[O_RELAY] = { "relay", 0, "URL", NULL },
	[O_HOSTS] = { "hosts", 0, "LIST", NULL },
	[O_HELP] = { "help", 'h', NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const char *const formats[] = { "text", "json", NULL };

/* Store the value of option o; false after the usage error. */
static bool set_option(const struct wperf_options *p, struct top_args *a, int o,
		       const char *v)
{
	const char **field[N_OPTS] = {
		[O_EVERY] = &a->every, [O_FORMAT] = &a->format, [O_OUTPUT] = &a->output,
		[O_PIDS] = &a->pids, [O_COMMS] = &a->comms, [O_THRESHOLD] = &a->threshold,
		[O_MIN_WEIGHT] = &a->min_weight, [O_PARAMS] = &a->params,
		[O_PLUGIN_PATH] = &a->plugin_path, [O_RELAY] = &a->relay, [O_HOSTS] = &a->hosts,
	};

	if (o == O_DURATION)
		return wperf_option_float(p, o, v, &a->duration);
	if (o == O_BUFFER)
		return wperf_option_int(p, o, v, &a->buffer_kb);
	if (o == O_FORMAT && !wperf_option_choice(p, o, v, formats))
		return false;
	if (field[o])
		*field[o] = v;
	return true;
}

/* Parse argv (argv[0] is "top"): 0, or WPERF_EXIT_FAIL after saying why. */
static int parse_args(int argc, char **argv, struct top_args *a, bool *has_duration)
{
	struct wperf_options p;
	const char *value;
	int o;

	memset(a, 0, sizeof(*a));
	a->every = "5s";
	a->buffer_kb = 4096;
	*has_duration = false;
	wperf_options_init(&p, "top", options, argc, argv);   /* no positional */
	while ((o = wperf_options_next(&p, &value)) != WPERF_OPT_END) {
		if (o == WPERF_OPT_ERROR)
			return WPERF_EXIT_FAIL;
		if (o == WPERF_OPT_HELP) {
			a->help = true;
			return 0;
		}
		if (!set_option(&p, a, o, value))
			return WPERF_EXIT_FAIL;
		*has_duration |= o == O_DURATION;
	}
	return 0;
}

/* --every, checked before any daemon starts (the sink would refuse it
 * only once the live session runs): a duration as sink.wperf.knots reads
 * it (plugin/common/params.c: a number, an optional unit, seconds
 * without), of at least 1 ms. */
static bool check_every(const char *text)
{
	static const struct { const char *unit; double ns; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "min", 60e9 }, { "s", 1e9 },
		{ "m", 60e9 }, { "h", 3600e9 }, { "", 1e9 },
	};
	static const char digits[] = "0123456789", blanks[] = " \t\n\r\f\v";
	const char *num = text + strspn(text, blanks), *p = num;
	size_t whole = strspn(p, digits), frac = 0;
	char buf[64];

	p += whole;
	if (*p == '.')
		p += 1 + (frac = strspn(p + 1, digits));
	if ((!whole && !frac) || (size_t)(p - num) >= sizeof(buf))
		goto bad;
	snprintf(buf, sizeof(buf), "%.*s", (int)(p - num), num);
	p += strspn(p, blanks);
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		size_t n = strlen(units[i].unit);

		if (strncmp(p, units[i].unit, n) || p[n + strspn(p + n, blanks)])
			continue;
		if (strtod(buf, NULL) * units[i].ns >= 1e6)
			return true;
		break;
	}
bad:
	wperf_fail("--every '%s': expected a duration of at least 1 ms, a number with ns, "
		   "us, ms, s, m, min or h (seconds without), e.g. 5s", text);
	return false;
}

/* The sink's parameters: every=, the options, then --params. NULL after
 * saying why. */
static bt_value *sink_params(const struct top_args *a)
{
	const char *keys[] = { "every", "format", "path", "pids", "comms", "threshold",
			       "min-weight" };
	const char *values[] = { a->every, a->format, a->output, a->pids, a->comms,
				 a->threshold, a->min_weight };
	bt_value *params = bt_value_map_create();
	char why[1024];

	for (size_t i = 0; params && i < sizeof(keys) / sizeof(keys[0]); i++)
		if (values[i] && bt_value_map_insert_string_entry(params, keys[i], values[i])) {
			bt_value_put_ref(params);
			params = NULL;
		}
	if (!params) {
		wperf_fail("out of memory");
		return NULL;
	}
	if (a->params && wperf_params_parse(a->params, params, why, sizeof(why))) {
		wperf_fail("--params: %s", why);
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

/* ------------------------------------------------------------ the ftrace path */

/* Without lttng-modules: source.wperf.tracefs reads ftrace's buffers as
 * they fill; its `duration` ends it cleanly. */
static int top_tracefs(const struct top_args *a, bool has_duration,
		       const struct wperf_bt *bt, const bt_value *sink)
{
	bt_value *source = bt_value_map_create();
	struct top_viewer v;
	char tracefs[PATH_MAX];
	bool stopped;
	int rc;

	if (!wperf_tracefs_dir(tracefs, sizeof(tracefs))) {
		bt_value_put_ref(source);
		return wperf_fail("tracefs is not mounted and could not be mounted "
				  "(mount -t tracefs nodev /sys/kernel/tracing)");
	}
	if (!source || (has_duration &&
			bt_value_map_insert_real_entry(source, "duration", a->duration))) {
		bt_value_put_ref(source);
		return wperf_fail("out of memory");
	}
	wperf_say("LTTng's kernel tracer is not available (lttng-modules not loaded): "
		  "watching through ftrace (source.wperf.tracefs); the final report at %s",
		  has_duration ? "the end of --duration or at Ctrl-C" : "Ctrl-C");
	if (!top_viewer_start(&v, bt, bt->wperf, "tracefs", source, sink)) {
		bt_value_put_ref(source);
		return WPERF_EXIT_FAIL;
	}
	bt_value_put_ref(source);
	stopped = top_viewer_wait(&v, 0);
	wperf_stop_signals_ignore();
	if (!stopped)
		return top_viewer_finish(&v, "--duration");
	/* The source takes the signal: it stops tracing and ends its
	 * trace, and the sink writes the final report. */
	kill(v.pid, SIGINT);
	rc = top_viewer_finish(&v, "Ctrl-C");
	return rc == WPERF_EXIT_OK ? wperf_interrupted_status() : rc;
}

/* ------------------------------------------------------------ the output */

/* --output FILE, for root: opened here, as the user who ran sudo
 * (as-user.h: `sudo wperf top > FILE` opens it as that user too), or
 * without sudo never through a link at its end, and handed to the sink
 * as its descriptor's name (/proc/self/fd/N, which the graph's process
 * inherits): the sink, as root, would follow a link the user put at
 * FILE and truncate what it leads to. Messages name FILE (dir-names.h).
 * Not root: the sink opens FILE, as the user. false after saying why. */
static bool open_output(struct top_args *a)
{
	static struct wperf_dir named = { .fd = -1 };
	const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC;
	struct wperf_user user;
	int as, fd;

	if (geteuid() != 0 || !a->output || !strcmp(a->output, "-") || !*a->output)
		return true;
	if ((as = wperf_sudo_user(NULL, &user)) < 0)
		return false;
	/* O_NONBLOCK: a FIFO without a reader is refused, not waited on. */
	fd = as > 0 ? wperf_open_as(a->output, flags, 0666, &user) :
	     open(a->output, flags | O_NOFOLLOW, 0666);
	if (fd < 0) {
		int e = errno;

		if (as > 0)
			wperf_fail("--output %s: cannot write it as %s (who ran sudo; wperf top "
				   "writes its reports where that user could): %s", a->output,
				   user.name, wperf_as_user_why(e));
		else
			wperf_fail("--output %s: cannot write it: %s", a->output,
				   e == ELOOP ? "it is a symbolic link (as root, wperf top follows "
				   "none: give the file itself)" :
				   e == ENXIO ? "a FIFO without a reader" : strerror(e));
		return false;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	named.fd = fd;
	snprintf(named.at, sizeof(named.at), "/proc/self/fd/%d", fd);
	snprintf(named.pid_at, sizeof(named.pid_at), "/proc/%ld/fd/%d", (long)getpid(), fd);
	snprintf(named.shown, sizeof(named.shown), "%s", a->output);
	wperf_dir_names_add(&named);
	a->output = named.at;
	return true;
}

/* ------------------------------------------------------------ the command */

/* The checks before anything starts; 0, or the exit status. */
static int check_args(const struct top_args *a, bool has_duration)
{
	if (!check_every(a->every))
		return WPERF_EXIT_FAIL;
	if (has_duration && !(a->duration > 0 && a->duration <= WPERF_MAX_SECONDS))
		return wperf_fail("--duration must be greater than zero and at most 1000000000 "
				  "(seconds)");
	if (a->buffer_kb < 4 || a->buffer_kb > 1048576)
		return wperf_fail("--buffer-size-kb must be between 4 and 1048576");
	if (!a->relay != !a->hosts)
		return wperf_fail(a->relay ? "--relay needs --hosts: the hosts whose live sessions "
				  "to watch (e.g. --hosts web1,db1)"
				  : "--hosts needs --relay URL: the lttng-relayd their live sessions "
				  "stream to");
	/* Reading a relay daemon's sessions traces nothing here. */
	if (a->relay)
		return 0;
	if (geteuid() != 0)
		return wperf_fail("watching kernel events needs root: run it with sudo "
				  "(sudo wperf top)");
	return 0;
}

/* LTTng or ftrace, in the work directory; the exit status. */
static int watch(const struct top_args *a, bool has_duration, const struct wperf_bt *bt,
		 const bt_value *sink, const char *work)
{
	char private_dir[4096];
	long sessiond;

	if (!wperf_on_path("lttng-relayd"))
		return top_tracefs(a, has_duration, bt, sink);
	snprintf(private_dir, sizeof(private_dir), "%s/.wperf", work);
	if ((sessiond = wperf_ensure_sessiond(private_dir)) < 0)
		return WPERF_EXIT_FAIL;
	wperf_sweep_orphaned_sessions();
	wperf_sweep_orphaned_triggers();
	if (wperf_stop_signal_take()) {
		if (sessiond > 0)
			wperf_stop_sessiond_if_ours();
		wperf_say("interrupted");
		return wperf_interrupted_status();
	}
	if (wperf_lttng_kernel_available())
		return top_lttng(a, bt, sink, work);
	/* Asked only whether the kernel tracer answers: ftrace needs no
	 * daemon, so this wperf is done with it now, whoever started it. Its
	 * hold as a user ends here (else a wperf started it, and the others
	 * ended while this one watched: each saw it as a user and left the
	 * daemon, and nothing stopped it after); the last user stops it. */
	wperf_stop_sessiond_if_ours();
	return top_tracefs(a, has_duration, bt, sink);
}

int wperf_cmd_top(int argc, char **argv)
{
	char work[64], private_dir[96], why[4096];
	struct top_args a;
	struct wperf_bt bt;
	bool has_duration;
	bt_value *sink = NULL;
	char *plugins = NULL;
	int rc;

	if ((rc = parse_args(argc, argv, &a, &has_duration)))
		return rc;
	if (a.help) {
		fputs(help_text, stdout);
		return WPERF_EXIT_OK;
	}
	wperf_stop_signals_catch();
	signal(SIGPIPE, SIG_IGN);
	if ((rc = check_args(&a, has_duration)))
		return rc;
	if (!open_output(&a))
		return WPERF_EXIT_FAIL;
	if (!(sink = sink_params(&a)) || !(plugins = wperf_plugin_dir(a.plugin_path)))
		goto fail;
	if (wperf_bt_load(&bt, plugins, why, sizeof(why))) {
		wperf_fail("%s", why);
		goto fail;
	}
	fwrite(bt.log, 1, bt.loglen, stderr);   /* as babeltrace2 would have */
	if (a.relay) {
		rc = top_relay(&a, &bt, sink);
		wperf_bt_unload(&bt);
		bt_value_put_ref(sink);
		free(plugins);
		return rc;
	}
	/* A private directory for the daemons' logs and the relay's trace,
	 * named after this pid: the next wperf top removes it if this one is
	 * killed (SIGKILL) before it does. */
	wperf_sweep_top_workdirs();
	wperf_top_workdir_template(work, sizeof(work));
	if (!mkdtemp(work)) {
		rc = wperf_fail("cannot create a work directory in /tmp: %s", strerror(errno));
	} else {
		snprintf(private_dir, sizeof(private_dir), "%s/.wperf", work);
		if (mkdir(private_dir, 0700))
			rc = wperf_fail("cannot create %s: %s", private_dir, strerror(errno));
		else
			rc = watch(&a, has_duration, &bt, sink, work);
		wperf_remove_tree(work);
	}
	wperf_bt_unload(&bt);
	bt_value_put_ref(sink);
	free(plugins);
	return rc;
fail:
	bt_value_put_ref(sink);
	free(plugins);
	return WPERF_EXIT_FAIL;
}
