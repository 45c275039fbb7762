/* SPDX-License-Identifier: MIT */
/*
 * cpus.h — which CPUs the trace shows, and which it should.
 *
 * A CPU whose stream file was deleted or emptied (a copy cut short, a
 * tracer that lost a per-CPU buffer) leaves no message at all: nothing in
 * the trace says it is missing, and the report silently shows less. But
 * every wakeup names the CPU its thread will run on (sched_waking's and
 * sched_wakeup's target_cpu), and a thread woken to run on a CPU is soon
 * switched in there, an event on that CPU. So a CPU that wakeups target
 * while no event of the trace was recorded on it is missing from the
 * trace. The threads woken to run there are remembered (while the CPU has
 * shown no event) so that the report can mark the findings they are in.
 *
 * Cost: one byte test per event and per wakeup while every target CPU has
 * shown events, which is the normal case.
 */
#ifndef WPERF_CPUS_H
#define WPERF_CPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vertex.h"

#define CPUS_MAX 4096             /* larger CPU numbers are not tracked */
#define CPUS_TIDS_KEPT 32         /* threads remembered per unseen CPU */
#define CPUS_MISSING_MIN_WAKEUPS 3 /* fewer: a stray or corrupt field */

struct cpu_state {
	bool seen;                    /* an event was recorded on it */
	uint64_t targeted;            /* wakeups whose target_cpu it is */
	int64_t tids[CPUS_TIDS_KEPT]; /* threads woken to run there while unseen */
	uint32_t n_tids;
};

struct cpu_census {
	struct cpu_state *cpu;
	size_t n;
	bool oom;
};

void cpus_init(struct cpu_census *c);
void cpus_fini(struct cpu_census *c);

/* An event was recorded on cpu (-1: unknown). */
static inline void cpus_event(struct cpu_census *c, int cpu)
{
	void cpus_first_event(struct cpu_census *c, int cpu);

	if (cpu >= 0 && ((size_t)cpu >= c->n || !c->cpu[cpu].seen))
		cpus_first_event(c, cpu);
}

/* cpus_wakeup_target() naming a CPU that has shown no event yet. */
void cpus_wakeup_unseen_target(struct cpu_census *c, int cpu, int64_t tid);

/* A wakeup of tid names cpu as where it will run. Inline: half of a
 * scheduler trace is wakeups, nearly all to CPUs already seen. */
static inline void cpus_wakeup_target(struct cpu_census *c, int cpu, int64_t tid)
{
	if (cpu < 0)
		return;
	if ((size_t)cpu < c->n && c->cpu[cpu].seen)
		c->cpu[cpu].targeted++;
	else
		cpus_wakeup_unseen_target(c, cpu, tid);
}

/* At the end: fill q->missing_cpus, and flag in the table the threads
 * woken to run on a missing CPU (wperf_vertex.woken_to_missing_cpu).
 * -1 when out of memory. */
int cpus_finish(struct cpu_census *c, struct vertex_table *vt, struct wperf_quality *q);

#endif /* WPERF_CPUS_H */
