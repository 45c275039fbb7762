/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-html-tables.c — the HTML page's sortable tables
 * of knots, edges and threads (report-html.c draws the page around them,
 * and its script sorts them).
 *
 * Every numeric cell carries its exact value in data-v, so a column sorts
 * by value and not by its rounded text; a heading that begins with '#'
 * in the heads[] lists below marks a numeric column. With a focus, the
 * edges and threads tables show what the focus waits on and say how many
 * rows they leave out.
 */
#include <stdlib.h>

#include "report-format.h"
#include "report-html.h"
#include "wperf/report.h"

/* ---- Table cells: numbers carry their exact value in data-v for sorting. */

static void td_ns(FILE *out, int64_t ns)
{
	char d[32];

	wperf_fmt_duration(d, sizeof d, ns, 1);
	fprintf(out, "<td class=\"n\" data-v=\"%lld\">%s</td>", (long long)ns, d);
}

static void td_u64(FILE *out, uint64_t v)
{
	fprintf(out, "<td class=\"n\">%llu</td>", (unsigned long long)v);
}

/* part / whole as a percentage; "-" when whole is not known (0). */
static void td_share(FILE *out, int64_t part, int64_t whole)
{
	char s[32] = "-";

	if (whole > 0)
		wperf_fmt_ppm_percent(s, sizeof s, wperf_ppm(part, whole));
	fprintf(out, "<td class=\"n\" data-v=\"%llu\">%s</td>",
		(unsigned long long)wperf_ppm(part, whole), s);
}

/* The knot a row belongs to, sorted by report order; none sorts last. */
static void td_knot(FILE *out, const struct wperf_report *r, long knot)
{
	char title[64] = "";

	if (knot >= 0)
		wperf_fmt_knot_title(title, sizeof title, r->knots, (size_t)knot);
	fprintf(out, "<td data-v=\"%ld\">%s</td>", knot >= 0 ? knot : 1000000000L, title);
}

/* sorted: the column the rows come sorted by, heaviest first (marked so
 * that the first click sorts it the other way), or -1. */
static void table_start_sorted(FILE *out, const char *id, const char *const *heads, int sorted)
{
	fprintf(out, "<div class=\"scroll\"><table class=\"sortable\" id=\"%s\"><thead><tr>",
		id);
	/* A leading '#' marks a numeric column. */
	for (int c = 0; heads[c]; c++)
		fprintf(out, "<th%s%s>%s</th>", heads[c][0] == '#' ? " data-type=\"num\"" : "",
			c == sorted ? " aria-sort=\"descending\"" : "",
			heads[c][0] == '#' ? heads[c] + 1 : heads[c]);
	fputs("</tr></thead>\n<tbody>\n", out);
}

static void table_start(FILE *out, const char *id, const char *const *heads)
{
	table_start_sorted(out, id, heads, -1);
}

static void table_end(FILE *out)
{
	fputs("</tbody></table></div>\n", out);
}

/* ---- Tables ---- */

void wperf_html_knots_table(FILE *out, const struct wperf_report *r)
{
	static const char *const heads[] = {
		"#rank", "knot", "kind", "members", "#weight", "#own", "#own % of their time",
		"#cascaded", "#edges", "#cut", "stop reason", NULL
	};
	char title[64];

	fputs("<h2 id=\"knots\">Knots</h2>\n", out);
	table_start(out, "knots-table", heads);
	for (size_t i = 0; r->knots && i < r->knots->n; i++) {
		const struct wperf_knot *k = &r->knots->items[i];
		wperf_fmt_knot_title(title, sizeof title, r->knots, i);
		fprintf(out, "<tr><td class=\"n\">%zu</td><td>%s</td><td>%s</td><td>", i + 1,
			title, wperf_knot_kind_name(k->kind));
		wperf_html_members(out, r->graph, k);
		fputs("</td>", out);
		td_ns(out, k->weight_ns);
		td_ns(out, k->own_ns);
		td_share(out, k->own_ns, k->waiters_ns);
		td_ns(out, wperf_fmt_cascaded(k->weight_ns, k->own_ns));
		td_u64(out, k->n_edges);
		td_u64(out, k->n_removed);
		fputs("<td>", out);
		wperf_fmt_xml_escaped(out, k->stop_reason ? k->stop_reason : "");
		fputs("</td></tr>\n", out);
	}
	table_end(out);
}

static void write_edge_row(FILE *out, const struct wperf_report *r,
			   const struct wperf_fmt_knot_map *m, size_t i)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	int64_t median = -1, hi;    /* sorted by the median range's low end; -1: none */
	char range[64];

	if (!wperf_hist_median_range(e->hist, &median, &hi))
		median = -1;
	wperf_fmt_median_range(range, sizeof range, e->hist);
	fputs("<tr><td>", out);
	wperf_html_vertex_label(out, r->graph, e->from);
	fputs("</td><td>", out);
	wperf_html_vertex_label(out, r->graph, e->to);
	fputs("</td>", out);
	td_ns(out, e->weight_ns);
	td_ns(out, e->direct_ns);
	td_share(out, e->direct_ns, wperf_vertex_time(r->graph, e->from));
	td_ns(out, wperf_fmt_cascaded(e->weight_ns, e->direct_ns));
	td_u64(out, e->count);
	fprintf(out, "<td class=\"n\" data-v=\"%lld\">%s</td>", (long long)median, range);
	td_knot(out, r, m->edge_knot[i]);
	td_knot(out, r, m->edge_cut[i]);
	fprintf(out, "<td>%s</td></tr>\n",
		wperf_edge_is_dependency(r->graph, e, r->min_weight_ns) ? "yes" : "no");
}

/* With a focus, the line that says what the tables leave out and how to
 * see it; nothing when nothing was left out. */
static void write_left_out(FILE *out, size_t n, const char *what)
{
	if (n == 0)
		return;
	fprintf(out, "<p class=\"left-out\">%zu %s outside what the focus waits on %s left "
		"out; without a focus (pids=, comms=, wperf report --pids) they are shown.</p>\n",
		n, what, n == 1 ? "is" : "are");
}

/* An edge of the focused report: its waiter is in the focus's reach
 * (reach NULL: no focus, every edge). */
static bool edge_shown(const struct wperf_graph *g, const bool *reach, size_t i)
{
	return !reach || (g->edges[i].from < g->n_vertices && reach[g->edges[i].from]);
}

struct edge_order {
	int64_t weight_ns;
	size_t i;
};

static int cmp_heaviest(const void *a, const void *b)
{
	const struct edge_order *x = a, *y = b;

	if (x->weight_ns != y->weight_ns)
		return x->weight_ns < y->weight_ns ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);   /* ties: by (from, to), as stored */
}

/* The edges' indexes, heaviest first; NULL when out of memory (then the
 * table keeps the stored order). */
static size_t *heaviest_first(const struct wperf_graph *g)
{
	struct edge_order *o = malloc((g->n_edges ? g->n_edges : 1) * sizeof *o);
	size_t *order = malloc((g->n_edges ? g->n_edges : 1) * sizeof *order);

	if (!o || !order) {
		free(o);
		free(order);
		return NULL;
	}
	for (size_t i = 0; i < g->n_edges; i++)
		o[i] = (struct edge_order){ g->edges[i].weight_ns, i };
	qsort(o, g->n_edges, sizeof *o, cmp_heaviest);
	for (size_t i = 0; i < g->n_edges; i++)
		order[i] = o[i].i;
	free(o);
	return order;
}

void wperf_html_edges_table(FILE *out, const struct wperf_report *r,
			      const struct wperf_fmt_knot_map *m, const bool *reach)
{
	size_t left_out = 0;

	static const char *const heads[] = {
		"from", "to", "#weight", "#own", "#own % of its time", "#cascaded", "#waits",
		"#median wait",
		"#in knot", "#cut by", "dependency", NULL
	};

	fputs("<h2 id=\"edges\">Edges</h2>\n<p>Every edge", out);
	if (reach)
		fputs(" whose waiter is the focus or what it waits on", out);
	fputs(": A &rarr; B is the time A waited "
	      "for B (own, with its share of A's time) plus what cascaded redistribution added "
	      "(cascaded): weight = own + cascaded. Only dependencies (above the noise floor, "
	      "not to timer or unknown) take part in knots.</p>\n", out);
	for (size_t i = 0; i < r->graph->n_edges; i++)
		left_out += !edge_shown(r->graph, reach, i);
	write_left_out(out, left_out, left_out == 1 ? "edge" : "edges");
	/* Heaviest first: the edges that matter at the top, a device's own
	 * edges (its idle time, no weight) at the bottom. */
	size_t *order = heaviest_first(r->graph);

	table_start_sorted(out, "edges-table", heads, 2);
	for (size_t k = 0; k < r->graph->n_edges; k++) {
		size_t i = order ? order[k] : k;

		if (edge_shown(r->graph, reach, i))
			write_edge_row(out, r, m, i);
	}
	free(order);
	table_end(out);
}

static void write_thread_row(FILE *out, const struct wperf_report *r,
			     const struct wperf_fmt_knot_map *m, size_t id)
{
	const struct wperf_vertex *v = &r->graph->vertices[id];
	int64_t waiting = 0;

	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		waiting += v->waiting_ns[k];
	fputs("<tr><td>", out);
	wperf_html_vertex_label(out, r->graph, (uint32_t)id);
	fprintf(out, "</td><td class=\"n\">%lld</td><td class=\"n\">%lld</td>",
		(long long)wperf_local_id(v->tid), (long long)wperf_local_id(v->pid));
	td_ns(out, v->running_ns);
	td_ns(out, v->runnable_ns);
	td_ns(out, waiting);
	td_u64(out, v->waits);
	td_knot(out, r, m->vertex_knot[id]);
	fputs("</tr>\n", out);
}

void wperf_html_threads_table(FILE *out, const struct wperf_report *r,
				const struct wperf_fmt_knot_map *m, const bool *reach)
{
	size_t left_out = 0;

	static const char *const heads[] = {
		"thread", "#tid", "#pid", "#running", "#runnable", "#waiting", "#waits",
		"#knot", NULL
	};

	fputs("<h2 id=\"threads\">Threads</h2>\n", out);
	for (size_t id = 0; reach && id < r->graph->n_vertices; id++)
		left_out += wperf_fmt_thread_listed(&r->graph->vertices[id]) && !reach[id];
	write_left_out(out, left_out, left_out == 1 ? "thread" : "threads");
	table_start(out, "threads-table", heads);
	for (size_t id = 0; id < r->graph->n_vertices; id++)
		if (wperf_fmt_thread_listed(&r->graph->vertices[id]) && (!reach || reach[id]))
			write_thread_row(out, r, m, id);
	table_end(out);
	/* A window's table has no row of zeros (wperf_fmt_thread_listed);
	 * with a focus, the unseen are the rest of the machine's, as above. */
	size_t outside = reach ? 0 : wperf_fmt_threads_outside(r->graph);
	if (outside)
		fprintf(out, "<p>%zu thread%s the trace names outside the analysed range, none "
			"in it, %s not listed.</p>\n", outside, outside == 1 ? "" : "s",
			outside == 1 ? "is" : "are");
}
