/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/tcp-key.h — the TCP key (seq, ack_seq, flags) of a kernel
 * network event's payload, wherever its layout puts it: at the top
 * (lttng-modules 2.1 to 2.5's inet_sock_local_out/in) or under
 * network_header/transport_header, through their variants (lttng-modules
 * 2.9 and later's net_dev_queue and net_if_receive_skb). Read by name:
 * only network events pay for it.
 */
#ifndef WPERF_PLUGIN_TCP_KEY_H
#define WPERF_PLUGIN_TCP_KEY_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>

#include "wperf/netmatch.h"

/* The key of payload into *k; false when it carries none (not TCP, or
 * a layout without the header). */
bool wperf_tcp_key_of(const bt_field *payload, struct wperf_tcp_key *k);

/* +1 a send, -1 a receive, 0 neither, by the event's name
 * (inet_sock_local_out / net_dev_queue, inet_sock_local_in /
 * net_if_receive_skb). */
int wperf_tcp_direction(const char *event_name);

#endif
