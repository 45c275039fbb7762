/* SPDX-License-Identifier: MIT */
/*
 * plugin/plugin.c — the babeltrace2 plugin `wperf`: registration only.
 * The components live in their directories, as babeltrace2's own plugins'
 * do: knots/ (sink.wperf.knots), waits/ (filter.wperf.waits), repair/
 * (filter.wperf.repair), netsync/ (sink.wperf.netsync) and tracefs/
 * (source.wperf.tracefs); common/ holds what they share.
 */
#include <babeltrace2/babeltrace.h>

#include "components.h"

/* The plugin is built with hidden symbols (plugin/meson.build): calls
 * inside it are direct and can be inlined. babeltrace2 finds a plugin by
 * the section getters BT_PLUGIN_MODULE() defines, so only they are
 * exported. */
#pragma GCC visibility push(default)
BT_PLUGIN_MODULE();
#pragma GCC visibility pop
BT_PLUGIN(wperf);
BT_PLUGIN_DESCRIPTION("Find the cycles of waiting (knots) that limit a multi-threaded program's throughput (wPerf).");
BT_PLUGIN_AUTHOR("The wperf developers");
BT_PLUGIN_LICENSE("MIT");

BT_PLUGIN_SINK_COMPONENT_CLASS(knots, wperf_knots_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(knots, wperf_knots_description);
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(knots, wperf_knots_help);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(knots, wperf_knots_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(knots, wperf_knots_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(knots, wperf_knots_graph_is_configured);

BT_PLUGIN_SINK_COMPONENT_CLASS(netsync, wperf_netsync_consume);
BT_PLUGIN_SINK_COMPONENT_CLASS_DESCRIPTION(netsync, wperf_netsync_description);
BT_PLUGIN_SINK_COMPONENT_CLASS_HELP(netsync, wperf_netsync_help);
BT_PLUGIN_SINK_COMPONENT_CLASS_INITIALIZE_METHOD(netsync, wperf_netsync_init);
BT_PLUGIN_SINK_COMPONENT_CLASS_FINALIZE_METHOD(netsync, wperf_netsync_finalize);
BT_PLUGIN_SINK_COMPONENT_CLASS_GRAPH_IS_CONFIGURED_METHOD(netsync, wperf_netsync_graph_is_configured);

BT_PLUGIN_FILTER_COMPONENT_CLASS(waits, wperf_waits_iter_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(waits, wperf_waits_description);
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(waits, wperf_waits_help);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(waits, wperf_waits_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(waits, wperf_waits_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(waits, wperf_waits_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(waits, wperf_waits_iter_finalize);

BT_PLUGIN_FILTER_COMPONENT_CLASS(repair, wperf_repair_iter_next);
BT_PLUGIN_FILTER_COMPONENT_CLASS_DESCRIPTION(repair, wperf_repair_description);
BT_PLUGIN_FILTER_COMPONENT_CLASS_HELP(repair, wperf_repair_help);
BT_PLUGIN_FILTER_COMPONENT_CLASS_INITIALIZE_METHOD(repair, wperf_repair_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_FINALIZE_METHOD(repair, wperf_repair_finalize);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(repair, wperf_repair_iter_init);
BT_PLUGIN_FILTER_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(repair, wperf_repair_iter_finalize);

BT_PLUGIN_SOURCE_COMPONENT_CLASS(tracefs, wperf_tracefs_iter_next);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_DESCRIPTION(tracefs, wperf_tracefs_description);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_HELP(tracefs, wperf_tracefs_help);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_INITIALIZE_METHOD(tracefs, wperf_tracefs_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_FINALIZE_METHOD(tracefs, wperf_tracefs_finalize);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD(tracefs, wperf_tracefs_iter_init);
BT_PLUGIN_SOURCE_COMPONENT_CLASS_MESSAGE_ITERATOR_CLASS_FINALIZE_METHOD(tracefs, wperf_tracefs_iter_finalize);
