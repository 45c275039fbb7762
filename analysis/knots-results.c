/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-results.c — what a knot search (knots-search.h) holds and
 * hands out: its findings, groups and work list of pieces, how each is
 * freed, and the small helpers the search's files share (sorted copies,
 * a finding kind's name). Below it only the search's view of the graph
 * (knots-graph.c).
 */
#include <stdlib.h>
#include <string.h>

#include "wperf/knots.h"
#include "knots-search.h"

const char *wperf_knot_kind_name(enum wperf_knot_kind kind)
{
	switch (kind) {
	case WPERF_KNOT:       return "knot";
	case WPERF_SINK:       return "sink";
	case WPERF_BACKGROUND: return "background";
	}
	return "?";
}

/* ------------------------------------------------------------------ */
/* Results and work list                                               */
/* ------------------------------------------------------------------ */

void piece_fini(struct piece *p)
{
	free(p->verts);
	free(p->removed);
	memset(p, 0, sizeof *p);
}

void knot_fini(struct wperf_knot *k)
{
	free(k->members);
	free(k->edges);
	free(k->component);
	free(k->removed);
	free(k->leaving);
	memset(k, 0, sizeof *k);
}

void group_fini(struct wperf_group *gr)
{
	free(gr->members);
	free(gr->leaving);
	memset(gr, 0, sizeof *gr);
}

int knots_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

uint32_t *knots_copy_sorted(const uint32_t *src, size_t n)
{
	uint32_t *dst = malloc((n ? n : 1) * sizeof *dst);
	if (!dst)
		return NULL;
	memcpy(dst, src, n * sizeof *dst);
	qsort(dst, n, sizeof *dst, knots_cmp_u32);
	return dst;
}

struct wperf_knot *search_push_item(struct search *s)
{
	if (knots_grow((void **)&s->items, &s->cap_items, s->n_items, sizeof *s->items))
		return NULL;
	struct wperf_knot *k = &s->items[s->n_items++];
	memset(k, 0, sizeof *k);
	return k;
}

/* Takes ownership of p's arrays on success and on failure. */
int search_push_piece(struct search *s, struct piece *p)
{
	if (knots_grow((void **)&s->work, &s->cap_work, s->n_work, sizeof *s->work)) {
		piece_fini(p);
		return -1;
	}
	s->work[s->n_work++] = *p;
	memset(p, 0, sizeof *p);
	return 0;
}
