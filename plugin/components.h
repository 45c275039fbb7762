/* SPDX-License-Identifier: MIT */
/*
 * plugin/components.h — the methods of the plugin's five component
 * classes, registered in plugin.c. Each component's .c file owns its
 * methods, its description and its help text.
 */
#ifndef WPERF_PLUGIN_COMPONENTS_H
#define WPERF_PLUGIN_COMPONENTS_H

#include <babeltrace2/babeltrace.h>

/* sink.wperf.knots (knots-sink.c) */
extern const char wperf_knots_description[];
extern const char wperf_knots_help[];
bt_component_class_initialize_method_status wperf_knots_init(
	bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	const bt_value *params, void *init_data);
void wperf_knots_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status
wperf_knots_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status
wperf_knots_consume(bt_self_component_sink *self);

/* filter.wperf.waits (waits-filter.c) */
extern const char wperf_waits_description[];
extern const char wperf_waits_help[];
bt_component_class_initialize_method_status wperf_waits_init(
	bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	const bt_value *params, void *init_data);
void wperf_waits_finalize(bt_self_component_filter *self);
bt_message_iterator_class_initialize_method_status wperf_waits_iter_init(
	bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port);
void wperf_waits_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status wperf_waits_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count);

/* source.wperf.tracefs (tracefs/tracefs-component.c, tracefs-source.c) */
extern const char wperf_tracefs_description[];
extern const char wperf_tracefs_help[];
bt_component_class_initialize_method_status wperf_tracefs_init(
	bt_self_component_source *self, bt_self_component_source_configuration *config,
	const bt_value *params, void *init_data);
void wperf_tracefs_finalize(bt_self_component_source *self);
bt_message_iterator_class_initialize_method_status wperf_tracefs_iter_init(
	bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port);
void wperf_tracefs_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status wperf_tracefs_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count);

/* filter.wperf.repair (repair/repair-filter.c) */
extern const char wperf_repair_description[];
extern const char wperf_repair_help[];
bt_component_class_initialize_method_status wperf_repair_init(
	bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	const bt_value *params, void *init_data);
void wperf_repair_finalize(bt_self_component_filter *self);
bt_message_iterator_class_initialize_method_status wperf_repair_iter_init(
	bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port);
void wperf_repair_iter_finalize(bt_self_message_iterator *self);
bt_message_iterator_class_next_method_status wperf_repair_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count);

/* sink.wperf.netsync (netsync/netsync-sink.c) */
extern const char wperf_netsync_description[];
extern const char wperf_netsync_help[];
bt_component_class_initialize_method_status wperf_netsync_init(
	bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	const bt_value *params, void *init_data);
void wperf_netsync_finalize(bt_self_component_sink *self);
bt_component_class_sink_graph_is_configured_method_status
wperf_netsync_graph_is_configured(bt_self_component_sink *self);
bt_component_class_sink_consume_method_status
wperf_netsync_consume(bt_self_component_sink *self);

#endif /* WPERF_PLUGIN_COMPONENTS_H */
