/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-report.c — sink.wperf.knots' report at the end of the
 * input: the focus (pids, comms, what they forked) and what is opaque to
 * it, merging, the knot search with the weight limits resolved against
 * the analysed duration, and the report written in its format,
 * atomically to a file or to standard output.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/symbols.h"
#include "wperf/cpu.h"
#include "wperf/knots.h"
#include "wperf/report.h"
#include "knots-sink.h"

/* ------------------------------------------------------------------ */
/* The report.                                                         */
/* ------------------------------------------------------------------ */

static int64_t resolve_limit(const struct weight_limit *t, const struct wperf_graph *g)
{
	int64_t duration = wperf_graph_duration(g);

	if (!t->is_percent)
		return t->ns;
	return (int64_t)((double)duration * t->percent / 100.0 + 0.5);
}

static bool pid_listed(const struct knots_sink *s, int64_t id)
{
	return wperf_id_list_contains(s->pids, s->n_pids, id);
}

static bool comm_listed(const struct knots_sink *s, const char *comm)
{
	return wperf_string_list_contains(&s->comms, comm);
}

/* The pids of the processes that comms names: those of the main threads
 * (tid == pid) with a listed name. A user names the program
 * ("fig1-pipeline"), whose other threads often have names of their own
 * ("fig1-writer"). NULL with *n 0 when none; -1 when out of memory. */
static int named_processes(const struct knots_sink *s, const struct wperf_graph *g,
			   int64_t **pids, size_t *n)
{
	*pids = NULL;
	*n = 0;
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (v->kind != WPERF_V_THREAD || v->pid <= 0 || v->tid != v->pid ||
		    !(comm_listed(s, v->comm) || comm_listed(s, v->name)))
			continue;
		int64_t *more = realloc(*pids, (*n + 1) * sizeof **pids);

		if (!more) {
			free(*pids);
			*pids = NULL;
			return -1;
		}
		*pids = more;
		(*pids)[(*n)++] = v->pid;
	}
	return 0;
}

static bool vertex_in_focus(const struct knots_sink *s, const struct wperf_vertex *v,
			    const int64_t *named, size_t n_named)
{
	if (v->kind != WPERF_V_THREAD && v->kind != WPERF_V_VIRTUAL)
		return false;
	if (comm_listed(s, v->comm) || comm_listed(s, v->name))
		return true;
	if (wperf_comm_is_tracer_thread(v->comm))
		return false;
	if (v->pid > 0 && wperf_id_list_contains(named, n_named, v->pid))
		return true;
	/* Several hosts: a pid is each host's own (wperf_local_id()). */
	return (v->tid >= 0 && pid_listed(s, wperf_local_id(v->tid))) ||
	       (v->pid >= 0 && pid_listed(s, wperf_local_id(v->pid)));
}

/*
 * The tracer's own threads (LTTng-UST's listeners, LTTng's daemons and
 * tool: wperf_graph_mark_tracer_threads) wait for no one's work: their
 * waits are no dependency, or the session daemon's timer thread, waited
 * on by its rotation thread for the whole recording, is the first "sink"
 * of every report of a machine. With a focus they are not followed either:
 * the focused program waits for its listeners while they register with the
 * session daemon, which is the recording, not the program's work. Focused
 * or named in comms, they count. -1 when out of memory.
 */
static int build_opaque(struct knots_sink *s, const struct wperf_graph *g, const bool *focus,
			bool **opaque)
{
	*opaque = calloc(g->n_vertices ? g->n_vertices : 1, sizeof **opaque);
	if (!*opaque) {
		sink_fail(s, "out of memory");
		return -1;
	}
	if (wperf_graph_mark_tracer_threads(g, *opaque) < 0) {
		sink_fail(s, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if ((focus && focus[i]) || comm_listed(s, v->comm ? v->comm : v->name))
			(*opaque)[i] = false;
	}
	return 0;
}

/* How many items the lists of list_some_comms and list_some_pids show. */
#define LIST_SOME 12

/* Append ", " (unless first) and the item fmt makes to buf (of len,
 * *used bytes used); false when it does not fit. */
__attribute__((format(printf, 5, 6)))
static bool list_append(char *buf, size_t len, size_t *used, size_t *shown,
			const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (*shown)
		n = snprintf(buf + *used, len - *used, ", ");
	if (n >= 0 && (size_t)n < len - *used) {
		va_start(ap, fmt);
		int m = vsnprintf(buf + *used + n, len - *used - n, fmt, ap);
		va_end(ap);
		n = m < 0 ? m : n + m;
	}
	if (n < 0 || (size_t)n >= len - *used)
		return false;
	*used += (size_t)n;
	(*shown)++;
	return true;
}

/* ", ..." after a list cut at LIST_SOME items. */
static void list_end(char *buf, size_t len, size_t used, size_t shown)
{
	if (shown == LIST_SOME && used + 6 < len)
		snprintf(buf + used, len - used, ", ...");
}

/* "a, b, c, ..." : a few distinct thread names, to help fix a focus that
 * matched nothing. */
static void list_some_comms(const struct wperf_graph *g, char *buf, size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->n_vertices && shown < LIST_SOME; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		const char *c = v->comm ? v->comm : v->name;
		bool dup = false;

		if (v->kind != WPERF_V_THREAD || !c)
			continue;
		for (size_t j = 0; j < i && !dup; j++) {
			const struct wperf_vertex *w = &g->vertices[j];
			const char *d = w->comm ? w->comm : w->name;

			dup = w->kind == WPERF_V_THREAD && d && strcmp(c, d) == 0;
		}
		if (!dup && !list_append(buf, len, &used, &shown, "%s", c))
			break;
	}
	list_end(buf, len, used, shown);
}

/* A thread's process id for list_some_pids: its pid, or its tid when the
 * trace gave no pid. */
static int64_t pid_or_tid(const struct wperf_vertex *v)
{
	return wperf_local_id(v->pid > 0 ? v->pid : v->tid);
}

/* "1234 (nginx), 1240 (mariadbd), ...": a few pids of the graph (a tid
 * where the trace gave no pid), each with a thread's name, for an error
 * about pids=: the user asked by pid, pids help them pick. */
static void list_some_pids(const struct wperf_graph *g, char *buf, size_t len)
{
	size_t used = 0, shown = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < g->n_vertices && shown < LIST_SOME; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		bool dup = false;

		if (v->kind != WPERF_V_THREAD || pid_or_tid(v) <= 0)
			continue;
		for (size_t j = 0; j < i && !dup; j++)
			dup = g->vertices[j].kind == WPERF_V_THREAD &&
			      pid_or_tid(&g->vertices[j]) == pid_or_tid(v);
		if (dup)
			continue;
		if (!list_append(buf, len, &used, &shown, "%" PRId64 " (%s)", pid_or_tid(v),
				 v->comm ? v->comm : v->name ? v->name : "?"))
			break;
	}
	list_end(buf, len, used, shown);
}

/* follow-forks: what the focused threads forked joins the focus, except
 * the tracer's own threads (LTTng-UST's listeners, forked by every traced
 * process; the `lttng` tool or a session daemon a script starts) unless
 * their name was asked for. */
static int add_forked(struct knots_sink *s, const struct wperf_graph *g, bool *focus)
{
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool *asked = malloc(n * sizeof *asked);
	bool *tracer = calloc(n, sizeof *tracer);
	int rc = -1;

	if (!asked || !tracer)
		goto out;
	memcpy(asked, focus, g->n_vertices * sizeof *focus);
	if (wperf_graph_mark_forked(g, focus) < 0 ||
	    wperf_graph_mark_tracer_threads(g, tracer) < 0)
		goto out;
	for (size_t i = 0; i < g->n_vertices; i++)
		if (focus[i] && !asked[i] && tracer[i] && !comm_listed(s, g->vertices[i].comm))
			focus[i] = false;
	rc = 0;
out:
	if (rc < 0)
		sink_fail(s, "out of memory");
	free(asked);
	free(tracer);
	return rc;
}

/* The focus array for the knot search, or NULL when no focus was asked.
 * -1 when the focus matches no thread (error appended). */
static int build_focus(struct knots_sink *s, const struct wperf_graph *g, bool **focus)
{
	size_t matched = 0, n_named = 0;
	int64_t *named = NULL;
	char seen[512];

	*focus = NULL;
	if (s->n_pids == 0 && s->comms.n == 0)
		return 0;
	*focus = calloc(g->n_vertices ? g->n_vertices : 1, sizeof **focus);
	if (!*focus || named_processes(s, g, &named, &n_named) < 0) {
		free(*focus);
		*focus = NULL;
		sink_fail(s, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < g->n_vertices; i++) {
		(*focus)[i] = vertex_in_focus(s, &g->vertices[i], named, n_named);
		matched += (*focus)[i];
	}
	free(named);
	if (matched > 0)
		return s->follow_forks ? add_forked(s, g, *focus) : 0;
	if (s->n_pids && !s->comms.n) {
		list_some_pids(g, seen, sizeof seen);
		sink_fail(s, "parameter `pids`: no thread of the trace matches (pids seen, "
		     "pid (name): %s)", seen[0] ? seen : "none");
	} else {
		list_some_comms(g, seen, sizeof seen);
		sink_fail(s, "parameter `%s`: no thread of the trace matches (threads seen: %s)",
		     s->n_pids ? "pids`/`comms" : "comms", seen[0] ? seen : "none");
	}
	free(*focus);
	*focus = NULL;
	return -1;
}

/* One picture as a string (to free), or NULL with a reason in err. */
static char *svg_string(const struct wperf_report *r, bool first, char *err, size_t len)
{
	char *svg = NULL;
	size_t n = 0;
	FILE *mem = open_memstream(&svg, &n);
	int rc;

	if (!mem)
		return NULL;
	rc = first ? wperf_report_write_first_svg(r, mem, err, len) :
		     wperf_report_write_svg(r, mem, err, len);
	if (fclose(mem) != 0 && rc == 0)
		rc = -1;
	if (rc == 0)
		return svg;
	free(svg);
	return NULL;
}

/* The HTML page, with its two pictures when Graphviz is installed. */
static int write_html(const struct wperf_report *r, FILE *f, char *err, size_t len)
{
	char *svg, *first = NULL;
	int rc = -1;

	if (!wperf_graphviz_available())
		return wperf_report_write_html(r, NULL, NULL, "Graphviz is not installed "
					       "(apt-get install graphviz)", f);
	svg = svg_string(r, false, err, len);
	if (svg && r->knots && r->knots->n)
		first = svg_string(r, true, err, len);
	if (svg && (first || !r->knots || !r->knots->n))
		rc = wperf_report_write_html(r, svg, first, NULL, f);
	free(svg);
	free(first);
	return rc;
}

/* Write the report in the chosen format; -1 with a reason in err. */
static int write_format(struct knots_sink *s, const struct wperf_report *r, FILE *f,
			char *err, size_t len)
{
	int rc;

	err[0] = '\0';
	switch (s->format) {
	case FORMAT_JSON:    rc = wperf_report_write_json(r, f); break;
	case FORMAT_DOT:     rc = wperf_report_write_dot(r, f); break;
	case FORMAT_SVG:     rc = wperf_report_write_svg(r, f, err, len); break;
	case FORMAT_HTML:    rc = write_html(r, f, err, len); break;
	case FORMAT_GRAPHML: rc = wperf_report_write_graphml(r, f); break;
	default:             rc = wperf_report_write_text(r, f); break;
	}
	if (rc < 0 && !err[0])
		snprintf(err, len, "cannot write the report to %s: %s",
			 s->path ? s->path : "standard output", strerror(errno));
	return rc;
}

static int write_report(struct knots_sink *s, const struct wperf_report *r)
{
	char err[512];

	if (wperf_output_open(&s->out, s->path, err, sizeof err) < 0) {
		sink_fail(s, "parameter `path`: %s", err);
		return -1;
	}
	if (write_format(s, r, s->out.f, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		wperf_output_abort(&s->out);
		return -1;
	}
	if (wperf_output_commit(&s->out, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* The decoder that fed the analysis we report. */
static const struct wperf_decoder *used_decoder(const struct knots_sink *s)
{
	return s->shared ? s->shared->decoder : s->decoder;
}

void sink_print_decode_stats(const struct knots_sink *s)
{
	static const char *const names[WPERF_EV_TYPE_COUNT] = {
		"switch", "wakeup", "wakeup_new", "fork", "exec", "exit", "free",
		"irq_entry", "irq_exit", "softirq_entry", "softirq_exit",
		"timer_entry", "timer_exit", "block_insert", "block_issue",
		"block_complete", "statedump_process", "statedump_block_device",
		"spin_begin", "spin_end", "false_wakeup", "progress", "net_xmit", "net_recv",
		"stack", "softirq_raise", "tcp_send", "tcp_recv",
	};
	const uint64_t *counts = wperf_decoder_event_counts(used_decoder(s));
	const char *env = getenv("WPERF_DECODE_STATS");

	if (!env || !*env || strcmp(env, "0") == 0)
		return;
	fprintf(stderr, "%s: decoded events%s:", COMP_NAME,
		s->shared ? " (by filter.wperf.waits, whose analysis is reused)" : "");
	for (int i = 0; i < WPERF_EV_TYPE_COUNT; i++)
		fprintf(stderr, " %s=%" PRIu64, names[i], counts[i]);
	fputc('\n', stderr);
}

/* Merge threads as asked (wperf/merge.h). The focus was computed on the
 * threads themselves; it follows them to their merged vertices. */
static int apply_merge(struct knots_sink *s, struct wperf_graph *g, bool **focus)
{
	size_t n_old = g->n_vertices;
	uint32_t *map = NULL;
	bool *merged = NULL;
	struct wperf_merge_options merge = s->merge;

	/* A focus with many short-lived children (a script starting a
	 * command per item) waits on each one once, lighter than the noise
	 * floor: merged by default, said in the report, short-lived="keep"
	 * to see them apart (babeltrace2-sink.wperf.knots(7)). */
	if (!s->short_lived_given && *focus)
		merge.short_lived = true;
	if (merge.key == WPERF_MERGE_NONE && !merge.short_lived)
		return 0;
	if (s->merge.key == WPERF_MERGE_STACK && g->n_stacks == 0) {
		sink_fail(s, "parameter `merge`: \"stack\" needs call stacks and the trace has "
		     "none: record them (`wperf record --stacks`, source.wperf.tracefs "
		     "stacks=\"kernel\", LTTng's callstack-kernel/callstack-user contexts "
		     "on sched_switch, or `perf record -g`), or use pool, none, process or name");
		return -1;
	}
	if (wperf_graph_merge(g, &merge, &map) < 0)
		goto oom;
	if (*focus) {
		merged = calloc(g->n_vertices ? g->n_vertices : 1, sizeof *merged);
		if (!merged)
			goto oom;
		for (size_t i = 0; i < n_old; i++)
			merged[map[i]] |= (*focus)[i];
		free(*focus);
		*focus = merged;
	}
	free(map);
	return 0;
oom:
	free(map);
	sink_fail(s, "out of memory while merging threads");
	return -1;
}

/*
 * The finished analysis' graph: ours, or the one the filter we reuse
 * finished before it ended. That filter handed us every message it
 * produced; if the counts disagree, something we cannot see came between
 * us, and a report from it could be wrong: refuse rather than guess.
 */
static int take_graph(struct knots_sink *s, struct wperf_graph *graph)
{
	memset(graph, 0, sizeof *graph);
	if (!s->shared) {
		if (wperf_decoder_finish(s->decoder, s->analysis, graph) == 0)
			return 0;
		sink_fail(s, "%s", wperf_decoder_explain(s->decoder,
						    wperf_analysis_error(s->analysis)));
		return -1;
	}
	if (!s->shared->finished || s->shared->messages_out != s->messages_in) {
		sink_fail(s, "internal error: the analysis of filter.wperf.waits, reused here, "
		     "did not see the messages received here (%" PRIu64 " sent, %" PRIu64
		     " received); run again with WPERF_SHARE_ANALYSIS=0",
		     s->shared->messages_out, s->messages_in);
		return -1;
	}
	*graph = s->shared->graph;   /* moved: ours to free now */
	memset(&s->shared->graph, 0, sizeof s->shared->graph);
	s->shared->finished = false;
	return 0;
}

/*
 * A finished analysis' graph: find the knots and write the report, into
 * f (every=: the stream of reports) or, f NULL, to the output (path=).
 * The graph is released. -1 with the error appended.
 */
int sink_report_graph(struct knots_sink *s, struct wperf_graph *graph_in, FILE *f)
{
	struct wperf_graph graph = *graph_in;
	struct wperf_knots knots = { 0 };
	struct wperf_classes classes = { 0 };
	struct wperf_knot_options opts = { 0 };
	struct wperf_cpu_finding cpu;
	struct wperf_report report;
	bool *focus = NULL, *opaque = NULL;
	char stacks_note[256], err[512];
	int rc = -1;

	memset(graph_in, 0, sizeof *graph_in);
	if (wperf_symbolize_stacks(&graph, wperf_decoder_clock_uuid(used_decoder(s)),
				   wperf_decoder_kernel_text(used_decoder(s)),
				   stacks_note, sizeof stacks_note) < 0) {
		sink_fail(s, "out of memory while naming stack frames");
		goto out;
	}
	if (build_focus(s, &graph, &focus) < 0 || apply_merge(s, &graph, &focus) < 0)
		goto out;
	opts.threshold_ns = resolve_limit(&s->threshold, &graph);
	opts.min_weight_ns = resolve_limit(&s->min_weight, &graph);
	opts.leave_ppm = s->leave_ppm;
	opts.tie_ppm = s->tie_ppm;
	opts.focus = focus;
	if (build_opaque(s, &graph, focus, &opaque) < 0)
		goto out;
	opts.opaque = opaque;
	/* Each finding is classified here, once, for every writer. */
	if (wperf_knots_find(&graph, &opts, &knots) < 0 ||
	    wperf_classes_find(&graph, &knots, opts.min_weight_ns, &classes) < 0 ||
	    wperf_cpu_find(&graph, focus, opaque, opts.min_weight_ns, &cpu) < 0) {
		sink_fail(s, "out of memory while looking for knots");
		goto out;
	}
	report = (struct wperf_report){
		.graph = &graph,
		.knots = &knots,
		.threshold_ns = opts.threshold_ns,
		.threshold_spec = s->threshold.spec,
		.min_weight_ns = opts.min_weight_ns,
		.min_weight_spec = s->min_weight.spec,
		.strict_rule = s->strict_rule,
		.leave_ppm = opts.leave_ppm,
		.tie_ppm = opts.tie_ppm,
		.focus = focus,
		.opaque = opaque,
		.stacks_note = stacks_note[0] ? stacks_note : NULL,
		.cpu = &cpu,
		.classes = &classes,
	};
	if (!f) {
		rc = write_report(s, &report);
	} else {
		rc = write_format(s, &report, f, err, sizeof err);
		if (rc < 0)
			sink_fail(s, "%s", err);
	}
out:
	wperf_classes_fini(&classes);
	wperf_knots_fini(&knots);
	wperf_graph_fini(&graph);
	free(focus);
	free(opaque);
	return rc;
}

/* End of input without every=: finish the analysis, find the knots,
 * write the report. */
int sink_finish(struct knots_sink *s)
{
	struct wperf_graph graph;

	if (take_graph(s, &graph) < 0)
		return -1;
	return sink_report_graph(s, &graph, NULL);
}

