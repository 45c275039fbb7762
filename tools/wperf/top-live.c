/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/top-live.c — `wperf top` with LTTng's kernel tracer: a live
 * session (the wperf profile's events, lttng.c) streamed to the local
 * lttng-relayd, read by source.ctf.lttng-live into sink.wperf.knots;
 * destroying the session ends the source (session-not-found-action=end),
 * and the sink writes its final report.
 *
 * What it owns: our own lttng-relayd (not daemonized, so its pid is ours
 * to stop; a running one is used instead), the session's life, and
 * waiting until the viewer is attached — the relay daemon's session list,
 * asked in-process with source.ctf.lttng-live's `sessions` query (what
 * `babeltrace2 -i lttng-live net://127.0.0.1` prints) — so that the
 * statedump regenerated then reaches the viewer.
 */
#include "wperf.h"
#include "command.h"
#include "lttng.h"
#include "procs.h"
#include "sessiond.h"
#include "spawn.h"
#include "top.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define RELAY_URL "net://127.0.0.1"     /* not localhost: a minimal system may lack /etc/hosts */

/* ------------------------------------------------------------ lttng-relayd */

/* The pid of a running lttng-relayd, or 0. */
static long running_relayd(void)
{
	DIR *proc = opendir("/proc");
	struct dirent *e;
	long found = 0;

	while (proc && !found && (e = readdir(proc))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		if (fgets(comm, sizeof(comm), f) && !strcmp(comm, "lttng-relayd\n"))
			found = strtol(e->d_name, NULL, 10);
		fclose(f);
	}
	if (proc)
		closedir(proc);
	return found;
}

/* Our own lttng-relayd on the default ports (the live port is 5344),
 * writing into work/relayd: its pid; 0 when one runs already (then it is
 * used); -1 after saying why. */
static pid_t start_relayd(const char *work)
{
	char log[4200], dir[4200], why[1024] = "";
	char *argv[] = { "lttng-relayd", "-o", dir, NULL };
	long running = running_relayd();
	pid_t pid;
	int fd, status;

	if (running) {
		long uid = wperf_process_uid(running);

		/* A relay daemon of another user would receive this machine's
		 * kernel events, and ours could not listen beside it. Whose it
		 * is: procs.h's one rule (not the owner of /proc/PID). */
		if (uid != (long)geteuid()) {
			char whose[64];

			if (uid >= 0)
				snprintf(whose, sizeof(whose), "belongs to uid %ld, not to you", uid);
			else
				snprintf(whose, sizeof(whose), "has uids of several users, not yours alone");
			wperf_fail("the running lttng-relayd (pid %ld) %s: "
				   "wperf top streams kernel events only to its own; stop that one "
				   "(kill %ld) and run wperf top again", running, whose, running);
			return -1;
		}
		wperf_say("using the running lttng-relayd (pid %ld)", running);
		return 0;
	}
	snprintf(log, sizeof(log), "%s/relayd.log", work);
	snprintf(dir, sizeof(dir), "%s/relayd", work);
	/* In a session of its own, without the preloads of a test run. */
	fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	pid = wperf_spawn_background("lttng-relayd", argv, fd,
				     WPERF_SPAWN_SETSID | WPERF_SPAWN_NO_PRELOAD);
	if (fd >= 0)
		close(fd);
	if (pid < 0) {
		wperf_fail("lttng-relayd could not start: %s", strerror(errno));
		return -1;
	}
	/* Listening takes a moment; a relayd that cannot (ports taken) exits. */
	for (int i = 0; i < 20; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid) {
			wperf_log_last_line(log, why, sizeof(why));
			if (!*why)
				snprintf(why, sizeof(why), "exit status %d",
					 WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
			wperf_fail("lttng-relayd could not start: %s", why);
			return -1;
		}
		usleep(50000);
	}
	return pid;
}

/* SIGTERM, 10 s, then SIGKILL. */
static void stop_process(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGTERM);
	for (int i = 0; i < 200; i++) {
		if (waitpid(pid, NULL, WNOHANG) == pid)
			return;
		usleep(50000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
}

/* ------------------------------------------------------------ the viewer */

static uint64_t count_of(const bt_value *v)
{
	if (v && bt_value_is_unsigned_integer(v))
		return bt_value_integer_unsigned_get(v);
	if (v && bt_value_is_signed_integer(v) && bt_value_integer_signed_get(v) > 0)
		return (uint64_t)bt_value_integer_signed_get(v);
	return 0;
}

/* The relay daemon lists a viewer (a client) of session `name`. */
static bool viewer_listed(const struct wperf_bt *bt, const char *name)
{
	const bt_component_class *live = bt_component_class_source_as_component_class_const(
		bt_plugin_borrow_source_component_class_by_name_const(bt->ctf, "lttng-live"));
	bt_value *params = bt_value_map_create();
	const bt_value *list = NULL;
	bt_query_executor *q = NULL;
	bool found = false;

	if (live && params && !bt_value_map_insert_string_entry(params, "url", RELAY_URL) &&
	    (q = bt_query_executor_create(live, "sessions", params))) {
		bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
		if (bt_query_executor_query(q, &list) == BT_QUERY_EXECUTOR_QUERY_STATUS_OK &&
		    bt_value_is_array(list)) {
			for (uint64_t i = 0; !found && i < bt_value_array_get_length(list); i++) {
				const bt_value *s = bt_value_array_borrow_element_by_index_const(list, i);
				const bt_value *n = bt_value_map_borrow_entry_value_const(s, "session-name");

				found = n && bt_value_is_string(n) && !strcmp(bt_value_string_get(n), name) &&
					count_of(bt_value_map_borrow_entry_value_const(s, "client-count")) > 0;
			}
		}
	}
	bt_current_thread_clear_error();
	bt_value_put_ref(list);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return found;
}

/* Until the relay daemon lists a viewer of session `name` (1), or the
 * viewer ended or 60 s passed (0), or a stop signal came (-1). */
static int wait_attached(const struct wperf_bt *bt, struct top_viewer *v, const char *name)
{
	double end = top_now() + 60;

	while (top_now() < end && !top_viewer_ended(v)) {
		if (viewer_listed(bt, name))
			return 1;
		for (int i = 0; i < 10; i++) {
			if (wperf_stop_signal_take())
				return -1;
			usleep(50000);
		}
	}
	return 0;
}

/* The live source's parameters: the session's URL, and an end when the
 * session is gone rather than a wait for another one of that name
 * (babeltrace2-source.ctf.lttng-live(7)). */
static bt_value *live_params(const char *name)
{
	bt_value *params = bt_value_map_create(), *inputs = bt_value_array_create();
	struct utsname u;
	char url[1024];
	bool ok;

	uname(&u);
	snprintf(url, sizeof(url), RELAY_URL "/host/%s/%s", u.nodename, name);
	ok = params && inputs && !bt_value_array_append_string_element(inputs, url) &&
	     !bt_value_map_insert_entry(params, "inputs", inputs) &&
	     !bt_value_map_insert_string_entry(params, "session-not-found-action", "end");
	bt_value_put_ref(inputs);
	if (!ok) {
		bt_value_put_ref(params);
		return NULL;
	}
	return params;
}

/* ------------------------------------------------------------ the session */

/* Create and start the live session; false after saying why. */
static bool start_session(const char *name, long buffer_kb)
{
	char why[1024];

	if (wperf_lttng_create_session(name, WPERF_SESSION_LIVE, NULL, true, "wperf:*",
				       (unsigned)buffer_kb, false, why, sizeof(why)) ||
	    wperf_lttng_start(name, why, sizeof(why))) {
		wperf_fail("%s", why);
		return false;
	}
	return true;
}

/* Watch through the viewer until a stop; the exit status, or -1 when
 * the viewer ran to its end (then finish it). */
static int watch_live(const struct top_args *a, const struct wperf_bt *bt,
		      const bt_value *sink, const char *name, struct top_viewer *v)
{
	bt_value *source = live_params(name);
	double deadline = a->duration > 0 ? top_now() + a->duration : 0;
	char why[1024];
	int attached;

	if (!source)
		return wperf_fail("out of memory");
	wperf_say("watching through LTTng live session %s (kernel events: lttng), a report "
		  "every %s; Ctrl-C for the final report", name, a->every);
	if (!top_viewer_start(v, bt, bt->ctf, "lttng-live", source, sink)) {
		bt_value_put_ref(source);
		return WPERF_EXIT_FAIL;
	}
	bt_value_put_ref(source);
	if ((attached = wait_attached(bt, v, name)) < 0)
		return wperf_interrupted_status();
	/* A viewer may begin after the statedump of the start: every
	 * thread's name and state again, now that it reads. */
	if (attached)
		wperf_lttng_regenerate_statedump(name, why, sizeof(why));
	top_viewer_wait(v, deadline);
	return -1;
}

int top_lttng(const struct top_args *a, const struct wperf_bt *bt,
	      const bt_value *sink, const char *work)
{
	struct top_viewer v = { .pid = -1 };
	char name[64];
	pid_t relayd;
	int rc = WPERF_EXIT_FAIL, finished;

	snprintf(name, sizeof(name), "wperf-top-%ld", (long)getpid());
	if ((relayd = start_relayd(work)) >= 0 && start_session(name, a->buffer_kb))
		rc = watch_live(a, bt, sink, name, &v);
	/* Teardown: a second Ctrl-C, a kill or a closed terminal must not
	 * leave the session, the relay or the session daemon behind. */
	wperf_stop_signals_ignore();
	wperf_lttng_destroy_session(name);
	if (v.pid > 0) {
		finished = top_viewer_finish(&v, "the session's end");
		if (rc < 0)
			rc = finished;
	}
	stop_process(relayd);
	wperf_stop_sessiond_if_ours();
	if (rc > 128)
		wperf_say("interrupted");
	return rc;
}
