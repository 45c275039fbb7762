/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text-knots.c — a knot in the text report: its
 * members, its edges with their wait-length histograms and stacks, what
 * leaves it, what refinement cut and why it stopped, and the kind of
 * problem it looks like.
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
/* Knots                                                               */
/* ------------------------------------------------------------------ */

/* Edge tables: weight = own + cascaded, and own as a share of the
 * waiter's time (the legend before the findings, write_weights_legend). */
#define PAIR_WIDTH 38

void text_write_edge_table_header(FILE *out)
{
	fputs("  ", out);
	wperf_fmt_cell(out, "waits for (from -> to)", PAIR_WIDTH, 0);
	fprintf(out, " %9s %9s %6s %8s  %s\n", "weight", "own", "own%", "waits",
		"median wait length");
}

/* The heaviest call stack of an edge's waits, where the trace has stacks:
 * the frames that say what the thread waited in, innermost first. */
#define STACK_FRAMES_SHOWN 5

static void write_edge_stack(FILE *out, const struct wperf_graph *g,
			     const struct wperf_edge *e)
{
	char line[1024], frame[128], pct[32];
	const struct wperf_stack *s;
	size_t used = 0, shown = 0;

	if (e->n_stacks == 0 || e->stacks[0].stack >= g->n_stacks)
		return;
	s = &g->stacks[e->stacks[0].stack];
	line[0] = '\0';
	for (size_t i = 0; i < s->n && shown < STACK_FRAMES_SHOWN; i++) {
		struct wperf_stack one = { &s->ips[i], s->n - i, s->symbols ? &s->symbols[i] : NULL };

		wperf_stack_wait_frame(frame, sizeof frame, &one);
		if (strcmp(frame, "?") == 0)
			break;
		/* Skip to the frame it named (generic frames are passed over). */
		while (i + 1 < s->n && s->symbols && s->symbols[i] &&
		       strncmp(s->symbols[i], frame, strlen(frame)) != 0)
			i++;
		used += (size_t)snprintf(line + used, used < sizeof line ? sizeof line - used : 0,
					 "%s%s", shown ? " <- " : "", frame);
		shown++;
		if (used >= sizeof line)
			break;
	}
	char text[1200];

	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(e->stacks[0].ns, e->direct_ns));
	snprintf(text, sizeof text, "in %s (%s of the wait time)", line, pct);
	text_put_wrapped(out, "      ", text, 9);
}

/* The marker of an edge whose waits may be untraced timer expiries
 * (wperf_edge_may_be_timer), and its footnote under the table. */
void text_write_timer_footnote(FILE *out, bool any)
{
	if (any)
		text_put_wrapped(out, "  ", TIMER_MARK " " WPERF_FMT_TIMER_NOTE, 2);
}

/*
 * An edge's two ends for its row, fitted into the column together: a
 * thread's comm is cut, never its tid, or the rows of a knot of one
 * program's threads all ended "qemu-system-x86 (20770) -> qemu-sys...".
 * The shorter end keeps its width; the longer gets the rest.
 */
static void edge_labels(char *from, char *to, const struct wperf_graph *g,
			const struct wperf_edge *e)
{
	const size_t room = PAIR_WIDTH - strlen(" -> ");
	size_t wf, wt;

	text_label(from, g, e->from);
	text_label(to, g, e->to);
	wf = wperf_fmt_display_width(from);
	wt = wperf_fmt_display_width(to);
	if (wf + wt <= room)
		return;
	if (wf <= room / 2)
		wperf_fmt_vertex_label_fit(to, LABEL_LEN, g, e->to, room - wf);
	else if (wt <= room / 2)
		wperf_fmt_vertex_label_fit(from, LABEL_LEN, g, e->from, room - wt);
	else {
		wperf_fmt_vertex_label_fit(from, LABEL_LEN, g, e->from, room / 2);
		wperf_fmt_vertex_label_fit(to, LABEL_LEN, g, e->to, room - room / 2);
	}
}

/* One row of an edge table; true when the edge carries the timer mark. */
bool text_write_edge_row(FILE *out, const struct wperf_graph *g,
			 const struct wperf_edge *e)
{
	bool timer = wperf_edge_may_be_timer(g, e);

	char from[LABEL_LEN], to[LABEL_LEN], pair[2 * LABEL_LEN + 8];
	char w[32], own[32], s[32], med[64];

	edge_labels(from, to, g, e);
	snprintf(pair, sizeof pair, "%s -> %s", from, to);
	wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, e->direct_ns > 0 ? e->direct_ns : 0, 0);
	/* Own waiting as a share of the waiter's time: at most 100%; "-"
	 * when the trace accounted no time to the waiter. */
	if (wperf_vertex_time(g, e->from) > 0)
		wperf_fmt_ppm_percent(s, sizeof s,
				      wperf_ppm(e->direct_ns, wperf_vertex_time(g, e->from)));
	else
		snprintf(s, sizeof s, "-");
	wperf_fmt_median_range(med, sizeof med, e->hist);
	if (timer)
		strncat(med, "  " TIMER_MARK, sizeof med - strlen(med) - 1);
	text_write_edge_cells(out, pair, w, own, s, e->count, med);
	write_edge_stack(out, g, e);
	return timer;
}

void text_write_edge_cells(FILE *out, const char *pair, const char *weight, const char *own,
			   const char *own_share, uint64_t waits, const char *last)
{
	fputs("  ", out);
	wperf_fmt_cell(out, pair, PAIR_WIDTH, 0);
	fprintf(out, " %9s %9s %6s %8llu  %s\n", weight, own, own_share,
		(unsigned long long)waits, last);
}

static const char *stop_explanation(const char *why)
{
	if (!why)
		return "?";
	if (!strcmp(why, "simple cycle"))
		return "it is a simple cycle";
	if (!strcmp(why, "single vertex"))
		return "a single vertex is left";
	if (!strcmp(why, "threshold"))
		return "its lightest edge weighs at least the threshold";
	if (!strcmp(why, "waiter"))
		return "cutting on would leave alone, as a sink, a thread that waited on the "
		       "others longer than it ran";
	return why;
}

/* The knot was measured across a hole in the trace (analysis/gaps.h). */
static void write_knot_gaps(FILE *out, const struct wperf_graph *g,
			    const struct wperf_knot *k)
{
	uint64_t n = wperf_knot_gap_waits(g, k);
	int64_t in_gaps = wperf_knot_gap_ns(g, k);
	char d[32], share[32];

	if (n == 0 && in_gaps == 0)
		return;
	if (in_gaps > 0) {
		wperf_fmt_duration(d, sizeof d, in_gaps, 0);
		wperf_fmt_ppm_percent(share, sizeof share,
				      wperf_ppm(in_gaps, wperf_graph_duration(g)));
		fprintf(out, "  OVERLAPS GAPS: %s (%s of the analysed time) of its members' time "
			"lies in gaps\n  of the trace, where events were lost;", d, share);
	} else {
		fputs("  OVERLAPS GAPS:", out);
	}
	fprintf(out, " %llu wait%s on its edges crossed a gap and count\n"
		"  only after it: its weights are lower bounds.\n",
		(unsigned long long)n, n == 1 ? "" : "s");
}

/* Members woken to run on a CPU whose events the trace lacks (cpus.h):
 * what they did there, and who woke or waited for them there, is unseen. */
static void write_knot_missing_cpus(FILE *out, const struct wperf_graph *g,
				    const struct wperf_knot *k)
{
	char words[1024];

	wperf_fmt_knot_missing_cpu(words, sizeof words, g, k);
	if (words[0])
		text_put_wrapped(out, "  MISSING CPU: ", words, 2);
}

void text_write_refinement(FILE *out, const struct wperf_graph *g,
			   const struct wperf_knot *k)
{
	char from[LABEL_LEN], to[LABEL_LEN], w[32];

	if (k->n_removed == 0) {
		fprintf(out, "  Refinement: nothing cut (%s).\n", stop_explanation(k->stop_reason));
		return;
	}
	fprintf(out, "  Refinement cut %zu edge%s, lightest first, from a component of %zu vertices:\n",
		k->n_removed, k->n_removed == 1 ? "" : "s", k->n_component);
	for (size_t i = 0; i < k->n_removed; i++) {
		size_t e = k->removed[i].edge;
		if (e >= g->n_edges)
			continue;
		text_label(from, g, g->edges[e].from);
		text_label(to, g, g->edges[e].to);
		wperf_fmt_duration(w, sizeof w, k->removed[i].weight_ns, 0);
		fprintf(out, "    %2zu. %s -> %s  %s\n", i + 1, from, to, w);
	}
	fprintf(out, "  and stopped: %s.\n", stop_explanation(k->stop_reason));
}

/* wperf-method(7) §10: what kind of problem it looks like, and the facts that
 * say so (wperf/classify.h), so a person can check the hint. */
void text_write_classification(FILE *out, const struct wperf_report *r,
			       const struct wperf_knot *k)
{
	const struct wperf_classification *c = wperf_report_class_of(r, k);
	char line[1024];

	if (!c)
		return;
	text_put_wrapped(out, "  Looks like ", wperf_classification_summary(c), 4);
	for (size_t i = 0; i < c->n_evidence; i++) {
		if (c->evidence[i].kind == WPERF_EV_BACKGROUND)
			continue;   /* the background note says it with its consequence */
		wperf_evidence_describe(line, sizeof line, r->graph, &c->evidence[i]);
		text_put_wrapped(out, "    - ", line, 6);
	}
}


/* Why a knot is background (wperf-method(7) §7), with the number that made it so,
 * and what the analysis did about it. */
static void write_background_note(FILE *out, const struct wperf_graph *g,
				  const struct wperf_knot *k)
{
	char run[32], pct[32], span[32];

	(void)g;
	wperf_fmt_duration(run, sizeof run, k->cpu_ns, 0);
	wperf_fmt_duration(span, sizeof span, k->span_ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(k->cpu_ns, k->span_ns));
	fprintf(out, "  Background: no device, and its threads ran or wanted a CPU %s = %s of\n"
		"  the %s they existed, less than one CPU, and nothing the focus does\n"
		"  waits on it: like heartbeats, not the bottleneck. It was set aside and\n"
		"  the rest analysed again.\n",
		run, pct, span);
	/* The rule (wperf-method(7) §7) draws its line at one CPU; threads that
	 * hand work back and forth, or workers cut out of a larger knot by
	 * refinement, sit just under it, and are no heartbeats. */
	if (wperf_ppm(k->cpu_ns, k->span_ns) >= WPERF_FMT_BACKGROUND_BUSY_PPM)
		text_put_wrapped(out, "  ", WPERF_FMT_BACKGROUND_BUSY_NOTE, 2);
}

#define MAX_LEAVING_SHOWN 5

/* "    a (1) -> setup (3), 100 ms (1 wait)" for the heaviest leaving edges. */
void text_write_leaving_edges(FILE *out, const struct wperf_graph *g,
			      const size_t *edges, size_t n)
{
	char from[LABEL_LEN], to[LABEL_LEN], w[32];
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < MAX_LEAVING_SHOWN; i++) {
		const struct wperf_edge *e = edges[i] < g->n_edges ? &g->edges[edges[i]] : NULL;

		if (!e)
			continue;
		text_label(from, g, e->from);
		text_label(to, g, e->to);
		wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
		fprintf(out, "    %s -> %s, %s (%llu wait%s)\n", from, to, w,
			(unsigned long long)e->count, e->count == 1 ? "" : "s");
		shown++;
	}
	if (n > shown)
		fprintf(out, "    ... and %zu lighter edge%s\n", n - shown, n - shown == 1 ? "" : "s");
}

/* A knot that edges leave (the dominant rule): how much, and where to. */
void text_write_knot_leaving(FILE *out, const struct wperf_report *r,
			     const struct wperf_knot *k)
{
	char w[32], pct[32], ratio[32];

	if (k->n_leaving == 0)
		return;
	wperf_fmt_duration(w, sizeof w, k->leaving_ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(k->leaving_ns, k->weight_ns));
	wperf_fmt_ppm_percent(ratio, sizeof ratio, (uint64_t)r->leave_ppm);
	if (k->kind == WPERF_SINK)      /* what refinement left of a knot */
		fprintf(out, "  Waits outside its component: %s (knot-rule=dominant admits %s of the\n"
			"  component's weight):\n", w, ratio);
	else
		fprintf(out, "  Leaves the knot: %s = %s of its weight (knot-rule=dominant admits %s "
			"of its\n  component's):\n", w, pct, ratio);
	text_write_leaving_edges(out, r->graph, k->leaving, k->n_leaving);
}

void text_write_knot(FILE *out, const struct wperf_report *r,
		     const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = r->graph;
	const char *title = k->kind == WPERF_BACKGROUND ? "Background knot" : "Knot";
	char w[32], split[160], text[256];
	int n = fprintf(out, "\n%s %zu: ", title, number);

	text_put_members(out, g, k->members, k->n_members, n > 1 ? (size_t)n - 1 : 0, 4);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_weight_split(split, sizeof split, k->weight_ns, k->own_ns, k->waiters_ns,
			       "the members'");
	snprintf(text, sizeof text, "weight %s = %s (sum of its %zu edge%s)", w, split,
		 k->n_edges, k->n_edges == 1 ? "" : "s");
	text_put_wrapped(out, "  ", text, 2);
	text_write_classification(out, r, k);
	text_write_knot_leaving(out, r, k);
	if (k->kind == WPERF_BACKGROUND)
		write_background_note(out, g, k);
	if (k->n_edges > 0) {
		bool timer = false;

		text_write_edge_table_header(out);
		for (size_t i = 0; i < k->n_edges; i++)
			if (k->edges[i] < g->n_edges)
				timer |= text_write_edge_row(out, g, &g->edges[k->edges[i]]);
		text_write_timer_footnote(out, timer);
	}
	text_write_refinement(out, g, k);
	write_knot_gaps(out, g, k);
	write_knot_missing_cpus(out, g, k);
}

