/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/orphans.c — the sweep of what killed wperfs leave behind
 * (orphans.h). SIGKILL cannot be caught: a wperf killed so leaves what it
 * would have removed in its teardown. Everything it makes carries its pid
 * in the name, so that the next wperf can tell an orphan (its pid gone)
 * from the live work of another wperf running at the same time (its pid
 * alive), which it must never touch. A pid reused by an unrelated process
 * makes an orphan look alive: it is then left, never the other way round.
 */
#include "orphans.h"
#include "safe-dir.h"
#include "wperf.h"

#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <lttng/lttng.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TOP_PREFIX "wperf-top-"

/* The decimal number s[0..n) (no sign, no leading zero), else 0. */
static long pid_of(const char *s, size_t n)
{
	long pid = 0;

	if (!n || n > 9 || s[0] < '1' || s[0] > '9')
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		pid = pid * 10 + (s[i] - '0');
	}
	return pid;
}

long wperf_session_owner(const char *name)
{
	const char *dash = strrchr(name, '-');

	/* "wperf-<name>-<pid>" or "wperf-top-<pid>": at least one part
	 * between "wperf-" and the pid. */
	if (strncmp(name, "wperf-", 6) || !dash || dash < name + 6)
		return 0;
	return pid_of(dash + 1, strlen(dash + 1));
}

bool wperf_pid_gone(long pid)
{
	return pid > 0 && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Session s is one a killed wperf left: a wperf name, its owner's pid
 * gone, not a snapshot session (a flight recorder outlives its wperf). */
static bool orphaned(const struct lttng_session *s)
{
	return !s->snapshot_mode && wperf_pid_gone(wperf_session_owner(s->name));
}

void wperf_sweep_orphaned_sessions(void)
{
	struct lttng_session *sessions = NULL;
	int n = lttng_list_sessions(&sessions);

	for (int i = 0; i < n; i++) {
		if (!orphaned(&sessions[i]) || lttng_destroy_session(sessions[i].name) != 0)
			continue;
		wperf_say("destroyed LTTng session %s, left recording by a killed wperf (pid %ld); "
			  "its trace is in %s", sessions[i].name,
			  wperf_session_owner(sessions[i].name),
			  sessions[i].path[0] ? sessions[i].path : "its output");
	}
	free(sessions);
}

int wperf_destroy_if_orphaned(const char *name)
{
	struct lttng_session *sessions = NULL;
	int n = lttng_list_sessions(&sessions), rc = 0;

	for (int i = 0; i < n; i++)
		if (!strcmp(sessions[i].name, name) && orphaned(&sessions[i]))
			rc = lttng_destroy_session(name) == 0 ? 1 : -1;
	free(sessions);
	return rc;
}

void wperf_top_workdir_template(char *tmpl, size_t len)
{
	snprintf(tmpl, len, "/tmp/" TOP_PREFIX "%ld-XXXXXX", (long)getpid());
}

/* name is "wperf-top-<pid>-XXXXXX" and that pid is gone. */
static bool orphaned_workdir(const char *name)
{
	const char *pid, *dash;

	if (strncmp(name, TOP_PREFIX, strlen(TOP_PREFIX)))
		return false;
	pid = name + strlen(TOP_PREFIX);
	if (!(dash = strchr(pid, '-')) || strlen(dash + 1) != 6)
		return false;
	return wperf_pid_gone(pid_of(pid, (size_t)(dash - pid)));
}

void wperf_sweep_top_workdirs(void)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	struct stat st;

	while (d && (e = readdir(d))) {
		if (!orphaned_workdir(e->d_name))
			continue;
		/* Ours as mkdtemp() made it: a directory, not a link, this user's,
		 * 0700. /tmp is sticky: no other user can rename it meanwhile. */
		if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077))
			continue;
		wperf_remove_tree_at(dirfd(d), e->d_name);
	}
	if (d)
		closedir(d);
}
