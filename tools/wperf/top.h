/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/top.h — what the parts of `wperf top` share: top.c (the
 * command, its options, the ftrace path), top-live.c (the LTTng path:
 * lttng-relayd, the live session, waiting for the viewer to attach) and
 * top-viewer.c (the process that runs the graph, which both use).
 */
#ifndef WPERF_TOOL_TOP_H
#define WPERF_TOOL_TOP_H

#include "bt-graph.h"

#include <stdbool.h>
#include <sys/types.h>

/* The options of `wperf top` (wperf(1)). */
struct top_args {
	const char *every, *format, *output, *pids, *comms, *threshold, *min_weight;
	const char *params, *plugin_path;
	const char *relay, *hosts;   /* --relay URL --hosts LIST: top-relay.c */
	double duration;        /* <= 0: until Ctrl-C */
	long buffer_kb;
	bool help;
};

/* The process running the graph (see top-viewer.c: why a process). */
struct top_viewer {
	pid_t pid;
	bool ended;
	int status;             /* its wait status, once ended */
};

/* Start the graph source_class of source_plugin -> muxer ->
 * sink.wperf.knots in a child process of its own session (the terminal's
 * Ctrl-C is ours). false after saying why. */
bool top_viewer_start(struct top_viewer *v, const struct wperf_bt *bt,
		      const bt_plugin *source_plugin, const char *source_class,
		      const bt_value *source_params, const bt_value *sink_params);

/* Set before top_viewer_start(): the viewer takes SIGINT as the end of
 * its sources' input (bt-end.h: the sink then writes the last period and
 * the final report of what was read until then), since they do not end
 * (top-relay.c: the sessions it reads are not ours to end); a second
 * SIGINT interrupts its graph between two messages. Either way it exits
 * 0. */
extern bool top_viewer_ends_input;

/* Whether the viewer ended (reaping it). */
bool top_viewer_ended(struct top_viewer *v);

/* Until a stop signal (true), the deadline (CLOCK_MONOTONIC seconds, <=
 * 0: none), or the viewer's end (false for both). */
bool top_viewer_wait(struct top_viewer *v, double deadline);

/* Wait up to 120 s for the viewer's end (`what` ends its input): the
 * command's exit status. */
int top_viewer_finish(struct top_viewer *v, const char *what);

/* CLOCK_MONOTONIC, in seconds. */
double top_now(void);

/* The LTTng path (top-live.c), with the session daemon running (it is
 * stopped at the end if a wperf started it): the command's exit status. */
int top_lttng(const struct top_args *a, const struct wperf_bt *bt,
	      const bt_value *sink_params, const char *work);

/* --relay URL --hosts LIST (top-relay.c): the hosts' live sessions on
 * that relay daemon, read into sink (given the hosts' sync-hosts=). The
 * command's exit status. */
int top_relay(const struct top_args *a, const struct wperf_bt *bt, bt_value *sink);

#endif /* WPERF_TOOL_TOP_H */
