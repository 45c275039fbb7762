/* SPDX-License-Identifier: MIT */
/*
 * wperf/cpu.h — the CPU finding: did the threads the report is about wait
 * for a CPU more than for anything else?
 *
 * Knots and sinks are made of waits: a thread that is runnable (ready,
 * waiting for a CPU) waits on no vertex of the wait-for graph, so its
 * runnable time can only appear as a fact inside a knot's classification.
 * When that time outweighs every wait it has, a report that leads with a
 * disk or a NIC names the wrong thing: less waiting on the device cannot
 * help threads that do not get a CPU. This reading compares the two for
 * the report's threads, each weighed by the work it did, a wait on a
 * thread that was itself runnable counting as a wait for a CPU
 * (doc/wperf-analysis.7.md, "The CPUs", says why it is a reading of the
 * breakdown and not a `cpu` vertex), names the process that waited
 * longest for a CPU, and who else ran on the CPUs meanwhile.
 */
#ifndef WPERF_CPU_H
#define WPERF_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

#define WPERF_CPU_LISTED 3     /* threads named on each side */

struct wperf_cpu_finding {
	/* The report's threads: the focus (after merging: its vertices) and
	 * what it waits on, directly or through others, over dependencies
	 * (not through a device); without a focus every thread but the
	 * tracer's. */
	size_t n_threads;          /* of them, those that were runnable at all
	                              (a merged vertex counts its members) */
	int64_t runnable_ns;       /* their runnable time while another thread held
	                              their CPU, summed (wperf_vertex_cpu_wait_ns) */
	int64_t wake_latency_ns;   /* their runnable time on an idle CPU (a wakeup's
	                              latency), summed: not counted above */
	int64_t waiting_ns;        /* their waits on threads, devices and
	                              interrupts, summed (direct: not timers,
	                              not `unknown`, not a kernel service
	                              thread's wait for work) */
	int64_t waited_on_runnable_ns; /* of those waits, on a thread that was
	                              itself runnable meanwhile, summed */
	/* The comparison (wperf_cpu_weigh, summed): waiting for a CPU
	 * against waiting on anything else, each thread weighed by the share
	 * of its time it asked for a CPU. */
	int64_t weighted_runnable_ns, weighted_waiting_ns;
	int64_t span_ns;           /* from the first one's first event to the
	                              last one's last */
	/* The process that was runnable longest (its vertices summed; a
	 * vertex without one process, a pool of several, counts alone), and
	 * its most runnable vertices. */
	int64_t process_pid;       /* -1: that vertex has no single process */
	int64_t process_runnable_ns;
	uint32_t runnable[WPERF_CPU_LISTED];
	size_t n_runnable;
	/* Threads outside that set, the tracer's included (they ran too),
	 * that ran the most meanwhile: who else had the CPUs. Empty without
	 * a focus (every thread is in the set). */
	uint32_t others[WPERF_CPU_LISTED];
	size_t n_others;
	int64_t others_running_ns; /* every such thread's running time */
	int64_t own_running_ns;    /* the report's threads' running time: above
	                              others_running_ns, the CPUs went mostly to
	                              them (contention among its own threads) */
	/* The report leads with the CPUs: weighted_runnable_ns >
	 * weighted_waiting_ns, and runnable_ns is at least a quarter of
	 * span_ns (on average a quarter of a thread waited for a CPU all
	 * along) and at least the noise floor. */
	bool first;
};

/*
 * One thread's time split for the comparison, with r its running time,
 * q its runnable time while another thread held its CPU
 * (wperf_vertex_cpu_wait_ns: not a wakeup's latency on an idle CPU), d its dependency waits (as waiting_ns above; 0
 * for a kernel service thread), c the part of d spent on a runnable
 * thread (waited_on_runnable_ns, at most d) and T = r + q + d:
 *     *runnable = (r + q) (q + c) / T,   *waiting = (r + q) (d - c) / T.
 * A wait on a thread that was runnable is a wait for a CPU; the weight
 * (r + q) / T, the share of its time the thread asked for a CPU, makes a
 * thread that asked for none (an idle helper waiting all along) count
 * for nothing, and one starved of CPUs count fully. A merged vertex: its
 * members' sums, as the merge stored them (cpu_weighted_*_ns).
 */
void wperf_cpu_weigh(const struct wperf_vertex *v, int64_t *runnable, int64_t *waiting);

/*
 * Compute the finding. focus, opaque: as in wperf_knot_options (NULL or
 * one flag per vertex id). 0, or -1 when out of memory.
 */
int wperf_cpu_find(const struct wperf_graph *g, const bool *focus, const bool *opaque,
		   int64_t min_weight_ns, struct wperf_cpu_finding *out);

#endif /* WPERF_CPU_H */
