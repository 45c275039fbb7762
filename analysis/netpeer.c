/* SPDX-License-Identifier: MIT */
/*
 * analysis/netpeer.c — a receive's sending thread, by skb on one host and
 * by TCP key across hosts (see netpeer.h).
 */
#include <stdlib.h>
#include <string.h>

#include "netpeer.h"

#define NONE UINT32_MAX

void netpeer_init(struct netpeer *p)
{
	memset(p, 0, sizeof *p);
}

void netpeer_fini(struct netpeer *p)
{
	free(p->by_skb);
	free(p->by_tcp);
	memset(p, 0, sizeof *p);
}

static size_t mix(uint64_t x)
{
	x *= UINT64_C(0x9e3779b97f4a7c15);
	return (size_t)(x ^ x >> 31) & (NETPEER_SLOTS - 1);
}

static size_t skb_slot(uint32_t host, uint64_t skb)
{
	return mix(skb ^ (uint64_t)host << 56);
}

/* A key's slot whatever the host: a receive looks for another host's send. */
static size_t tcp_slot(const struct wperf_event *ev)
{
	return mix((uint64_t)ev->u.net.seq << 32 ^ ev->u.net.ack_seq ^
		   (uint64_t)ev->u.net.tcp_flags << 20);
}

static bool tables(struct netpeer *p)
{
	if (p->by_skb)
		return true;
	if (p->oom)
		return false;
	p->by_skb = calloc(NETPEER_SLOTS, sizeof *p->by_skb);
	p->by_tcp = calloc(NETPEER_SLOTS, sizeof *p->by_tcp);
	if (p->by_skb && p->by_tcp)
		return true;
	netpeer_fini(p);
	p->oom = true;
	return false;
}

static void remember(struct netpeer *p, const struct wperf_event *ev, uint32_t sender)
{
	struct netpeer_send s = { ev->u.net.skb, ev->u.net.seq, ev->u.net.ack_seq,
				  ev->u.net.tcp_flags, ev->host, sender, ev->cpu, ev->ts,
				  "", true };

	if (ev->u.net.dev)
		strncpy(s.dev, ev->u.net.dev, sizeof s.dev - 1);
	/* Sent by no thread (an ACK from a softirq): it still replaces an
	 * older send of its skb or key, which must not pair with it. */
	if (ev->u.net.skb)
		p->by_skb[skb_slot(ev->host, ev->u.net.skb)] = s;
	if (ev->u.net.has_tcp)
		p->by_tcp[tcp_slot(ev)] = s;
}

static bool within(int64_t sent, int64_t received)
{
	return received >= sent && received - sent <= NETPEER_MAX_DELAY_NS;
}

/* The same packet through a veth pair or lo: see netpeer.h. */
static uint32_t pair_skb(struct netpeer *p, const struct wperf_event *ev)
{
	struct netpeer_send *s = &p->by_skb[skb_slot(ev->host, ev->u.net.skb)];
	const char *dev = ev->u.net.dev ? ev->u.net.dev : "";

	if (!s->used || s->skb != ev->u.net.skb || s->host != ev->host || s->cpu != ev->cpu ||
	    !within(s->ts, ev->ts) || (strncmp(s->dev, dev, sizeof s->dev - 1) == 0 &&
				       strcmp(dev, "lo") != 0))
		return NONE;
	s->used = false;
	p->paired_skb += s->sender != NONE;
	return s->sender;
}

/* The same TCP segment sent on another host. The hosts' times are on
 * one base only up to the transform's accuracy: a receive stamped a
 * little before its send still pairs (within the delay either way). */
static uint32_t pair_tcp(struct netpeer *p, const struct wperf_event *ev)
{
	struct netpeer_send *s = &p->by_tcp[tcp_slot(ev)];
	int64_t gap = ev->ts - s->ts;

	if (!s->used || s->host == ev->host || s->seq != ev->u.net.seq ||
	    s->ack_seq != ev->u.net.ack_seq || s->flags != ev->u.net.tcp_flags ||
	    gap > NETPEER_MAX_DELAY_NS || gap < -NETPEER_MAX_DELAY_NS)
		return NONE;
	s->used = false;
	p->paired_tcp += s->sender != NONE;
	return s->sender;
}

uint32_t netpeer_seen(struct netpeer *p, const struct wperf_event *ev, uint32_t sender)
{
	bool send = ev->type == WPERF_EV_NET_XMIT || ev->type == WPERF_EV_TCP_SEND;
	uint32_t peer = NONE;

	if ((!ev->u.net.skb && !ev->u.net.has_tcp) || !tables(p))
		return NONE;
	if (send) {
		remember(p, ev, sender);
		return NONE;
	}
	if (ev->u.net.skb)
		peer = pair_skb(p, ev);
	if (peer == NONE && ev->u.net.has_tcp)
		peer = pair_tcp(p, ev);
	return peer;
}
