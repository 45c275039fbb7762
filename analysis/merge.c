/* SPDX-License-Identifier: MIT */
/*
 * merge.c — merging thread vertices into virtual vertices: see wperf/merge.h.
 *
 * Two passes group the old vertices: short-lived children by parent, then
 * the remaining threads by the user's key (equal keys numbered alike, the
 * numbers sorted: thousands of threads cost n log n). Each group of two
 * or more becomes one vertex at the place of its first member; the new
 * vertices and edges are built beside the old ones and swapped in only
 * when everything is allocated, so a failure leaves the graph as it was.
 *
 * What makes two threads alike (the keys, pools, short-lived threads, a
 * thread's main call stack) is merge-keys.c's; this file groups by those
 * keys and builds the merged graph.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "edges.h"
#include "merge-keys.h"
#include "numbers.h"
#include "timeline.h"
#include "wperf/cpu.h"
#include "wperf/graph.h"
#include "wperf/merge.h"

struct merge {
	const struct wperf_graph *g;
	uint32_t *rep;       /* old id -> old id of its group's first member */
	uint32_t *size;      /* by representative: members in the group */
	bool *children;      /* by representative: short-lived children group */
	uint32_t *newid;     /* old id -> new id */
	/* old id -> the next member of its group by id, NO_MEMBER after the
	 * last: a group's members from its representative in one walk, so
	 * naming and edging all groups is linear in vertices, not groups ×
	 * vertices (8,000 threads make 64 million steps otherwise). */
	uint32_t *next;
	/* (tid, id) of every thread, by tid then id: thread_by_tid(). */
	struct tid_id *by_tid;
	size_t n_by_tid;
	size_t n_new;
};

#define NO_MEMBER UINT32_MAX

struct tid_id {
	int64_t tid;
	uint32_t id;
};

/* ---- grouping ---- */

static char *stack_key(int64_t pid, uint32_t stack)
{
	char buf[48];

	snprintf(buf, sizeof buf, "%" PRId64 "|%" PRIu32, pid, stack);
	return strdup(buf);
}

static char *int_key(int64_t v)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%" PRId64, v);
	return strdup(buf);
}

/* The key of old vertex i in this pass; NULL when i takes no part.
 * *oom is set when the key could not be allocated. */
static char *key_of(const struct merge *m, uint32_t i, bool short_pass,
		    enum wperf_merge_key key, bool *oom)
{
	const struct wperf_vertex *v = &m->g->vertices[i];
	char *k = NULL;

	if (v->kind != WPERF_V_THREAD || m->size[m->rep[i]] > 1)
		return NULL;
	if (short_pass && wperf_vertex_is_short_lived(m->g, v))
		k = int_key(v->parent_tid);
	else if (!short_pass && key == WPERF_MERGE_PROCESS && v->pid >= 0)
		k = int_key(v->pid);
	else if (!short_pass && key == WPERF_MERGE_NAME && v->comm && v->comm[0])
		k = wperf_merge_name_base(v->comm);
	else if (!short_pass && key == WPERF_MERGE_STACK && v->pid >= 0 &&
		 wperf_vertex_main_stack(m->g, i) != UINT32_MAX)
		k = stack_key(v->pid, wperf_vertex_main_stack(m->g, i));
	else if (!short_pass && key == WPERF_MERGE_POOL)
		return wperf_vertex_pool_key(v, oom);
	else
		return NULL;
	*oom = !k;
	return k;
}

/* Runs of equal keys of two or more become groups led by their first id. */
static void make_groups(struct merge *m, const struct wperf_keyed *ks, size_t n, bool short_pass)
{
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && ks[i].num == ks[j].num; j++)
			;
		if (j - i < 2)
			continue;
		for (size_t k = i; k < j; k++)
			m->rep[ks[k].id] = ks[i].id;
		m->size[ks[i].id] = (uint32_t)(j - i);
		m->children[ks[i].id] = short_pass;
	}
}

/* Group ks[i..j) (one cluster) under its smallest id. */
static void make_group(struct merge *m, const struct wperf_keyed *ks, size_t i, size_t j)
{
	uint32_t r = ks[i].id;

	for (size_t k = i + 1; k < j; k++)
		if (ks[k].id < r)
			r = ks[k].id;
	for (size_t k = i; k < j; k++)
		m->rep[ks[k].id] = r;
	m->size[r] = (uint32_t)(j - i);
}

/*
 * Move the members of ks[i..j) that did the pool's work (a CPU demand of
 * at least 1/WPERF_POOL_ACTIVITY_RATIO of the busiest one's) to its front,
 * in order; return how many they are.
 */
static size_t active_first(struct wperf_keyed *ks, size_t i, size_t j)
{
	int64_t most = 0;
	size_t n = 0;

	for (size_t k = i; k < j; k++)
		if (ks[k].demand > most)
			most = ks[k].demand;
	for (size_t k = i; k < j; k++)
		if (ks[k].demand >= most / WPERF_POOL_ACTIVITY_RATIO) {
			struct wperf_keyed t = ks[k];

			memmove(&ks[i + n + 1], &ks[i + n], (k - i - n) * sizeof *ks);
			ks[i + n++] = t;
		}
	return n;
}

/*
 * Pools (sorted by key, then first seen): a pool's members work side by
 * side, so each run of equal keys is cut where none of them is alive.
 * Same-named children run one after another (a script's `sleep`s, a
 * thread per request) are not a pool but short-lived children, with
 * their own merge (short-lived=merge) that keeps the holes between them.
 * Of each run, only the threads that did the pool's work are merged: the
 * others' long idle waits would otherwise become the pool's own.
 */
static void make_pool_groups(struct merge *m, struct wperf_keyed *ks, size_t n)
{
	for (size_t i = 0, j; i < n; i = j) {
		int64_t alive_until = ks[i].last;

		for (j = i + 1; j < n && ks[i].num == ks[j].num &&
				ks[j].first < alive_until; j++)
			if (ks[j].last > alive_until)
				alive_until = ks[j].last;
		if (j - i < 2)
			continue;
		size_t active = active_first(ks, i, j);

		if (active >= 2)
			make_group(m, ks, i, i + active);
	}
}

static int group_pass(struct merge *m, bool short_pass, enum wperf_merge_key key)
{
	size_t nv = m->g->n_vertices, n = 0;
	struct wperf_keyed *ks = calloc(nv ? nv : 1, sizeof *ks);
	struct wperf_key_numbers kn;
	bool oom = wperf_key_numbers_init(&kn, nv) < 0 || !ks;
	bool pools = !short_pass && key == WPERF_MERGE_POOL;

	for (uint32_t i = 0; i < nv && !oom; i++) {
		char *k = key_of(m, i, short_pass, key, &oom);

		if (k)
			ks[n++] = (struct wperf_keyed){ wperf_key_number(&kn, k), i,
						  m->g->vertices[i].first_ts,
						  m->g->vertices[i].last_ts,
						  /* running + runnable: a worker starved
						   * of CPUs still does the work */
						  wperf_add_durations(m->g->vertices[i].running_ns,
								      m->g->vertices[i].runnable_ns) };
	}
	oom = oom || wperf_sort_keyed(&ks, n, &kn, pools) < 0;
	if (!oom && pools)
		make_pool_groups(m, ks, n);
	else if (!oom)
		make_groups(m, ks, n, short_pass);
	wperf_key_numbers_free(&kn);
	free(ks);
	return oom ? -1 : 0;
}

/* m->next: each group's members in id order, from its representative. */
static int link_members(struct merge *m)
{
	size_t nv = m->g->n_vertices ? m->g->n_vertices : 1;
	uint32_t *head = malloc(nv * sizeof *head);

	m->next = malloc(nv * sizeof *m->next);
	if (!head || !m->next) {
		free(head);
		return -1;
	}
	for (uint32_t i = 0; i < m->g->n_vertices; i++)
		head[i] = NO_MEMBER;
	for (uint32_t i = m->g->n_vertices; i-- > 0;) {
		m->next[i] = head[m->rep[i]];
		head[m->rep[i]] = i;
	}
	free(head);
	return 0;
}

static int by_tid_then_id(const void *a, const void *b)
{
	const struct tid_id *x = a, *y = b;

	if (x->tid != y->tid)
		return (x->tid > y->tid) - (x->tid < y->tid);
	return (x->id > y->id) - (x->id < y->id);
}

/* m->by_tid: the threads sorted by tid, for thread_by_tid(). */
static int index_threads(struct merge *m)
{
	const struct wperf_graph *g = m->g;

	m->by_tid = malloc((g->n_vertices ? g->n_vertices : 1) * sizeof *m->by_tid);
	if (!m->by_tid)
		return -1;
	for (uint32_t i = 0; i < g->n_vertices; i++)
		if (g->vertices[i].kind == WPERF_V_THREAD)
			m->by_tid[m->n_by_tid++] = (struct tid_id){ g->vertices[i].tid, i };
	qsort(m->by_tid, m->n_by_tid, sizeof *m->by_tid, by_tid_then_id);
	return 0;
}

static int group(struct merge *m, const struct wperf_merge_options *o)
{
	size_t nv = m->g->n_vertices ? m->g->n_vertices : 1;

	m->rep = malloc(nv * sizeof *m->rep);
	m->size = malloc(nv * sizeof *m->size);
	m->children = calloc(nv, sizeof *m->children);
	m->newid = malloc(nv * sizeof *m->newid);
	if (!m->rep || !m->size || !m->children || !m->newid)
		return -1;
	for (uint32_t i = 0; i < m->g->n_vertices; i++) {
		m->rep[i] = i;
		m->size[i] = 1;
	}
	if (o->short_lived && group_pass(m, true, WPERF_MERGE_NONE) < 0)
		return -1;
	if (o->key != WPERF_MERGE_NONE && group_pass(m, false, o->key) < 0)
		return -1;
	/* A representative is its group's smallest id: numbered first. */
	for (uint32_t i = 0; i < m->g->n_vertices; i++)
		m->newid[i] = m->rep[i] == i ? (uint32_t)m->n_new++ : m->newid[m->rep[i]];
	return link_members(m) < 0 || index_threads(m) < 0 ? -1 : 0;
}

/* ---- the merged vertices ---- */

/* The thread of this tid with the smallest id (a reused tid names the
 * first), or NULL. */
static const struct wperf_vertex *thread_by_tid(const struct merge *m, int64_t tid)
{
	size_t lo = 0, hi = m->n_by_tid;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->by_tid[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n_by_tid && m->by_tid[lo].tid == tid
		? &m->g->vertices[m->by_tid[lo].id] : NULL;
}

/* "worker-* @ futex_wait_queue": the leader's name base and where the
 * group's threads wait. */
static int by_comm(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	return strcmp(x, y);
}

/* The comm most members of the group led by r share (kernel-only stacks
 * also match a helper thread waiting on the same primitive, and the
 * group should be named after what most of it is). NULL: out of memory. */
static const char *majority_comm(const struct merge *m, uint32_t r)
{
	size_t n = 0, best = 0;
	const char **comms = malloc(m->size[r] * sizeof *comms), *pick = NULL;

	if (!comms)
		return NULL;
	for (uint32_t i = r; i != NO_MEMBER && n < m->size[r]; i = m->next[i])
		comms[n++] = m->g->vertices[i].comm ? m->g->vertices[i].comm : "?";
	qsort(comms, n, sizeof *comms, by_comm);
	/* Runs of equal name bases: compare up to the trailing digits. */
	for (size_t i = 0, j; i < n; i = j) {
		size_t len = strlen(comms[i]);
		while (len > 0 && comms[i][len - 1] >= '0' && comms[i][len - 1] <= '9')
			len--;
		for (j = i + 1; j < n && strncmp(comms[i], comms[j], len) == 0 &&
				strspn(comms[j] + len, "0123456789") == strlen(comms[j] + len); j++)
			;
		if (j - i > best) {
			best = j - i;
			pick = comms[i];
		}
	}
	free(comms);
	return pick ? pick : "?";
}

static char *stack_group_name(const struct merge *m, uint32_t r)
{
	uint32_t id = wperf_vertex_main_stack(m->g, r);
	const char *comm = majority_comm(m, r);
	char frame[128] = "?", *base = comm ? wperf_merge_name_base(comm) : NULL, *s = NULL;

	if (!base)
		return NULL;
	if (id < m->g->n_stacks)
		wperf_stack_wait_frame(frame, sizeof frame, &m->g->stacks[id]);
	if (asprintf(&s, "%s%s @ %s", base, strcmp(base, comm) ? "*" : "", frame) < 0)
		s = NULL;
	free(base);
	return s;
}

/* "worker-* ×4", "fio ×4" (× in UTF-8): the members' name (digits stripped and a star
 * when they differ) and how many they are, so a finding that names the
 * pool says it is several threads. */
static char *pool_name(const struct merge *m, uint32_t r)
{
	const struct wperf_vertex *v = &m->g->vertices[r];
	char *base = wperf_merge_name_base(v->comm), *s = NULL;
	bool same = true;

	if (!base)
		return NULL;
	for (uint32_t i = r; i != NO_MEMBER && same; i = m->next[i])
		same = strcmp(m->g->vertices[i].comm, v->comm) == 0;
	if (asprintf(&s, "%s%s \xc3\x97%" PRIu32, same ? v->comm : base, same ? "" : "*",
		     m->size[r]) < 0)
		s = NULL;
	free(base);
	return s;
}

/* The rule that made the group led by r, as vertices record it. */
static const char *rule_name(const struct merge *m, uint32_t r, enum wperf_merge_key key)
{
	static const char *const names[] = { "none", "process", "name", "stack", "pool" };

	return m->children[r] ? "children" : names[key];
}

/* The name of the group led by old vertex r (allocated). */
static char *group_name(const struct merge *m, uint32_t r, enum wperf_merge_key key)
{
	const struct wperf_vertex *v = &m->g->vertices[r], *main;
	char *base, *s = NULL;

	if (m->children[r]) {
		main = thread_by_tid(m, v->parent_tid);
		if (main && main->comm)
			return asprintf(&s, "%s-children", main->comm) < 0 ? NULL : s;
		return asprintf(&s, "%" PRId64 "-children", v->parent_tid) < 0 ? NULL : s;
	}
	if (key == WPERF_MERGE_PROCESS) {
		main = thread_by_tid(m, v->pid);
		if (!main || main->pid != v->pid || !main->comm)
			main = v;
		if (asprintf(&s, "process %s (%" PRId64 ")", main->comm ? main->comm : "?",
			     v->pid) < 0)
			s = NULL;
		return s;
	}
	if (key == WPERF_MERGE_STACK)
		return stack_group_name(m, r);
	if (key == WPERF_MERGE_POOL)
		return pool_name(m, r);
	/* Digits stripped: "worker-*"; same names without digits: "worker". */
	base = wperf_merge_name_base(v->comm);
	if (base && strcmp(base, v->comm) == 0)
		return base;
	if (base && asprintf(&s, "%s*", base) < 0)
		s = NULL;
	free(base);
	return s;
}

static int init_virtual(const struct merge *m, uint32_t r, enum wperf_merge_key key,
			struct wperf_vertex *nv)
{
	const struct wperf_vertex *v = &m->g->vertices[r];

	memset(nv, 0, sizeof *nv);
	nv->kind = WPERF_V_VIRTUAL;
	nv->name = group_name(m, r, key);
	nv->members = malloc(m->size[r] * sizeof *nv->members);
	nv->member_pids = malloc(m->size[r] * sizeof *nv->member_pids);
	if (!nv->name || !nv->members || !nv->member_pids)
		return -1;
	nv->merged_by = rule_name(m, r, key);
	nv->tid = -1;
	nv->pid = v->pid;
	nv->host = v->host;
	nv->parent_tid = m->children[r] ? v->parent_tid : 0;
	nv->first_ts = nv->last_ts = -1;
	return 0;
}

/* Add member v to the virtual vertex nv. */
static void accumulate(struct wperf_vertex *nv, const struct wperf_vertex *v)
{
	if (v->first_ts >= 0 && (nv->first_ts < 0 || v->first_ts < nv->first_ts))
		nv->first_ts = v->first_ts;
	if (v->last_ts > nv->last_ts)
		nv->last_ts = v->last_ts;
	nv->running_ns += v->running_ns;
	nv->runnable_ns += v->runnable_ns;
	nv->unknown_ns += v->unknown_ns;
	nv->wake_latency_ns += v->wake_latency_ns;
	nv->woken_cpu_wait_ns += v->woken_cpu_wait_ns;
	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		nv->waiting_ns[k] += v->waiting_ns[k];
	nv->waited_on_runnable_ns += v->waited_on_runnable_ns;
	/* Each member weighed by its own work: an idle member (a server's
	 * helper thread waiting all along) weighs nothing (wperf/cpu.h). */
	int64_t wr, ww;

	wperf_cpu_weigh(v, &wr, &ww);
	nv->cpu_weighted_runnable_ns += wr;
	nv->cpu_weighted_waiting_ns += ww;
	nv->waits += v->waits;
	nv->unknown_initial_state |= v->unknown_initial_state;
	nv->woken_to_missing_cpu |= v->woken_to_missing_cpu;
	nv->state_mismatches += v->state_mismatches;
	nv->waits_without_wakeup += v->waits_without_wakeup;
	if (nv->pid != v->pid)
		nv->pid = -1;     /* members of several processes */
	nv->member_pids[nv->n_members] = v->pid;
	nv->members[nv->n_members++] = v->tid;
}

static void free_fresh(const struct merge *m, struct wperf_vertex *nv)
{
	for (uint32_t i = 0; nv && i < m->g->n_vertices; i++)
		if (m->rep[i] == i && m->size[i] > 1) {
			free(nv[m->newid[i]].name);
			free(nv[m->newid[i]].members);
			free(nv[m->newid[i]].member_pids);
		}
	free(nv);
}

static struct wperf_vertex *build_vertices(const struct merge *m, enum wperf_merge_key key)
{
	const struct wperf_graph *g = m->g;
	struct wperf_vertex *nv = calloc(m->n_new ? m->n_new : 1, sizeof *nv);

	if (!nv)
		return NULL;
	for (uint32_t i = 0; i < g->n_vertices; i++) {
		struct wperf_vertex *t = &nv[m->newid[i]];

		if (m->size[m->rep[i]] == 1) {
			*t = g->vertices[i];   /* moved on success */
		} else {
			if (m->rep[i] == i && init_virtual(m, i, key, t) < 0) {
				free_fresh(m, nv);
				return NULL;
			}
			accumulate(t, &g->vertices[i]);
		}
		t->id = m->newid[i];
	}
	for (size_t i = 0; i < m->n_new; i++)
		if (nv[i].members) {
			qsort(nv[i].members, nv[i].n_members, sizeof *nv[i].members, array_cmp_i64);
			qsort(nv[i].member_pids, nv[i].n_members, sizeof *nv[i].member_pids,
			      array_cmp_i64);
		}
	return nv;
}

/* ---- short-lived children wait for their parent between them ---- */

struct span {
	int64_t b, e;
};

static int by_begin(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return (x->b > y->b) - (x->b < y->b);
}

/* The edge "children -> parent": the holes between the members' lifetimes,
 * when no child exists and the group waits for the parent to create one.
 * Returns 0 (e->count 0 when there is no hole or no parent) or -1. */
static int parent_edge(const struct merge *m, uint32_t r, struct wperf_vertex *nv,
		       struct wperf_edge *e)
{
	const struct wperf_vertex *parent = thread_by_tid(m, m->g->vertices[r].parent_tid);
	struct span *s = malloc(m->size[r] * sizeof *s);
	size_t n = 0;
	int64_t end;

	memset(e, 0, sizeof *e);
	if (!s)
		return -1;
	for (uint32_t i = r; i != NO_MEMBER; i = m->next[i])
		s[n++] = (struct span){ m->g->vertices[i].first_ts, m->g->vertices[i].last_ts };
	qsort(s, n, sizeof *s, by_begin);
	e->from = m->newid[r];
	e->to = parent ? m->newid[parent->id] : e->from;
	end = s[0].e;
	for (size_t i = 1; i < n && parent; i++) {
		if (s[i].b > end) {
			int64_t hole = s[i].b - end;

			e->weight_ns += hole;
			e->direct_ns += hole;
			e->count++;
			e->hist[edges_hist_bucket(hole)]++;
		}
		if (s[i].e > end)
			end = s[i].e;
	}
	e->turns = e->count > 0;   /* the parent never waits for its children here */
	nv->waiting_ns[WPERF_V_THREAD] += e->weight_ns;
	nv->waits += e->count;
	free(s);
	return 0;
}

/* ---- the merged edges ---- */

static int by_pair(const void *a, const void *b)
{
	const struct wperf_edge *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* Add src's top stacks to dst's: sums for a stack both name, then the
 * heaviest WPERF_EDGE_STACKS of the union. Each side kept only its own
 * heaviest, so a stack light on every member edge may be missing. */
static void combine_stacks(struct wperf_edge *dst, const struct wperf_edge *src)
{
	struct wperf_edge_stack all[2 * WPERF_EDGE_STACKS];
	size_t n = 0;

	for (uint8_t i = 0; i < dst->n_stacks; i++)
		all[n++] = dst->stacks[i];
	for (uint8_t i = 0; i < src->n_stacks; i++) {
		size_t j = 0;
		while (j < n && all[j].stack != src->stacks[i].stack)
			j++;
		if (j < n) {
			all[j].count += src->stacks[i].count;
			all[j].ns += src->stacks[i].ns;
		} else {
			all[n++] = src->stacks[i];
		}
	}
	for (size_t i = 1; i < n; i++)       /* insertion sort, heaviest first */
		for (size_t j = i; j > 0 && all[j].ns > all[j - 1].ns; j--) {
			struct wperf_edge_stack t = all[j];
			all[j] = all[j - 1];
			all[j - 1] = t;
		}
	dst->n_stacks = (uint8_t)(n < WPERF_EDGE_STACKS ? n : WPERF_EDGE_STACKS);
	memcpy(dst->stacks, all, dst->n_stacks * sizeof *all);
}

/* Sort and sum edges of the same (from, to); the new count. */
static size_t combine(struct wperf_edge *e, size_t n)
{
	size_t out = 0;

	qsort(e, n, sizeof *e, by_pair);
	for (size_t i = 0; i < n; i++) {
		struct wperf_edge *d = out ? &e[out - 1] : NULL;

		if (!d || d->from != e[i].from || d->to != e[i].to) {
			e[out++] = e[i];
			continue;
		}
		d->weight_ns += e[i].weight_ns;
		d->direct_ns += e[i].direct_ns;
		d->device_ns += e[i].device_ns;
		d->runnable_ns += e[i].runnable_ns;
		d->count += e[i].count;
		d->gap_waits += e[i].gap_waits;
		d->served_ns += e[i].served_ns;
		d->idle_ns += e[i].idle_ns;
		d->idle_count += e[i].idle_count;
		d->turns += e[i].turns;
		d->chained += e[i].chained;
		d->grouped += e[i].grouped;
		combine_stacks(d, &e[i]);
		for (int b = 0; b < WPERF_HIST_BUCKETS; b++)
			d->hist[b] += e[i].hist[b];
	}
	return out;
}

static struct wperf_edge *build_edges(const struct merge *m, struct wperf_vertex *nv,
				      size_t *n_out)
{
	const struct wperf_graph *g = m->g;
	struct wperf_edge *e = malloc((g->n_edges + g->n_vertices + 1) * sizeof *e);
	size_t n = 0;

	if (!e)
		return NULL;
	for (size_t i = 0; i < g->n_edges; i++) {
		e[n] = g->edges[i];
		e[n].from = m->newid[g->edges[i].from];
		e[n].to = m->newid[g->edges[i].to];
		n++;
	}
	for (uint32_t r = 0; r < g->n_vertices; r++) {
		if (m->rep[r] != r || !m->children[r])
			continue;
		if (parent_edge(m, r, &nv[m->newid[r]], &e[n]) < 0) {
			free(e);
			return NULL;
		}
		n += e[n].count > 0;
	}
	*n_out = combine(e, n);
	return e;
}

/* ---- timelines (wperf/graph.h) ---- */

/* A copy of t with its targets renamed by the merge. */
static int copy_timeline(const struct merge *m, struct wperf_timeline *dst,
			 const struct wperf_timeline *t)
{
	*dst = *t;
	dst->spans = NULL;
	if (t->n == 0)
		return 0;
	dst->spans = malloc(t->n * sizeof *dst->spans);
	if (!dst->spans)
		return -1;
	memcpy(dst->spans, t->spans, t->n * sizeof *dst->spans);
	dst->cap = t->n;
	for (uint32_t i = 0; i < t->n; i++)
		if (dst->spans[i].target < m->g->n_vertices)
			dst->spans[i].target = m->newid[dst->spans[i].target];
	return 0;
}

/* The merged graph's timelines: a vertex left alone keeps its own, a
 * group's sum its threads' (wperf_timeline_absorb). NULL when the graph
 * kept none, or memory ran out: the report then draws no timeline and
 * loses nothing else. */
static struct wperf_timeline *build_timelines(const struct merge *m)
{
	const struct wperf_graph *g = m->g;
	struct wperf_timeline *nt;
	int rc = 0;

	if (!g->timelines || !(nt = calloc(m->n_new ? m->n_new : 1, sizeof *nt)))
		return NULL;
	for (uint32_t i = 0; i < g->n_vertices && rc == 0; i++) {
		if (m->size[m->rep[i]] == 1)
			rc = copy_timeline(m, &nt[m->newid[i]], &g->timelines[i]);
		else
			rc = wperf_timeline_absorb(&nt[m->newid[i]], &g->timelines[i], m->newid,
						   g->n_vertices);
	}
	if (rc < 0) {
		wperf_timelines_free(nt, m->n_new);
		return NULL;
	}
	return nt;
}

/* ---- the transform ---- */

/* Free what the old graph owned and the new one did not take over. */
static void release_merged(const struct merge *m, struct wperf_graph *g)
{
	for (uint32_t i = 0; i < g->n_vertices; i++)
		if (m->size[m->rep[i]] > 1) {
			free(g->vertices[i].name);
			free(g->vertices[i].comm);
			free(g->vertices[i].members);
			free(g->vertices[i].member_pids);
		}
	free(g->vertices);
	free(g->edges);
	wperf_timelines_free(g->timelines, g->n_vertices);
}

static void merge_fini(struct merge *m)
{
	free(m->rep);
	free(m->size);
	free(m->children);
	free(m->newid);
	free(m->next);
	free(m->by_tid);
}

int wperf_graph_merge(struct wperf_graph *g, const struct wperf_merge_options *o,
		      uint32_t **map)
{
	struct merge m = { .g = g };
	struct wperf_vertex *nv = NULL;
	struct wperf_edge *ne = NULL;
	size_t n_edges = 0;

	if (map)
		*map = NULL;
	if (group(&m, o) < 0 || !(nv = build_vertices(&m, o->key)) ||
	    !(ne = build_edges(&m, nv, &n_edges))) {
		free_fresh(&m, nv);
		merge_fini(&m);
		return -1;
	}
	struct wperf_timeline *nt = build_timelines(&m);

	release_merged(&m, g);
	g->timelines = nt;
	g->vertices = nv;
	g->n_vertices = m.n_new;
	g->edges = ne;
	g->n_edges = n_edges;
	if (map)
		*map = m.newid;
	else
		free(m.newid);
	m.newid = NULL;
	merge_fini(&m);
	return 0;
}
