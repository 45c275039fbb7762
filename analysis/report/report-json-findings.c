/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-json-findings.c — the findings of the JSON
 * report (report-json.c writes the rest): the CPU finding, every knot,
 * sink and background knot with its weights, edges, what refinement cut
 * and its classification's evidence, and the heavy groups that are not
 * knots. doc/wperf-report.7.md describes the members, and
 * doc/wperf-report.schema.json checks them.
 */
#include "gaps.h"
#include "report-format.h"
#include "report-json.h"
#include "wperf/classify.h"
#include "wperf/report.h"

/* "own_ns", "cascaded_ns", "waiters_ns" and "own_share" of a finding or
 * group (doc/wperf-report.7.md, "Weights"), each after a comma. */
static void write_weight_split(FILE *out, int64_t weight, int64_t own, int64_t waiters)
{
	char share[32];

	json_key(out, "own_ns", 0);
	json_i64(out, own);
	json_key(out, "cascaded_ns", 0);
	json_i64(out, wperf_fmt_cascaded(weight, own));
	json_key(out, "waiters_ns", 0);
	json_i64(out, waiters);
	wperf_fmt_ppm_fraction(share, sizeof share, wperf_ppm(own, waiters));
	json_key(out, "own_share", 0);
	fputs(share, out);
}

/* An edge of the graph by index, as {"from","to","weight_ns",...}; an
 * index out of range (a corrupt knot list) is written as nothing useful
 * but still valid: it cannot happen with wperf_knots_find's output. */
static const struct wperf_edge *edge_at(const struct wperf_graph *g, size_t i)
{
	static const struct wperf_edge none;
	return i < g->n_edges ? &g->edges[i] : &none;
}

/* [{"from","to","weight_ns","count"}, ...] for edge indexes. */
static void write_edge_list(const struct wperf_graph *g, const size_t *edges, size_t n,
			    FILE *out)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_edge *e = edge_at(g, edges[i]);
		fputs(i ? ", {" : "{", out);
		json_key(out, "from", 1);
		json_u64(out, e->from);
		json_key(out, "to", 0);
		json_u64(out, e->to);
		json_key(out, "weight_ns", 0);
		json_i64(out, e->weight_ns);
		json_key(out, "count", 0);
		json_u64(out, e->count);
		fputc('}', out);
	}
	fputc(']', out);
}

static void write_removed(const struct wperf_graph *g,
			  const struct wperf_knot *k, FILE *out)
{
	fputc('[', out);
	for (size_t i = 0; i < k->n_removed; i++) {
		const struct wperf_edge *e = edge_at(g, k->removed[i].edge);
		fputs(i ? ", {" : "{", out);
		json_key(out, "from", 1);
		json_u64(out, e->from);
		json_key(out, "to", 0);
		json_u64(out, e->to);
		json_key(out, "weight_ns", 0);
		json_i64(out, k->removed[i].weight_ns);
		fputc('}', out);
	}
	fputc(']', out);
}

/* Why a background knot is one (wperf-method(7) §7): its threads' summed
 * CPU demand, below one CPU's worth of the time they existed. */
static void write_cpu_share(const struct wperf_report *r, const struct wperf_knot *k,
			    FILE *out)
{
	char share[32];

	(void)r;
	wperf_fmt_ppm_fraction(share, sizeof share, wperf_ppm(k->cpu_ns, k->span_ns));
	json_key(out, "cpu_ns", 0);
	json_i64(out, k->cpu_ns);
	json_key(out, "span_ns", 0);
	json_i64(out, k->span_ns);
	json_key(out, "cpu_share", 0);
	fputs(share, out);
}

static void write_evidence(const struct wperf_graph *g, const struct wperf_evidence *ev,
			   FILE *out)
{
	char text[1024];

	fputc('{', out);
	json_key(out, "kind", 1);
	json_string(out, wperf_evidence_kind_name(ev->kind));
	if (ev->vertex < g->n_vertices) {
		json_key(out, "vertex", 0);
		json_u64(out, ev->vertex);
	}
	if (ev->vertex2 < g->n_vertices) {
		json_key(out, "vertex2", 0);
		json_u64(out, ev->vertex2);
	}
	json_key(out, "a_ns", 0);
	json_i64(out, ev->a_ns);
	json_key(out, "b_ns", 0);
	json_i64(out, ev->b_ns);
	if (ev->woken_ns > 0) {
		json_key(out, "woken_ns", 0);
		json_i64(out, ev->woken_ns);
	}
	if (ev->through_ns > 0) {
		json_key(out, "through_ns", 0);
		json_i64(out, ev->through_ns);
	}
	if (ev->on_runnable_ns > 0) {
		json_key(out, "on_runnable_ns", 0);
		json_i64(out, ev->on_runnable_ns);
	}
	if (ev->served_ns > 0) {
		json_key(out, "served_ns", 0);
		json_i64(out, ev->served_ns);
	}
	if (ev->runnable_ns > 0) {
		json_key(out, "runnable_ns", 0);
		json_i64(out, ev->runnable_ns);
	}
	if (ev->latency_ns > 0) {
		json_key(out, "latency_ns", 0);
		json_i64(out, ev->latency_ns);
	}
	json_key(out, "count", 0);
	json_u64(out, ev->count);
	json_key(out, "total", 0);
	json_u64(out, ev->total);
	json_key(out, "turns", 0);
	json_u64(out, ev->turns);
	wperf_fmt_ppm_fraction(text, sizeof text, ev->ppm);
	json_key(out, "share", 0);
	fputs(text, out);
	if (ev->pid >= 0) {
		json_key(out, "pid", 0);
		json_i64(out, ev->pid);
	}
	json_key(out, "decides", 0);
	fputs(ev->decides ? "true" : "false", out);
	wperf_evidence_describe(text, sizeof text, g, ev);
	json_key(out, "text", 0);
	json_string(out, text);
	fputc('}', out);
}

/* wperf-method(7) §10: the kind of problem, in words and with its evidence. */
static void write_classification(const struct wperf_report *r, const struct wperf_knot *k,
				 FILE *out)
{
	const struct wperf_classification *c = wperf_report_class_of(r, k);

	if (!c)
		return;
	json_key(out, "classification", 0);
	fputc('{', out);
	json_key(out, "class", 1);
	json_string(out, wperf_knot_class_name(c->cls));
	json_key(out, "summary", 0);
	json_string(out, wperf_classification_summary(c));
	json_key(out, "evidence", 0);
	fputc('[', out);
	for (size_t i = 0; i < c->n_evidence; i++) {
		fputs(i ? ", " : "", out);
		write_evidence(r->graph, &c->evidence[i], out);
	}
	fputs("]}", out);
}

static void write_knot(const struct wperf_report *r, const struct wperf_knot *k,
		       size_t rank, FILE *out)
{
	fputc('{', out);
	json_key(out, "rank", 1);
	json_u64(out, rank);
	json_key(out, "kind", 0);
	json_string(out, wperf_knot_kind_name(k->kind));
	json_key(out, "members", 0);
	json_id_array(out, k->members, k->n_members);
	json_key(out, "weight_ns", 0);
	json_i64(out, k->weight_ns);
	write_weight_split(out, k->weight_ns, k->own_ns, k->waiters_ns);
	if (r->focus) {
		json_key(out, "focus_ns", 0);
		json_i64(out, k->focus_ns);
	}
	json_key(out, "edges", 0);
	write_edge_list(r->graph, k->edges, k->n_edges, out);
	json_key(out, "component", 0);
	json_id_array(out, k->component, k->n_component);
	json_key(out, "removed", 0);
	write_removed(r->graph, k, out);
	json_key(out, "leaving_ns", 0);
	json_i64(out, k->leaving_ns);
	json_key(out, "leaving", 0);
	write_edge_list(r->graph, k->leaving, k->n_leaving, out);
	json_key(out, "stop_reason", 0);
	json_string(out, k->stop_reason ? k->stop_reason : "");
	if (k->kind == WPERF_SINK && k->n_members == 1) {
		json_key(out, "limit", 0);
		json_string(out, wperf_sink_limit_name(wperf_sink_limit(r->graph, k, NULL)));
		json_key(out, "sink_kind", 0);
		json_string(out, wperf_fmt_sink_kind_name(wperf_fmt_sink_kind(r->graph, k)));
	}
	if (k->kind == WPERF_BACKGROUND)
		write_cpu_share(r, k, out);
	write_classification(r, k, out);
	json_key(out, "gap_waits", 0);
	json_u64(out, wperf_knot_gap_waits(r->graph, k));
	json_key(out, "gap_ns", 0);
	json_i64(out, wperf_knot_gap_ns(r->graph, k));
	fputc('}', out);
}

/* The CPU finding (wperf/cpu.h); null when it was not computed. */
void json_write_cpu(const struct wperf_report *r, FILE *out)
{
	const struct wperf_cpu_finding *c = r->cpu;

	fputs("  \"cpu\": ", out);
	if (!c) {
		fputs("null,\n", out);
		return;
	}
	fprintf(out, "{\"first\": %s", c->first ? "true" : "false");
	json_key(out, "threads", 0);
	json_u64(out, c->n_threads);
	json_key(out, "runnable_ns", 0);
	json_i64(out, c->runnable_ns);
	json_key(out, "wake_latency_ns", 0);
	json_i64(out, c->wake_latency_ns);
	json_key(out, "waiting_ns", 0);
	json_i64(out, c->waiting_ns);
	json_key(out, "waited_on_runnable_ns", 0);
	json_i64(out, c->waited_on_runnable_ns);
	json_key(out, "weighted_runnable_ns", 0);
	json_i64(out, c->weighted_runnable_ns);
	json_key(out, "weighted_waiting_ns", 0);
	json_i64(out, c->weighted_waiting_ns);
	json_key(out, "span_ns", 0);
	json_i64(out, c->span_ns);
	json_key(out, "most_runnable_pid", 0);
	json_i64(out, c->process_pid);
	json_key(out, "most_runnable_process_ns", 0);
	json_i64(out, c->process_runnable_ns);
	json_key(out, "most_runnable", 0);
	json_id_array(out, c->runnable, c->n_runnable);
	json_key(out, "others_running_ns", 0);
	json_i64(out, c->others_running_ns);
	json_key(out, "own_running_ns", 0);
	json_i64(out, c->own_running_ns);
	json_key(out, "others", 0);
	json_id_array(out, c->others, c->n_others);
	fputs("},\n", out);
}

void json_write_knots(const struct wperf_report *r, FILE *out)
{
	size_t n = r->knots ? r->knots->n : 0;

	fputs("  \"knots\": [", out);
	for (size_t i = 0; i < n; i++) {
		json_element(out, i);
		write_knot(r, &r->knots->items[i], i + 1, out);
	}
	json_array_end(out, n);
	fputs(",\n", out);
}

/* Heavy groups that the knot rule turned down (wperf/knots.h). */
void json_write_groups(const struct wperf_report *r, FILE *out)
{
	size_t n = r->knots ? r->knots->n_groups : 0;

	fputs("  \"groups\": [", out);
	for (size_t i = 0; i < n; i++) {
		const struct wperf_group *gr = &r->knots->groups[i];

		json_element(out, i);
		fputc('{', out);
		json_key(out, "members", 1);
		json_id_array(out, gr->members, gr->n_members);
		json_key(out, "weight_ns", 0);
		json_i64(out, gr->weight_ns);
		write_weight_split(out, gr->weight_ns, gr->own_ns, gr->waiters_ns);
		json_key(out, "leaving_ns", 0);
		json_i64(out, gr->leaving_ns);
		json_key(out, "leaving", 0);
		write_edge_list(r->graph, gr->leaving, gr->n_leaving, out);
		fputc('}', out);
	}
	json_array_end(out, n);
	fputs(",\n", out);
}
