/* SPDX-License-Identifier: MIT */
/*
 * wperf/netmatch.h — matching each TCP segment sent on one host to its
 * receive on another, by its TCP (seq, ack_seq, flags), as Trace
 * Compass's TCP event matching does.
 *
 * Events come in any order (the hosts' clocks are not synchronised yet):
 * a send waits in a table of unmatched sends until a receive with the same
 * key on another host arrives, and a receive waits for its send the same
 * way. Copies of one segment (a retransmission, a repeated pure ACK or
 * window update: the same key sent again) pair in order: a receive takes
 * the send of that key that has waited longest, and a send the longest
 * waiting receive; since each host's events come in its own time order,
 * the k-th copy sent pairs with the k-th received, whatever the clocks'
 * offset (counted as `repeated`). A lost copy makes its successors pair
 * with an earlier send than their own: a looser point, never a receive
 * before its send. Hosts are small integers
 * the caller assigns; a key met on one host only never matches (loopback
 * traffic, or the peer was not traced).
 */
#ifndef WPERF_NETMATCH_H
#define WPERF_NETMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct wperf_tcp_key {
	uint32_t seq, ack_seq, flags;
};

/* One side of a segment: where and when it was seen, and a tag the
 * caller chooses (e.g. the thread that sent or received it). */
struct wperf_net_side {
	unsigned host;
	int64_t ns;
	uint64_t tag;
};

struct wperf_net_match {
	struct wperf_tcp_key key;
	struct wperf_net_side send, recv;
};

struct wperf_netmatch_stats {
	uint64_t sends, receives;   /* events given */
	uint64_t matched;
	uint64_t repeated;          /* events given while a copy of theirs waited */
	uint64_t ambiguous;         /* matches not unique (wperf_netmatch_unique) */
	uint64_t unmatched_sends, unmatched_receives; /* still waiting */
};

struct wperf_netmatch;

struct wperf_netmatch *wperf_netmatch_create(void);
void wperf_netmatch_destroy(struct wperf_netmatch *m);

/* Give a send (or a receive) seen on side->host: 1 when it matched a
 * waiting receive (send) of another host, 0 when it waits, -1 when out of
 * memory (nothing changed). */
int wperf_netmatch_send(struct wperf_netmatch *m, const struct wperf_tcp_key *key,
			const struct wperf_net_side *side);
int wperf_netmatch_receive(struct wperf_netmatch *m, const struct wperf_tcp_key *key,
			   const struct wperf_net_side *side);

/* The matches so far, in the order they were made. */
size_t wperf_netmatch_count(const struct wperf_netmatch *m);
const struct wperf_net_match *wperf_netmatch_get(const struct wperf_netmatch *m, size_t i);

/* Match i's key was given once on its send's host (as a send) and once
 * on its receive's host (as a receive): the pair is certain. A key given
 * more often there (a retransmission, a repeated ACK, a FIN sent again)
 * may pair a copy with another's receive when one copy is missing from a
 * trace (lost in a gap, sent before it began): such a pair can put a
 * receive before its send, and a clock transform uses unique ones only.
 * Later copies can make a match ambiguous after it was made. */
bool wperf_netmatch_unique(const struct wperf_netmatch *m, size_t i);

void wperf_netmatch_stats(const struct wperf_netmatch *m, struct wperf_netmatch_stats *out);

#endif /* WPERF_NETMATCH_H */
