/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/workloads/workload.h — the little the annotated workloads
 * share: option parsing, a monotonic clock, the CPU's spin-wait hint, and
 * one way to print results.
 *
 * Every result line is "PROGRAM: KEY VALUE" (one value, no spaces in KEY),
 * so a test can read the program's own counters and compare them with what
 * the trace holds.
 */
#ifndef WPERF_WORKLOAD_H
#define WPERF_WORKLOAD_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The "pause" hint: lets the sibling hyperthread run while we spin. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

static inline double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A positive integer option value; exits with a one-line error otherwise. */
static inline long parse_positive(const char *prog, const char *opt, const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s != NULL ? s : "", &end, 10);
	if (s == NULL || *s == '\0' || *end != '\0' || errno != 0 || v <= 0) {
		fprintf(stderr, "%s: %s needs a positive integer, got '%s'\n",
			prog, opt, s != NULL ? s : "");
		exit(2);
	}
	return v;
}

/*
 * How the annotations were built and whether the provider is in the
 * process: tests check it, since "no event" must never be mistaken for
 * "nothing happened".
 */
static inline const char *provider_status(int load_result)
{
#ifdef WPERF_DISABLE
	(void)load_result;
	return "compiled-out";
#else
	return load_result == 0 ? "loaded" : "not-loaded";
#endif
}

#endif /* WPERF_WORKLOAD_H */
