/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/workloads/spin-lock.c — N threads contend for one spin lock,
 * annotated with WPERF_BEFORE_SPIN / WPERF_AFTER_SPIN (wperf-method(7) §6).
 *
 * The kernel sees these threads running all the time; only the annotations
 * say that a spinner is waiting for the lock holder. Each thread ("spin-0",
 * "spin-1", ...) repeats: take the lock (a test-and-set spin lock), a short
 * critical section on shared data, release, a little work of its own, then
 * WPERF_PROGRESS("item"). With more threads than the critical section can
 * serve, the lock (and whoever holds it) is the bottleneck.
 *
 * Every acquisition is annotated, contended or not: the analysis takes the
 * last thread to pass WPERF_AFTER_SPIN on a lock as its holder, so an
 * unannotated acquisition would make it blame the wrong thread. An
 * uncontended acquisition is a zero-length spin.
 *
 * The spinner yields the CPU every SPIN_YIELD_EVERY tries: with more threads
 * than CPUs, the holder may be preempted, and spinning on a lock whose
 * holder cannot run only burns the holder's CPU.
 *
 * Usage: spin-lock [--threads N] [--iterations K | --seconds S]
 *                  [--cs-rounds R] [--work-rounds R]
 *   --threads N      contending threads (default 4)
 *   --iterations K   lock acquisitions per thread (default 20000)
 *   --seconds S      run for S seconds instead (for throughput figures)
 *   --cs-rounds R    rounds of work (one multiply each, ~1 ns) inside the
 *                    critical section (default 40)
 *   --work-rounds R  rounds of work outside it (default 150)
 * At the end it prints (one "spin-lock: KEY VALUE" per line): pid, provider,
 * lock (the lock's address: the `lock` field of the events), each thread's
 * name and tid, items (= WPERF_PROGRESS calls), spins (= WPERF_BEFORE_SPIN
 * calls = WPERF_AFTER_SPIN calls), contended (acquisitions that had to
 * spin), seconds and items_per_second.
 */
#define WPERF_ANNOTATE_DEFINE   /* this file holds the tracepoint definitions */
#include <wperf/annotate.h>

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define PROG "spin-lock"
#define MAX_THREADS 64
#define SPIN_YIELD_EVERY 64

struct spin_lock {
	atomic_flag held;
};

/* What the threads share. Only `lock` protects `shared`. */
static struct spin_lock lock = { ATOMIC_FLAG_INIT };
static uint64_t shared[8];
static uint64_t shared_count;      /* critical sections done, under lock */
static atomic_bool stop;           /* --seconds: the time is up */
static int cs_rounds = 40;         /* work inside the critical section */
static int work_rounds = 150;      /* work outside it */
static pthread_barrier_t start_line;

struct worker {
	pthread_t thread;
	int index;
	long iterations;           /* 0: until `stop` */
	pid_t tid;
	uint64_t items, spins, contended, sink;
	double began, ended;       /* this thread's own clock readings */
	char name[16];
};

static void spin_lock_acquire(struct spin_lock *l, struct worker *w)
{
	unsigned long tries = 0;

	WPERF_BEFORE_SPIN(l);
	while (atomic_flag_test_and_set_explicit(&l->held, memory_order_acquire)) {
		if (++tries % SPIN_YIELD_EVERY == 0)
			sched_yield();
		else
			cpu_relax();
	}
	WPERF_AFTER_SPIN(l);
	w->spins++;
	if (tries > 0)
		w->contended++;
}

static void spin_lock_release(struct spin_lock *l)
{
	atomic_flag_clear_explicit(&l->held, memory_order_release);
}

/* Some arithmetic the compiler cannot drop: a stand-in for real work. */
static uint64_t work(uint64_t x, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r"(x));  /* one real multiply per round */
	}
	return x;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t x = (uint64_t)w->index + 1;

	w->tid = gettid();
	pthread_barrier_wait(&start_line);
	w->began = now_seconds();
	while (w->iterations > 0 ? w->items < (uint64_t)w->iterations
				 : !atomic_load_explicit(&stop, memory_order_relaxed)) {
		spin_lock_acquire(&lock, w);
		shared[shared_count % 8] = work(shared[shared_count % 8] ^ x, cs_rounds);
		shared_count++;
		spin_lock_release(&lock);

		x = work(x, work_rounds);
		w->items++;
		WPERF_PROGRESS("item");
	}
	w->ended = now_seconds();
	w->sink = x;
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: %s [--threads N] [--iterations K | --seconds S]"
		" [--cs-rounds R] [--work-rounds R]\n", PROG);
}

struct options {
	long threads, iterations, seconds;
};

static struct options parse_options(int argc, char **argv)
{
	struct options o = { 4, 20000, 0 };

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			exit(0);
		} else if (strcmp(argv[i], "--threads") == 0) {
			o.threads = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--iterations") == 0) {
			o.iterations = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--seconds") == 0) {
			o.seconds = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--cs-rounds") == 0) {
			cs_rounds = (int)parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--work-rounds") == 0) {
			work_rounds = (int)parse_positive(PROG, argv[i], v), i++;
		} else {
			usage(stderr);
			exit(2);
		}
	}
	if (o.threads > MAX_THREADS) {
		fprintf(stderr, "%s: at most %d threads\n", PROG, MAX_THREADS);
		exit(2);
	}
	if (o.seconds > 0)
		o.iterations = 0;
	return o;
}

/*
 * The run lasts from the first thread's start to the last one's end, by the
 * threads' own clocks: main() may not run for a while after the barrier (the
 * workers have the CPUs).
 */
static double run_seconds(const struct worker *w, long n)
{
	double began = w[0].began, ended = w[0].ended;

	for (long i = 1; i < n; i++) {
		if (w[i].began < began)
			began = w[i].began;
		if (w[i].ended > ended)
			ended = w[i].ended;
	}
	return ended - began;
}

static void print_results(struct worker *w, long n, int loaded)
{
	uint64_t items = 0, spins = 0, contended = 0;
	double seconds = run_seconds(w, n);

	printf("%s: pid %ld\n", PROG, (long)getpid());
	printf("%s: provider %s\n", PROG, provider_status(loaded));
	printf("%s: lock %#llx\n", PROG, (unsigned long long)(uintptr_t)&lock);
	for (long i = 0; i < n; i++) {
		printf("%s: thread %s %ld\n", PROG, w[i].name, (long)w[i].tid);
		items += w[i].items;
		spins += w[i].spins;
		contended += w[i].contended;
	}
	printf("%s: items %llu\n", PROG, (unsigned long long)items);
	printf("%s: spins %llu\n", PROG, (unsigned long long)spins);
	printf("%s: contended %llu\n", PROG, (unsigned long long)contended);
	printf("%s: seconds %.6f\n", PROG, seconds);
	printf("%s: items_per_second %.0f\n", PROG, (double)items / seconds);
	/* The lock really excluded: every critical section was counted once. */
	if (shared_count != items) {
		fprintf(stderr, "%s: lost updates: %llu critical sections, %llu items\n",
			PROG, (unsigned long long)shared_count, (unsigned long long)items);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	struct options o = parse_options(argc, argv);
	static struct worker w[MAX_THREADS];
	int loaded = wperf_annotate_load(NULL);

	pthread_barrier_init(&start_line, NULL, (unsigned)o.threads + 1);
	for (long i = 0; i < o.threads; i++) {
		w[i].index = (int)i;
		w[i].iterations = o.iterations;
		snprintf(w[i].name, sizeof(w[i].name), "spin-%ld", i);
		if (pthread_create(&w[i].thread, NULL, worker_main, &w[i]) != 0) {
			perror(PROG ": pthread_create");
			return 1;
		}
		pthread_setname_np(w[i].thread, w[i].name);
	}
	pthread_barrier_wait(&start_line);
	if (o.seconds > 0) {
		sleep((unsigned)o.seconds);
		atomic_store(&stop, true);
	}
	for (long i = 0; i < o.threads; i++)
		pthread_join(w[i].thread, NULL);
	print_results(w, o.threads, loaded);
	return 0;
}
