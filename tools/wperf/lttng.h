/*
 * tools/wperf/lttng.h — what `wperf` asks of LTTng's session daemon,
 * through liblttng-ctl (lttng/lttng.h) rather than the lttng program: real
 * error codes instead of scraped text. The session daemon is the one
 * lttng(1) would talk to (root's, or $LTTNG_HOME's).
 */
#ifndef WPERF_TOOL_LTTNG_H
#define WPERF_TOOL_LTTNG_H

#include <stdbool.h>

/* Destroy session `name` and wait until its trace is written out. 0, or
 * an lttng_error_code (negative; lttng_strerror() says it). */
int wperf_lttng_destroy_session(const char *name);

/* Unregister the trigger named `name`. 0 (also when there is none), or a
 * negative lttng_error_code. */
int wperf_lttng_remove_trigger(const char *name);

/* How many tracing sessions the session daemon has: >= 0, or negative
 * when none answers. */
int wperf_lttng_session_count(void);

#endif /* WPERF_TOOL_LTTNG_H */
