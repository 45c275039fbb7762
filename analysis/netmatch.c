/* SPDX-License-Identifier: MIT */
/*
 * netmatch.c — TCP send/receive matching across hosts (wperf/netmatch.h):
 * owns the tables of unmatched sends and receives and the matches.
 *
 * The two tables are one open-addressing hash table (linear probing,
 * deletion by backward shift), keyed by (seq, ack_seq, flags, host,
 * direction), copies of one key side by side in its probe run: a receive
 * on host h looks up the sends of every other host seen so far, which are
 * few, and takes the one that has waited longest.
 */
#include "wperf/netmatch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum dir { SEND, RECV };

struct slot {
	struct wperf_tcp_key key;
	struct wperf_net_side side;
	uint64_t order;              /* when it began to wait: copies pair in order */
	uint8_t dir;
	bool used;
};

struct wperf_netmatch {
	struct slot *slots;
	size_t cap, used;            /* cap: a power of two */
	struct wperf_net_match *matches;
	size_t nmatches, capmatches;
	unsigned nhosts;             /* 1 + the largest host given */
	uint64_t next_order;
	/* How many copies of each (key, host, direction) were given: a match
	 * is unique when its send and its receive were the only ones. */
	struct copies *copies;
	size_t ccap, cused;
	struct wperf_netmatch_stats stats;
};

struct copies {
	struct wperf_tcp_key key;
	unsigned host;
	uint32_t n;                  /* 0: the slot is free */
	uint8_t dir;
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
	free(m->copies);
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

/* The empty slot where (k, host, d) would go after the copies waiting
 * already; *copies says whether there are any. */
static struct slot *find_free(struct wperf_netmatch *m, const struct wperf_tcp_key *k,
			      unsigned host, enum dir d, bool *copies)
{
	size_t i = slot_hash(k, host, d) & (m->cap - 1);

	*copies = false;
	while (m->slots[i].used) {
		*copies |= same(&m->slots[i], k, host, d);
		i = (i + 1) & (m->cap - 1);
	}
	return &m->slots[i];
}

/* The copy of (k, host, d) that has waited longest, or NULL. The copies
 * all lie in the probe run from their home slot to the next empty one. */
static struct slot *find_oldest(struct wperf_netmatch *m, const struct wperf_tcp_key *k,
				unsigned host, enum dir d)
{
	size_t i = slot_hash(k, host, d) & (m->cap - 1);
	struct slot *best = NULL;

	for (; m->slots[i].used; i = (i + 1) & (m->cap - 1))
		if (same(&m->slots[i], k, host, d) && (!best || m->slots[i].order < best->order))
			best = &m->slots[i];
	return best;
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
	for (size_t i = 0; i < oldcap; i++) {
		bool copies;

		if (old[i].used)
			*find_free(m, &old[i].key, old[i].side.host, old[i].dir, &copies) = old[i];
	}
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

/* The count of (k, host, d), or the free slot where it would go. */
static struct copies *find_copies(struct copies *c, size_t cap, const struct wperf_tcp_key *k,
				  unsigned host, enum dir d)
{
	size_t i = slot_hash(k, host, d) & (cap - 1);

	while (c[i].n && !(c[i].dir == d && c[i].host == host && c[i].key.seq == k->seq &&
			   c[i].key.ack_seq == k->ack_seq && c[i].key.flags == k->flags))
		i = (i + 1) & (cap - 1);
	return &c[i];
}

/* Room for one more count (the table at most half full). */
static int copies_room(struct wperf_netmatch *m)
{
	if (m->ccap && (m->cused + 1) * 2 <= m->ccap)
		return 0;
	size_t cap = m->ccap ? m->ccap * 2 : 64;
	struct copies *c = calloc(cap, sizeof(*c));

	if (!c)
		return -1;
	for (size_t i = 0; i < m->ccap; i++)
		if (m->copies[i].n)
			*find_copies(c, cap, &m->copies[i].key, m->copies[i].host,
				     m->copies[i].dir) = m->copies[i];
	free(m->copies);
	m->copies = c;
	m->ccap = cap;
	return 0;
}

/* One more copy of (k, host, d) given (room reserved). */
static void count_copy(struct wperf_netmatch *m, const struct wperf_tcp_key *k, unsigned host,
		       enum dir d)
{
	struct copies *c = find_copies(m->copies, m->ccap, k, host, d);

	if (!c->n++) {
		*c = (struct copies){ *k, host, 1, (uint8_t)d };
		m->cused++;
	}
}

static uint32_t copies_of(const struct wperf_netmatch *m, const struct wperf_tcp_key *k,
			  unsigned host, enum dir d)
{
	return m->ccap ? find_copies(m->copies, m->ccap, k, host, d)->n : 0;
}

bool wperf_netmatch_unique(const struct wperf_netmatch *m, size_t i)
{
	const struct wperf_net_match *x = wperf_netmatch_get(m, i);

	return x && copies_of(m, &x->key, x->send.host, SEND) == 1 &&
	       copies_of(m, &x->key, x->recv.host, RECV) == 1;
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

	/* All reserved first, so nothing fails halfway. */
	if (grow(m) < 0 || match_room(m) < 0 || copies_room(m) < 0)
		return -1;
	count_copy(m, k, side->host, d);
	for (unsigned h = 0; h < m->nhosts; h++) {
		if (h == side->host)
			continue;
		struct slot *s = find_oldest(m, k, h, other);

		if (!s)
			continue;
		struct wperf_net_side waiting = s->side;

		erase(m, s);
		m->matches[m->nmatches++] = (struct wperf_net_match){
			*k, d == SEND ? *side : waiting, d == SEND ? waiting : *side };
		m->stats.matched++;
		return 1;
	}
	bool copies;
	struct slot *s = find_free(m, k, side->host, d, &copies);

	if (copies)
		m->stats.repeated++;
	m->used++;
	*s = (struct slot){ .key = *k, .side = *side, .order = m->next_order++, .dir = d,
			    .used = true };
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
	out->unmatched_sends = out->unmatched_receives = out->ambiguous = 0;
	for (size_t i = 0; i < m->nmatches; i++)
		out->ambiguous += !wperf_netmatch_unique(m, i);
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i].used)
			*(m->slots[i].dir == SEND ? &out->unmatched_sends
						  : &out->unmatched_receives) += 1;
}
