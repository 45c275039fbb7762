/* SPDX-License-Identifier: MIT */
/*
 * mutex-contention.c — lock contention, the pattern of wperf-method(7) §9: N
 * worker threads named "mutex-worker-0" ... "mutex-worker-<N-1>" take one
 * pthread mutex again and again, do real CPU work while holding it, and
 * half as much outside. Each worker spends most of its time blocked on
 * the mutex, woken by whichever worker released it: the N workers wait on
 * each other in a cycle (one knot; under merge="name" one vertex
 * "mutex-worker-*" with a self-loop).
 *
 * Usage: mutex-contention [--threads N] [--seconds S]   (defaults: 4, 2)
 * Prints "mutex-contention: sections K" (critical sections done) at the end,
 * so a test can tell that the workload really ran.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define SECTION_ROUNDS 200000   /* ~0.1-0.5 ms of arithmetic: long enough to block others */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_bool stop;
static uint64_t sections;      /* under lock */
static volatile uint64_t sink; /* keeps the work from being optimised away */

static void cpu_work(unsigned rounds)
{
	uint64_t x = sink + 1;

	for (unsigned i = 0; i < rounds; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	sink = x;
}

static void *worker(void *arg)
{
	char name[16];

	snprintf(name, sizeof name, "mutex-worker-%d", (int)(intptr_t)arg);
	pthread_setname_np(pthread_self(), name);
	while (!atomic_load(&stop)) {
		pthread_mutex_lock(&lock);
		cpu_work(SECTION_ROUNDS);
		sections++;
		pthread_mutex_unlock(&lock);
		/* Half as much work outside: every worker gets its turn
		 * (the releaser does not re-acquire at once), and the
		 * workers together run more than one CPU's worth, so the
		 * knot cannot pass for background threads (wperf-method(7) §7),
		 * while the mutex stays the bottleneck: each worker still
		 * waits for the others most of the time. */
		cpu_work(SECTION_ROUNDS / 2);
	}
	return NULL;
}

static int parse_args(int argc, char **argv, int *threads, double *seconds)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc)
			*threads = atoi(argv[++i]);
		else if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc)
			*seconds = atof(argv[++i]);
		else
			return -1;
	}
	return *threads >= 1 && *threads <= MAX_THREADS && *seconds > 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	pthread_t th[MAX_THREADS];
	int threads = 4;
	double seconds = 2;
	struct timespec ts;

	if (parse_args(argc, argv, &threads, &seconds) < 0) {
		fprintf(stderr, "usage: mutex-contention [--threads N (1-%d)] [--seconds S]\n",
			MAX_THREADS);
		return 2;
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&th[i], NULL, worker, (void *)(intptr_t)i) != 0) {
			fprintf(stderr, "mutex-contention: cannot create thread %d\n", i);
			return 1;
		}
	ts.tv_sec = (time_t)seconds;
	ts.tv_nsec = (long)((seconds - (double)ts.tv_sec) * 1e9);
	nanosleep(&ts, NULL);
	atomic_store(&stop, true);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	printf("mutex-contention: sections %llu\n", (unsigned long long)sections);
	return sections > 0 ? 0 : 1;
}
