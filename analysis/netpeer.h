/* SPDX-License-Identifier: MIT */
/*
 * analysis/netpeer.h — which thread sent the packet a receive delivers
 * (wperf-analysis(7), Network interfaces: the sender's edge).
 *
 * A thread woken by the receive of a packet waits for the thread that
 * sent it, when the trace pairs the two events:
 *   - across hosts, by the segment's TCP key (seq, ack_seq, flags): a
 *     send from a thread of one host, received on another host within
 *     NETPEER_MAX_DELAY_NS on the reference time;
 *   - on one host, by the packet's skb address: sent from a thread
 *     through one device and received, on the same CPU within
 *     NETPEER_MAX_DELAY_NS, on another device (a veth pair between
 *     network namespaces) or on lo. A real NIC recycles the skbs of
 *     its sent packets for the ones it receives: the same device is
 *     never a pair, except lo.
 * Each send pairs at most one receive; a later send of the same skb or
 * key replaces it. A send seen only after its receive (two hosts'
 * events a little out of order) pairs nothing. The tables are
 * direct-mapped (NETPEER_SLOTS each): a collision forgets the older
 * send, so memory is bounded whatever the trace.
 */
#ifndef WPERF_NETPEER_H
#define WPERF_NETPEER_H

#include <stdbool.h>
#include <stdint.h>

#include "wperf/event.h"

#define NETPEER_SLOTS 4096                     /* a power of two */
#define NETPEER_MAX_DELAY_NS INT64_C(1000000000)

struct netpeer_send {
	uint64_t skb;
	uint32_t seq, ack_seq, flags;
	uint32_t host;
	uint32_t sender;        /* the thread's vertex; UINT32_MAX: none */
	int cpu;
	int64_t ts;
	char dev[16];
	bool used;
};

struct netpeer {
	struct netpeer_send *by_skb, *by_tcp;  /* NULL until the first send */
	bool oom;
	uint64_t paired_skb, paired_tcp;
};

void netpeer_init(struct netpeer *p);
void netpeer_fini(struct netpeer *p);

/* A network event (NET_* or TCP_*), its sender's vertex when it is a
 * send from a thread (else UINT32_MAX). Returns, for a receive, the
 * vertex of the thread that sent what it delivers, else UINT32_MAX. */
uint32_t netpeer_seen(struct netpeer *p, const struct wperf_event *ev, uint32_t sender);

#endif /* WPERF_NETPEER_H */
