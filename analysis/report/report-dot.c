/* SPDX-License-Identifier: MIT */
/*
 * report-dot.c — the wait-for graph as a Graphviz DOT picture.
 *
 * Drawn as in the wPerf paper's figures: each knot, sink and background
 * knot is a cluster; an edge's width and label grow with its weight; edges
 * at or above the termination threshold are solid, lighter ones dashed;
 * self-loops (merged threads waiting on each other) are drawn; devices,
 * interrupts and merged vertices have their own shapes.
 *
 * Only dependencies are drawn (the edges knot finding uses: above the
 * noise floor, not to timer or unknown) and the vertices they join: a
 * real trace has hundreds of threads that only wait on timers, and a
 * picture of them all shows nothing. With a focus, only what the focus
 * waits on, directly or not, is drawn (as knot finding sees it). The
 * graph's label says how much was left out; the GraphML and JSON reports
 * have everything.
 *
 * The SVG picture (wperf_fmt_write_dot_picture) must answer at first
 * sight on a busy machine, where the dependencies alone make a picture of
 * thousands of points, and in a recording whose program forked hundreds
 * of threads: it draws the first PICTURE_FINDINGS findings (in report
 * order, the most to gain first) as clusters, laid out right to left so
 * that the first finding sits at the top left of the picture, each with
 * its internal edges and its heaviest dependencies in or out (more for
 * the first); the other findings are folded into one box that counts and
 * names them, and a note counts what is not drawn ("+ 296 threads not in
 * any finding") and says how to see it. Its line widths rank the edges
 * by what the report says of them, not by weight alone: the first
 * finding's own edges heaviest, then the other findings', then the waits
 * into a finding, the rest lightest (doc/wperf-report.7.md, PICTURES).
 * With several hosts, a dashed cluster per host holds its vertices.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report-format.h"
#include "wperf/report.h"

#define COLOR_KNOT "#c62828"
#define FILL_KNOT "#fdecea"
#define COLOR_SINK "#ef6c00"
#define FILL_SINK "#fff3e0"
#define COLOR_BACKGROUND "#757575"
#define FILL_BACKGROUND "#f2f2f2"
#define COLOR_EDGE "#37474f"
#define COLOR_CUT "#1565c0"
#define COLOR_LIGHT "#9e9e9e"
#define COLOR_LIGHT_CUT "#64b5f6"

/* The unfocused picture (see above): findings drawn as clusters, and
 * dependencies in or out of each drawn beside its internal edges. Six
 * clusters with three neighbours each, the grid and the note fit a
 * full-HD screen (tests/test_report_formats.py, SCREEN_PT); the findings
 * further down gain less. */
#define PICTURE_FINDINGS 6
#define PICTURE_EDGES 3
#define PICTURE_FIRST_EDGES 5  /* the first finding's: what touches the answer */
#define PICTURE_FOLDED_NAMED 5 /* folded findings named in their box */

/* A DOT quoted string. Labels are already free of control characters and
 * bad UTF-8 (wperf_fmt_vertex_label), so a newline can only be one of our
 * line breaks; a backslash is doubled so that dot does not read "\n" or
 * "\N" in a thread name as an escape. */
static void dot_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\n' || *s == '\v') {
			/* our own line breaks: centred, or ending a left-justified line */
			fputs(*s == '\n' ? "\\n" : "\\l", out);
			continue;
		}
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static const char *knot_color(enum wperf_knot_kind kind)
{
	return kind == WPERF_SINK ? COLOR_SINK :
	       kind == WPERF_BACKGROUND ? COLOR_BACKGROUND : COLOR_KNOT;
}

static const char *knot_fill(enum wperf_knot_kind kind)
{
	return kind == WPERF_SINK ? FILL_SINK :
	       kind == WPERF_BACKGROUND ? FILL_BACKGROUND : FILL_KNOT;
}

/* Threads are ellipses; what is not a thread must not look like one. */
static const char *vertex_shape(enum wperf_vertex_kind kind)
{
	switch (kind) {
	case WPERF_V_DISK:    return "cylinder";
	case WPERF_V_NIC:     return "box3d";
	case WPERF_V_IRQ:
	case WPERF_V_SOFTIRQ: return "hexagon";
	case WPERF_V_TIMER:
	case WPERF_V_UNKNOWN: return "note";
	case WPERF_V_VIRTUAL: return "doublecircle";
	default:              return "ellipse";
	}
}
/* What one writing draws: a flag per vertex and per edge. */
struct drawing {
	bool *vertex;
	bool *edge;
	bool summarised;        /* the SVG picture (see the top of this file) */
	bool first_only;        /* the HTML page's first picture: the first finding */
	size_t clusters;        /* findings drawn as clusters: the first ones */
};

/* Every dependency and the vertices it joins, and every finding member
 * (the DOT data; a focused picture: what the focus reaches). */
static void draw_dependencies(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			      struct drawing *d)
{
	const struct wperf_graph *g = r->graph;

	for (size_t v = 0; v < g->n_vertices; v++)
		d->vertex[v] |= m->vertex_knot[v] >= 0;
	for (size_t i = 0; !r->focus && i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (e->from < g->n_vertices && e->to < g->n_vertices &&
		    wperf_edge_is_dependency(g, e, r->min_weight_ns))
			d->vertex[e->from] = d->vertex[e->to] = true;
	}
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		d->edge[i] = e->from < g->n_vertices && e->to < g->n_vertices &&
			     d->vertex[e->from] && d->vertex[e->to] &&
			     wperf_edge_is_dependency(g, e, r->min_weight_ns);
	}
}

/* Finding k's edges to draw: its internal dependencies, and its
 * PICTURE_EDGES heaviest dependencies into or out of it. scratch holds
 * n_edges indexes. */
static void draw_finding_edges(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			       struct drawing *d, long k, size_t *scratch)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0;

	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		bool from_in, to_in;

		if (e->from >= g->n_vertices || e->to >= g->n_vertices ||
		    !wperf_edge_is_dependency(g, e, r->min_weight_ns))
			continue;
		from_in = m->vertex_knot[e->from] == k;
		to_in = m->vertex_knot[e->to] == k;
		if (from_in && to_in)
			d->edge[i] = true;
		else if (from_in || to_in)
			scratch[n++] = i;
	}
	/* The heaviest, one at a time (the first of equals): a few passes. */
	/* The first picture keeps to a phone's width: three, as the others. */
	size_t want = k == 0 && !d->first_only ? PICTURE_FIRST_EDGES : PICTURE_EDGES;

	for (size_t pick = 0; pick < want && pick < n; pick++) {
		size_t best = pick;
		for (size_t j = pick + 1; j < n; j++)
			if (g->edges[scratch[j]].weight_ns > g->edges[scratch[best]].weight_ns)
				best = j;
		size_t t = scratch[pick];
		scratch[pick] = scratch[best];
		scratch[best] = t;
		d->edge[scratch[pick]] = true;
	}
}

/* The findings and what touches them (the unfocused picture, see the top
 * of this file). -1 when out of memory. */
static int draw_findings(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			 struct drawing *d)
{
	const struct wperf_graph *g = r->graph;
	size_t *scratch = malloc((g->n_edges ? g->n_edges : 1) * sizeof *scratch);

	if (!scratch)
		return -1;
	d->clusters = r->knots ? r->knots->n : 0;
	if (d->clusters > (d->first_only ? 1 : PICTURE_FINDINGS))
		d->clusters = d->first_only ? 1 : PICTURE_FINDINGS;
	for (size_t v = 0; v < g->n_vertices; v++)
		d->vertex[v] = m->vertex_knot[v] >= 0 && m->vertex_knot[v] < (long)d->clusters;
	for (size_t k = 0; k < d->clusters; k++)
		draw_finding_edges(r, m, d, (long)k, scratch);
	free(scratch);
	for (size_t i = 0; i < g->n_edges; i++)
		if (d->edge[i])
			d->vertex[g->edges[i].from] = d->vertex[g->edges[i].to] = true;
	return 0;
}

static void drawing_fini(struct drawing *d)
{
	free(d->vertex);
	free(d->edge);
}

/* What this writing draws (see the top of this file). 0, or -1 when out
 * of memory (nothing to free then). */
static int drawing_init(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			enum wperf_fmt_picture mode, struct drawing *d)
{
	const struct wperf_graph *g = r->graph;
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool oom = false;

	d->summarised = mode != WPERF_PICTURE_DATA;
	d->first_only = mode == WPERF_PICTURE_FIRST;
	d->clusters = r->knots ? r->knots->n : 0;
	d->vertex = r->focus ? wperf_fmt_focus_reach(r, &oom) : calloc(n, sizeof *d->vertex);
	d->edge = calloc(g->n_edges ? g->n_edges : 1, sizeof *d->edge);
	if (!d->vertex || !d->edge) {
		free(d->vertex);
		free(d->edge);
		return -1;
	}
	if (!d->summarised) {
		draw_dependencies(r, m, d);
		return 0;
	}
	if (draw_findings(r, m, d) < 0) {
		drawing_fini(d);
		return -1;
	}
	return 0;
}

static void write_tooltip(FILE *out, const struct wperf_vertex *v,
			  const char *label)
{
	char tip[512], run[32], wait[32];
	int64_t waiting = 0;

	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		waiting += v->waiting_ns[k];
	if (v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL) {
		wperf_fmt_duration(run, sizeof run, v->running_ns, 0);
		wperf_fmt_duration(wait, sizeof wait, waiting, 0);
		snprintf(tip, sizeof tip, "%s: %s, pid %lld, running %s, waiting %s", label,
			 wperf_vertex_kind_name(v->kind), (long long)v->pid, run, wait);
	} else {
		snprintf(tip, sizeof tip, "%s: %s", label, wperf_vertex_kind_name(v->kind));
	}
	fputs(", tooltip=", out);
	dot_string(out, tip);
}

/* The first picture's labels are cut so that it fits a phone's width. */
#define FIRST_LABEL_WIDTH 24

static void write_vertex(FILE *out, const struct wperf_report *r,
			 const struct wperf_fmt_knot_map *m, const struct drawing *d, uint32_t id,
			 const char *indent)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_vertex *v = &g->vertices[id];
	char label[256];

	if (d->first_only)
		wperf_fmt_vertex_label_fit(label, sizeof label, g, id, FIRST_LABEL_WIDTH);
	else
		wperf_fmt_vertex_label(label, sizeof label, g, id);
	fprintf(out, "%sv%lu [label=", indent, (unsigned long)id);
	dot_string(out, label);
	fprintf(out, ", shape=%s", vertex_shape(v->kind));
	if (m->vertex_knot[id] >= 0) {
		enum wperf_knot_kind kind = r->knots->items[m->vertex_knot[id]].kind;
		fprintf(out, ", style=filled, fillcolor=\"white\", color=\"%s\"", knot_color(kind));
	}
	if (r->focus && r->focus[id])
		fputs(", penwidth=2.5", out);
	write_tooltip(out, v, label);
	fputs("];\n", out);
}

#define ANY_HOST UINT32_MAX      /* no host filter: every member */

/* Whether v is drawn in finding i's cluster on host. */
static bool in_cluster(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
		       size_t i, uint32_t v, uint32_t host)
{
	return v < r->graph->n_vertices && m->vertex_knot[v] == (long)i &&
	       (host == ANY_HOST || r->graph->vertices[v].host == host);
}

/* Finding i as a cluster of its members on host (ANY_HOST: all of them;
 * with several hosts, a finding that spans two is one cluster in each,
 * both with its title and colour). */
static void write_cluster(FILE *out, const struct wperf_report *r,
			  const struct wperf_fmt_knot_map *m, const struct drawing *d, size_t i,
			  uint32_t host)
{
	const struct wperf_knot *k = &r->knots->items[i];
	const char *indent = host == ANY_HOST ? "  " : "    ";
	char title[64], w[32], own[32], cascaded[32], label[256];

	/* Weight = own + cascaded (doc/wperf-report.7.md, "Weights"): no
	 * share of the analysed time, which a sum of edges can exceed. */
	wperf_fmt_knot_title(title, sizeof title, r->knots, i);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, k->own_ns > 0 ? k->own_ns : 0, 0);
	wperf_fmt_duration(cascaded, sizeof cascaded,
			   wperf_fmt_cascaded(k->weight_ns, k->own_ns), 0);
	if (d->first_only)
		snprintf(label, sizeof label, "%s: %s", title, w);
	else
		snprintf(label, sizeof label, "%s: %s = own %s + cascaded %s", title, w, own,
			 cascaded);
	if (host == ANY_HOST)
		fprintf(out, "  subgraph cluster_%zu {\n    label=", i);
	else
		fprintf(out, "    subgraph cluster_%zu_host%lu {\n      label=", i,
			(unsigned long)host);
	dot_string(out, label);
	/* Bottom to top (the first picture), dot puts a cluster's "b" label
	 * on its top. */
	fprintf(out, ";\n%s  style=\"rounded,filled\"; color=\"%s\"; fillcolor=\"%s\";%s\n",
		indent, knot_color(k->kind), knot_fill(k->kind),
		d->first_only ? " labelloc=b;" : "");
	for (size_t j = 0; j < k->n_members; j++)
		if (in_cluster(r, m, i, k->members[j], host))
			write_vertex(out, r, m, d, k->members[j], host == ANY_HOST ? "    " : "      ");
	fprintf(out, "%s}\n", indent);
}

/* Several hosts: one cluster per host that has a vertex drawn, labelled
 * with its name, holding its part of each finding (a cluster of the
 * finding inside) and its other vertices, so that the picture shows
 * where each vertex lives. Findings in reverse as below. */
static void write_host_clusters(FILE *out, const struct wperf_report *r,
				const struct wperf_fmt_knot_map *m, const struct drawing *d)
{
	const struct wperf_graph *g = r->graph;
	char label[160];

	for (uint32_t h = 0; h < g->n_hosts; h++) {
		bool any = false;

		for (size_t v = 0; v < g->n_vertices && !any; v++)
			any = d->vertex[v] && g->vertices[v].host == h;
		if (!any)
			continue;
		/* The trace's metadata names the host: cleaned as vertex labels are
		 * (a control character is no XML in the SVG graphviz makes). */
		memcpy(label, "host ", 5);
		wperf_text_clean(label + 5, sizeof label - 5, g->hosts[h] ? g->hosts[h] : "?");
		fprintf(out, "  subgraph cluster_host%lu {\n    label=", (unsigned long)h);
		dot_string(out, label);
		fputs(";\n    style=\"dashed\"; color=\"" COLOR_EDGE "\"; class=\"host\";\n", out);
		for (size_t i = d->clusters; i-- > 0;) {
			const struct wperf_knot *k = &r->knots->items[i];
			bool here = false;

			for (size_t j = 0; j < k->n_members && !here; j++)
				here = in_cluster(r, m, i, k->members[j], h);
			if (here)
				write_cluster(out, r, m, d, i, h);
		}
		for (size_t v = 0; v < g->n_vertices; v++)
			if (d->vertex[v] && m->vertex_knot[v] < 0 && g->vertices[v].host == h)
				write_vertex(out, r, m, d, (uint32_t)v, "    ");
		fputs("  }\n", out);
	}
}

/*
 * What an edge is to the picture, heaviest stroke first: the first
 * finding's own edges (a knot's internal edges; the waits into a sink,
 * which is what a sink is), the other drawn findings' own edges, the
 * waits into a finding from outside it, and the rest (a finding's own
 * waits out of it, cut by refinement or too light to keep it waiting).
 * format=dot has no ranks: widths by weight alone, as in the paper.
 */
enum stroke { STROKE_WEIGHT, STROKE_REST, STROKE_INTO, STROKE_FINDING, STROKE_FIRST };

static const char *const stroke_class[] = { "weight", "rest", "into", "finding", "first" };

/* penwidth in tenths, [lo, hi] by weight within each rank: no edge of a
 * rank is drawn thinner than one of a lower rank. */
static const int stroke_tenths[][2] = { { 10, 50 }, { 8, 10 }, { 15, 30 }, { 35, 50 },
					{ 60, 80 } };

static enum stroke edge_stroke(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			       const struct drawing *d, size_t i)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	long to = m->vertex_knot[e->to], from = m->vertex_knot[e->from];
	long own = m->edge_knot[i];

	if (!d->summarised)
		return STROKE_WEIGHT;
	if (own < 0 && to >= 0 && to != from && m->edge_cut[i] < 0 &&
	    r->knots->items[to].kind == WPERF_SINK)
		own = to;               /* a wait on a sink: the sink's own edge */
	if (own == 0)
		return STROKE_FIRST;
	if (own > 0)
		return STROKE_FINDING;
	return to >= 0 && to != from && m->edge_cut[i] < 0 ? STROKE_INTO : STROKE_REST;
}

/* penwidth in its rank's range, in tenths so that no locale turns "2.5"
 * into "2,5". */
static void write_penwidth(FILE *out, enum stroke rank, int64_t weight, int64_t max_weight)
{
	long long lo = stroke_tenths[rank][0], hi = stroke_tenths[rank][1], tenths = lo;

	if (max_weight > 0 && weight > 0)
		tenths += (long long)((long double)weight * (long double)(hi - lo) /
				      (long double)max_weight + 0.5L);
	if (tenths > hi)
		tenths = hi;
	fprintf(out, ", penwidth=%lld.%lld", tenths / 10, tenths % 10);
}

/* Colour and line style: in the picture a finding's own edges are solid
 * in its colour whatever their weight, the rest grey or blue (cut); in
 * format=dot, dashed below the threshold, as in the paper's figures. */
static void write_edge_style(FILE *out, const struct wperf_report *r,
			     const struct wperf_fmt_knot_map *m, size_t i, enum stroke rank)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	bool light = r->threshold_ns > 0 && e->weight_ns < r->threshold_ns;
	const char *color = COLOR_EDGE;
	long own = m->edge_knot[i];

	if (rank == STROKE_FIRST || rank == STROKE_FINDING) {
		own = own >= 0 ? own : m->vertex_knot[e->to];
		color = knot_color(r->knots->items[own].kind);
		light = false;
	} else if (own >= 0) {
		color = knot_color(r->knots->items[own].kind);
	} else if (m->edge_cut[i] >= 0) {
		color = rank == STROKE_REST ? COLOR_LIGHT_CUT : COLOR_CUT;
		light |= rank == STROKE_REST;
	} else if (rank == STROKE_REST) {
		color = COLOR_LIGHT;
	}
	fprintf(out, ", style=%s, color=\"%s\", fontcolor=\"%s\"", light ? "dashed" : "solid",
		color, color);
	if (rank != STROKE_WEIGHT)
		fprintf(out, ", class=\"%s\"", stroke_class[rank]);
	/* Right to left, a finding's waits out of it would pull what they
	 * wait on to its left: they do not place anything. */
	if (rank == STROKE_REST && m->vertex_knot[e->from] >= 0 &&
	    m->vertex_knot[e->to] != m->vertex_knot[e->from])
		fputs(", constraint=false", out);
}

static void write_edge(FILE *out, const struct wperf_report *r,
		       const struct wperf_fmt_knot_map *m, const struct drawing *d, size_t i,
		       int64_t max_weight)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	char w[32], own[32], split[160], label[160], tip[800], from[256], to[256], title[64];
	enum stroke rank = edge_stroke(r, m, d, i);

	/* The weight, and the waiter's own waiting in it (the rest cascaded);
	 * the tooltip has the split in full. */
	wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, e->direct_ns > 0 ? e->direct_ns : 0, 0);
	wperf_fmt_weight_split(split, sizeof split, e->weight_ns, e->direct_ns,
			       wperf_vertex_time(r->graph, e->from), "the waiter's");
	snprintf(label, sizeof label, d->first_only ? "%s" : "%s\nown %s", w, own);
	if (m->edge_knot[i] < 0 && m->edge_cut[i] >= 0 && !d->first_only) {
		wperf_fmt_knot_title(title, sizeof title, r->knots, (size_t)m->edge_cut[i]);
		snprintf(label, sizeof label, "%s\nown %s\ncut %ld (%s)", w, own,
			 m->edge_cut_rank[i], title);
	}
	wperf_fmt_vertex_label(from, sizeof from, r->graph, e->from);
	wperf_fmt_vertex_label(to, sizeof to, r->graph, e->to);
	snprintf(tip, sizeof tip, "%s -> %s: %s = %s, %llu wait%s", from, to, w, split,
		 (unsigned long long)e->count, e->count == 1 ? "" : "s");
	fprintf(out, "  v%lu -> v%lu [label=", (unsigned long)e->from, (unsigned long)e->to);
	dot_string(out, label);
	write_edge_style(out, r, m, i, rank);
	write_penwidth(out, rank, e->weight_ns, max_weight);
	fputs(", tooltip=", out);
	dot_string(out, tip);
	fputs("];\n", out);
}

/* The picture's caption: what it draws, and how its lines rank. Short
 * lines: the caption must not make the picture wider than a screen. */
static void picture_caption(char *buf, size_t len, const struct wperf_report *r,
			    size_t n_drawn, size_t e_drawn)
{
	const struct wperf_graph *g = r->graph;
	char dur[32], thr[32];
	size_t knots = wperf_fmt_count_kind(r->knots, WPERF_KNOT);
	size_t sinks = wperf_fmt_count_kind(r->knots, WPERF_SINK);

	wperf_fmt_duration(dur, sizeof dur, wperf_graph_duration(g), 0);
	wperf_fmt_duration(thr, sizeof thr, r->threshold_ns, 0);
	snprintf(buf, len,
		 "wperf wait-for graph: %zu knot%s, %zu sink%s, %s analysed%s\v"
		 "%zu of %zu vertices and %zu of %zu edges drawn: "
		 "the first findings and what touches them\v"
		 "Thickest: the first finding's own waits; then the other findings' "
		 "(in their colour);\v"
		 "grey: waits on a finding; light: the rest (dashed: below the threshold %s)\v"
		 "edge label: weight, and the waiter's own waiting in it (the rest cascaded)\v",
		 knots, knots == 1 ? "" : "s", sinks, sinks == 1 ? "" : "s", dur,
		 r->focus ? ", focused" : "", n_drawn, g->n_vertices, e_drawn, g->n_edges, thr);
}

/* What the picture is, what its line styles mean, and what it leaves out. */
static void write_caption(FILE *out, const struct wperf_report *r, const struct drawing *d,
			  size_t n_drawn, size_t e_drawn)
{
	const struct wperf_graph *g = r->graph;
	char caption[1024], dur[32], thr[32], floor[32];
	size_t knots = wperf_fmt_count_kind(r->knots, WPERF_KNOT);
	size_t sinks = wperf_fmt_count_kind(r->knots, WPERF_SINK);

	wperf_fmt_duration(dur, sizeof dur, wperf_graph_duration(g), 0);
	wperf_fmt_duration(thr, sizeof thr, r->threshold_ns, 0);
	wperf_fmt_duration(floor, sizeof floor, r->min_weight_ns, 0);
	if (d->summarised)
		picture_caption(caption, sizeof caption, r, n_drawn, e_drawn);
	else
		snprintf(caption, sizeof caption,
			 "wperf wait-for graph: %zu knot%s, %zu sink%s, %s analysed\n"
			 "solid: at least the threshold %s; dashed: lighter; width by weight\n"
			 "weight = own + cascaded: own is the waiter's own waiting, cascaded the "
			 "waiting of others it held up\n"
			 "%zu of %zu vertices and %zu of %zu edges drawn: dependencies only\n"
			 "(dependencies: at least %s, not to timer or unknown)%s",
			 knots, knots == 1 ? "" : "s", sinks, sinks == 1 ? "" : "s", dur, thr,
			 n_drawn, g->n_vertices, e_drawn, g->n_edges,
			 floor, r->focus ? ", reachable from the focus" : "");
	if (e_drawn == 0)
		snprintf(caption + strlen(caption), sizeof caption - strlen(caption),
			 "%sno dependency to draw: every wait ended on a timer, on an "
			 "unseen cause, or weighs less than the noise floor%s",
			 d->summarised ? "" : "\n", d->summarised ? "\v" : "");
	fputs("  graph [label=", out);
	dot_string(out, caption);
	fprintf(out, ", labelloc=t%s, fontsize=12];\n", d->summarised ? ", labeljust=l" : "");
}

/*
 * The findings after the first PICTURE_FINDINGS, folded into one box that
 * counts them and names the first PICTURE_FOLDED_NAMED (title, first
 * member, weight): a grid of their members, unconnected, would fill the
 * first screen with what matters least. false: none.
 */
static bool write_folded_findings(FILE *out, const struct wperf_report *r,
				  const struct drawing *d)
{
	size_t n = r->knots ? r->knots->n : 0, members = 0;
	char label[2048], line[512], title[64], name[320], w[32], tip[256];
	size_t knots = 0, sinks = 0, len;

	if (d->clusters >= n)
		return false;
	for (size_t i = d->clusters; i < n; i++) {
		sinks += r->knots->items[i].kind == WPERF_SINK;
		knots += r->knots->items[i].kind != WPERF_SINK;
		members += r->knots->items[i].n_members;
	}
	len = (size_t)snprintf(label, sizeof label, "+ %zu more finding%s, not drawn "
			       "(%zu knot%s, %zu sink%s):\v", n - d->clusters,
			       n - d->clusters == 1 ? "" : "s", knots, knots == 1 ? "" : "s",
			       sinks, sinks == 1 ? "" : "s");
	for (size_t i = d->clusters; i < n && i < d->clusters + PICTURE_FOLDED_NAMED; i++) {
		wperf_fmt_knot_title(title, sizeof title, r->knots, i);
		wperf_fmt_finding_name(name, sizeof name, r->graph, &r->knots->items[i]);
		wperf_fmt_duration(w, sizeof w, r->knots->items[i].weight_ns, 0);
		snprintf(line, sizeof line, "%s: %s, %s\v", title, name, w);
		if (len < sizeof label)
			len += (size_t)snprintf(label + len, sizeof label - len, "%s", line);
	}
	if (n - d->clusters > PICTURE_FOLDED_NAMED && len < sizeof label)
		snprintf(label + len, sizeof label - len, "and %zu more: the text or HTML report "
			 "lists them all\v", n - d->clusters - PICTURE_FOLDED_NAMED);
	snprintf(tip, sizeof tip, "findings: drawn=%zu folded=%zu members=%zu", d->clusters,
		 n - d->clusters, members);
	fprintf(out, "  more_findings [shape=box, style=rounded, fontsize=10, class=\"folded\", "
		"color=\"%s\", label=", COLOR_BACKGROUND);
	dot_string(out, label);
	fputs(", tooltip=", out);
	dot_string(out, tip);
	fputs("];\n", out);
	return true;
}

/* Counts of what a summarised picture shows and leaves out: every
 * vertex and every edge is drawn, folded or left out. */
struct left_out {
	size_t drawn;                   /* vertices */
	size_t folded;                  /* members of the folded findings */
	size_t threads, others;         /* left out: threads and merged; the rest */
	size_t focus_threads;           /* of those threads, the focus's */
	size_t drawn_edges, edges;      /* edges drawn, left out */
	size_t dependencies;            /* of those left out, what knot finding uses */
	int64_t drawn_ns, waiting_ns;   /* direct_ns (own waiting) drawn, left out */
};

static void count_left_out(const struct wperf_report *r, const struct wperf_fmt_knot_map *m,
			   const struct drawing *d, struct left_out *lo)
{
	const struct wperf_graph *g = r->graph;

	memset(lo, 0, sizeof *lo);
	for (size_t v = 0; v < g->n_vertices; v++) {
		enum wperf_vertex_kind kind = g->vertices[v].kind;
		bool thread = kind == WPERF_V_THREAD || kind == WPERF_V_VIRTUAL;

		if (d->vertex[v])
			lo->drawn++;
		else if (m->vertex_knot[v] >= 0)
			lo->folded++;
		else if (thread)
			lo->threads++;
		else
			lo->others++;
		lo->focus_threads += !d->vertex[v] && m->vertex_knot[v] < 0 && thread &&
				     r->focus && r->focus[v];
	}
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (d->edge[i]) {
			lo->drawn_edges++;
			lo->drawn_ns = wperf_add_durations(lo->drawn_ns, e->direct_ns);
			continue;
		}
		lo->edges++;
		lo->dependencies += e->from < g->n_vertices && e->to < g->n_vertices &&
				    wperf_edge_is_dependency(g, e, r->min_weight_ns);
		lo->waiting_ns = wperf_add_durations(lo->waiting_ns, e->direct_ns);
	}
}

/* The first picture's note: the folded findings and the threads in any
 * finding, counted in two short lines. */
static void first_note(char *buf, size_t len, const struct wperf_report *r,
		       const struct drawing *d, const struct left_out *lo)
{
	size_t n = r->knots ? r->knots->n : 0;
	int w = 0;

	if (n > d->clusters)
		w = snprintf(buf, len, "+ %zu more finding%s (below)\v", n - d->clusters,
			     n - d->clusters == 1 ? "" : "s");
	snprintf(buf + w, len - (size_t)w, "+ %zu thread%s not in any finding\v", lo->threads,
		 lo->threads == 1 ? "" : "s");
}

/*
 * The picture's counted group of what it does not draw (doc/wperf-report.7.md,
 * PICTURES): "+ 296 threads not in any finding", the other vertices and
 * edges, and the waiters' own waiting on those edges, with one line saying
 * where to see them. Its tooltip has every count, and the waiting in ns,
 * exactly.
 */
static bool write_summary(FILE *out, const struct wperf_report *r,
			  const struct wperf_fmt_knot_map *m, const struct drawing *d)
{
	struct left_out lo;
	char label[768], tip[512], wait[32], focus[64] = "";

	count_left_out(r, m, d, &lo);
	if (lo.threads + lo.others + lo.edges + lo.folded == 0)
		return false;
	wperf_fmt_duration(wait, sizeof wait, lo.waiting_ns, 0);
	if (r->focus)
		snprintf(focus, sizeof focus, " (%zu of them the focus's)", lo.focus_threads);
	if (d->first_only)
		first_note(label, sizeof label, r, d, &lo);
	else
		snprintf(label, sizeof label,
		 "+ %zu thread%s not in any finding%s\v"
		 "+ %zu other verti%s, %zu other edge%s (%zu of them dependencies),\v"
		 "   %s of waiting on them (the waiters' own): not drawn\v"
		 "Everything: format=dot or graphml; one program: pids=PID or comms=NAME\v",
		 lo.threads, lo.threads == 1 ? "" : "s", focus, lo.others,
		 lo.others == 1 ? "ex" : "ces", lo.edges, lo.edges == 1 ? "" : "s",
		 lo.dependencies, wait);
	snprintf(tip, sizeof tip,
		 "vertices: drawn=%zu folded=%zu threads=%zu others=%zu; edges: drawn=%zu "
		 "left_out=%zu dependencies=%zu; direct_ns: drawn=%lld left_out=%lld",
		 lo.drawn, lo.folded, lo.threads, lo.others, lo.drawn_edges, lo.edges,
		 lo.dependencies, (long long)lo.drawn_ns, (long long)lo.waiting_ns);
	fputs("  left_out [shape=note, fontsize=10, class=\"left-out\", color=\""
	      COLOR_BACKGROUND "\", label=", out);
	dot_string(out, label);
	fputs(", tooltip=", out);
	dot_string(out, tip);
	fputs("];\n", out);
	return true;
}

/* The picture's folded findings and its note on what is left out. */
static void write_left_out(FILE *out, const struct wperf_report *r,
			   const struct wperf_fmt_knot_map *m, const struct drawing *d)
{
	if (!d->first_only)
		write_folded_findings(out, r, d);
	write_summary(out, r, m, d);
}

static void write_body(FILE *out, const struct wperf_report *r,
		       const struct wperf_fmt_knot_map *m, const struct drawing *d)
{
	const struct wperf_graph *g = r->graph;
	size_t n_drawn = 0, e_drawn = 0;
	int64_t max_weight = 0;

	for (size_t v = 0; v < g->n_vertices; v++)
		n_drawn += d->vertex[v];
	for (size_t i = 0; i < g->n_edges; i++)
		if (d->edge[i]) {
			e_drawn++;
			if (g->edges[i].weight_ns > max_weight)
				max_weight = g->edges[i].weight_ns;
		}
	/* The picture right to left: the findings, which only wait on each
	 * other, in the first column, the first at the top left, where a
	 * screen of any width shows it. The first picture bottom to top: the
	 * finding above, what touches it in a row below, narrow enough for a
	 * phone to show its labels legibly. */
	fprintf(out, "digraph wperf {\n"
	      "  graph [rankdir=%s, fontname=\"Helvetica,Arial,sans-serif\"%s];\n"
	      "  node [fontname=\"Helvetica,Arial,sans-serif\", fontsize=11];\n"
	      "  edge [fontname=\"Helvetica,Arial,sans-serif\", fontsize=9];\n",
	      d->first_only ? "BT" : d->summarised ? "RL" : "LR",
	      d->first_only ? ", nodesep=0.15, ranksep=0.4, pad=0.05" : "");
	if (!d->first_only)
		write_caption(out, r, d, n_drawn, e_drawn);
	/* dot stacks the parts of a picture that no edge joins with the last
	 * written on top: the summary first, then the findings in reverse, so
	 * that the first finding is at the top and the summary at the bottom. */
	if (d->summarised)
		write_left_out(out, r, m, d);
	if (g->n_hosts > 1) {
		write_host_clusters(out, r, m, d);
	} else {
		for (size_t i = d->clusters; i-- > 0;)
			write_cluster(out, r, m, d, i, ANY_HOST);
		for (size_t v = 0; v < g->n_vertices; v++)
			if (d->vertex[v] && m->vertex_knot[v] < 0)
				write_vertex(out, r, m, d, (uint32_t)v, "  ");
	}
	for (size_t i = 0; i < g->n_edges; i++)
		if (d->edge[i])
			write_edge(out, r, m, d, i, max_weight);
	fputs("}\n", out);
}

/* The DOT text: picture, for `dot -Tsvg` (summarised when unfocused), or
 * not (format=dot: every dependency). */
static int write_dot(const struct wperf_report *r, FILE *out, enum wperf_fmt_picture mode)
{
	struct wperf_fmt_knot_map m;
	struct drawing d;

	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	if (wperf_fmt_knot_map_init(&m, r->graph, r->knots) < 0)
		return -1;
	if (drawing_init(r, &m, mode, &d) < 0) {
		wperf_fmt_knot_map_fini(&m);
		errno = ENOMEM;
		return -1;
	}
	errno = 0;
	write_body(out, r, &m, &d);
	drawing_fini(&d);
	wperf_fmt_knot_map_fini(&m);
	return wperf_fmt_finish(out, false);
}

int wperf_report_write_dot(const struct wperf_report *r, FILE *out)
{
	return write_dot(r, out, WPERF_PICTURE_DATA);
}

int wperf_fmt_write_dot_picture(const struct wperf_report *r, FILE *out,
				enum wperf_fmt_picture mode)
{
	return write_dot(r, out, mode);
}
