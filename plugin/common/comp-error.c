/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/comp-error.c — the components' error causes
 * (comp-error.h): format the line once, then hand it to babeltrace2.
 */
#include "comp-error.h"

#include <stdarg.h>
#include <stdio.h>

/* Room for the prefix (a component class name) before the message. */
#define PREFIX_MAX 64

void wperf_error_cause(bt_self_component *comp, bt_self_message_iterator *iter,
		       const char *file, uint64_t line, const char *prefix, const char *fmt, ...)
{
	char msg[WPERF_CAUSE_MAX];
	char cause[WPERF_CAUSE_MAX + PREFIX_MAX];
	va_list ap;

	/* The message is cut at WPERF_CAUSE_MAX - 1 bytes, whatever the
	 * prefix. babeltrace2's append functions are variadic only (no
	 * va_list form), hence the buffers. */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(cause, sizeof cause, "%s%s%s", prefix ? prefix : "", prefix ? ": " : "", msg);
	if (comp)
		bt_current_thread_error_append_cause_from_component(comp, file, line, "%s", cause);
	else
		bt_current_thread_error_append_cause_from_message_iterator(iter, file, line, "%s",
									   cause);
}
