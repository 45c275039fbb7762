/* SPDX-License-Identifier: MIT */
/*
 * cascade.c — cascaded redistribution (see cascade.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cascade.h"

_Static_assert(offsetof(struct wait_record, start) == 0 &&
	       offsetof(struct wait_record, end) == sizeof(int64_t),
	       "array_overlap() reads a wait's start and end first");

void cascade_init(struct cascade *c)
{
	memset(c, 0, sizeof *c);
	c->max_records = CASCADE_HISTORY_MAX;
}

void cascade_fini(struct cascade *c)
{
	for (size_t i = 0; i < c->n_h; i++)
		free(c->h[i].r);
	free(c->h);
	free(c->stack);
	memset(c, 0, sizeof *c);
}

static struct wait_history *history_of(struct cascade *c, uint32_t v, bool create)
{
	if (v >= c->n_h && !create)
		return NULL;
	if (!array_reserve_index((void **)&c->h, &c->n_h, v, 256, sizeof *c->h)) {
		c->oom = true;
		return NULL;
	}
	return &c->h[v];
}

static void history_append(struct cascade *c, uint32_t v, int64_t start,
			   int64_t end, uint32_t waker, bool requested, bool device)
{
	struct wait_history *h = history_of(c, v, true);

	if (!h)
		return;
	if (c->max_records && h->n - h->head >= c->max_records) {
		/* The cap: forget the oldest record (see cascade.h). */
		h->dropped_until = h->r[h->head].end;
		h->head++;
		c->stats.records_dropped++;
		c->stats.live--;
	}
	if (!array_slide_room((void **)&h->r, &h->head, &h->n, &h->cap, sizeof *h->r)) {
		c->oom = true;
		return;
	}
	h->r[h->n++] = (struct wait_record){ .start = start, .end = end, .waker = waker,
					     .requested = requested, .device = device };
	if (++c->stats.live > c->stats.peak_live)
		c->stats.peak_live = c->stats.live;
}

/* Is i the answer of first_ending_after(h, t)? */
static bool is_first_ending_after(const struct wait_history *h, size_t i, int64_t t)
{
	return (i == h->head || h->r[i - 1].end <= t) && (i == h->n || h->r[i].end > t);
}

/* First live record of h that ends after t (records are in time order). */
static size_t first_ending_after(struct wait_history *h, int64_t t)
{
	size_t lo = h->head, hi = h->n, i;

	/* A walk over consecutive windows (a server's waits on its backend,
	 * one after another) looks the same thread up at increasing times:
	 * the previous answer, or the one after it, is the answer. */
	i = h->hint < lo ? lo : h->hint > hi ? hi : h->hint;
	if (is_first_ending_after(h, i, t))
		return i;
	if (i < hi && is_first_ending_after(h, i + 1, t))
		return h->hint = i + 1;
	/* Most other windows are recent: the answer is among the newest
	 * records, which are in cache; a binary search over the whole
	 * history would touch a cache line per step. */
	for (int k = 0; k < 4 && hi > lo; k++, hi--)
		if (h->r[hi - 1].end <= t)
			return h->hint = hi;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->r[mid].end <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return h->hint = lo;
}

/*
 * Where the walk of thread's history over [a, b] starts, and before which
 * record it stops: all the records that overlap the window when the waiter
 * requested the thread's work, else the thread's last wait begun before b
 * only (cascade_wait_ended). *next == *stop: nothing to walk.
 */
static void walk_range(struct wait_history *h, int64_t a, int64_t b, bool requested,
		       size_t *next, size_t *stop)
{
	size_t lo = h->head, hi = h->n;

	*next = first_ending_after(h, a);
	*stop = h->n;
	if (requested)
		return;
	/* The last record that starts before b (starts are in time order). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->r[mid].start < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == h->head || lo - 1 < *next) {
		*stop = *next;          /* none overlaps the window */
		return;
	}
	*next = lo - 1;
	*stop = lo;
}

/*
 * Push a frame for thread over [a, b], its walk over records [next, stop),
 * and put the thread on the path. Its history exists.
 */
static bool push_frame(struct cascade *c, size_t *top, uint32_t thread,
		       int64_t a, int64_t b, size_t next, size_t stop)
{
	if (*top == c->stack_cap) {
		size_t cap = c->stack_cap ? c->stack_cap * 2 : 64;
		struct cascade_frame *s = realloc(c->stack, cap * sizeof *s);

		if (!s) {
			c->oom = true;
			return false;
		}
		c->stack = s;
		c->stack_cap = cap;
	}
	c->h[thread].on_path = true;
	c->stack[(*top)++] = (struct cascade_frame){ thread, a, b, next, stop };
	return true;
}

/* The history of the waiter or its waker, created if need be, so the
 * on-path marks have a home (c->h may move: hold no other history's
 * pointer across it); a wait reaching past what it keeps is counted.
 * NULL when out of memory. */
static struct wait_history *root_history(struct cascade *c, uint32_t thread, int64_t a)
{
	struct wait_history *h = history_of(c, thread, true);

	if (h && a < h->dropped_until)
		c->stats.truncated_walks++;
	return h;
}

/*
 * Depth-first walk with an explicit stack. The cycle guard is a mark on
 * each thread of the current path (set on push, cleared on pop), so it
 * costs O(1) per record: checking the path itself would make a chain of
 * N threads cost O(N^2) per wait. *device_ns gets the time the walk
 * ended at a device: each frame's window lies inside its parent's record
 * and a thread's records do not overlap, so those parts are disjoint
 * pieces of [t1, t2].
 */
static int64_t walk(struct cascade *c, struct edge_map *edges, uint32_t waiter,
		    uint32_t waker, bool requested, int64_t t1, int64_t t2,
		    int64_t *device_ns, int64_t *runnable_ns)
{
	size_t top = 0, edge = EDGE_NONE, first, end;
	uint32_t edge_from = 0, edge_to = 0;
	int64_t added = 0;
	struct wait_history *wh;

	if (!root_history(c, waiter, t1) || !(wh = root_history(c, waker, t1)))
		return 0;
	c->stats.frames++;
	/* Most wakers did not wait during the wait they ended: nothing to
	 * walk, no frame to push (the waiter's frame, at the bottom, only
	 * marks it on the path; its records are never walked). */
	walk_range(wh, t1, t2, requested, &first, &end);
	if (first >= end || wh->r[first].start >= t2)
		return 0;
	if (push_frame(c, &top, waiter, t1, t2, 0, 0) &&
	    push_frame(c, &top, waker, t1, t2, first, end)) {
		while (top > 1) {
			struct cascade_frame *fr = &c->stack[top - 1];
			struct wait_history *h = &c->h[fr->thread];

			if (fr->next >= fr->stop || h->r[fr->next].start >= fr->b) {
				h->on_path = false;
				top--;
				continue;
			}
			struct wait_record r = h->r[fr->next++];
			int64_t lo = r.start > fr->a ? r.start : fr->a;
			int64_t hi = r.end < fr->b ? r.end : fr->b;

			c->stats.records_scanned++;
			if (hi <= lo || (r.waker < c->n_h && c->h[r.waker].on_path))
				continue;
			/* Consecutive records often weigh on one edge (a
			 * server's waits on its backend): look it up once. */
			if (edge == EDGE_NONE || edge_from != fr->thread || edge_to != r.waker) {
				edge = edges_get(edges, fr->thread, r.waker);
				edge_from = fr->thread;
				edge_to = r.waker;
			}
			if (edge != EDGE_NONE)
				edges->e[edge].weight_ns += hi - lo;
			added += hi - lo;
			if (r.device)
				*device_ns += hi - lo;
			else if (c->runhist)
				*runnable_ns += runhist_overlap(c->runhist, r.waker, lo, hi);
			c->stats.frames++;
			/* Only a waker with waits inside [lo, hi] needs a frame:
			 * most have none (pushing and popping would cost more
			 * than this look), and a pseudo-thread never has any. */
			if (r.waker >= c->n_h)
				continue;
			struct wait_history *w = &c->h[r.waker];
			size_t j, stop;

			walk_range(w, lo, hi, r.requested, &j, &stop);
			if (lo < w->dropped_until)
				c->stats.truncated_walks++;
			if (j == stop || w->r[j].start >= hi)
				continue;
			if (!push_frame(c, &top, r.waker, lo, hi, j, stop))
				break;
		}
	}
	/* Clear the marks of what is left on the stack (all of it, when
	 * out of memory cut the walk short). */
	while (top > 0)
		c->h[c->stack[--top].thread].on_path = false;
	return added;
}

int64_t cascade_wait_ended(struct cascade *c, struct edge_map *edges,
			   uint32_t waiter, uint32_t waker, enum cascade_waker kind,
			   bool requested, int64_t t1, int64_t t2)
{
	int64_t added = 0, device_ns = 0, runnable_ns = 0;

	if (t2 <= t1)
		return 0;
	if (kind == CASCADE_WAKER_THREAD) {
		uint64_t truncated = c->stats.truncated_walks;

		c->stats.walks++;
		added = walk(c, edges, waiter, waker, requested, t1, t2, &device_ns,
			     &runnable_ns);
		if (c->stats.truncated_walks != truncated)
			c->stats.truncated_waits++;
		if (device_ns > 0 || runnable_ns > 0) {
			size_t e = edges_get(edges, waiter, waker);

			if (e != EDGE_NONE) {
				edges->e[e].device_ns += device_ns;
				edges->e[e].runnable_ns += runnable_ns;
			}
		}
	}
	/* Recorded whatever the waker: a later walk through the waiter must
	 * reach its waits on a disk or a timer too (the branch ends there,
	 * as a pseudo-thread never waits and so has no history). */
	history_append(c, waiter, t1, t2, waker, requested, kind == CASCADE_WAKER_DEVICE);
	return added;
}

int64_t cascade_waited_within(struct cascade *c, uint32_t thread, int64_t t1, int64_t t2)
{
	struct wait_history *h = history_of(c, thread, false);

	if (!h)
		return 0;
	return array_overlap(h->r, sizeof *h->r, first_ending_after(h, t1), h->n, t1, t2);
}

void cascade_extend_device_wait(struct cascade *c, uint32_t v, int64_t at, int64_t until)
{
	struct wait_history *h = v < c->n_h ? &c->h[v] : NULL;

	if (h && h->n > h->head && h->r[h->n - 1].end == at && until > at)
		h->r[h->n - 1].end = until;
}

void cascade_prune(struct cascade *c, int64_t horizon)
{
	for (size_t v = 0; v < c->n_h; v++) {
		struct wait_history *h = &c->h[v];

		size_t head = first_ending_after(h, horizon);

		c->stats.live -= head - h->head;
		h->head = head;
		if (h->head == h->n) {
			/* Nothing left: give the memory back. */
			int64_t dropped_until = h->dropped_until;

			free(h->r);
			memset(h, 0, sizeof *h);
			h->dropped_until = dropped_until;
		}
	}
}

size_t cascade_records(const struct cascade *c)
{
	size_t n = 0;

	for (size_t v = 0; v < c->n_h; v++)
		n += c->h[v].n - c->h[v].head;
	return n;
}

size_t cascade_capacity(const struct cascade *c)
{
	size_t n = 0;

	for (size_t v = 0; v < c->n_h; v++)
		n += c->h[v].cap;
	return n;
}
