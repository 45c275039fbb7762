/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/workloads/cond-broadcast.c — several threads wait on one
 * condition variable; a producer broadcasts each item; one waiter wins it,
 * the others were woken for nothing: WPERF_FALSE_WAKEUP() (wperf-method(7) §6).
 *
 * The kernel sees every waiter woken by the producer; only the annotation
 * says that, for all but one, the wakeup did not let it proceed, so that the
 * analysis merges "wait, short run, wait again" into one wait whose waker is
 * the one of the wakeup that really let the thread go.
 *
 * Threads: "cond-producer" puts one item at a time in a one-slot mailbox
 * and broadcasts. "cond-wait-0", "cond-wait-1", ... wait for the slot to be
 * full, take the item, work on it a little and call WPERF_PROGRESS("item").
 *
 * The producer puts the next item only once every waiter has gone back to
 * waiting since the last broadcast. So each broadcast wakes all N waiters,
 * one takes the item and the N - 1 others find the slot empty: exactly
 * N - 1 false wakeups per item, whatever the scheduler does (plus any
 * spurious wakeup, which is a false wakeup too). Without that rule, on two
 * CPUs the producer could refill the slot before a woken waiter looked, and
 * a run could make no false wakeup at all.
 *
 * Usage: cond-broadcast [--waiters N] [--items K]
 *   --waiters N  waiting threads (default 3)
 *   --items K    items the producer makes (default 2000)
 * At the end it prints (one "cond-broadcast: KEY VALUE" per line): pid,
 * provider, each thread's name and tid, items (= WPERF_PROGRESS calls),
 * false_wakeups (= WPERF_FALSE_WAKEUP calls, at least items * (N - 1)) and
 * seconds.
 */
#define WPERF_ANNOTATE_DEFINE   /* this file holds the tracepoint definitions */
#include <wperf/annotate.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define PROG "cond-broadcast"
#define MAX_WAITERS 64
#define ITEM_WORK 2000   /* rounds of work per item, outside the mutex */

/* The one-slot mailbox. */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t full;       /* broadcast: an item (or the end) is there */
	pthread_cond_t all_waiting;  /* signalled: every waiter is waiting again */
	bool has_item;
	bool done;                 /* no more items will come */
	long broadcasts;           /* how many times `full` was broadcast */
	long waiting;              /* waiters that waited since the last one */
	long waiters;              /* how many waiter threads there are */
} box = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
	  PTHREAD_COND_INITIALIZER, false, false, 0, 0, 0 };

struct thread_info {
	pthread_t thread;
	pid_t tid;
	long items;                /* producer: made; waiter: taken */
	long false_wakeups;
	long seen_broadcast;       /* waiter: box.broadcasts when it last counted */
	uint64_t sink;
	char name[16];
};

static uint64_t work(uint64_t x, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		__asm__ __volatile__("" : "+r"(x));  /* one real multiply per round */
	}
	return x;
}

/*
 * Count this waiter as waiting again since the last broadcast (once per
 * broadcast: a spurious wakeup must not count it twice), and tell the
 * producer when it is the last one. Called with box.mu held, just before
 * pthread_cond_wait(), so a producer that sees box.waiting == box.waiters
 * under the mutex knows that all of them are inside the wait.
 */
static void wait_counted(struct thread_info *t)
{
	if (t->seen_broadcast == box.broadcasts)
		return;
	t->seen_broadcast = box.broadcasts;
	if (++box.waiting == box.waiters)
		pthread_cond_signal(&box.all_waiting);
}

/*
 * Wait for an item. Returns false at the end. A wakeup that finds the slot
 * empty (another waiter took the item) is a false wakeup: say so before
 * waiting again.
 */
static bool take_item(struct thread_info *t)
{
	pthread_mutex_lock(&box.mu);
	while (!box.has_item && !box.done) {
		wait_counted(t);
		pthread_cond_wait(&box.full, &box.mu);
		if (!box.has_item && !box.done) {
			t->false_wakeups++;
			WPERF_FALSE_WAKEUP();
		}
	}
	if (!box.has_item) {
		pthread_mutex_unlock(&box.mu);
		return false;
	}
	box.has_item = false;
	pthread_mutex_unlock(&box.mu);
	return true;
}

static void *waiter_main(void *arg)
{
	struct thread_info *t = arg;
	uint64_t x = 1;

	t->tid = gettid();
	while (take_item(t)) {
		x = work(x, ITEM_WORK);
		t->items++;
		WPERF_PROGRESS("item");
	}
	t->sink = x;
	return NULL;
}

/*
 * Put one item in the slot once it is empty and every waiter is waiting
 * again, and wake them all. The slot is always empty by then (the item was
 * taken by a waiter that has since come back); the test says what is meant.
 */
static void put(bool last)
{
	pthread_mutex_lock(&box.mu);
	while (box.has_item || box.waiting < box.waiters)
		pthread_cond_wait(&box.all_waiting, &box.mu);
	if (last)
		box.done = true;
	else
		box.has_item = true;
	box.broadcasts++;
	box.waiting = 0;
	pthread_cond_broadcast(&box.full);
	pthread_mutex_unlock(&box.mu);
}

static long n_items = 2000;

static void *producer_main(void *arg)
{
	struct thread_info *t = arg;

	t->tid = gettid();
	for (long i = 0; i < n_items; i++) {
		put(false);
		t->items++;
	}
	put(true);
	return NULL;
}

static void start(struct thread_info *t, void *(*fn)(void *), const char *name)
{
	snprintf(t->name, sizeof(t->name), "%s", name);
	if (pthread_create(&t->thread, NULL, fn, t) != 0) {
		perror(PROG ": pthread_create");
		exit(1);
	}
	pthread_setname_np(t->thread, t->name);
}

static long parse_options(int argc, char **argv)
{
	long waiters = 3;

	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (strcmp(argv[i], "--help") == 0) {
			printf("usage: %s [--waiters N] [--items K]\n", PROG);
			exit(0);
		} else if (strcmp(argv[i], "--waiters") == 0) {
			waiters = parse_positive(PROG, argv[i], v), i++;
		} else if (strcmp(argv[i], "--items") == 0) {
			n_items = parse_positive(PROG, argv[i], v), i++;
		} else {
			fprintf(stderr, "usage: %s [--waiters N] [--items K]\n", PROG);
			exit(2);
		}
	}
	if (waiters > MAX_WAITERS) {
		fprintf(stderr, "%s: at most %d waiters\n", PROG, MAX_WAITERS);
		exit(2);
	}
	return waiters;
}

int main(int argc, char **argv)
{
	long n = parse_options(argc, argv);
	static struct thread_info waiters[MAX_WAITERS], producer;
	int loaded = wperf_annotate_load(NULL);
	long items = 0, false_wakeups = 0;
	double t0 = now_seconds();

	box.waiters = n;
	for (long i = 0; i < n; i++) {
		char name[16];

		snprintf(name, sizeof(name), "cond-wait-%ld", i);
		waiters[i].seen_broadcast = -1;   /* not counted yet */
		start(&waiters[i], waiter_main, name);
	}
	start(&producer, producer_main, "cond-producer");
	pthread_join(producer.thread, NULL);
	for (long i = 0; i < n; i++) {
		pthread_join(waiters[i].thread, NULL);
		items += waiters[i].items;
		false_wakeups += waiters[i].false_wakeups;
	}

	printf("%s: pid %ld\n", PROG, (long)getpid());
	printf("%s: provider %s\n", PROG, provider_status(loaded));
	printf("%s: thread %s %ld\n", PROG, producer.name, (long)producer.tid);
	for (long i = 0; i < n; i++)
		printf("%s: thread %s %ld\n", PROG, waiters[i].name, (long)waiters[i].tid);
	printf("%s: items %ld\n", PROG, items);
	printf("%s: false_wakeups %ld\n", PROG, false_wakeups);
	printf("%s: seconds %.6f\n", PROG, now_seconds() - t0);
	if (items != producer.items) {
		fprintf(stderr, "%s: %ld items made, %ld taken\n", PROG, producer.items, items);
		return 1;
	}
	if (false_wakeups < items * (n - 1)) {
		fprintf(stderr, "%s: %ld false wakeups, fewer than %ld\n",
			PROG, false_wakeups, items * (n - 1));
		return 1;
	}
	return 0;
}
