/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/bench/annotate-bench.c — what one call of each annotation
 * macro costs, in nanoseconds.
 *
 * Built twice: annotate-bench (annotations on) and annotate-bench-disabled
 * (-DWPERF_DISABLE). bench_annotations.py runs them with the provider
 * absent, loaded without a session, and recording, and prints the table of
 * doc/performance-annotations.md.
 *
 * Each macro runs in a loop of --calls iterations of 8 calls, --repeat
 * times; the figure is the median run's time per call. Every call is
 * followed by a compiler barrier, so that the compiler neither drops nor
 * merges calls: the "empty loop" line is that loop with no macro, the floor
 * to compare with.
 *
 * Usage: annotate-bench [--calls N] [--repeat R] [--no-load]
 *   --calls N  iterations per run (default 2 000 000, i.e. 16 000 000 calls)
 *   --no-load  do not call wperf_annotate_load(): the provider stays out
 *              (do not LD_PRELOAD it either, or "provider" is wrong)
 * Prints "annotate-bench: KEY VALUE" lines: provider, then
 * "ns_per_call.MACRO X" for empty_loop, before_spin, after_spin,
 * false_wakeup and progress, and "calls.MACRO N" (calls made, for checking a
 * recording's event counts).
 */
#define WPERF_ANNOTATE_DEFINE
#include <wperf/annotate.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../workloads/workload.h"

#define PROG "annotate-bench"
#define MAX_REPEAT 101

static long calls = 2000000, repeat = 5;   /* x UNROLL calls per run */
static int lock_word;   /* its address is the "lock" */

#define BARRIER() __asm__ __volatile__("" ::: "memory")

/*
 * One timed loop per macro, written out by this macro rather than called
 * through a function pointer: an indirect call would cost more than what we
 * measure. The loop body is the macro UNROLL times, so that the loop's own
 * increment-compare-branch is shared by UNROLL calls and what remains is
 * the macro's cost (a load and a branch, when not recording).
 */
#define UNROLL 8
#define TIMES8(stmt) \
	stmt; BARRIER(); stmt; BARRIER(); stmt; BARRIER(); stmt; BARRIER(); \
	stmt; BARRIER(); stmt; BARRIER(); stmt; BARRIER(); stmt; BARRIER()

#define TIME_LOOP(stmt, out_ns) do {                                      \
	double t0_ = now_seconds();                                       \
	for (long i_ = 0; i_ < calls; i_++) {                             \
		TIMES8(stmt);                                             \
	}                                                                 \
	(out_ns) = (now_seconds() - t0_) * 1e9 / ((double)calls * UNROLL); \
} while (0)

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, long n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

static void report(const char *macro, double *runs)
{
	printf("%s: ns_per_call.%s %.2f\n", PROG, macro, median(runs, repeat));
	printf("%s: calls.%s %ld\n", PROG, macro, calls * repeat * UNROLL);
}

static void parse_options(int argc, char **argv, int *load)
{
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--calls") == 0) {
			calls = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--repeat") == 0) {
			repeat = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--no-load") == 0) {
			*load = 0;
		} else {
			fprintf(stderr, "usage: %s [--calls N] [--repeat R] [--no-load]\n", PROG);
			exit(2);
		}
	}
	if (repeat > MAX_REPEAT) {
		fprintf(stderr, "%s: --repeat at most %d\n", PROG, MAX_REPEAT);
		exit(2);
	}
}

int main(int argc, char **argv)
{
	double empty[MAX_REPEAT], before[MAX_REPEAT], after[MAX_REPEAT];
	double fw[MAX_REPEAT], progress[MAX_REPEAT];
	int load = 1;
	int loaded;

	parse_options(argc, argv, &load);
	loaded = load ? wperf_annotate_load(NULL) : -1;
	printf("%s: provider %s\n", PROG, provider_status(loaded));

	/* Runs of each macro interleaved, so a slow moment hits them all. */
	for (long r = 0; r < repeat; r++) {
		TIME_LOOP((void)0, empty[r]);
		TIME_LOOP(WPERF_BEFORE_SPIN(&lock_word), before[r]);
		TIME_LOOP(WPERF_AFTER_SPIN(&lock_word), after[r]);
		TIME_LOOP(WPERF_FALSE_WAKEUP(), fw[r]);
		TIME_LOOP(WPERF_PROGRESS("item"), progress[r]);
	}
	report("empty_loop", empty);
	report("before_spin", before);
	report("after_spin", after);
	report("false_wakeup", fw);
	report("progress", progress);
	return 0;
}
