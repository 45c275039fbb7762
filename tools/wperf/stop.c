/*
 * tools/wperf/stop.c — `wperf stop DIR`: stop the flight recorder of DIR
 * (wperf(1)). Its LTTng session is destroyed and its trigger removed
 * through liblttng-ctl (lttng.c), its trigger watcher ended, its ftrace
 * instance removed (flight.c), and the session daemon stopped when a
 * wperf started it and nothing else uses it (sessiond.c). The snapshots
 * stay. It always ends in a clean state: what is already gone is not an
 * error.
 *
 * DIR/wperf.json, which `wperf record --snapshot` wrote (output.c),
 * says what to stop; `running` is set to false in it first, in place, the
 * rest of the file as written.
 */
#include "wperf.h"
#include "flight.h"
#include "json.h"
#include "lttng.h"
#include "output.h"
#include "recording.h"
#include "sessiond.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What wperf.json says about a flight recorder. */
struct flight {
	char *text;             /* the whole file */
	char mode[64], running[16], session[256], instance[256], tracefs[PATH_MAX];
	char watcher[32], trigger[1024], user[4096], snapshots[32];
	struct json_want want[9];
};

/* Read DIR/wperf.json into f; false after saying why. */
static bool read_flight(const char *out, struct flight *f)
{
	char path[PATH_MAX];
	struct json_want want[] = {
		{ .key = "mode", .out = f->mode, .outlen = sizeof(f->mode) },
		{ .key = "running", .out = f->running, .outlen = sizeof(f->running) },
		{ .key = "session", .out = f->session, .outlen = sizeof(f->session) },
		{ .key = "instance", .out = f->instance, .outlen = sizeof(f->instance) },
		{ .key = "tracefs", .out = f->tracefs, .outlen = sizeof(f->tracefs) },
		{ .key = "watcher", .out = f->watcher, .outlen = sizeof(f->watcher) },
		{ .key = "trigger", .out = f->trigger, .outlen = sizeof(f->trigger) },
		{ .key = "user", .out = f->user, .outlen = sizeof(f->user) },
		{ .key = "snapshots", .out = f->snapshots, .outlen = sizeof(f->snapshots) },
	};

	snprintf(path, sizeof(path), "%s/" WPERF_STATE, out);
	free(f->text);
	if (!(f->text = wperf_read_text(path))) {
		if (errno == ENOENT)
			wperf_fail("%s was not written by `wperf record` (no " WPERF_STATE ")", out);
		else
			wperf_fail("cannot read %s: %s", path, strerror(errno));
		return false;
	}
	memcpy(f->want, want, sizeof(want));
	if (!wperf_json_members(f->text, f->want, 9)) {
		wperf_fail("cannot read %s: it is not a JSON object", path);
		return false;
	}
	return true;
}

/* A member that is a non-empty string (not null, not absent). */
static const char *str(const struct flight *f, int i)
{
	return f->want[i].found && f->want[i].is_string && f->want[i].out[0] ?
		f->want[i].out : NULL;
}

/* ------------------------------------------------------------ sharing */

/* Let the user the command ran as (wperf.json's `user`) read the
 * recording: output.c's wperf_share_with_user(). */
static void share_with_user(const char *dir, const char *user_json)
{
	char name[256] = "", gid[32] = "";
	struct json_want want[] = {
		{ .key = "name", .out = name, .outlen = sizeof(name) },
		{ .key = "gid", .out = gid, .outlen = sizeof(gid) },
	};
	char *end;
	gid_t g;

	if (!user_json[0] || !wperf_json_members(user_json, want, 2) || !want[1].found)
		return;
	g = (gid_t)strtoul(gid, &end, 10);
	if (*end)
		return;
	wperf_share_with_user(dir, name, g);
}

/* ------------------------------------------------------------ the command */

static void usage(void)
{
	printf("usage: wperf stop [-h] DIR\n\n"
	       "Stop the flight recorder of DIR: destroy its LTTng session and trigger, remove\n"
	       "its ftrace instance. Snapshots stay.\n\n"
	       "positional arguments:\n  DIR\n\noptions:\n"
	       "  -h, --help  show this help message and exit\n");
}

int wperf_cmd_stop(int argc, char **argv)
{
	struct flight f = { 0 };
	const char *dir = NULL, *trigger_json, *name;
	char trigger_name[256] = "", *out = NULL;
	struct json_want tw = { .key = "name", .out = trigger_name, .outlen = sizeof(trigger_name) };
	int rc = WPERF_EXIT_FAIL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			usage();
			return WPERF_EXIT_OK;
		}
		if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--"))
			return wperf_fail("wperf stop: unrecognized arguments: %s (see wperf stop "
					  "--help)", argv[i]);
		if (!strcmp(argv[i], "--") && i + 1 < argc)
			i++;
		if (dir)
			return wperf_fail("wperf stop: unrecognized arguments: %s (see wperf stop "
					  "--help)", argv[i]);
		dir = argv[i];
	}
	if (!dir)
		return wperf_fail("wperf stop: the following arguments are required: DIR "
				  "(see wperf stop --help)");
	if (!(out = realpath(dir, NULL)))
		out = strdup(dir);
	if (!out || !read_flight(out, &f))
		goto end;
	if (strcmp(f.mode, "flight-recorder")) {
		wperf_fail("%s is a recording, not a flight recorder (start one with wperf "
			   "record --snapshot -o DIR)", dir);
		goto end;
	}
	if (strcmp(f.running, "true")) {
		wperf_fail("the flight recorder of %s was stopped (start a new one with wperf "
			   "record --snapshot -o DIR)", dir);
		goto end;
	}
	if (geteuid() != 0 && str(&f, 3)) {
		wperf_fail("removing the ftrace instance needs root: run it with sudo");
		goto end;
	}
	if (!wperf_state_set(out, f.text, &f.want[1], "false"))
		goto end;
	/* Everything the flight recorder left running; what is gone is fine. */
	if (f.want[5].found && !f.want[5].is_string && strcmp(f.watcher, "null"))
		wperf_flight_stop_watcher(strtol(f.watcher, NULL, 10));
	trigger_json = f.want[6].found && f.trigger[0] == '{' ? f.trigger : NULL;
	if (trigger_json && wperf_json_members(trigger_json, &tw, 1) && trigger_name[0])
		wperf_lttng_remove_trigger(trigger_name);
	if ((name = str(&f, 2)))
		wperf_lttng_destroy_session(name);
	if (str(&f, 3) && !wperf_flight_remove_instance(str(&f, 4), str(&f, 3)))
		goto end;
	wperf_stop_sessiond_if_ours();
	share_with_user(dir, f.want[7].found && f.user[0] == '{' ? f.user : "");
	/* The trigger watcher saves what fired before the stop: count from
	 * the state it left. */
	if (!read_flight(out, &f))
		goto end;
	long n = f.want[8].found ? strtol(f.snapshots, NULL, 10) : 0;

	wperf_say("flight recorder of %s stopped (%ld snapshot%s)", dir, n, n == 1 ? "" : "s");
	rc = WPERF_EXIT_OK;
end:
	free(f.text);
	free(out);
	return rc;
}
