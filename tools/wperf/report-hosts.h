/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/report-hosts.h — several hosts' traces on one time base
 * for `wperf report TRACE TRACE...` (report-hosts.c).
 */
#ifndef WPERF_TOOL_REPORT_HOSTS_H
#define WPERF_TOOL_REPORT_HOSTS_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>
#include <stdint.h>

#include "bt-graph.h"

/* Traces of several machines in one report (the sink's limit). */
#define WPERF_REPORT_HOSTS_MAX 8

/* Match the n hosts' TCP segments and compute their clocks' transforms
 * (pass one), then set what pass two needs: params' host-clocks for
 * sink.wperf.knots, and offsets[i], the ns to add to input i's clocks
 * (wperf_bt_set_clock_offsets). 0, or the exit status after saying why
 * in one line. */
int wperf_report_sync_hosts(const struct wperf_bt *bt, const char *const *inputs, size_t n,
			    bt_value *params, int64_t *offsets);

#endif
