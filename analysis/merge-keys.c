/* SPDX-License-Identifier: MIT */
/*
 * analysis/merge-keys.c — what makes threads alike for merging
 * (wperf/merge.h): the merge keys by name, the pool a thread belongs to,
 * whether it is short-lived, and the call stack its heaviest waiting
 * happened in.
 *
 * These read one vertex (or one vertex's edges) of a finished graph and
 * say nothing of groups: the report writers call them to name what they
 * show, and merge.c groups the threads whose keys are equal.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "merge-keys.h"
#include "wperf/graph.h"
#include "wperf/merge.h"

int wperf_merge_key_parse(const char *s, enum wperf_merge_key *out)
{
	static const char *const names[] = { "none", "process", "name", "stack", "pool" };

	for (int k = 0; k < 5; k++)
		if (strcmp(s, names[k]) == 0) {
			*out = (enum wperf_merge_key)k;
			return 0;
		}
	return -1;
}

/*
 * part * 100 < whole * pct, exactly, for 0 <= part, 0 <= whole and
 * 0 <= pct <= 100, without the products (part * 100 overflows int64 past
 * 2.9 years of nanoseconds). With whole = 100 q + r, whole * pct / 100 is
 * q * pct plus r * pct / 100, a fraction below 100: part is under it when
 * it is under q * pct, or less than 100 above it and (part - q * pct) * 100
 * < r * pct.
 */
static bool under_percent(int64_t part, int64_t whole, int64_t pct)
{
	int64_t above = part - whole / 100 * pct;

	return above < 0 || (above < 100 && above * 100 < whole % 100 * pct);
}

bool wperf_vertex_is_short_lived(const struct wperf_graph *g, const struct wperf_vertex *v)
{
	int64_t duration = wperf_graph_duration(g);

	/* A thread alive at the end of the trace has last_ts == end_ns: its
	 * lifetime is unknown, so it is never short-lived. */
	return v->kind == WPERF_V_THREAD && v->parent_tid > 0 && v->first_ts >= 0 &&
	       v->last_ts < g->end_ns && duration > 0 && v->last_ts >= v->first_ts &&
	       under_percent(v->last_ts - v->first_ts, duration, WPERF_SHORT_LIVED_PERCENT);
}

size_t wperf_name_base_len(const char *comm)
{
	size_t n = strlen(comm);

	while (n > 0 && comm[n - 1] >= '0' && comm[n - 1] <= '9')
		n--;
	return n ? n : strlen(comm);
}

char *wperf_merge_name_base(const char *comm)
{
	return strndup(comm, wperf_name_base_len(comm));
}

uint32_t wperf_vertex_main_stack(const struct wperf_graph *g, uint32_t v)
{
	uint32_t best = UINT32_MAX;
	int64_t best_ns = 0;

	/* Few edges and at most WPERF_EDGE_STACKS stacks each: sum by
	 * rescanning rather than with a table. */
	for (size_t e = wperf_graph_first_edge_from(g, v);
	     e < g->n_edges && g->edges[e].from == v; e++)
		for (uint8_t k = 0; k < g->edges[e].n_stacks; k++) {
			uint32_t id = g->edges[e].stacks[k].stack;
			int64_t ns = 0;
			for (size_t f = wperf_graph_first_edge_from(g, v);
			     f < g->n_edges && g->edges[f].from == v; f++)
				for (uint8_t j = 0; j < g->edges[f].n_stacks; j++)
					if (g->edges[f].stacks[j].stack == id)
						ns += g->edges[f].stacks[j].ns;
			if (ns > best_ns || (ns == best_ns && id < best)) {
				best = id;
				best_ns = ns;
			}
		}
	return best;
}

/* Frames that every wait shares: the tracer's and the scheduler's. LTTng's
 * callstack-kernel context is taken inside the tracer's own probe, so its
 * stacks open with lttng-modules' frames (the context's
 * lttng_callstack_*, the ring buffer's lttng_event_reserve, the probe
 * __event_probe__sched_switch) before __schedule: those are the tracer's. */
static bool is_generic_frame(const char *sym)
{
	static const char *const prefixes[] = {
		"trace_event_raw_event_", "__traceiter_", "__schedule+", "schedule+",
		"preempt_schedule", "__bpf_trace_", "perf_trace_",
		"__event_probe__", "lttng_event_reserve+", "lttng_callstack_",
	};

	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(sym, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

void wperf_stack_wait_frame(char *buf, size_t len, const struct wperf_stack *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const char *sym = s->symbols ? s->symbols[i] : NULL;
		if (sym && is_generic_frame(sym))
			continue;
		if (sym) {
			size_t n = strcspn(sym, "+");
			snprintf(buf, len, "%.*s", (int)n, sym);
		} else {
			snprintf(buf, len, "0x%" PRIx64, s->ips[i]);
		}
		return;
	}
	snprintf(buf, len, "?");
}

/* The kernel's thread creator: every kernel thread is its child. */
#define KTHREADD_TID 2

/* "T|N|BASE" with BASE's first base_len bytes, in one allocation: built by
 * hand, as asprintf() cost more than the rest of the merge on a trace of
 * thousands of threads. NULL when out of memory. */
static char *join_key(char tag, int64_t n, const char *base, size_t base_len)
{
	char digits[24];
	size_t nd = 0;
	uint64_t u = n < 0 ? (uint64_t)(-(n + 1)) + 1 : (uint64_t)n;
	char *k, *p;

	do {
		digits[nd++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	k = malloc(2 + (n < 0) + nd + 1 + base_len + 1);
	if (!k)
		return NULL;
	p = k;
	*p++ = tag;
	*p++ = '|';
	if (n < 0)
		*p++ = '-';
	while (nd)
		*p++ = digits[--nd];
	*p++ = '|';
	memcpy(p, base, base_len);
	p[base_len] = '\0';
	return k;
}

char *wperf_vertex_pool_key(const struct wperf_vertex *v, bool *oom)
{
	size_t n;
	char *k;

	*oom = false;
	if (v->kind != WPERF_V_THREAD || v->pid < 0 || !v->comm || !v->comm[0] ||
	    wperf_comm_is_tracer_thread(v->comm) || wperf_comm_waits_only_for_work(v->comm) ||
	    (v->tid == v->pid && wperf_comm_is_tracer_process(v->comm)))
		return NULL;    /* the tracer's processes are known by their names */
	if (v->tid == v->pid && (v->parent_tid <= 0 || v->parent_tid == KTHREADD_TID))
		return NULL;    /* a process of unknown parent, or a kernel thread */
	n = wperf_name_base_len(v->comm);
	/* 't': workers of process pid; 'p': processes forked by parent_tid.
	 * The two never mix, so a main thread never joins its own workers. */
	if (v->tid != v->pid)
		k = join_key('t', v->pid, v->comm, n);
	else
		k = join_key('p', v->parent_tid, v->comm, n);
	*oom = !k;
	return k;
}

/* FNV-1a: the keys are short strings, hashed once each. */
static uint64_t key_hash(const char *k)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (; *k; k++)
		h = (h ^ (unsigned char)*k) * 0x100000001b3ULL;
	return h;
}

int wperf_key_numbers_init(struct wperf_key_numbers *kn, size_t max_keys)
{
	*kn = (struct wperf_key_numbers){ .cap = 16 };
	while (kn->cap < 2 * max_keys)
		kn->cap *= 2;
	kn->keys = calloc(max_keys ? max_keys : 1, sizeof *kn->keys);
	kn->slot = calloc(kn->cap, sizeof *kn->slot);
	kn->count = calloc(max_keys + 1, sizeof *kn->count);
	return kn->keys && kn->slot && kn->count ? 0 : -1;
}

uint32_t wperf_key_number(struct wperf_key_numbers *kn, char *key)
{
	size_t s = key_hash(key) & (kn->cap - 1);

	while (kn->slot[s] && strcmp(kn->keys[kn->slot[s] - 1], key) != 0)
		s = (s + 1) & (kn->cap - 1);
	if (kn->slot[s]) {
		free(key);
		kn->count[kn->slot[s]]++;
		return kn->slot[s] - 1;
	}
	kn->keys[kn->n] = key;
	kn->slot[s] = ++kn->n;
	kn->count[kn->n]++;
	return kn->n - 1;
}

void wperf_key_numbers_free(struct wperf_key_numbers *kn)
{
	for (uint32_t i = 0; kn->keys && i < kn->n; i++)
		free(kn->keys[i]);
	free(kn->keys);
	free(kn->slot);
	free(kn->count);
}

static int by_key_then_first_seen(const void *a, const void *b)
{
	const struct wperf_keyed *x = a, *y = b;

	if (x->num != y->num)
		return x->num < y->num ? -1 : 1;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

int wperf_sort_keyed(struct wperf_keyed **ks, size_t n, struct wperf_key_numbers *kn,
		     bool pools)
{
	struct wperf_keyed *out = malloc((n ? n : 1) * sizeof *out);
	uint32_t *at = kn->count;

	if (!out)
		return -1;
	for (uint32_t k = 0; k < kn->n; k++)
		at[k + 1] += at[k];
	for (size_t i = 0; i < n; i++)
		out[at[(*ks)[i].num]++] = (*ks)[i];
	for (size_t i = 1; pools && i < n; i++)
		if (by_key_then_first_seen(&out[i - 1], &out[i]) > 0) {
			qsort(out, n, sizeof *out, by_key_then_first_seen);
			break;
		}
	free(*ks);
	*ks = out;
	return 0;
}
