/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/ctxswitch.c — a context-switch-heavy workload for the
 * benchmark (tests/bench/run-bench.py): pairs of threads ("cs-ping-<i>",
 * "cs-pong-<i>") hand a token back and forth through a futex, so each
 * hand-over is a wakeup and a voluntary context switch.
 *
 * Usage: ctxswitch [--seconds N] [--pairs P] [--rate R]
 *   --seconds N  run time (default 3)
 *   --pairs P    thread pairs (default 2)
 *   --rate R     aim at R context switches per second in all (default
 *                200000; 0 = as fast as possible). Each thread paces its
 *                hand-overs against the clock, sleeping when ahead.
 * At the end it prints the hand-overs, the context switches the kernel
 * counted (getrusage) and their rate, and its pid.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_PAIRS 64

struct pair {
	_Atomic uint32_t turn; /* 0: ping's turn, 1: pong's */
	uint64_t handovers[2];
};

static struct pair pairs[MAX_PAIRS];
static double run_seconds = 3.0;
static long n_pairs = 2, rate = 200000;
static atomic_bool stop;
static struct timespec t_start;

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t_start.tv_sec) + (t.tv_nsec - t_start.tv_nsec) / 1e9;
}

static void futex_wait(_Atomic uint32_t *w, uint32_t val)
{
	syscall(SYS_futex, w, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *w)
{
	syscall(SYS_futex, w, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

struct role {
	struct pair *p;
	uint32_t me;
	int index;
};

/* Sleep while this thread is ahead of its share of the target rate. */
static void pace(uint64_t done)
{
	double per_thread = (double)rate / (double)(2 * n_pairs);
	double ahead = (double)done / per_thread - now_s();

	if (rate > 0 && ahead > 0.0005) {
		struct timespec d = { 0, (long)(ahead * 1e9) };

		nanosleep(&d, NULL);
	}
}

static void *player(void *arg)
{
	struct role *r = arg;
	struct pair *p = r->p;
	char name[16];

	snprintf(name, sizeof name, "cs-%s-%d", r->me ? "pong" : "ping", r->index);
	pthread_setname_np(pthread_self(), name);
	for (;;) {
		uint32_t t = atomic_load(&p->turn);

		if (t == 2)
			break;
		if (t != r->me) {
			futex_wait(&p->turn, t);
			continue;
		}
		uint64_t done = ++p->handovers[r->me];

		if ((done & 63) == 0)
			pace(done);
		/* Hand the token over unless it is time to stop (then 2 ends both). */
		atomic_store(&p->turn, atomic_load(&stop) ? 2 : 1 - r->me);
		futex_wake(&p->turn);
	}
	return NULL;
}

static void usage(void)
{
	fprintf(stderr, "usage: ctxswitch [--seconds N] [--pairs P] [--rate R]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	static struct role roles[2 * MAX_PAIRS];
	pthread_t th[2 * MAX_PAIRS];
	struct rusage ru;
	uint64_t total = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc)
			usage();
		if (strcmp(argv[i], "--seconds") == 0)
			run_seconds = atof(argv[++i]);
		else if (strcmp(argv[i], "--pairs") == 0)
			n_pairs = atol(argv[++i]);
		else if (strcmp(argv[i], "--rate") == 0)
			rate = atol(argv[++i]);
		else
			usage();
	}
	if (run_seconds <= 0 || n_pairs < 1 || n_pairs > MAX_PAIRS || rate < 0) {
		fprintf(stderr, "ctxswitch: --seconds > 0, --pairs 1..%d, --rate >= 0\n", MAX_PAIRS);
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &t_start);
	for (int i = 0; i < 2 * n_pairs; i++) {
		roles[i] = (struct role){ &pairs[i / 2], (uint32_t)(i % 2), i / 2 };
		if (pthread_create(&th[i], NULL, player, &roles[i]) != 0) {
			fprintf(stderr, "ctxswitch: pthread_create failed\n");
			return 1;
		}
	}
	while (now_s() < run_seconds)
		usleep(10000);
	atomic_store(&stop, 1);
	for (int i = 0; i < 2 * n_pairs; i++)
		pthread_join(th[i], NULL);
	double elapsed = now_s();

	for (int i = 0; i < n_pairs; i++)
		total += pairs[i].handovers[0] + pairs[i].handovers[1];
	getrusage(RUSAGE_SELF, &ru);
	uint64_t cs = (uint64_t)ru.ru_nvcsw + (uint64_t)ru.ru_nivcsw;
	printf("ctxswitch: %llu hand-overs, %llu context switches in %.2f s "
	       "(%.0f per second), pid %d\n",
	       (unsigned long long)total, (unsigned long long)cs, elapsed,
	       (double)cs / elapsed, (int)getpid());
	return 0;
}
