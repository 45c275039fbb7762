/* SPDX-License-Identifier: MIT */
/*
 * array.h — growing arrays indexed by a dense id (a vertex, a CPU), and
 * sorting arrays of ids.
 *
 * Several tables of the analysis are arrays indexed by an id that keeps
 * growing; this is the one way they grow: doubling, new slots zeroed.
 * Per-thread histories that slide forward in time (the cascade's waits,
 * runhist's runnable intervals) share the other: array_slide_room.
 */
#ifndef WPERF_ARRAY_H
#define WPERF_ARRAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make *arr (of *n elements of elem bytes) hold index `index`: double it
 * (from at least `initial`) and zero the new slots. False when out of
 * memory (the array is then unchanged).
 */
static inline bool array_reserve_index(void **arr, size_t *n, size_t index,
				       size_t initial, size_t elem)
{
	if (index < *n)
		return true;
	size_t want = *n ? *n : initial;

	while (want <= index)
		want *= 2;
	char *p = realloc(*arr, want * elem);

	if (!p)
		return false;
	memset(p + *n * elem, 0, (want - *n) * elem);
	*arr = p;
	*n = want;
	return true;
}

/*
 * A sliding array: live elements are arr[*head .. *n) of *cap, older ones
 * dead (dropped by a cap or a prune). Make room for one more at *n:
 * reclaim the dead prefix when the array is full and that prefix is at
 * least half of it (so the move is amortised O(1) when a cap drops one
 * element per append), else double the array (from 8). False when out
 * of memory (nothing changed then).
 */
static inline bool array_slide_room(void **arr, size_t *head, size_t *n, size_t *cap,
				    size_t elem)
{
	if (*n < *cap)
		return true;
	if (*head > 0 && *head >= *cap / 2) {
		memmove(*arr, (char *)*arr + *head * elem, (*n - *head) * elem);
		*n -= *head;
		*head = 0;
		return true;
	}
	size_t want = *cap ? *cap * 2 : 8;
	void *p = realloc(*arr, want * elem);

	if (!p)
		return false;
	*arr = p;
	*cap = want;
	return true;
}

/*
 * How much of [t1, t2) a sliding history's intervals arr[i .. n) cover.
 * Its elements, of elem bytes, begin with their int64_t start and end
 * (the cascade's waits, runhist's runnable intervals), are in time order
 * and do not overlap: the scan stops at the first that starts at t2 or
 * later. i is the first to end after t1 (or any earlier one).
 */
static inline int64_t array_overlap(const void *arr, size_t elem, size_t i, size_t n,
				    int64_t t1, int64_t t2)
{
	int64_t sum = 0;

	for (; i < n; i++) {
		/* Formed only for an element there: arr is NULL when empty. */
		const char *p = (const char *)arr + i * elem;
		int64_t start, end;

		memcpy(&start, p, sizeof start);
		if (start >= t2)
			break;
		memcpy(&end, p + sizeof start, sizeof end);
		int64_t lo = start > t1 ? start : t1;
		int64_t hi = end < t2 ? end : t2;

		if (hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* qsort()/bsearch() order of int64_t (tids, pids), ascending. */
static inline int array_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

#endif /* WPERF_ARRAY_H */
