/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/flight.h — the flight recorder (`wperf record --snapshot`,
 * wperf(1)): an LTTng snapshot-mode session in overwrite mode, where
 * LTTng's kernel tracer is missing an ftrace instance in overwrite mode
 * beside it, and with --trigger-on an LTTng trigger that takes a snapshot
 * whenever the application emits an event, turned into DIR/snapshot-N by
 * the trigger watcher (`wperf _watch DIR AT`, watch.c). `wperf snapshot DIR`
 * (snapshot.c) saves what it holds; `wperf stop DIR` (stop.c) removes
 * its parts with the functions below.
 */
#ifndef WPERF_TOOL_FLIGHT_H
#define WPERF_TOOL_FLIGHT_H

#include "json.h"
#include "output.h"

#include <limits.h>
#include <stdbool.h>

/* What `wperf record --snapshot` was asked for. */
struct wperf_flight_options {
	const char *ust_events;         /* comma-separated (default "wperf:*") */
	unsigned buffer_kb;             /* per CPU per channel */
	const char *trigger_on;         /* a UST event, or NULL: no trigger */
	const char *trigger_filter;     /* an LTTng filter expression, or NULL */
};

/* Start the flight recorder of DIR, held (made by wperf_output_prepare,
 * the session daemon ensured): state comes filled as for a recording
 * (output, command, plugin_path, user, sessiond_started, kernel, tracefs,
 * session); this sets mode, running, instance, watcher and trigger_*,
 * creates the parts, saves DIR/wperf.json and says how to take a
 * snapshot and stop. Then runs command (NULL: none) in the foreground
 * until it exits; the flight recorder stays. The command's exit status
 * (0 without one), or WPERF_EXIT_FAIL after saying why, every part made
 * removed again. */
int wperf_flight_start(const struct wperf_dir *dir, struct wperf_state *state,
		       const struct wperf_flight_options *opt, char *const *command);

/* Ask the trigger watcher `pid` of the flight recorder whose directory
 * the descriptor dir holds to end, and wait until it has (it may be
 * taking a snapshot from the session and instance removed next). The
 * watcher is known by what it holds (the same directory open), wherever
 * DIR was moved. Nothing when pid is not that watcher (gone, its pid
 * reused, by another flight recorder's watcher too). */
void wperf_flight_stop_watcher(long pid, int dir);

/* Remove the ftrace instance `name` under tracefs (NULL: the usual mount
 * point), tracing off first. false after saying why. */
bool wperf_flight_remove_instance(const char *tracefs, const char *name);

/* Remove the wperf-flight-* instances whose flight recorder is gone: its
 * directory (recorded in /run/wperf-flight/INSTANCE when it started, by
 * path and by file handle, so that a directory moved since is found) no
 * longer says it runs with that instance, or was removed. An instance
 * of no known owner, or whose directory is not wperf's (root's, no
 * other user may write) or cannot be told, is left alone. Its LTTng
 * session and trigger are destroyed with it. Root only. */
void wperf_flight_sweep(const char *tracefs);

/* ------------------------------------------------------------ snapshots
 * (snapshot.c; `wperf snapshot` and the trigger watcher take them) */

/* What DIR/wperf.json says about a flight recorder, members as written
 * (json.h); empty when absent or null. want[] is indexed by the enum
 * below (is_string, the value's span for wperf_state_set()). */
enum wperf_flight_member {
	WPERF_FS_MODE, WPERF_FS_RUNNING, WPERF_FS_SESSION, WPERF_FS_KERNEL, WPERF_FS_INSTANCE,
	WPERF_FS_TRACEFS, WPERF_FS_PLUGIN_PATH, WPERF_FS_USER, WPERF_FS_TRIGGER,
	WPERF_FS_SNAPSHOTS, WPERF_FS_WATCHER, WPERF_FS_COUNT
};
struct wperf_flight_state {
	char *text;             /* the whole file */
	char mode[64], running[16], session[256], kernel[16], instance[256];
	char tracefs[PATH_MAX], plugin_path[PATH_MAX], user[4096], trigger[2048];
	char snapshots[32], watcher[32];
	struct json_want want[WPERF_FS_COUNT];
};

/* Read DIR/wperf.json into s (freeing what s held); false after saying
 * why. */
bool wperf_flight_state_read(const char *out, struct wperf_flight_state *s);
void wperf_flight_state_fini(struct wperf_flight_state *s);

/* Let the user the recorded command ran as (the state's `user`) read
 * the tree name of the held directory at (shown: its path, for
 * warnings): wperf_share_with_user() (output.h). Nothing for root
 * (null). */
void wperf_flight_share(int at, const char *name, const char *shown,
			const struct wperf_flight_state *s);

/* Save what the flight recorder of DIR holds into DIR/snapshot-N, N the
 * next number, built in DIR/.wperf and renamed when whole; one snapshot
 * at a time (DIR/.wperf/lock). With lttng_dir (a triggered LTTng
 * snapshot), that one is used (and removed) rather than a new one. The
 * snapshot's path (malloc'ed), or NULL after saying why. */
char *wperf_take_snapshot(const char *out, const char *lttng_dir);

/* The lock of one snapshot (or stop) of the flight recorder in out at a
 * time (out/.wperf/lock; waits.h: said after two seconds, its holder
 * named, given up on a stop signal or after minutes): its descriptor for
 * wperf_lock_release(), or -1 after saying why. */
int wperf_flight_lock(const char *out);

#endif /* WPERF_TOOL_FLIGHT_H */
