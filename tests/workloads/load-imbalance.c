/*
 * tests/workloads/load-imbalance.c — load imbalance by phases (METHOD.md
 * §10), for recording real traces.
 *
 * Two threads, "phase-a" and "phase-b", compute in phases separated by a
 * barrier. In each phase one of them has four times the other's work, so
 * the other finishes early and waits at the barrier for it. Phases come in
 * blocks: for a block of PHASES_PER_BLOCK phases phase-a has the heavy
 * share, then phase-b does, and so on. So the two wait for each other
 * (a two-thread cycle: the knot), and they take turns by blocks: one side
 * waits many times in a row before the other does, which is what wperf
 * calls load imbalance rather than lock contention.
 *
 * Work is measured in the thread's own CPU time, so being preempted by
 * the tracer does not change how much work a phase holds.
 *
 * Usage: load-imbalance [--seconds S] [--light-ms L]
 *   --seconds S   run time (default 2)
 *   --light-ms L  the light share of a phase, in ms of CPU (default 2;
 *                 the heavy share is 4 times that)
 * At the end it prints "load-imbalance: phases N waits-a A waits-b B",
 * where waits-x counts the phases in which x had the light share.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpu-work.h"

#define PHASES_PER_BLOCK 20
#define HEAVY_FACTOR     5

static double run_seconds = 2.0;
static long light_ns = 2000000;
static pthread_barrier_t barrier;
static uint64_t phases, light_phases[2];

/* Which thread has the heavy share in phase p. */
static int heavy_side(uint64_t p)
{
	return (int)((p / PHASES_PER_BLOCK) % 2);
}

static void *phase_thread(void *arg)
{
	int side = (int)(intptr_t)arg;

	pthread_setname_np(pthread_self(), side == 0 ? "phase-a" : "phase-b");
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
		else
			return -1;
	}
	return run_seconds > 0 && light_ns > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t t[2];

	if (parse_args(argc, argv) < 0) {
		fprintf(stderr, "usage: load-imbalance [--seconds S] [--light-ms L]\n");
		return 2;
	}
	/* A phase lasts about its heavy share. */
	phases = (uint64_t)(run_seconds * 1e9 / (double)(HEAVY_FACTOR * light_ns));
	pthread_barrier_init(&barrier, NULL, 2);
	for (int i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, phase_thread, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, "load-imbalance: cannot create thread %d\n", i);
			return 1;
		}
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("load-imbalance: phases %llu waits-a %llu waits-b %llu\n",
	       (unsigned long long)phases, (unsigned long long)light_phases[0],
	       (unsigned long long)light_phases[1]);
	return 0;
}
