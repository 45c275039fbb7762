/* SPDX-License-Identifier: MIT */
/*
 * falsewake.h — merging false wakeups (wperf-method(7) §6).
 *
 * wperf:false_wakeup() says the thread's latest wakeup did not let it
 * proceed (it found its condition still false and will wait again). The
 * wait before that wakeup, the short run after it and the next wait are
 * then one wait, whose waker is the waker of the real, final wakeup.
 *
 * The annotation comes after the wakeup, so each thread's segments from a
 * wakeup until its next wait are held back here; at that next wait they
 * are either released as they were, or dropped, the new wait starting
 * where the first one did. Holding is bounded: a run longer than
 * FALSEWAKE_MAX_RUN_NS, or more than FALSEWAKE_MAX_SEGMENTS segments, is
 * no longer "short" and releases them (a false wakeup declared after that
 * is counted as unmerged). Only enabled when the trace can contain false
 * wakeups, so that other traces' segments flow through undelayed.
 */
#ifndef WPERF_FALSEWAKE_H
#define WPERF_FALSEWAKE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "threads.h"

#define FALSEWAKE_MAX_RUN_NS   50000000   /* 50 ms */
#define FALSEWAKE_MAX_SEGMENTS 32

struct falsewake_thread {
	struct closed_segment *segs;
	size_t n, cap;
	int64_t run_ns;         /* running + runnable time held */
	uint32_t declared;      /* false wakeups declared for the held wakeup (a
	                           thread can declare again without sleeping in
	                           between, when its wait returned at once) */
};

struct falsewake {
	bool enabled;
	struct falsewake_thread *th;   /* by vertex id */
	size_t n_th;
	segment_sink out;              /* where released segments go */
	void *out_data;
	uint64_t merged, unmerged;
	bool oom;
};

void falsewake_init(struct falsewake *f, segment_sink out, void *out_data);
void falsewake_fini(struct falsewake *f);

/* A closed segment: passed on, or held back after a wakeup. */
void falsewake_segment(struct falsewake *f, const struct closed_segment *seg);
/* The thread starts waiting (or dies) at t: returns when the wait starts. */
int64_t falsewake_state_begins(struct falsewake *f, uint32_t v, enum thread_state st, int64_t t);
/* wperf:false_wakeup() from thread v at t. */
void falsewake_declared(struct falsewake *f, uint32_t v, int64_t t);
/* Release everything held (end of the trace). */
void falsewake_flush_all(struct falsewake *f);
/* Start of the oldest wait held back (INT64_MAX if none): the cascade may
 * still have to walk history from there. */
int64_t falsewake_oldest_held(const struct falsewake *f);

#endif /* WPERF_FALSEWAKE_H */
