/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text.c — the knot report for a person at a terminal.
 *
 * Sections, most important first: what was analysed (and, for a whole
 * machine without focus, how to focus), the findings in rank order —
 * knots (members, weight, edges with their wait-length histograms, what
 * leaves them, what refinement cut and why it stopped, a guess at the
 * kind of problem) and sinks together by weight, the small sinks summed
 * up in one line —, the heavy groups that are not knots, the per-thread
 * breakdown, and how much to trust the data. Lines fit in 100 columns.
 * The report is never empty: when nothing was found it says so and gives
 * the likely reasons.
 *
 * One file per section: this one writes the header and the progress
 * points and puts the sections in order; report-text-findings.c the
 * findings (report-text-knots.c a knot), report-text-threads.c the
 * threads, report-text-quality.c the data quality; report-text-words.c
 * the small writers they all use. report-text.h is what they share.
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
/* Header                                                              */
/* ------------------------------------------------------------------ */

static void write_focus(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0, cap = 0;
	uint32_t *ids = NULL;

	for (size_t v = 0; v < g->n_vertices; v++)
		n += r->focus[v] != 0;
	ids = malloc((n ? n : 1) * sizeof *ids);
	fprintf(out, "Focus      %zu vert%s; only knots and sinks reachable from %s are shown:\n",
		n, n == 1 ? "ex" : "ices", n == 1 ? "it" : "them");
	if (!ids)
		return;         /* the count alone still tells the reader */
	for (size_t v = 0; v < g->n_vertices && cap < n; v++)
		if (r->focus[v])
			ids[cap++] = (uint32_t)v;
	fputs("           ", out);
	if (n == 0)
		fputs("(none)\n", out);
	else
		text_put_members(out, g, ids, n, 11, 11);
	free(ids);
}

/* A parent with this many short-lived children (in focus, with a focus)
 * gets a hint to merge them: below it, their edges are few enough to read. */
#define SHORT_LIVED_HINT_MIN 10

/*
 * Short-lived children left as threads (short-lived=keep) split their
 * parent's waits for them into one light edge each, under the noise
 * floor: a shell script or a process-per-request server then looks as if
 * it waited on nothing. Say so, for the parent with the most of them.
 */
static void write_short_lived_hint(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	int64_t *parents = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *parents);
	size_t n = 0, best = 0, best_at = 0;
	char name[LABEL_LEN];

	if (!parents)
		return;         /* a hint, not a finding: nothing is lost */
	for (size_t v = 0; v < g->n_vertices; v++)
		if ((!r->focus || r->focus[v]) && wperf_vertex_is_short_lived(g, &g->vertices[v]))
			parents[n++] = g->vertices[v].parent_tid;
	qsort(parents, n, sizeof *parents, array_cmp_i64);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i; j < n && parents[j] == parents[i]; j++)
			;
		if (j - i > best) {
			best = j - i;
			best_at = i;
		}
	}
	if (best >= SHORT_LIVED_HINT_MIN) {
		uint32_t parent = UINT32_MAX;

		for (size_t v = g->n_vertices; v-- > 0 && parent == UINT32_MAX;)
			if (g->vertices[v].kind == WPERF_V_THREAD &&
			    g->vertices[v].tid == parents[best_at])
				parent = (uint32_t)v;
		if (parent != UINT32_MAX)
			text_label(name, g, parent);
		else
			snprintf(name, sizeof name, "tid %lld", (long long)parents[best_at]);
		fprintf(out, "Children   %s has %zu short-lived children: its waits for them are "
			"as many light\n           edges, which short-lived=\"merge\" "
			"makes one (babeltrace2-sink.wperf.knots(7))\n", name, best);
	}
	free(parents);
}

/* Which groups count as knots (wperf/knots.h), and how ties are cut. */
static void write_rule(const struct wperf_report *r, FILE *out)
{
	char ratio[32], tie[32];

	wperf_fmt_ppm_percent(ratio, sizeof ratio, (uint64_t)r->leave_ppm);
	wperf_fmt_ppm_percent(tie, sizeof tie, (uint64_t)r->tie_ppm);
	if (r->strict_rule || r->leave_ppm == 0)
		fprintf(out, "Knot rule  strict: a group is a knot when no edge leaves it; ties "
			"within %s cut together\n", tie);
	else
		fprintf(out, "Knot rule  dominant: a group is a knot when at most %s of its weight "
			"leaves it;\n           ties within %s cut together\n", ratio, tie);
}

/* With more processes than this in an unfocused trace, the report says
 * that its findings are the whole machine's and how to focus. */
#define MANY_PROCESSES 10

/* Processes with threads in the graph (a thread whose process is unknown
 * counts as its own). */
static size_t count_processes(const struct wperf_graph *g)
{
	int64_t *pids = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *pids);
	size_t n = 0, distinct = 0;

	if (!pids)
		return 0;       /* a hint, not a finding: nothing is lost */
	for (size_t v = 0; v < g->n_vertices; v++)
		if (g->vertices[v].kind == WPERF_V_THREAD)
			pids[n++] = g->vertices[v].pid > 0 ? g->vertices[v].pid
							    : g->vertices[v].tid;
	qsort(pids, n, sizeof *pids, array_cmp_i64);
	for (size_t i = 0; i < n; i++)
		distinct += i == 0 || pids[i] != pids[i - 1];
	free(pids);
	return distinct;
}

/*
 * A whole-machine trace without focus: its findings are every program's,
 * most of them idle daemons and kernel threads on a busy machine. Say so,
 * and how to look at one program, before the findings.
 */
static void write_focus_hint(const struct wperf_report *r, FILE *out)
{
	size_t n = count_processes(r->graph);
	char text[512];

	if (n <= MANY_PROCESSES)
		return;
	snprintf(text, sizeof text, "%zu in the trace and no focus: the findings are the whole "
		 "machine's, ranked by weight. To study one program, focus on it: pids=PID "
		 "(sink.wperf.knots), `wperf report --pids PID TRACE`, or record it with "
		 "`wperf record -- COMMAND`.", n);
	text_put_wrapped(out, "Processes  ", text, 11);
}

/* Pools named in the header at most; the Merged threads section lists all. */
#define MAX_LISTED_POOLS 4
#define POOL_MEMBERS_SHOWN 8

/* A pool worth naming at the top: in the focus, or (without one) in a
 * knot or sink, since the findings name it. */
static bool pool_to_name(const struct wperf_report *r, uint32_t v)
{
	const struct wperf_vertex *x = &r->graph->vertices[v];

	if (x->kind != WPERF_V_VIRTUAL || !x->merged_by || strcmp(x->merged_by, "pool") != 0)
		return false;
	if (r->focus)
		return r->focus[v];
	for (size_t i = 0; r->knots && i < r->knots->n; i++)
		for (size_t m = 0; m < r->knots->items[i].n_members; m++)
			if (r->knots->items[i].members[m] == v)
				return true;
	return false;
}

/* "fio ×4 = processes 11, 12, 13, 14 forked by one thread" */
static size_t describe_pool(char *buf, size_t len, const struct wperf_vertex *v)
{
	size_t used = (size_t)snprintf(buf, len, "%s = %s", v->name ? v->name : "?",
				       v->pid < 0 ? "processes" : "threads");

	for (size_t m = 0; m < v->n_members && m < POOL_MEMBERS_SHOWN && used < len; m++)
		used += (size_t)snprintf(buf + used, len - used, "%s%lld", m ? ", " : " ",
					 (long long)v->members[m]);
	if (v->n_members > POOL_MEMBERS_SHOWN && used < len)
		used += (size_t)snprintf(buf + used, len - used, " and %zu more",
					 v->n_members - POOL_MEMBERS_SHOWN);
	if (used < len && v->pid < 0)
		used += (size_t)snprintf(buf + used, len - used, " forked by one thread");
	else if (used < len)
		used += (size_t)snprintf(buf + used, len - used, " of process %lld",
					 (long long)v->pid);
	return used < len ? used : len - 1;
}

/*
 * Pools merged by default (merge="pool", wperf/merge.h): the findings
 * name one vertex for several threads, so say which threads it stands
 * for and how to see them apart, before any finding.
 */
static void write_pools(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	char text[2048];
	size_t used = 0, n = 0, more = 0;

	for (uint32_t v = 0; v < g->n_vertices; v++) {
		if (!pool_to_name(r, v))
			continue;
		if (n++ >= MAX_LISTED_POOLS) {
			more++;
			continue;
		}
		if (used > 0 && used + 2 < sizeof text)
			used += (size_t)snprintf(text + used, sizeof text - used, "; ");
		if (used + 1 < sizeof text)
			used += describe_pool(text + used, sizeof text - used, &g->vertices[v]);
	}
	if (n == 0)
		return;
	if (more && used + 1 < sizeof text)
		used += (size_t)snprintf(text + used, sizeof text - used,
					 "; and %zu more pools (Merged threads, below)", more);
	if (used + 1 < sizeof text)
		snprintf(text + used, sizeof text - used, ". Alike threads (same name, same "
			 "role) are merged as a pool, each one vertex; merge=\"none\" shows "
			 "them apart.");
	text_put_wrapped(out, "Pools      ", text, 11);
}

/*
 * Short-lived children merged (short-lived="merge", the default with a
 * focus): the findings name "sh-children" for hundreds of processes, so
 * say what it stands for and how to see them apart.
 */
static void write_children(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;

	for (uint32_t v = 0; v < g->n_vertices; v++) {
		const struct wperf_vertex *x = &g->vertices[v];

		if (x->kind != WPERF_V_VIRTUAL || !x->merged_by ||
		    strcmp(x->merged_by, "children") != 0 || (r->focus && !r->focus[v]))
			continue;
		fprintf(out, "Children   %s = %zu short-lived children of one parent, merged "
			"into one vertex;\n           short-lived=\"keep\" shows them "
			"apart\n", x->name ? x->name : "?", x->n_members);
	}
}

/*
 * The data-quality problems that can change the findings, one line each
 * before any finding (report-caveats.c says which and why): a report whose
 * trace lost most of its events or a whole CPU reads like any other until
 * Data quality, at its end. Where the losses lie and which findings they
 * touch are in Data quality and on each finding.
 */
static void write_caveats(const struct wperf_report *r, FILE *out)
{
	struct wperf_caveat c[WPERF_CAVEATS_MAX];
	size_t n = wperf_fmt_caveats(r, c);
	char first[16];

	for (size_t i = 0; i < n; i++) {
		snprintf(first, sizeof first, "%-11s", c[i].label);
		text_put_wrapped(out, first, c[i].text, 11);
	}
}

static void write_header(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	char a[48], b[48], d[32];
	size_t deps = text_count_dependencies(r);

	fputs("wPerf report: knots of the wait-for graph\n", out);
	fputs("=========================================\n", out);
	wperf_fmt_timestamp(a, sizeof a, g->begin_ns);
	wperf_fmt_timestamp(b, sizeof b, g->end_ns);
	wperf_fmt_duration(d, sizeof d, wperf_graph_duration(g), 0);
	fprintf(out, "Analysed   %s .. %s (%s)\n", a, b, d);
	wperf_fmt_duration(d, sizeof d, r->threshold_ns, 0);
	fprintf(out, "Threshold  %s%s%s%s: refinement stops when a knot's lightest edge weighs this much\n",
		d, r->threshold_spec ? " (" : "",
		r->threshold_spec ? r->threshold_spec : "",
		r->threshold_spec ? ")" : "");
	if (r->min_weight_ns > 0) {
		wperf_fmt_duration(d, sizeof d, r->min_weight_ns, 0);
		fprintf(out, "Noise      %s%s%s%s: lighter edges take no part in knots\n",
			d, r->min_weight_spec ? " (" : "",
			r->min_weight_spec ? r->min_weight_spec : "",
			r->min_weight_spec ? ")" : "");
	}
	write_rule(r, out);
	write_caveats(r, out);
	fprintf(out, "Graph      %zu vertices, %zu edges", g->n_vertices, g->n_edges);
	if (deps < g->n_edges)
		fprintf(out, " (%zu ignored for knots: timer, unseen, too light, kernel idle)",
			g->n_edges - deps);
	fputc('\n', out);
	if (r->stacks_note)
		fprintf(out, "Stacks     %zu distinct wait stacks; %s\n", g->n_stacks, r->stacks_note);
	if (r->focus)
		write_focus(r, out);
	else
		write_focus_hint(r, out);
	write_pools(r, out);
	write_children(r, out);
	write_short_lived_hint(r, out);
}

/* Throughput from the progress points (wperf:progress), as in Coz: what
 * breaking a knot should raise. */
static void write_progress(FILE *out, const struct wperf_graph *g)
{
	int64_t duration = wperf_graph_duration(g);
	char d[32];

	if (g->n_progress == 0)
		return;
	wperf_fmt_duration(d, sizeof d, duration, 0);
	fprintf(out, "\nProgress points (over %s)\n", d);
	for (size_t i = 0; i < g->n_progress; i++) {
		const struct wperf_progress_point *p = &g->progress[i];

		char rate[48];

		wperf_fmt_rate(rate, sizeof rate, p->count, duration);
		fputs("  ", out);
		wperf_fmt_cell(out, p->name, 40, 0);   /* cleans hostile names too */
		fprintf(out, " %12llu  %14s/s\n", (unsigned long long)p->count, rate);
	}
}

int wperf_report_write_text(const struct wperf_report *r, FILE *out)
{
	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	errno = 0;
	write_header(r, out);
	write_progress(out, r->graph);
	text_write_findings(out, r);
	text_write_groups(out, r);
	text_write_threads(out, r);
	text_write_merged(out, r);
	text_write_quality(out, r);
	return wperf_fmt_finish(out, false);
}

