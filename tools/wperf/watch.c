/*
 * tools/wperf/watch.c — `wperf _watch DIR`, the flight recorder's trigger
 * watcher (not for users: flight.c starts it for --trigger-on, in a
 * session of its own, its output in DIR/.wperf/watcher.log).
 *
 * LTTng's trigger writes a snapshot of the session into
 * DIR/.wperf/triggered/<name>/ by itself, in place. The watcher turns each
 * one that stopped growing into DIR/snapshot-N (snapshot.c), adding the
 * kernel half from the ftrace instance at once, while the flight
 * recorder runs. `wperf stop` (stop.c) sends it SIGTERM and waits before
 * it destroys the session and the instance: it then finishes the
 * snapshot being taken, saves those LTTng has finished writing, and
 * ends. stop.c waits until it catches SIGTERM, so the handler is the
 * first thing it installs.
 */
#include "flight.h"
#include "recording.h"
#include "wperf.h"

#include <dirent.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static volatile sig_atomic_t stopping;

static void on_sigterm(int sig)
{
	(void)sig;
	stopping = 1;
}

/* A triggered snapshot seen at the last look, and its size then. */
struct seen {
	char name[256];
	long long size;
};

#define MAX_SEEN 64

struct watch {
	const char *out;
	char triggered[PATH_MAX];
	struct seen seen[MAX_SEEN];
	size_t nseen;
};

static long long total;

static int add_size(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)path;
	(void)ftw;
	if (type == FTW_F)
		total += st->st_size;
	return 0;
}

/* The bytes of the files under path (links not followed). */
static long long tree_size(const char *path)
{
	total = 0;
	nftw(path, add_size, 16, FTW_PHYS);
	return total;
}

static struct seen *find_seen(struct watch *w, const char *name)
{
	for (size_t i = 0; i < w->nseen; i++)
		if (!strcmp(w->seen[i].name, name))
			return &w->seen[i];
	return NULL;
}

static void forget(struct watch *w, struct seen *s)
{
	*s = w->seen[--w->nseen];
}

static void remember(struct watch *w, const char *name, long long size)
{
	struct seen *s = find_seen(w, name);

	if (!s && w->nseen < MAX_SEEN)
		s = &w->seen[w->nseen++];
	if (s) {
		snprintf(s->name, sizeof(s->name), "%s", name);
		s->size = size;
	}
}

/* The event the trigger fires on, for the log. */
static void trigger_event(const char *out, char *event, size_t len)
{
	struct wperf_flight_state s = { 0 };
	struct json_want want = { .key = "event", .out = event, .outlen = len };

	snprintf(event, len, "?");
	if (wperf_flight_state_read(out, &s) && s.trigger[0] == '{')
		wperf_json_members(s.trigger, &want, 1);
	wperf_flight_state_fini(&s);
}

/* One triggered snapshot that stopped growing since the last look (and
 * is not empty) becomes DIR/snapshot-N. false when taking it failed. */
static bool take_if_finished(struct watch *w, const char *name)
{
	char path[PATH_MAX + 256], event[256];
	long long size;
	struct seen *s;
	char *snap;

	snprintf(path, sizeof(path), "%s/%s", w->triggered, name);
	size = tree_size(path);
	s = find_seen(w, name);
	if (!s || s->size != size || size <= 0) {
		remember(w, name, size);
		return true;
	}
	forget(w, s);
	if (!(snap = wperf_take_snapshot(w->out, path)))
		return false;
	trigger_event(w->out, event, sizeof(event));
	wperf_say("trigger %s: snapshot saved in %s", event, snap);
	free(snap);
	return true;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dots(const struct dirent *e)
{
	return strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
}

/* Each triggered snapshot, in name order. The number of entries in
 * DIR/.wperf/triggered (0 when there is none), or -1 after a snapshot
 * failed. */
static int take_finished(struct watch *w)
{
	struct dirent **names = NULL;
	int n = scandir(w->triggered, &names, not_dots, by_name);
	bool ok = true;

	for (int i = 0; i < n; i++) {
		if (ok)
			ok = take_if_finished(w, names[i]->d_name);
		free(names[i]);
	}
	free(names);
	return ok ? (n > 0 ? n : 0) : -1;
}

static bool still_running(const char *out)
{
	struct wperf_flight_state s = { 0 };
	bool running = wperf_flight_state_read(out, &s) && !strcmp(s.running, "true");

	wperf_flight_state_fini(&s);
	return running;
}

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_nsec = ms * 1000000 }, NULL);
}

int wperf_cmd_watch(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_sigterm };
	static struct watch w;
	char *out;

	/* First: `wperf stop` waits for this handler before SIGTERM. */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	if (argc != 2)
		return wperf_fail("usage: wperf _watch DIR (started by wperf record --snapshot "
				  "--trigger-on)");
	if (!(out = realpath(argv[1], NULL)))
		return wperf_fail("cannot watch %s: no such directory", argv[1]);
	w.out = out;
	snprintf(w.triggered, sizeof(w.triggered), "%s/" WPERF_PRIVATE "/triggered", out);
	while (!stopping && still_running(out)) {
		if (take_finished(&w) < 0)
			goto fail;
		sleep_ms(300);
	}
	/* Then what triggered before the stop (LTTng may still be writing
	 * it; taking one removes its directory). */
	for (int i = 0; i < 20; i++) {
		int n = take_finished(&w);

		if (n < 0)
			goto fail;
		if (n == 0)
			break;
		sleep_ms(300);
	}
	free(out);
	return WPERF_EXIT_OK;
fail:
	free(out);
	return WPERF_EXIT_FAIL;
}
