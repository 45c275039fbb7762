/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-failure.h — why a babeltrace2 graph failed, in one line
 * for the user, or in full (--verbose) as babeltrace2(1) prints it.
 */
#ifndef WPERF_TOOL_BT_FAILURE_H
#define WPERF_TOOL_BT_FAILURE_H

#include "bt-graph.h"

#include <stdbool.h>
#include <stdio.h>

/* One line saying why run failed (see bt-failure.c for the rule). */
void wperf_run_failure(const struct wperf_run *run, char *out, size_t outlen);

/* Whether text appears in one of run's error causes or its log. */
bool wperf_run_mentions(const struct wperf_run *run, const char *text);

/* The error's causes as babeltrace2(1) prints them, newest first
 * ("ERROR:    [actor] (file:line)", then "CAUSED BY ..."), after a blank
 * line; nothing without an error. */
void wperf_run_print_causes(const struct wperf_run *run, FILE *f);

#endif /* WPERF_TOOL_BT_FAILURE_H */
