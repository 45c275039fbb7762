/* SPDX-License-Identifier: MIT */
/*
 * falsewake.c — merging false wakeups (see falsewake.h).
 */
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "falsewake.h"

void falsewake_init(struct falsewake *f, segment_sink out, void *out_data)
{
	memset(f, 0, sizeof *f);
	f->out = out;
	f->out_data = out_data;
}

void falsewake_fini(struct falsewake *f)
{
	for (size_t i = 0; i < f->n_th; i++)
		free(f->th[i].segs);
	free(f->th);
	memset(f, 0, sizeof *f);
}

static struct falsewake_thread *thread_of(struct falsewake *f, uint32_t v)
{
	if (!array_reserve_index((void **)&f->th, &f->n_th, v, 256, sizeof *f->th)) {
		f->oom = true;
		return NULL;
	}
	return &f->th[v];
}

/* Pass the held segments on as they were; declarations that referred to
 * them (the run was too long, the thread died, the trace ended) are not
 * merged. */
static void release(struct falsewake *f, struct falsewake_thread *t)
{
	for (size_t i = 0; i < t->n; i++)
		f->out(f->out_data, &t->segs[i]);
	f->unmerged += t->declared;
	t->n = 0;
	t->run_ns = 0;
	t->declared = 0;
}

static bool hold(struct falsewake *f, struct falsewake_thread *t, const struct closed_segment *seg)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4;
		struct closed_segment *s = realloc(t->segs, cap * sizeof *s);

		if (!s) {
			f->oom = true;
			return false;
		}
		t->segs = s;
		t->cap = cap;
	}
	t->segs[t->n++] = *seg;
	return true;
}

/* A wait ended by a wakeup (not a spin on a lock) opens a held run. */
static bool opens_run(const struct closed_segment *seg)
{
	return seg->state == WPERF_SEG_WAITING && !seg->spin;
}

void falsewake_segment(struct falsewake *f, const struct closed_segment *seg)
{
	struct falsewake_thread *t = f->enabled ? thread_of(f, seg->vertex) : NULL;

	if (!t || (t->n == 0 && !opens_run(seg)) || !hold(f, t, seg)) {
		if (t && t->n)
			release(f, t);  /* keep the thread's segments in order */
		f->out(f->out_data, seg);
		return;
	}
	if (seg->state != WPERF_SEG_WAITING)
		t->run_ns += seg->end - seg->start;
	if (t->run_ns > FALSEWAKE_MAX_RUN_NS || t->n > FALSEWAKE_MAX_SEGMENTS)
		release(f, t);
}

int64_t falsewake_state_begins(struct falsewake *f, uint32_t v, enum thread_state st, int64_t t)
{
	struct falsewake_thread *ft = (f->enabled && v < f->n_th) ? &f->th[v] : NULL;

	if (!ft || ft->n == 0)
		return t;
	if (st == TS_WAITING && ft->declared) {
		/* One wait from the first one's start: drop what it spans. */
		int64_t start = ft->segs[0].start;

		f->merged += ft->declared;
		ft->n = 0;
		ft->run_ns = 0;
		ft->declared = 0;
		return start;
	}
	release(f, ft);
	return t;
}

void falsewake_declared(struct falsewake *f, uint32_t v, int64_t t)
{
	struct falsewake_thread *ft = (f->enabled && v < f->n_th) ? &f->th[v] : NULL;

	/* Only a short run after the wakeup is a false wakeup's: the segment
	 * running now has not closed yet, so measure from the wakeup. */
	if (ft && ft->n > 0 && t - ft->segs[0].end <= FALSEWAKE_MAX_RUN_NS) {
		ft->declared++;
		return;
	}
	if (ft && ft->n > 0)
		release(f, ft);
	f->unmerged++;
}

void falsewake_flush_all(struct falsewake *f)
{
	for (size_t v = 0; v < f->n_th; v++)
		if (f->th[v].n)
			release(f, &f->th[v]);
}

int64_t falsewake_oldest_held(const struct falsewake *f)
{
	int64_t oldest = INT64_MAX;

	for (size_t v = 0; v < f->n_th; v++)
		if (f->th[v].n && f->th[v].segs[0].start < oldest)
			oldest = f->th[v].segs[0].start;
	return oldest;
}
