/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/load-imbalance.c — load imbalance by phases (wperf-method(7)
 * §10), for recording real traces.
 *
 * Threads "phase-a", "phase-b", ... compute in phases separated by a
 * barrier. In each phase one of them has HEAVY_FACTOR times the others'
 * work, so the others finish early and wait at the barrier for it; the
 * last to arrive wakes them all at once.
 *
 * Which thread is heavy (--heavy):
 * - blocks (the default): the same thread for PHASES_PER_BLOCK phases in
 *   a row, then the next one. With two threads they wait for each other
 *   (a two-thread cycle: the knot) and take turns by blocks: one side
 *   waits many times in a row before the other does, which is what wperf
 *   calls load imbalance rather than lock contention.
 * - random: a different thread from one phase to the next (a hash of the
 *   phase number, the same in every thread). Nobody waits on one thread
 *   many times in a row; with three or more threads, what says "barrier"
 *   is that each phase ends in one wakeup of all the waiters at once.
 *
 * Work is measured in the thread's own CPU time, so being preempted by
 * the tracer does not change how much work a phase holds.
 *
 * Usage: load-imbalance [--seconds S] [--light-ms L] [--threads N]
 *                       [--heavy blocks|random]
 *   --seconds S   run time (default 2)
 *   --light-ms L  the light share of a phase, in ms of CPU (default 2;
 *                 the heavy share is HEAVY_FACTOR times that)
 *   --threads N   2 to 26 threads (default 2)
 * At the end it prints "load-imbalance: phases N waits-a A waits-b B ...",
 * where waits-x counts the phases in which x had the light share.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu-work.h"

#define PHASES_PER_BLOCK 20
#define HEAVY_FACTOR     5
#define MAX_THREADS      26

static double run_seconds = 2.0;
static long light_ns = 2000000;
static int n_threads = 2;
static bool heavy_random;
static pthread_barrier_t barrier;
static uint64_t phases, light_phases[MAX_THREADS];

/* Which thread has the heavy share in phase p. */
static int heavy_side(uint64_t p)
{
	if (heavy_random) {
		uint64_t h = (p + 1) * 0x9E3779B97F4A7C15ull;

		return (int)((h >> 32) % (uint64_t)n_threads);
	}
	return (int)((p / PHASES_PER_BLOCK) % (uint64_t)n_threads);
}

static void *phase_thread(void *arg)
{
	int side = (int)(intptr_t)arg;
	char name[16];

	snprintf(name, sizeof name, "phase-%c", 'a' + side);
	pthread_setname_np(pthread_self(), name);
	/* A number of phases fixed in advance, not a stop flag: deciding
	 * together when to stop would take a second barrier per phase, and
	 * its short waits, in either direction, would hide the turns. */
	for (uint64_t p = 0; p < phases; p++) {
		int heavy = heavy_side(p) == side;
		compute(heavy ? HEAVY_FACTOR * light_ns : light_ns);
		if (!heavy)
			light_phases[side]++;
		pthread_barrier_wait(&barrier);
	}
	return NULL;
}

static int parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			run_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--light-ms") && i + 1 < argc)
			light_ns = atol(argv[++i]) * 1000000L;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			n_threads = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--heavy") && i + 1 < argc &&
			 (!strcmp(argv[i + 1], "blocks") || !strcmp(argv[i + 1], "random")))
			heavy_random = !strcmp(argv[++i], "random");
		else
			return -1;
	}
	return run_seconds > 0 && light_ns > 0 && n_threads >= 2 &&
	       n_threads <= MAX_THREADS ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_THREADS];

	if (parse_args(argc, argv) < 0) {
		fprintf(stderr, "usage: load-imbalance [--seconds S] [--light-ms L] "
			"[--threads 2..%d] [--heavy blocks|random]\n", MAX_THREADS);
		return 2;
	}
	/* A phase lasts about its heavy share. */
	phases = (uint64_t)(run_seconds * 1e9 / (double)(HEAVY_FACTOR * light_ns));
	pthread_barrier_init(&barrier, NULL, (unsigned)n_threads);
	for (int i = 0; i < n_threads; i++)
		if (pthread_create(&t[i], NULL, phase_thread, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, "load-imbalance: cannot create thread %d\n", i);
			return 1;
		}
	for (int i = 0; i < n_threads; i++)
		pthread_join(t[i], NULL);
	printf("load-imbalance: phases %llu", (unsigned long long)phases);
	for (int i = 0; i < n_threads; i++)
		printf(" waits-%c %llu", 'a' + i, (unsigned long long)light_phases[i]);
	printf("\n");
	return 0;
}
