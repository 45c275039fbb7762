/* SPDX-License-Identifier: MIT */
/*
 * nic.h — network interfaces as pseudo-threads (wperf-method(7) §5).
 *
 * Waits ended from network softirq context are waits on the interface
 * that just received or sent on that CPU (threads.c asks). An interface
 * "waits for" the threads that give it data while its link is idle: at the
 * end, the link's idle time — the analysed time minus the time needed to
 * send the bytes seen at the link's capacity — goes to the senders in
 * proportion to their bytes, as nic -> thread edges. The capacity is the
 * user's to give (nic-capacity); without it the idle time is unknown, no
 * such edge is made, and the report says so: we never assume a speed.
 */
#ifndef WPERF_NIC_H
#define WPERF_NIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edges.h"
#include "netpeer.h"
#include "vertex.h"

struct nic_sender {
	uint32_t nic, thread;
	uint64_t bytes, packets;
};

struct nic_capacity {
	char *name;
	uint64_t bits_per_second;
};

struct nic_tracker {
	char last_dev[32];              /* one-entry cache: packets come in runs */
	uint32_t last_vertex;
	uint32_t last_host;
	struct nic_sender *senders;
	size_t n_senders, cap_senders;
	struct nic_capacity *capacity;
	size_t n_capacity;
	bool oom;
	struct netpeer peers;           /* a receive's sending thread */
};

void nic_init(struct nic_tracker *n);
void nic_fini(struct nic_tracker *n);

/* The interface's vertex, "nic:<dev>" (kind nic). */
uint32_t nic_vertex(struct nic_tracker *n, struct vertex_table *vt, const char *dev);
/* The link speed of an interface, in bits per second; 0 when unknown. */
int nic_set_capacity(struct nic_tracker *n, const char *dev, uint64_t bits_per_second);
/* A packet of len bytes was handed to nic by thread (VERTEX_NONE: no thread). */
void nic_sent(struct nic_tracker *n, struct vertex_table *vt, uint32_t nic,
	      uint32_t thread, uint64_t len);
/* Busy time and idle edges nic -> sender, where the capacity is known. */
void nic_finish(struct nic_tracker *n, struct vertex_table *vt, struct edge_map *edges,
		int64_t begin, int64_t end);

#endif /* WPERF_NIC_H */
