/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/flight.c — starting the flight recorder (`wperf record
 * --snapshot`, flight.h) and removing the parts it owns outside the LTTng
 * session: its ftrace instance and its trigger watcher.
 *
 * Where LTTng's kernel tracer is missing, the kernel half is a persistent
 * ftrace instance in overwrite mode that `wperf snapshot` reads through
 * source.wperf.tracefs (snapshot=true). It is written through tracefs
 * files opened relative to the instance's directory, never following a
 * link. The trigger watcher is this same binary run again as `wperf
 * _watch DIR AT` (watch.c), in its own session, its output in
 * DIR/.wperf/watcher.log; it takes DIR through AT (this process's
 * /proc/PID/fd/N) and registers the trigger itself, with an output held
 * by its own descriptor (the LTTng session has none). The flight
 * recorder is said to run once the watcher listens to the trigger's
 * notifications. `wperf stop` (stop.c)
 * finds it by that command line and waits until it has caught SIGTERM.
 */
#include "flight.h"
#include "command.h"
#include "dir-handle.h"
#include "json.h"
#include "lttng.h"
#include "orphans.h"
#include "recording.h"
#include "sessiond.h"
#include "spawn.h"
#include "waits.h"
#include "wperf.h"
#include "wperf/kernel-events.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The events source.wperf.tracefs decodes, in ftrace's names: every
 * tracepoint of wperf/kernel-events.h (sched_waking may be missing: kernels
 * before 4.3 lack it). */
struct ftrace_event {
	const char *system, *event;
	bool required;
	bool fallback;   /* only without the event before it (WPERF_KEV_FTRACE_FALLBACK) */
};
#define FTRACE_EVENT(id, system, event, name, lttng_name, flags) \
	{ system, event, WPERF_KEV_REQUIRED_BY_FTRACE(flags), \
	  ((flags) & WPERF_KEV_FTRACE_FALLBACK) != 0 },
static const struct ftrace_event ftrace_events[] = {
	WPERF_KERNEL_TRACEPOINTS(FTRACE_EVENT)
};

static void sleep_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 },
		  NULL);
}

/* ------------------------------------------------------------ the ftrace instance */

/* Which flight recorder owns each wperf-flight-* instance: a file named
 * after the instance in this root-only directory, holding DIR. A flight
 * recorder has no process of its own: its owner is DIR, alive while
 * DIR/wperf.json says it runs with that instance. */
#define FLIGHT_OWNERS "/run/wperf-flight"

static void owner_path(const char *instance, char *out, size_t len)
{
	snprintf(out, len, FLIGHT_OWNERS "/%s", instance);
}


/* Write value into the tracefs file path (relative to the instance dir).
 * 0, or errno (ENOENT: this kernel has no such file). */
static int write_file(int dir, const char *path, const char *value)
{
	int fd = openat(dir, path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return errno;
	n = write(fd, value, strlen(value));
	err = n < 0 ? errno : 0;
	close(fd);
	return err;
}

/* The instance's settings and events; false after saying why. */
static bool set_up_instance(int dir, const char *inst, unsigned buffer_kb)
{
	static const char *const settings[][2] = {
		{ "tracing_on", "0" }, { "trace_clock", "mono" },    /* LTTng's clock */
		{ "buffer_size_kb", NULL }, { "options/overwrite", "1" },
	};
	char kb[32], path[128];
	bool previous_on = false;
	int err;

	snprintf(kb, sizeof(kb), "%u", buffer_kb);
	for (size_t i = 0; i < sizeof(settings) / sizeof(settings[0]); i++)
		if ((err = write_file(dir, settings[i][0], settings[i][1] ? settings[i][1] : kb)))
			goto fail_setting;
	/* Keeps tid -> tgid in saved_tgids for threads gone by snapshot time. */
	if ((err = write_file(dir, "options/record-tgid", "1")) && err != ENOENT)
		goto fail_setting;
	for (size_t i = 0; i < sizeof(ftrace_events) / sizeof(ftrace_events[0]); i++) {
		const struct ftrace_event *ev = &ftrace_events[i];

		if (ev->fallback && previous_on)
			continue;   /* sched_wakeup: sched_waking says it first */
		snprintf(path, sizeof(path), "events/%s/%s/enable", ev->system, ev->event);
		err = write_file(dir, path, "1");
		previous_on = err == 0;
		if (err == ENOENT && !ev->required)
			continue;
		if (err == ENOENT) {
			wperf_fail("this kernel has no %s:%s tracepoint, which the analysis needs",
				   ev->system, ev->event);
			return false;
		}
		if (err) {
			wperf_fail("cannot write %s/%s: %s", inst, path, strerror(err));
			return false;
		}
	}
	if ((err = write_file(dir, "tracing_on", "1"))) {
		wperf_fail("cannot write %s/tracing_on: %s", inst, strerror(err));
		return false;
	}
	return true;
fail_setting:
	wperf_fail("cannot set up the ftrace instance %s: %s", inst, strerror(err));
	return false;
}

/* A persistent ftrace instance in overwrite mode, recording the events
 * source.wperf.tracefs decodes, on the "mono" clock like LTTng. false
 * after saying why (nothing left behind). */
static bool create_instance(const char *tracefs, const char *name, unsigned buffer_kb)
{
	char inst[PATH_MAX];
	int dir;
	bool ok;

	snprintf(inst, sizeof(inst), "%s/instances/%s", tracefs, name);
	if (mkdir(inst, 0755) != 0) {
		if (errno == EEXIST)
			wperf_fail("ftrace instance %s already exists: stop that flight recorder "
				   "first (wperf stop DIR, or rmdir %s)", name, inst);
		else
			wperf_fail("cannot create the ftrace instance %s: %s", inst, strerror(errno));
		return false;
	}
	dir = open(inst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ok = dir >= 0 && set_up_instance(dir, inst, buffer_kb);
	if (dir < 0)
		wperf_fail("cannot open the ftrace instance %s: %s", inst, strerror(errno));
	if (dir >= 0)
		close(dir);
	if (!ok)
		rmdir(inst);
	return ok;
}

bool wperf_flight_remove_instance(const char *tracefs, const char *name)
{
	char inst[PATH_MAX];
	struct stat st;
	int dir;

	snprintf(inst, sizeof(inst), "%s/instances/%s", tracefs ? tracefs : "/sys/kernel/tracing",
		 name);
	if (lstat(inst, &st) != 0 || !S_ISDIR(st.st_mode))
		return true;
	if ((dir = open(inst, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
		write_file(dir, "tracing_on", "0");
		close(dir);
	}
	/* EBUSY while a reader (a `wperf snapshot` not under the lock, an
	 * older wperf's) still has its buffers open: try again. */
	for (int i = 0; rmdir(inst) != 0; i++) {
		if (errno == ENOENT)
			return true;
		if (errno != EBUSY || i >= 100) {
			wperf_fail("cannot remove the ftrace instance %s: %s (wperf stop DIR again, "
				   "or rmdir %s)", inst, strerror(errno), inst);
			return false;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	owner_path(name, inst, sizeof(inst));
	unlink(inst);
	return true;
}

/* ------------------------------------------------------------ stale instances */

/* /run/wperf-flight/INSTANCE: DIR's path, and on a second line its file
 * handle (dir-handle.h), by which the sweep finds DIR moved. */
static void register_owner(const char *instance, const char *out, int dir)
{
	char path[PATH_MAX], handle[600] = "";
	int fd;

	if (geteuid() != 0 || (mkdir(FLIGHT_OWNERS, 0700) != 0 && errno != EEXIST))
		return;
	owner_path(instance, path, sizeof(path));
	unlink(path);
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0) {
		if (wperf_dir_handle(dir, handle + 1, sizeof(handle) - 1))
			handle[0] = '\n';
		if (write(fd, out, strlen(out)) < 0 || write(fd, handle, strlen(handle)) < 0) {
			/* unowned: the sweep then leaves it alone */
		}
		close(fd);
	}
}

/* Whether dir (a root-only flight recorder directory, as wperf makes
 * them) says it runs with instance. */
static bool owner_alive(const char *dir, const char *instance)
{
	char path[PATH_MAX + 16], running[16] = "", inst[256] = "", *text;
	struct json_want want[] = {
		{ .key = "running", .out = running, .outlen = sizeof(running) },
		{ .key = "instance", .out = inst, .outlen = sizeof(inst) },
	};
	struct stat st;
	bool ok;

	if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 022))
		return lstat(dir, &st) == 0;    /* not wperf's: say nothing of it */
	snprintf(path, sizeof(path), "%s/wperf.json", dir);
	if (lstat(path, &st) != 0)
		return false;
	if (!S_ISREG(st.st_mode) || st.st_uid != 0 || !(text = wperf_read_text(path)))
		return true;
	ok = wperf_json_members(text, want, 2);
	free(text);
	return !ok || (!strcmp(running, "true") && !strcmp(inst, instance));
}

/* Whether the flight recorder registered as dir (its path at the start)
 * and handle (NULL: none) still runs with instance: by its path, else
 * wherever its directory was moved since (found by its handle). A
 * directory removed is gone; one that cannot be told is left alone. */
static bool recorder_alive(const char *dir, const char *handle, const char *instance)
{
	char at[64];
	struct stat st;
	bool alive;
	int fd;

	if (owner_alive(dir, instance))
		return true;
	if (!handle)
		return false;
	if ((fd = wperf_dir_handle_open(handle)) < 0)
		return errno != ESTALE;
	/* "/." : the directory itself, not the /proc link, for lstat. */
	snprintf(at, sizeof(at), "/proc/self/fd/%d/.", fd);
	alive = fstat(fd, &st) == 0 && st.st_nlink > 0 && owner_alive(at, instance);
	close(fd);
	return alive;
}

/* The LTTng session (and trigger) of the gone flight recorder whose
 * instance is `instance` ("wperf-flight-X", its session "wperf-X"): left,
 * it would keep the session daemon a wperf started running for ever. */
static void end_gone_session(const char *instance)
{
	char session[256], trigger[300];

	snprintf(session, sizeof(session), "wperf-%s", instance + strlen("wperf-flight-"));
	snprintf(trigger, sizeof(trigger), "%s-trigger", session);
	if (!wperf_lttng_session_exists(session))
		return;
	wperf_lttng_remove_trigger(trigger);
	if (wperf_lttng_destroy_session(session) == 0)
		wperf_say("destroyed its LTTng session %s", session);
}

void wperf_flight_sweep(const char *tracefs)
{
	char dir[PATH_MAX], path[PATH_MAX], owner[PATH_MAX + 600], *handle;
	struct dirent *e;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/instances", tracefs ? tracefs : "/sys/kernel/tracing");
	if (geteuid() != 0 || !(d = opendir(dir)))
		return;
	while ((e = readdir(d))) {
		ssize_t n;
		int fd;

		if (strncmp(e->d_name, "wperf-flight-", 13))
			continue;
		owner_path(e->d_name, path, sizeof(path));
		if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) < 0)
			continue;       /* no known owner: not ours to judge */
		n = read(fd, owner, sizeof(owner) - 1);
		close(fd);
		owner[n > 0 ? n : 0] = '\0';
		if ((handle = strchr(owner, '\n')))
			*handle++ = '\0';
		if (n <= 0 || recorder_alive(owner, handle, e->d_name))
			continue;
		wperf_say("removing the ftrace instance %s of a flight recorder that is gone "
			  "(%s)", e->d_name, owner);
		if (wperf_flight_remove_instance(tracefs, e->d_name))
			unlink(path);
		end_gone_session(e->d_name);
	}
	closedir(d);
}

/* ------------------------------------------------------------ the trigger watcher */

/* Start `wperf _watch DIR AT`: this binary again, in a session of its
 * own (a terminal's Ctrl-C is not for it), its output in
 * DIR/.wperf/watcher.log (at: DIR's /proc name, out: its path). It opens
 * DIR through at, not through DIR's path, which DIR's user may have
 * swapped meanwhile. Its pid, or -1 after saying why. */
static long start_watcher(const char *out, const char *at)
{
	char log[PATH_MAX];
	char *argv[] = { "wperf", "_watch", (char *)out, (char *)at, NULL };
	pid_t pid;
	int fd;

	snprintf(log, sizeof(log), "%s/" WPERF_PRIVATE "/watcher.log", at);
	if ((fd = wperf_private_fd(log)) < 0) {
		wperf_fail("cannot write %s: %s", log, strerror(errno));
		return -1;
	}
	pid = wperf_spawn_background("/proc/self/exe", argv, fd, WPERF_SPAWN_SETSID);
	close(fd);
	if (pid < 0) {
		wperf_fail("cannot start the trigger watcher: %s", strerror(errno));
		return -1;
	}
	return pid;
}

/* Until the watcher says it listens to the trigger's notifications
 * (DIR/.wperf/watcher-ready): from then on no triggered snapshot goes
 * unnoticed, so `wperf record --snapshot` returns (or starts the
 * command) only then. false after saying why. */
static bool wait_watcher_ready(const char *out, long pid)
{
	char ready[PATH_MAX], log[PATH_MAX], why[1024] = "it ended";

	snprintf(ready, sizeof(ready), "%s/" WPERF_PRIVATE "/watcher-ready", out);
	snprintf(log, sizeof(log), "%s/" WPERF_PRIVATE "/watcher.log", out);
	for (int i = 0; i < 6000; i++) {     /* 60 s: a sanitized build is slow */
		if (access(ready, F_OK) == 0)
			return true;
		if (waitpid((pid_t)pid, NULL, WNOHANG) == (pid_t)pid) {
			wperf_log_last_line(log, why, sizeof(why));
			wperf_fail("the trigger watcher could not start: %s", why);
			return false;
		}
		sleep_ms(10);
	}
	wperf_fail("the trigger watcher did not start within 60 s (see %s)", log);
	return false;
}

/* Whether process pid has a handler for SIGTERM (SigCgt in its status). */
static bool catches_sigterm(long pid)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if (!(f = fopen(path, "r")))
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7)) {
			found = strtoull(line + 7, NULL, 16) & (1ull << (SIGTERM - 1));
			break;
		}
	fclose(f);
	return found;
}

/* Whether pid is the watcher of the flight recorder whose directory dir
 * holds: a `wperf _watch` that holds the same directory (device and
 * inode) open. Found by what it holds, not by a path: DIR may have been
 * moved since (its watcher's command line names the old path), and a
 * watcher that died long ago left its pid in wperf.json, which may now
 * be another flight recorder's watcher, which must not be stopped. */
static bool is_watcher(long pid, int dir)
{
	char path[64], fd_path[PATH_MAX];
	struct stat held, st;
	struct dirent *e;
	bool found = false;
	DIR *fds;

	if (!wperf_runs_watch(pid) || fstat(dir, &held) != 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%ld/fd", pid);
	if (!(fds = opendir(path)))
		return false;
	while (!found && (e = readdir(fds))) {
		snprintf(fd_path, sizeof(fd_path), "%s/%s", path, e->d_name);
		found = e->d_name[0] != '.' && stat(fd_path, &st) == 0 && S_ISDIR(st.st_mode) &&
			st.st_dev == held.st_dev && st.st_ino == held.st_ino;
	}
	closedir(fds);
	return found;
}

/* How long the watcher may take, after SIGTERM, to save what triggered
 * before the stop: LTTng finishing its snapshots (watch.c's FINISH_S,
 * 60 s), then their kernel halves (tens of seconds on a machine loaded
 * several times over). */
#define WATCHER_END_S 180

/* A watcher just started may not have its SIGTERM handler yet, and
 * SIGTERM would kill it, losing the snapshot it is there to save: wait
 * (up to 10 s) until it catches SIGTERM. Then wait for it to end, saying
 * so after 2 s; past WATCHER_END_S it is killed (its half-built snapshot
 * is not kept). */
void wperf_flight_stop_watcher(long pid, int dir)
{
	bool said = false;

	if (!is_watcher(pid, dir))
		return;
	for (int i = 0; i < 200 && !catches_sigterm(pid); i++) {
		waitpid((pid_t)pid, NULL, WNOHANG);    /* when it is our child */
		if (kill((pid_t)pid, 0) != 0)
			return;
		sleep_ms(50);
	}
	if (kill((pid_t)pid, SIGTERM) != 0)
		return;     /* gone, and the pid taken by another process */
	for (int i = 0; i < WATCHER_END_S * 10; i++) {
		waitpid((pid_t)pid, NULL, WNOHANG);
		if (kill((pid_t)pid, 0) != 0)
			return;
		if (!said && i >= WPERF_WAIT_SAY_AFTER * 10) {
			wperf_say("waiting for the trigger watcher (pid %ld) to save the snapshots "
				  "triggered before the stop; giving up after %d s", pid, WATCHER_END_S);
			said = true;
		}
		sleep_ms(100);
	}
	wperf_say("the trigger watcher (pid %ld) did not end within %d s of the stop: killed "
		  "(a snapshot it was saving is not kept)", pid, WATCHER_END_S);
	kill((pid_t)pid, SIGKILL);
}

/* ------------------------------------------------------------ starting */

/* Remove every part made so far; what is already gone is fine. */
static void teardown(const struct wperf_state *state, int dir)
{
	if (state->watcher > 0)
		wperf_flight_stop_watcher(state->watcher, dir);
	if (state->trigger_name)
		wperf_lttng_remove_trigger(state->trigger_name);
	wperf_lttng_destroy_session(state->session);
	if (state->instance)
		wperf_flight_remove_instance(state->tracefs, state->instance);
	wperf_stop_sessiond_if_ours();
}

/* The LTTng half: the snapshot session, started. It has no output of
 * its own: `wperf snapshot` names one for each snapshot, and the trigger
 * (--trigger-on, registered by the watcher: named here for the state)
 * writes into the directory the watcher holds. false after saying why. */
static bool start_session(struct wperf_state *state, const struct wperf_flight_options *opt,
			  char *trigger, size_t len)
{
	char why[1024];

	if (wperf_lttng_create_session(state->session, WPERF_SESSION_SNAPSHOT, NULL,
				       !strcmp(state->kernel, "lttng"), opt->ust_events,
				       opt->buffer_kb, false, why, sizeof(why)))
		goto fail;
	if (opt->trigger_on) {
		snprintf(trigger, len, "%s-trigger", state->session);
		state->trigger_name = trigger;
		state->trigger_event = opt->trigger_on;
		state->trigger_filter = opt->trigger_filter;
	}
	if (wperf_lttng_start(state->session, why, sizeof(why)))
		goto fail;
	return true;
fail:
	wperf_fail("%s", why);
	return false;
}

/* Every part, and DIR/wperf.json; false after saying why, every part
 * made removed again. */
static bool start_parts(const struct wperf_dir *dir, struct wperf_state *state,
			const struct wperf_flight_options *opt, char *instance, size_t ilen,
			char *trigger, size_t tlen)
{
	const char *name = state->session, *out = dir->shown, *at = dir->pid_at;

	if (!strcmp(state->kernel, "tracefs")) {
		snprintf(instance, ilen, "wperf-flight-%s",
			 strncmp(name, "wperf-", 6) ? name : name + 6);
		wperf_flight_sweep(state->tracefs);
		if (!create_instance(state->tracefs, instance, opt->buffer_kb))
			return false;
		register_owner(instance, out, dir->fd);
		state->instance = instance;
	}
	if (!start_session(state, opt, trigger, tlen) || !wperf_state_save(at, state))
		goto fail;
	/* Started once the state is saved: the watcher reads it. */
	if (opt->trigger_on) {
		if ((state->watcher = start_watcher(out, at)) < 0 || !wperf_state_save(at, state) ||
		    !wait_watcher_ready(at, state->watcher))
			goto fail;
	}
	return true;
fail:
	state->running = false;
	teardown(state, dir->fd);
	return false;
}

int wperf_flight_start(const struct wperf_dir *dir, struct wperf_state *state,
		       const struct wperf_flight_options *opt, char *const *command)
{
	static char instance[256], trigger[512];
	const char *out = dir->shown, *at = dir->pid_at;
	bool failed = false;
	char how[512];
	int status;

	state->mode = "flight-recorder";
	state->running = true;
	state->instance = NULL;
	state->watcher = -1;
	state->trigger_name = state->trigger_event = state->trigger_filter = NULL;
	if (!start_parts(dir, state, opt, instance, sizeof(instance), trigger, sizeof(trigger)))
		return WPERF_EXIT_FAIL;
	if (state->instance)
		wperf_say("flight recorder running (session %s, ftrace instance %s): take a "
			  "snapshot with `wperf snapshot %s`, stop it with `wperf stop %s`",
			  state->session, state->instance, out, out);
	else
		wperf_say("flight recorder running (session %s): take a snapshot with "
			  "`wperf snapshot %s`, stop it with `wperf stop %s`",
			  state->session, out, out);
	if (!command)
		return WPERF_EXIT_OK;
	status = wperf_command_run(command, at, 0, state->user, NULL, NULL, &failed);
	/* Its status becomes wperf's: said, or it reads as wperf's failure. */
	if (wperf_command_ending(how, sizeof(how)))
		wperf_say("%s (wperf exits %d); the flight recorder runs on", how, status);
	return status;
}
