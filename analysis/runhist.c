/* SPDX-License-Identifier: MIT */
/*
 * runhist.c — per-thread runnable intervals (see runhist.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "runhist.h"

_Static_assert(offsetof(struct run_interval, start) == 0 &&
	       offsetof(struct run_interval, end) == sizeof(int64_t),
	       "array_overlap() reads an interval's start and end first");

void runhist_init(struct runhist *rh)
{
	memset(rh, 0, sizeof *rh);
	rh->max_records = RUNHIST_MAX;
}

void runhist_fini(struct runhist *rh)
{
	for (size_t i = 0; i < rh->n_h; i++)
		free(rh->h[i].r);
	free(rh->h);
	memset(rh, 0, sizeof *rh);
}

/* Room for one more interval at the end of h: drop the oldest past the
 * cap, then as every sliding history (array_slide_room). */
static bool make_room(struct runhist *rh, struct run_history *h)
{
	if (rh->max_records && h->n - h->head >= rh->max_records)
		h->head++;
	if (!array_slide_room((void **)&h->r, &h->head, &h->n, &h->cap, sizeof *h->r)) {
		rh->oom = true;
		return false;
	}
	return true;
}

void runhist_add(struct runhist *rh, uint32_t v, int64_t start, int64_t end)
{
	if (end <= start)
		return;
	if (!array_reserve_index((void **)&rh->h, &rh->n_h, v, 256, sizeof *rh->h)) {
		rh->oom = true;
		return;
	}
	struct run_history *h = &rh->h[v];

	/* Back to back with the previous one (a preempted thread's runnable
	 * time split by an event): one interval. */
	if (h->n > h->head && h->r[h->n - 1].end == start) {
		h->r[h->n - 1].end = end;
		return;
	}
	if (make_room(rh, h))
		h->r[h->n++] = (struct run_interval){ start, end };
}

/* First live interval of h that ends after t. */
static size_t first_ending_after(const struct run_history *h, int64_t t)
{
	size_t lo = h->head, hi = h->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->r[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* first_ending_after() for a recent t: a wait's overlap is asked when it
 * ends, so its start is mostly past all but the newest few intervals. */
static size_t first_ending_after_recent(const struct run_history *h, int64_t t)
{
	size_t i = h->n;

	for (int k = 0; k < 4 && i > h->head; k++, i--)
		if (h->r[i - 1].end <= t)
			return i;
	struct run_history older = { h->r, h->head, i, h->cap };

	return first_ending_after(&older, t);
}

int64_t runhist_overlap(struct runhist *rh, uint32_t v, int64_t a, int64_t b)
{
	if (v >= rh->n_h || b <= a)
		return 0;
	const struct run_history *h = &rh->h[v];

	return array_overlap(h->r, sizeof *h->r, first_ending_after_recent(h, a), h->n, a, b);
}

void runhist_prune(struct runhist *rh, int64_t horizon)
{
	for (size_t v = 0; v < rh->n_h; v++) {
		struct run_history *h = &rh->h[v];

		h->head = first_ending_after(h, horizon);
		if (h->head == h->n) {
			free(h->r);     /* nothing left: give the memory back */
			memset(h, 0, sizeof *h);
		}
	}
}
