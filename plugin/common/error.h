/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/error.h — the one-line error messages of the plugin's helpers:
 * they fill a caller's buffer, and the component turns it into a
 * babeltrace2 error cause.
 */
#ifndef WPERF_PLUGIN_ERROR_H
#define WPERF_PLUGIN_ERROR_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

static inline void wperf_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* printf into err (if there is one); a no-op without a buffer. */
static inline void wperf_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

#endif /* WPERF_PLUGIN_ERROR_H */
