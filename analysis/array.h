/*
 * array.h — growing arrays indexed by a dense id (a vertex, a CPU), and
 * sorting arrays of ids.
 *
 * Several tables of the analysis are arrays indexed by an id that keeps
 * growing; this is the one way they grow: doubling, new slots zeroed.
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

/* qsort()/bsearch() order of int64_t (tids, pids), ascending. */
static inline int array_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

#endif /* WPERF_ARRAY_H */
