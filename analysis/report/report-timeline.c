/* SPDX-License-Identifier: MIT */
/*
 * report-timeline.c — the pictures of the HTML page that let a reader dig
 * into a finding (report-html.c draws the page around them):
 *
 *   - a finding's timeline: one row per member, its running / runnable /
 *     waiting spans over the analysed time as Trace Compass's control-flow
 *     view draws a thread's states, waiting coloured by what was waited
 *     for, every span titled with its state, interval and target (the
 *     timelines the analysis kept, wperf/graph.h struct wperf_timeline);
 *   - an edge's details: its wait-length histogram and its heaviest call
 *     stacks, inside a <details> element, so they are one click away.
 *
 * Inline SVG and CSS only: no script, nothing loaded from anywhere. Every
 * span carries its interval in ns from the start of the analysed range
 * (data-b, data-e) and its state (data-state), so a test can check that a
 * row's spans tile the range exactly.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report-format.h"
#include "report-html.h"

#define TL_MAX_ROWS 32          /* rows drawn per finding; the rest are counted */
#define TL_COLOURS 8            /* targets with a colour of their own */
#define TL_VIEW_W 1000          /* the bar's viewBox width */
#define NONE_STATE WPERF_SPAN_STATES

static const char *const target_colours[TL_COLOURS] = {
	"#1565c0", "#c62828", "#6a1b9a", "#00838f", "#ad1457", "#5d4037", "#283593", "#455a64",
};
#define COLOUR_RUNNING "#2e7d32"
#define COLOUR_RUNNABLE "#f9a825"
#define COLOUR_OTHER "#90a4ae"
#define COLOUR_NONE "#e6e6e6"

static const char *const state_names[WPERF_SPAN_STATES + 1] = {
	"running", "runnable", "waiting", "none",
};

/* What the timeline is drawn against: the range, the colours. */
struct tl {
	const struct wperf_graph *g;
	int64_t begin, end;              /* the analysed range */
	uint32_t coloured[TL_COLOURS];   /* targets with their own colour, heaviest first */
	size_t n_coloured;
};

static void label(FILE *out, const struct wperf_graph *g, uint32_t id)
{
	char buf[256];

	if (id >= g->n_vertices) {
		fputs("?", out);
		return;
	}
	wperf_fmt_vertex_label(buf, sizeof buf, g, id);
	wperf_fmt_xml_escaped(out, buf);
}

static const struct wperf_timeline *timeline_of(const struct wperf_graph *g, uint32_t v)
{
	if (!g->timelines || v >= g->n_vertices)
		return NULL;
	return &g->timelines[v];
}

/* ---- colours ---- */

static const char *target_colour(const struct tl *t, uint32_t target)
{
	for (size_t i = 0; i < t->n_coloured; i++)
		if (t->coloured[i] == target)
			return target_colours[i];
	return COLOUR_OTHER;
}

static const char *span_colour(const struct tl *t, enum wperf_span_state st, uint32_t target)
{
	switch (st) {
	case WPERF_SPAN_RUNNING:
		return COLOUR_RUNNING;
	case WPERF_SPAN_RUNNABLE:
		return COLOUR_RUNNABLE;
	case WPERF_SPAN_WAITING:
		return target_colour(t, target);
	default:
		return COLOUR_NONE;
	}
}

/* The targets the rows waited for longest get the colours. */
static int pick_colours(struct tl *t, const uint32_t *rows, size_t n_rows)
{
	const struct wperf_graph *g = t->g;
	int64_t *sum = calloc(g->n_vertices ? g->n_vertices : 1, sizeof *sum);

	if (!sum)
		return -1;
	for (size_t r = 0; r < n_rows; r++) {
		const struct wperf_timeline *tl = timeline_of(g, rows[r]);

		for (uint32_t i = 0; tl && i < tl->n; i++)
			if (tl->spans[i].target < g->n_vertices)
				sum[tl->spans[i].target] += tl->spans[i].target_ns;
	}
	t->n_coloured = 0;
	for (size_t c = 0; c < TL_COLOURS; c++) {
		uint32_t best = UINT32_MAX;

		for (uint32_t v = 0; v < g->n_vertices; v++)
			if (sum[v] > 0 && (best == UINT32_MAX || sum[v] > sum[best]))
				best = v;
		if (best == UINT32_MAX)
			break;
		t->coloured[t->n_coloured++] = best;
		sum[best] = 0;
	}
	free(sum);
	return 0;
}

/* ---- one row ---- */

/* A run of spans drawn as one rectangle. */
struct run {
	int64_t b, e;                     /* clipped to the range */
	enum wperf_span_state state;      /* what it is drawn as */
	uint32_t target;
	int64_t ns[WPERF_SPAN_STATES];
	bool exact;                       /* one span of an exact timeline */
};

static void offset(char *buf, size_t len, int64_t ns)
{
	char d[32];

	if (ns == 0) {
		snprintf(buf, len, "0");
		return;
	}
	wperf_fmt_duration(d, sizeof d, ns, 0);
	snprintf(buf, len, "+%s", d);
}

/* What a device's row says, on its bar and in its spans' titles. */
#define DEVICE_ROW_NOTE "not a thread: its waiters' rows show when it held them up"

static void run_title(FILE *out, const struct tl *t, const struct run *r, bool thread)
{
	char b[40], e[40], d[32];

	offset(b, sizeof b, r->b - t->begin);
	offset(e, sizeof e, r->e - t->begin);
	wperf_fmt_duration(d, sizeof d, r->e - r->b, 0);
	if (r->state == NONE_STATE) {
		fprintf(out, "%s, %s to %s (%s)", thread ? "not in the trace" :
			DEVICE_ROW_NOTE, b, e, d);
		return;
	}
	fprintf(out, "%s%s", r->exact ? "" : "mostly ", state_names[r->state]);
	if (r->state == WPERF_SPAN_WAITING && r->target != UINT32_MAX) {
		fputs(" for ", out);
		label(out, t->g, r->target);
	}
	fprintf(out, ", %s to %s (%s)", b, e, d);
	if (!r->exact) {
		/* A folded run: the time in each state inside it. */
		for (int k = 0; k < WPERF_SPAN_STATES; k++) {
			wperf_fmt_duration(d, sizeof d, r->ns[k], 0);
			fprintf(out, "%s%s %s", k ? ", " : ": ", state_names[k], d);
		}
	}
}

static void draw_run(FILE *out, const struct tl *t, const struct run *r, bool thread)
{
	double span = (double)(t->end - t->begin);
	double x = (double)(r->b - t->begin) * TL_VIEW_W / span;
	double w = (double)(r->e - r->b) * TL_VIEW_W / span;

	if (r->e <= r->b)
		return;
	fprintf(out, "<rect x=\"%.3f\" y=\"0\" width=\"%.3f\" height=\"10\" fill=\"%s\" "
		"data-state=\"%s\" data-b=\"%" PRId64 "\" data-e=\"%" PRId64 "\"",
		x, w, span_colour(t, r->state, r->target), state_names[r->state],
		r->b - t->begin, r->e - t->begin);
	if (r->state == WPERF_SPAN_WAITING && r->target < t->g->n_vertices)
		fprintf(out, " data-target=\"v%" PRIu32 "\"", r->target);
	/* The time in each state inside it (a merged row's, summed). */
	fprintf(out, " data-ns=\"%" PRId64 ",%" PRId64 ",%" PRId64 "\"><title>",
		r->ns[WPERF_SPAN_RUNNING], r->ns[WPERF_SPAN_RUNNABLE], r->ns[WPERF_SPAN_WAITING]);
	run_title(out, t, r, thread);
	fputs("</title></rect>", out);
}

/* A span as a run: clipped to the range, drawn as the state that took
 * most of its time; a thread's is "none" when more of the clipped span
 * lay outside its life, a merged vertex's only when no thread was in it
 * (its threads' times add up past the span's length). */
static struct run run_of(const struct tl *t, const struct wperf_span *s, bool exact,
			 bool merged)
{
	struct run r = {
		.b = s->start_ns < t->begin ? t->begin : s->start_ns,
		.e = s->end_ns > t->end ? t->end : s->end_ns,
		.state = wperf_span_dominant(s), .target = s->target, .exact = exact,
	};
	int64_t in_life = s->ns[0] + s->ns[1] + s->ns[2];

	if (r.state != NONE_STATE && !merged && r.e - r.b - in_life > s->ns[r.state])
		r.state = NONE_STATE;
	memcpy(r.ns, s->ns, sizeof r.ns);
	if (r.state != WPERF_SPAN_WAITING)
		r.target = UINT32_MAX;
	return r;
}

/* Can b be drawn as a continuation of a (folded neighbours alike)? */
static bool same_look(const struct tl *t, const struct run *a, const struct run *b)
{
	if (a->exact || b->exact || a->state != b->state || a->e != b->b)
		return false;
	return a->state != WPERF_SPAN_WAITING ||
	       strcmp(target_colour(t, a->target), target_colour(t, b->target)) == 0;
}

static void draw_spans(FILE *out, const struct tl *t, const struct wperf_timeline *tl,
		       bool thread, bool merged)
{
	struct run cur = { .b = t->begin, .e = t->begin, .state = NONE_STATE, .exact = true };
	bool have = false;

	for (uint32_t i = 0; tl && i < tl->n; i++) {
		struct run r = run_of(t, &tl->spans[i], tl->width_ns == 0, merged);
		int64_t at = have ? cur.e : t->begin;

		if (r.e <= r.b || r.e <= at)
			continue;
		if (r.b < at)
			r.b = at;      /* never overlap what is drawn */
		if (have && same_look(t, &cur, &r)) {
			cur.e = r.e;
			for (int k = 0; k < WPERF_SPAN_STATES; k++)
				cur.ns[k] += r.ns[k];
			continue;
		}
		if (have)
			draw_run(out, t, &cur, thread);
		if (r.b > at) {
			/* Not in the trace: before the thread's first span, or between. */
			struct run none = { .b = at, .e = r.b, .state = NONE_STATE, .exact = true };

			draw_run(out, t, &none, thread);
		}
		cur = r;
		have = true;
	}
	if (have)
		draw_run(out, t, &cur, thread);
	if (!have || cur.e < t->end) {
		struct run none = { .b = have ? cur.e : t->begin, .e = t->end, .state = NONE_STATE,
				    .exact = true };

		draw_run(out, t, &none, thread);
	}
}

static void write_row(FILE *out, const struct tl *t, uint32_t v, bool member)
{
	const struct wperf_vertex *x = &t->g->vertices[v];

	fprintf(out, "<div class=\"tl-row %s\" data-vertex=\"v%" PRIu32 "\">"
		"<div class=\"tl-name\">", member ? "member" : "waiter", v);
	if (!member)
		fputs("&larr; ", out);
	label(out, t->g, v);
	fputs("</div>", out);
	bool thread = x->kind == WPERF_V_THREAD || x->kind == WPERF_V_VIRTUAL;

	/* A device (or interrupt, ...) has no states of its own: its bar says
	 * so in words, over the grey, rather than look like a thread that
	 * was never traced. */
	if (!thread)
		fputs("<div class=\"tl-device\"><span>" DEVICE_ROW_NOTE "</span>", out);
	fputs("<svg class=\"tl-bar\" viewBox=\"0 0 1000 10\" preserveAspectRatio=\"none\" "
	      "role=\"img\" aria-label=\"", out);
	label(out, t->g, v);
	fputs("\">", out);
	if (thread)
		draw_spans(out, t, timeline_of(t->g, v), true, x->kind == WPERF_V_VIRTUAL);
	else
		draw_spans(out, t, NULL, false, false);
	fputs(thread ? "</svg></div>\n" : "</svg></div></div>\n", out);
}

/* ---- the legend and the axis ---- */

static void swatch(FILE *out, const char *colour)
{
	fprintf(out, "<span class=\"sw\" style=\"background:%s\"></span>", colour);
}

static void write_legend(FILE *out, const struct tl *t)
{
	fputs("<ul class=\"tl-legend\"><li>", out);
	swatch(out, COLOUR_RUNNING);
	fputs("running</li><li>", out);
	swatch(out, COLOUR_RUNNABLE);
	fputs("runnable (waiting for a CPU)</li>", out);
	for (size_t i = 0; i < t->n_coloured; i++) {
		fputs("<li>", out);
		swatch(out, target_colours[i]);
		fputs("waiting for ", out);
		label(out, t->g, t->coloured[i]);
		fputs("</li>", out);
	}
	fputs("<li>", out);
	swatch(out, COLOUR_OTHER);
	fputs(t->n_coloured ? "waiting for anything else" : "waiting", out);
	fputs("</li><li>", out);
	swatch(out, COLOUR_NONE);
	fputs("not in the trace (or not a thread)</li></ul>\n", out);
}

static void write_axis(FILE *out, const struct tl *t)
{
	char b[40];

	fputs("<div class=\"tl-row tl-axis\"><div class=\"tl-name\"></div><div class=\"tl-ticks\">",
	      out);
	for (int i = 0; i <= 4; i++) {
		offset(b, sizeof b, (t->end - t->begin) / 4 * i);
		fprintf(out, "<span>%s</span>", b);
	}
	fputs("</div></div>\n", out);
}

/* ---- a finding's timeline ---- */

#define TL_WAITERS 5

/* A sink's heaviest waiters that are threads: when they waited on it is
 * what its row cannot show (a device has no states). Heaviest first. */
static size_t sink_waiters(const struct wperf_report *r, uint32_t sink, uint32_t *out)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0;

	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		enum wperf_vertex_kind kind;

		if (e->to != sink || e->from == sink || e->from >= g->n_vertices ||
		    !wperf_edge_is_dependency(g, e, r->min_weight_ns) ||
		    (r->opaque && r->opaque[e->from]))
			continue;
		kind = g->vertices[e->from].kind;
		if (kind != WPERF_V_THREAD && kind != WPERF_V_VIRTUAL)
			continue;
		/* Insertion into the heaviest TL_WAITERS, by the edge's weight. */
		size_t at = n < TL_WAITERS ? n++ : TL_WAITERS;

		while (at > 0 &&
		       wperf_graph_find_edge(g, out[at - 1], sink)->weight_ns < e->weight_ns) {
			if (at < TL_WAITERS)
				out[at] = out[at - 1];
			at--;
		}
		if (at < TL_WAITERS)
			out[at] = e->from;
	}
	return n;
}

void wperf_html_timeline(FILE *out, const struct wperf_report *r, size_t i)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_knot *k = &r->knots->items[i];
	struct tl t = { .g = g, .begin = g->begin_ns, .end = g->end_ns };
	size_t rows = k->n_members < TL_MAX_ROWS ? k->n_members : TL_MAX_ROWS;
	uint32_t drawn[TL_MAX_ROWS + TL_WAITERS];
	size_t n_waiters = 0;
	char d[32];

	fprintf(out, "<div class=\"timeline\" id=\"timeline-%zu\">\n", i + 1);
	if (!g->timelines || wperf_graph_duration(g) <= 0) {
		fputs("<p class=\"tl-none\">No timeline: the analysis kept no segments for this "
		      "report (a merged or read-back graph, or too little memory).</p>\n</div>\n",
		      out);
		return;
	}
	memcpy(drawn, k->members, rows * sizeof *drawn);
	if (k->kind == WPERF_SINK && k->n_members == 1)
		n_waiters = sink_waiters(r, k->members[0], drawn + rows);
	if (pick_colours(&t, drawn, rows + n_waiters) < 0)
		t.n_coloured = 0;
	wperf_fmt_duration(d, sizeof d, wperf_graph_duration(g), 0);
	fprintf(out, "<p class=\"tl-caption\">Each member%s over the analysed %s: running, "
		"runnable, or waiting, coloured by what it waited for. Hover a span for its "
		"state, interval and what it waited for.</p>\n",
		n_waiters ? " (and, marked &larr;, its heaviest waiters)" : "", d);
	write_axis(out, &t);
	for (size_t j = 0; j < rows + n_waiters; j++)
		write_row(out, &t, drawn[j], j < rows);
	if (k->n_members > rows)
		fprintf(out, "<p class=\"tl-more\">and %zu more members, not drawn.</p>\n",
			k->n_members - rows);
	write_legend(out, &t);
	fputs("</div>\n", out);
}

/* ---- an edge's details ---- */

static void write_histogram(FILE *out, const struct wperf_edge *e)
{
	int lo = -1, hi = -1;
	uint64_t most = 0;
	char a[64], b[64];

	for (int i = 0; i < WPERF_HIST_BUCKETS; i++)
		if (e->hist[i]) {
			if (lo < 0)
				lo = i;
			hi = i;
			if (e->hist[i] > most)
				most = e->hist[i];
		}
	if (lo < 0) {
		fputs("<p>No wait lengths recorded for this edge.</p>", out);
		return;
	}
	int n = hi - lo + 1;

	fprintf(out, "<p>Wait lengths of its %" PRIu64 " wait%s: each bar counts waits twice "
		"as long as the bar left of it (log2 buckets).</p><svg class=\"hist\" "
		"viewBox=\"0 0 %d 40\" width=\"%d\" height=\"48\" preserveAspectRatio=\"none\" "
		"role=\"img\" aria-label=\"wait-length histogram\">", e->count,
		e->count == 1 ? "" : "s", n * 10, n * 14);
	for (int i = lo; i <= hi; i++) {
		double h = e->hist[i] ? 2 + 38.0 * (double)e->hist[i] / (double)most : 0;

		wperf_fmt_bucket_range(a, sizeof a, i);
		fprintf(out, "<rect x=\"%d\" y=\"%.2f\" width=\"9\" height=\"%.2f\" "
			"data-bucket=\"%d\" data-count=\"%" PRIu64 "\"><title>%s: %" PRIu64
			" waits</title></rect>", (i - lo) * 10 + 1, 40 - h, h, i, e->hist[i], a,
			e->hist[i]);
	}
	wperf_fmt_bucket_range(a, sizeof a, lo);
	wperf_fmt_bucket_range(b, sizeof b, hi);
	fprintf(out, "</svg><p class=\"hist-axis\" style=\"width:%dpx\"><span>%s</span>", n * 14,
		a);
	if (hi > lo)
		fprintf(out, "<span>%s</span>", b);
	fputs("</p>", out);
}

#define STACK_FRAMES_SHOWN 16

static void write_stack(FILE *out, const struct wperf_graph *g, const struct wperf_edge *e,
			const struct wperf_edge_stack *es)
{
	const struct wperf_stack *s = &g->stacks[es->stack];
	char d[32], pct[32];

	wperf_fmt_duration(d, sizeof d, es->ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(es->ns, e->direct_ns));
	fprintf(out, "<li>%" PRIu64 " wait%s, %s (%s of the wait time), innermost frame "
		"first:<ol class=\"frames\">", es->count, es->count == 1 ? "" : "s", d, pct);
	for (size_t f = 0; f < s->n && f < STACK_FRAMES_SHOWN; f++) {
		fputs("<li><code>", out);
		if (s->symbols && s->symbols[f])
			wperf_fmt_xml_escaped(out, s->symbols[f]);
		else
			fprintf(out, "0x%" PRIx64, s->ips[f]);
		fputs("</code></li>", out);
	}
	if (s->n > STACK_FRAMES_SHOWN)
		fprintf(out, "<li>&hellip; %zu more frames</li>", s->n - STACK_FRAMES_SHOWN);
	fputs("</ol></li>", out);
}

void wperf_html_edge_details(FILE *out, const struct wperf_graph *g, const struct wperf_edge *e)
{
	size_t stacks = 0;

	for (uint8_t k = 0; k < e->n_stacks; k++)
		stacks += e->stacks[k].stack < g->n_stacks;
	fprintf(out, "<details class=\"edge-more\"><summary>wait lengths%s</summary>",
		stacks ? ", call stacks" : "");
	write_histogram(out, e);
	if (stacks) {
		fputs("<p>Heaviest call stacks of the waits:</p><ol class=\"stacks\">", out);
		for (uint8_t k = 0; k < e->n_stacks; k++)
			if (e->stacks[k].stack < g->n_stacks)
				write_stack(out, g, e, &e->stacks[k]);
		fputs("</ol>", out);
	}
	fputs("</details>", out);
}
