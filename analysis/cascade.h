/* SPDX-License-Identifier: MIT */
/*
 * cascade.h — cascaded redistribution of wait weights (wperf-method(7) §4).
 *
 * For each thread it keeps the history of its finished waits, whatever
 * woke them. When a wait of A on B over [t1, t2] ends, the cascade adds
 * the overlap of each of B's waits with [t1, t2] to B's edge towards that
 * wait's waker (a thread, a disk, a timer...), and so on down the chain,
 * stopping at pseudo-threads (they never wait, so have no history) and
 * at threads already on the path. Every wait the walk can reach has ended
 * by t2 (a thread that wakes A at t2 is running then), so the walk only
 * ever reads finished history: the computation streams.
 *
 * Memory: history older than the earliest still-open wait can never be
 * reached again and is dropped (cascade_prune). That alone is not a bound:
 * one thread that sleeps for the whole trace (a daemon in epoll_wait)
 * pins the horizon at the start, and every other thread's history would
 * be kept for good. So each thread also keeps at most `max_records`
 * finished waits (CASCADE_HISTORY_MAX by default); older ones are dropped.
 * Exact and bounded are not both possible: which thread's history a
 * long wait walks is known only when it ends (its waker), and how far
 * down each record's weight flows depends on the path (the cycle guard),
 * so no per-thread summary of finished waits gives the same numbers. A
 * walk whose window reaches before a dropped record adds less cascaded
 * weight than the exact method would (never more), and is counted in
 * stats.truncated_walks. Memory: at most 2 * max_records records per
 * thread (max_records a power of two, as the default is), 24 bytes each.
 */
#ifndef WPERF_CASCADE_H
#define WPERF_CASCADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edges.h"
#include "runhist.h"

struct wait_record {
	int64_t start, end;
	uint32_t waker;         /* a thread or a pseudo-thread */
	bool requested;         /* the waiter had woken its waker since the waker
	                           last woke it: the waker worked on its request
	                           (cascade_wait_ended) */
	bool device;            /* the waker is a device: a walk that reaches
	                           this record ends at a device */
};

struct wait_history {
	struct wait_record *r;
	size_t head, n, cap;    /* live records are r[head .. n) */
	int64_t dropped_until;  /* end of the newest record dropped by the cap */
	size_t hint;            /* the last answer of a search in r (a guess) */
	bool on_path;           /* the thread is on the walk's current path */
};

/* Default per-thread cap on finished waits kept for the cascade. */
#define CASCADE_HISTORY_MAX 1024

/* What the cascade did: to prove work is linear and memory bounded. */
struct cascade_stats {
	uint64_t walks;           /* cascades run (waits on a thread that ended) */
	uint64_t frames;          /* (thread, window) pairs the walks considered */
	uint64_t records_scanned; /* history records looked at by all walks */
	uint64_t records_dropped; /* dropped by the per-thread cap */
	uint64_t truncated_walks; /* frames whose window reached before a dropped record */
	uint64_t truncated_waits; /* waits whose cascade had such a frame */
	size_t live, peak_live;   /* records kept now, and at most */
};

struct cascade_frame {
	uint32_t thread;
	int64_t a, b;
	size_t next;            /* the next record of the thread's history to look at */
	size_t stop;            /* look at records before this index only */
};

struct cascade {
	struct wait_history *h; /* indexed by vertex id */
	size_t n_h;
	struct cascade_frame *stack;
	size_t stack_cap;
	size_t max_records;     /* per-thread cap; cascade_init sets the default */
	/* When set, a walk also adds, to the waiter -> waker edge's
	 * runnable_ns, the time each thread it reaches below the waker was
	 * runnable over the window it held the waiter up (the waker's own
	 * is the caller's): a wait for a CPU at any remove. */
	struct runhist *runhist;
	struct cascade_stats stats;
	bool oom;
};

void cascade_init(struct cascade *c);
void cascade_fini(struct cascade *c);

/*
 * A wait of `waiter` on `waker` over [t1, t2] has ended. Adds the cascaded
 * weight to the edges (the direct weight is the caller's) and returns the
 * total added. The wait is recorded for later walks through the waiter.
 * A thread waker's history is walked; a pseudo-thread's branch ends at
 * its edge, which the caller weighs. The part of the window over which
 * the walk ended at a device (the waker waited on one, directly or down
 * its chain) is added to the waiter -> waker edge's device_ns.
 *
 * requested: the waiter had woken the waker since the waker last woke it
 * (a request, then a wait for the answer; edges_add_wait says). Then the
 * waker's waits over the window were on the waiter's behalf, and all of
 * them cascade (wperf-method(7) §4). Otherwise the waiter asked nothing of the
 * waker, which only ended the wait: what held the wakeup up is the
 * waker's last wait before it, and only that one cascades (clipped to the
 * window), not everything the waker did for itself meanwhile. The same
 * holds at every level of the walk, by the flag of each record.
 * (wperf-analysis(7), "Inherited waiting".)
 */
enum cascade_waker {
	CASCADE_WAKER_THREAD,   /* a thread: its history is walked */
	CASCADE_WAKER_DEVICE,   /* a disk or a NIC: a walk through the waiter ends there */
	CASCADE_WAKER_OTHER,    /* a timer, an interrupt, unknown... */
};

int64_t cascade_wait_ended(struct cascade *c, struct edge_map *edges,
			   uint32_t waiter, uint32_t waker, enum cascade_waker kind,
			   bool requested, int64_t t1, int64_t t2);

/* How long `thread` waited (on anything, as its history holds it) inside
 * [t1, t2]: the rest of that window it ran or was runnable. */
int64_t cascade_waited_within(struct cascade *c, uint32_t thread, int64_t t1, int64_t t2);

/*
 * v, woken at `at` by a device (a disk, a NIC, an interrupt), waited for
 * a CPU until `until` as that device wait's cost (its woken_cpu_wait_ns:
 * wperf-analysis(7), "The CPUs"). Its last recorded wait, the one that
 * ended at `at`, is extended to `until`, so that whoever waits on v
 * meanwhile is held up by the device, as v itself is counted: a walk
 * through v then reaches the device over that delay too. Only a thread's
 * last record changes, before any later wait of v exists, so the history
 * stays in time order and every walk still reads finished history (a
 * thread that wakes a waiter runs, so its delay has ended by then).
 */
void cascade_extend_device_wait(struct cascade *c, uint32_t v, int64_t at, int64_t until);

/* Forget waits that ended at or before horizon. */
void cascade_prune(struct cascade *c, int64_t horizon);

/* Records currently kept (for memory accounting and tests). */
size_t cascade_records(const struct cascade *c);

/* Records the history arrays have room for (the memory they hold). */
size_t cascade_capacity(const struct cascade *c);

#endif /* WPERF_CASCADE_H */
