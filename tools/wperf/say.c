/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/say.c — the command's one-line messages on standard error
 * (say.h).
 */
#include "say.h"
#include "wperf.h"

#include <stdarg.h>
#include <stdio.h>

void wperf_say(const char *fmt, ...)
{
	va_list ap;

	fputs("wperf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
}

int wperf_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("wperf: error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fflush(stderr);
	return WPERF_EXIT_FAIL;
}
