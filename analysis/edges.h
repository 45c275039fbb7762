/* SPDX-License-Identifier: MIT */
/*
 * edges.h — the edge map: one struct wperf_edge per (waiter, waited-for)
 * pair, found by hashing the pair. Edges are addressed by index because
 * the array grows.
 */
#ifndef WPERF_EDGES_H
#define WPERF_EDGES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

#define EDGE_NONE SIZE_MAX

struct edge_map {
	struct wperf_edge *e;
	size_t n, cap;
	size_t *slots;      /* index + 1 into e; 0 = empty */
	size_t n_slots;
	uint64_t *last_wait;  /* by edge index: sequence number of its last wait */
	size_t *reverse;      /* by edge index: the edge to -> from, or EDGE_NONE */
	uint64_t waits_seen;  /* sequence of edges_add_wait calls */
	struct wait_end {     /* by vertex id: when its latest wait ended */
		int64_t at;
		bool seen;    /* false: no wait of it ended yet */
	} *wait_ended;
	size_t n_wait_ended;
	struct last_wake {    /* by waker vertex id: its latest wakeup */
		int64_t at;
		size_t edge;  /* the edge of the wait it ended */
		bool seen;
		bool grouped; /* already counted in that edge's `grouped` */
	} *last_wake;
	size_t n_last_wake;
	bool oom;
};

void edges_init(struct edge_map *m);
void edges_fini(struct edge_map *m);

/* The edge from -> to, created with zero weight on first use. */
size_t edges_get(struct edge_map *m, uint32_t from, uint32_t to);

/* Two wakeups by one waker this close, with no wait of the waker between
 * them, wake a group (a barrier opening, a broadcast). A futex wake of
 * three threads took up to 20 us on a traced 2-CPU VM. */
#define EDGES_GROUP_WAKE_NS 50000

/* A wait over [start, end]: direct weight, count and histogram; a new
 * turn when the reverse edge had a wait since this edge's last one; a
 * chained wait when `to` ended a wait of its own after `start`; a grouped
 * wait when `to` woke another thread within EDGES_GROUP_WAKE_NS of `end`
 * (both waits count); on_runnable_ns of it `to` was runnable (runnable_ns).
 * Waits are added in the order they end. Returns the edge's index
 * (EDGE_NONE when out of memory), for what the caller adds to it, and
 * sets *requested: was the wait *requested*, `from` having woken `to` (a
 * wait of `to` ended by `from`, a wait for work included) since `to` last
 * woke `from`, or `from` having created `to` (from_forked_to) and `to`
 * never woken it since (cascade_wait_ended; true when out of memory). */
size_t edges_add_wait(struct edge_map *m, uint32_t from, uint32_t to, int64_t start,
		      int64_t end, int64_t on_runnable_ns, bool from_forked_to, bool *requested);
/* Weight that reaches the edge by cascade only. */
/* A wait for work of `from`, ended by `to` (graph.h, idle_ns): counted
 * apart, no weight. */
void edges_add_idle_wait(struct edge_map *m, uint32_t from, uint32_t to, int64_t start,
			 int64_t end);

void edges_add_cascade(struct edge_map *m, uint32_t from, uint32_t to, int64_t amount);


/* Move the edges out, sorted by (from, to). The map is left empty. */
void edges_take_sorted(struct edge_map *m, struct wperf_edge **out, size_t *n);

/* log2 bucket of a duration in ns, clamped to the histogram. */
unsigned edges_hist_bucket(int64_t ns);

#endif /* WPERF_EDGES_H */
