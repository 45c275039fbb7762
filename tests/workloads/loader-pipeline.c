/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/loader-pipeline.c — a consumer waiting on a producer's
 * result: the shape that the cascade's "inherited waiting" rule
 * (wperf-analysis(7)) weighs differently from the paper's.
 *
 * Two threads:
 *   - "loader" journals each item before handing it on: --syncs times it
 *     writes 4 KiB in place and fdatasyncs it (waiting for the disk), then
 *     puts the item on a queue of 1,024 that fills only once the disk is
 *     relieved;
 *   - "consumer" takes each item (waiting while the queue is empty) and
 *     does --work-us of CPU work on it.
 *
 * The consumer never wakes the loader: it asks nothing of it, and the
 * loader's work is its own, so under the inherited-waiting rule the
 * consumer's wait on the loader inherits only the loader's last disk wait
 * before each item, not its --syncs waits. The disk is what limits the
 * throughput (the data on tmpfs is the relief; less work for the consumer
 * gains nothing), so a report must lead with {loader, disk} under either
 * rule.
 *
 * Usage: loader-pipeline [--seconds N] [--dir D] [--syncs K] [--work-us W]
 *   --seconds N  how long the loader makes items (default 3)
 *   --dir D      directory of the journal (default: a new directory under
 *                /var/tmp, removed at the end); on tmpfs the journal's
 *                fdatasync returns at once: the disk relieved
 *   --syncs K    journal writes and syncs per item (default 4, 1 to 64)
 *   --work-us W  the consumer's CPU work per item in microseconds
 *                (default 20, 0 to 100000)
 * At the end it prints "loader-pipeline: N items in S s: R items/s; the
 * loader found the queue full F times" (F is 0 while the disk limits).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu-work.h"

#define BLOCK           4096
#define QUEUE_CAP       1024    /* full only when the disk is relieved */
#define JOURNAL_SLOTS   256     /* the journal wraps after 1 MiB */

static struct {
	pthread_mutex_t lock;
	pthread_cond_t not_empty, not_full;
	uint64_t items[QUEUE_CAP];
	unsigned head, count;
	bool closed;
} q = { .lock = PTHREAD_MUTEX_INITIALIZER, .not_empty = PTHREAD_COND_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER };

static int journal_fd = -1;
static double run_seconds = 3.0;
static long syncs = 4, work_us = 20;
static uint64_t consumed;
static unsigned long loader_waited;     /* times the loader found the queue full */

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "loader-pipeline: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void queue_put(uint64_t item)
{
	pthread_mutex_lock(&q.lock);
	if (q.count == QUEUE_CAP)
		loader_waited++;
	while (q.count == QUEUE_CAP)
		pthread_cond_wait(&q.not_full, &q.lock);
	q.items[(q.head + q.count++) % QUEUE_CAP] = item;
	pthread_cond_signal(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
}

/* false once the queue is closed and empty */
static bool queue_get(uint64_t *item)
{
	bool got = false;

	pthread_mutex_lock(&q.lock);
	while (q.count == 0 && !q.closed)
		pthread_cond_wait(&q.not_empty, &q.lock);
	if (q.count > 0) {
		*item = q.items[q.head];
		q.head = (q.head + 1) % QUEUE_CAP;
		q.count--;
		pthread_cond_signal(&q.not_full);
		got = true;
	}
	pthread_mutex_unlock(&q.lock);
	return got;
}

static void *loader(void *arg)
{
	static unsigned char block[BLOCK];
	int64_t end = clock_ns(CLOCK_MONOTONIC) + (int64_t)(run_seconds * 1e9);
	uint64_t slot = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "loader");
	for (uint64_t item = 0; clock_ns(CLOCK_MONOTONIC) < end; item++) {
		for (long k = 0; k < syncs; k++, slot++) {
			memcpy(block, &item, sizeof item);
			if (pwrite(journal_fd, block, BLOCK,
				   (off_t)(slot % JOURNAL_SLOTS) * BLOCK) != BLOCK)
				die("pwrite");
			if (fdatasync(journal_fd) != 0)
				die("fdatasync");
		}
		queue_put(item);
	}
	pthread_mutex_lock(&q.lock);
	q.closed = true;
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
	return NULL;
}

static void *consumer(void *arg)
{
	uint64_t item;

	(void)arg;
	pthread_setname_np(pthread_self(), "consumer");
	while (queue_get(&item)) {
		compute((int64_t)work_us * 1000);
		consumed++;
	}
	return NULL;
}

/* Every journal block written once and synced: the loader's writes then
 * overwrite allocated blocks (no metadata, no journal commit to wait on). */
static void preallocate(int fd)
{
	static unsigned char zero[BLOCK];

	for (off_t s = 0; s < JOURNAL_SLOTS; s++)
		if (pwrite(fd, zero, BLOCK, s * BLOCK) != BLOCK)
			die("pwrite");
	if (fsync(fd) != 0)
		die("fsync");
}

static bool parse_long(const char *s, long lo, long hi, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return !errno && end != s && !*end && *out >= lo && *out <= hi;
}

static _Noreturn void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: loader-pipeline [--seconds N] [--dir D] [--syncs K] [--work-us W]\n");
	exit(status);
}

int main(int argc, char **argv)
{
	char tmpdir[] = "/var/tmp/loader-pipeline-XXXXXX", path[PATH_MAX];
	const char *dir = NULL;
	pthread_t tl, tc;

	/* Every option but --help takes a value. */
	for (int i = 1; i < argc; i += 2) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "--seconds") && v) {
			char *end;

			run_seconds = strtod(v, &end);
			if (*end || !(run_seconds > 0 && run_seconds <= 3600))
				usage(2);
		} else if (!strcmp(argv[i], "--dir") && v) {
			dir = v;
		} else if (!strcmp(argv[i], "--syncs") && v) {
			if (!parse_long(v, 1, 64, &syncs))
				usage(2);
		} else if (!strcmp(argv[i], "--work-us") && v) {
			if (!parse_long(v, 0, 100000, &work_us))
				usage(2);
		} else if (!strcmp(argv[i], "--help")) {
			usage(0);
		} else {
			usage(2);
		}
	}
	if (!dir && !(dir = mkdtemp(tmpdir)))
		die("mkdtemp /var/tmp/loader-pipeline-XXXXXX");
	snprintf(path, sizeof path, "%s/loader-pipeline.%ld.journal", dir, (long)getpid());
	journal_fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (journal_fd < 0)
		die(path);
	preallocate(journal_fd);

	int64_t t0 = clock_ns(CLOCK_MONOTONIC);

	if ((errno = pthread_create(&tc, NULL, consumer, NULL)) != 0)
		die("pthread_create consumer");
	if ((errno = pthread_create(&tl, NULL, loader, NULL)) != 0)
		die("pthread_create loader");
	pthread_join(tl, NULL);
	pthread_join(tc, NULL);

	double secs = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / 1e9;

	close(journal_fd);
	unlink(path);
	if (dir == tmpdir)
		rmdir(tmpdir);
	printf("loader-pipeline: %llu items in %.2f s: %.0f items/s; the loader found the "
	       "queue full %lu times\n", (unsigned long long)consumed, secs,
	       (double)consumed / secs, loader_waited);
	return 0;
}
