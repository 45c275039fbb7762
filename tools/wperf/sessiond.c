/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/sessiond.c — the session daemon a wperf starts when none
 * answers, and stops when it was the last to use it (sessiond.h). Every
 * wperf of a user (record, snapshot's flight recorder, top) shares the
 * lock, the pid file and the users' file.
 *
 * The users' file (...UID.use) is what makes "the last to use it" true
 * with many wperfs at once: each one that ensured the daemon holds a
 * shared flock on it until it ends; the one about to stop the daemon
 * must get it exclusively (without waiting), else another wperf is
 * between its start and its session and the daemon stays. Counting
 * sessions alone let a wperf stop the daemon under one that had just
 * found it running ("No session daemon is available").
 *
 * The lock is only taken when no daemon answers (to start one) and to
 * stop one: a wperf whose daemon is wedged never holds it while it
 * waits, so it blocks no other wperf (waits.h bounds every wait).
 */
#include "sessiond.h"
#include "command.h"
#include "lttng.h"
#include "output.h"
#include "procs.h"
#include "spawn.h"
#include "waits.h"
#include "wperf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* DIR/wperf-sessiond-UID.SUFFIX. DIR is /run for root: only root writes
 * there, so no other user can plant or hold root's lock (/run/lock is
 * every user's); /run/lock (or the temporary directory) for the others. */
static void shared_path(char *out, size_t len, const char *suffix)
{
	const char *dir = geteuid() == 0 ? "/run" : "/run/lock";

	if (access(dir, W_OK) != 0) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	snprintf(out, len, "%s/wperf-sessiond-%u.%s", dir, (unsigned)getuid(), suffix);
}

/* Longest wait for the lock: its holder starts or stops a daemon, each
 * bounded (START_GIVE_UP_S, STOP_WAIT_S) plus a question (waits.h). */
#define LOCK_GIVE_UP_S 120.0
#define START_GIVE_UP_S 60.0
#define STOP_WAIT_S 5.0

/* The lock every wperf of this user takes around starting and stopping
 * the session daemon: two recordings started together must not both start
 * one (the second fails), nor one stop it under the other. Its file
 * descriptor; -1 when it cannot be opened (then no lock), or
 * WPERF_LOCK_GIVEN_UP (said). The directory may be shared by all users:
 * never through a link, never a file another user made (waits.c). */
static int take_lock(void)
{
	char lockpath[PATH_MAX];

	shared_path(lockpath, sizeof(lockpath), "lock");
	return wperf_lock_wait(lockpath, "starting or stopping lttng-sessiond",
			       LOCK_GIVE_UP_S);
}

/* This process's shared hold on the users' file, for its whole run. */
static int use_fd = -1;

/*
 * A forked child (the kernel recorder, a watcher, top's refreshes) shares
 * the hold's open file and so the lock, which then lasts until the child
 * ends too: the last wperf to end, its recorder still closing, found
 * another user and left the daemon running. The hold is the parent's:
 * the child closes its copy (close, not LOCK_UN, which would drop the
 * parent's lock).
 */
static void forget_use_in_child(void)
{
	if (use_fd >= 0) {
		close(use_fd);
		use_fd = -1;
	}
}

static void hold_use(void)
{
	static bool atfork;
	char path[PATH_MAX];
	struct stat st;

	if (use_fd >= 0)
		return;
	if (!atfork)
		atfork = pthread_atfork(NULL, NULL, forget_use_in_child) == 0;
	shared_path(path, sizeof(path), "use");
	use_fd = open(path, O_RDONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (use_fd >= 0 && (fstat(use_fd, &st) != 0 || st.st_uid != geteuid())) {
		close(use_fd);
		use_fd = -1;
		return;
	}
	/* Only a stopper holds it exclusively, for at most STOP_WAIT_S. */
	for (int i = 0; use_fd >= 0 && flock(use_fd, LOCK_SH | LOCK_NB) != 0 && i < 400; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
}

/* Whether no other wperf uses the daemon: the users' file taken
 * exclusively, without waiting (this process's own hold given up). */
static bool sole_user(void)
{
	char path[PATH_MAX];
	int fd;

	shared_path(path, sizeof(path), "use");
	if (use_fd >= 0) {
		close(use_fd);
		use_fd = -1;
	}
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return true;
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		close(fd);
		return false;
	}
	use_fd = fd;    /* held until this process ends */
	return true;
}

/* The pid in the pid file, when it is ours and names a running session
 * daemon; 0 otherwise. */
static long our_sessiond(const char *pidfile)
{
	char text[32] = "", comm[64] = "", path[64];
	struct stat st;
	ssize_t n;
	long pid;
	int fd = open(pidfile, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || n <= 0) {
		close(fd);
		return 0;
	}
	close(fd);
	pid = strtol(text, NULL, 10);
	/* A stale pid file (the daemon died, its pid reused): another
	 * user's own lttng-sessiond may have that pid now, and must not get
	 * this user's SIGTERM. The daemon a wperf started runs as its uid
	 * (procs.h: whose a process is). */
	if (pid <= 0 || !wperf_process_is(pid, geteuid()))
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (!(f = fopen(path, "r")))
		return 0;
	if (!fgets(comm, sizeof(comm), f))
		comm[0] = '\0';
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return strcmp(comm, "lttng-sessiond") ? 0 : pid;
}

void wperf_stop_sessiond_if_ours(void)
{
	char pidfile[PATH_MAX];
	struct stat st;
	long pid;
	int lock;

	if (wperf_ctl_wedged()) {
		wperf_say("leaving lttng-sessiond as it is: it does not answer");
		return;
	}
	shared_path(pidfile, sizeof(pidfile), "pid");
	if ((lock = take_lock()) == WPERF_LOCK_GIVEN_UP)
		return;
	if (!(pid = our_sessiond(pidfile))) {
		if (lstat(pidfile, &st) == 0)
			unlink(pidfile);   /* gone, or the pid taken by another process */
		goto end;
	}
	if (!sole_user())
		goto end;       /* another wperf is starting its session in it */
	if (wperf_lttng_session_count() != 0) {
		if (!wperf_ctl_wedged())
			wperf_say("leaving lttng-sessiond (pid %ld) running: it has other "
				  "sessions", pid);
		goto end;
	}
	kill((pid_t)pid, SIGTERM);
	for (int i = 0; i < STOP_WAIT_S * 20 && kill((pid_t)pid, 0) == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	if (kill((pid_t)pid, 0) == 0)
		wperf_say("lttng-sessiond (pid %ld) did not end within %.0f s of SIGTERM: end it "
			  "with kill -9 %ld", pid, STOP_WAIT_S, pid);
	unlink(pidfile);
end:
	wperf_lock_release(lock);
}

/* ------------------------------------------------------------ starting one */

/* Run `lttng-sessiond --daemonize --pidfile=PIDFILE`, its output into
 * log_fd, and wait for it: with --daemonize it returns once the daemon
 * accepts commands. Its exit status (as a shell says it), or -1 with
 * errno when it could not be run. */
static int run_sessiond(const char *pidfile, int log_fd)
{
	char opt[PATH_MAX + 16];
	char *argv[] = { "lttng-sessiond", "--daemonize", opt, NULL };
	int status = 0;
	pid_t pid;

	snprintf(opt, sizeof(opt), "--pidfile=%s", pidfile);
	if ((pid = wperf_spawn_background("lttng-sessiond", argv, log_fd,
					  WPERF_SPAWN_NO_PRELOAD)) < 0)
		return -1;
	for (int tick = 0; waitpid(pid, &status, WNOHANG) != pid; tick++) {
		if (tick == (int)(WPERF_WAIT_SAY_AFTER * 20))
			wperf_say("waiting for lttng-sessiond (pid %ld) to start; giving up after "
				  "%.0f s", (long)pid, START_GIVE_UP_S);
		if (wperf_stop_signal_pending() || tick >= (int)(START_GIVE_UP_S * 20)) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			errno = wperf_stop_signal_pending() ? EINTR : ETIMEDOUT;
			return -1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The pid a daemon wrote in pidfile, or -1. */
static long read_pid(const char *pidfile)
{
	char text[32] = "";
	FILE *f = fopen(pidfile, "r");
	long pid;

	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f))
		text[0] = '\0';
	fclose(f);
	pid = strtol(text, NULL, 10);
	return pid > 0 ? pid : -1;
}

#define SHARED 1000       /* start_or_share: another daemon serves us */
#define REFUSED_TRIES 5   /* refusals to wait out, a second apart */

/*
 * run_sessiond(), but when it refuses because a daemon runs that does not
 * answer yet (one starting outside wperf's lock: a user's own
 * `lttng-sessiond -d`, another tool), or one that is still ending (a
 * killed wperf's, being stopped), wait a second and look again: use the
 * first that answers (SHARED: not ours to stop), or start again once it
 * is gone. Its exit status otherwise, as run_sessiond's.
 */
static int start_or_share(const char *pidfile, int log_fd)
{
	int status = run_sessiond(pidfile, log_fd);

	for (int i = 0; status > 0 && i < REFUSED_TRIES && !wperf_stop_signal_pending(); i++) {
		if (wperf_lttng_session_count() >= 0)
			break;
		nanosleep(&(struct timespec){ .tv_sec = 1 }, NULL);
		if (wperf_lttng_session_count() >= 0)
			break;
		status = run_sessiond(pidfile, log_fd);
	}
	if (status > 0 && wperf_lttng_session_count() >= 0) {
		wperf_say("using the lttng-sessiond that started beside this one");
		return SHARED;
	}
	return status;
}

/* Start one with its log and pid file in private_dir, and say in the
 * shared pid file that a wperf started it. Its pid, or -1 after saying
 * why. Called with the lock held. */
static long start_sessiond(const char *private_dir)
{
	char log[PATH_MAX], pidfile[PATH_MAX], shared[PATH_MAX], why[1024] = "";
	long pid;
	int fd, status;
	FILE *f;

	if (!wperf_on_path("lttng-sessiond")) {
		wperf_fail("lttng-sessiond is missing: install it (apt-get install lttng-tools)");
		return -1;
	}
	snprintf(log, sizeof(log), "%s/sessiond.log", private_dir);
	snprintf(pidfile, sizeof(pidfile), "%s/sessiond.pid", private_dir);
	if ((fd = wperf_private_fd(log)) < 0) {
		wperf_fail("cannot write %s: %s", log, strerror(errno));
		return -1;
	}
	status = start_or_share(pidfile, fd);
	if (status < 0)
		snprintf(why, sizeof(why), "cannot run lttng-sessiond: %s", strerror(errno));
	close(fd);
	if (status == SHARED)
		return 0;
	if (status != 0 || wperf_lttng_session_count() < 0) {
		if (status > 0 || !why[0])
			snprintf(why, sizeof(why), "exit status %d", status);
		wperf_log_last_line(log, why, sizeof(why));
		wperf_fail("no lttng-sessiond is running and none could be started: %s", why);
		return -1;
	}
	if ((pid = read_pid(pidfile)) < 0) {
		wperf_fail("lttng-sessiond started but wrote no pid in %s", pidfile);
		return -1;
	}
	shared_path(shared, sizeof(shared), "pid");
	if ((fd = wperf_private_fd(shared)) < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		wperf_say("warning: cannot write %s: %s (the session daemon wperf started "
			  "will not be stopped)", shared, strerror(errno));
		return pid;
	}
	fprintf(f, "%ld\n", pid);
	fclose(f);
	return pid;
}

/* After a question went unanswered: false after saying why, when the
 * daemon is wedged rather than absent. */
static bool not_wedged(void)
{
	if (!wperf_ctl_wedged())
		return true;
	wperf_fail("%s", wperf_ctl_wedged());
	return false;
}

long wperf_ensure_sessiond(const char *private_dir)
{
	long pid = 0;
	int lock;

	hold_use();
	/* `lttng list` answers: one runs (root's, or this user's). Asked
	 * without the lock, which a wedged daemon would make us hold. */
	if (wperf_lttng_session_count() >= 0)
		return 0;
	if (!not_wedged() || (lock = take_lock()) == WPERF_LOCK_GIVEN_UP)
		return -1;
	if (wperf_lttng_session_count() < 0)
		pid = not_wedged() ? start_sessiond(private_dir) : -1;
	wperf_lock_release(lock);
	return pid;
}
