/* SPDX-License-Identifier: MIT */
/*
 * classify.c — what kind of problem a knot is: see wperf/classify.h.
 *
 * First the facts are gathered (who is a member, how long and how often
 * the members wait for each other, how long they waited for a CPU), then
 * the first rule that fits names the class, and the facts are kept as
 * the evidence, those that decided first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "numbers.h"
#include "wperf/classify.h"

/* One side waiting this many times in a row, on average, before the other
 * waits (edge count / turns), in both directions: phases, not a lock's
 * ping-pong (about 1) or a queue of threads (about 2). Preemption blurs
 * phases on a loaded machine (a block of 20 phases recorded as runs of 3
 * to 10), so the bar is low. */
#define PHASE_RUN_LENGTH 3

/* A sink thread that spent at least this share (ppm) of its time waiting
 * on timers, or on `unknown`, is bounded by that, not by its work. */
#define SINK_LIMIT_SHARE_PPM 500000

const char *wperf_knot_class_name(enum wperf_knot_class cls)
{
	static const char *const names[] = {
		[WPERF_CLASS_BACKGROUND] = "background",
		[WPERF_CLASS_BLOCKING_IO] = "blocking_io",
		[WPERF_CLASS_TOO_FEW_CPUS] = "too_few_cpus",
		[WPERF_CLASS_LOAD_IMBALANCE] = "load_imbalance",
		[WPERF_CLASS_LOCK_CONTENTION] = "lock_contention",
		[WPERF_CLASS_UNKNOWN] = "unknown",
	};
	return (unsigned)cls <= WPERF_CLASS_UNKNOWN ? names[cls] : "unknown";
}

const char *wperf_classification_summary(const struct wperf_classification *c)
{
	enum wperf_knot_class cls = c->cls;

	/* A sink is classified only as short of CPUs (classify_sink). */
	if (c->sink && cls == WPERF_CLASS_TOO_FEW_CPUS)
		return "too few CPUs: its own work waits for a CPU another thread holds";
	switch (cls) {
	case WPERF_CLASS_BACKGROUND:
		return "background: less than one CPU, no device, and the focus's work waits on nothing in it, like heartbeats";
	case WPERF_CLASS_BLOCKING_IO:
		return "blocking I/O: threads wait for a device that waits for them";
	case WPERF_CLASS_TOO_FEW_CPUS:
		return "too few CPUs: the members waited for a CPU more than inside the knot, or kept every CPU busy themselves";
	case WPERF_CLASS_LOAD_IMBALANCE:
		return "load imbalance: threads take turns waiting for each other to finish a phase";
	case WPERF_CLASS_LOCK_CONTENTION:
		return "lock contention: threads of one process wait on each other in short waits";
	case WPERF_CLASS_UNKNOWN:
		break;
	}
	return "unknown: the members wait on each other, in no pattern wperf recognises";
}

const char *wperf_evidence_kind_name(enum wperf_evidence_kind kind)
{
	static const char *const names[] = {
		[WPERF_EV_DEVICE] = "device",
		[WPERF_EV_RUNNABLE] = "runnable",
		[WPERF_EV_CPU_DEMAND] = "cpu_demand",
		[WPERF_EV_WAIT_LENGTH] = "wait_length",
		[WPERF_EV_TURNS] = "turns",
		[WPERF_EV_ONE_PROCESS] = "one_process",
		[WPERF_EV_SELF_LOOP] = "self_loop",
		[WPERF_EV_PROCESSES] = "processes",
		[WPERF_EV_INTERRUPT] = "interrupt",
		[WPERF_EV_BACKGROUND] = "background",
		[WPERF_EV_QUEUE] = "queue",
		[WPERF_EV_GROUP] = "group",
		[WPERF_EV_DEVICE_WEIGHT] = "device_weight",
		[WPERF_EV_CPU_SATURATED] = "cpu_saturated",
	};
	return (unsigned)kind <= WPERF_EV_CPU_SATURATED ? names[kind] : "?";
}

static bool is_threadlike(const struct wperf_vertex *v)
{
	return v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL;
}

uint64_t wperf_vertex_runnable_ppm(const struct wperf_vertex *v)
{
	return is_threadlike(v) ? wperf_ppm(wperf_vertex_cpu_need_ns(v),
						 wperf_time_seen(v)) : 0;
}

bool wperf_vertex_is_runnable_bound(const struct wperf_vertex *v)
{
	return wperf_vertex_runnable_ppm(v) >= WPERF_RUNNABLE_BOUND_PPM;
}

enum wperf_sink_limit wperf_sink_limit(const struct wperf_graph *g, const struct wperf_knot *k,
				       int64_t *waited_ns)
{
	uint32_t v = k->n_members == 1 ? k->members[0] : UINT32_MAX;
	const struct wperf_vertex *x = v < g->n_vertices ? &g->vertices[v] : NULL;
	int64_t seen = x ? wperf_time_seen(x) : 0;
	enum wperf_sink_limit limit = WPERF_LIMIT_WORK;

	if (k->kind != WPERF_SINK || k->n_removed || !x || !is_threadlike(x) || seen <= 0)
		return WPERF_LIMIT_WORK;
	if (wperf_ppm(x->waiting_ns[WPERF_V_TIMER], seen) >= SINK_LIMIT_SHARE_PPM)
		limit = WPERF_LIMIT_TIMER;
	else if (wperf_ppm(x->waiting_ns[WPERF_V_UNKNOWN], seen) >= SINK_LIMIT_SHARE_PPM)
		limit = WPERF_LIMIT_UNSEEN;
	if (waited_ns && limit != WPERF_LIMIT_WORK)
		*waited_ns = x->waiting_ns[limit == WPERF_LIMIT_TIMER ? WPERF_V_TIMER
								     : WPERF_V_UNKNOWN];
	return limit;
}

const char *wperf_sink_limit_name(enum wperf_sink_limit limit)
{
	switch (limit) {
	case WPERF_LIMIT_TIMER:
		return "timer";
	case WPERF_LIMIT_UNSEEN:
		return "unseen";
	case WPERF_LIMIT_WORK:
		break;
	}
	return "work";
}

/* ---- gathering the facts ---- */

struct facts {
	const struct wperf_graph *g;
	const struct wperf_knot *k;
	int64_t min_weight_ns;
	struct wperf_classification *out;
	bool has_device, has_interrupt, has_self_loop, phase_like, queued, barrier;
	bool saturated;               /* the members kept the CPUs busy (saturation_fact) */
	int64_t runnable_ns, waits_on_each_other_ns;
	int64_t waits_on_devices_ns;  /* members' direct waits on device members, and
	                                 their CPU delays after device wakeups */
	int64_t woken_ns;             /* members' woken_cpu_wait_ns, summed */
	int64_t runnable_all_ns;      /* members' runnable_ns, summed (all of it) */
	int64_t latency_ns;           /* members' wake_latency_ns, summed */
	/* The threads' own waiting inside the knot, by where it ended: */
	int64_t device_end_ns;        /* at a device: on a device member, on a thread
	                                 waiting on a device, and the CPU delays
	                                 after device wakeups */
	int64_t through_ns;           /* of it, on a thread waiting on a device */
	int64_t thread_end_ns;        /* the rest of their waits on each other, */
	int64_t on_runnable_ns;       /* but for those on a runnable thread */
	int64_t served_ns;            /* and those on another program serving them */
	uint32_t device;              /* the (first) device member, or UINT32_MAX */
	size_t devices;               /* device members */
	size_t threads;
	int64_t pid;          /* the members' one process, or -1 */
	uint64_t thread_waits, chained_waits, grouped_waits;
	uint64_t hist[WPERF_HIST_BUCKETS];
};

static struct wperf_evidence *add(struct facts *f, enum wperf_evidence_kind kind)
{
	struct wperf_classification *c = f->out;

	if (c->n_evidence == WPERF_MAX_EVIDENCE)
		return NULL;
	struct wperf_evidence *ev = &c->evidence[c->n_evidence++];

	memset(ev, 0, sizeof *ev);
	ev->kind = kind;
	ev->vertex = ev->vertex2 = UINT32_MAX;
	ev->pid = -1;
	return ev;
}

/* part / total of waits, in ppm (0 when total is 0). */
static uint64_t share_ppm(uint64_t part, uint64_t total)
{
	return wperf_ppm((int64_t)part, (int64_t)total);
}

/* A fact that is `part` of `total` waits (queue, group); NULL when the
 * evidence is full. */
static struct wperf_evidence *add_part(struct facts *f, enum wperf_evidence_kind kind,
				       uint64_t part, uint64_t total)
{
	struct wperf_evidence *ev = add(f, kind);

	if (ev) {
		ev->count = part;
		ev->total = total;
		ev->ppm = share_ppm(part, total);
	}
	return ev;
}

/* The knot's internal edges that count as dependencies. */
static const struct wperf_edge *internal_edge(const struct facts *f, size_t i)
{
	size_t e = f->k->edges[i];

	if (e >= f->g->n_edges || !wperf_edge_is_dependency(f->g, &f->g->edges[e], f->min_weight_ns))
		return NULL;
	return &f->g->edges[e];
}

static void device_fact(struct facts *f, uint32_t dev)
{
	struct wperf_evidence *ev = add(f, WPERF_EV_DEVICE);

	if (!ev)
		return;
	ev->vertex = dev;
	if (f->device == UINT32_MAX)
		f->device = dev;
	for (size_t i = 0; i < f->k->n_edges; i++) {
		const struct wperf_edge *e = internal_edge(f, i);
		if (e && e->to == dev && e->from != dev) {
			ev->a_ns = wperf_add_durations(ev->a_ns, e->weight_ns);
			f->waits_on_devices_ns = wperf_add_durations(f->waits_on_devices_ns,
									 e->direct_ns);
			if (is_threadlike(&f->g->vertices[e->from]))
				f->device_end_ns = wperf_add_durations(f->device_end_ns,
								       e->direct_ns);
		}
		if (e && e->from == dev && e->to != dev)
			ev->b_ns = wperf_add_durations(ev->b_ns, e->weight_ns);
	}
}

static void member_facts(struct facts *f)
{
	f->pid = -2;   /* none seen yet */
	for (size_t i = 0; i < f->k->n_members; i++) {
		uint32_t id = f->k->members[i];
		if (id >= f->g->n_vertices)
			continue;
		const struct wperf_vertex *v = &f->g->vertices[id];

		if (wperf_vertex_kind_is_device(v->kind)) {
			f->has_device = true;
			f->devices++;
			device_fact(f, id);
		} else if (v->kind == WPERF_V_IRQ || v->kind == WPERF_V_SOFTIRQ) {
			f->has_interrupt = true;
		}
		if (!is_threadlike(v))
			continue;
		f->threads += v->kind == WPERF_V_VIRTUAL && v->n_members ? v->n_members : 1;
		f->runnable_ns = wperf_add_durations(f->runnable_ns,
							 wperf_vertex_cpu_need_ns(v));
		f->woken_ns = wperf_add_durations(f->woken_ns, v->woken_cpu_wait_ns);
		f->runnable_all_ns = wperf_add_durations(f->runnable_all_ns,
							     v->runnable_ns > 0 ? v->runnable_ns : 0);
		f->latency_ns = wperf_add_durations(f->latency_ns, v->wake_latency_ns > 0
								       ? v->wake_latency_ns : 0);
		if (f->pid == -2)
			f->pid = v->pid;
		else if (f->pid != v->pid)
			f->pid = -1;
	}
	if (f->pid == -2)
		f->pid = -1;
	/* A device wakeup's CPU delay is that device wait's cost
	 * (wperf-analysis(7), "The CPUs"): with the knot's device. */
	if (f->has_device)
		f->waits_on_devices_ns = wperf_add_durations(f->waits_on_devices_ns,
								 f->woken_ns);
}

static void edge_facts(struct facts *f)
{
	for (size_t i = 0; i < f->k->n_edges; i++) {
		const struct wperf_edge *e = internal_edge(f, i);
		if (!e || !is_threadlike(&f->g->vertices[e->from]) ||
		    !is_threadlike(&f->g->vertices[e->to]))
			continue;
		f->waits_on_each_other_ns = wperf_add_durations(f->waits_on_each_other_ns,
								     e->direct_ns);
		f->thread_waits += e->count;
		f->chained_waits += e->chained;
		f->grouped_waits += e->grouped;
		for (int b = 0; b < WPERF_HIST_BUCKETS; b++)
			f->hist[b] += e->hist[b];
		if (e->from == e->to) {
			struct wperf_evidence *ev = add(f, WPERF_EV_SELF_LOOP);
			f->has_self_loop = true;
			if (ev) {
				ev->vertex = e->from;
				ev->a_ns = e->weight_ns;
				ev->count = e->count;
			}
		}
	}
}

static uint64_t run_length(const struct wperf_edge *e)
{
	return e->turns ? e->count / e->turns : e->count;
}

/* Whether the pair's waits mostly began while the side waited on was
 * waiting itself: runs of waits on one thread then come from a queue
 * (each woken by the one queued before it), not from phases. */
static void queue_fact(struct facts *f, const struct wperf_edge *e,
		       const struct wperf_edge *rev)
{
	uint64_t total = e->count + rev->count, chained = e->chained + rev->chained;
	struct wperf_evidence *ev = add_part(f, WPERF_EV_QUEUE, chained, total);

	f->queued = share_ppm(chained, total) > WPERF_QUEUE_CHAINED_PPM;
	if (ev) {
		ev->vertex = e->from;
		ev->vertex2 = e->to;
	}
}

/* The internal edge from -> to that counts as a dependency, or NULL:
 * only what the knot still holds. An edge refinement cut is in the graph
 * but not in the finding, and its waits must not be counted as the
 * finding's (a pair "37 waits in 10 turns" of which the reverse edge was
 * cut). */
static const struct wperf_edge *internal_edge_between(const struct facts *f, uint32_t from,
						      uint32_t to)
{
	for (size_t i = 0; i < f->k->n_edges; i++) {
		const struct wperf_edge *e = internal_edge(f, i);
		if (e && e->from == from && e->to == to)
			return e;
	}
	return NULL;
}

/* The heaviest pair of distinct threads that wait for each other both
 * ways, and whether they take turns by phases. */
static void turns_fact(struct facts *f)
{
	const struct wperf_edge *best = NULL, *best_rev = NULL;

	for (size_t i = 0; i < f->k->n_edges; i++) {
		const struct wperf_edge *e = internal_edge(f, i), *r;
		if (!e || e->from == e->to || !is_threadlike(&f->g->vertices[e->from]) ||
		    !is_threadlike(&f->g->vertices[e->to]))
			continue;
		r = internal_edge_between(f, e->to, e->from);
		if (!r)
			continue;
		if (!best || wperf_add_durations(e->weight_ns, r->weight_ns) >
			     wperf_add_durations(best->weight_ns, best_rev->weight_ns)) {
			best = e;
			best_rev = r;
		}
	}
	if (!best)
		return;
	struct wperf_evidence *ev = add(f, WPERF_EV_TURNS);
	if (ev) {
		ev->vertex = best->from;
		ev->vertex2 = best->to;
		ev->a_ns = best->weight_ns;
		ev->b_ns = best_rev->weight_ns;
		ev->count = best->count + best_rev->count;
		ev->turns = best->turns + best_rev->turns;
	}
	queue_fact(f, best, best_rev);
	f->phase_like = run_length(best) >= PHASE_RUN_LENGTH &&
			run_length(best_rev) >= PHASE_RUN_LENGTH && !f->queued;
}

/* Whether the members' waits on each other mostly end in group wakeups
 * by a waker that was working, not queued: a barrier opening. */
static void group_fact(struct facts *f)
{
	if (!f->thread_waits)
		return;
	f->barrier = share_ppm(f->grouped_waits, f->thread_waits) > WPERF_GROUP_WAKE_PPM &&
		     share_ppm(f->chained_waits, f->thread_waits) <= WPERF_QUEUE_CHAINED_PPM;
	add_part(f, WPERF_EV_GROUP, f->grouped_waits, f->thread_waits);
}

static void wait_length_fact(struct facts *f)
{
	int64_t lo, hi;
	struct wperf_evidence *ev;

	if (!wperf_hist_median_range(f->hist, &lo, &hi) || !(ev = add(f, WPERF_EV_WAIT_LENGTH)))
		return;
	ev->count = f->thread_waits;
	ev->a_ns = lo;
	ev->b_ns = hi;
}

static void runnable_facts(struct facts *f)
{
	for (size_t i = 0; i < f->k->n_members; i++) {
		uint32_t id = f->k->members[i];
		if (id >= f->g->n_vertices || !wperf_vertex_is_runnable_bound(&f->g->vertices[id]))
			continue;
		struct wperf_evidence *ev = add(f, WPERF_EV_RUNNABLE);
		if (!ev)
			return;
		const struct wperf_vertex *v = &f->g->vertices[id];

		ev->vertex = id;
		ev->a_ns = wperf_vertex_cpu_need_ns(v);
		ev->ppm = wperf_vertex_runnable_ppm(v);
		/* What the threads table shows, so the words can say the rest. */
		ev->runnable_ns = v->runnable_ns > 0 ? v->runnable_ns : 0;
		ev->latency_ns = v->wake_latency_ns > 0 ? v->wake_latency_ns : 0;
	}
	/* Waiting for a CPU against the members' waits inside the knot: on
	 * each other and on its device. One thread alone has neither. */
	if (f->threads > 1 || f->has_device) {
		struct wperf_evidence *ev = add(f, WPERF_EV_CPU_DEMAND);
		if (ev) {
			ev->vertex = f->device;
			ev->a_ns = f->runnable_ns;
			ev->b_ns = wperf_add_durations(f->waits_on_each_other_ns,
							   f->waits_on_devices_ns);
			ev->woken_ns = f->has_device ? f->woken_ns : 0;
			ev->count = ev->woken_ns > 0;
			ev->runnable_ns = f->runnable_all_ns;
			ev->latency_ns = f->latency_ns;
		}
	}
}

/* Did the members keep the trace's CPUs busy themselves? Then the CPUs
 * bound them whatever their waits on each other look like: a pipeline
 * whose stages hand work along waits on each other at every hand-off,
 * but when its threads already run on every CPU all the time, shorter
 * waits only move the work around; more CPUs, or less work per item,
 * are what help. Running time only: runnable time beside an idle CPU
 * (the wakeup latency of an idle vCPU) is demand the CPUs could have met. */
static void saturation_fact(struct facts *f)
{
	int64_t running = 0, span = f->k->span_ns > 0 ? f->k->span_ns
						      : wperf_graph_duration(f->g);

	if (f->g->quality.cpus == 0 || span <= 0 || f->k->kind == WPERF_SINK)
		return;
	for (size_t i = 0; i < f->k->n_members; i++) {
		uint32_t id = f->k->members[i];
		if (id < f->g->n_vertices && is_threadlike(&f->g->vertices[id]) &&
		    f->g->vertices[id].running_ns > 0)
			running = wperf_add_durations(running, f->g->vertices[id].running_ns);
	}
	int64_t capacity = span > INT64_MAX / f->g->quality.cpus ? INT64_MAX : span * f->g->quality.cpus;
	uint64_t ppm = wperf_ppm(running, capacity);

	if (ppm < WPERF_CPU_SATURATED_PPM)
		return;
	f->saturated = true;
	struct wperf_evidence *ev = add(f, WPERF_EV_CPU_SATURATED);
	if (ev) {
		ev->a_ns = running;
		ev->b_ns = capacity;
		ev->count = f->g->quality.cpus;
		ev->ppm = ppm;
	}
}

/* Where a device knot's waiting ends: in the device, or between its
 * threads. Each of the threads' own waits inside the knot is followed
 * down the chain of threads it waited on, as the cascade walked it: a
 * wait on a thread that was itself waiting on the device (a group
 * commit's followers waiting on the thread that fsyncs, a client waiting
 * on its server's flush) ends in the device, as the waits on the device
 * itself and the CPU delays after its wakeups (that wait's cost) do; the
 * rest ends in a thread that ran, wanted a CPU or slept. Own time, not
 * weight: a weight counts a wait again on every edge it passed through,
 * so the threads' side would count a chain's waits once per link. The
 * waits on a thread that was runnable meanwhile, or on one whose chain
 * reached a runnable thread, end in neither: they wait for a CPU at one
 * remove or more (the CPU finding's, wperf/cpu.h). A
 * device can join a knot through a few seconds of writeback while the
 * threads mostly wait on each other (a lock, a client waiting on its
 * server working): then a device is a member but not where the waiting
 * ends. */
static void device_weight_fact(struct facts *f)
{
	struct wperf_evidence *ev;
	bool threads_wait = false;

	if (!f->has_device)
		return;
	for (size_t i = 0; i < f->k->n_edges; i++) {
		const struct wperf_edge *e = internal_edge(f, i);
		if (!e || !is_threadlike(&f->g->vertices[e->from]) ||
		    !is_threadlike(&f->g->vertices[e->to]))
			continue;
		/* The edge's parts are disjoint pieces of direct_ns, but a
		 * merged or windowed edge may round: clamp each to the rest. */
		int64_t through = e->device_ns < e->direct_ns ? e->device_ns : e->direct_ns;
		int64_t rest = e->direct_ns - through;
		int64_t on_runnable = e->runnable_ns < rest ? e->runnable_ns : rest;
		int64_t served = e->served_ns < rest - on_runnable ? e->served_ns
								    : rest - on_runnable;

		threads_wait = threads_wait || e->direct_ns > 0;
		f->through_ns = wperf_add_durations(f->through_ns, through);
		f->on_runnable_ns = wperf_add_durations(f->on_runnable_ns, on_runnable);
		f->served_ns = wperf_add_durations(f->served_ns, served);
		f->thread_end_ns = wperf_add_durations(f->thread_end_ns,
							   rest - on_runnable - served);
	}
	f->device_end_ns = wperf_add_durations(f->device_end_ns, f->woken_ns);
	f->device_end_ns = wperf_add_durations(f->device_end_ns, f->through_ns);
	/* Threads that never wait on each other leave nothing to weigh. */
	if (!threads_wait || !(ev = add(f, WPERF_EV_DEVICE_WEIGHT)))
		return;
	ev->vertex = f->device;
	ev->a_ns = f->device_end_ns;
	ev->b_ns = f->thread_end_ns;
	ev->woken_ns = f->woken_ns;
	ev->through_ns = f->through_ns;
	ev->on_runnable_ns = f->on_runnable_ns;
	ev->served_ns = f->served_ns;
	ev->count = f->woken_ns > 0;
	ev->total = f->devices;
}

static bool weight_in_devices(const struct facts *f)
{
	return f->has_device && f->device_end_ns >= f->thread_end_ns;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The pids the threadlike member v stands for, appended to pids[] (room
 * for f->threads): a thread's own, a merged vertex's members' (each dd of
 * a script merged into sh-children is a process of its own); a merged
 * vertex whose members' pids are not known counts as one process per
 * member unless it is of one process. */
static size_t member_pids(const struct wperf_vertex *v, int64_t *pids, size_t n)
{
	if (v->kind != WPERF_V_VIRTUAL || !v->n_members) {
		pids[n++] = v->pid;
		return n;
	}
	for (size_t j = 0; j < v->n_members; j++)
		pids[n++] = v->member_pids ? v->member_pids[j] : v->pid >= 0 ? v->pid : -1;
	return n;
}

/* How many processes the members' threads belong to, each counted once:
 * a pid met twice is one process, an unknown one (-1) a process of its
 * own each time. The count of what the finding holds, merged vertices
 * counted by what they stand for. */
static size_t distinct_processes(const struct facts *f)
{
	int64_t *pids = malloc((f->threads ? f->threads : 1) * sizeof *pids);
	size_t n = 0, distinct = 0;

	if (!pids)
		return 0;
	for (size_t i = 0; i < f->k->n_members; i++) {
		uint32_t id = f->k->members[i];
		if (id < f->g->n_vertices && is_threadlike(&f->g->vertices[id]))
			n = member_pids(&f->g->vertices[id], pids, n);
	}
	qsort(pids, n, sizeof *pids, cmp_i64);
	for (size_t i = 0; i < n; i++)
		distinct += pids[i] < 0 || i == 0 || pids[i] != pids[i - 1];
	free(pids);
	return distinct;
}

static void process_facts(struct facts *f)
{
	struct wperf_evidence *ev;

	if (f->threads < 2)
		return;
	if (f->pid >= 0) {
		if ((ev = add(f, WPERF_EV_ONE_PROCESS))) {
			ev->count = f->threads;
			ev->pid = f->pid;
		}
		return;
	}
	/* Several processes (or a merged vertex spanning several). */
	if ((ev = add(f, WPERF_EV_PROCESSES)))
		ev->count = distinct_processes(f);
}

static void interrupt_facts(struct facts *f)
{
	for (size_t i = 0; i < f->k->n_members; i++) {
		uint32_t id = f->k->members[i];
		if (id >= f->g->n_vertices)
			continue;
		enum wperf_vertex_kind kind = f->g->vertices[id].kind;
		struct wperf_evidence *ev;
		if ((kind == WPERF_V_IRQ || kind == WPERF_V_SOFTIRQ) &&
		    (ev = add(f, WPERF_EV_INTERRUPT)))
			ev->vertex = id;
	}
}

/* ---- the rules ---- */

static enum wperf_knot_class decide(const struct facts *f)
{
	if (f->k->kind == WPERF_BACKGROUND)
		return WPERF_CLASS_BACKGROUND;
	/* One verdict: a knot whose members waited for a CPU longer than on
	 * each other and on its device is short of CPUs, device or not. */
	if ((f->threads > 1 || f->has_device) &&
	    f->runnable_ns > wperf_add_durations(f->waits_on_each_other_ns,
						     f->waits_on_devices_ns))
		return WPERF_CLASS_TOO_FEW_CPUS;
	/* Or they kept every CPU busy themselves: less waiting cannot make
	 * room for more work. */
	if (f->saturated)
		return WPERF_CLASS_TOO_FEW_CPUS;
	/* A device member makes it blocking I/O only where the knot's weight
	 * lies: its threads' waits on the device, not on each other. */
	if (weight_in_devices(f))
		return WPERF_CLASS_BLOCKING_IO;
	if (f->has_interrupt)
		return WPERF_CLASS_UNKNOWN;
	if (f->phase_like || f->barrier)
		return WPERF_CLASS_LOAD_IMBALANCE;
	if (f->pid >= 0 && f->threads >= 2)
		return WPERF_CLASS_LOCK_CONTENTION;
	return WPERF_CLASS_UNKNOWN;
}

/* Does this fact support the class (listed first)? */
static bool supports(enum wperf_knot_class cls, const struct wperf_evidence *ev)
{
	enum wperf_evidence_kind kind = ev->kind;

	/* Where a device knot's weight lies decides between I/O and the
	 * threads' own classes, whichever way it goes. */
	if (kind == WPERF_EV_DEVICE_WEIGHT)
		return cls == WPERF_CLASS_BLOCKING_IO
			       ? ev->a_ns >= ev->b_ns
			       : (cls == WPERF_CLASS_LOAD_IMBALANCE ||
				  cls == WPERF_CLASS_LOCK_CONTENTION || cls == WPERF_CLASS_UNKNOWN) &&
					 ev->a_ns < ev->b_ns;
	switch (cls) {
	case WPERF_CLASS_BACKGROUND:
		return kind == WPERF_EV_BACKGROUND;
	case WPERF_CLASS_BLOCKING_IO:
		return kind == WPERF_EV_DEVICE;
	case WPERF_CLASS_TOO_FEW_CPUS:
		/* The demand supports it only when it is the larger side: a
		 * saturated knot may have waited on each other more. */
		return (kind == WPERF_EV_CPU_DEMAND && ev->a_ns > ev->b_ns) ||
		       kind == WPERF_EV_RUNNABLE || kind == WPERF_EV_CPU_SATURATED;
	case WPERF_CLASS_LOAD_IMBALANCE:
		return kind == WPERF_EV_TURNS || kind == WPERF_EV_QUEUE ||
		       kind == WPERF_EV_GROUP || kind == WPERF_EV_WAIT_LENGTH;
	case WPERF_CLASS_LOCK_CONTENTION:
		return kind == WPERF_EV_ONE_PROCESS || kind == WPERF_EV_SELF_LOOP ||
		       kind == WPERF_EV_TURNS || kind == WPERF_EV_QUEUE ||
		       kind == WPERF_EV_GROUP || kind == WPERF_EV_WAIT_LENGTH;
	case WPERF_CLASS_UNKNOWN:
		return kind == WPERF_EV_INTERRUPT || kind == WPERF_EV_PROCESSES;
	}
	return false;
}

/* Stable: the deciding facts first, the others after, each in the order
 * they were gathered. */
static void order_evidence(struct wperf_classification *c)
{
	struct wperf_evidence sorted[WPERF_MAX_EVIDENCE];
	size_t n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < c->n_evidence; i++)
			if (supports(c->cls, &c->evidence[i]) == (pass == 0)) {
				sorted[n] = c->evidence[i];
				sorted[n++].decides = pass == 0;
			}
	memcpy(c->evidence, sorted, n * sizeof *sorted);
}

/* A sink's limit is its own work; when it is often runnable, that work
 * waits for a CPU (a knot refined down to one busy worker of a pool). */
static int classify_sink(struct facts *f)
{
	runnable_facts(f);
	for (size_t i = 0; i < f->out->n_evidence; i++)
		if (f->out->evidence[i].kind == WPERF_EV_RUNNABLE) {
			f->out->n_evidence = 1;
			f->out->evidence[0] = f->out->evidence[i];
			f->out->evidence[0].decides = true;
			f->out->cls = WPERF_CLASS_TOO_FEW_CPUS;
			f->out->sink = true;
			return 0;
		}
	f->out->n_evidence = 0;
	return -1;
}

int wperf_classify_knot(const struct wperf_graph *g, const struct wperf_knot *k,
			int64_t min_weight_ns, struct wperf_classification *out)
{
	struct facts f = { .g = g, .k = k, .min_weight_ns = min_weight_ns, .out = out,
			   .device = UINT32_MAX };

	memset(out, 0, sizeof *out);
	if (k->kind == WPERF_SINK)
		return classify_sink(&f);
	if (k->kind == WPERF_BACKGROUND) {
		struct wperf_evidence *ev = add(&f, WPERF_EV_BACKGROUND);
		ev->a_ns = k->cpu_ns;
		ev->b_ns = k->span_ns;
		ev->ppm = wperf_ppm(k->cpu_ns, k->span_ns);
	}
	member_facts(&f);
	device_weight_fact(&f);
	edge_facts(&f);
	turns_fact(&f);
	group_fact(&f);
	wait_length_fact(&f);
	runnable_facts(&f);
	saturation_fact(&f);
	process_facts(&f);
	interrupt_facts(&f);
	out->cls = decide(&f);
	order_evidence(out);
	return 0;
}

int wperf_classes_find(const struct wperf_graph *g, const struct wperf_knots *knots,
		       int64_t min_weight_ns, struct wperf_classes *out)
{
	memset(out, 0, sizeof *out);
	if (!knots || knots->n == 0)
		return 0;
	out->items = calloc(knots->n, sizeof *out->items);
	out->classified = calloc(knots->n, sizeof *out->classified);
	if (!out->items || !out->classified) {
		wperf_classes_fini(out);
		return -1;
	}
	out->n = knots->n;
	for (size_t i = 0; i < knots->n; i++)
		out->classified[i] = wperf_classify_knot(g, &knots->items[i], min_weight_ns,
							 &out->items[i]) == 0;
	return 0;
}

void wperf_classes_fini(struct wperf_classes *c)
{
	free(c->items);
	free(c->classified);
	memset(c, 0, sizeof *c);
}

const struct wperf_classification *wperf_classes_get(const struct wperf_classes *c, size_t i)
{
	if (!c || i >= c->n || !c->classified[i])
		return NULL;
	return &c->items[i];
}
