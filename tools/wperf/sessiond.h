/*
 * tools/wperf/sessiond.h — the LTTng session daemon that some `wperf`
 * started: the last wperf to finish stops it, whichever started it, and
 * only when no session uses it any more. Every wperf of a user takes the
 * same lock around starting and stopping it (/run/lock/wperf-sessiond-UID.lock,
 * its pid beside it in ...UID.pid); the Python half starts it.
 */
#ifndef WPERF_TOOL_SESSIOND_H
#define WPERF_TOOL_SESSIOND_H

/* Stop the session daemon a wperf started, unless a session still uses
 * it (then say so); a daemon the user started is left alone. */
void wperf_stop_sessiond_if_ours(void);

#endif /* WPERF_TOOL_SESSIOND_H */
