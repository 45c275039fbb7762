/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text-threads.c — the per-thread breakdown of the
 * text report (running, runnable, waiting by kind of waker), and the
 * threads merged into each virtual thread.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "gaps.h"
#include "report-format.h"
#include "wperf/classify.h"
#include "wperf/merge.h"
#include "wperf/report.h"
#include "report-text.h"

/* ------------------------------------------------------------------ */
/* Threads                                                             */
/* ------------------------------------------------------------------ */

struct thread_row {
	uint32_t id;
	size_t knot_rank;       /* position of its first knot or sink; then the
	                           focus threads; SIZE_MAX: the rest */
	bool member;            /* of a knot or sink */
	int64_t seen;
};

static int cmp_rows(const void *a, const void *b)
{
	const struct thread_row *x = a, *y = b;
	if (x->knot_rank != y->knot_rank)
		return x->knot_rank < y->knot_rank ? -1 : 1;
	if (x->seen != y->seen)
		return x->seen < y->seen ? 1 : -1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Members of the knots and sinks first, in report order, then the focus
 * threads, then the rest, each by the time the trace accounted for. */
static struct thread_row *rank_threads(const struct wperf_report *r, size_t *n_out)
{
	const struct wperf_graph *g = r->graph;
	size_t *rank = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *rank);
	struct thread_row *rows = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *rows);
	size_t n = 0;

	if (!rank || !rows) {
		free(rank);
		free(rows);
		return NULL;
	}
	for (size_t v = 0; v < g->n_vertices; v++)
		rank[v] = SIZE_MAX;
	for (size_t i = r->knots ? r->knots->n : 0; i-- > 0;) {
		const struct wperf_knot *k = &r->knots->items[i];
		for (size_t m = 0; m < k->n_members; m++)
			if (k->members[m] < g->n_vertices)
				rank[k->members[m]] = i;
	}
	size_t focus_tier = r->knots ? r->knots->n : 0;
	for (size_t v = 0; v < g->n_vertices; v++) {
		const struct wperf_vertex *vx = &g->vertices[v];
		if (!wperf_fmt_thread_listed(vx))
			continue;
		bool member = rank[v] != SIZE_MAX;
		size_t tier = member ? rank[v] : (r->focus && r->focus[v]) ? focus_tier : SIZE_MAX;
		/* A focused report is about the focus: other threads only
		 * where they are part of its knots and sinks. */
		if (r->focus && tier == SIZE_MAX)
			continue;
		rows[n++] = (struct thread_row){ (uint32_t)v, tier, member,
						 wperf_time_seen(vx) };
	}
	free(rank);
	qsort(rows, n, sizeof *rows, cmp_rows);
	*n_out = n;
	return rows;
}

static void write_duration_cell(FILE *out, int64_t ns)
{
	char d[32];
	wperf_fmt_duration(d, sizeof d, ns, 1);
	fprintf(out, " %8s", d);
}

static void write_thread_row(FILE *out, const struct wperf_graph *g,
			     const struct thread_row *row)
{
	const struct wperf_vertex *v = &g->vertices[row->id];
	const int64_t *w = v->waiting_ns;
	char name[LABEL_LEN + 2];

	name[0] = row->member ? '*' : ' ';
	name[1] = ' ';
	wperf_fmt_vertex_label_fit(name + 2, LABEL_LEN, g, row->id, 24);
	wperf_fmt_cell(out, name, 26, 0);
	write_duration_cell(out, v->running_ns);
	write_duration_cell(out, v->runnable_ns);
	write_duration_cell(out, w[WPERF_V_THREAD]);
	write_duration_cell(out, w[WPERF_V_DISK]);
	write_duration_cell(out, w[WPERF_V_NIC]);
	write_duration_cell(out, wperf_add_durations(w[WPERF_V_IRQ], w[WPERF_V_SOFTIRQ]));
	write_duration_cell(out, w[WPERF_V_TIMER]);
	write_duration_cell(out, wperf_add_durations(w[WPERF_V_UNKNOWN], w[WPERF_V_VIRTUAL]));
	fputc('\n', out);
}

/* " 1, 2, 3": the first MAX_LISTED_MEMBERS tids of a merged vertex, in
 * one write (a trace may have thousands of them to list). */
static void write_tids(FILE *out, const struct wperf_vertex *v)
{
	char line[MAX_LISTED_MEMBERS * 24];
	size_t n = 0;

	for (size_t m = 0; m < v->n_members && m < MAX_LISTED_MEMBERS; m++) {
		int64_t tid = v->members[m];

		if (m)
			line[n++] = ',';
		line[n++] = ' ';
		if (tid < 0)
			line[n++] = '-';
		n += wperf_fmt_u64(line + n, tid < 0 ? (uint64_t)(-(tid + 1)) + 1 : (uint64_t)tid);
	}
	fwrite(line, 1, n, out);
}

/* Vertices that stand for merged threads (wperf/merge.h), with the tids
 * they stand for: the rest of the report names only the merged vertex. */
void text_write_merged(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	bool title = false;

	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (v->kind != WPERF_V_VIRTUAL || !v->n_members || (r->focus && !r->focus[i]))
			continue;
		if (!title)
			fputs("\nMerged threads:\n", out);
		title = true;
		fprintf(out, "  %s: %zu threads%s%s%s, tids", v->name ? v->name : "?", v->n_members,
			v->merged_by ? " (merge=" : "", v->merged_by ? v->merged_by : "",
			v->merged_by ? ")" : "");
		write_tids(out, v);
		if (v->n_members > MAX_LISTED_MEMBERS)
			fprintf(out, " and %zu more", v->n_members - MAX_LISTED_MEMBERS);
		fputc('\n', out);
	}
}

void text_write_threads(FILE *out, const struct wperf_report *r)
{
	size_t n = 0;
	struct thread_row *rows = rank_threads(r, &n);

	if (!rows) {
		fputs("\nThreads: (not enough memory to sort them)\n", out);
		return;
	}
	size_t shown = n < MAX_THREAD_ROWS ? n : MAX_THREAD_ROWS;
	if (r->focus)
		fprintf(out, "\nThreads: %zu of %zu, members of knots and sinks (*), then the focus\n",
			shown, n);
	else
		fprintf(out, "\nThreads: %zu of %zu, members of knots and sinks (*) first, then by time seen\n",
			shown, n);
	if (n > 0) {
		fputs("  w:X = waiting, ended by X (irq includes softirq; other = unknown, virtual)\n", out);
		/* The findings' "waited for a CPU" is a part of this column:
		 * say which, so the two figures do not read as two answers. */
		fputs("  runnable = all its time ready to run; a finding's wait for a CPU is the part "
		      "another\n  thread held it, less the delays after device wakeups\n", out);
		wperf_fmt_cell(out, "  thread", 26, 0);
		fprintf(out, " %8s %8s %8s %8s %8s %8s %8s %8s\n", "running", "runnable",
			"w:thread", "w:disk", "w:nic", "w:irq", "w:timer", "w:other");
	}
	for (size_t i = 0; i < shown; i++)
		write_thread_row(out, r->graph, &rows[i]);
	if (shown < n)
		fprintf(out, "  ... %zu more threads omitted (the JSON report lists them all)\n",
			n - shown);
	/* Not with a focus: the table lists only the focus, and the rest of
	 * the machine's unseen threads say nothing about it. */
	size_t outside = r->focus ? 0 : wperf_fmt_threads_outside(r->graph);
	if (outside)
		fprintf(out, "  (%zu thread%s the trace names outside the analysed range, none in it: "
			"not listed)\n", outside, outside == 1 ? "" : "s");
	free(rows);
}

