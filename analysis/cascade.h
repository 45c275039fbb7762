/*
 * cascade.h — cascaded redistribution of wait weights (METHOD.md §4).
 *
 * For each thread it keeps the history of its finished waits whose waker
 * was a thread. When a wait of A on B over [t1, t2] ends, the cascade adds
 * the overlap of each of B's waits with [t1, t2] to B's edge towards that
 * wait's waker, and so on down the chain, stopping at pseudo-threads and
 * at threads already on the path. Every wait the walk can reach has ended
 * by t2 (a thread that wakes A at t2 is running then), so the walk only
 * ever reads finished history: the computation streams.
 *
 * Memory: history older than the earliest still-open wait can never be
 * reached again and is dropped (cascade_prune).
 */
#ifndef WPERF_CASCADE_H
#define WPERF_CASCADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edges.h"

struct wait_record {
	int64_t start, end;
	uint32_t waker;         /* a thread vertex */
};

struct wait_history {
	struct wait_record *r;
	size_t head, n, cap;    /* live records are r[head .. n) */
};

struct cascade_frame {
	uint32_t thread;
	int64_t a, b;
	size_t parent;          /* index of the frame that pushed it, SIZE_MAX at the root */
};

struct cascade {
	struct wait_history *h; /* indexed by vertex id */
	size_t n_h;
	struct cascade_frame *stack;
	size_t stack_cap;
	bool oom;
};

void cascade_init(struct cascade *c);
void cascade_fini(struct cascade *c);

/*
 * A wait of `waiter` on `waker` over [t1, t2] has ended. Adds the cascaded
 * weight to the edges (the direct weight is the caller's) and returns the
 * total added. waker_is_thread: walk into the waker's history and record
 * this wait for later walks; otherwise (pseudo-thread) nothing cascades.
 */
int64_t cascade_wait_ended(struct cascade *c, struct edge_map *edges,
			   uint32_t waiter, uint32_t waker, bool waker_is_thread,
			   int64_t t1, int64_t t2);

/* Forget waits that ended at or before horizon. */
void cascade_prune(struct cascade *c, int64_t horizon);

/* Records currently kept (for memory accounting and tests). */
size_t cascade_records(const struct cascade *c);

#endif /* WPERF_CASCADE_H */
