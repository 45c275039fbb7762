/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text-findings.c — the findings of the text
 * report in rank order: knots (report-text-knots.c) and sinks together by
 * weight, a CPU finding first when the CPUs are the bottleneck, the small
 * sinks summed up in one line, the heavy groups that are not knots, and
 * what to say when nothing was found.
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
/* Sinks                                                               */
/* ------------------------------------------------------------------ */

#define TOP_WAITERS 5

/* Does edge a come before edge b in a sink's table? With a focus, the
 * focus's own waits first (a focused report is about them: a NIC that
 * sshd waited on longer must not lead the focus's NIC sink with sshd);
 * then the heavier. */
static bool waiter_before(const struct wperf_report *r, const struct wperf_edge *a,
			  const struct wperf_edge *b)
{
	if (r->focus && r->focus[a->from] != r->focus[b->from])
		return r->focus[a->from];
	return a->weight_ns > b->weight_ns;
}

/* The dependency edges into v that come first (waiter_before), in that
 * order; returns how many. */
static size_t top_waiters(const struct wperf_report *r, uint32_t v,
			  size_t top[TOP_WAITERS], size_t *total)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0;

	*total = 0;
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (e->to != v || !wperf_edge_is_dependency(g, e, r->min_weight_ns) ||
		    (r->opaque && r->opaque[e->from]))
			continue;
		(*total)++;
		size_t pos = n < TOP_WAITERS ? n++ : TOP_WAITERS;
		/* insertion into a short sorted array */
		while (pos > 0 && waiter_before(r, e, &g->edges[top[pos - 1]])) {
			if (pos < TOP_WAITERS)
				top[pos] = top[pos - 1];
			pos--;
		}
		if (pos < TOP_WAITERS)
			top[pos] = i;
	}
	return n;
}

/* The unknown-kind vertex v waited on longest (direct), or UINT32_MAX. */
static uint32_t main_unknown_cause(const struct wperf_graph *g, uint32_t v)
{
	uint32_t best = UINT32_MAX;
	int64_t most = -1;

	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];

		if (e->from == v && e->to < g->n_vertices &&
		    g->vertices[e->to].kind == WPERF_V_UNKNOWN && e->direct_ns > most) {
			best = e->to;
			most = e->direct_ns;
		}
	}
	return best;
}

/* What an `unknown` waker stands for, in words. */
static const char *unknown_cause_words(const char *name)
{
	if (name && strcmp(name, "untraced-interrupt") == 0)
		return "an interrupt the trace does not show: on an idle CPU, most often a "
		       "timer whose events were not recorded";
	if (name && strcmp(name, "trace-gap") == 0)
		return "a gap in the trace, where events were lost";
	return "a wait still open at the end of the trace, or one whose end it did not show";
}

/* Why a sink waits on nothing in the graph (wperf_sink_limit()). */
static void write_sink_limit(FILE *out, const struct wperf_graph *g,
			     const struct wperf_knot *k, const char *weight, const char *split)
{
	int64_t waited = 0;
	enum wperf_sink_limit limit = wperf_sink_limit(g, k, &waited);
	char text[1024], part[32], seen[32], words[512];
	uint32_t v;

	/* What this kind of sink means, and what to do (Sink kinds). */
	wperf_fmt_sink_kind_words(words, sizeof words, g, k);
	if (limit == WPERF_LIMIT_WORK) {
		snprintf(text, sizeof text, "waited on for %s = %s; it waits for nothing in the "
			 "graph. %s", weight, split, words);
		text_put_wrapped(out, "  ", text, 2);
		return;
	}
	v = k->members[0];   /* a sink's one member (wperf_sink_limit()) */
	wperf_fmt_duration(part, sizeof part, waited, 0);
	wperf_fmt_duration(seen, sizeof seen, wperf_time_seen(&g->vertices[v]), 0);
	if (limit == WPERF_LIMIT_TIMER) {
		snprintf(text, sizeof text, "waited on for %s = %s; it waits "
			 "for nothing in the graph but timers: %s of its %s went to sleeps and "
			 "timeouts, so time paces it, not another thread. %s", weight, split, part,
			 seen, words);
	} else {
		uint32_t cause = main_unknown_cause(g, v);
		const char *name = cause != UINT32_MAX ? g->vertices[cause].name : NULL;

		snprintf(text, sizeof text, "waited on for %s = %s; it waits "
			 "for nothing in the graph the trace shows: %s of its %s it waited on "
			 "`%s` (%s). %s", weight, split, part, seen, name ? name : "unknown",
			 unknown_cause_words(name), words);
	}
	text_put_wrapped(out, "  ", text, 2);
}

/* Whether row i of a sink's table is its waiter's first row. */
static bool first_row_of_waiter(const struct wperf_graph *g, const size_t *rows, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (g->edges[rows[j]].from == g->edges[rows[i]].from)
			return false;
	return true;
}

/*
 * "waiter -> smaller nic waits": what the waiter also waited on vertices of
 * the sink's kind along edges below the noise floor, which no table shows.
 * The threads table counts them in the waiter's w:nic (w:disk...), so
 * without this row a reader finds 168 ms there and 62.6 ms here.
 */
static void write_smaller_waits(FILE *out, const struct wperf_report *r, uint32_t waiter,
				uint32_t sink)
{
	const struct wperf_graph *g = r->graph;
	enum wperf_vertex_kind kind = g->vertices[sink].kind;
	int64_t weight = 0, own = 0;
	uint64_t waits = 0;
	size_t edges = 0;

	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];

		if (e->from != waiter || e->to >= g->n_vertices || e->to == sink ||
		    g->vertices[e->to].kind != kind || e->weight_ns <= 0 ||
		    e->weight_ns >= r->min_weight_ns)
			continue;
		weight = wperf_add_durations(weight, e->weight_ns);
		own = wperf_add_durations(own, e->direct_ns > 0 ? e->direct_ns : 0);
		waits += e->count;
		edges++;
	}
	if (edges == 0)
		return;
	char from[LABEL_LEN], pair[LABEL_LEN + 40], w[32], o[32], share[32], what[64];

	text_label(from, g, waiter);
	snprintf(pair, sizeof pair, "%s -> smaller %s waits", from, wperf_vertex_kind_name(kind));
	wperf_fmt_duration(w, sizeof w, weight, 0);
	wperf_fmt_duration(o, sizeof o, own, 0);
	if (wperf_vertex_time(g, waiter) > 0)
		wperf_fmt_ppm_percent(share, sizeof share,
				      wperf_ppm(own, wperf_vertex_time(g, waiter)));
	else
		snprintf(share, sizeof share, "-");
	snprintf(what, sizeof what, "%zu edge%s below the noise floor", edges,
		 edges == 1 ? "" : "s");
	text_write_edge_cells(out, pair, w, o, share, waits, what);
}

static void write_sink(FILE *out, const struct wperf_report *r,
		       const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = r->graph;
	char name[LABEL_LEN], w[32], split[160], text[1024], words[512];
	size_t top[TOP_WAITERS], total;
	uint32_t v = k->n_members ? k->members[0] : UINT32_MAX;

	text_label(name, g, v);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_weight_split(split, sizeof split, k->weight_ns, k->own_ns, k->waiters_ns,
			       "its waiters'");
	fprintf(out, "\nSink %zu: %s\n", number, name);
	if (k->n_removed > 0) {
		wperf_fmt_sink_kind_words(words, sizeof words, g, k);
		snprintf(text, sizeof text, "waited on for %s = %s by the rest of its knot; "
			 "what it waits for weighs too little to matter. %s", w, split, words);
		text_put_wrapped(out, "  ", text, 2);
		text_write_knot_leaving(out, r, k);
		text_write_refinement(out, g, k);
	} else {
		write_sink_limit(out, g, k, w, split);
	}
	text_write_classification(out, r, k);
	size_t n = top_waiters(r, v, top, &total);
	if (n == 0)
		return;
	bool timer = false;

	text_write_edge_table_header(out);
	for (size_t i = 0; i < n; i++)
		timer |= text_write_edge_row(out, g, &g->edges[top[i]]);
	for (size_t i = 0; i < n; i++)
		if (first_row_of_waiter(g, top, i))
			write_smaller_waits(out, r, g->edges[top[i]].from, v);
	if (total > n)
		fprintf(out, "  ... and %zu lighter edges into it\n", total - n);
	text_write_timer_footnote(out, timer);
}

/* Did any focus thread wait at all (on anything, timers included)? */
static bool focus_waited(const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;

	for (uint32_t v = 0; v < g->n_vertices; v++)
		if (r->focus[v] && g->vertices[v].waits > 0)
			return true;
	return false;
}

/* wrong: a caveat says the findings may be wrong (report-caveats.c);
 * then no advice that holds only for a complete trace. */
static void write_nothing_found(FILE *out, const struct wperf_report *r, bool wrong)
{
	const struct wperf_graph *g = r->graph;
	size_t deps = text_count_dependencies(r);

	fputs("\nNo knots and no sinks were found.\n", out);
	if (wrong) {
		text_put_wrapped(out, "  ", "The trace lacks part of what happened (the lines above "
			    "the findings say what): the waits that would make a knot or a sink "
			    "may be in what it lacks. Record again before concluding anything.", 2);
	} else if (g->n_edges == 0) {
		fputs("  The graph has no edges: no thread was seen waiting for anything. The trace\n"
		      "  may be too short, or lack scheduler events (sched_switch, sched_waking).\n", out);
	} else if (r->focus && !focus_waited(r)) {
		fputs("  The focus threads never waited: they ran, or waited for a CPU, all along.\n"
		      "  Their limit is their own work (on-CPU): profile it (perf record -g), since\n"
		      "  there is no waiting for an off-CPU analysis to show.\n", out);
	} else if (deps == 0) {
		fprintf(out, "  %s end%s at `timer` or `unknown` (waits ended by a timeout, or\n"
			"  whose end the trace did not show) or weigh nothing. Those are not\n"
			"  dependencies that could be sped up, so they form no knot or sink; the\n"
			"  thread breakdown below still counts them.\n",
			g->n_edges == 1 ? "The only edge" : "All edges", g->n_edges == 1 ? "s" : "");
	} else if (r->focus) {
		fputs("  Nothing the focus vertices wait on (directly or not) ends in a knot or a\n"
		      "  sink: they waited only on timers or on unseen causes. Try without focus.\n", out);
	} else {
		fputs("  Every vertex that others wait on was left out; this should not happen.\n", out);
	}
}

#define MAX_GROUPS_SHOWN 3

/*
 * Heavy strongly connected groups that the knot rule turned down, with
 * the weight that leaves them and where to: a group that looks like a
 * knot and is not one must not vanish without a word.
 */
void text_write_groups(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	size_t n = r->knots ? r->knots->n_groups : 0;
	char w[32], split[160], lw[32], pct[32], allowed[64], text[512];

	if (n == 0)
		return;
	if (r->strict_rule || r->leave_ppm == 0)
		snprintf(allowed, sizeof allowed, "knot-rule=strict allows none");
	else {
		wperf_fmt_ppm_percent(pct, sizeof pct, (uint64_t)r->leave_ppm);
		snprintf(allowed, sizeof allowed, "the dominant rule allows %s", pct);
	}
	fprintf(out, "\nNot knots: %zu heavy group%s that wait%s too much outside %s\n", n,
		n == 1 ? "" : "s", n == 1 ? "s" : "", n == 1 ? "itself" : "themselves");
	for (size_t i = 0; i < n && i < MAX_GROUPS_SHOWN; i++) {
		const struct wperf_group *gr = &r->knots->groups[i];
		int col = fprintf(out, "  Group: ");

		text_put_members(out, g, gr->members, gr->n_members, col > 0 ? (size_t)col : 0, 4);
		wperf_fmt_duration(w, sizeof w, gr->weight_ns, 0);
		wperf_fmt_weight_split(split, sizeof split, gr->weight_ns, gr->own_ns,
				       gr->waiters_ns, "the members'");
		wperf_fmt_duration(lw, sizeof lw, gr->leaving_ns, 0);
		wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(gr->leaving_ns, gr->weight_ns));
		snprintf(text, sizeof text, "weighs %s = %s, but %s = %s of "
			 "its weight leaves it (%s): not a knot. Its edges out, heaviest "
			 "first:", w, split, lw, pct, allowed);
		text_put_wrapped(out, "    ", text, 4);
		text_write_leaving_edges(out, g, gr->leaving, gr->n_leaving);
	}
	if (n > MAX_GROUPS_SHOWN)
		fprintf(out, "  ... and %zu lighter groups (the JSON report lists them all)\n",
			n - MAX_GROUPS_SHOWN);
}

/* The first findings, always shown in full, whatever their weight. */
#define FULL_FINDINGS 3
/* Past them, sinks lighter than this share of the analysed time (ppm),
 * and every sink past the first MAX_FULL_FINDINGS findings, are summed up
 * in one line (the JSON report has each in full). Knots are always shown. */
#define SMALL_SINK_PPM 50000
#define MAX_FULL_FINDINGS 10
#define SMALL_SINKS_NAMED 8

/* The number the text gives the sink at rank i: its rank among sinks. */
static size_t small_number(const struct wperf_report *r, size_t i)
{
	size_t n = 0;

	for (size_t j = 0; j <= i && j < r->knots->n; j++)
		n += r->knots->items[j].kind == WPERF_SINK;
	return n;
}

/* Is the finding at rank i (0-based) a small sink, summed up in one line? */
static bool collapsed(const struct wperf_report *r, size_t i)
{
	const struct wperf_knot *k = &r->knots->items[i];

	if (k->kind != WPERF_SINK || i < FULL_FINDINGS)
		return false;
	return i >= MAX_FULL_FINDINGS ||
	       wperf_ppm(k->weight_ns, wperf_graph_duration(r->graph)) < SMALL_SINK_PPM;
}

/* "And 17 more sinks, each at most 4.1% ...: a (12) 4.1%, b 3.0%, ..."
 * (first: the rank of the heaviest of them, the first in rank order). */
static void write_small_sinks(FILE *out, const struct wperf_report *r, size_t n,
			      size_t first, size_t first_number)
{
	const struct wperf_graph *g = r->graph;
	char head[256], item[LABEL_LEN + 40], name[LABEL_LEN], pct[32], limit[32];
	size_t named = 0, col = 2;

	if (n == 0)
		return;
	wperf_fmt_duration(limit, sizeof limit, r->knots->items[first].weight_ns, 0);
	if (n == 1)
		snprintf(head, sizeof head, "And 1 more sink, weighing %s (sink %zu; "
			 "the JSON report has it in full):", limit, first_number);
	else
		snprintf(head, sizeof head, "And %zu more sinks, each weighing at most %s "
			 "(sinks %zu to %zu; the JSON report has them all):", n, limit,
			 first_number, first_number + n - 1);
	fputc('\n', out);
	text_put_wrapped(out, "", head, 2);
	fputs("  ", out);
	for (size_t i = 0; i < r->knots->n && named < SMALL_SINKS_NAMED; i++) {
		const struct wperf_knot *k = &r->knots->items[i];

		if (!collapsed(r, i))
			continue;
		text_label(name, g, k->members[0]);
		wperf_fmt_duration(pct, sizeof pct, k->weight_ns, 0);
		snprintf(item, sizeof item, "%s %s", name, pct);
		col = text_put_listed(out, item, named == 0, col, 2);
		named++;
	}
	if (n > named) {
		snprintf(item, sizeof item, "and %zu more", n - named);
		text_put_listed(out, item, 0, col, 2);
	}
	fputc('\n', out);
}

/*
 * The CPU finding first (wperf/cpu.h), when the report's threads waited
 * for a CPU longer than for anything else: whatever the knots and sinks
 * below say, less waiting cannot help them until they get a CPU. The
 * words are the HTML page's too (report-cpu-words.c).
 */
static void write_cpu_first(FILE *out, const struct wperf_report *r)
{
	struct wperf_fmt_cpu_words w;

	wperf_fmt_cpu_words(&w, r);
	fprintf(out, "\n%s\n", w.title);
	text_put_wrapped(out, "  ", w.summary, 2);
	if (w.others[0])
		text_put_wrapped(out, "  ", w.others, 2);
	text_put_wrapped(out, "  ", w.advice, 2);
}

/*
 * What the numbers of the findings are (doc/wperf-report.7.md, "Weights"):
 * a weight sums two things, the waiters' own waiting, which is a part of
 * their time, and what cascaded redistribution added, which is not, so
 * only the first gets a percentage.
 */
static void write_weights_legend(FILE *out)
{
	fputc('\n', out);
	text_put_wrapped(out, "", "Weights: weight = own + cascaded. Own is the waiters' own "
		    "waiting, with its share of their time (at most 100%; own% in the tables, "
		    "of the waiter's time). Cascaded is the waiting of others that was held up "
		    "meanwhile, counted again on every edge it passed through. A weight "
		    "measures those waits; it does not bound what shortening them could gain "
		    "(wperf-analysis(7)).", 0);
}

void text_write_findings(FILE *out, const struct wperf_report *r)
{
	size_t knots = wperf_fmt_count_kind(r->knots, WPERF_KNOT);
	size_t sinks = wperf_fmt_count_kind(r->knots, WPERF_SINK);
	size_t background = wperf_fmt_count_kind(r->knots, WPERF_BACKGROUND);
	size_t nk = 0, ns = 0, n_small = 0, first_small = 0;
	bool small_written = false;

	fprintf(out, "Found      %zu knot%s, %zu sink%s", knots, knots == 1 ? "" : "s",
		sinks, sinks == 1 ? "" : "s");
	if (background)
		fprintf(out, ", %zu background knot%s", background, background == 1 ? "" : "s");
	if (r->knots && r->knots->n_groups)
		fprintf(out, "; %zu heavy group%s not a knot (below)", r->knots->n_groups,
			r->knots->n_groups == 1 ? "" : "s");
	if (r->cpu && r->cpu->first)
		fputs("; first: the CPUs", out);
	fputc('\n', out);
	struct wperf_caveat c[WPERF_CAVEATS_MAX];
	char wrong[1024];

	wperf_fmt_caveat_headline(wrong, sizeof wrong, c, wperf_fmt_caveats(r, c));
	if (wrong[0])
		text_put_wrapped(out, "           ", wrong, 11);
	if (r->cpu && r->cpu->first)
		write_cpu_first(out, r);
	if (!r->knots || r->knots->n == 0) {
		write_nothing_found(out, r, wrong[0] != '\0');
		return;
	}
	write_weights_legend(out);
	for (size_t i = 0; i < r->knots->n; i++)
		if (collapsed(r, i) && n_small++ == 0)
			first_small = i;
	/* Findings in rank order (knots.h); the small sinks in one line
	 * after the others, before the background knots. */
	for (size_t i = 0; i < r->knots->n; i++) {
		const struct wperf_knot *k = &r->knots->items[i];

		if (k->kind == WPERF_BACKGROUND && !small_written) {
			write_small_sinks(out, r, n_small, first_small,
					  small_number(r, first_small));
			small_written = true;
		}
		if (collapsed(r, i))
			ns++;
		else if (k->kind == WPERF_SINK)
			write_sink(out, r, k, ++ns);
		else
			text_write_knot(out, r, k, ++nk);
	}
	if (!small_written)
		write_small_sinks(out, r, n_small, first_small, small_number(r, first_small));
}

