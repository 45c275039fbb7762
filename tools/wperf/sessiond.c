/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/sessiond.c — the session daemon a wperf starts when none
 * answers, and stops when it was the last to use it (sessiond.h). Every
 * wperf of a user (record, snapshot's flight recorder, top) shares the
 * lock and the pid file.
 */
#include "sessiond.h"
#include "command.h"
#include "lttng.h"
#include "output.h"
#include "spawn.h"
#include "wperf.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

/* The lock every wperf of this user takes around starting and stopping
 * the session daemon: two recordings started together must not both start
 * one (the second fails), nor one stop it under the other. Its file
 * descriptor (-1 when it cannot be opened: then no lock). */
static int take_lock(void)
{
	char lockpath[PATH_MAX];
	struct stat st;
	int lock;

	shared_path(lockpath, sizeof(lockpath), "lock");
	/* The lock directory may be shared by all users: never follow a
	 * link, and never wait on a lock file another user made (and may
	 * hold for ever). */
	lock = open(lockpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock >= 0 && (fstat(lock, &st) != 0 || st.st_uid != geteuid())) {
		wperf_say("warning: %s belongs to another user: going on without it (remove it)",
			  lockpath);
		close(lock);
		return -1;
	}
	if (lock >= 0)
		flock(lock, LOCK_EX);
	return lock;
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
	snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
	if (pid <= 0 || !(f = fopen(path, "r")))
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

	shared_path(pidfile, sizeof(pidfile), "pid");
	lock = take_lock();
	if (!(pid = our_sessiond(pidfile))) {
		if (lstat(pidfile, &st) == 0)
			unlink(pidfile);   /* gone, or the pid taken by another process */
		goto end;
	}
	if (wperf_lttng_session_count() > 0) {
		wperf_say("leaving lttng-sessiond (pid %ld) running: it has other sessions", pid);
		goto end;
	}
	kill((pid_t)pid, SIGTERM);
	for (int i = 0; i < 100 && kill((pid_t)pid, 0) == 0; i++)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
	unlink(pidfile);
end:
	if (lock >= 0)
		close(lock);
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
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
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
	status = run_sessiond(pidfile, fd);
	if (status < 0)
		snprintf(why, sizeof(why), "cannot run lttng-sessiond: %s", strerror(errno));
	close(fd);
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

long wperf_ensure_sessiond(const char *private_dir)
{
	int lock = take_lock();
	long pid = 0;

	/* `lttng list` answers: one runs (root's, or this user's). */
	if (wperf_lttng_session_count() < 0)
		pid = start_sessiond(private_dir);
	if (lock >= 0)
		close(lock);
	return pid;
}
