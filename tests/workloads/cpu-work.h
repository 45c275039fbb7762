/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/cpu-work.h — what the pattern workloads share: reading
 * a clock in nanoseconds, and computing for a given amount of the
 * thread's own CPU time (so that being preempted, by the tracer or by
 * other jobs, does not change how much work a step holds).
 */
#ifndef WPERF_WORKLOAD_CPU_WORK_H
#define WPERF_WORKLOAD_CPU_WORK_H

#include <stdint.h>
#include <time.h>

static inline int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Spin until this thread has used `ns` more of CPU time. */
static inline void compute(int64_t ns)
{
	int64_t until = clock_ns(CLOCK_THREAD_CPUTIME_ID) + ns;
	volatile uint64_t x = 1;

	while (clock_ns(CLOCK_THREAD_CPUTIME_ID) < until)
		for (int i = 0; i < 1000; i++)
			x = x * 6364136223846793005ULL + 1;
}

#endif
