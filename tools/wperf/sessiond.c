/*
 * tools/wperf/sessiond.c — stopping the session daemon a wperf started
 * (sessiond.h). The lock and pid file are shared with the Python half
 * (tools/wperf.py: sessiond_lock(), wperf_sessiond_pidfile()).
 */
#include "sessiond.h"
#include "lttng.h"
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
#include <time.h>
#include <unistd.h>

/* /run/lock (or the temporary directory)/wperf-sessiond-UID.SUFFIX */
static void shared_path(char *out, size_t len, const char *suffix)
{
	const char *dir = "/run/lock";

	if (access(dir, W_OK) != 0) {
		dir = getenv("TMPDIR");
		if (!dir || !*dir)
			dir = "/tmp";
	}
	snprintf(out, len, "%s/wperf-sessiond-%u.%s", dir, (unsigned)getuid(), suffix);
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
	char lockpath[PATH_MAX], pidfile[PATH_MAX];
	struct stat st;
	long pid;
	int lock;

	shared_path(lockpath, sizeof(lockpath), "lock");
	shared_path(pidfile, sizeof(pidfile), "pid");
	/* The lock directory is shared by all users: never follow a link. */
	lock = open(lockpath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (lock >= 0)
		flock(lock, LOCK_EX);
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
