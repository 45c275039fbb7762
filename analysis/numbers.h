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

#include <stdbool.h>
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

/* The range [*lo, *hi) ns that holds the median of a wait-length
 * histogram (log2 buckets: bucket b holds [2^b, 2^(b+1)), bucket 0 also 0).
 * With an odd count the median is the middle wait: the range is its
 * bucket. With an even count it is the mean of the two middle waits, which
 * lies in the mean of their buckets' bounds: their bucket when they share
 * one, else a range as wide (a factor of 2) across the two. false, *lo and
 * *hi untouched, when the histogram is empty. */
bool wperf_hist_median_range(const uint64_t hist[WPERF_HIST_BUCKETS], int64_t *lo, int64_t *hi);

#endif /* WPERF_NUMBERS_H */
