/* SPDX-License-Identifier: MIT */
/*
 * netmatch.c — TCP send/receive matching across hosts (wperf/netmatch.h):
 * owns the tables of unmatched sends and receives and the matches.
 *
 * The two tables are one open-addressing hash table (linear probing,
 * deletion by backward shift), keyed by (seq, ack_seq, flags, host,
 * direction): a receive on host h looks up the sends of every other host
 * seen so far, which are few.
 */
#include "wperf/netmatch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum dir { SEND, RECV };

struct slot {
	struct wperf_tcp_key key;
	struct wperf_net_side side;
	uint8_t dir;
	bool used;
};

struct wperf_netmatch {
	struct slot *slots;
	size_t cap, used;            /* cap: a power of two */
	struct wperf_net_match *matches;
	size_t nmatches, capmatches;
	unsigned nhosts;             /* 1 + the largest host given */
	struct wperf_netmatch_stats stats;
};

struct wperf_netmatch *wperf_netmatch_create(void)
{
	return calloc(1, sizeof(struct wperf_netmatch));
}

void wperf_netmatch_destroy(struct wperf_netmatch *m)
{
	if (!m)
		return;
	free(m->slots);
	free(m->matches);
	free(m);
}

static size_t slot_hash(const struct wperf_tcp_key *k, unsigned host, enum dir d)
{
	uint64_t h = ((uint64_t)k->seq << 32 | k->ack_seq) * UINT64_C(0x9e3779b97f4a7c15);

	h ^= ((uint64_t)k->flags << 32 | (uint64_t)host << 1 | d) * UINT64_C(0xc2b2ae3d27d4eb4f);
	return (size_t)(h ^ h >> 29);
}

static bool same(const struct slot *s, const struct wperf_tcp_key *k, unsigned host, enum dir d)
{
	return s->used && s->dir == d && s->side.host == host && s->key.seq == k->seq &&
	       s->key.ack_seq == k->ack_seq && s->key.flags == k->flags;
}

/* The slot holding (k, host, d), or the empty slot where it would go. */
static struct slot *find(struct wperf_netmatch *m, const struct wperf_tcp_key *k, unsigned host,
			 enum dir d)
{
	size_t i = slot_hash(k, host, d) & (m->cap - 1);

	while (m->slots[i].used && !same(&m->slots[i], k, host, d))
		i = (i + 1) & (m->cap - 1);
	return &m->slots[i];
}

/* Keep the table at most half full. */
static int grow(struct wperf_netmatch *m)
{
	if (m->cap && (m->used + 1) * 2 <= m->cap)
		return 0;
	size_t cap = m->cap ? m->cap * 2 : 64;
	struct slot *old = m->slots, *slots = calloc(cap, sizeof(*slots));
	size_t oldcap = m->cap;

	if (!slots)
		return -1;
	m->slots = slots;
	m->cap = cap;
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].used)
			*find(m, &old[i].key, old[i].side.host, old[i].dir) = old[i];
	free(old);
	return 0;
}

/* Empty slot s, moving back the entries of its probe run. */
static void erase(struct wperf_netmatch *m, struct slot *s)
{
	size_t hole = (size_t)(s - m->slots), i = hole;

	m->slots[hole].used = false;
	m->used--;
	for (;;) {
		i = (i + 1) & (m->cap - 1);
		if (!m->slots[i].used)
			return;
		size_t home = slot_hash(&m->slots[i].key, m->slots[i].side.host,
					m->slots[i].dir) & (m->cap - 1);

		/* i may move to the hole unless its home lies in (hole, i]. */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && home <= hole && home > i)) {
			m->slots[hole] = m->slots[i];
			m->slots[i].used = false;
			hole = i;
		}
	}
}

/* Room for one more match. */
static int match_room(struct wperf_netmatch *m)
{
	if (m->nmatches < m->capmatches)
		return 0;
	size_t cap = m->capmatches ? m->capmatches * 2 : 64;
	struct wperf_net_match *a = realloc(m->matches, cap * sizeof(*a));

	if (!a)
		return -1;
	m->matches = a;
	m->capmatches = cap;
	return 0;
}

/* An event of direction d: match it with a waiting event of the other
 * direction on another host, or make it wait. */
static int give(struct wperf_netmatch *m, const struct wperf_tcp_key *k,
		const struct wperf_net_side *side, enum dir d)
{
	enum dir other = d == SEND ? RECV : SEND;

	/* Both reserved first, so nothing fails halfway. */
	if (grow(m) < 0 || match_room(m) < 0)
		return -1;
	for (unsigned h = 0; h < m->nhosts; h++) {
		if (h == side->host)
			continue;
		struct slot *s = find(m, k, h, other);

		if (!s->used)
			continue;
		struct wperf_net_side waiting = s->side;

		erase(m, s);
		m->matches[m->nmatches++] = (struct wperf_net_match){
			*k, d == SEND ? *side : waiting, d == SEND ? waiting : *side };
		m->stats.matched++;
		return 1;
	}
	struct slot *s = find(m, k, side->host, d);

	if (s->used)
		m->stats.replaced++;
	else
		m->used++;
	*s = (struct slot){ .key = *k, .side = *side, .dir = d, .used = true };
	if (side->host >= m->nhosts)
		m->nhosts = side->host + 1;
	return 0;
}

int wperf_netmatch_send(struct wperf_netmatch *m, const struct wperf_tcp_key *key,
			const struct wperf_net_side *side)
{
	int rc = give(m, key, side, SEND);

	if (rc >= 0)
		m->stats.sends++;
	return rc;
}

int wperf_netmatch_receive(struct wperf_netmatch *m, const struct wperf_tcp_key *key,
			   const struct wperf_net_side *side)
{
	int rc = give(m, key, side, RECV);

	if (rc >= 0)
		m->stats.receives++;
	return rc;
}

size_t wperf_netmatch_count(const struct wperf_netmatch *m)
{
	return m->nmatches;
}

const struct wperf_net_match *wperf_netmatch_get(const struct wperf_netmatch *m, size_t i)
{
	return i < m->nmatches ? &m->matches[i] : NULL;
}

void wperf_netmatch_stats(const struct wperf_netmatch *m, struct wperf_netmatch_stats *out)
{
	*out = m->stats;
	out->unmatched_sends = out->unmatched_receives = 0;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*(m->slots[i].dir == SEND ? &out->unmatched_sends
						  : &out->unmatched_receives) += 1;
}
