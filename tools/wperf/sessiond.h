/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/sessiond.h — the LTTng session daemon that some `wperf`
 * started: the last wperf to finish stops it, whichever started it, and
 * only when no session uses it any more. Every wperf of a user takes the
 * same lock around starting and stopping it (/run/wperf-sessiond-0.lock
 * for root, /run/lock/wperf-sessiond-UID.lock for the others), its pid
 * beside it in ...UID.pid.
 */
#ifndef WPERF_TOOL_SESSIOND_H
#define WPERF_TOOL_SESSIOND_H

/* Start lttng-sessiond (--daemonize, without LD_PRELOAD; its log and pid
 * file in private_dir) unless one answers. The pid of the one started,
 * 0 when one was running, or -1 after saying why in one line. */
long wperf_ensure_sessiond(const char *private_dir);

/* Stop the session daemon a wperf started, unless a session still uses
 * it (then say so); a daemon the user started is left alone. */
void wperf_stop_sessiond_if_ours(void);

#endif /* WPERF_TOOL_SESSIOND_H */
