/*
 * cascade.c — cascaded redistribution (see cascade.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "cascade.h"

void cascade_init(struct cascade *c)
{
	memset(c, 0, sizeof *c);
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
			   int64_t end, uint32_t waker)
{
	struct wait_history *h = history_of(c, v, true);

	if (!h)
		return;
	if (h->n == h->cap) {
		/* Reclaim the pruned prefix before growing. */
		if (h->head > 0) {
			memmove(h->r, h->r + h->head, (h->n - h->head) * sizeof *h->r);
			h->n -= h->head;
			h->head = 0;
		}
		if (h->n == h->cap) {
			size_t cap = h->cap ? h->cap * 2 : 8;
			struct wait_record *r = realloc(h->r, cap * sizeof *r);

			if (!r) {
				c->oom = true;
				return;
			}
			h->r = r;
			h->cap = cap;
		}
	}
	h->r[h->n++] = (struct wait_record){ .start = start, .end = end, .waker = waker };
}

/* First live record of h that ends after t (records are in time order). */
static size_t first_ending_after(const struct wait_history *h, int64_t t)
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

static bool push_frame(struct cascade *c, size_t *top, uint32_t thread,
		       int64_t a, int64_t b, size_t parent)
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
	c->stack[(*top)++] = (struct cascade_frame){ thread, a, b, parent };
	return true;
}

/* Is v the thread of frame f or of one of its ancestors (the cycle guard)? */
static bool on_path(const struct cascade *c, size_t f, uint32_t v)
{
	for (; f != SIZE_MAX; f = c->stack[f].parent)
		if (c->stack[f].thread == v)
			return true;
	return false;
}

/*
 * Depth-first walk with an explicit stack: frames are never popped while
 * their descendants may still look at them (the cycle guard walks parent
 * links), so the stack only grows during one cascade and is reset after.
 */
static int64_t walk(struct cascade *c, struct edge_map *edges, uint32_t waiter,
		    uint32_t waker, int64_t t1, int64_t t2)
{
	size_t top = 0, next = 0;
	int64_t added = 0;

	if (!push_frame(c, &top, waiter, t1, t2, SIZE_MAX) ||
	    !push_frame(c, &top, waker, t1, t2, 0))
		return 0;
	next = 1;
	while (next < top) {
		size_t f = next++;
		struct cascade_frame fr = c->stack[f];
		struct wait_history *h = history_of(c, fr.thread, false);

		if (!h)
			continue;
		for (size_t i = first_ending_after(h, fr.a); i < h->n && h->r[i].start < fr.b; i++) {
			const struct wait_record *r = &h->r[i];
			int64_t lo = r->start > fr.a ? r->start : fr.a;
			int64_t hi = r->end < fr.b ? r->end : fr.b;

			if (hi <= lo || on_path(c, f, r->waker))
				continue;
			edges_add_cascade(edges, fr.thread, r->waker, hi - lo);
			added += hi - lo;
			if (!push_frame(c, &top, r->waker, lo, hi, f))
				return added;
			h = history_of(c, fr.thread, false); /* the stack may have moved, not h */
		}
	}
	return added;
}

int64_t cascade_wait_ended(struct cascade *c, struct edge_map *edges,
			   uint32_t waiter, uint32_t waker, bool waker_is_thread,
			   int64_t t1, int64_t t2)
{
	if (!waker_is_thread || t2 <= t1)
		return 0;
	int64_t added = walk(c, edges, waiter, waker, t1, t2);

	history_append(c, waiter, t1, t2, waker);
	return added;
}

void cascade_prune(struct cascade *c, int64_t horizon)
{
	for (size_t v = 0; v < c->n_h; v++) {
		struct wait_history *h = &c->h[v];

		h->head = first_ending_after(h, horizon);
		if (h->head == h->n) {
			/* Nothing left: give the memory back. */
			free(h->r);
			memset(h, 0, sizeof *h);
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
