/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/say.h — how the `wperf` command speaks to the user: one line
 * on standard error, "wperf: ..." (say.c). Every other file of the command
 * uses it, and it uses none of them, so it sits at the bottom of the
 * command's layers.
 */
#ifndef WPERF_TOOL_SAY_H
#define WPERF_TOOL_SAY_H

#include <stdio.h>

/* "wperf: MSG" on standard error, flushed. Control characters in MSG
 * (newlines, ESC, C1 controls, bytes that are not UTF-8) are written as
 * \n, \r, \t or \xNN: what the user gave (arguments, paths, names)
 * is echoed on one line, and never as terminal escape sequences. */
void wperf_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "wperf: error: MSG" on standard error; returns WPERF_EXIT_FAIL. */
int wperf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* text on f, its control characters escaped as wperf_say() writes them. */
void wperf_put_escaped(FILE *f, const char *text);

#endif /* WPERF_TOOL_SAY_H */
