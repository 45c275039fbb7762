/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/record.c — `wperf record`: record a program's kernel and
 * LTTng-UST events into one directory (wperf(1)). Its options are a
 * table read by options.c, as every subcommand's are.
 *
 * A plain recording, in order:
 *  - checks that cost nothing first (options, DIR, the command, root),
 *    then DIR made (output.c) and the session daemon ensured (sessiond.c);
 *  - an LTTng session with the wperf profile (lttng.c, liblttng-ctl):
 *    the UST channel, and the kernel channel where lttng-modules answers;
 *    elsewhere the kernel events come from the tracefs recorder, a child
 *    of wperf running source.wperf.tracefs -> sink.ctf.fs (recorder.c);
 *  - DIR/.wperf/recording marks the recording as under way, the recorder
 *    is started and known to record, the session started, wperf.json
 *    saved, and the command run (command.c) until it exits, --duration,
 *    Ctrl-C, SIGTERM, the recorder's death or a full disk (--min-free);
 *  - teardown with the stop signals ignored: session destroyed (LTTng
 *    writes out what its buffers hold), recorder stopped last (the kernel
 *    trace spans the UST one), the mark removed, the session daemon
 *    stopped if a wperf started it and nothing else uses it.
 * What went wrong is said once, as the last line, after the teardown.
 *
 * `record --relay URL` is a plain recording whose LTTng session streams
 * to the lttng-relayd at URL (checked first: relay-url.h); DIR keeps the
 * rest. It needs LTTng's kernel tracer: with the tracefs recorder it is
 * refused before anything is recorded.
 *
 * `record --snapshot` starts the same way, then the flight recorder is
 * flight.c's; `record --stop` is `wperf stop` (stop.c).
 */
#include "wperf.h"
#include "command.h"
#include "flight.h"
#include "lttng.h"
#include "options.h"
#include "orphans.h"
#include "output.h"
#include "recorder.h"
#include "recording.h"
#include "relay-url.h"
#include "room.h"
#include "sessiond.h"
#include "waits.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

/* --min-free's largest value: 1 TiB, in MiB. */
#define WPERF_MAX_MIN_FREE_MB 1048576.0

/* ------------------------------------------------------------ options */

struct record_opts {
	const char *output, *plugin_path, *ust_events, *user, *trigger_on, *trigger_filter;
	const char *relay;      /* --relay URL: the trace streams there; NULL: into DIR */
	bool snapshot, stacks, stop, live;
	double duration;        /* NAN: none */
	double min_free;        /* MiB */
	long buffer_kb;
	char **command;         /* after --; NULL: none */
	const char *unexpected; /* a first positional not after -- */
};

enum { O_HELP, O_OUTPUT, O_SNAPSHOT, O_DURATION, O_BUFFER, O_PLUGIN_PATH, O_UST_EVENTS,
       O_STACKS, O_TRIGGER_ON, O_TRIGGER_FILTER, O_MIN_FREE, O_USER, O_STOP, O_RELAY, O_LIVE,
       N_OPTS };

static const struct wperf_option options[N_OPTS + 1] = {
	[O_HELP] = { "help", 'h', NULL, NULL },
	[O_OUTPUT] = { "output", 'o', "DIR", NULL },
	[O_SNAPSHOT] = { "snapshot", 0, NULL, NULL },
	[O_DURATION] = { "duration", 0, "SECONDS", NULL },
	[O_BUFFER] = { "buffer-size-kb", 0, "KB", NULL },
	[O_PLUGIN_PATH] = { "plugin-path", 0, "DIR", NULL },
	[O_UST_EVENTS] = { "ust-events", 0, "LIST", NULL },
	[O_STACKS] = { "stacks", 0, NULL, NULL },
	[O_TRIGGER_ON] = { "trigger-on", 0, "EVENT", NULL },
	[O_TRIGGER_FILTER] = { "trigger-filter", 0, "EXPR", NULL },
	[O_MIN_FREE] = { "min-free", 0, "MB", NULL },
	[O_USER] = { "user", 0, "USER", NULL },
	[O_STOP] = { "stop", 0, NULL, NULL },
	[O_RELAY] = { "relay", 0, "URL", NULL },
	[O_LIVE] = { "live", 0, NULL, NULL },
	{ NULL, 0, NULL, NULL },
};

static const char help[] =
"usage: wperf record [-h] [-o DIR] [--snapshot] [--duration SECONDS]\n"
"                    [--buffer-size-kb KB] [--plugin-path DIR]\n"
"                    [--ust-events LIST] [--stacks] [--trigger-on EVENT]\n"
"                    [--trigger-filter EXPR] [--min-free MB] [--user USER]\n"
"                    [--stop] [--relay URL [--live]]\n"
"                    ...\n"
"\n"
"Record kernel scheduler/interrupt/block events (LTTng's kernel tracer, or\n"
"source.wperf.tracefs where it is missing) and LTTng-UST events (wperf:*\n"
"annotations) into one directory that babeltrace2 reads as a whole. Without\n"
"COMMAND, records until Ctrl-C (or --duration).\n"
"\n"
"positional arguments:\n"
"  -- COMMAND            the program to record, after --\n"
"\n"
"options:\n"
"  -h, --help            show this help message and exit\n"
"  -o DIR, --output DIR  output directory; must not exist or be empty (default:\n"
"                        wperf-YYYYMMDD-HHMMSS)\n"
"  --snapshot            start a flight recorder (overwrite buffers) and\n"
"                        return; save what it holds with `wperf snapshot DIR`\n"
"  --duration SECONDS    stop recording after SECONDS (the command keeps\n"
"                        running)\n"
"  --buffer-size-kb KB   ring buffer size per CPU of each channel (default\n"
"                        4096)\n"
"  --plugin-path DIR     directory of babeltrace-plugin-wperf.so (default:\n"
"                        $WPERF_PLUGIN_PATH, the build tree's, or the system's)\n"
"  --ust-events LIST     UST events to record, comma-separated (default:\n"
"                        wperf:*)\n"
"  --stacks              also record where each wait began: the kernel stack of\n"
"                        every thread that switches out (LTTng: the callstack-\n"
"                        kernel and callstack-user contexts); reports then show\n"
"                        the heaviest stacks of each edge, and merge=\"stack\"\n"
"                        works\n"
"  --trigger-on EVENT    with --snapshot: take a snapshot whenever the\n"
"                        application emits UST event EVENT (an LTTng trigger)\n"
"  --trigger-filter EXPR\n"
"                        LTTng filter expression on EVENT's fields, e.g. 'name\n"
"                        == \"req\"'\n"
"  --min-free MB         stop recording when the output's file system has less\n"
"                        than MB MiB free, plus one ring buffer per CPU\n"
"                        (default 64)\n"
"  --user USER           run COMMAND as USER (name or uid), the tracer staying\n"
"                        root, and let USER read the trace; default: the user\n"
"                        who ran sudo (SUDO_USER), else root\n"
"  --stop                stop the flight recorder of -o DIR (same as wperf stop\n"
"                        DIR)\n"
"  --relay URL           stream the trace to the lttng-relayd at URL\n"
"                        (net://HOST[:CONTROL_PORT[:DATA_PORT]], or\n"
"                        net6://[ADDRESS]...) instead of writing it into DIR,\n"
"                        which keeps command.pid and wperf.json; needs LTTng's\n"
"                        kernel tracer (lttng-modules)\n"
"  --live                with --relay: a live session, which viewers read from\n"
"                        the relay daemon while it records\n";

/* Store option o (its value, NULL for a flag); false after the usage
 * error. */
static bool set_option(const struct wperf_options *p, struct record_opts *ro, int o,
		       const char *value)
{
	const char **string[N_OPTS] = {
		[O_OUTPUT] = &ro->output, [O_PLUGIN_PATH] = &ro->plugin_path,
		[O_UST_EVENTS] = &ro->ust_events, [O_USER] = &ro->user,
		[O_TRIGGER_ON] = &ro->trigger_on, [O_TRIGGER_FILTER] = &ro->trigger_filter,
		[O_RELAY] = &ro->relay,
	};
	bool *flag[N_OPTS] = {
		[O_SNAPSHOT] = &ro->snapshot, [O_STACKS] = &ro->stacks, [O_STOP] = &ro->stop,
		[O_LIVE] = &ro->live,
	};

	if (o == O_DURATION)
		return wperf_option_float(p, o, value, &ro->duration);
	if (o == O_MIN_FREE)
		return wperf_option_float(p, o, value, &ro->min_free);
	if (o == O_BUFFER)
		return wperf_option_int(p, o, value, &ro->buffer_kb);
	if (string[o])
		*string[o] = value;
	if (flag[o])
		*flag[o] = true;
	return true;
}

/* Parse argv (argv[0] is "record"): -1 to go on, else the exit status
 * (after the help, or a usage error). */
static int parse_args(int argc, char **argv, struct record_opts *ro)
{
	struct wperf_options p;
	const char *value;
	int o;

	memset(ro, 0, sizeof(*ro));
	ro->duration = NAN;
	ro->min_free = 64;
	ro->buffer_kb = 4096;
	ro->ust_events = "wperf:*";
	wperf_options_init(&p, "record", options, argc, argv);
	p.stop_at_dashdash = true;      /* after --: the command */
	p.max_positional = -1;          /* one, said below */
	while ((o = wperf_options_next(&p, &value)) != WPERF_OPT_END) {
		if (o == WPERF_OPT_ERROR)
			return WPERF_EXIT_FAIL;
		if (o == WPERF_OPT_HELP) {
			fputs(help, stdout);
			return WPERF_EXIT_OK;
		}
		if (o == WPERF_OPT_DASHDASH) {
			ro->command = p.next < argc ? argv + p.next : NULL;
			break;
		}
		if (o == WPERF_OPT_POSITIONAL) {
			/* argparse's REMAINDER took the rest: the command,
			 * put where it is not read as one. */
			ro->unexpected = value;
			break;
		}
		if (!set_option(&p, ro, o, value))
			return WPERF_EXIT_FAIL;
	}
	if (ro->unexpected)
		return wperf_fail("wperf record: unexpected `%s`: put the command after -- "
				  "(wperf record -o DIR -- COMMAND)", ro->unexpected);
	return -1;
}

/* --relay and --live; false after saying why. */
static bool check_relay(const struct record_opts *ro)
{
	char why[512];

	if (ro->live && !ro->relay)
		return !wperf_fail("--live needs --relay URL (the lttng-relayd that serves the "
				   "live session to its viewers)");
	if (!ro->relay)
		return true;
	if (ro->snapshot)
		return !wperf_fail("--relay is for a plain recording, not --snapshot (a flight "
				   "recorder's snapshots are written into DIR)");
	if (!wperf_relay_url_check(ro->relay, why, sizeof(why)))
		return !wperf_fail("%s", why);
	return true;
}

/* The checks of the options' values; false after saying why. */
static bool check_opts(const struct record_opts *ro)
{
	const char *why = NULL;

	if (ro->min_free < 0 || ro->min_free > WPERF_MAX_MIN_FREE_MB)
		why = "--min-free must be from 0 to 1048576 (MiB)";
	else if (!isnan(ro->duration) && (ro->duration <= 0 || ro->duration > WPERF_MAX_SECONDS))
		why = "--duration must be greater than zero and at most 1000000000 (seconds)";
	else if (ro->stacks && ro->snapshot)
		why = "--stacks is for a plain recording, not --snapshot (the flight recorder "
		      "keeps its buffers small)";
	else if (ro->trigger_on && !ro->snapshot)
		why = "--trigger-on needs --snapshot (a trigger takes a snapshot of the flight "
		      "recorder)";
	else if (ro->trigger_filter && !ro->trigger_on)
		why = "--trigger-filter needs --trigger-on EVENT (it says which EVENTs take a "
		      "snapshot)";
	else if (ro->buffer_kb < 4 || ro->buffer_kb > 1048576)
		why = "--buffer-size-kb must be between 4 and 1048576";
	if (why)
		wperf_fail("%s", why);
	return !why && check_relay(ro);
}

/* ------------------------------------------------------------ the recording */

struct recording {
	const struct record_opts *opts;
	struct wperf_dir dir;           /* DIR, held (safe-dir.h) */
	const char *out;                /* DIR's real path, for messages and wperf.json */
	const char *at;                 /* DIR's /proc name, for every file operation */
	bool existed;                   /* DIR was there before */
	struct wperf_user user;
	struct wperf_state state;
	char session[128], tracefs[PATH_MAX];
	struct wperf_recorder recorder;
	bool recorder_started;
	struct wperf_room room;
	bool disk_full;                 /* stopped for want of room (why says it) */
	bool failed;                    /* why says it (empty: said already) */
	bool interrupted;               /* a stop signal ended the start-up */
	bool unstarted;                 /* the start failed: the command never ran */
	char why[2048];
};

/* wperf-<DIR's name, 40 characters of [A-Za-z0-9_-]>-<pid> */
static void session_name(const char *out, char *name, size_t len)
{
	const char *base = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	char clean[41];
	size_t n = 0;

	for (; base[n] && n < 40; n++) {
		char c = base[n];

		clean[n] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			   (c >= '0' && c <= '9') || c == '_' || c == '-' ? c : '-';
	}
	clean[n] = '\0';
	snprintf(name, len, "wperf-%s-%ld", clean, (long)getpid());
}

/* Which kernel tracer records: LTTng's, else tracefs (mounted if need
 * be); false after saying why neither can. */
static bool choose_kernel_tracer(struct recording *r)
{
	bool lttng = wperf_lttng_kernel_available();

	r->state.kernel = lttng ? "lttng" : "tracefs";
	if (lttng)
		return true;
	/* The tracefs recorder writes DIR/kernel itself: nothing it could
	 * stream, and a relay daemon with only the UST half is no trace. */
	if (r->opts->relay)
		return !wperf_fail("--relay needs LTTng's kernel tracer, and lttng-modules does "
				   "not answer here (kernel events would come from tracefs, which "
				   "writes only into DIR): install lttng-modules (lttng-sessiond "
				   "loads it when it starts), or record without --relay and copy "
				   "DIR");
	if (!(r->state.tracefs = wperf_tracefs_dir(r->tracefs, sizeof(r->tracefs))))
		return !wperf_fail("tracefs is not mounted and could not be mounted (mount -t "
				   "tracefs nodev /sys/kernel/tracing)");
	return true;
}

/* The session daemon, and which kernel tracer records; false after saying
 * why (DIR then discarded: nothing was recorded). */
static bool choose_tracers(struct recording *r)
{
	char private_dir[PATH_MAX];

	snprintf(private_dir, sizeof(private_dir), "%s/" WPERF_PRIVATE, r->at);
	if ((r->state.sessiond_started = wperf_ensure_sessiond(private_dir)) < 0) {
		wperf_output_discard(&r->dir, r->existed);
		return false;
	}
	if (!r->state.sessiond_started)
		r->state.sessiond_started = -1;         /* one was running: null */
	wperf_sweep_orphaned_sessions();
	wperf_sweep_orphaned_triggers();
	if (!choose_kernel_tracer(r)) {
		wperf_stop_sessiond_if_ours();
		wperf_output_discard(&r->dir, r->existed);
		return false;
	}
	session_name(r->out, r->session, sizeof(r->session));
	r->state.session = r->session;
	return true;
}

/* DIR/.wperf/recording: a recording is under way, until close_recording().
 * A recording whose wperf was killed keeps it, and `wperf report` says it
 * was cut short. */
static bool mark_recording(struct recording *r)
{
	char path[PATH_MAX];
	struct timeval tv;
	FILE *f;

	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/recording", r->at);
	gettimeofday(&tv, NULL);
	if (!(f = wperf_private_file(path)) ||
	    fprintf(f, "{\"pid\": %ld, \"started\": %ld.%06ld}\n", (long)getpid(),
		    (long)tv.tv_sec, (long)tv.tv_usec) < 0 || fclose(f) != 0) {
		snprintf(r->why, sizeof(r->why), "cannot write %.1900s: %s", path, strerror(errno));
		return false;
	}
	return true;
}

static void close_recording(const struct recording *r)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/recording", r->at);
	unlink(path);
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Checked about every 50 ms while the command runs: the recorder alive,
 * room on the disk. Short of room, the recorder stops tracing at once
 * and gets the reserve for what its buffers hold (room.h). */
static bool still_recording(void *arg)
{
	struct recording *r = arg;
	char said[1024];

	if (r->recorder_started && !wperf_recorder_alive(&r->recorder, r->why, sizeof(r->why))) {
		/* It met the full disk first and spent its reserve (room-draw.h). */
		if (r->recorder.out_of_room) {
			r->disk_full = true;
			snprintf(r->why, sizeof(r->why), "%s", r->recorder.why);
		}
		return false;
	}
	if (wperf_room_ok(&r->room, said, sizeof(said)))
		return true;
	if (r->recorder_started)
		wperf_recorder_interrupt(&r->recorder);
	wperf_room_release(&r->room);
	r->disk_full = true;
	snprintf(r->why, sizeof(r->why), "recording stopped before the disk was full: %s",
		 said);
	return false;
}

/* A stop signal during the start-up: true after noting it. */
static bool stopped(struct recording *r)
{
	if (!wperf_stop_signal_take())
		return false;
	r->interrupted = true;
	return true;
}

/* Start recording; false with r->why set (or r->interrupted). */
static bool start(struct recording *r)
{
	const struct record_opts *ro = r->opts;
	int ready;

	if (!wperf_room_prepare(&r->room, r->why, sizeof(r->why)) || !mark_recording(r) ||
	    stopped(r))
		return false;
	if (!strcmp(r->state.kernel, "tracefs")) {
		/* /proc/self: the recorder child outlives a killed wperf. */
		if (!wperf_recorder_start(&r->recorder, r->state.plugin_path, r->dir.at, r->out,
					  wperf_room_share_with_recorder(&r->room), r->session,
					  (unsigned)ro->buffer_kb, ro->stacks, r->why, sizeof(r->why)))
			return false;
		r->recorder_started = true;
		ready = wperf_recorder_wait_ready(&r->recorder, 60, r->why, sizeof(r->why));
		if (ready <= 0) {
			r->interrupted = ready < 0;
			return false;
		}
	}
	/* With LTTng's kernel tracer, the start returning is the ready
	 * signal: the session daemon answers once the kernel session is
	 * started and every CPU sees it (lttng-sessiond's cmd_start_trace). */
	if (wperf_lttng_start(r->session, r->why, sizeof(r->why)) < 0 ||
	    !wperf_state_save(r->at, &r->state) || stopped(r))
		return false;
	if (ro->relay)
		wperf_say("recording to lttng-relayd at %s%s (kernel events: lttng); %s keeps "
			  "command.pid and wperf.json", ro->relay, ro->live ? ", live" : "", r->out);
	else
		wperf_say("recording into %s (kernel events: %s)", r->out, r->state.kernel);
	return true;
}

/* The session could not be stopped: whether because it is gone, its
 * session daemon killed or restarted by someone else while recording
 * (not wedged: that is said as such). The kernel trace of the tracefs
 * recorder is whole then, said in a warning (true); LTTng's kernel trace
 * ends there, said in r->why (false). false also when it is not gone. */
static bool session_lost(struct recording *r)
{
	char daemon[96] = "";

	if (wperf_ctl_wedged() || wperf_ctl_interrupted() ||
	    wperf_lttng_session_exists(r->session) || wperf_ctl_wedged())
		return false;
	if (r->state.sessiond_started > 0)
		snprintf(daemon, sizeof(daemon), " (pid %ld, started by this wperf)",
			 r->state.sessiond_started);
	if (strcmp(r->state.kernel, "tracefs")) {
		snprintf(r->why, sizeof(r->why), "lttng-sessiond%s was killed or restarted while "
			 "recording: LTTng session %s is gone, and the trace (LTTng's kernel "
			 "tracer) ends where it went away, if it is readable at all: record again",
			 daemon, r->session);
		return false;
	}
	wperf_say("warning: lttng-sessiond%s was killed or restarted while recording: LTTng "
		  "session %s is gone; the kernel trace (tracefs) is whole, the UST events "
		  "(annotations) end where the daemon went away", daemon, r->session);
	r->why[0] = '\0';
	return true;
}

/* Record until the command ends (or the recording is stopped): its
 * status, r->failed when the recording went wrong. */
static int run(struct recording *r)
{
	const struct record_opts *ro = r->opts;
	double deadline = 0;
	int status;

	if (!start(r)) {
		r->failed = r->unstarted = true;
		return WPERF_EXIT_FAIL;
	}
	if (!isnan(ro->duration))
		deadline = monotonic() + ro->duration;
	status = wperf_command_run(ro->command, r->at, deadline, r->state.user,
				   still_recording, r, &r->failed);
	if (!r->failed && wperf_lttng_stop(r->session, r->why, sizeof(r->why)) < 0)
		r->failed = !session_lost(r);
	return status;
}

/* The recording failed: r->why, and DIR/.wperf/recording keeps it, so
 * that `wperf report` says what happened rather than blame a kill. */
static void fail_recording(struct recording *r, const char *fmt, const char *why)
{
	char path[PATH_MAX], said[sizeof(r->why)];
	struct timeval tv;
	FILE *f;

	snprintf(said, sizeof(said), "%s", r->why);
	if (!r->failed || r->disk_full)
		snprintf(r->why, sizeof(r->why), fmt, said, why);
	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/recording", r->at);
	gettimeofday(&tv, NULL);
	if ((f = wperf_private_file(path))) {
		fprintf(f, "{\"pid\": %ld, \"ended\": %ld.%06ld, \"failed\": ", (long)getpid(),
			(long)tv.tv_sec, (long)tv.tv_usec);
		wperf_json_put_string(f, r->why);
		fputs("}\n", f);
		fclose(f);
	}
}

/* Tear down, the stop signals ignored; false when the recorder failed
 * (said in r->why, unless the recording had failed already). */
static bool teardown(struct recording *r)
{
	char why[1024];
	bool closed = true;

	wperf_stop_signals_ignore();
	/* Short of room now: the recorder stops tracing before the session's
	 * buffers are written out, not after. Either way, what the buffers
	 * hold goes into the reserve. */
	if (r->recorder_started && !wperf_room_ok(&r->room, why, sizeof(why)))
		wperf_recorder_interrupt(&r->recorder);
	wperf_room_release(&r->room);
	if (wperf_lttng_destroy_session(r->session) < 0 && wperf_ctl_wedged())
		wperf_say("its LTTng session %s stays in lttng-sessiond, which does not "
			  "answer: once it does, end it with lttng destroy %s", r->session,
			  r->session);
	if (r->recorder_started)                    /* last: the kernel trace spans the UST one */
		closed = wperf_recorder_stop(&r->recorder, why, sizeof(why));
	if (closed)
		close_recording(r);
	else if (r->recorder.out_of_room && !strcmp(r->why, r->recorder.why))
		fail_recording(r, "%s: the kernel trace was lost; free some space there or record "
			       "elsewhere with -o, and record again%.0s", why);
	else if (r->disk_full)
		fail_recording(r, "%s; but the kernel trace was lost: %s", why);
	else if (!r->interrupted)
		fail_recording(r, "%.0s%s", why);
	if (closed && r->disk_full) {
		char said[sizeof(r->why)];

		snprintf(said, sizeof(said), "%s", r->why);
		snprintf(r->why, sizeof(r->why), "%.1800s; the trace so far is readable (wperf "
			 "report %s), the command keeps running", said, r->out);
	}
	wperf_stop_sessiond_if_ours();
	return closed;
}

/* The last lines of a streamed recording: where the relay daemon wrote
 * the trace (lttng-relayd(8): HOSTNAME/SESSION-DATE below its output
 * directory), and, live, where a viewer reads it. */
static bool say_relayed(const struct recording *r)
{
	const char *url = r->opts->relay;
	char host[WPERF_RELAY_URL_MAX];
	struct utsname me;

	if (uname(&me) < 0)
		snprintf(me.nodename, sizeof(me.nodename), "HOSTNAME");
	if (r->opts->live) {
		wperf_relay_url_host(url, host, sizeof(host));
		wperf_say("live: babeltrace2 --input-format=lttng-live net://%s%s%s/host/%s/%s",
			  strchr(host, ':') ? "[" : "", host, strchr(host, ':') ? "]" : "",
			  me.nodename, r->session);
	}
	wperf_say("trace streamed to lttng-relayd at %s: %s/%s-* below its output directory "
		  "(lttng-relayd -o; default ~/lttng-traces), to read with wperf report there",
		  url, me.nodename, r->session);
	return true;
}

/* A command that failed, before the last line: wperf passes its status
 * on (status), which alone would read as wperf's own failure. */
static void say_command_ending(int status)
{
	char how[512];

	if (wperf_command_ending(how, sizeof(how)))
		wperf_say("%s (wperf exits %d)", how, status);
}

/* The last line: where the trace is. DIR moved while recording (the
 * recorded command can rename it: its parent may be the user's) is
 * named where it is now; a DIR no path leads to any more is said so.
 * status: what wperf exits with when the trace is there. */
static bool say_where(const struct recording *r, int status)
{
	char where[PATH_MAX];

	if (r->opts->relay) {
		say_command_ending(status);
		return say_relayed(r);
	}

	if (!wperf_dir_where(&r->dir, where, sizeof(where)))
		return wperf_fail("the output directory %s was removed or replaced while "
				  "recording (by the recorded command?), and no path leads to its "
				  "trace any more: record again", r->out) == 0;
	if (strcmp(where, r->out))
		wperf_say("warning: the output directory %s was moved to %s while recording "
			  "(by the recorded command?); %s is not the trace", r->out, where, r->out);
	say_command_ending(status);
	wperf_say("trace in %s: wperf report %s", where, where);
	return true;
}

/* The session of a plain recording: into DIR, or streamed (--relay). */
static enum wperf_session_kind session_kind(const struct record_opts *ro)
{
	if (!ro->relay)
		return WPERF_SESSION_RECORD;
	return ro->live ? WPERF_SESSION_LIVE : WPERF_SESSION_RELAY;
}

/* A stop signal ended the start-up, or it failed (no room, a recorder or
 * session that would not start): the command never ran, and nothing
 * of what was made is a recording (a kernel trace begun, LTTng's ust/,
 * wperf.json, .wperf/). All of it goes, and DIR too when this wperf made
 * it, as when the start is interrupted before the session exists: an
 * interrupted start leaves nothing behind. Everything in DIR is this
 * wperf's (DIR was empty, and no other user can write in it), and the
 * recorder and the session are gone by now (teardown()). */
static void discard_unstarted(struct recording *r)
{
	static const char *const made[] = { "kernel", "ust", WPERF_STATE };

	for (size_t i = 0; i < sizeof(made) / sizeof(made[0]); i++)
		wperf_remove_tree_at(r->dir.fd, made[i]);
	wperf_output_discard(&r->dir, r->existed);
}

static int record_once(struct recording *r)
{
	const struct record_opts *ro = r->opts;
	int status, rc;

	r->state.mode = "record";
	rc = wperf_lttng_create_session(r->session, session_kind(ro),
					ro->relay ? ro->relay : r->at,
					!strcmp(r->state.kernel, "lttng"), ro->ust_events,
					(unsigned)ro->buffer_kb, ro->stacks, r->why, sizeof(r->why));
	if (rc < 0) {
		wperf_stop_sessiond_if_ours();
		wperf_output_discard(&r->dir, r->existed);
		if (wperf_ctl_interrupted()) {
			wperf_say("interrupted");
			return wperf_interrupted_status();
		}
		if (ro->relay)
			return wperf_fail("%s: is lttng-relayd running at %s, its ports (5342 and "
					  "5343 unless the URL names others) open to this machine?",
					  r->why, ro->relay);
		return wperf_fail("%s", r->why);
	}
	wperf_room_init(&r->room, r->at, r->out, ro->min_free, ro->buffer_kb);
	status = run(r);
	if (!teardown(r) || r->failed || r->interrupted) {
		if (r->interrupted || wperf_ctl_interrupted()) {
			if (r->interrupted)
				discard_unstarted(r);
			wperf_say("interrupted");
			return wperf_interrupted_status();
		}
		if (r->unstarted)
			discard_unstarted(r);
		return r->why[0] ? wperf_fail("%s", r->why) : WPERF_EXIT_FAIL;
	}
	if (r->state.user)
		wperf_share_with_user(r->dir.fd, ".", r->out, r->user.name, r->user.gid);
	return say_where(r, status) ? status : WPERF_EXIT_FAIL;
}

/* `wperf record --snapshot`: flight.c's, from the same start. */
static int flight(struct recording *r)
{
	const struct record_opts *ro = r->opts;
	struct wperf_flight_options opt = {
		.ust_events = ro->ust_events, .buffer_kb = (unsigned)ro->buffer_kb,
		.trigger_on = ro->trigger_on, .trigger_filter = ro->trigger_filter,
	};

	return wperf_flight_start(&r->dir, &r->state, &opt, ro->command);
}

/* `wperf record` (and --snapshot) without --stop. */
static int record(const struct record_opts *ro)
{
	struct recording r = { .opts = ro };
	char name[64], *plugins;
	const char *out = ro->output;
	int rc = WPERF_EXIT_FAIL, as_user = 0;

	if (!out) {
		time_t t = time(NULL);
		struct tm tm;

		strftime(name, sizeof(name), "wperf-%Y%m%d-%H%M%S", localtime_r(&t, &tm));
		out = name;
	}
	if (!wperf_output_check(out) || !wperf_command_check(ro->command))
		return WPERF_EXIT_FAIL;
	if (!wperf_on_path("lttng-sessiond"))
		return wperf_fail("lttng-sessiond is missing: install it (apt-get install "
				  "lttng-tools)");
	if (geteuid() != 0)
		return wperf_fail("recording kernel events needs root: run it with sudo (sudo "
				  "wperf record ...)");
	if (!(plugins = wperf_plugin_dir(ro->plugin_path)))
		return WPERF_EXIT_FAIL;
	as_user = ro->command ? wperf_command_user(ro->user, &r.user) :
		  wperf_sudo_user(ro->user, &r.user);
	if (as_user < 0)
		goto end;
	r.state = (struct wperf_state){
		.command = ro->command, .plugin_path = plugins, .snapshots = 0,
		.user = as_user > 0 && ro->command ? &r.user : NULL, .watcher = -1,
	};
	/* DIR's missing parents are the user's, as their mkdir -p's would be. */
	if (!wperf_output_prepare(out, as_user > 0 ? &r.user : NULL, &r.existed, &r.dir))
		goto end;
	r.out = r.state.output = r.dir.shown;
	r.state.relay = ro->relay;
	r.state.live = ro->live;
	r.at = r.dir.pid_at;
	if (choose_tracers(&r))
		rc = ro->snapshot ? flight(&r) : record_once(&r);
	else if (wperf_ctl_interrupted())
		rc = wperf_interrupted_status();
	wperf_dir_close(&r.dir);
end:
	free(plugins);
	return rc;
}

int wperf_cmd_record(int argc, char **argv)
{
	struct record_opts ro;
	int rc = parse_args(argc, argv, &ro);

	if (rc >= 0)
		return rc;
	/* Ctrl-C and `kill` stop a recording cleanly, even when started as
	 * a background job (`wperf record ... &`), where SIGINT comes
	 * ignored. */
	wperf_stop_signals_catch();
	if (ro.stop) {
		char *stop_argv[] = { "stop", (char *)ro.output, NULL };

		if (!ro.output)
			return wperf_fail("--stop needs -o DIR, the flight recorder's directory");
		return wperf_cmd_stop(2, stop_argv);
	}
	if (!check_opts(&ro))
		return WPERF_EXIT_FAIL;
	return record(&ro);
}
