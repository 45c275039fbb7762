/* SPDX-License-Identifier: MIT */
/*
 * analysis/graph.c — the finished wait-for graph's own functions
 * (wperf/graph.h): names of kinds and states, what a thread's name says
 * (a tracer's thread, a kernel thread that only waits for work), time and
 * edge look-ups, the time inside the trace's gaps, and the sets of forked
 * and tracer threads.
 *
 * They read a graph or a name, never the analysis that builds the graph:
 * the thread tracker (threads.c), the knot search and the reports call
 * them without depending on analysis.c.
 */
#include <stdlib.h>
#include <string.h>

#include "wperf/graph.h"
#include "array.h"
#include "timeline.h"

const char *wperf_vertex_kind_name(enum wperf_vertex_kind kind)
{
	static const char *const names[WPERF_V_KIND_COUNT] = {
		"thread", "disk", "nic", "irq", "softirq", "timer", "unknown", "virtual",
	};

	return (unsigned)kind < WPERF_V_KIND_COUNT ? names[kind] : "invalid";
}

bool wperf_comm_is_tracer_thread(const char *comm)
{
	size_t n = comm ? strlen(comm) : 0;

	return n > 4 && strcmp(comm + n - 4, "-ust") == 0;
}

#define STARTS_WITH(s, prefix) (strncmp((s), (prefix), sizeof(prefix) - 1) == 0)

bool wperf_comm_waits_only_for_work(const char *comm)
{
	/* Called for every wait that ends: the first letter rules out most
	 * names at once. */
	switch (comm ? comm[0] : '\0') {
	case 'k':
		return STARTS_WITH(comm, "ksoftirqd/");
	case 'm':
		return STARTS_WITH(comm, "migration/");
	case 'c':
		return STARTS_WITH(comm, "cpuhp/");
	case 'i':
		return STARTS_WITH(comm, "idle_inject/");
	case 'w':
		return STARTS_WITH(comm, "watchdog/") || strcmp(comm, "watchdogd") == 0;
	case 'r':
		return STARTS_WITH(comm, "rcu_") || STARTS_WITH(comm, "rcuc/") ||
		       STARTS_WITH(comm, "rcuo");
	default:
		return false;
	}
}

void wperf_graph_fini(struct wperf_graph *g)
{
	for (size_t i = 0; i < g->n_vertices; i++) {
		free(g->vertices[i].name);
		free(g->vertices[i].comm);
		free(g->vertices[i].members);
		free(g->vertices[i].member_pids);
	}
	free(g->vertices);
	free(g->edges);
	free(g->quality.gaps);
	free(g->quality.missing_cpus);
	for (size_t i = 0; i < g->n_progress; i++)
		free(g->progress[i].name);
	free(g->progress);
	for (size_t i = 0; i < g->n_stacks; i++) {
		for (size_t f = 0; g->stacks[i].symbols && f < g->stacks[i].n; f++)
			free(g->stacks[i].symbols[f]);
		free(g->stacks[i].symbols);
		free(g->stacks[i].ips);
	}
	free(g->stacks);
	wperf_timelines_free(g->timelines, g->n_vertices);
	for (size_t i = 0; i < g->n_hosts; i++)
		free(g->hosts[i]);
	free(g->hosts);
	for (size_t i = 0; i < g->n_host_clocks; i++) {
		free(g->host_clocks[i].reference);
		free(g->host_clocks[i].via);
	}
	free(g->host_clocks);
	memset(g, 0, sizeof *g);
}

int wperf_graph_set_hosts(struct wperf_graph *g, const char *const *names, size_t n)
{
	char **hosts;

	if (n < 2)
		return 0;   /* one host: nothing to name */
	hosts = calloc(n, sizeof *hosts);
	if (!hosts)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (!(hosts[i] = strdup(names[i] ? names[i] : "?"))) {
			while (i--)
				free(hosts[i]);
			free(hosts);
			return -1;
		}
	g->hosts = hosts;
	g->n_hosts = n;
	return 0;
}

const char *wperf_vertex_host_name(const struct wperf_graph *g, const struct wperf_vertex *v)
{
	return g->n_hosts > 1 && v->host < g->n_hosts ? g->hosts[v->host] : NULL;
}

size_t wperf_graph_first_edge_from(const struct wperf_graph *g, uint32_t v)
{
	size_t lo = 0, hi = g->n_edges;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->edges[mid].from < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int64_t wperf_graph_duration(const struct wperf_graph *g)
{
	if (g->end_ns <= g->begin_ns)
		return 0;
	if (g->begin_ns < 0 && g->end_ns > INT64_MAX + g->begin_ns)
		return 0;       /* end - begin would overflow */
	return g->end_ns - g->begin_ns;
}

int64_t wperf_vertex_time(const struct wperf_graph *g, uint32_t v)
{
	const struct wperf_vertex *x;
	int64_t sum;

	if (v >= g->n_vertices)
		return 0;
	x = &g->vertices[v];
	if (x->kind != WPERF_V_THREAD && x->kind != WPERF_V_VIRTUAL)
		return wperf_graph_duration(g);
	/* Saturating: a corrupt trace must not wrap the sum. */
	sum = x->running_ns > 0 ? x->running_ns : 0;
	sum = sum > INT64_MAX - (x->runnable_ns > 0 ? x->runnable_ns : 0)
		? INT64_MAX : sum + (x->runnable_ns > 0 ? x->runnable_ns : 0);
	for (int k = 0; k < WPERF_V_KIND_COUNT; k++) {
		int64_t w = x->waiting_ns[k] > 0 ? x->waiting_ns[k] : 0;
		sum = sum > INT64_MAX - w ? INT64_MAX : sum + w;
	}
	return sum;
}

static int cmp_gap_begin(const void *x, const void *y)
{
	const struct wperf_gap *a = x, *b = y;

	return (a->begin_ns > b->begin_ns) - (a->begin_ns < b->begin_ns);
}

/* Time inside at least one gap (gaps on several CPUs overlap; gaps
 * without times count for nothing: their extent is unknown). */
int64_t wperf_gap_coverage(const struct wperf_quality *q, int64_t begin, int64_t end)
{
	struct wperf_gap *g = malloc((q->n_gaps ? q->n_gaps : 1) * sizeof *g);
	size_t n = 0;
	int64_t covered = 0, upto = begin;

	if (!g)
		return -1;
	for (size_t i = 0; i < q->n_gaps; i++) {
		struct wperf_gap x = q->gaps[i];

		if (x.begin_ns < 0 || x.end_ns < 0)
			continue;
		x.begin_ns = x.begin_ns < begin ? begin : x.begin_ns;
		x.end_ns = x.end_ns > end ? end : x.end_ns;
		if (x.end_ns > x.begin_ns)
			g[n++] = x;
	}
	if (n)
		qsort(g, n, sizeof *g, cmp_gap_begin);
	for (size_t i = 0; i < n; i++) {
		int64_t b = g[i].begin_ns > upto ? g[i].begin_ns : upto;

		if (g[i].end_ns > b)
			covered += g[i].end_ns - b;
		if (g[i].end_ns > upto)
			upto = g[i].end_ns;
	}
	free(g);
	return covered;
}

const struct wperf_edge *wperf_graph_find_edge(const struct wperf_graph *g, uint32_t from,
					       uint32_t to)
{
	for (size_t e = wperf_graph_first_edge_from(g, from);
	     e < g->n_edges && g->edges[e].from == from; e++)
		if (g->edges[e].to == to)
			return &g->edges[e];
	return NULL;
}

/*
 * The parent of thread vertex v: the thread with v's parent_tid that began
 * last before v did (a tid is reused only after its thread ended, and the
 * reuse is a new vertex). threads[] holds the thread vertices sorted by
 * (tid, first_ts). SIZE_MAX when the trace saw no fork of v or no parent.
 */
static int by_tid_then_birth(const void *a, const void *b, void *graph)
{
	const struct wperf_graph *g = graph;
	const struct wperf_vertex *x = &g->vertices[*(const uint32_t *)a];
	const struct wperf_vertex *y = &g->vertices[*(const uint32_t *)b];

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return (x->first_ts > y->first_ts) - (x->first_ts < y->first_ts);
}

static size_t parent_of(const struct wperf_graph *g, const uint32_t *threads, size_t n,
			const struct wperf_vertex *v)
{
	size_t lo = 0, hi = n, found = SIZE_MAX;

	if (v->parent_tid <= 0)
		return SIZE_MAX;
	/* The last entry with (tid, first_ts) <= (parent_tid, v->first_ts). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct wperf_vertex *m = &g->vertices[threads[mid]];

		if (m->tid < v->parent_tid ||
		    (m->tid == v->parent_tid && m->first_ts <= v->first_ts)) {
			found = mid;
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (found == SIZE_MAX || g->vertices[threads[found]].tid != v->parent_tid ||
	    threads[found] == v->id)
		return SIZE_MAX;
	return threads[found];
}

int wperf_graph_mark_forked(const struct wperf_graph *g, bool *marked)
{
	uint32_t *threads = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *threads);
	size_t *parent = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *parent);
	size_t n = 0;
	bool changed = true;

	if (!threads || !parent) {
		free(threads);
		free(parent);
		return -1;
	}
	for (size_t i = 0; i < g->n_vertices; i++)
		if (g->vertices[i].kind == WPERF_V_THREAD)
			threads[n++] = (uint32_t)i;
	qsort_r(threads, n, sizeof *threads, by_tid_then_birth, (void *)g);
	for (size_t i = 0; i < g->n_vertices; i++)
		parent[i] = g->vertices[i].kind == WPERF_V_THREAD ?
			    parent_of(g, threads, n, &g->vertices[i]) : SIZE_MAX;
	/* Until nothing changes: each pass marks at least one more generation,
	 * and a parent_tid loop (a corrupt trace) cannot mark anything twice. */
	while (changed) {
		changed = false;
		for (size_t i = 0; i < g->n_vertices; i++)
			if (!marked[i] && parent[i] != SIZE_MAX && marked[parent[i]])
				changed = marked[i] = true;
	}
	free(threads);
	free(parent);
	return 0;
}

/* Is v a thread, or threads merged into one vertex? */
static bool is_thread_like(const struct wperf_vertex *v)
{
	return v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL;
}

/* The edges first..end-1 (one waiter's, sorted by from) hold a wait on
 * `untraced-interrupt`. */
static bool waited_on_untraced_interrupt(const struct wperf_graph *g, size_t first,
					 size_t end)
{
	for (size_t i = first; i < end; i++) {
		const struct wperf_vertex *w = &g->vertices[g->edges[i].to];

		if (w->kind == WPERF_V_UNKNOWN && strcmp(w->name, "untraced-interrupt") == 0 &&
		    g->edges[i].direct_ns + g->edges[i].idle_ns > 0)
			return true;
	}
	return false;
}

/* The edge joins two thread-like vertices, in a trace without timer
 * events or interrupt contexts: the marks' other conditions. */
static bool may_be_timer_pair(const struct wperf_graph *g, const struct wperf_edge *e)
{
	return !g->quality.has_timer_events && !g->quality.has_irq_context &&
	       e->from < g->n_vertices && e->to < g->n_vertices &&
	       is_thread_like(&g->vertices[e->from]) && is_thread_like(&g->vertices[e->to]);
}

/* The end of the run of edges from the same vertex as edges[first]. */
static size_t end_of_waiter(const struct wperf_graph *g, size_t first)
{
	size_t end = first;

	while (end < g->n_edges && g->edges[end].from == g->edges[first].from)
		end++;
	return end;
}

bool wperf_edge_may_be_timer(const struct wperf_graph *g, const struct wperf_edge *e)
{
	size_t first;

	if (!may_be_timer_pair(g, e))
		return false;
	/* The waiter's own out-edges (sorted by from). */
	first = wperf_graph_first_edge_from(g, e->from);
	return waited_on_untraced_interrupt(g, first, end_of_waiter(g, first));
}

size_t wperf_graph_count_may_be_timer(const struct wperf_graph *g)
{
	size_t marked = 0;

	/* A waiter's out-edges are scanned once, not once per edge: a
	 * thread may wait on thousands. */
	for (size_t first = 0, end; first < g->n_edges; first = end) {
		end = end_of_waiter(g, first);
		if (!waited_on_untraced_interrupt(g, first, end))
			continue;
		for (size_t i = first; i < end; i++)
			marked += may_be_timer_pair(g, &g->edges[i]);
	}
	return marked;
}

bool wperf_comm_is_tracer_process(const char *comm)
{
	static const char *const names[] = {
		"lttng-sessiond", "lttng-consumerd", "lttng-relayd", "lttng-runas", "lttng",
		"wperf", NULL
	};

	for (size_t i = 0; comm && names[i]; i++)
		if (strcmp(comm, names[i]) == 0)
			return true;
	return false;
}

int wperf_graph_mark_tracer_threads(const struct wperf_graph *g, bool *tracer)
{
	int64_t *pids = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *pids);
	size_t n = 0;

	if (!pids)
		return -1;
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (v->kind == WPERF_V_THREAD && v->pid > 0 &&
		    wperf_comm_is_tracer_process(v->comm))
			pids[n++] = v->pid;
	}
	qsort(pids, n, sizeof *pids, array_cmp_i64);
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (v->kind != WPERF_V_THREAD && v->kind != WPERF_V_VIRTUAL)
			continue;
		/* Named after a daemon or tool itself: the tracer's even where
		 * the trace does not say its process (no statedump, no fork). */
		if (wperf_comm_is_tracer_thread(v->comm ? v->comm : v->name) ||
		    (v->kind == WPERF_V_THREAD && wperf_comm_is_tracer_process(v->comm)) ||
		    (v->pid > 0 && bsearch(&v->pid, pids, n, sizeof *pids, array_cmp_i64)))
			tracer[i] = true;
	}
	free(pids);
	return 0;
}

