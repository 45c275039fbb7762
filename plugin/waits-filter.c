/* TEMPORARY STUB */
#include "components.h"
const char wperf_waits_description[] = "stub";
const char wperf_waits_help[] = "stub";
bt_component_class_initialize_method_status wperf_waits_init(bt_self_component_filter *s, bt_self_component_filter_configuration *c, const bt_value *p, void *d) { (void)s; (void)c; (void)p; (void)d; return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR; }
void wperf_waits_finalize(bt_self_component_filter *s) { (void)s; }
bt_message_iterator_class_initialize_method_status wperf_waits_iter_init(bt_self_message_iterator *s, bt_self_message_iterator_configuration *c, bt_self_component_port_output *p) { (void)s; (void)c; (void)p; return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR; }
void wperf_waits_iter_finalize(bt_self_message_iterator *s) { (void)s; }
bt_message_iterator_class_next_method_status wperf_waits_iter_next(bt_self_message_iterator *s, bt_message_array_const m, uint64_t cap, uint64_t *count) { (void)s; (void)m; (void)cap; (void)count; return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR; }
