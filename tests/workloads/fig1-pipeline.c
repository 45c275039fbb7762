/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/fig1-pipeline.c — the workload of Figure 1 of the wPerf
 * paper (OSDI'18), for recording real traces.
 *
 * Two threads:
 *   - thread A, "fig1-producer", makes requests (a 4 KiB buffer each, a
 *     little CPU work to fill it) and hands them to B through a small
 *     bounded queue (capacity 4);
 *   - thread B, "fig1-writer", takes a request, does ~0.05 ms of CPU work on
 *     it, writes it to a file and syncs it (fdatasync, the file's blocks
 *     written once beforehand so that B itself waits for the disk). The work is kept short
 *     so that, as in the paper, B spends most of its time blocked in fsync
 *     even on a fast (host-cached) virtual disk where fsync takes ~0.1 ms;
 *     with more CPU work than I/O, B alone would be the bottleneck (a
 *     sink), which is a different figure.
 *
 * B and the disk cannot work in parallel (B waits in fsync, the disk waits
 * for B's next write), so B + disk are the bottleneck: the wait-for graph has
 * a knot {fig1-writer, disk}. A has less work than B: it spends most of its
 * time blocked on the full queue, waiting for B. That long wait of A is the
 * "long but harmless" wait that duration-ranked off-CPU profiles put first.
 *
 * Usage: fig1-pipeline [--seconds N] [--dir D] [--quiet]
 *   --seconds N  how long the producer makes requests (default 3)
 *   --dir D      directory of the data file (default: a new temporary
 *                directory under /var/tmp, removed at the end). It must be
 *                on a real block device: on tmpfs fsync never reaches a
 *                disk, and the program says so.
 * At the end it prints the request rate and its pid (the pid to focus the
 * analysis on: `sink.wperf.knots` parameter `pids`).
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
#include <sys/stat.h>
#include <sys/statfs.h>
#include <time.h>
#include <unistd.h>

#define REQ_SIZE        4096    /* bytes written (and fsynced) per request */
#define QUEUE_CAP       4       /* bounded queue between A and B */
#define WRITER_WORK_NS   50000  /* B's CPU work per request: 0.05 ms */
#define PRODUCER_WORK_NS 10000  /* A's CPU work per request: 0.01 ms */
#define FILE_SLOTS      256     /* the file wraps after 256 requests (1 MiB) */

#define TMPFS_MAGIC_    0x01021994
#define RAMFS_MAGIC_    0x858458f6

/* One request: a sequence number and its payload. */
struct request {
	uint64_t seq;
	unsigned char data[REQ_SIZE];
};

/* The bounded queue: a ring of request pointers under one mutex. */
struct queue {
	pthread_mutex_t lock;
	pthread_cond_t not_full;        /* signalled by B after taking one */
	pthread_cond_t not_empty;       /* signalled by A after adding one */
	struct request *slots[QUEUE_CAP];
	unsigned head, count;
	bool closed;                    /* A is done: B drains and stops */
};

static struct queue q = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.not_full = PTHREAD_COND_INITIALIZER,
	.not_empty = PTHREAD_COND_INITIALIZER,
};

static int data_fd = -1;
static double run_seconds = 3.0;
static uint64_t produced, written;
static unsigned long producer_blocked;  /* times A found the queue full */

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "fig1-pipeline: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Burn about `ns` of this thread's CPU time doing something the compiler
 * cannot remove (a checksum over the payload, again and again).
 */
static uint64_t cpu_work(const unsigned char *buf, size_t len, uint64_t ns)
{
	uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID);
	uint64_t sum = 0;

	do {
		for (size_t i = 0; i < len; i++)
			sum = sum * 31 + buf[i];
	} while (now_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns);
	return sum;
}

static void queue_put(struct request *r)
{
	pthread_mutex_lock(&q.lock);
	if (q.count == QUEUE_CAP)
		producer_blocked++;
	while (q.count == QUEUE_CAP)            /* full: wait for B */
		pthread_cond_wait(&q.not_full, &q.lock);
	q.slots[(q.head + q.count) % QUEUE_CAP] = r;
	q.count++;
	pthread_cond_signal(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
}

/* Returns NULL when the queue is closed and empty. */
static struct request *queue_get(void)
{
	struct request *r = NULL;

	pthread_mutex_lock(&q.lock);
	while (q.count == 0 && !q.closed)       /* empty: wait for A */
		pthread_cond_wait(&q.not_empty, &q.lock);
	if (q.count > 0) {
		r = q.slots[q.head];
		q.head = (q.head + 1) % QUEUE_CAP;
		q.count--;
		pthread_cond_signal(&q.not_full);
	}
	pthread_mutex_unlock(&q.lock);
	return r;
}

static void queue_close(void)
{
	pthread_mutex_lock(&q.lock);
	q.closed = true;
	pthread_cond_broadcast(&q.not_empty);
	pthread_mutex_unlock(&q.lock);
}

/* Thread A: make requests until the time is up, then close the queue. */
static void *producer(void *arg)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(run_seconds * 1e9);

	(void)arg;
	pthread_setname_np(pthread_self(), "fig1-producer");
	while (now_ns(CLOCK_MONOTONIC) < end) {
		struct request *r = malloc(sizeof(*r));

		if (!r)
			die("malloc");
		r->seq = produced++;
		memset(r->data, (int)(r->seq & 0xff), sizeof(r->data));
		cpu_work(r->data, 64, PRODUCER_WORK_NS);
		queue_put(r);
	}
	queue_close();
	return NULL;
}

/* Thread B: work on each request, write it, fsync (the blocking I/O). */
static void *writer(void *arg)
{
	struct request *r;

	(void)arg;
	pthread_setname_np(pthread_self(), "fig1-writer");
	while ((r = queue_get()) != NULL) {
		uint64_t sum = cpu_work(r->data, sizeof(r->data), WRITER_WORK_NS);
		off_t off = (off_t)(r->seq % FILE_SLOTS) * REQ_SIZE;

		memcpy(r->data, &sum, sizeof(sum));
		if (pwrite(data_fd, r->data, REQ_SIZE, off) != REQ_SIZE)
			die("pwrite");
		/* B waits for the disk here. fdatasync of blocks written in
		 * place needs no journal commit: B submits the write and the
		 * cache flush itself and the disk's interrupt wakes it, rather
		 * than B waiting on a writeback kworker or jbd2 thread. */
		if (fdatasync(data_fd) != 0)
			die("fdatasync");
		written++;
		free(r);
	}
	return NULL;
}

/* Write every slot once and sync, so the writer's requests later
 * overwrite allocated blocks in place (no metadata to journal). */
static void preallocate(int fd)
{
	static unsigned char zero[REQ_SIZE];

	for (off_t slot = 0; slot < FILE_SLOTS; slot++)
		if (pwrite(fd, zero, REQ_SIZE, slot * REQ_SIZE) != REQ_SIZE)
			die("pwrite");
	if (fsync(fd) != 0)
		die("fsync");
}

static void usage(FILE *f)
{
	fprintf(f, "usage: fig1-pipeline [--seconds N] [--dir D] [--quiet]\n"
		"  --seconds N  run time in seconds (default 3)\n"
		"  --dir D      directory for the data file (default: a temporary\n"
		"               directory under /var/tmp); must not be tmpfs\n");
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	char tmpdir[] = "/var/tmp/fig1-pipeline-XXXXXX";
	char path[PATH_MAX];
	bool own_dir = false, quiet = false;
	struct statfs sfs;
	pthread_t ta, tb;
	uint64_t t0, t1;
	double secs;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			char *end;

			run_seconds = strtod(argv[++i], &end);
			if (*end || !(run_seconds > 0 && run_seconds <= 3600)) {
				fprintf(stderr, "fig1-pipeline: bad --seconds '%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			usage(stdout);
			return 0;
		} else {
			usage(stderr);
			return 2;
		}
	}

	if (!dir) {
		if (!mkdtemp(tmpdir))
			die("mkdtemp /var/tmp/fig1-pipeline-XXXXXX");
		dir = tmpdir;
		own_dir = true;
	}

	/* fsync on tmpfs/ramfs returns at once: there would be no disk wait. */
	if (statfs(dir, &sfs) != 0)
		die(dir);
	if (sfs.f_type == TMPFS_MAGIC_ || sfs.f_type == RAMFS_MAGIC_)
		fprintf(stderr, "fig1-pipeline: warning: %s is on tmpfs/ramfs: fsync "
			"does not reach a disk, so there is no writer<->disk knot to "
			"find; use --dir on a disk-backed file system\n", dir);

	snprintf(path, sizeof(path), "%s/fig1-pipeline.%ld.dat", dir, (long)getpid());
	data_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (data_fd < 0)
		die(path);
	preallocate(data_fd);

	if (!quiet)
		printf("fig1-pipeline: pid %ld, %.1f s, file %s\n",
		       (long)getpid(), run_seconds, path);
	fflush(stdout);

	t0 = now_ns(CLOCK_MONOTONIC);
	if ((errno = pthread_create(&tb, NULL, writer, NULL)) != 0)
		die("pthread_create writer");
	if ((errno = pthread_create(&ta, NULL, producer, NULL)) != 0)
		die("pthread_create producer");
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	t1 = now_ns(CLOCK_MONOTONIC);

	close(data_fd);
	unlink(path);
	if (own_dir)
		rmdir(tmpdir);

	secs = (double)(t1 - t0) / 1e9;
	printf("fig1-pipeline: %llu requests in %.2f s: %.0f requests/s; "
	       "producer found the queue full %lu times\n",
	       (unsigned long long)written, secs, (double)written / secs,
	       producer_blocked);
	printf("fig1-pipeline: pid %ld\n", (long)getpid());
	return 0;
}
