/* SPDX-License-Identifier: MIT */
/*
 * cpus.c — which CPUs the trace shows, and which it should (see cpus.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cpus.h"

void cpus_init(struct cpu_census *c)
{
	memset(c, 0, sizeof *c);
}

void cpus_fini(struct cpu_census *c)
{
	free(c->cpu);
	memset(c, 0, sizeof *c);
}

/* Room for cpu; false when it is out of range or memory ran out. */
static bool reserve(struct cpu_census *c, int cpu)
{
	size_t n;
	struct cpu_state *grown;

	if (cpu < 0 || cpu >= CPUS_MAX)
		return false;
	if ((size_t)cpu < c->n)
		return true;
	n = c->n ? c->n : 8;
	while (n <= (size_t)cpu)
		n *= 2;
	grown = realloc(c->cpu, n * sizeof *grown);
	if (!grown) {
		c->oom = true;
		return false;
	}
	memset(grown + c->n, 0, (n - c->n) * sizeof *grown);
	c->cpu = grown;
	c->n = n;
	return true;
}

void cpus_first_event(struct cpu_census *c, int cpu)
{
	if (!reserve(c, cpu))
		return;
	c->cpu[cpu].seen = true;
	c->cpu[cpu].n_tids = 0;       /* it is there: nobody was lost on it */
}

void cpus_wakeup_unseen_target(struct cpu_census *c, int cpu, int64_t tid)
{
	struct cpu_state *s;

	if (!reserve(c, cpu))
		return;
	s = &c->cpu[cpu];
	s->targeted++;
	for (uint32_t i = 0; i < s->n_tids; i++)
		if (s->tids[i] == tid)
			return;
	if (s->n_tids < CPUS_TIDS_KEPT)
		s->tids[s->n_tids++] = tid;
}

int cpus_finish(struct cpu_census *c, struct vertex_table *vt, struct wperf_quality *q)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n; i++)
		n += !c->cpu[i].seen && c->cpu[i].targeted >= CPUS_MISSING_MIN_WAKEUPS;
	q->missing_cpus = NULL;
	q->n_missing_cpus = 0;
	if (n == 0)
		return c->oom ? -1 : 0;
	q->missing_cpus = calloc(n, sizeof *q->missing_cpus);
	if (!q->missing_cpus)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		const struct cpu_state *s = &c->cpu[i];

		if (s->seen || s->targeted < CPUS_MISSING_MIN_WAKEUPS)
			continue;
		q->missing_cpus[q->n_missing_cpus++] =
			(struct wperf_missing_cpu){ (int)i, s->targeted };
		for (uint32_t t = 0; t < s->n_tids; t++) {
			uint32_t v = vt_find_last_thread(vt, s->tids[t]);

			if (v != VERTEX_NONE)
				vt_get(vt, v)->woken_to_missing_cpu = true;
		}
	}
	return c->oom ? -1 : 0;
}
