/* SPDX-License-Identifier: MIT */
/*
 * runhist.h — each thread's recent runnable intervals, so that a wait on
 * a thread can tell how much of it that thread spent waiting for a CPU.
 *
 * The CPU finding (wperf/cpu.h) must know when a thread's wait on
 * another was in truth a wait for a CPU: in a closed loop (a client and
 * its server) each thread waits on the other half of its life, and on a
 * busy machine the other is runnable for much of that time. When a wait
 * of A on B over [t1, t2] ends, the overlap of B's runnable intervals
 * with [t1, t2] is A's "waited on a runnable thread" time
 * (wperf_vertex.waited_on_runnable_ns). One level only: A waiting on B
 * while B waits on a runnable C is not counted (B's own count has it).
 *
 * Every runnable interval of B in [t1, t2] has ended by t2 (B runs when
 * it wakes A), so only finished intervals are read: it streams. Memory
 * is bounded as the cascade's wait history is (cascade.h): intervals
 * that ended before the oldest wait still open are dropped
 * (runhist_prune), and each thread keeps at most `max_records`; a wait
 * reaching before a dropped interval counts less (never more).
 */
#ifndef WPERF_RUNHIST_H
#define WPERF_RUNHIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct run_interval {
	int64_t start, end;
};

struct run_history {
	struct run_interval *r;
	size_t head, n, cap;    /* live intervals are r[head .. n), in time order */
};

#define RUNHIST_MAX 1024        /* intervals kept per thread, by default */

struct runhist {
	struct run_history *h;  /* indexed by vertex id */
	size_t n_h;
	size_t max_records;
	bool oom;
};

void runhist_init(struct runhist *rh);
void runhist_fini(struct runhist *rh);

/* Thread v was runnable over [start, end] (its segments come in order). */
void runhist_add(struct runhist *rh, uint32_t v, int64_t start, int64_t end);

/* How long thread v was runnable within [a, b], as far as kept. */
int64_t runhist_overlap(struct runhist *rh, uint32_t v, int64_t a, int64_t b);

/* Forget intervals that ended at or before horizon. */
void runhist_prune(struct runhist *rh, int64_t horizon);

#endif /* WPERF_RUNHIST_H */
