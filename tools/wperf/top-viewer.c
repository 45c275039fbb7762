/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/top-viewer.c — the process that runs `wperf top`'s
 * babeltrace2 graph (top.h), for both of its paths: the ftrace one
 * (top.c) and the LTTng live one (top-live.c), which both use it and
 * which it uses neither of.
 *
 * Why a process, not a thread. The graph runs in-process
 * (wperf_bt_run_source, from the plugins this process loaded), but in a
 * forked child, as babeltrace2 was run before: (1) `wperf top | head`
 * must end quietly: the child dies of SIGPIPE at the first write after
 * the reader left, and this process, seeing its standard output closed,
 * says nothing, where a thread would have the whole command fail or need
 * the sink to treat EPIPE as an end; (2) the stop signals are this
 * process's while source.wperf.tracefs takes the first one of its own
 * process to end its trace cleanly: in one process they would compete;
 * (3) the child runs in a session of its own (the terminal's Ctrl-C is
 * ours, to end the LTTng session first and let the final report come)
 * and a graph that does not end can be killed after 120 s, which a
 * thread cannot. The child gets SIGINT if this process dies.
 */
#include "wperf.h"
#include "bt-failure.h"
#include "bt-graph.h"
#include "command.h"
#include "top.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

bool top_viewer_ends_input;

double top_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Standard output is a pipe whose reader has gone (`wperf top | head`). */
static bool stdout_closed(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };

	return poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP));
}

/* In the child: run the graph, exit with its outcome. */
static void viewer_main(pid_t parent, const struct wperf_bt *bt, const bt_plugin *plugin,
			const char *cls, const bt_value *source_params,
			const bt_value *sink_params)
{
	static const int defaults[] = { SIGINT, SIGTERM, SIGHUP, SIGPIPE };
	struct wperf_run run;
	char why[4096];
	int null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	sigset_t none;

	setsid();
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]); i++)
		signal(defaults[i], SIG_DFL);
	/* Nobody left to stop it (wperf killed): stop as on Ctrl-C. */
	prctl(PR_SET_PDEATHSIG, SIGINT);
	if (getppid() != parent)
		_exit(1);
	if (null >= 0)
		dup2(null, STDIN_FILENO);
	if (top_viewer_ends_input)
		wperf_bt_handle_sigint_as_end();
	/* Blocked since the fork (top_viewer_start): a SIGINT sent meanwhile
	 * comes now, to this process's own handling of it. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	wperf_bt_run_source(bt, plugin, cls, source_params, bt->wperf, "knots", sink_params,
			    false, &run);
	if (run.status == WPERF_RUN_INTERRUPTED && top_viewer_ends_input) {
		fflush(NULL);
		_exit(0);
	}
	if (run.status != WPERF_RUN_OK && !stdout_closed()) {
		wperf_run_failure(&run, why, sizeof(why));
		wperf_fail("%s", why);
	}
	fflush(NULL);
	_exit(run.status == WPERF_RUN_OK ? 0 : 1);
}

bool top_viewer_start(struct top_viewer *v, const struct wperf_bt *bt,
		      const bt_plugin *source_plugin, const char *source_class,
		      const bt_value *source_params, const bt_value *sink_params)
{
	pid_t parent = getpid();

	sigset_t sigint, old;

	memset(v, 0, sizeof(*v));
	fflush(NULL);
	/* Until the child has its own handling of SIGINT, it has ours, which
	 * only counts it in the child's copy of our memory: a stop sent at
	 * once would be lost. */
	sigemptyset(&sigint);
	sigaddset(&sigint, SIGINT);
	sigprocmask(SIG_BLOCK, &sigint, &old);
	v->pid = fork();
	if (v->pid == 0)
		viewer_main(parent, bt, source_plugin, source_class, source_params, sink_params);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (v->pid < 0) {
		wperf_fail("cannot start the babeltrace2 graph: fork: %s", strerror(errno));
		return false;
	}
	return true;
}

bool top_viewer_ended(struct top_viewer *v)
{
	if (!v->ended && v->pid > 0 && waitpid(v->pid, &v->status, WNOHANG) == v->pid)
		v->ended = true;
	return v->ended;
}

bool top_viewer_wait(struct top_viewer *v, double deadline)
{
	while (deadline <= 0 || top_now() < deadline) {
		if (wperf_stop_signal_take())
			return true;
		if (top_viewer_ended(v))
			return false;
		usleep(50000);
	}
	return false;
}

int top_viewer_finish(struct top_viewer *v, const char *what)
{
	double end = top_now() + 120;

	while (!top_viewer_ended(v) && top_now() < end)
		usleep(50000);
	if (!v->ended) {
		kill(v->pid, SIGKILL);
		waitpid(v->pid, &v->status, 0);
		v->ended = true;
		return wperf_fail("the babeltrace2 graph did not end within 120 s of %s", what);
	}
	if (WIFEXITED(v->status) && WEXITSTATUS(v->status) == 0)
		return WPERF_EXIT_OK;
	if (stdout_closed())
		return WPERF_EXIT_OK;   /* the reader went away: say nothing */
	if (WIFSIGNALED(v->status))
		return wperf_fail("the babeltrace2 graph was killed by signal %d (%s)",
				  WTERMSIG(v->status), strsignal(WTERMSIG(v->status)));
	return WPERF_EXIT_FAIL;     /* the graph's process said why */
}
