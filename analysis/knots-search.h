/* SPDX-License-Identifier: MIT */
/*
 * analysis/knots-search.h — the state of one knot search (struct search):
 * its results, the work list of pieces still to refine, and the functions
 * the search's files call across: the entry (knots.c), the background
 * rounds (knots-background.c), one round (knots-round.c), refinement
 * (knots-refine.c), the results (knots-results.c), each calling only the
 * ones after it. Not part of the library's API.
 */
#ifndef WPERF_ANALYSIS_KNOTS_SEARCH_H
#define WPERF_ANALYSIS_KNOTS_SEARCH_H

#include "knots-graph.h"

/* A strongly connected vertex set still to refine. It owns its arrays. */
struct piece {
	uint32_t *verts;                    /* ascending */
	size_t n;
	size_t origin;                      /* index in search.origins */
	struct wperf_removed_edge *removed; /* on the way here, in order */
	size_t n_removed;
};

struct origin {                             /* an unrefined terminal component */
	uint32_t *members;                  /* ascending */
	size_t n;
};

struct search {
	struct kgraph kg;
	int64_t threshold_ns;
	int64_t min_weight_ns;
	const bool *focus;
	const bool *opaque;                 /* not entered from the focus */
	int64_t leave_ppm;                  /* the knot rule (knots.h) */
	int64_t tie_ppm;                    /* ties in the cut order (knots.h) */
	bool *gone;                         /* per vertex: in a background knot */
	bool *reach;                        /* per vertex, this round: reached from
	                                       the focus (NULL: no focus) */
	struct wperf_knot *bg;              /* background knots of past rounds */
	size_t n_bg, cap_bg;
	struct wperf_knot *items;
	size_t n_items, cap_items;
	struct piece *work;
	size_t n_work, cap_work;
	struct origin *origins;
	size_t n_origins, cap_origins;
	struct wperf_group *groups;         /* heavy groups that are not knots */
	size_t n_groups, cap_groups;
};

/* What waits on one vertex in the whole graph (incoming()): the active
 * edges into it, their weight and direct_ns summed, and their waiters'
 * wperf_vertex_time() summed (one edge per waiter). */
struct in_sum {
	int64_t weight, own, waiters;
	uint64_t count;
};

/* Results and work list (knots-results.c). */

void piece_fini(struct piece *p);

void knot_fini(struct wperf_knot *k);

void group_fini(struct wperf_group *gr);

int knots_cmp_u32(const void *a, const void *b);

uint32_t *knots_copy_sorted(const uint32_t *src, size_t n);

struct wperf_knot *search_push_item(struct search *s);

/* Takes ownership of p's arrays on success and on failure. */
int search_push_piece(struct search *s, struct piece *p);

/* Emitting and refinement (knots-refine.c). */

/* A heavy strongly connected group that fails the knot rule, kept so the
 * report can say why it is not a knot. */
int record_group(struct search *s, const uint32_t *members, size_t n,
		 int64_t inside);

int emit_sink(struct search *s, uint32_t v, const struct in_sum *in);

/*
 * Refine a strongly connected piece (wperf-method(7) §7): cut its lightest edges
 * (a tie at a time) again and again until it is a single vertex or a
 * simple cycle, its lightest edge reaches the threshold, or it is no
 * longer strongly connected (then its terminal parts go back on the work
 * list). The cut order is fixed by the weights, so
 * instead of cutting one tie at a time this finds directly how far the
 * cutting goes. Takes ownership of p.
 */
int refine_piece(struct search *s, struct piece *p);
/*
 * Cut a heavy group's lightest edges (a tie at a time, none that weighs the
 * threshold) until it is no longer strongly connected. 1 when it split:
 * the cuts stay made, *cuts (malloc'd) lists them lightest first and
 * *parts holds the group's components after them; 0 when no permitted cut
 * splits it (nothing cut); -1 on allocation failure.
 */
int refine_split_group(struct search *s, const uint32_t *verts, size_t n,
		       struct wperf_removed_edge **cuts, size_t *n_cuts, struct scc *parts);

/* One round of the search (knots-round.c), and all of them (knots-background.c). */

/* One search of the remaining graph: terminal components, refined, into
 * s->items. */
int search_round(struct search *s);

/* Search, take out the background knots, search again without them, until
 * a round finds none; then its results and every background knot are the
 * answer. Every round but the last removes a vertex: at most V + 1. */
int search_all(struct search *s);

#endif
