/*
 * report-text.c — the knot report for a person at a terminal.
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

#define PAGE_WIDTH 98           /* leave the last columns of 100 free */
#define MAX_THREAD_ROWS 20
#define MAX_LISTED_MEMBERS 12
#define MAX_LISTED_GAPS 5
#define MAX_LISTED_LOSERS 3     /* threads named per lost-event counter */
#define LABEL_LEN 128

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static void label(char *buf, const struct wperf_graph *g, uint32_t id)
{
	wperf_fmt_vertex_label(buf, LABEL_LEN, g, id);
}

/* Print words separated by ", ", wrapping at the page width and
 * indenting continuation lines; `col` is where the cursor is now. */
static size_t put_listed(FILE *out, const char *word, int first, size_t col,
			 size_t indent)
{
	size_t len = strlen(word);

	if (!first) {
		fputc(',', out);
		col++;
		if (col + 1 + len > PAGE_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			fputc(' ', out);
			col++;
		}
	}
	fputs(word, out);
	return col + len;
}

/* Print text as lines of at most PAGE_WIDTH columns, broken at spaces
 * (a word longer than a line is left whole): the first line after
 * `first`, the others indented by `indent` spaces. */
static void put_wrapped(FILE *out, const char *first, const char *text, size_t indent)
{
	size_t col = strlen(first);
	const char *p = text;

	fputs(first, out);
	while (*p) {
		const char *space = strchr(p, ' ');
		size_t len = space ? (size_t)(space - p) : strlen(p);

		if (p != text && col + 1 + len > PAGE_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, len, out);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* "a (1), b (2), disk:vda" with at most MAX_LISTED_MEMBERS names. */
static void put_members(FILE *out, const struct wperf_graph *g,
			const uint32_t *ids, size_t n, size_t col, size_t indent)
{
	char name[LABEL_LEN], more[64];
	size_t shown = n < MAX_LISTED_MEMBERS ? n : MAX_LISTED_MEMBERS;

	for (size_t i = 0; i < shown; i++) {
		label(name, g, ids[i]);
		col = put_listed(out, name, i == 0, col, indent);
	}
	if (shown < n) {
		snprintf(more, sizeof more, "and %zu more", n - shown);
		put_listed(out, more, 0, col, indent);
	}
	fputc('\n', out);
}

/* ------------------------------------------------------------------ */
/* Header                                                              */
/* ------------------------------------------------------------------ */

static size_t count_dependencies(const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0;
	for (size_t i = 0; i < g->n_edges; i++)
		n += wperf_edge_is_dependency(g, &g->edges[i], r->min_weight_ns);
	return n;
}

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
		put_members(out, g, ids, n, 11, 11);
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
			label(name, g, parent);
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
	put_wrapped(out, "Processes  ", text, 11);
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
	put_wrapped(out, "Pools      ", text, 11);
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
		put_wrapped(out, first, c[i].text, 11);
	}
}

static void write_header(const struct wperf_report *r, FILE *out)
{
	const struct wperf_graph *g = r->graph;
	char a[48], b[48], d[32];
	size_t deps = count_dependencies(r);

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
	write_short_lived_hint(r, out);
}

/* ------------------------------------------------------------------ */
/* Knots                                                               */
/* ------------------------------------------------------------------ */

/* Edge tables: weight = own + cascaded, and own as a share of the
 * waiter's time (the legend before the findings, write_weights_legend). */
#define PAIR_WIDTH 38

static void write_edge_table_header(FILE *out)
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

	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_fmt_ppm(e->stacks[0].ns, e->direct_ns));
	snprintf(text, sizeof text, "in %s (%s of the wait time)", line, pct);
	put_wrapped(out, "      ", text, 9);
}

/* The marker of an edge whose waits may be untraced timer expiries
 * (wperf_edge_may_be_timer), and its footnote under the table. */
#define TIMER_MARK WPERF_FMT_TIMER_MARK

static void write_timer_footnote(FILE *out, bool any)
{
	if (any)
		put_wrapped(out, "  ", TIMER_MARK " " WPERF_FMT_TIMER_NOTE, 2);
}

/* One row of an edge table; true when the edge carries the timer mark. */
static bool write_edge_row(FILE *out, const struct wperf_graph *g,
			   const struct wperf_edge *e)
{
	bool timer = wperf_edge_may_be_timer(g, e);

	char from[LABEL_LEN], to[LABEL_LEN], pair[2 * LABEL_LEN + 8];
	char w[32], own[32], s[32], med[64];

	label(from, g, e->from);
	label(to, g, e->to);
	snprintf(pair, sizeof pair, "%s -> %s", from, to);
	wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
	wperf_fmt_duration(own, sizeof own, e->direct_ns > 0 ? e->direct_ns : 0, 0);
	/* Own waiting as a share of the waiter's time: at most 100%; "-"
	 * when the trace accounted no time to the waiter. */
	if (wperf_vertex_time(g, e->from) > 0)
		wperf_fmt_ppm_percent(s, sizeof s,
				      wperf_fmt_ppm(e->direct_ns, wperf_vertex_time(g, e->from)));
	else
		snprintf(s, sizeof s, "-");
	wperf_fmt_bucket_range(med, sizeof med, wperf_fmt_hist_median(e->hist));
	fputs("  ", out);
	wperf_fmt_cell(out, pair, PAIR_WIDTH, 0);
	fprintf(out, " %9s %9s %6s %8llu  %s%s\n", w, own, s, (unsigned long long)e->count, med,
		timer ? "  " TIMER_MARK : "");
	write_edge_stack(out, g, e);
	return timer;
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
				      wperf_fmt_ppm(in_gaps, wperf_graph_duration(g)));
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
		put_wrapped(out, "  MISSING CPU: ", words, 2);
}

static void write_refinement(FILE *out, const struct wperf_graph *g,
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
		label(from, g, g->edges[e].from);
		label(to, g, g->edges[e].to);
		wperf_fmt_duration(w, sizeof w, k->removed[i].weight_ns, 0);
		fprintf(out, "    %2zu. %s -> %s  %s\n", i + 1, from, to, w);
	}
	fprintf(out, "  and stopped: %s.\n", stop_explanation(k->stop_reason));
}

/* wperf-method(7) §10: what kind of problem it looks like, and the facts that
 * say so (wperf/classify.h), so a person can check the hint. */
static void write_classification(FILE *out, const struct wperf_report *r,
				 const struct wperf_knot *k)
{
	struct wperf_classification c;
	char line[512];

	if (wperf_classify_knot(r->graph, k, r->min_weight_ns, &c) < 0)
		return;
	fprintf(out, "  Looks like %s\n", wperf_knot_class_summary(c.cls));
	for (size_t i = 0; i < c.n_evidence; i++) {
		if (c.evidence[i].kind == WPERF_EV_BACKGROUND)
			continue;   /* the background note says it with its consequence */
		wperf_evidence_describe(line, sizeof line, r->graph, &c.evidence[i]);
		put_wrapped(out, "    - ", line, 6);
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
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_fmt_ppm(k->cpu_ns, k->span_ns));
	fprintf(out, "  Background: no device, and its threads ran or wanted a CPU %s = %s of\n"
		"  the %s they existed, less than one CPU: like heartbeats, not the\n"
		"  bottleneck. It was set aside and what waited on it analysed again.\n",
		run, pct, span);
	/* The rule (wperf-method(7) §7) draws its line at one CPU; threads that
	 * hand work back and forth, or workers cut out of a larger knot by
	 * refinement, sit just under it, and are no heartbeats. */
	if (wperf_fmt_ppm(k->cpu_ns, k->span_ns) >= WPERF_FMT_BACKGROUND_BUSY_PPM)
		put_wrapped(out, "  ", WPERF_FMT_BACKGROUND_BUSY_NOTE, 2);
}

#define MAX_LEAVING_SHOWN 5

/* "    a (1) -> setup (3), 100 ms (1 wait)" for the heaviest leaving edges. */
static void write_leaving_edges(FILE *out, const struct wperf_graph *g,
				const size_t *edges, size_t n)
{
	char from[LABEL_LEN], to[LABEL_LEN], w[32];
	size_t shown = 0;

	for (size_t i = 0; i < n && shown < MAX_LEAVING_SHOWN; i++) {
		const struct wperf_edge *e = edges[i] < g->n_edges ? &g->edges[edges[i]] : NULL;

		if (!e)
			continue;
		label(from, g, e->from);
		label(to, g, e->to);
		wperf_fmt_duration(w, sizeof w, e->weight_ns, 0);
		fprintf(out, "    %s -> %s, %s (%llu wait%s)\n", from, to, w,
			(unsigned long long)e->count, e->count == 1 ? "" : "s");
		shown++;
	}
	if (n > shown)
		fprintf(out, "    ... and %zu lighter edge%s\n", n - shown, n - shown == 1 ? "" : "s");
}

/* A knot that edges leave (the dominant rule): how much, and where to. */
static void write_knot_leaving(FILE *out, const struct wperf_report *r,
			       const struct wperf_knot *k)
{
	char w[32], pct[32], ratio[32];

	if (k->n_leaving == 0)
		return;
	wperf_fmt_duration(w, sizeof w, k->leaving_ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_fmt_ppm(k->leaving_ns, k->weight_ns));
	wperf_fmt_ppm_percent(ratio, sizeof ratio, (uint64_t)r->leave_ppm);
	if (k->kind == WPERF_SINK)      /* what refinement left of a knot */
		fprintf(out, "  Waits outside its component: %s (knot-rule=dominant admits %s of the\n"
			"  component's weight):\n", w, ratio);
	else
		fprintf(out, "  Leaves the knot: %s = %s of its weight (knot-rule=dominant admits %s "
			"of its\n  component's):\n", w, pct, ratio);
	write_leaving_edges(out, r->graph, k->leaving, k->n_leaving);
}

static void write_knot(FILE *out, const struct wperf_report *r,
		       const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = r->graph;
	const char *title = k->kind == WPERF_BACKGROUND ? "Background knot" : "Knot";
	char w[32], split[160], text[256];
	int n = fprintf(out, "\n%s %zu: ", title, number);

	put_members(out, g, k->members, k->n_members, n > 1 ? (size_t)n - 1 : 0, 4);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_weight_split(split, sizeof split, k->weight_ns, k->own_ns, k->waiters_ns,
			       "the members'");
	snprintf(text, sizeof text, "weight %s = %s (sum of its %zu edge%s)", w, split,
		 k->n_edges, k->n_edges == 1 ? "" : "s");
	put_wrapped(out, "  ", text, 2);
	write_classification(out, r, k);
	write_knot_leaving(out, r, k);
	if (k->kind == WPERF_BACKGROUND)
		write_background_note(out, g, k);
	if (k->n_edges > 0) {
		bool timer = false;

		write_edge_table_header(out);
		for (size_t i = 0; i < k->n_edges; i++)
			if (k->edges[i] < g->n_edges)
				timer |= write_edge_row(out, g, &g->edges[k->edges[i]]);
		write_timer_footnote(out, timer);
	}
	write_refinement(out, g, k);
	write_knot_gaps(out, g, k);
	write_knot_missing_cpus(out, g, k);
}

/* ------------------------------------------------------------------ */
/* Sinks                                                               */
/* ------------------------------------------------------------------ */

#define TOP_WAITERS 5

/* The heaviest dependency edges into v, heaviest first; returns how many. */
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
		while (pos > 0 && g->edges[top[pos - 1]].weight_ns < e->weight_ns) {
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
		put_wrapped(out, "  ", text, 2);
		return;
	}
	v = k->members[0];   /* a sink's one member (wperf_sink_limit()) */
	wperf_fmt_duration(part, sizeof part, waited, 0);
	wperf_fmt_duration(seen, sizeof seen, wperf_fmt_time_seen(&g->vertices[v]), 0);
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
	put_wrapped(out, "  ", text, 2);
}

static void write_sink(FILE *out, const struct wperf_report *r,
		       const struct wperf_knot *k, size_t number)
{
	const struct wperf_graph *g = r->graph;
	char name[LABEL_LEN], w[32], split[160], text[1024], words[512];
	size_t top[TOP_WAITERS], total;
	uint32_t v = k->n_members ? k->members[0] : UINT32_MAX;

	label(name, g, v);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	wperf_fmt_weight_split(split, sizeof split, k->weight_ns, k->own_ns, k->waiters_ns,
			       "its waiters'");
	fprintf(out, "\nSink %zu: %s\n", number, name);
	if (k->n_removed > 0) {
		wperf_fmt_sink_kind_words(words, sizeof words, g, k);
		snprintf(text, sizeof text, "waited on for %s = %s by the rest of its knot; "
			 "what it waits for weighs too little to matter. %s", w, split, words);
		put_wrapped(out, "  ", text, 2);
		write_knot_leaving(out, r, k);
		write_refinement(out, g, k);
	} else {
		write_sink_limit(out, g, k, w, split);
	}
	write_classification(out, r, k);
	size_t n = top_waiters(r, v, top, &total);
	if (n == 0)
		return;
	bool timer = false;

	write_edge_table_header(out);
	for (size_t i = 0; i < n; i++)
		timer |= write_edge_row(out, g, &g->edges[top[i]]);
	if (total > n)
		fprintf(out, "  ... and %zu lighter edges into it\n", total - n);
	write_timer_footnote(out, timer);
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
	size_t deps = count_dependencies(r);

	fputs("\nNo knots and no sinks were found.\n", out);
	if (wrong) {
		put_wrapped(out, "  ", "The trace lacks part of what happened (the lines above "
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
static void write_groups(FILE *out, const struct wperf_report *r)
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

		put_members(out, g, gr->members, gr->n_members, col > 0 ? (size_t)col : 0, 4);
		wperf_fmt_duration(w, sizeof w, gr->weight_ns, 0);
		wperf_fmt_weight_split(split, sizeof split, gr->weight_ns, gr->own_ns,
				       gr->waiters_ns, "the members'");
		wperf_fmt_duration(lw, sizeof lw, gr->leaving_ns, 0);
		wperf_fmt_ppm_percent(pct, sizeof pct, wperf_fmt_ppm(gr->leaving_ns, gr->weight_ns));
		snprintf(text, sizeof text, "weighs %s = %s, but %s = %s of "
			 "its weight leaves it (%s): not a knot. Its edges out, heaviest "
			 "first:", w, split, lw, pct, allowed);
		put_wrapped(out, "    ", text, 4);
		write_leaving_edges(out, g, gr->leaving, gr->n_leaving);
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
	       wperf_fmt_ppm(k->weight_ns, wperf_graph_duration(r->graph)) < SMALL_SINK_PPM;
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
	put_wrapped(out, "", head, 2);
	fputs("  ", out);
	for (size_t i = 0; i < r->knots->n && named < SMALL_SINKS_NAMED; i++) {
		const struct wperf_knot *k = &r->knots->items[i];

		if (!collapsed(r, i))
			continue;
		label(name, g, k->members[0]);
		wperf_fmt_duration(pct, sizeof pct, k->weight_ns, 0);
		snprintf(item, sizeof item, "%s %s", name, pct);
		col = put_listed(out, item, named == 0, col, 2);
		named++;
	}
	if (n > named) {
		snprintf(item, sizeof item, "and %zu more", n - named);
		put_listed(out, item, 0, col, 2);
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
	put_wrapped(out, "  ", w.summary, 2);
	if (w.others[0])
		put_wrapped(out, "  ", w.others, 2);
	put_wrapped(out, "  ", w.advice, 2);
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
	put_wrapped(out, "", "Weights: weight = own + cascaded. Own is the waiters' own "
		    "waiting, with its share of their time (at most 100%; own% in the tables, "
		    "of the waiter's time). Cascaded is the waiting of others that was held up "
		    "meanwhile, counted again on every edge it passed through. A weight bounds "
		    "what shortening those waits could gain.", 0);
}

static void write_findings(FILE *out, const struct wperf_report *r)
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
		put_wrapped(out, "           ", wrong, 11);
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
			write_knot(out, r, k, ++nk);
	}
	if (!small_written)
		write_small_sinks(out, r, n_small, first_small, small_number(r, first_small));
}

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
						 wperf_fmt_time_seen(vx) };
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
	write_duration_cell(out, wperf_fmt_add_durations(w[WPERF_V_IRQ], w[WPERF_V_SOFTIRQ]));
	write_duration_cell(out, w[WPERF_V_TIMER]);
	write_duration_cell(out, wperf_fmt_add_durations(w[WPERF_V_UNKNOWN], w[WPERF_V_VIRTUAL]));
	fputc('\n', out);
}

/* Vertices that stand for merged threads (wperf/merge.h), with the tids
 * they stand for: the rest of the report names only the merged vertex. */
static void write_merged(FILE *out, const struct wperf_report *r)
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
		for (size_t m = 0; m < v->n_members && m < MAX_LISTED_MEMBERS; m++)
			fprintf(out, "%s%lld", m ? ", " : " ", (long long)v->members[m]);
		if (v->n_members > MAX_LISTED_MEMBERS)
			fprintf(out, " and %zu more", v->n_members - MAX_LISTED_MEMBERS);
		fputc('\n', out);
	}
}

static void write_threads(FILE *out, const struct wperf_report *r)
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
		wperf_fmt_cell(out, "  thread", 26, 0);
		fprintf(out, " %8s %8s %8s %8s %8s %8s %8s %8s\n", "running", "runnable",
			"w:thread", "w:disk", "w:nic", "w:irq", "w:timer", "w:other");
	}
	for (size_t i = 0; i < shown; i++)
		write_thread_row(out, r->graph, &rows[i]);
	if (shown < n)
		fprintf(out, "  ... %zu more threads omitted (the JSON report lists them all)\n",
			n - shown);
	size_t outside = wperf_fmt_threads_outside(r->graph);
	if (outside)
		fprintf(out, "  (%zu thread%s the trace names outside the analysed range, none in it: "
			"not listed)\n", outside, outside == 1 ? "" : "s");
	free(rows);
}

/* ------------------------------------------------------------------ */
/* Data quality                                                        */
/* ------------------------------------------------------------------ */

static void write_quality_counter(FILE *out, const char *what, uint64_t n,
				  const char *why)
{
	fprintf(out, "  %-32s %10llu%s%s\n", what, (unsigned long long)n,
		n && why ? "  " : "", n && why ? why : "");
}

static void write_gap(FILE *out, const struct wperf_gap *gap)
{
	char b[48], e[48];

	fputs("      ", out);
	if (gap->cpu >= 0)
		fprintf(out, "cpu %d: ", gap->cpu);
	else
		fputs("cpu ?: ", out);
	if (gap->begin_ns >= 0 && gap->end_ns >= 0) {
		wperf_fmt_timestamp(b, sizeof b, gap->begin_ns);
		wperf_fmt_timestamp(e, sizeof e, gap->end_ns);
		fprintf(out, "%s .. %s", b, e);
	} else {
		fputs("time unknown", out);
	}
	if (gap->count)
		fprintf(out, ", %llu %s lost", (unsigned long long)gap->count,
			gap->packets ? "packets" : "events");
	else
		fprintf(out, ", %s lost (count unknown)", gap->packets ? "packets" : "events");
	fputc('\n', out);
}

/* How much of the analysed time the gaps cover, and what it did to waits. */
static void write_gap_coverage(FILE *out, const struct wperf_graph *g)
{
	const struct wperf_quality *q = &g->quality;
	char d[32], s[32];

	wperf_fmt_duration(d, sizeof d, q->gap_ns, 0);
	wperf_fmt_ppm_percent(s, sizeof s, wperf_fmt_ppm(q->gap_ns, wperf_graph_duration(g)));
	/* Gaps without times are not counted: their extent is unknown. */
	fprintf(out, "  %-32s %10s  (%s of the analysed time)\n", "time inside gaps", d, s);
	write_quality_counter(out, "waits cut by gaps", q->waits_cut_by_gaps,
			      "(up to the gap's end: on `trace-gap`)");
	write_quality_counter(out, "runnable cut by gaps", q->runnable_cut_by_gaps,
			      "(the same: no runnable time across a gap)");
}

/*
 * The focus began long after the trace did (wperf_fmt_focus_start): a
 * command whose start the trace missed, or one started long after
 * recording began. Its shares are of the whole analysed time.
 */
static void write_focus_start(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	struct wperf_focus_start fs;
	char d[32], s[32];

	if (!wperf_fmt_focus_start(r, &fs) || !fs.late)
		return;
	wperf_fmt_duration(d, sizeof d, fs.after_ns, 0);
	wperf_fmt_ppm_percent(s, sizeof s, wperf_fmt_ppm(fs.after_ns, wperf_graph_duration(g)));
	fprintf(out, "  %-32s %10s  after the trace began (%s of the analysed time):\n"
		"  %-32s %10s  %s; its shares are of the whole time\n",
		"focus first seen", d, s, "", "",
		fs.forked ? "it began then (its fork is in the trace)"
			  : "its start may be missing (no fork in the trace)");
}

static bool in_knot_or_sink(const struct wperf_report *r, uint32_t v)
{
	for (size_t i = 0; r->knots && i < r->knots->n; i++)
		for (size_t m = 0; m < r->knots->items[i].n_members; m++)
			if (r->knots->items[i].members[m] == v)
				return true;
	return false;
}

static uint64_t mismatches_of(const struct wperf_vertex *v)
{
	return v->state_mismatches;
}

static uint64_t lost_wakeups_of(const struct wperf_vertex *v)
{
	return v->waits_without_wakeup;
}

/* The thread with the most (ties: the lowest id) that is not in `shown`,
 * or UINT32_MAX: the next one to name. */
static uint32_t next_loser(const struct wperf_graph *g,
			   uint64_t (*count)(const struct wperf_vertex *),
			   const uint32_t *shown, size_t n_shown)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t v = 0; v < g->n_vertices; v++) {
		uint64_t n = count(&g->vertices[v]);
		bool taken = false;

		for (size_t i = 0; i < n_shown; i++)
			taken |= shown[i] == v;
		if (n > 0 && !taken && (best == UINT32_MAX || n > count(&g->vertices[best])))
			best = v;
	}
	return best;
}

/* The knot and sink members among them, by name, with how often each
 * waited: two lost events among a thousand waits move little. */
static void write_losers_in_knots(FILE *out, const struct wperf_report *r,
				  uint64_t (*count)(const struct wperf_vertex *))
{
	const struct wperf_graph *g = r->graph;
	size_t listed = 0;
	char name[LABEL_LEN];

	fputs("      in knots and sinks:", out);
	for (uint32_t v = 0; v < g->n_vertices; v++) {
		const struct wperf_vertex *vx = &g->vertices[v];

		if (count(vx) == 0 || !in_knot_or_sink(r, v))
			continue;
		if (listed++ == MAX_LISTED_LOSERS) {
			fputs(" and more", out);
			break;
		}
		label(name, g, v);
		fprintf(out, "%s %s %llu (of its %llu waits)", listed > 1 ? "," : "", name,
			(unsigned long long)count(vx), (unsigned long long)vx->waits);
	}
	fputc('\n', out);
}

/*
 * Under a counter of events the trace lost around threads: whose they
 * were, most first, and whether any of them is in a knot or sink. A
 * finding rests on lost events only when its threads are among them; on
 * a busy machine they are mostly other programs' threads.
 */
static void write_losers(FILE *out, const struct wperf_report *r,
			 uint64_t (*count)(const struct wperf_vertex *))
{
	const struct wperf_graph *g = r->graph;
	size_t threads = 0, in_knots = 0, n_shown = 0;
	uint32_t shown[MAX_LISTED_LOSERS];
	char name[LABEL_LEN];

	for (uint32_t v = 0; v < g->n_vertices; v++)
		if (count(&g->vertices[v]) > 0) {
			threads++;
			in_knots += in_knot_or_sink(r, v);
		}
	if (threads == 0)
		return;
	fprintf(out, "      in %zu thread%s:", threads, threads == 1 ? "" : "s");
	while (n_shown < MAX_LISTED_LOSERS) {
		uint32_t v = next_loser(g, count, shown, n_shown);

		if (v == UINT32_MAX)
			break;
		label(name, g, v);
		fprintf(out, "%s %s %llu", n_shown ? "," : "", name,
			(unsigned long long)count(&g->vertices[v]));
		shown[n_shown++] = v;
	}
	if (threads > n_shown)
		fprintf(out, " and %zu more", threads - n_shown);
	if (in_knots == 0 && r->knots && r->knots->n > 0)
		fputs("; none in a knot or sink", out);
	fputc('\n', out);
	if (in_knots > 0)
		write_losers_in_knots(out, r, count);
}

/* Without timer expiry events, a timer firing on a busy CPU is charged to
 * the thread it interrupted: say so, and how many edges carry the mark. */
static void write_untraced_timers(FILE *out, const struct wperf_graph *g)
{
	size_t marked = 0;
	char line[256];

	if (g->quality.has_timer_events || g->quality.has_irq_context)
		return;
	for (size_t i = 0; i < g->n_edges; i++)
		marked += wperf_edge_may_be_timer(g, &g->edges[i]);
	snprintf(line, sizeof line, "no timer expiry events (hrtimer_expire, timer_expire): a "
		 "timer that fires while a thread runs is charged to that thread; %zu edge%s "
		 "marked " TIMER_MARK, marked, marked == 1 ? "" : "s");
	put_wrapped(out, "  ", line, 4);
}

static void write_quality(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_quality *q = &g->quality;

	fputs("\nData quality\n", out);
	write_quality_counter(out, "events analysed", q->events,
			      q->has_waking ? "(wakeups: sched_waking)"
					    : "(no sched_waking: used sched_wakeup)");
	write_focus_start(out, r);
	write_quality_counter(out, "discarded events", q->discarded_events,
			      "waits across the gaps are missing or cut");
	write_quality_counter(out, "discarded packets", q->discarded_packets,
			      "waits across the gaps are missing or cut");
	if (q->gaps && q->n_gaps > 0) {
		fprintf(out, "  %-32s %10zu\n", "gaps", q->n_gaps);
		for (size_t i = 0; i < q->n_gaps && i < MAX_LISTED_GAPS; i++)
			write_gap(out, &q->gaps[i]);
		if (q->n_gaps > MAX_LISTED_GAPS)
			fprintf(out, "      ... %zu more gaps\n", q->n_gaps - MAX_LISTED_GAPS);
		write_gap_coverage(out, g);
	}
	for (size_t i = 0; i < q->n_missing_cpus; i++)
		fprintf(out, "  %-32s %10d  (the target of %llu wakeups, but no event was recorded "
			"on it:\n  %-32s %10s  its stream file is missing or empty)\n",
			i == 0 ? "CPU without events" : "", q->missing_cpus[i].cpu,
			(unsigned long long)q->missing_cpus[i].wakeups, "", "");
	if (q->events_out_of_order)
		write_quality_counter(out, "events out of order", q->events_out_of_order,
				      "(clocks disagree: states are guesses)");
	write_quality_counter(out, "wakeups matching no wait", q->unmatched_wakeups,
			      "(the woken thread was not waiting)");
	write_quality_counter(out, "threads of unknown initial state",
			      q->unknown_initial_threads,
			      "(first seen mid-trace; no wait invented)");
	write_quality_counter(out, "waits without wakeup", q->waits_without_wakeup,
			      "(switched in with no wakeup seen)");
	write_losers(out, r, lost_wakeups_of);
	write_quality_counter(out, "waits open at end", q->waits_open_at_end,
			      "(counted as waiting on `unknown`)");
	if (q->cascades_truncated)
		write_quality_counter(out, "cascades truncated", q->cascades_truncated,
				      "(reached past the waker's kept history: less weight)");
	write_quality_counter(out, "unmatched block completions",
			      q->unmatched_block_completions, NULL);
	write_quality_counter(out, "scheduler state mismatches", q->state_mismatches,
			      "(events contradicting the tracked state)");
	write_losers(out, r, mismatches_of);
	write_quality_counter(out, "untraced interrupt wakeups", q->untraced_interrupt_wakeups,
			      "(woken from an interrupt the trace lacks: `unknown`)");
	write_untraced_timers(out, g);
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		char name[LABEL_LEN];

		if (v->kind != WPERF_V_NIC || v->bytes == 0 || v->capacity_bps ||
		    strncmp(v->name, "nic:", 4) != 0)
			continue;
		label(name, g, (uint32_t)i);   /* cleaned: names come from the trace */
		fprintf(out, "  %s: idle time unknown (give its speed: nic-capacity=\"%s=1Gbit\")\n",
			name, name + 4);
	}
	if (q->false_wakeups_merged || q->false_wakeups_unmerged) {
		write_quality_counter(out, "false wakeups merged", q->false_wakeups_merged,
				      "(wperf:false_wakeup: one wait with the next)");
		write_quality_counter(out, "false wakeups not merged", q->false_wakeups_unmerged,
				      "(declared after a long run, or with no wakeup)");
	}
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
	write_findings(out, r);
	write_groups(out, r);
	write_threads(out, r);
	write_merged(out, r);
	write_quality(out, r);
	return wperf_fmt_finish(out, false);
}
