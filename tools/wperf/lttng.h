/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/lttng.h — what `wperf` asks of LTTng's session daemon,
 * through liblttng-ctl (lttng/lttng.h) rather than the lttng program: real
 * error codes instead of scraped text. The session daemon is the one
 * lttng(1) would talk to (root's, or $LTTNG_HOME's).
 */
#ifndef WPERF_TOOL_LTTNG_H
#define WPERF_TOOL_LTTNG_H

#include <stdbool.h>
#include <stddef.h>

/* Destroy session `name` and wait until its trace is written out. 0, or
 * an lttng_error_code (negative; lttng_strerror() says it). */
int wperf_lttng_destroy_session(const char *name);

/* Unregister the trigger named `name`. 0 (also when there is none), or a
 * negative lttng_error_code. */
int wperf_lttng_remove_trigger(const char *name);

/* How many tracing sessions the session daemon has: >= 0, or negative
 * when none answers. */
int wperf_lttng_session_count(void);

/* ------------------------------------------------------------ sessions
 * What `wperf record`, `wperf record --snapshot`, `wperf snapshot` and
 * `wperf top` create: the wperf profile's session (sessions/wperf.lttng).
 * Each returns 0, or a negative lttng_error_code after which why holds
 * one line ("LTTng: <lttng_strerror>" plus what was being done). */

enum wperf_session_kind {
	WPERF_SESSION_RECORD,   /* written to `where`, a directory */
	WPERF_SESSION_SNAPSHOT, /* snapshot mode; `where`: the default snapshot output */
	WPERF_SESSION_RELAY,    /* streamed to the lttng-relayd of URL `where`
				 * (net://..., checked by relay-url.h) */
	WPERF_SESSION_LIVE,     /* live, to the lttng-relayd of URL `where`; NULL:
				 * the local one */
};

/* LTTng's kernel tracer answers (lttng-modules loaded); otherwise wperf
 * records kernel events through source.wperf.tracefs. */
bool wperf_lttng_kernel_available(void);

/* Create session `name` with the wperf profile's channels, events and
 * contexts: the kernel channel wperf-kernel (when kernel; the scheduler
 * events required, the others enabled when this lttng-modules has them;
 * tid, pid, procname; with stacks the callstack-kernel and
 * callstack-user contexts) and the UST channel wperf-ust (ust_events,
 * comma-separated; vtid, vpid, procname). Overwrite mode for a snapshot
 * session; buffer_kb per CPU per channel, as four power-of-two
 * sub-buffers. On failure the half-made session is destroyed. */
int wperf_lttng_create_session(const char *name, enum wperf_session_kind kind,
			       const char *where, bool kernel, const char *ust_events,
			       unsigned buffer_kb, bool stacks, char *why, size_t whylen);

int wperf_lttng_start(const char *name, char *why, size_t whylen);
int wperf_lttng_stop(const char *name, char *why, size_t whylen);

/* Whether session `name` exists (the daemon may have restarted). */
bool wperf_lttng_session_exists(const char *name);

/* A statedump again (threads' names and states), for a snapshot or a
 * viewer that starts after the first one. */
int wperf_lttng_regenerate_statedump(const char *name, char *why, size_t whylen);

/* Record a snapshot of session `name` into the directory `path`. */
int wperf_lttng_snapshot_record(const char *name, const char *path, char *why,
				size_t whylen);

/* Register trigger `trigger` that takes a snapshot of session `name`
 * into the directory `into` (which the session daemon resolves at each
 * snapshot: a /proc/PID/fd/N path keeps it on a held directory) whenever the UST event `event` is emitted (filter: an LTTng filter
 * expression on its fields, or NULL), and then notifies its subscribers
 * (wperf_lttng_watch_trigger): the snapshot is whole when they hear. */
int wperf_lttng_add_snapshot_trigger(const char *trigger, const char *name, const char *into,
				     const char *event, const char *filter, char *why,
				     size_t whylen);

/* A subscription to the notifications of trigger `trigger` (event and
 * filter as registered): NULL after filling why. */
struct wperf_lttng_watch;
struct wperf_lttng_watch *wperf_lttng_watch_trigger(const char *trigger, const char *event,
						   const char *filter, char *why,
						   size_t whylen);

/* How many snapshots the trigger completed since the last call (0 when
 * none within about timeout_ms); -1 when notifications were dropped (one
 * or more completed); -2 when the session daemon does not answer
 * (wperf_ctl_wedged() says it, waits.h). */
int wperf_lttng_watch_wait(struct wperf_lttng_watch *watch, int timeout_ms);
void wperf_lttng_watch_end(struct wperf_lttng_watch *watch);

#endif /* WPERF_TOOL_LTTNG_H */
