/* SPDX-License-Identifier: MIT */
/*
 * cpu.c — the CPU finding (wperf/cpu.h): the report's threads' runnable
 * time against their waits, and who else ran on the CPUs.
 *
 * It reads the finished (and merged) graph's per-thread breakdown, in
 * one pass over the vertices: the focus threads' and those they wait on
 * (without a focus, every thread's but the tracer's) runnable time and
 * waits, each thread's split
 * weighed by the work it did (wperf_cpu_weigh), and the running time of
 * the others; then it ranks the focus by process to name the one that
 * waited longest for a CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "wperf/cpu.h"
#include "wperf/knots.h"

static bool is_threadlike(const struct wperf_vertex *v)
{
	return v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL;
}

/* The idle task is no thread that could have used a CPU. */
static bool is_idle_task(const struct wperf_vertex *v)
{
	return v->kind == WPERF_V_THREAD && v->tid == 0;
}

/* A kernel service thread (or a pool of them) waits only for work. */
static bool waits_only_for_work(const struct wperf_vertex *v)
{
	return wperf_comm_waits_only_for_work(v->kind == WPERF_V_THREAD ? v->comm : v->name);
}

static int64_t add(int64_t a, int64_t b)
{
	return b > 0 && a > INT64_MAX - b ? INT64_MAX : a + b;
}

/* Keep ids[] the `WPERF_CPU_LISTED` largest by key, largest first. */
static void keep_top(uint32_t *ids, size_t *n, int64_t *keys, uint32_t id, int64_t key)
{
	size_t pos = *n < WPERF_CPU_LISTED ? (*n)++ : WPERF_CPU_LISTED;

	while (pos > 0 && keys[pos - 1] < key) {
		if (pos < WPERF_CPU_LISTED) {
			ids[pos] = ids[pos - 1];
			keys[pos] = keys[pos - 1];
		}
		pos--;
	}
	if (pos < WPERF_CPU_LISTED) {
		ids[pos] = id;
		keys[pos] = key;
	}
}

/* Waits on what could be sped up: not timers, not `unknown`. */
static int64_t dependency_waits(const struct wperf_vertex *v)
{
	int64_t w = 0;

	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		if (!wperf_vertex_kind_is_category((enum wperf_vertex_kind)k))
			w = add(w, v->waiting_ns[k]);
	return w;
}

/* a * b / c for 0 <= a, b and 0 < c, a * b / c <= INT64_MAX (b <= c
 * here), without overflowing the product. */
static int64_t mul_div(int64_t a, int64_t b, int64_t c)
{
	return (int64_t)((__int128)a * b / c);
}

void wperf_cpu_weigh(const struct wperf_vertex *v, int64_t *runnable, int64_t *waiting)
{
	*runnable = *waiting = 0;
	if (v->kind == WPERF_V_VIRTUAL) {
		*runnable = v->cpu_weighted_runnable_ns;
		*waiting = v->cpu_weighted_waiting_ns;
		return;
	}
	if (v->kind != WPERF_V_THREAD)
		return;
	int64_t r = v->running_ns > 0 ? v->running_ns : 0;
	int64_t q = wperf_vertex_cpu_need_ns(v);
	int64_t d = waits_only_for_work(v) ? 0 : dependency_waits(v);
	int64_t k = v->woken_cpu_wait_ns > 0 && !waits_only_for_work(v) ? v->woken_cpu_wait_ns : 0;
	int64_t c = v->waited_on_runnable_ns < 0 ? 0 : v->waited_on_runnable_ns;
	/* A device wakeup's wait for a CPU is the cost of the wait it ended. */
	d = add(d, k);
	int64_t t = add(add(r, q), d);

	if (c > d)
		c = d;
	if (t <= 0)
		return;
	/* Each part times (r + q) / T, the share of its life the thread
	 * asked for a CPU: q + c and d - c are each at most T. */
	*runnable = mul_div(r + q, q + c, t);
	*waiting = mul_div(r + q, d - c, t);
}

/* A focus vertex and the process it counts for. */
struct proc_entry {
	int64_t key;            /* the pid, or -(id + 1) without one process */
	uint32_t id;
	int64_t runnable_ns;
};

static int cmp_proc_entry(const void *a, const void *b)
{
	const struct proc_entry *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The process runnable longest, summed over its vertices, and its most
 * runnable vertices into out: a pool of four client threads merged into
 * one vertex must not outrank a server whose four workers, unmerged, were
 * runnable longer in sum. e[0 .. n) is sorted by key. Ties: the first key.
 */
static void rank_processes(const struct wperf_graph *g, struct proc_entry *e, size_t n,
			   struct wperf_cpu_finding *out)
{
	size_t best = 0, best_end = 0;
	int64_t best_ns = -1;

	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t sum = 0;

		for (; j < n && e[j].key == e[i].key; j++)
			sum = add(sum, e[j].runnable_ns);
		if (sum > best_ns) {
			best_ns = sum;
			best = i;
			best_end = j;
		}
		i = j;
	}
	if (best_ns < 0)
		return;
	int64_t top[WPERF_CPU_LISTED] = { 0 };

	out->process_pid = g->vertices[e[best].id].pid > 0 ? g->vertices[e[best].id].pid : -1;
	out->process_runnable_ns = best_ns;
	for (size_t i = best; i < best_end; i++)
		keep_top(out->runnable, &out->n_runnable, top, e[i].id, e[i].runnable_ns);
}

/*
 * The report's threads with a focus: the focus and what it waits on,
 * directly or through others, over dependencies (not through a device's
 * own edges, nor into the tracer's threads): a client's server runnable
 * most of its time holds the client up as much as its own runnable time
 * does. Edges are sorted by `from` (wperf/graph.h). NULL when out of memory.
 */
static bool *focus_reach(const struct wperf_graph *g, const bool *focus, const bool *opaque,
			 int64_t min_weight_ns)
{
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool *seen = calloc(n, sizeof *seen);
	uint32_t *queue = malloc(n * sizeof *queue);
	size_t *start = calloc(n + 1, sizeof *start), head = 0, tail = 0;

	if (!seen || !queue || !start)
		goto fail;
	for (size_t e = 0; e < g->n_edges; e++)
		if (g->edges[e].from < g->n_vertices)
			start[g->edges[e].from + 1]++;
	for (size_t v = 0; v < g->n_vertices; v++)
		start[v + 1] += start[v];
	for (uint32_t v = 0; v < g->n_vertices; v++)
		if (focus[v]) {
			seen[v] = true;
			queue[tail++] = v;
		}
	while (head < tail) {
		uint32_t v = queue[head++];

		if (wperf_vertex_kind_is_device(g->vertices[v].kind))
			continue;
		for (size_t e = start[v]; e < start[v + 1] && e < g->n_edges; e++) {
			uint32_t w = g->edges[e].to;

			if (w < g->n_vertices && !seen[w] && !(opaque && opaque[w]) &&
			    wperf_edge_is_dependency(g, &g->edges[e], min_weight_ns)) {
				seen[w] = true;
				queue[tail++] = w;
			}
		}
	}
	free(queue);
	free(start);
	return seen;
fail:
	free(seen);
	free(queue);
	free(start);
	return NULL;
}

int wperf_cpu_find(const struct wperf_graph *g, const bool *focus, const bool *opaque,
		   int64_t min_weight_ns, struct wperf_cpu_finding *out)
{
	int64_t top_running[WPERF_CPU_LISTED] = { 0 };
	int64_t first = -1, last = -1;
	struct proc_entry *procs = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *procs);
	size_t n_procs = 0;

	bool *reach = focus ? focus_reach(g, focus, opaque, min_weight_ns) : NULL;

	memset(out, 0, sizeof *out);
	out->process_pid = -1;
	if (!procs || (focus && !reach)) {
		free(procs);
		free(reach);
		return -1;
	}
	for (uint32_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (!is_threadlike(v) || is_idle_task(v))
			continue;
		if (reach ? !reach[i] : opaque && opaque[i]) {
			/* Not the report's: load beside it. */
			if (v->running_ns > 0) {
				out->others_running_ns = add(out->others_running_ns, v->running_ns);
				keep_top(out->others, &out->n_others, top_running, i, v->running_ns);
			}
			continue;
		}
		out->own_running_ns = add(out->own_running_ns,
					  v->running_ns > 0 ? v->running_ns : 0);
		if (wperf_vertex_cpu_need_ns(v) > 0) {
			out->n_threads += v->kind == WPERF_V_VIRTUAL && v->n_members ? v->n_members : 1;
			out->runnable_ns = add(out->runnable_ns, wperf_vertex_cpu_need_ns(v));
			procs[n_procs++] = (struct proc_entry){
				.key = v->pid > 0 ? v->pid : -(int64_t)i - 1, .id = i,
				.runnable_ns = wperf_vertex_cpu_need_ns(v) };
		}
		out->wake_latency_ns = add(out->wake_latency_ns,
					   v->wake_latency_ns > 0 ? v->wake_latency_ns : 0);
		if (!waits_only_for_work(v)) {
			out->waiting_ns = add(out->waiting_ns, dependency_waits(v));
			out->waited_on_runnable_ns = add(out->waited_on_runnable_ns,
							 v->waited_on_runnable_ns);
		}
		int64_t wr, ww;

		wperf_cpu_weigh(v, &wr, &ww);
		out->weighted_runnable_ns = add(out->weighted_runnable_ns, wr);
		out->weighted_waiting_ns = add(out->weighted_waiting_ns, ww);
		if (v->first_ts >= 0 && (first < 0 || v->first_ts < first))
			first = v->first_ts;
		if (v->last_ts > last)
			last = v->last_ts;
	}
	free(reach);
	qsort(procs, n_procs, sizeof *procs, cmp_proc_entry);
	rank_processes(g, procs, n_procs, out);
	free(procs);
	out->span_ns = first >= 0 && last > first ? last - first : wperf_graph_duration(g);
	out->first = out->weighted_runnable_ns > out->weighted_waiting_ns &&
		     out->runnable_ns >= min_weight_ns && out->runnable_ns > 0 &&
		     out->runnable_ns >= out->span_ns / 4;
	return 0;
}
