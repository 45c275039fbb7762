/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/say.h — how the `wperf` command speaks to the user: one line
 * on standard error, "wperf: ..." (say.c). Every other file of the command
 * uses it, and it uses none of them, so it sits at the bottom of the
 * command's layers.
 */
#ifndef WPERF_TOOL_SAY_H
#define WPERF_TOOL_SAY_H

/* "wperf: MSG" on standard error, flushed. */
void wperf_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "wperf: error: MSG" on standard error; returns WPERF_EXIT_FAIL. */
int wperf_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* WPERF_TOOL_SAY_H */
