/* SPDX-License-Identifier: MIT */
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
 * says what to stop (read as `wperf snapshot` reads it, flight.h);
 * `running` is set to false in it first, in place, the rest of the file
 * as written (wperf_state_set, output.h).
 */
#include "wperf.h"
#include "flight.h"
#include "json.h"
#include "lttng.h"
#include "options.h"
#include "orphans.h"
#include "output.h"
#include "recording.h"
#include "sessiond.h"
#include "waits.h"

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

/* A member that is a non-empty string (not null, not absent, not a
 * number). */
static const char *str(const struct wperf_flight_state *f, enum wperf_flight_member i)
{
	return f->want[i].is_string && f->want[i].out[0] ? f->want[i].out : NULL;
}

/* A stopped recorder whose ftrace instance is still there: an earlier
 * stop could not remove it (then this one retries). */
static bool instance_left(const struct wperf_flight_state *f)
{
	char inst[PATH_MAX];
	struct stat st;

	if (!str(f, WPERF_FS_INSTANCE))
		return false;
	snprintf(inst, sizeof(inst), "%s/instances/%s",
		 str(f, WPERF_FS_TRACEFS) ? str(f, WPERF_FS_TRACEFS) : "/sys/kernel/tracing",
		 str(f, WPERF_FS_INSTANCE));
	return lstat(inst, &st) == 0 && S_ISDIR(st.st_mode);
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
	struct wperf_flight_state f = { 0 };
	const char *dir = NULL, *trigger_json, *name;
	char trigger_name[256] = "";
	struct wperf_dir held = { .fd = -1 };
	const char *out;
	struct json_want tw = { .key = "name", .out = trigger_name, .outlen = sizeof(trigger_name) };
	int rc = WPERF_EXIT_FAIL, lock = -1;

	if ((rc = wperf_options_one_positional("stop", "DIR", usage, argc, argv, &dir)) >= 0)
		return rc;
	rc = WPERF_EXIT_FAIL;
	/* Held: DIR's parent may be the user's, who can swap DIR meanwhile. */
	if (!wperf_flight_dir_open(dir, &held))
		goto end;
	out = held.pid_at;
	/* The state is read and `running` set under the flight lock: the
	 * trigger watcher rewrites the file as it saves a snapshot (its
	 * count, snapshot.c), under that lock. Without it, one of the two
	 * writes was lost (the count of a snapshot saved as the stop began,
	 * or the stop itself), or one's rename found the other's temporary
	 * file gone. */
	if ((lock = wperf_flight_lock(out)) < 0 || !wperf_flight_state_read(out, &f))
		goto end;
	if (strcmp(f.mode, "flight-recorder")) {
		wperf_fail("%s is a recording, not a flight recorder (start one with wperf "
			   "record --snapshot -o DIR)", dir);
		goto end;
	}
	if (strcmp(f.running, "true") && !instance_left(&f)) {
		wperf_fail("the flight recorder of %s was stopped (start a new one with wperf "
			   "record --snapshot -o DIR)", dir);
		goto end;
	}
	if (geteuid() != 0 && str(&f, WPERF_FS_INSTANCE)) {
		wperf_fail("removing the ftrace instance needs root: run it with sudo");
		goto end;
	}
	if (strcmp(f.running, "true"))
		wperf_say("finishing the stop of the flight recorder of %s: its ftrace instance "
			  "%s is still there", dir, str(&f, WPERF_FS_INSTANCE));
	else if (!wperf_state_set(out, f.text, &f.want[WPERF_FS_RUNNING], "false"))
		goto end;
	/* Released while the watcher saves what fired before the stop. */
	wperf_lock_release(lock);
	lock = -1;
	/* Everything the flight recorder left running; what is gone is fine. */
	if (f.watcher[0] && !f.want[WPERF_FS_WATCHER].is_string)
		wperf_flight_stop_watcher(strtol(f.watcher, NULL, 10), held.fd);
	/* Then no snapshot under way: it would hold the instance's buffers
	 * open (rmdir: EBUSY). The watcher's last ones are taken by now. */
	if ((lock = wperf_flight_lock(out)) < 0)
		goto end;
	/* Its own trigger first: its watcher has ended by now, and the sweep
	 * would take it for one left by a killed watcher, and say so. */
	trigger_json = f.trigger[0] == '{' ? f.trigger : NULL;
	if (trigger_json && wperf_json_members(trigger_json, &tw, 1) && trigger_name[0])
		wperf_lttng_remove_trigger(trigger_name);
	wperf_sweep_orphaned_triggers();        /* of other watchers killed */
	if ((name = str(&f, WPERF_FS_SESSION)))
		wperf_lttng_destroy_session(name);
	if (str(&f, WPERF_FS_INSTANCE) &&
	    !wperf_flight_remove_instance(str(&f, WPERF_FS_TRACEFS), str(&f, WPERF_FS_INSTANCE)))
		goto end;
	wperf_lock_release(lock);
	lock = -1;
	wperf_flight_sweep(str(&f, WPERF_FS_TRACEFS));  /* of recorders whose DIR is gone */
	wperf_stop_sessiond_if_ours();
	wperf_flight_share(held.fd, ".", held.shown, &f);
	/* The trigger watcher saves what fired before the stop: count from
	 * the state it left. */
	if (!wperf_flight_state_read(out, &f))
		goto end;
	long n = strtol(f.snapshots, NULL, 10);

	wperf_say("flight recorder of %s stopped (%ld snapshot%s)", dir, n, n == 1 ? "" : "s");
	rc = WPERF_EXIT_OK;
end:
	wperf_lock_release(lock);
	wperf_flight_state_fini(&f);
	if (held.fd >= 0)
		wperf_dir_close(&held);
	return rc;
}
