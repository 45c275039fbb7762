/* TEMPORARY STUB */
#include "components.h"
const char wperf_knots_description[] = "stub";
const char wperf_knots_help[] = "stub";
bt_component_class_initialize_method_status wperf_knots_init(bt_self_component_sink *s, bt_self_component_sink_configuration *c, const bt_value *p, void *d) { (void)s; (void)c; (void)p; (void)d; return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR; }
void wperf_knots_finalize(bt_self_component_sink *s) { (void)s; }
bt_component_class_sink_graph_is_configured_method_status wperf_knots_graph_is_configured(bt_self_component_sink *s) { (void)s; return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR; }
bt_component_class_sink_consume_method_status wperf_knots_consume(bt_self_component_sink *s) { (void)s; return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR; }
