/* SPDX-License-Identifier: MIT */
/*
 * analysis/numbers.c — the arithmetic the analysis and the reports share
 * (numbers.h): saturating sums of durations, shares in millionths, a
 * thread's time seen, the range that holds a wait-length histogram's
 * median.
 */
#include <stdbool.h>
#include <stdint.h>

#include "numbers.h"

int64_t wperf_add_durations(int64_t a, int64_t b)
{
	if (a < 0)
		a = 0;
	if (b < 0)
		b = 0;
	return a > INT64_MAX - b ? INT64_MAX : a + b;
}

int64_t wperf_time_seen(const struct wperf_vertex *v)
{
	int64_t sum = wperf_add_durations(v->running_ns, v->runnable_ns);

	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		sum = wperf_add_durations(sum, v->waiting_ns[k]);
	return sum;
}

uint64_t wperf_ppm(int64_t part, int64_t whole)
{
	if (part <= 0 || whole <= 0)
		return 0;
	/* long double keeps 64 bits of mantissa: exact enough for shares. */
	long double ppm = (long double)part * 1e6L / (long double)whole + 0.5L;
	if (ppm >= 1.8e19L)
		return UINT64_MAX;
	return (uint64_t)ppm;
}

/* The log2 bucket holding the k-th shortest wait (k from 1) of hist,
 * whose counts sum to total >= k. */
static int bucket_of_rank(const uint64_t hist[WPERF_HIST_BUCKETS], uint64_t k)
{
	uint64_t seen = 0;

	for (int b = 0; b < WPERF_HIST_BUCKETS; b++) {
		seen += hist[b] > UINT64_MAX - seen ? UINT64_MAX - seen : hist[b];
		if (seen >= k)
			return b;
	}
	return WPERF_HIST_BUCKETS - 1;
}

/* Bucket b holds [2^b, 2^(b+1)) ns; bucket 0 holds 0 and 1 ns. */
static int64_t bucket_low(int b)
{
	return b == 0 ? 0 : (int64_t)1 << b;
}

bool wperf_hist_median_range(const uint64_t hist[WPERF_HIST_BUCKETS], int64_t *lo, int64_t *hi)
{
	uint64_t total = 0;
	int a, b;

	for (int i = 0; i < WPERF_HIST_BUCKETS; i++)
		total += hist[i] > UINT64_MAX - total ? UINT64_MAX - total : hist[i];
	if (total == 0)
		return false;
	/* The middle waits, of ranks ceil(total / 2) and total / 2 + 1: the
	 * same wait when the count is odd, the two middle ones when even. */
	a = bucket_of_rank(hist, total / 2 + total % 2);
	b = bucket_of_rank(hist, total / 2 + 1);
	/* The mean of a wait in [la, ha) and one in [lb, hb) lies in
	 * [(la + lb) / 2, (ha + hb) / 2); the bounds are even (0 or 2^b, b >= 1),
	 * so halving each first is exact. */
	*lo = bucket_low(a) / 2 + bucket_low(b) / 2;
	*hi = ((int64_t)1 << a) + ((int64_t)1 << b);    /* (2^(a+1) + 2^(b+1)) / 2 */
	return true;
}
