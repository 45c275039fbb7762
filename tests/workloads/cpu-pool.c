/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/cpu-pool.c — a CPU-bound thread pool larger than the
 * machine (wperf-method(7) §7, runnable time), for recording real traces.
 *
 * "pool-main" hands out rounds of work: it wakes every worker, and waits
 * until the last one is done. Each "pool-worker-<i>" waits for a round,
 * computes ROUND_WORK_NS of its own CPU time, and the last to finish
 * wakes pool-main. The workers and pool-main wait on each other (a knot),
 * but with twice as many workers as CPUs, the workers spend as long
 * waiting for a CPU (runnable) as running: the knot needs CPUs, not less
 * waiting, and wperf must say so.
 *
 * Usage: cpu-pool [--seconds S] [--workers N]
 *   --seconds S   run time (default 2)
 *   --workers N   pool size (default: twice the online CPUs)
 * At the end it prints "cpu-pool: workers N rounds R".
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu-work.h"

#define ROUND_WORK_NS 5000000   /* CPU time per worker per round */
#define MAX_WORKERS   64

static double run_seconds = 2.0;
static int workers;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t round_started = PTHREAD_COND_INITIALIZER;
static pthread_cond_t round_done = PTHREAD_COND_INITIALIZER;
static uint64_t round_number;   /* under lock */
static int unfinished;          /* under lock: workers still computing */
static bool finished;           /* under lock: no more rounds */

static void *worker(void *arg)
{
	char name[16];
	uint64_t seen = 0;

	snprintf(name, sizeof name, "pool-worker-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		pthread_mutex_lock(&lock);
		while (round_number == seen && !finished)
			pthread_cond_wait(&round_started, &lock);
		if (finished) {
			pthread_mutex_unlock(&lock);
			return NULL;
		}
		seen = round_number;
		pthread_mutex_unlock(&lock);

		compute(ROUND_WORK_NS);

		pthread_mutex_lock(&lock);
		if (--unfinished == 0)
			pthread_cond_signal(&round_done);
		pthread_mutex_unlock(&lock);
	}
}

static int parse_args(int argc, char **argv)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);

	workers = cpus > 0 && cpus * 2 <= MAX_WORKERS ? (int)cpus * 2 : 4;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			run_seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--workers") && i + 1 < argc)
			workers = atoi(argv[++i]);
		else
			return -1;
	}
	return run_seconds > 0 && workers >= 1 && workers <= MAX_WORKERS ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t t[MAX_WORKERS];
	uint64_t rounds = 0;

	if (parse_args(argc, argv) < 0) {
		fprintf(stderr, "usage: cpu-pool [--seconds S] [--workers N (1-%d)]\n",
			MAX_WORKERS);
		return 2;
	}
	pthread_setname_np(pthread_self(), "pool-main");
	for (int i = 0; i < workers; i++)
		if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, "cpu-pool: cannot create worker %d\n", i);
			return 1;
		}
	int64_t end = clock_ns(CLOCK_MONOTONIC) + (int64_t)(run_seconds * 1e9);
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		pthread_mutex_lock(&lock);
		unfinished = workers;
		round_number++;
		pthread_cond_broadcast(&round_started);
		while (unfinished > 0)
			pthread_cond_wait(&round_done, &lock);
		pthread_mutex_unlock(&lock);
		rounds++;
	}
	pthread_mutex_lock(&lock);
	finished = true;
	pthread_cond_broadcast(&round_started);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < workers; i++)
		pthread_join(t[i], NULL);
	printf("cpu-pool: workers %d rounds %llu\n", workers, (unsigned long long)rounds);
	return 0;
}
