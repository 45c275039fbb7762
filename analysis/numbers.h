/* SPDX-License-Identifier: MIT */
/*
 * analysis/numbers.h — the arithmetic the analysis and the reports share:
 * numbers only, no words (the report writers' formatting is
 * report/report-format.h, which includes this). Shares are fixed-point
 * millionths (ppm), so no writer needs floating-point printf.
 *
 * Internal to analysis/; not a public header.
 */
#ifndef WPERF_NUMBERS_H
#define WPERF_NUMBERS_H

#include <stdint.h>

#include "wperf/graph.h"

/* a + b for durations: negative parts (corrupt input) count as 0 and the
 * sum saturates instead of overflowing. */
int64_t wperf_add_durations(int64_t a, int64_t b);

/* A thread's running + runnable + waiting: the time the trace accounted for. */
int64_t wperf_time_seen(const struct wperf_vertex *v);

/* part / whole in millionths, rounded; 0 when whole <= 0 or part <= 0.
 * May exceed 1,000,000: cascaded weights add up beyond the duration. */
uint64_t wperf_ppm(int64_t part, int64_t whole);

/* Median log2 bucket of a wait-length histogram, or -1 when it is empty. */
int wperf_hist_median(const uint64_t hist[WPERF_HIST_BUCKETS]);

#endif /* WPERF_NUMBERS_H */
