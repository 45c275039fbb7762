/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/watch.c — `wperf _watch DIR AT`, the flight recorder's trigger
 * watcher (not for users: flight.c starts it for --trigger-on, in a
 * session of its own, its output in DIR/.wperf/watcher.log).
 *
 * LTTng's trigger writes a snapshot of the session into
 * DIR/.wperf/triggered/<name>/ by itself, then notifies (lttng.c: the
 * trigger's actions are the snapshot, then a notification). The watcher
 * holds DIR (opened through `wperf record`'s /proc name of it, never by
 * its path) and registers the trigger itself, its output this process's
 * /proc/PID/fd/N/.wperf/triggered: the session daemon resolves that at
 * each snapshot to the held directory, so swapping DIR for a link (its
 * parent may be DIR's user's) cannot send root's daemon elsewhere. The
 * watcher subscribes to the notifications before it says it is ready
 * (DIR/.wperf/watcher-ready, which flight.c waits for), and at each one
 * turns the oldest triggered snapshot, whole by then, into DIR/snapshot-N
 * (snapshot.c), adding the kernel half from the ftrace instance at once.
 * Nothing is guessed from sizes that stopped growing: a session daemon
 * slowed down mid-write no longer gets half a snapshot taken.
 *
 * `wperf stop` (stop.c) sends it SIGTERM and waits before it destroys the
 * session and the instance: it then finishes the snapshot being taken,
 * saves those LTTng began before the stop as LTTng finishes them (up to
 * FINISH_S), and ends. stop.c waits
 * until it catches SIGTERM, so the handler is the first thing it
 * installs.
 */
#include "flight.h"
#include "lttng.h"
#include "waits.h"
#include "output.h"
#include "recording.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long, after a stop, LTTng may take to finish writing the
 * snapshots its trigger began before it (`wperf stop` waits longer for
 * this process: flight.c). */
#define FINISH_S 60.0

static volatile sig_atomic_t stopping;

static void on_sigterm(int sig)
{
	(void)sig;
	stopping = 1;
}

struct watch {
	const char *out;
	char triggered[PATH_MAX];
	char session[256], trigger[256], event[256], filter[1024];
	bool has_filter;
};

/* LTTng's number of a snapshot directory (<output>-<date>-<time>-<N>):
 * the order it took them in. */
static long long number_of(const char *name)
{
	const char *dash = strrchr(name, '-');

	return dash ? strtoll(dash + 1, NULL, 10) : -1;
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

static int by_number(const struct dirent **a, const struct dirent **b)
{
	long long x = number_of((*a)->d_name), y = number_of((*b)->d_name);

	return x < y ? -1 : x > y;
}

/* The triggered snapshots LTTng has written or is writing, oldest
 * first; their count (0 when none), names freed by free_names(). */
static int list_triggered(const struct watch *w, struct dirent ***names)
{
	int n = scandir(w->triggered, names, not_dots, by_number);

	return n < 0 ? 0 : n;
}

static void free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Take the oldest `count` triggered snapshots (count < 0: notifications
 * were dropped, so all but the newest, which may be being written) into
 * DIR/snapshot-N. false when taking one failed. */
static bool take_completed(const struct watch *w, int count)
{
	struct dirent **names = NULL;
	int n = list_triggered(w, &names);
	bool ok = true;

	if (count < 0)
		count = n - 1;
	for (int i = 0; ok && i < n && i < count; i++) {
		char path[PATH_MAX + 256];
		char *snap;

		snprintf(path, sizeof(path), "%s/%s", w->triggered, names[i]->d_name);
		if ((snap = wperf_take_snapshot(w->out, path)))
			wperf_say("trigger %s: snapshot saved in %s", w->event, snap);
		ok = snap != NULL;
		free(snap);
	}
	free_names(names, n);
	return ok;
}

/* The trigger's name, event and filter from DIR/wperf.json. */
static bool read_trigger(struct watch *w)
{
	struct wperf_flight_state s = { 0 };
	struct json_want want[] = {
		{ .key = "name", .out = w->trigger, .outlen = sizeof(w->trigger) },
		{ .key = "event", .out = w->event, .outlen = sizeof(w->event) },
		{ .key = "filter", .out = w->filter, .outlen = sizeof(w->filter) },
	};
	bool ok = wperf_flight_state_read(w->out, &s) && s.trigger[0] == '{' &&
		  wperf_json_members(s.trigger, want, 3) && w->trigger[0] && w->event[0];

	w->has_filter = want[2].found && want[2].is_string;
	snprintf(w->session, sizeof(w->session), "%s", s.session);
	wperf_flight_state_fini(&s);
	if (!ok)
		wperf_fail("%s/" WPERF_STATE " names no trigger", w->out);
	return ok;
}

/* Register the trigger, its snapshots written into w->triggered: this
 * process's /proc name of DIR/.wperf/triggered, which the session daemon
 * resolves at each snapshot to the directory held here, whatever DIR's
 * path (its parent may be DIR's user's) leads to by then. */
static bool add_trigger(const struct watch *w)
{
	char why[1024];

	if (!wperf_lttng_add_snapshot_trigger(w->trigger, w->session, w->triggered, w->event,
					      w->has_filter ? w->filter : NULL, why, sizeof(why)))
		return true;
	wperf_fail("%s", why);
	return false;
}

/* Say to flight.c that the subscription is made: from now on no
 * snapshot the trigger takes goes unnoticed. */
static bool say_ready(const struct watch *w)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/watcher-ready", w->out);
	if ((fd = wperf_private_fd(path)) < 0)
		return wperf_fail("cannot write %s: %s", path, strerror(errno)) == 0;
	close(fd);
	return true;
}

static bool still_running(const char *out)
{
	struct wperf_flight_state s = { 0 };
	bool running = wperf_flight_state_read(out, &s) && !strcmp(s.running, "true");

	wperf_flight_state_fini(&s);
	return running;
}

/* wperf_lttng_watch_wait's count; -2 after saying that the session
 * daemon does not answer. */
static int wait_notified(struct wperf_lttng_watch *sub)
{
	int n = wperf_lttng_watch_wait(sub, 300);

	if (n == -2)
		wperf_fail("%s", wperf_ctl_wedged() ? wperf_ctl_wedged() : "lttng-sessiond is gone");
	return n;
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* After the stop: what triggered before it, which LTTng may still be
 * writing. Each is taken when its notification says it is whole, for as
 * long as LTTng takes, up to FINISH_S (a session daemon on a machine
 * loaded several times over took more than the 6 s once allowed); what
 * LTTng has not finished by then is said and left. false when taking one
 * failed or the daemon does not answer. */
static bool take_the_rest(const struct watch *w, struct wperf_lttng_watch *sub)
{
	double end = monotonic() + FINISH_S;
	int n;

	for (;;) {
		struct dirent **names = NULL;
		int left = list_triggered(w, &names);

		free_names(names, left);
		if (!left)
			return true;
		if (monotonic() >= end) {
			wperf_say("trigger %s: %d snapshot%s LTTng began before the stop %s not "
				  "finished within %.0f s of it: left in DIR/" WPERF_PRIVATE
				  "/triggered", w->event, left, left == 1 ? "" : "s",
				  left == 1 ? "was" : "were", FINISH_S);
			return true;
		}
		if ((n = wait_notified(sub)) == -2 || (n && !take_completed(w, n)))
			return false;
	}
}

int wperf_cmd_watch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigterm };
	struct wperf_lttng_watch *sub = NULL;
	static struct watch w;
	static struct wperf_dir held = { .fd = -1 };
	char why[1024];
	const char *out;
	int rc = WPERF_EXIT_FAIL, n;
	bool registered = false;

	/* First: `wperf stop` waits for this handler before SIGTERM. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	if (argc != 3)
		return wperf_fail("usage: wperf _watch DIR /proc/PID/fd/N (started by wperf "
				  "record --snapshot --trigger-on)");
	/* Held, from wperf record's own hold on it: DIR's parent may be the
	 * user's, who can swap DIR at any time. */
	if (!wperf_flight_dir_open_held(argv[1], argv[2], &held))
		return WPERF_EXIT_FAIL;
	w.out = out = held.pid_at;
	snprintf(w.triggered, sizeof(w.triggered), "%s/" WPERF_PRIVATE "/triggered", out);
	if (!read_trigger(&w) || !(registered = add_trigger(&w)))
		goto end;
	if (!(sub = wperf_lttng_watch_trigger(w.trigger, w.event, w.has_filter ? w.filter : NULL,
					      why, sizeof(why)))) {
		wperf_fail("%s", why);
		goto end;
	}
	if (!say_ready(&w))
		goto end;
	while (!stopping && still_running(out))
		if ((n = wait_notified(sub)) == -2 || (n && !take_completed(&w, n)))
			goto end;
	if (!take_the_rest(&w, sub))
		goto end;
	rc = WPERF_EXIT_OK;
end:
	/* A trigger left behind would write into this process's /proc
	 * name, which names nothing once it ends (or, reused, another
	 * process's directory): on a failure, it goes with the watcher.
	 * After a stop, `wperf stop` has removed it already. */
	if (registered && rc != WPERF_EXIT_OK)
		wperf_lttng_remove_trigger(w.trigger);
	wperf_lttng_watch_end(sub);
	wperf_dir_close(&held);
	return rc;
}
