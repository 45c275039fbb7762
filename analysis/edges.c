/* SPDX-License-Identifier: MIT */
/*
 * edges.c — the edge map (see edges.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "edges.h"

void edges_init(struct edge_map *m)
{
	memset(m, 0, sizeof *m);
}

void edges_fini(struct edge_map *m)
{
	free(m->e);
	free(m->slots);
	free(m->last_wait);
	free(m->reverse);
	free(m->wait_ended);
	free(m->last_wake);
	memset(m, 0, sizeof *m);
}

/*
 * The slot a pair hashes to: the top bits of the product, the only ones
 * every bit of the key reaches (n_slots is a power of two, 1024 or more).
 * Bits from the middle missed `from`, held in the key's upper half, below
 * 2^12 slots and in part beyond: every waiter of one vertex probed one
 * cluster, and linking each new edge to its reverse walked it
 * (10 M instructions of tc-many-threads' 8,000 threads).
 */
static size_t pair_slot(uint32_t from, uint32_t to, size_t n_slots)
{
	uint64_t key = ((uint64_t)from << 32) | to;

	key *= 0x9E3779B97F4A7C15ull;
	return (size_t)(key >> (64 - __builtin_ctzll(n_slots)));
}

static bool rehash(struct edge_map *m)
{
	size_t n_slots = m->n_slots ? m->n_slots * 2 : 1024;
	size_t *slots = calloc(n_slots, sizeof *slots);

	if (!slots)
		return false;
	for (size_t i = 0; i < m->n; i++) {
		size_t s = pair_slot(m->e[i].from, m->e[i].to, n_slots);

		while (slots[s])
			s = (s + 1) & (n_slots - 1);
		slots[s] = i + 1;
	}
	free(m->slots);
	m->slots = slots;
	m->n_slots = n_slots;
	return true;
}

/* Look an edge up without creating it. */
static size_t find_edge(const struct edge_map *m, uint32_t from, uint32_t to)
{
	if (!m->n_slots)
		return EDGE_NONE;
	for (size_t s = pair_slot(from, to, m->n_slots); m->slots[s];
	     s = (s + 1) & (m->n_slots - 1)) {
		const struct wperf_edge *e = &m->e[m->slots[s] - 1];

		if (e->from == from && e->to == to)
			return m->slots[s] - 1;
	}
	return EDGE_NONE;
}

static size_t append_edge(struct edge_map *m, uint32_t from, uint32_t to)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct wperf_edge *e = realloc(m->e, cap * sizeof *e);

		if (!e)
			return EDGE_NONE;
		m->e = e;
		uint64_t *last = realloc(m->last_wait, cap * sizeof *last);

		if (!last)
			return EDGE_NONE;
		m->last_wait = last;
		size_t *reverse = realloc(m->reverse, cap * sizeof *reverse);

		if (!reverse)
			return EDGE_NONE;
		m->reverse = reverse;
		m->cap = cap;
	}
	m->last_wait[m->n] = 0;
	/* Link the pair both ways now, so no wait has to look it up. */
	m->reverse[m->n] = find_edge(m, to, from);
	if (m->reverse[m->n] != EDGE_NONE)
		m->reverse[m->reverse[m->n]] = m->n;
	memset(&m->e[m->n], 0, sizeof m->e[m->n]);
	m->e[m->n].from = from;
	m->e[m->n].to = to;
	return m->n++;
}

size_t edges_get(struct edge_map *m, uint32_t from, uint32_t to)
{
	if ((m->n + 1) * 2 > m->n_slots && !rehash(m)) {
		m->oom = true;
		return EDGE_NONE;
	}
	size_t s = pair_slot(from, to, m->n_slots);

	for (; m->slots[s]; s = (s + 1) & (m->n_slots - 1)) {
		struct wperf_edge *e = &m->e[m->slots[s] - 1];

		if (e->from == from && e->to == to)
			return m->slots[s] - 1;
	}
	size_t idx = append_edge(m, from, to);

	if (idx == EDGE_NONE) {
		m->oom = true;
		return EDGE_NONE;
	}
	m->slots[s] = idx + 1;
	return idx;
}

unsigned edges_hist_bucket(int64_t ns)
{
	/* floor(log2(ns)) in one instruction: this runs for every wait. */
	unsigned b = ns > 1 ? 63u - (unsigned)__builtin_clzll((unsigned long long)ns) : 0;

	return b < WPERF_HIST_BUCKETS - 1 ? b : WPERF_HIST_BUCKETS - 1;
}

/* Is a wait on edge i the first of a run: its first wait, or the reverse
 * edge waited since? */
static int starts_turn(const struct edge_map *m, size_t i)
{
	size_t r = m->reverse[i];

	if (m->last_wait[i] == 0)
		return 1;
	return r != EDGE_NONE && m->last_wait[r] > m->last_wait[i];
}

/*
 * Did a wait of v end after t? Asked of a waker: did it wait itself during
 * a wait on it that began at t, or between two of its wakeups. Waits arrive
 * in the order they end, and a wait on v ends when v, running, ends it, so
 * v's latest wait is the only one that can.
 */
static bool waited_after(const struct edge_map *m, uint32_t v, int64_t t)
{
	return v < m->n_wait_ended && m->wait_ended[v].seen && m->wait_ended[v].at > t;
}

/* Remember when `from`'s latest wait ended; false when out of memory. */
static bool note_wait_ended(struct edge_map *m, uint32_t from, int64_t end)
{
	if (!array_reserve_index((void **)&m->wait_ended, &m->n_wait_ended, from, 256,
				 sizeof *m->wait_ended))
		return false;
	m->wait_ended[from].at = end;
	m->wait_ended[from].seen = true;
	return true;
}

/*
 * Did the wakeup at `end` by `to` come with the one before it, in a group:
 * close in time, and `to` did not wait between the two? Marks that earlier
 * wait's edge too (once), then remembers this wakeup. False when out of
 * memory.
 */
static bool note_wakeup(struct edge_map *m, uint32_t to, size_t edge, int64_t end)
{
	struct last_wake *w;
	bool grouped;

	if (!array_reserve_index((void **)&m->last_wake, &m->n_last_wake, to, 256,
				 sizeof *m->last_wake))
		return false;
	w = &m->last_wake[to];
	grouped = w->seen && end - w->at <= EDGES_GROUP_WAKE_NS && !waited_after(m, to, w->at);
	if (grouped) {
		m->e[edge].grouped++;
		if (!w->grouped && w->edge < m->n)
			m->e[w->edge].grouped++;
	}
	*w = (struct last_wake){ .at = end, .edge = edge, .seen = true, .grouped = grouped };
	return true;
}

/* Did `from` wake `to` since `to` last woke it (edge i is from -> to)?
 * last_wait orders the waits of both edges by their end. */
static bool requested(const struct edge_map *m, size_t i)
{
	size_t r = m->reverse[i];

	return r != EDGE_NONE && m->last_wait[r] > m->last_wait[i];
}

size_t edges_add_wait(struct edge_map *m, uint32_t from, uint32_t to, int64_t start,
		      int64_t end, int64_t on_runnable_ns, bool from_forked_to, bool *asked)
{
	size_t i = edges_get(m, from, to);
	int64_t duration = end - start;

	if (i == EDGE_NONE) {
		*asked = true;
		return i;
	}
	/* Creating a thread asks it for its whole work, as waking it does:
	 * a parent's wait for its child's exit, a join on a worker. */
	*asked = requested(m, i) || (from_forked_to && m->last_wait[i] == 0);
	m->e[i].weight_ns += duration;
	m->e[i].direct_ns += duration;
	m->e[i].runnable_ns += on_runnable_ns;
	m->e[i].count++;
	m->e[i].hist[edges_hist_bucket(duration)]++;
	m->e[i].turns += starts_turn(m, i);
	m->e[i].chained += waited_after(m, to, start);
	m->last_wait[i] = ++m->waits_seen;
	if (!note_wakeup(m, to, i, end) || !note_wait_ended(m, from, end))
		m->oom = true;
	return i;
}

void edges_add_idle_wait(struct edge_map *m, uint32_t from, uint32_t to, int64_t start,
			 int64_t end)
{
	size_t i = edges_get(m, from, to);

	if (i == EDGE_NONE)
		return;
	m->e[i].idle_ns += end - start;
	m->e[i].idle_count++;
	/* `to` gave `from` work: a later wait of `to` on `from` is a
	 * request's (edges_add_wait). */
	m->last_wait[i] = ++m->waits_seen;
	/* Still a wait of `from` that ended: a wait on `from` that began
	 * before it was queued behind it (chained). */
	if (!note_wait_ended(m, from, end))
		m->oom = true;
}

void edges_add_cascade(struct edge_map *m, uint32_t from, uint32_t to, int64_t amount)
{
	size_t i = edges_get(m, from, to);

	if (i != EDGE_NONE)
		m->e[i].weight_ns += amount;
}

static int by_pair(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	return 0;
}

void edges_take_sorted(struct edge_map *m, struct wperf_edge **out, size_t *n)
{
	if (m->n > 1)   /* qsort's base may not be NULL, even for no element */
		qsort(m->e, m->n, sizeof *m->e, by_pair);
	*out = m->e;
	*n = m->n;
	m->e = NULL;
	m->n = m->cap = 0;
	free(m->last_wait);
	m->last_wait = NULL;
	free(m->reverse);   /* by index, which sorting changed */
	m->reverse = NULL;
	free(m->slots);
	m->slots = NULL;
	m->n_slots = 0;
}
