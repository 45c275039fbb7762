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
 * the report's threads (doc/wperf-analysis.7.md, "The CPUs", says why it
 * is a reading of the breakdown and not a `cpu` vertex), and names who
 * else ran on the CPUs meanwhile.
 */
#ifndef WPERF_CPU_H
#define WPERF_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

#define WPERF_CPU_LISTED 3     /* threads named on each side */

struct wperf_cpu_finding {
	/* The report's threads: the focus (after merging: its vertices),
	 * or without a focus every thread but the tracer's. */
	size_t n_threads;          /* of them, those that were runnable at all
	                              (a merged vertex counts its members) */
	int64_t runnable_ns;       /* their runnable time, summed */
	int64_t waiting_ns;        /* their waits on threads, devices and
	                              interrupts, summed (direct: not timers,
	                              not `unknown`, not a kernel service
	                              thread's wait for work) */
	int64_t span_ns;           /* from the first one's first event to the
	                              last one's last */
	uint32_t runnable[WPERF_CPU_LISTED]; /* the most runnable of them */
	size_t n_runnable;
	/* Threads outside that set, the tracer's included (they ran too),
	 * that ran the most meanwhile: who else had the CPUs. Empty without
	 * a focus (every thread is in the set). */
	uint32_t others[WPERF_CPU_LISTED];
	size_t n_others;
	int64_t others_running_ns; /* every such thread's running time */
	/* The report leads with the CPUs: runnable_ns > waiting_ns, and
	 * runnable_ns is at least a quarter of span_ns (on average a quarter
	 * of a thread waited for a CPU all along) and at least the noise
	 * floor. */
	bool first;
};

/*
 * Compute the finding. focus, opaque: as in wperf_knot_options (NULL or
 * one flag per vertex id). Always 0 (no allocation); an int so that a
 * later version may allocate.
 */
int wperf_cpu_find(const struct wperf_graph *g, const bool *focus, const bool *opaque,
		   int64_t min_weight_ns, struct wperf_cpu_finding *out);

#endif /* WPERF_CPU_H */
