/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/snapshot.c — `wperf snapshot DIR` (wperf(1)): save what the
 * flight recorder of DIR holds into DIR/snapshot-N, and the snapshot
 * itself (flight.h), which the trigger watcher (watch.c) takes too.
 *
 * A snapshot is LTTng's (the session's buffers, after a new statedump:
 * the one at start has long been overwritten), recorded through
 * liblttng-ctl, and where LTTng's kernel tracer is missing the flight
 * recorder's ftrace instance read in this process by source.wperf.tracefs
 * (snapshot=true) into sink.ctf.fs, the instance paused from the request
 * on where the kernel has no ftrace snapshot buffer (pause_tracefs). It is built in DIR/.wperf and renamed
 * when whole, so that a snapshot-N directory is always a complete trace,
 * even if wperf is killed midway: `wperf report DIR` reads the latest.
 * One snapshot at a time (DIR/.wperf/lock): two readers would split a
 * consumed buffer. DIR/wperf.json counts them (`snapshots`, changed in
 * place, the rest of the file as written).
 */
#include "bt-failure.h"
#include "bt-graph.h"
#include "dir-names.h"
#include "flight.h"
#include "lttng.h"
#include "options.h"
#include "output.h"
#include "recording.h"
#include "waits.h"
#include "wperf.h"

/* Longest wait for another snapshot or stop of the same recorder. */
#define FLIGHT_LOCK_GIVE_UP_S 300.0

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ the state */

bool wperf_flight_state_read(const char *out, struct wperf_flight_state *s)
{
	char path[PATH_MAX];
	/* The member i of the enum reads into the buffer s->NAME. */
#define WANT(i, name, buf) [i] = { .key = name, .out = s->buf, .outlen = sizeof(s->buf) }
	struct json_want want[WPERF_FS_COUNT] = {
		WANT(WPERF_FS_MODE, "mode", mode),
		WANT(WPERF_FS_RUNNING, "running", running),
		WANT(WPERF_FS_SESSION, "session", session),
		WANT(WPERF_FS_KERNEL, "kernel", kernel),
		WANT(WPERF_FS_INSTANCE, "instance", instance),
		WANT(WPERF_FS_TRACEFS, "tracefs", tracefs),
		WANT(WPERF_FS_PLUGIN_PATH, "plugin_path", plugin_path),
		WANT(WPERF_FS_USER, "user", user),
		WANT(WPERF_FS_TRIGGER, "trigger", trigger),
		WANT(WPERF_FS_SNAPSHOTS, "snapshots", snapshots),
		WANT(WPERF_FS_WATCHER, "watcher", watcher),
	};
#undef WANT

	_Static_assert(WPERF_FS_COUNT == sizeof(s->want) / sizeof(s->want[0]),
		       "one want per member");
	snprintf(path, sizeof(path), "%s/" WPERF_STATE, out);
	free(s->text);
	memset(s, 0, sizeof(*s));
	if (!(s->text = wperf_read_text(path))) {
		if (errno == ENOENT)
			wperf_fail("%s was not written by `wperf record` (no " WPERF_STATE ")", out);
		else
			wperf_fail("cannot read %s: %s", path, strerror(errno));
		return false;
	}
	memcpy(s->want, want, sizeof(want));
	if (!wperf_json_members(s->text, s->want, WPERF_FS_COUNT)) {
		wperf_fail("cannot read %s: it is not a JSON object", path);
		return false;
	}
	/* null reads as empty, as an absent member. */
	for (int i = 0; i < WPERF_FS_COUNT; i++)
		if (!s->want[i].found || (!s->want[i].is_string && !strcmp(s->want[i].out, "null")))
			s->want[i].out[0] = '\0';
	return true;
}

void wperf_flight_state_fini(struct wperf_flight_state *s)
{
	free(s->text);
	s->text = NULL;
}

void wperf_flight_share(int at, const char *name, const char *shown,
			const struct wperf_flight_state *s)
{
	char user[256] = "", gid[32] = "";
	struct json_want want[] = {
		{ .key = "name", .out = user, .outlen = sizeof(user) },
		{ .key = "gid", .out = gid, .outlen = sizeof(gid) },
	};
	char *end;
	unsigned long g;

	if (s->user[0] != '{' || !wperf_json_members(s->user, want, 2) || !want[1].found)
		return;
	g = strtoul(gid, &end, 10);
	if (!*end)
		wperf_share_with_user(at, name, shown, user, (gid_t)g);
}

/* ------------------------------------------------------------ files */

/* buf = dir/name; false when it does not fit (after saying so). */
static bool join(char *buf, size_t len, const char *dir, const char *name)
{
	if (snprintf(buf, len, "%s/%s", dir, name) < (int)len)
		return true;
	wperf_fail("path too long: %s/%s", dir, name);
	return false;
}

/* The snapshot's own wperf.json: what it is a snapshot of, and when. */
static bool write_snapshot_state(const char *snap, const char *out, long n)
{
	char path[PATH_MAX], when[64], shown[PATH_MAX];
	time_t now = time(NULL);
	struct tm tm;
	FILE *f;

	if (!join(path, sizeof(path), snap, WPERF_STATE))
		return false;
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S%z", localtime_r(&now, &tm));
	if (!(f = wperf_private_file(path))) {
		wperf_fail("cannot write %s: %s", path, strerror(errno));
		return false;
	}
	fputs("{\n  \"version\": 1,\n  \"snapshot_of\": ", f);
	wperf_dir_names_shown(out, shown, sizeof(shown));    /* the path, not /proc's name */
	wperf_json_put_string(f, shown);
	fprintf(f, ",\n  \"number\": %ld,\n  \"time\": \"%s\"\n}\n", n, when);
	if (fclose(f) != 0) {
		wperf_fail("cannot write %s: %s", path, strerror(errno));
		return false;
	}
	return true;
}

/* LTTng writes DIR/<snapshot name>/{ust,kernel}: move each ust/ and
 * kernel/ found below dir up into snap (the first of each name). */
static void lift(const char *dir, const char *snap, int depth)
{
	static const char *const halves[] = { "ust", "kernel" };
	struct dirent *e;
	DIR *d;

	if (depth > 8 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX], to[PATH_MAX];
		bool half = false;
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		for (int i = 0; i < 2; i++)
			if (!strcmp(e->d_name, halves[i])) {
				half = true;
				snprintf(to, sizeof(to), "%s/%s", snap, halves[i]);
				if (access(to, F_OK) != 0)
					rename(path, to);
			}
		if (!half)
			lift(path, snap, depth + 1);
	}
	closedir(d);
}

/* ------------------------------------------------------------ the kernel half */

/* Ctrl-C stopped the ftrace snapshot's graph (`wperf snapshot` only:
 * the watcher runs in a session of its own). */
static bool interrupted;

/* Write value into the instance's file `name`; whether it could. */
static bool instance_write(const struct wperf_flight_state *s, const char *name,
			   const char *value)
{
	char path[PATH_MAX * 2];
	bool ok = false;
	int fd;

	snprintf(path, sizeof(path), "%s/instances/%s/%s",
		 s->tracefs[0] ? s->tracefs : "/sys/kernel/tracing", s->instance, name);
	if ((fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		ok = write(fd, value, strlen(value)) == (ssize_t)strlen(value);
		close(fd);
	}
	return ok;
}

/* Whether the instance has an ftrace snapshot buffer (kernels built with
 * CONFIG_TRACER_SNAPSHOT): the source then swaps the live buffers into it
 * and the instance records on. */
static bool has_snapshot_buffer(const struct wperf_flight_state *s)
{
	char path[PATH_MAX * 2];

	snprintf(path, sizeof(path), "%s/instances/%s/snapshot",
		 s->tracefs[0] ? s->tracefs : "/sys/kernel/tracing", s->instance);
	return access(path, F_OK) == 0;
}

/* Without a snapshot buffer the source reads the live one, and pauses
 * the instance for that, but only once its graph is made: parsing the
 * kernel's event formats takes a moment (16 s in a sanitized build on a
 * loaded machine), during which the ring, in overwrite mode, goes on
 * replacing the history that was asked for with what comes after. So
 * the instance is paused here, when the snapshot is asked for. true when
 * this paused it. */
static bool pause_tracefs(const struct wperf_flight_state *s)
{
	return !has_snapshot_buffer(s) && instance_write(s, "tracing_on", "0");
}

/* Turn the flight recorder's tracing back on, after the snapshot was
 * read (the source also does when it paused it; should it have failed
 * first, the flight recorder must not stay off). */
static void tracing_on(const struct wperf_flight_state *s)
{
	instance_write(s, "tracing_on", "1");
}

/* source.wperf.tracefs (instance=..., snapshot=true) -> sink.ctf.fs into
 * snap/kernel, in this process. false after saying why. */
static bool snapshot_tracefs(const struct wperf_flight_state *s, const char *snap)
{
	struct wperf_bt bt = { 0 };
	struct wperf_run run = { 0 };
	char kernel[PATH_MAX], why[2048];
	bt_value *src = bt_value_map_create(), *sink = bt_value_map_create();
	enum wperf_run_status status;
	bool ok = false;

	if (!join(kernel, sizeof(kernel), snap, "kernel"))
		goto end;
	if (!src || !sink || bt_value_map_insert_string_entry(src, "instance", s->instance) ||
	    bt_value_map_insert_bool_entry(src, "snapshot", BT_TRUE) ||
	    bt_value_map_insert_string_entry(sink, "path", kernel) ||
	    bt_value_map_insert_bool_entry(sink, "assume-single-trace", BT_TRUE) ||
	    /* Not "Created CTF trace ..." on our standard output, which
	     * says only the snapshot's path. */
	    bt_value_map_insert_bool_entry(sink, "quiet", BT_TRUE)) {
		wperf_fail("the kernel snapshot failed: out of memory");
		goto end;
	}
	if (wperf_bt_load(&bt, s->plugin_path, why, sizeof(why))) {
		wperf_fail("the kernel snapshot failed: %s", why);
		goto end;
	}
	status = wperf_bt_run_source(&bt, bt.wperf, "tracefs", src, bt.ctf, "fs", sink, true,
				     &run);
	if (status == WPERF_RUN_OK)
		ok = true;
	else if (status == WPERF_RUN_INTERRUPTED)
		interrupted = true;
	else {
		wperf_run_failure(&run, why, sizeof(why));
		wperf_fail("the kernel snapshot failed: %s", why);
	}
	wperf_run_fini(&run);
	wperf_bt_unload(&bt);
end:
	bt_value_put_ref(src);
	bt_value_put_ref(sink);
	return ok;
}

/* ------------------------------------------------------------ taking one */

/* The LTTng snapshot (or the triggered one, lttng_dir) and the ftrace
 * one, into snap; its wperf.json last. false after saying why. */
static bool fill_snapshot(const char *out, const struct wperf_flight_state *s,
			  const char *snap, long n, const char *lttng_dir)
{
	bool tracefs = !strcmp(s->kernel, "tracefs"), ok = true;
	char own[PATH_MAX], why[1024];

	if (tracefs)
		pause_tracefs(s);
	if (!lttng_dir) {
		/* The statedump at start has long been overwritten. */
		wperf_lttng_regenerate_statedump(s->session, why, sizeof(why));
		if (!join(own, sizeof(own), snap, ".lttng"))
			ok = false;
		else if (wperf_lttng_snapshot_record(s->session, own, why, sizeof(why))) {
			wperf_fail("%s", why);
			ok = false;
		}
		lttng_dir = own;
	}
	if (ok && tracefs)
		ok = snapshot_tracefs(s, snap);
	if (tracefs)
		tracing_on(s);
	if (!ok)
		return false;
	lift(lttng_dir, snap, 0);
	wperf_remove_tree(lttng_dir);
	return write_snapshot_state(snap, out, n);
}

/* The next free number: after the count in the state, and after any
 * snapshot-N already there. */
static long next_number(const char *out, const struct wperf_flight_state *s)
{
	char path[PATH_MAX];
	long n = strtol(s->snapshots, NULL, 10) + 1;

	for (;; n++) {
		snprintf(path, sizeof(path), "%s/snapshot-%ld", out, n);
		if (access(path, F_OK) != 0)
			return n;
	}
}

/* Let the user read DIR/snapshot-n (out: DIR's /proc name). */
static void share_snapshot(const char *out, long n, const char *snap,
			   const struct wperf_flight_state *s)
{
	char name[64];
	int at = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (at < 0)
		return;
	snprintf(name, sizeof(name), "snapshot-%ld", n);
	wperf_flight_share(at, name, snap, s);
	close(at);
}

/* With the lock held: build, rename, count. */
static char *take_locked(const char *out, const char *lttng_dir)
{
	struct wperf_flight_state s = { 0 };
	char part[PATH_MAX], snap[PATH_MAX], number[32];
	long n, count;

	if (!wperf_flight_state_read(out, &s))
		return NULL;
	/* `wperf stop` may have stopped it while this waited for the lock
	 * (the trigger watcher still saves what fired before the stop). */
	if (!lttng_dir && strcmp(s.running, "true")) {
		wperf_fail("the flight recorder of %s was stopped while this snapshot waited for "
			   "it", out);
		goto fail;
	}
	n = next_number(out, &s);
	snprintf(snap, sizeof(snap), "%s/snapshot-%ld", out, n);
	snprintf(part, sizeof(part), "%s/" WPERF_PRIVATE "/snapshot-%ld.part", out, n);
	wperf_remove_tree(part);
	if (mkdir(part, 0755) != 0) {
		wperf_fail("cannot create %s: %s", part, strerror(errno));
		goto fail;
	}
	if (!fill_snapshot(out, &s, part, n, lttng_dir))
		goto fail_part;
	if (rename(part, snap) != 0) {
		wperf_fail("cannot rename %s to %s: %s", part, snap, strerror(errno));
		goto fail_part;
	}
	/* The state again: `wperf stop` may have changed it meanwhile. */
	if (!wperf_flight_state_read(out, &s))
		goto fail;
	count = strtol(s.snapshots, NULL, 10);
	snprintf(number, sizeof(number), "%ld", n > count ? n : count);
	if (!wperf_state_set(out, s.text, &s.want[WPERF_FS_SNAPSHOTS], number))
		goto fail;
	share_snapshot(out, n, snap, &s);
	wperf_flight_state_fini(&s);
	return strdup(snap);
fail_part:
	wperf_remove_tree(part);   /* no half snapshot */
fail:
	wperf_flight_state_fini(&s);
	return NULL;
}

char *wperf_take_snapshot(const char *out, const char *lttng_dir)
{
	char *snap;
	int lock;

	if ((lock = wperf_flight_lock(out)) < 0)
		return NULL;
	snap = take_locked(out, lttng_dir);
	wperf_lock_release(lock);
	return snap;
}

int wperf_flight_lock(const char *out)
{
	char path[PATH_MAX];
	int lock;

	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/lock", out);
	lock = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
	if (lock < 0) {
		wperf_fail("cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	/* A snapshot reads at most the buffers (seconds); stop waits for it. */
	return wperf_lock_fd_wait(lock, path, "a snapshot or a stop of this flight recorder",
				  FLIGHT_LOCK_GIVE_UP_S) < 0 ? -1 : lock;
}

/* ------------------------------------------------------------ the command */

static void usage(void)
{
	printf("usage: wperf snapshot [-h] DIR\n\n"
	       "Save what the flight recorder of DIR holds into DIR/snapshot-N (kernel/ and\n"
	       "ust/), after regenerating LTTng's statedump.\n\n"
	       "positional arguments:\n  DIR\n\noptions:\n"
	       "  -h, --help  show this help message and exit\n");
}

/* The flight recorder of DIR is running, and can be read by us. */
static bool check_flight(const char *dir, const struct wperf_flight_state *s)
{
	if (strcmp(s->mode, "flight-recorder")) {
		wperf_fail("%s is a recording, not a flight recorder (start one with wperf "
			   "record --snapshot -o DIR)", dir);
		return false;
	}
	if (strcmp(s->running, "true")) {
		wperf_fail("the flight recorder of %s was stopped (start a new one with wperf "
			   "record --snapshot -o DIR)", dir);
		return false;
	}
	if (geteuid() != 0 && !strcmp(s->kernel, "tracefs")) {
		wperf_fail("a snapshot of kernel events needs root: run it with sudo");
		return false;
	}
	if (!wperf_lttng_session_exists(s->session)) {
		wperf_fail("LTTng session %s is gone (lttng-sessiond restarted?): stop this "
			   "flight recorder with wperf stop %s", s->session, dir);
		return false;
	}
	return true;
}

int wperf_cmd_snapshot(int argc, char **argv)
{
	struct wperf_flight_state s = { 0 };
	struct wperf_dir held = { .fd = -1 };
	const char *dir;
	char *snap = NULL, shown[PATH_MAX];
	int rc;

	if ((rc = wperf_options_one_positional("snapshot", "DIR", usage, argc, argv, &dir)) >= 0)
		return rc;
	rc = WPERF_EXIT_FAIL;
	/* Ctrl-C ends the ftrace snapshot's graph, not this process: the
	 * flight recorder's tracing is turned back on and no half snapshot
	 * is left. */
	wperf_bt_handle_sigint();
	/* Held: DIR's parent may be the user's, who can swap DIR meanwhile. */
	if (wperf_flight_dir_open(dir, &held) && wperf_flight_state_read(held.pid_at, &s) &&
	    check_flight(dir, &s) &&
	    (snap = wperf_take_snapshot(held.pid_at, NULL))) {
		wperf_dir_names_shown(snap, shown, sizeof(shown));
		printf("%s\n", shown);
		fflush(stdout);
		wperf_say("snapshot saved: wperf report %s", snap);
		rc = WPERF_EXIT_OK;
	} else if (interrupted) {
		wperf_say("interrupted");
		rc = WPERF_EXIT_INTERRUPTED;
	}
	wperf_flight_state_fini(&s);
	free(snap);
	if (held.fd >= 0)
		wperf_dir_close(&held);
	return rc;
}
