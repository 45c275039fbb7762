/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/say.c — the command's one-line messages on standard error
 * (say.h).
 */
#include "say.h"
#include "dir-names.h"
#include "wperf.h"

#include <stdarg.h>
#include <stdio.h>

/* "wperf: " PREFIX MSG on standard error, a held directory's /proc name
 * written as its path (dir-names.h). */
static void speak(const char *prefix, const char *fmt, va_list ap)
{
	char msg[8192], shown[8192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	wperf_dir_names_shown(msg, shown, sizeof(shown));
	fprintf(stderr, "wperf: %s%s\n", prefix, shown);
	fflush(stderr);
}

void wperf_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	speak("", fmt, ap);
	va_end(ap);
}

int wperf_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	speak("error: ", fmt, ap);
	va_end(ap);
	return WPERF_EXIT_FAIL;
}
