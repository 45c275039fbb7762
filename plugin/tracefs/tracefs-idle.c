/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-idle.c — see tracefs-idle.h.
 */
#include "tracefs-idle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int wperf_idle_init(struct wperf_idle_tracker *t, int ncpus)
{
	memset(t, 0, sizeof(*t));
	t->current = malloc((size_t)ncpus * sizeof(*t->current));
	if (!t->current)
		return -1;
	t->ncpus = ncpus;
	for (int cpu = 0; cpu < ncpus; cpu++)
		t->current[cpu] = WPERF_CURRENT_UNKNOWN;
	return 0;
}

void wperf_idle_fini(struct wperf_idle_tracker *t)
{
	free(t->current);
	t->current = NULL;
}

static struct wperf_thread_name *slot_of(const struct wperf_idle_tracker *t,
					 int64_t tid)
{
	return (struct wperf_thread_name *)&t->names[(uint64_t)tid % WPERF_NAME_SLOTS];
}

void wperf_idle_remember(struct wperf_idle_tracker *t, int64_t tid,
			 const char *comm, int64_t prio)
{
	struct wperf_thread_name *slot;

	if (tid <= 0 || !comm)
		return;
	slot = slot_of(t, tid);
	slot->tid = tid;
	slot->prio = prio;
	/* Not snprintf(): this runs for every switch and wakeup recorded,
	 * and a comm is at most 15 bytes. */
	size_t n = strnlen(comm, sizeof(slot->comm) - 1);

	memcpy(slot->comm, comm, n);
	slot->comm[n] = '\0';
}

const struct wperf_thread_name *wperf_idle_lookup(
	const struct wperf_idle_tracker *t, int64_t tid)
{
	const struct wperf_thread_name *slot = slot_of(t, tid);

	return tid > 0 && slot->tid == tid ? slot : NULL;
}

void wperf_idle_set_current(struct wperf_idle_tracker *t, int cpu, int64_t tid)
{
	if (cpu >= 0 && cpu < t->ncpus)
		t->current[cpu] = tid;
}

bool wperf_idle_switch_missing(const struct wperf_idle_tracker *t, int cpu,
			       int64_t running)
{
	return cpu >= 0 && cpu < t->ncpus && t->current[cpu] == 0 && running > 0;
}
