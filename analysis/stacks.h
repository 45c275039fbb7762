/* SPDX-License-Identifier: MIT */
/*
 * stacks.h — the call stacks of waits: each distinct stack stored once
 * (interned), and, per edge, how many waits and how much waiting time each
 * stack of the waiting side accounts for. At the end, every edge keeps its
 * heaviest stacks (wperf_edge.stacks) and the graph the stacks they name.
 *
 * Memory grows with distinct stacks and (edge, stack) pairs, not events.
 * Internal to analysis/.
 */
#ifndef WPERF_STACKS_H
#define WPERF_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

#define STACK_NONE UINT32_MAX

struct stack_entry {
	size_t off;          /* first frame in ips */
	uint32_t n;          /* frames */
	uint64_t hash;
};

struct edge_stack {
	uint32_t from, to, stack;
	uint64_t count;
	int64_t ns;
};

struct stack_table {
	uint64_t *ips;
	size_t n_ips, cap_ips;
	struct stack_entry *st;
	size_t n, cap;
	uint32_t *slots;     /* stack id + 1; 0 = empty */
	size_t n_slots;
	struct edge_stack *es;
	size_t n_es, cap_es;
	uint32_t *es_slots;  /* index + 1 into es; 0 = empty */
	size_t n_es_slots;
	bool oom;
};

void stacks_init(struct stack_table *t);
void stacks_fini(struct stack_table *t);

/* The id of this stack (innermost frame first), STACK_NONE when n is 0
 * or memory ran out. At most WPERF_STACK_MAX_FRAMES frames are kept. */
uint32_t stacks_intern(struct stack_table *t, const uint64_t *ips, uint32_t n);

/* A wait of ns on from -> to, with the waiting side's stack. */
void stacks_add_wait(struct stack_table *t, uint32_t from, uint32_t to, uint32_t stack,
		     int64_t ns);

/* Give each edge of g (sorted by (from, to)) its heaviest stacks and g the
 * stacks they name. 0, or -1 on allocation failure (g then has none). */
int stacks_attach(struct stack_table *t, struct wperf_graph *g);

#endif /* WPERF_STACKS_H */
