/* SPDX-License-Identifier: MIT */
/*
 * stacks.c — call stacks of waits: see stacks.h.
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "stacks.h"

void stacks_init(struct stack_table *t)
{
	memset(t, 0, sizeof *t);
}

void stacks_fini(struct stack_table *t)
{
	free(t->ips);
	free(t->st);
	free(t->slots);
	free(t->es);
	free(t->es_slots);
	memset(t, 0, sizeof *t);
}

static uint64_t mix(uint64_t h, uint64_t x)
{
	h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h * 0xff51afd7ed558ccdull;
}

static uint64_t hash_frames(const uint64_t *ips, uint32_t n)
{
	uint64_t h = n;

	for (uint32_t i = 0; i < n; i++)
		h = mix(h, ips[i]);
	return h;
}

/* Rebuild an open-addressing index of n items (id + 1 in each slot). */
static uint32_t *rehash(size_t n, size_t *n_slots, uint64_t (*key)(const void *, size_t),
			const void *items)
{
	size_t size = *n_slots ? *n_slots * 2 : 1024;
	uint32_t *slots = calloc(size, sizeof *slots);

	if (!slots)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t s = (size_t)key(items, i) & (size - 1);
		while (slots[s])
			s = (s + 1) & (size - 1);
		slots[s] = (uint32_t)i + 1;
	}
	*n_slots = size;
	return slots;
}

static uint64_t stack_key(const void *items, size_t i)
{
	return ((const struct stack_entry *)items)[i].hash;
}

static uint64_t pair_hash(uint32_t from, uint32_t to, uint32_t stack)
{
	return mix(mix(mix(0, from), to), stack);
}

static uint64_t edge_stack_key(const void *items, size_t i)
{
	const struct edge_stack *e = &((const struct edge_stack *)items)[i];
	return pair_hash(e->from, e->to, e->stack);
}

static bool same_frames(const struct stack_table *t, const struct stack_entry *e,
			const uint64_t *ips, uint32_t n)
{
	return e->n == n && memcmp(&t->ips[e->off], ips, n * sizeof *ips) == 0;
}

static uint32_t append_stack(struct stack_table *t, const uint64_t *ips, uint32_t n,
			     uint64_t h)
{
	/* Index n_ips + n held: room for the n frames (and one spare). */
	if (!array_reserve_index((void **)&t->ips, &t->cap_ips, t->n_ips + n, 64,
				 sizeof *t->ips) ||
	    !array_reserve_index((void **)&t->st, &t->cap, t->n, 64, sizeof *t->st))
		return STACK_NONE;
	memcpy(&t->ips[t->n_ips], ips, n * sizeof *ips);
	t->st[t->n] = (struct stack_entry){ t->n_ips, n, h };
	t->n_ips += n;
	return (uint32_t)t->n++;
}

uint32_t stacks_intern(struct stack_table *t, const uint64_t *ips, uint32_t n)
{
	if (n == 0 || !ips)
		return STACK_NONE;
	if (n > WPERF_STACK_MAX_FRAMES)
		n = WPERF_STACK_MAX_FRAMES;
	if ((t->n + 1) * 2 > t->n_slots) {
		uint32_t *slots = rehash(t->n, &t->n_slots, stack_key, t->st);
		if (!slots) {
			t->oom = true;
			return STACK_NONE;
		}
		free(t->slots);
		t->slots = slots;
	}
	uint64_t h = hash_frames(ips, n);
	size_t s = (size_t)h & (t->n_slots - 1);

	for (; t->slots[s]; s = (s + 1) & (t->n_slots - 1))
		if (t->st[t->slots[s] - 1].hash == h && same_frames(t, &t->st[t->slots[s] - 1], ips, n))
			return t->slots[s] - 1;
	uint32_t id = append_stack(t, ips, n, h);
	if (id == STACK_NONE)
		t->oom = true;
	else
		t->slots[s] = id + 1;
	return id;
}

void stacks_add_wait(struct stack_table *t, uint32_t from, uint32_t to, uint32_t stack,
		     int64_t ns)
{
	if (stack == STACK_NONE)
		return;
	if ((t->n_es + 1) * 2 > t->n_es_slots) {
		uint32_t *slots = rehash(t->n_es, &t->n_es_slots, edge_stack_key, t->es);
		if (!slots) {
			t->oom = true;
			return;
		}
		free(t->es_slots);
		t->es_slots = slots;
	}
	size_t s = (size_t)pair_hash(from, to, stack) & (t->n_es_slots - 1);

	for (; t->es_slots[s]; s = (s + 1) & (t->n_es_slots - 1)) {
		struct edge_stack *e = &t->es[t->es_slots[s] - 1];
		if (e->from == from && e->to == to && e->stack == stack) {
			e->count++;
			e->ns += ns;
			return;
		}
	}
	if (!array_reserve_index((void **)&t->es, &t->cap_es, t->n_es, 64, sizeof *t->es)) {
		t->oom = true;
		return;
	}
	t->es[t->n_es] = (struct edge_stack){ from, to, stack, 1, ns };
	t->es_slots[s] = (uint32_t)++t->n_es;
}

/* By edge, then heaviest first (then by stack id, for a stable order). */
static int by_edge_then_weight(const void *a, const void *b)
{
	const struct edge_stack *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->to != y->to)
		return x->to < y->to ? -1 : 1;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->stack < y->stack ? -1 : x->stack > y->stack;
}

/* Copy the stacks the edges name into g, renumbered densely. */
static int copy_named_stacks(const struct stack_table *t, struct wperf_graph *g, uint32_t *newid)
{
	size_t n = 0;

	for (size_t i = 0; i < t->n; i++)
		if (newid[i] != STACK_NONE)
			newid[i] = (uint32_t)n++;
	g->stacks = n ? calloc(n, sizeof *g->stacks) : NULL;
	if (n && !g->stacks)
		return -1;
	g->n_stacks = n;
	for (size_t i = 0; i < t->n; i++) {
		if (newid[i] == STACK_NONE)
			continue;
		struct wperf_stack *s = &g->stacks[newid[i]];
		s->n = t->st[i].n;
		s->ips = malloc(s->n * sizeof *s->ips);
		if (!s->ips)
			return -1;
		memcpy(s->ips, &t->ips[t->st[i].off], s->n * sizeof *s->ips);
	}
	for (size_t e = 0; e < g->n_edges; e++)
		for (uint8_t k = 0; k < g->edges[e].n_stacks; k++)
			g->edges[e].stacks[k].stack = newid[g->edges[e].stacks[k].stack];
	return 0;
}

static void drop_stacks(struct wperf_graph *g)
{
	for (size_t i = 0; i < g->n_stacks; i++)
		free(g->stacks[i].ips);
	free(g->stacks);
	g->stacks = NULL;
	g->n_stacks = 0;
	for (size_t e = 0; e < g->n_edges; e++)
		g->edges[e].n_stacks = 0;
}

int stacks_attach(struct stack_table *t, struct wperf_graph *g)
{
	uint32_t *newid;
	size_t j = 0;

	if (t->n == 0 || t->n_es == 0)
		return 0;
	newid = malloc(t->n * sizeof *newid);
	if (!newid)
		return -1;
	for (size_t i = 0; i < t->n; i++)
		newid[i] = STACK_NONE;
	qsort(t->es, t->n_es, sizeof *t->es, by_edge_then_weight);
	/* Both sorted by (from, to): one pass. */
	for (size_t e = 0; e < g->n_edges; e++) {
		struct wperf_edge *edge = &g->edges[e];
		while (j < t->n_es && (t->es[j].from < edge->from ||
				       (t->es[j].from == edge->from && t->es[j].to < edge->to)))
			j++;
		for (; j < t->n_es && t->es[j].from == edge->from && t->es[j].to == edge->to; j++) {
			if (edge->n_stacks == WPERF_EDGE_STACKS)
				continue;
			edge->stacks[edge->n_stacks++] = (struct wperf_edge_stack){
				t->es[j].stack, t->es[j].count, t->es[j].ns };
			newid[t->es[j].stack] = 0;   /* named */
		}
	}
	/* The index no longer matches the sorted array. */
	free(t->es_slots);
	t->es_slots = NULL;
	t->n_es_slots = 0;
	t->n_es = 0;
	int rc = copy_named_stacks(t, g, newid);
	free(newid);
	if (rc < 0)
		drop_stacks(g);
	return rc;
}
