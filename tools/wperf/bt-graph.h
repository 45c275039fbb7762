/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-graph.h — running a babeltrace2 graph in this process, as
 * `babeltrace2 INPUT... -c SINK --params=...` would: the CTF traces found
 * under the inputs (one source.ctf.fs per trace, grouped as the CLI groups
 * them), filter.utils.muxer, and the sink. What the graph's components log
 * on standard error is kept, not shown, so the caller can say what went
 * wrong in one line (or show it all, or replay it after a success).
 */
#ifndef WPERF_TOOL_BT_GRAPH_H
#define WPERF_TOOL_BT_GRAPH_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>

/* The plugins the graphs use: wperf's (from a directory) and the system's
 * ctf and utils (found as the babeltrace2 CLI finds them). */
struct wperf_bt {
	const bt_plugin *wperf, *ctf, *utils;
	char *log;          /* what loading them wrote on standard error */
	size_t loglen;
};

/* Load them; 0, or -1 with why set (one line). */
int wperf_bt_load(struct wperf_bt *bt, const char *plugin_dir, char *why, size_t whylen);
void wperf_bt_unload(struct wperf_bt *bt);

enum wperf_run_status {
	WPERF_RUN_OK,
	WPERF_RUN_NO_TRACE,     /* no CTF trace under the inputs */
	WPERF_RUN_FAILED,       /* error holds babeltrace2's causes */
	WPERF_RUN_INTERRUPTED,  /* SIGINT */
};

struct wperf_run {
	enum wperf_run_status status;
	const bt_error *error;  /* the thread's error, taken (may be NULL) */
	char *log;              /* the components' standard error, NUL-terminated */
	size_t loglen;
};

/* Run inputs -> muxer -> sink (component class `sink_class` of `plugin`,
 * with params). Returns run->status. */
enum wperf_run_status wperf_bt_run(const struct wperf_bt *bt, const char *const *inputs,
				   size_t ninputs, const bt_plugin *plugin,
				   const char *sink_class, const bt_value *params,
				   struct wperf_run *run);
void wperf_run_fini(struct wperf_run *run);

/* From now on, the sources of inputs[i] (compared by address: the
 * pointers given to wperf_bt_run) add ns[i] nanoseconds to their clocks
 * (source.ctf.fs clock-class-offset-ns). The arrays must outlive the
 * runs; n 0 ends it. */
void wperf_bt_set_clock_offsets(const char *const *inputs, const int64_t *ns, size_t n);

/* From now on, fn (NULL: none) is called once a graph of wperf_bt_run_source()
 * has run, before it is destroyed: the components' finalization writes too (sink.ctf.fs the
 * metadata), and the kernel recorder gives its reserve back for it. */
void wperf_bt_set_before_finalize(void (*fn)(void));

/* At most this many sources in one wperf_bt_run_source() graph. */
#define WPERF_BT_SOURCES_MAX 8

/* Run source -> sink: component class `source_class` of `source_plugin`
 * (e.g. bt->wperf, "tracefs"; bt->ctf, "lttng-live") with source_params,
 * its output ports connected through filter.utils.muxer (straight, for a
 * wperf source with one port: it merges in time order itself) to `sink_class`
 * of `sink_plugin` (e.g. bt->ctf, "fs"; bt->wperf, "knots") with
 * sink_params. source_params an array of maps: one source of that class
 * each (at most WPERF_BT_SOURCES_MAX), all through the muxer. When capture is false, what the components log goes to
 * file descriptor 2 as it is (a recorder's log file) and run->log is
 * empty. Returns run->status (never WPERF_RUN_NO_TRACE). */
enum wperf_run_status wperf_bt_run_source(const struct wperf_bt *bt,
					  const bt_plugin *source_plugin,
					  const char *source_class,
					  const bt_value *source_params,
					  const bt_plugin *sink_plugin, const char *sink_class,
					  const bt_value *sink_params, bool capture,
					  struct wperf_run *run);

/* Interrupt the running graph (from a signal handler or another thread:
 * async-signal-safe), as SIGINT does below. The graph stops before its
 * next consume, with no end of stream: a source that must end its trace
 * cleanly (source.wperf.tracefs) takes its own stop signals instead. */
void wperf_bt_interrupt(void);

/* SIGINT interrupts the running graph (wperf_bt_run returns
 * WPERF_RUN_INTERRUPTED); a second SIGINT kills. Call once. */
void wperf_bt_handle_sigint(void);

/* SIGINT ends the input of the graphs of wperf_bt_run_source() instead:
 * from now on they have wperf's end filter (bt-end.h) before the sink,
 * and the first SIGINT ends its output there, so the sink sees the end
 * of its input (and writes its final report) although the sources go on;
 * the run is then WPERF_RUN_OK. A second SIGINT interrupts the graph as
 * wperf_bt_handle_sigint()'s does. Call once, instead of that one. */
void wperf_bt_handle_sigint_as_end(void);

/* The same for SIGTERM (the kernel recorder's parent-death signal). */
void wperf_bt_handle_sigterm(void);

/* After timeout seconds (0: never) of graphs running, print
 * "wperf: error: MESSAGE" on the real standard error and exit 1, as the
 * Python command did when it killed babeltrace2. */
void wperf_bt_set_timeout(double timeout, const char *message);

#endif /* WPERF_TOOL_BT_GRAPH_H */
