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

/* A DOT quoted string. Labels are already free of control characters and
 * bad UTF-8 (wperf_fmt_vertex_label), so a newline can only be one of our
 * line breaks; a backslash is doubled so that dot does not read "\n" or
 * "\N" in a thread name as an escape. */
static void dot_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '\n') {
			fputs("\\n", out);    /* our own line breaks */
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
/* Which vertices the picture shows (see the top of this file). */
static bool *drawn_vertices(const struct wperf_report *r, const struct wperf_fmt_knot_map *m)
{
	const struct wperf_graph *g = r->graph;
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool oom;
	bool *drawn = r->focus ? wperf_fmt_focus_reach(r, &oom) : calloc(n, sizeof *drawn);

	if (!drawn)
		return NULL;
	for (size_t v = 0; v < g->n_vertices; v++)
		drawn[v] |= m->vertex_knot[v] >= 0;
	for (size_t i = 0; !r->focus && i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		if (e->from < g->n_vertices && e->to < g->n_vertices &&
		    wperf_edge_is_dependency(g, e, r->min_weight_ns))
			drawn[e->from] = drawn[e->to] = true;
	}
	return drawn;
}

static bool edge_drawn(const struct wperf_report *r, const bool *drawn, size_t i)
{
	const struct wperf_edge *e = &r->graph->edges[i];

	return e->from < r->graph->n_vertices && e->to < r->graph->n_vertices &&
	       drawn[e->from] && drawn[e->to] &&
	       wperf_edge_is_dependency(r->graph, e, r->min_weight_ns);
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

static void write_vertex(FILE *out, const struct wperf_report *r,
			 const struct wperf_fmt_knot_map *m, uint32_t id, const char *indent)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_vertex *v = &g->vertices[id];
	char label[256];

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

static void write_cluster(FILE *out, const struct wperf_report *r,
			  const struct wperf_fmt_knot_map *m, size_t i)
{
	const struct wperf_knot *k = &r->knots->items[i];
	char title[64], w[32], own[32], cascaded[32], label[256];

	/* Weight = own + cascaded (doc/wperf-report.7.md, "Weights"): no
	 * share of the analysed time, which a sum of edges can exceed. */
	wperf_fmt_knot_title(title, sizeof title, r->knots, i);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, k->own_ns > 0 ? k->own_ns : 0, 0);
	wperf_fmt_duration(cascaded, sizeof cascaded,
			   wperf_fmt_cascaded(k->weight_ns, k->own_ns), 0);
	snprintf(label, sizeof label, "%s: %s = own %s + cascaded %s", title, w, own, cascaded);
	fprintf(out, "  subgraph cluster_%zu {\n    label=", i);
	dot_string(out, label);
	fprintf(out, ";\n    style=\"rounded,filled\"; color=\"%s\"; fillcolor=\"%s\";\n",
		knot_color(k->kind), knot_fill(k->kind));
	for (size_t j = 0; j < k->n_members; j++)
		if (k->members[j] < r->graph->n_vertices && m->vertex_knot[k->members[j]] == (long)i)
			write_vertex(out, r, m, k->members[j], "    ");
	fputs("  }\n", out);
}

/* penwidth from 1.0 (lightest) to 5.0 (the heaviest edge drawn), in tenths
 * so that no locale turns "2.5" into "2,5". */
static void write_penwidth(FILE *out, int64_t weight, int64_t max_weight)
{
	long long tenths = 10;

	if (max_weight > 0 && weight > 0)
		tenths += (long long)((long double)weight * 40.0L / (long double)max_weight + 0.5L);
	fprintf(out, ", penwidth=%lld.%lld", tenths / 10, tenths % 10);
}

static void write_edge(FILE *out, const struct wperf_report *r,
		       const struct wperf_fmt_knot_map *m, size_t i, int64_t max_weight)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	char w[32], own[32], split[160], label[160], tip[800], from[256], to[256], title[64];
	const char *color = COLOR_EDGE;

	/* The weight, and the waiter's own waiting in it (the rest cascaded);
	 * the tooltip has the split in full. */
	wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, e->direct_ns > 0 ? e->direct_ns : 0, 0);
	wperf_fmt_weight_split(split, sizeof split, e->weight_ns, e->direct_ns,
			       wperf_vertex_time(r->graph, e->from), "the waiter's");
	snprintf(label, sizeof label, "%s\nown %s", w, own);
	if (m->edge_knot[i] >= 0) {
		color = knot_color(r->knots->items[m->edge_knot[i]].kind);
	} else if (m->edge_cut[i] >= 0) {
		color = COLOR_CUT;
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
	fprintf(out, ", style=%s, color=\"%s\", fontcolor=\"%s\"",
		r->threshold_ns <= 0 || e->weight_ns >= r->threshold_ns ? "solid" : "dashed",
		color, color);
	write_penwidth(out, e->weight_ns, max_weight);
	fputs(", tooltip=", out);
	dot_string(out, tip);
	fputs("];\n", out);
}

/* What the picture is, what its line styles mean, and what it leaves out. */
static void write_caption(FILE *out, const struct wperf_report *r, size_t n_drawn,
			  size_t e_drawn)
{
	const struct wperf_graph *g = r->graph;
	char caption[1024], dur[32], thr[32], floor[32];
	size_t knots = wperf_fmt_count_kind(r->knots, WPERF_KNOT);
	size_t sinks = wperf_fmt_count_kind(r->knots, WPERF_SINK);

	wperf_fmt_duration(dur, sizeof dur, wperf_graph_duration(g), 0);
	wperf_fmt_duration(thr, sizeof thr, r->threshold_ns, 0);
	wperf_fmt_duration(floor, sizeof floor, r->min_weight_ns, 0);
	snprintf(caption, sizeof caption,
		 "wperf wait-for graph: %zu knot%s, %zu sink%s, %s analysed\n"
		 "solid: at least the threshold %s; dashed: lighter; width by weight\n"
		 "weight = own + cascaded: own is the waiter's own waiting, cascaded the "
		 "waiting of others it held up\n"
		 "%zu of %zu vertices and %zu of %zu edges drawn: dependencies only "
		 "(at least %s, not to timer or unknown)%s",
		 knots, knots == 1 ? "" : "s", sinks, sinks == 1 ? "" : "s", dur, thr,
		 n_drawn, g->n_vertices, e_drawn, g->n_edges, floor,
		 r->focus ? ", reachable from the focus" : "");
	if (e_drawn == 0)
		snprintf(caption + strlen(caption), sizeof caption - strlen(caption),
			 "\nno dependency to draw: every wait ended on a timer, on an "
			 "unseen cause, or weighs less than the noise floor");
	fputs("  graph [label=", out);
	dot_string(out, caption);
	fputs(", labelloc=t, fontsize=12];\n", out);
}

static void write_body(FILE *out, const struct wperf_report *r,
		       const struct wperf_fmt_knot_map *m, const bool *drawn)
{
	const struct wperf_graph *g = r->graph;
	size_t n_drawn = 0, e_drawn = 0;
	int64_t max_weight = 0;

	for (size_t v = 0; v < g->n_vertices; v++)
		n_drawn += drawn[v];
	for (size_t i = 0; i < g->n_edges; i++)
		if (edge_drawn(r, drawn, i)) {
			e_drawn++;
			if (g->edges[i].weight_ns > max_weight)
				max_weight = g->edges[i].weight_ns;
		}
	fputs("digraph wperf {\n"
	      "  graph [rankdir=LR, fontname=\"Helvetica,Arial,sans-serif\"];\n"
	      "  node [fontname=\"Helvetica,Arial,sans-serif\", fontsize=11];\n"
	      "  edge [fontname=\"Helvetica,Arial,sans-serif\", fontsize=9];\n", out);
	write_caption(out, r, n_drawn, e_drawn);
	for (size_t i = 0; r->knots && i < r->knots->n; i++)
		write_cluster(out, r, m, i);
	for (size_t v = 0; v < g->n_vertices; v++)
		if (drawn[v] && m->vertex_knot[v] < 0)
			write_vertex(out, r, m, (uint32_t)v, "  ");
	for (size_t i = 0; i < g->n_edges; i++)
		if (edge_drawn(r, drawn, i))
			write_edge(out, r, m, i, max_weight);
	fputs("}\n", out);
}

int wperf_report_write_dot(const struct wperf_report *r, FILE *out)
{
	struct wperf_fmt_knot_map m;
	bool *drawn;

	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	if (wperf_fmt_knot_map_init(&m, r->graph, r->knots) < 0)
		return -1;
	drawn = drawn_vertices(r, &m);
	if (!drawn) {
		wperf_fmt_knot_map_fini(&m);
		errno = ENOMEM;
		return -1;
	}
	errno = 0;
	write_body(out, r, &m, drawn);
	free(drawn);
	wperf_fmt_knot_map_fini(&m);
	return wperf_fmt_finish(out, false);
}
