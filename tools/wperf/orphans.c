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
#include "waits.h"
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

/* ------------------------------------------------------------ triggers */

bool wperf_runs_watch(long pid)
{
	char path[64], cmdline[256];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if (pid <= 0 || !(f = fopen(path, "r")))
		return false;
	n = fread(cmdline, 1, sizeof(cmdline) - 1, f);
	fclose(f);
	cmdline[n] = '\0';
	return strlen(cmdline) + 1 < n && !strcmp(cmdline + strlen(cmdline) + 1, "_watch");
}

/* The pid of the watcher whose held directory trigger t writes its
 * snapshots into (/proc/PID/fd/N/..., watch.c), else 0. */
static long watcher_of(const struct lttng_trigger *t)
{
	const struct lttng_action *list = lttng_trigger_get_const_action(t), *a;
	const struct lttng_snapshot_output *out;
	unsigned int count = 0;
	const char *url;

	if (!list || lttng_action_list_get_count(list, &count) != LTTNG_ACTION_STATUS_OK)
		return 0;
	for (unsigned int i = 0; i < count; i++) {
		if (!(a = lttng_action_list_get_at_index(list, i)) ||
		    lttng_action_get_type(a) != LTTNG_ACTION_TYPE_SNAPSHOT_SESSION ||
		    lttng_action_snapshot_session_get_output(a, &out) != LTTNG_ACTION_STATUS_OK ||
		    !(url = lttng_snapshot_output_get_ctrl_url(out)))
			continue;
		if (!strncmp(url, "file://", 7))
			url += 7;
		if (!strncmp(url, "/proc/", 6))
			return pid_of(url + 6, strspn(url + 6, "0123456789"));
	}
	return 0;
}

/* Trigger t is wperf's (named "wperf-...-trigger", this user's) and the
 * watcher it writes for is dead: its pid gone, or taken by a process
 * that is no watcher, whose descriptor N the snapshots would go into. */
static bool orphaned_trigger(const struct lttng_trigger *t, const char **name)
{
	size_t len;
	uid_t owner;
	long pid;

	if (lttng_trigger_get_name(t, name) != LTTNG_TRIGGER_STATUS_OK || !*name ||
	    strncmp(*name, "wperf-", 6) || (len = strlen(*name)) < 14 ||
	    strcmp(*name + len - 8, "-trigger") ||
	    lttng_trigger_get_owner_uid(t, &owner) != LTTNG_TRIGGER_STATUS_OK ||
	    owner != geteuid() || !(pid = watcher_of(t)))
		return false;
	return wperf_pid_gone(pid) || !wperf_runs_watch(pid);
}

void wperf_sweep_orphaned_triggers(void)
{
	struct lttng_triggers *triggers = NULL;
	unsigned int count = 0;
	enum lttng_error_code ret;

	if (!wperf_ctl_begin("listing triggers", WPERF_CTL_ASK_S, NULL, 0))
		return;
	ret = lttng_list_triggers(&triggers);
	if (wperf_ctl_end(NULL, 0) || ret != LTTNG_OK ||
	    lttng_triggers_get_count(triggers, &count) != LTTNG_TRIGGER_STATUS_OK)
		count = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(triggers, i);
		const char *name = NULL;
		int rc;

		if (!t || !orphaned_trigger(t, &name) ||
		    !wperf_ctl_begin("removing a trigger", WPERF_CTL_DO_S, NULL, 0))
			continue;
		rc = lttng_unregister_trigger(t);
		if (!wperf_ctl_end(NULL, 0) && rc == 0)
			wperf_say("removed LTTng trigger %s, left by a trigger watcher that was killed "
				  "(pid %ld)", name, watcher_of(t));
	}
	lttng_triggers_destroy(triggers);
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
