/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-params.h — component parameters written in babeltrace2's
 * `--params` syntax (babeltrace2(1)), as `wperf report --params STR` takes
 * them. The babeltrace2 CLI's parser is internal to its tree (and built on
 * GLib's GScanner), so this is a small one with the same grammar.
 */
#ifndef WPERF_TOOL_BT_PARAMS_H
#define WPERF_TOOL_BT_PARAMS_H

#include <babeltrace2/babeltrace.h>
#include <stddef.h>

/* Parse text (`key=value,...`) into the map params, each key replacing an
 * entry of the same name. 0, or -1 with a one-line reason in why. */
int wperf_params_parse(const char *text, bt_value *params, char *why, size_t whylen);

#endif /* WPERF_TOOL_BT_PARAMS_H */
