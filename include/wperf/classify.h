/* SPDX-License-Identifier: MIT */
/*
 * wperf/classify.h — what kind of problem a knot is, in plain language,
 * with the evidence (wperf-method(7) §10).
 *
 * A classification is a reading of the finished graph, not a measurement:
 * it looks at who is in the knot and how they wait, applies the first rule
 * that fits, and keeps every fact it looked at so a person can check it.
 * The rules, in order (doc/wperf-analysis.7.md, "Classification"):
 *
 *   background      the knot is background (wperf/knots.h): not the limit.
 *   too few CPUs    the members were runnable (waiting for a CPU) longer,
 *                   in all, than they waited on each other and on a device.
 *   blocking I/O    a disk or NIC is a member, and the threads' waits on it
 *                   (weight, with the CPU delays after its wakeups) weigh
 *                   at least as much as their waits on each other; a knot
 *                   whose weight lies between its threads goes on to the
 *                   rules below, device or not.
 *   load imbalance  the heaviest pair of threads that wait for each other
 *                   both ways wait several times in a row, each side, before
 *                   the other does (wperf_edge.turns), and the side waited
 *                   on was working, not queued itself, through most of
 *                   those waits (wperf_edge.chained): threads take turns
 *                   finishing phases of work. A lock handed along a queue
 *                   of three or more threads also makes long runs (each
 *                   waits on the one queued before it), but there the
 *                   waker had been waiting too. Or: most waits between
 *                   members end in group wakeups (wperf_edge.grouped) by a
 *                   waker that was not queued itself: a barrier that the
 *                   last thread to arrive opens, whoever that is (threads
 *                   merged into one vertex included).
 *   lock contention the members are threads of one process (or a merged
 *                   vertex waiting on itself).
 *   unknown         anything else (threads of several processes, an
 *                   interrupt in the cycle): the evidence still says what
 *                   was seen.
 *
 * A sink's limit is its own work: it is classified only when that work
 * waits for a CPU (too few CPUs, its runnable share as the evidence).
 */
#ifndef WPERF_CLASSIFY_H
#define WPERF_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"
#include "wperf/knots.h"

enum wperf_knot_class {
	WPERF_CLASS_BACKGROUND,
	WPERF_CLASS_BLOCKING_IO,
	WPERF_CLASS_TOO_FEW_CPUS,
	WPERF_CLASS_LOAD_IMBALANCE,
	WPERF_CLASS_LOCK_CONTENTION,
	WPERF_CLASS_UNKNOWN,
};

/* A thread runnable at least this share of its time (ppm) lacks a CPU. */
#define WPERF_RUNNABLE_BOUND_PPM 250000

/* More than this share (ppm) of a pair's waits began while the side waited
 * on was waiting itself: a queue, not phases. Measured: 95 to 99% of the
 * waits among four threads sharing a mutex, none between two threads
 * meeting at a barrier (tests/workloads/mutex-contention, load-imbalance). */
#define WPERF_QUEUE_CHAINED_PPM 500000

/* More than this share (ppm) of the members' waits on each other ended in
 * group wakeups: a barrier. Measured: all 600 waits of four threads at a
 * barrier whose heavy share moves at random, none among four threads on a
 * mutex, none between two threads at a barrier (one waiter per phase). */
#define WPERF_GROUP_WAKE_PPM 500000

/* Members that ran at least this share (ppm) of what the trace's CPUs
 * could run over the time they existed kept the CPUs busy themselves: too
 * few CPUs, however they wait on each other. Measured on the field suite's
 * recordings on 2 CPUs: CPU-bound programs 0.92-0.93 (nginx and wrk, xz
 * and its feeder), lock and disk knots at most 0.65 (sysbench's mutex
 * 0.62-0.64, MariaDB's hot rows 0.61, its fsyncing commits 0.65). */
#define WPERF_CPU_SATURATED_PPM 800000

enum wperf_evidence_kind {
	WPERF_EV_DEVICE,        /* vertex: a device member; a_ns: members wait for it;
	                           b_ns: it waits for them (idle) */
	WPERF_EV_RUNNABLE,      /* vertex: a runnable-bound member; a_ns: its wait
	                           for a CPU another thread held
	                           (wperf_vertex_cpu_need_ns); ppm: share of its
	                           time; runnable_ns, latency_ns: all its runnable
	                           time, and its wakeup latency */
	WPERF_EV_CPU_DEMAND,    /* vertex: the device member counted in b_ns, if any;
	                           a_ns: members' waits for a CPU another thread
	                           held, summed; b_ns: their waits on each other
	                           (direct); runnable_ns, latency_ns as above,
	                           summed */
	WPERF_EV_WAIT_LENGTH,   /* count: waits between members; a_ns: lower bound of
	                           the median bucket; b_ns: its upper bound */
	WPERF_EV_TURNS,         /* vertex -> vertex2 a_ns, vertex2 -> vertex b_ns: the
	                           heaviest pair that waits both ways; count: their
	                           waits, turns: runs of them (wperf_edge.turns) */
	WPERF_EV_ONE_PROCESS,   /* vertex: a member; count: thread members; pid */
	WPERF_EV_SELF_LOOP,     /* vertex: a merged vertex; a_ns: its self-loop weight */
	WPERF_EV_PROCESSES,     /* count: distinct processes among members */
	WPERF_EV_INTERRUPT,     /* vertex: an interrupt member */
	WPERF_EV_BACKGROUND,    /* a_ns: CPU demand; b_ns: the time its threads
	                           existed; ppm: a_ns / b_ns */
	WPERF_EV_QUEUE,         /* vertex, vertex2: the pair of WPERF_EV_TURNS;
	                           total: their waits; count: those that began
	                           while the other side was itself waiting
	                           (wperf_edge.chained) */
	WPERF_EV_GROUP,         /* total: waits between members; count: those
	                           ended by a wakeup of a group woken at once
	                           (wperf_edge.grouped) */
	WPERF_EV_DEVICE_WEIGHT, /* vertex: the first device member; total: device
	                           members; a_ns: weight of the threads' waits on
	                           them, with the CPU delays after their wakeups
	                           (count 1 when there were any); b_ns: weight of
	                           the threads' waits on each other */
	WPERF_EV_CPU_SATURATED, /* a_ns: members' running time; b_ns: what count
	                           CPUs could run over span_ns, the time the
	                           members existed; ppm: a_ns / b_ns, at least
	                           WPERF_CPU_SATURATED_PPM */
};

struct wperf_evidence {
	enum wperf_evidence_kind kind;
	uint32_t vertex, vertex2;  /* UINT32_MAX when not used */
	int64_t a_ns, b_ns;
	int64_t woken_ns;          /* cpu_demand, device_weight: the members' CPU
	                              delays after device wakeups (woken_cpu_wait_ns)
	                              that b_ns or a_ns includes as the device's
	                              cost; 0 for the other kinds */
	int64_t through_ns;        /* device_weight: the part of a_ns the threads
	                              waited on each other while the one waited on
	                              waited on a device (wperf_edge.device_ns);
	                              0 for the other kinds */
	int64_t on_runnable_ns;    /* device_weight: the threads' waits on each other
	                              while the one waited on was runnable
	                              (wperf_edge.runnable_ns): a wait for a CPU,
	                              on neither side; 0 for the other kinds */
	int64_t served_ns;         /* device_weight: the threads' waits on another
	                              program working on their request
	                              (wperf_edge.served_ns): its service time,
	                              on neither side; 0 for the other kinds */
	int64_t runnable_ns;       /* runnable, cpu_demand: the runnable time the
	                              threads table shows (all of it), of which
	                              a_ns is the wait for a CPU another thread
	                              held; the rest is wakeup latency on an idle
	                              CPU (latency_ns) and CPU delays after device
	                              wakeups, those waits' cost; 0 otherwise */
	int64_t latency_ns;        /* runnable, cpu_demand: of runnable_ns, the
	                              wakeup latency on idle CPUs */
	uint64_t count;
	uint64_t total;            /* the whole count is part of (queue), else 0 */
	uint64_t turns;
	uint64_t ppm;
	int64_t pid;
	bool decides;              /* it supports the class (listed first): the
	                              words say what it implies only then */
};

#define WPERF_MAX_EVIDENCE 12

struct wperf_classification {
	enum wperf_knot_class cls;
	bool sink;                 /* a sink's (one vertex, no members waiting on
	                              each other): its words are a sink's */
	struct wperf_evidence evidence[WPERF_MAX_EVIDENCE];
	size_t n_evidence;
};

/* "blocking_io", "lock_contention", ... as written in JSON reports. */
const char *wperf_knot_class_name(enum wperf_knot_class cls);

/* One plain-language sentence: "blocking I/O: threads wait for a device
 * that waits for them"; a sink's own words for a sink (it has no members
 * waiting on each other, no knot to wait inside). */
const char *wperf_classification_summary(const struct wperf_classification *c);

/* "evidence kind" as written in JSON reports: "device", "runnable", ... */
const char *wperf_evidence_kind_name(enum wperf_evidence_kind kind);

/* Runnable at least WPERF_RUNNABLE_BOUND_PPM of its time (threads and
 * merged threads only). */
bool wperf_vertex_is_runnable_bound(const struct wperf_vertex *v);

/* Share of a thread's accounted time (running + runnable + waiting) it
 * spent runnable while another thread held its CPU (not a wakeup's
 * latency on an idle CPU: wperf_vertex_cpu_wait_ns), in ppm; 0 for
 * vertices that are not threads. */
uint64_t wperf_vertex_runnable_ppm(const struct wperf_vertex *v);

/*
 * What bounds a sink, a vertex that waits on nothing in the graph
 * (wperf-method(7) §7: "limited by its own execution"), read from where its
 * time went. Its waits on timers and on `unknown` take no part in knots,
 * so a thread that mostly sleeps is a sink too, and "its own work" would
 * be the wrong reading:
 *   work    a device (its service time), or a thread that spent less
 *           than half of its time in either of the two below;
 *   timer   a thread that spent at least half of its time waiting on
 *           timers: sleeps and timeouts pace it, not another thread;
 *   unseen  at least half waiting on `unknown`: a wait still open at the
 *           end of the trace, or one whose end was lost.
 */
enum wperf_sink_limit {
	WPERF_LIMIT_WORK,
	WPERF_LIMIT_TIMER,
	WPERF_LIMIT_UNSEEN,
};

/* What bounds knot k: WPERF_LIMIT_WORK unless it is a sink that no
 * refinement left (one cut out of a knot waits on the rest of it). For
 * timer and unseen, *waited_ns (when not NULL) gets that waiting time. */
enum wperf_sink_limit wperf_sink_limit(const struct wperf_graph *g, const struct wperf_knot *k,
				       int64_t *waited_ns);

/* "work", "timer", "unseen" as written in JSON reports. */
const char *wperf_sink_limit_name(enum wperf_sink_limit limit);

/* Classify a knot or background knot; a sink only when it is runnable
 * bound (else -1). Edges lighter than min_weight_ns are left out, as in
 * knot finding. */
int wperf_classify_knot(const struct wperf_graph *g, const struct wperf_knot *k,
			int64_t min_weight_ns, struct wperf_classification *out);

/* Every finding of a knot search classified once, for the report writers
 * (struct wperf_report's `classes`), so that no writer classifies again. */
struct wperf_classes {
	struct wperf_classification *items;   /* items[i]: knots->items[i]'s */
	bool *classified;                     /* false: none (a sink that is not
	                                         runnable bound) */
	size_t n;                             /* knots->n */
};

/* wperf_classify_knot() on each of knots->items. 0, or -1 on allocation
 * failure (out is then empty). Free with wperf_classes_fini(). */
int wperf_classes_find(const struct wperf_graph *g, const struct wperf_knots *knots,
		       int64_t min_weight_ns, struct wperf_classes *out);
void wperf_classes_fini(struct wperf_classes *c);

/* knots->items[i]'s classification, or NULL when it has none (or c is
 * NULL). */
const struct wperf_classification *wperf_classes_get(const struct wperf_classes *c, size_t i);

#endif /* WPERF_CLASSIFY_H */
