/*
 * cpu.c — the CPU finding (wperf/cpu.h): the report's threads' runnable
 * time against their waits, and who else ran on the CPUs.
 *
 * It reads the finished (and merged) graph's per-thread breakdown, in
 * one pass over the vertices: the focus threads' (without a focus, every
 * thread's but the tracer's) runnable time and waits, and the running
 * time of the others.
 */
#include <stdlib.h>
#include <string.h>

#include "wperf/cpu.h"

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

int wperf_cpu_find(const struct wperf_graph *g, const bool *focus, const bool *opaque,
		   int64_t min_weight_ns, struct wperf_cpu_finding *out)
{
	int64_t top_runnable[WPERF_CPU_LISTED] = { 0 }, top_running[WPERF_CPU_LISTED] = { 0 };
	int64_t first = -1, last = -1;
	memset(out, 0, sizeof *out);
	for (uint32_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (!is_threadlike(v) || is_idle_task(v))
			continue;
		if (focus ? !focus[i] : opaque && opaque[i]) {
			/* Not the report's: load beside it. */
			if (v->running_ns > 0) {
				out->others_running_ns = add(out->others_running_ns, v->running_ns);
				keep_top(out->others, &out->n_others, top_running, i, v->running_ns);
			}
			continue;
		}
		if (v->runnable_ns > 0) {
			out->n_threads += v->kind == WPERF_V_VIRTUAL && v->n_members ? v->n_members : 1;
			out->runnable_ns = add(out->runnable_ns, v->runnable_ns);
			keep_top(out->runnable, &out->n_runnable, top_runnable, i, v->runnable_ns);
		}
		if (!waits_only_for_work(v))
			out->waiting_ns = add(out->waiting_ns, dependency_waits(v));
		if (v->first_ts >= 0 && (first < 0 || v->first_ts < first))
			first = v->first_ts;
		if (v->last_ts > last)
			last = v->last_ts;
	}
	out->span_ns = first >= 0 && last > first ? last - first : wperf_graph_duration(g);
	out->first = out->runnable_ns > out->waiting_ns && out->runnable_ns >= min_weight_ns &&
		     out->runnable_ns > 0 && out->runnable_ns >= out->span_ns / 4;
	return 0;
}
