/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-end.h — a filter that ends its input on demand, so that
 * the sink after it sees the end of its input although the sources go on
 * (bt-end.c says why; bt-graph.c puts it before the sink).
 */
#ifndef WPERF_TOOL_BT_END_H
#define WPERF_TOOL_BT_END_H

#include <babeltrace2/babeltrace.h>

/* The filter's component class (made once, kept): one input port `in`,
 * one output port `out`, every message forwarded. NULL when out of
 * memory. */
const bt_component_class_filter *wperf_bt_end_class(void);

/* From now on the filter's output ends at its next call (after the
 * messages of a batch already taken). Async-signal-safe. */
void wperf_bt_end_input(void);

#endif /* WPERF_TOOL_BT_END_H */
