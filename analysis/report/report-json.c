/* SPDX-License-Identifier: MIT */
/*
 * report-json.c — the knot report as JSON, for scripts.
 *
 * The format is described in doc/wperf-report.7.md and checked by
 * doc/wperf-report.schema.json (tests validate real output against it).
 * Every vertex and edge of the graph is written, whatever the focus, so
 * ids stay stable between runs with different options.
 *
 * Layout: one top-level member per line and one array element per line,
 * so the output can be read with grep and diffed. Integers are written as
 * integers; shares as fixed-point decimals (no locale-dependent printf).
 * Every share is a fraction of some time or count, at most 1 (own_share,
 * runnable_share, cpu_share, an evidence's share); a weight is no share of
 * the analysed time (cascaded waiting is counted on every edge it passes
 * through) and is written split instead: own_ns + cascaded_ns.
 *
 * This file writes the graph (vertices, edges, stacks), the threads and
 * the data quality; the findings (the CPU finding, knots and sinks,
 * groups) are report-json-findings.c's, and the JSON strings and numbers
 * everything is made of report-json-values.c's.
 */
#include <errno.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "report-format.h"
#include "report-json.h"
#include "wperf/classify.h"
#include "wperf/report.h"

/* ------------------------------------------------------------------ */
/* Sections                                                            */
/* ------------------------------------------------------------------ */

/* The focus's first event and how long after the range's beginning it
 * came (wperf_fmt_focus_start); null without a focus seen in the trace. */
static void write_focus_start(const struct wperf_report *r, FILE *out)
{
	struct wperf_focus_start fs;

	fputs("  \"focus_start\": ", out);
	if (!wperf_fmt_focus_start(r, &fs)) {
		fputs("null,\n", out);
		return;
	}
	fputc('{', out);
	json_key(out, "first_ns", 1);
	json_i64(out, fs.first_ns);
	json_key(out, "after_begin_ns", 0);
	json_i64(out, fs.after_ns);
	json_key(out, "forked", 0);
	fputs(fs.forked ? "true" : "false", out);
	json_key(out, "late", 0);
	fputs(fs.late ? "true" : "false", out);
	fputs("},\n", out);
}

/* The vertices a focused report is about (wperf_fmt_focus_reach): what
 * the HTML tables show and `wperf diff` compares; null without a focus,
 * and, as the writers survive a failed allocation, when out of memory
 * (readers then take the whole graph, as without a focus). */
static void write_focus_reach(const struct wperf_report *r, FILE *out)
{
	bool oom;
	bool *reach = wperf_fmt_focus_reach(r, &oom);
	int first = 1;

	fputs("  \"focus_reach\": ", out);
	if (!reach) {
		fputs("null,\n", out);
		return;
	}
	fputc('[', out);
	for (size_t v = 0; v < r->graph->n_vertices; v++)
		if (reach[v]) {
			fprintf(out, "%s%lu", first ? "" : ", ", (unsigned long)v);
			first = 0;
		}
	fputs("],\n", out);
	free(reach);
}

static void write_header(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	char share[32];

	fputs("{\n  \"format\": \"wperf-report\",\n  \"version\": 2,\n", out);
	fputs("  \"time_range\": {", out);
	json_key(out, "begin_ns", 1);
	json_i64(out, g->begin_ns);
	json_key(out, "end_ns", 0);
	json_i64(out, g->end_ns);
	json_key(out, "duration_ns", 0);
	json_i64(out, wperf_graph_duration(g));
	json_key(out, "cpus", 0);
	json_u64(out, g->quality.cpus);
	fputs("},\n  \"threshold\": {", out);
	json_key(out, "ns", 1);
	json_i64(out, r->threshold_ns);
	json_key(out, "spec", 0);
	json_string(out, r->threshold_spec);
	fputs("},\n  \"min_weight\": {", out);
	json_key(out, "ns", 1);
	json_i64(out, r->min_weight_ns);
	json_key(out, "spec", 0);
	json_string(out, r->min_weight_spec);
	fputs("},\n  \"knot_rule\": {", out);
	json_key(out, "rule", 1);
	json_string(out, r->strict_rule || r->leave_ppm == 0 ? "strict" : "dominant");
	wperf_fmt_ppm_fraction(share, sizeof share,
			       r->strict_rule ? 0 : (uint64_t)r->leave_ppm);
	json_key(out, "leave_ratio", 0);
	fputs(share, out);
	wperf_fmt_ppm_fraction(share, sizeof share, (uint64_t)r->tie_ppm);
	json_key(out, "tie_tolerance", 0);
	fputs(share, out);
	fputs("},\n  \"focus\": ", out);
	if (!r->focus) {
		fputs("null", out);
	} else {
		int first = 1;
		fputc('[', out);
		for (size_t v = 0; v < g->n_vertices; v++)
			if (r->focus[v]) {
				fprintf(out, "%s%lu", first ? "" : ", ", (unsigned long)v);
				first = 0;
			}
		fputc(']', out);
	}
	fputs(",\n", out);
	write_focus_start(r, out);
}

/* A merged vertex's threads (wperf/merge.h): their tids. */
static void write_merged_members(FILE *out, const struct wperf_vertex *v)
{
	json_key(out, "members", 0);
	fputc('[', out);
	for (size_t i = 0; i < v->n_members; i++) {
		fputs(i ? ", " : "", out);
		json_i64(out, wperf_local_id(v->members[i]));
	}
	fputc(']', out);
	if (v->merged_by) {
		json_key(out, "merged_by", 0);
		json_string(out, v->merged_by);
	}
}

/* Several hosts: where v lives (its tid and pid are that host's). */
static void write_host(FILE *out, const struct wperf_graph *g, const struct wperf_vertex *v)
{
	const char *host = wperf_vertex_host_name(g, v);

	if (host) {
		json_key(out, "host", 0);
		json_string(out, host);
	}
}

static void write_vertex(FILE *out, const struct wperf_graph *g, size_t id)
{
	const struct wperf_vertex *v = &g->vertices[id];

	fputc('{', out);
	json_key(out, "id", 1);
	json_u64(out, id);
	json_key(out, "kind", 0);
	json_string(out, wperf_vertex_kind_name(v->kind));
	json_key(out, "name", 0);
	json_string(out, v->name ? v->name : "");
	write_host(out, g, v);
	if (v->kind == WPERF_V_THREAD) {
		json_key(out, "tid", 0);
		json_i64(out, wperf_local_id(v->tid));
		json_key(out, "pid", 0);
		json_i64(out, wperf_local_id(v->pid));
		json_key(out, "comm", 0);
		json_string(out, v->comm);
	} else if (wperf_vertex_kind_is_device(v->kind)) {
		json_key(out, "busy_ns", 0);
		json_i64(out, v->busy_ns);
		json_key(out, "bytes", 0);
		json_u64(out, v->bytes);
		if (v->kind == WPERF_V_NIC) {
			/* null: the link speed was not given, idle time unknown */
			json_key(out, "capacity_bps", 0);
			if (v->capacity_bps)
				json_u64(out, v->capacity_bps);
			else
				fputs("null", out);
		}
	}
	if (v->kind == WPERF_V_VIRTUAL && v->pid >= 0) {
		json_key(out, "pid", 0);   /* all its threads are of this process */
		json_i64(out, wperf_local_id(v->pid));
	}
	if (v->kind == WPERF_V_VIRTUAL && v->n_members)
		write_merged_members(out, v);
	fputc('}', out);
}

static void write_vertices(const struct wperf_graph *g, FILE *out)
{
	fputs("  \"vertices\": [", out);
	for (size_t i = 0; i < g->n_vertices; i++) {
		json_element(out, i);
		write_vertex(out, g, i);
	}
	json_array_end(out, g->n_vertices);
	fputs(",\n", out);
}

static void write_hist(FILE *out, const uint64_t hist[WPERF_HIST_BUCKETS])
{
	int first = 1;

	fputc('{', out);
	for (int b = 0; b < WPERF_HIST_BUCKETS; b++) {
		if (!hist[b])
			continue;
		fprintf(out, "%s\"%d\": ", first ? "" : ", ", b);
		json_u64(out, hist[b]);
		first = 0;
	}
	fputc('}', out);
}

/* The heaviest call stacks of an edge's waits: indexes into "stacks". */
static void write_edge_stacks(FILE *out, const struct wperf_edge *e)
{
	json_key(out, "stacks", 0);
	fputc('[', out);
	for (uint8_t k = 0; k < e->n_stacks; k++) {
		fputs(k ? ", {" : "{", out);
		json_key(out, "stack", 1);
		json_u64(out, e->stacks[k].stack);
		json_key(out, "count", 0);
		json_u64(out, e->stacks[k].count);
		json_key(out, "ns", 0);
		json_i64(out, e->stacks[k].ns);
		fputc('}', out);
	}
	fputc(']', out);
}

/* The call stacks the edges name, frames innermost first, and how their
 * kernel frames were named (or why not). */
static void write_stacks(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;

	fputs("  \"stacks_note\": ", out);
	json_string(out, r->stacks_note);
	fputs(",\n  \"stacks\": [", out);
	for (size_t i = 0; i < g->n_stacks; i++) {
		const struct wperf_stack *s = &g->stacks[i];
		json_element(out, i);
		fputs("{\"frames\": [", out);
		for (size_t f = 0; f < s->n; f++) {
			fprintf(out, "%s{\"addr\": \"0x%" PRIx64 "\", \"symbol\": ", f ? ", " : "",
				s->ips[f]);
			json_string(out, s->symbols ? s->symbols[f] : NULL);
			fputc('}', out);
		}
		fputs("]}", out);
	}
	json_array_end(out, g->n_stacks);
	fputs(",\n", out);
}

static void write_edges(const struct wperf_graph *g, FILE *out)
{
	char share[32];

	fputs("  \"edges\": [", out);
	for (size_t i = 0; i < g->n_edges; i++) {
		const struct wperf_edge *e = &g->edges[i];
		json_element(out, i);
		fputc('{', out);
		json_key(out, "from", 1);
		json_u64(out, e->from);
		json_key(out, "to", 0);
		json_u64(out, e->to);
		json_key(out, "weight_ns", 0);
		json_i64(out, e->weight_ns);
		json_key(out, "direct_ns", 0);
		json_i64(out, e->direct_ns);
		json_key(out, "cascaded_ns", 0);
		json_i64(out, wperf_fmt_cascaded(e->weight_ns, e->direct_ns));
		wperf_fmt_ppm_fraction(share, sizeof share,
				       wperf_ppm(e->direct_ns, wperf_vertex_time(g, e->from)));
		json_key(out, "own_share", 0);
		fputs(share, out);
		json_key(out, "count", 0);
		json_u64(out, e->count);
		json_key(out, "hist", 0);
		write_hist(out, e->hist);
		json_key(out, "turns", 0);
		json_u64(out, e->turns);
		json_key(out, "chained", 0);
		json_u64(out, e->chained);
		json_key(out, "grouped", 0);
		json_u64(out, e->grouped);
		json_key(out, "idle_ns", 0);
		json_i64(out, e->idle_ns);
		json_key(out, "idle_count", 0);
		json_u64(out, e->idle_count);
		json_key(out, "may_be_timer", 0);
		fputs(wperf_edge_may_be_timer(g, e) ? "true" : "false", out);
		if (e->n_stacks)
			write_edge_stacks(out, e);
		fputc('}', out);
	}
	json_array_end(out, g->n_edges);
	fputs(",\n", out);
}

static void write_waiting(FILE *out, const struct wperf_vertex *v)
{
	fputc('{', out);
	for (int k = 0; k < WPERF_V_KIND_COUNT; k++) {
		json_key(out, wperf_vertex_kind_name((enum wperf_vertex_kind)k), k == 0);
		json_i64(out, v->waiting_ns[k]);
	}
	fputc('}', out);
}

/* wperf-method(7) §7: a thread often runnable needs a CPU or priority. */
static void write_runnable_share(FILE *out, const struct wperf_vertex *v)
{
	char share[32];

	wperf_fmt_ppm_fraction(share, sizeof share, wperf_vertex_runnable_ppm(v));
	json_key(out, "runnable_share", 0);
	fputs(share, out);
	json_key(out, "runnable_bound", 0);
	fputs(wperf_vertex_is_runnable_bound(v) ? "true" : "false", out);
}

static void write_thread(FILE *out, const struct wperf_graph *g, size_t id)
{
	const struct wperf_vertex *v = &g->vertices[id];

	fputc('{', out);
	json_key(out, "id", 1);
	json_u64(out, id);
	write_host(out, g, v);
	json_key(out, "tid", 0);
	json_i64(out, wperf_local_id(v->tid));
	json_key(out, "pid", 0);
	json_i64(out, wperf_local_id(v->pid));
	json_key(out, "comm", 0);
	json_string(out, v->comm ? v->comm : v->name);
	json_key(out, "first_ns", 0);
	json_i64(out, v->first_ts);
	json_key(out, "last_ns", 0);
	json_i64(out, v->last_ts);
	json_key(out, "running_ns", 0);
	json_i64(out, v->running_ns);
	json_key(out, "runnable_ns", 0);
	json_i64(out, v->runnable_ns);
	json_key(out, "unknown_ns", 0);
	json_i64(out, v->unknown_ns);
	json_key(out, "wake_latency_ns", 0);
	json_i64(out, v->wake_latency_ns);
	json_key(out, "woken_cpu_wait_ns", 0);
	json_i64(out, v->woken_cpu_wait_ns);
	json_key(out, "waiting_ns", 0);
	write_waiting(out, v);
	write_runnable_share(out, v);
	json_key(out, "waits", 0);
	json_u64(out, v->waits);
	json_key(out, "unknown_initial_state", 0);
	fputs(v->unknown_initial_state ? "true" : "false", out);
	json_key(out, "state_mismatches", 0);
	json_u64(out, v->state_mismatches);
	json_key(out, "woken_to_missing_cpu", 0);
	fputs(v->woken_to_missing_cpu ? "true" : "false", out);
	json_key(out, "waits_without_wakeup", 0);
	json_u64(out, v->waits_without_wakeup);
	fputc('}', out);
}

/* Threads and the virtual threads merging made of them. */
static void write_threads(const struct wperf_graph *g, FILE *out)
{
	size_t n = 0;

	fputs("  \"threads\": [", out);
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		if (!wperf_fmt_thread_listed(v))
			continue;
		json_element(out, n++);
		write_thread(out, g, i);
	}
	json_array_end(out, n);
	fputs(",\n", out);
}

/* Progress points (wperf:progress): units of work over the analysed time. */
static void write_progress(const struct wperf_graph *g, FILE *out)
{
	int64_t duration = wperf_graph_duration(g);

	fputs("  \"progress\": [", out);
	for (size_t i = 0; i < g->n_progress; i++) {
		const struct wperf_progress_point *p = &g->progress[i];

		json_element(out, i);
		fputc('{', out);
		json_key(out, "name", 1);
		json_string(out, p->name);
		json_key(out, "count", 0);
		json_u64(out, p->count);
		json_key(out, "per_second", 0);
		char rate[48];

		wperf_fmt_rate(rate, sizeof rate, p->count, duration);
		fputs(rate, out);
		fputc('}', out);
	}
	json_array_end(out, g->n_progress);
	fputs(",\n", out);
}

static void write_gap(FILE *out, const struct wperf_gap *gap)
{
	fputc('{', out);
	json_key(out, "cpu", 1);
	fprintf(out, "%d", gap->cpu);
	json_key(out, "begin_ns", 0);
	json_i64(out, gap->begin_ns);
	json_key(out, "end_ns", 0);
	json_i64(out, gap->end_ns);
	json_key(out, "count", 0);
	json_u64(out, gap->count);
	json_key(out, "packets", 0);
	fputs(gap->packets ? "true" : "false", out);
	fputc('}', out);
}

static void write_counter(FILE *out, const char *key, uint64_t v)
{
	fprintf(out, ",\n    \"%s\": ", key);
	json_u64(out, v);
}

static void write_quality(const struct wperf_quality *q, FILE *out)
{
	fputs("  \"quality\": {\n    \"events\": ", out);
	json_u64(out, q->events);
	write_counter(out, "discarded_events", q->discarded_events);
	write_counter(out, "discarded_packets", q->discarded_packets);
	fputs(",\n    \"gaps\": [", out);
	for (size_t i = 0; q->gaps && i < q->n_gaps; i++) {
		fputs(i ? ", " : "", out);
		write_gap(out, &q->gaps[i]);
	}
	fputc(']', out);
	fputs(",\n    \"gap_ns\": ", out);
	json_i64(out, q->gap_ns);
	fputs(",\n    \"missing_cpus\": [", out);
	for (size_t i = 0; i < q->n_missing_cpus; i++)
		fprintf(out, "%s{\"cpu\": %d, \"wakeups\": %llu}", i ? ", " : "",
			q->missing_cpus[i].cpu, (unsigned long long)q->missing_cpus[i].wakeups);
	fputc(']', out);
	write_counter(out, "waits_cut_by_gaps", q->waits_cut_by_gaps);
	write_counter(out, "runnable_cut_by_gaps", q->runnable_cut_by_gaps);
	write_counter(out, "events_out_of_order", q->events_out_of_order);
	write_counter(out, "unmatched_wakeups", q->unmatched_wakeups);
	write_counter(out, "unknown_initial_threads", q->unknown_initial_threads);
	write_counter(out, "waits_without_wakeup", q->waits_without_wakeup);
	write_counter(out, "waits_open_at_end", q->waits_open_at_end);
	write_counter(out, "cascades_truncated", q->cascades_truncated);
	write_counter(out, "unmatched_block_completions",
		      q->unmatched_block_completions);
	write_counter(out, "state_mismatches", q->state_mismatches);
	write_counter(out, "untraced_interrupt_wakeups", q->untraced_interrupt_wakeups);
	write_counter(out, "false_wakeups_merged", q->false_wakeups_merged);
	write_counter(out, "false_wakeups_unmerged", q->false_wakeups_unmerged);
	fprintf(out, ",\n    \"has_waking\": %s", q->has_waking ? "true" : "false");
	fprintf(out, ",\n    \"has_timer_events\": %s", q->has_timer_events ? "true" : "false");
	fprintf(out, ",\n    \"has_irq_context\": %s", q->has_irq_context ? "true" : "false");
	fprintf(out, ",\n    \"has_idle_state\": %s\n  }", q->has_idle_state ? "true" : "false");
}

/*
 * The data-quality problems that can change the findings (report-caveats.c),
 * the lines the text and HTML reports print above them, and whether any
 * may make the findings wrong: what a program checks before trusting them.
 */
static void write_caveats(const struct wperf_report *r, FILE *out)
{
	struct wperf_caveat c[WPERF_CAVEATS_MAX];
	size_t n = wperf_fmt_caveats(r, c);
	bool wrong = false;

	fputs(",\n  \"caveats\": [", out);
	for (size_t i = 0; i < n; i++) {
		json_element(out, i);
		fputc('{', out);
		json_key(out, "kind", 1);
		json_string(out, c[i].kind);
		json_key(out, "may_be_wrong", 0);
		fputs(c[i].may_be_wrong ? "true" : "false", out);
		json_key(out, "text", 0);
		json_string(out, c[i].text);
		fputc('}', out);
		wrong = wrong || c[i].may_be_wrong;
	}
	json_array_end(out, n);
	fprintf(out, ",\n  \"findings_may_be_wrong\": %s\n", wrong ? "true" : "false");
}

/* The hosts whose pairs put a clock on the reference's: ["A", "B", "C"]
 * from the reference through c->via to host. */
static void write_clock_path(FILE *out, const struct wperf_host_clock *c, const char *host)
{
	fputc('[', out);
	json_string(out, c->reference);
	for (const char *p = c->via; p && *p;) {
		size_t n = strcspn(p, ",");
		char name[256];

		snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), p);
		fputs(", ", out);
		json_string(out, name);
		p += n + (p[n] == ',');
	}
	fputs(", ", out);
	json_string(out, host);
	fputc(']', out);
}

/* Several hosts: their names, and how each clock was put on the
 * reference's (null: the reference's own, or not synchronised). */
static void write_hosts(const struct wperf_graph *g, FILE *out)
{
	if (g->n_hosts < 2)
		return;
	fputs("  \"hosts\": [", out);
	for (size_t i = 0; i < g->n_hosts; i++) {
		const struct wperf_host_clock *c = NULL;

		for (size_t k = 0; k < g->n_host_clocks; k++)
			if (g->host_clocks[k].host == i)
				c = &g->host_clocks[k];
		json_element(out, i);
		fputc('{', out);
		json_key(out, "name", 1);
		json_string(out, g->hosts[i]);
		json_key(out, "clock", 0);
		if (!c) {
			fputs("null}", out);
			continue;
		}
		fputs("{\"reference\": ", out);
		json_string(out, c->reference);
		fprintf(out, ", \"alpha\": %.17g, \"anchor_ns\": %" PRId64 ", \"offset_ns\": %.3f, "
			"\"accuracy_ns\": %.3f, \"path\": ", c->alpha, c->anchor_ns, c->offset_ns,
			c->accuracy_ns);
		write_clock_path(out, c, g->hosts[i]);
		fputs("}}", out);
	}
	json_array_end(out, g->n_hosts);
	fputs(",\n", out);
}

int wperf_report_write_json(const struct wperf_report *r, FILE *out)
{
	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	write_header(r, out);
	write_focus_reach(r, out);
	write_vertices(r->graph, out);
	write_edges(r->graph, out);
	write_stacks(r, out);
	json_write_cpu(r, out);
	json_write_knots(r, out);
	json_write_groups(r, out);
	write_threads(r->graph, out);
	write_progress(r->graph, out);
	write_hosts(r->graph, out);
	write_quality(&r->graph->quality, out);
	write_caveats(r, out);
	fputs("}\n", out);
	return wperf_fmt_finish(out, false);
}
