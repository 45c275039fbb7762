/* SPDX-License-Identifier: MIT */
/*
 * analysis/numbers.c — the arithmetic the analysis and the reports share
 * (numbers.h): saturating sums of durations, shares in millionths, a
 * thread's time seen, a wait-length histogram's median.
 */
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

int wperf_hist_median(const uint64_t hist[WPERF_HIST_BUCKETS])
{
	uint64_t total = 0, seen = 0;

	for (int b = 0; b < WPERF_HIST_BUCKETS; b++)
		total += hist[b] > UINT64_MAX - total ? UINT64_MAX - total : hist[b];
	if (total == 0)
		return -1;
	uint64_t half = total / 2 + total % 2;
	for (int b = 0; b < WPERF_HIST_BUCKETS; b++) {
		seen += hist[b] > UINT64_MAX - seen ? UINT64_MAX - seen : hist[b];
		if (seen >= half)
			return b;
	}
	return WPERF_HIST_BUCKETS - 1;
}
