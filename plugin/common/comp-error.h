/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/comp-error.h — the one way a component of this plugin says
 * why it fails: one line, appended as a cause to the current thread's
 * babeltrace2 error just before the method returns an ERROR status.
 *
 * As babeltrace2's own BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT
 * and _FROM_MESSAGE_ITERATOR, the macros record the caller's file and line
 * (babeltrace2 and `wperf` print them after the actor's name). The message
 * is printf-formatted (at most WPERF_CAUSE_MAX - 1 bytes) and, with a
 * prefix, reads "PREFIX: message": the sinks and the repair filter prefix
 * their class name ("sink.wperf.knots: ..."), the waits filter and the
 * tracefs source pass NULL (their lines name what is wrong directly).
 */
#ifndef WPERF_PLUGIN_COMP_ERROR_H
#define WPERF_PLUGIN_COMP_ERROR_H

#include <stdint.h>
#include <babeltrace2/babeltrace.h>

/* The longest message (with its NUL, before the prefix). */
#define WPERF_CAUSE_MAX 1024

/* From a component's method (initialize, consume, finalize helpers). */
#define WPERF_COMP_ERROR(self_comp, prefix, ...) \
	wperf_error_cause((self_comp), NULL, __FILE__, __LINE__, (prefix), __VA_ARGS__)
/* From one of its message iterators' methods. */
#define WPERF_ITER_ERROR(self_iter, prefix, ...) \
	wperf_error_cause(NULL, (self_iter), __FILE__, __LINE__, (prefix), __VA_ARGS__)

/* The cause from comp if it is not NULL, else from iter. */
void wperf_error_cause(bt_self_component *comp, bt_self_message_iterator *iter,
		       const char *file, uint64_t line, const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

#endif /* WPERF_PLUGIN_COMP_ERROR_H */
