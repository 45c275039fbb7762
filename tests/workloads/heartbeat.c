/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/heartbeat.c — a background knot next to a real
 * bottleneck (wperf-method(7) §7 "background knots"), for recording real traces.
 *
 * Three threads:
 *   - "hb-writer" does a little CPU work, writes 4 KiB to a file and
 *     fsyncs it, again and again: the writer and the disk wait on each
 *     other, the knot {hb-writer, disk} that limits the program (as in
 *     Figure 1 of the wPerf paper, fig1-pipeline.c);
 *   - "hb-heartbeat" wakes up on a timer (every 10 ms), takes a state
 *     mutex briefly, and hands a token to "hb-helper", then waits for it
 *     to come back;
 *   - "hb-helper" waits for the token, sleeps 2 ms (a slow check of
 *     something, off-CPU), takes the state mutex briefly and hands the
 *     token back.
 * The heartbeat and the helper wait on each other (and on timers, which
 * are not dependencies), so they form a knot, but they use a tiny part of
 * one CPU: like heartbeats and timers they do not limit throughput. wperf
 * must report them as a background knot and the writer and the disk as
 * the knot that matters.
 *
 * Usage: heartbeat [--seconds N] [--dir D] [--period-ms P]
 *   --seconds N   run time (default 3)
 *   --dir D       directory of the data file, on a real block device
 *                 (default: a new temporary directory under /var/tmp)
 *   --period-ms P heartbeat period (default 10)
 * At the end it prints the counts and its pid.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REQ_SIZE        4096    /* bytes written and fsynced per request */
#define WRITER_WORK_NS  50000   /* CPU work per request: I/O dominates */
#define HELPER_SLEEP_NS 2000000 /* the helper's off-CPU check: 2 ms */
#define FILE_SLOTS      256

static double run_seconds = 3.0;
static long period_ms = 10;
static atomic_bool stop;
static const char *data_dir;           /* NULL: a temporary directory */
static uint64_t written, beats;

/* The token the heartbeat and the helper pass to each other. */
static pthread_mutex_t token_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t token_moved = PTHREAD_COND_INITIALIZER;
enum holder { AT_HEARTBEAT, AT_HELPER, FINISHED };
static enum holder token = AT_HEARTBEAT;

/* Shared state both touch briefly: the "lock now and then". */
static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t state;

static _Noreturn void die(const char *what)
{
	fprintf(stderr, "heartbeat: %s: %s\n", what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* Burn about `ns` of this thread's CPU time on work the compiler keeps. */
static uint64_t cpu_work(const unsigned char *buf, size_t len, uint64_t ns)
{
	uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID), sum = 0;

	do {
		for (size_t i = 0; i < len; i++)
			sum = sum * 31 + buf[i];
	} while (now_ns(CLOCK_THREAD_CPUTIME_ID) - start < ns);
	return sum;
}

static void touch_state(void)
{
	pthread_mutex_lock(&state_lock);
	state++;
	pthread_mutex_unlock(&state_lock);
}

/* Move the token to `to` (unless finished) and wait until it is `back`
 * again or the run is finished. Returns false when finished. */
static bool pass_token(enum holder to, enum holder back)
{
	bool more;

	pthread_mutex_lock(&token_lock);
	if (token != FINISHED)
		token = to;
	pthread_cond_broadcast(&token_moved);
	while (token != back && token != FINISHED)
		pthread_cond_wait(&token_moved, &token_lock);
	more = token != FINISHED;
	pthread_mutex_unlock(&token_lock);
	return more;
}

static void finish_token(void)
{
	pthread_mutex_lock(&token_lock);
	token = FINISHED;
	pthread_cond_broadcast(&token_moved);
	pthread_mutex_unlock(&token_lock);
}

static void *heartbeat(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hb-heartbeat");
	while (!atomic_load(&stop)) {
		sleep_ns((uint64_t)period_ms * 1000000u);   /* the timer */
		touch_state();
		beats++;
		if (!pass_token(AT_HELPER, AT_HEARTBEAT))
			break;
	}
	finish_token();
	return NULL;
}

static void *helper(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "hb-helper");
	/* Hand the token back (the first time: it is already there) and wait
	 * for the next one; then check, off-CPU. */
	while (pass_token(AT_HEARTBEAT, AT_HELPER)) {
		sleep_ns(HELPER_SLEEP_NS);
		touch_state();
	}
	return NULL;
}

/*
 * The writer makes, uses and removes the data file itself: every block I/O
 * of the program is then issued by this thread, so the disk's idle time
 * goes back to it alone and {hb-writer, disk} has no edge leaving it (were
 * the main thread an issuer too, the disk would wait for it, and the main
 * thread waits on the tracer's threads).
 */
static void *writer(void *arg)
{
	static unsigned char buf[REQ_SIZE];
	char tmpdir[] = "/var/tmp/heartbeat-XXXXXX", path[PATH_MAX];
	const char *dir = data_dir;
	int data_fd;

	(void)arg;
	pthread_setname_np(pthread_self(), "hb-writer");
	if (!dir) {
		if (!mkdtemp(tmpdir))
			die("mkdtemp");
		dir = tmpdir;
	}
	snprintf(path, sizeof path, "%s/heartbeat.%ld.dat", dir, (long)getpid());
	data_fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (data_fd < 0)
		die(path);
	/* Write every slot once, so later requests overwrite in place and
	 * fdatasync has no metadata to journal: the writer itself waits for
	 * the disk, not for a writeback kworker (as in fig1-pipeline.c). */
	memset(buf, 0, sizeof buf);
	for (off_t slot = 0; slot < FILE_SLOTS; slot++)
		if (pwrite(data_fd, buf, REQ_SIZE, slot * REQ_SIZE) != REQ_SIZE)
			die("pwrite");
	if (fsync(data_fd) != 0)
		die("fsync");
	while (!atomic_load(&stop)) {
		uint64_t sum = cpu_work(buf, sizeof buf, WRITER_WORK_NS);
		off_t off = (off_t)(written % FILE_SLOTS) * REQ_SIZE;

		memcpy(buf, &sum, sizeof sum);
		if (pwrite(data_fd, buf, REQ_SIZE, off) != REQ_SIZE)
			die("pwrite");
		if (fdatasync(data_fd) != 0)    /* waits for the disk */
			die("fdatasync");
		written++;
	}
	close(data_fd);
	unlink(path);
	if (dir == tmpdir)
		rmdir(tmpdir);
	return NULL;
}

static int parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *end = NULL;

		if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			run_seconds = strtod(argv[++i], &end);
			if (*end || !(run_seconds > 0 && run_seconds <= 3600))
				return -1;
		} else if (!strcmp(argv[i], "--period-ms") && i + 1 < argc) {
			period_ms = strtol(argv[++i], &end, 10);
			if (*end || period_ms < 1 || period_ms > 10000)
				return -1;
		} else if (!strcmp(argv[i], "--dir") && i + 1 < argc) {
			data_dir = argv[++i];
		} else {
			return -1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	pthread_t tw, th, tp;

	if (parse_args(argc, argv) < 0) {
		fprintf(stderr, "usage: heartbeat [--seconds N] [--dir D] [--period-ms P]\n");
		return 2;
	}
	printf("heartbeat: pid %ld, %.1f s, period %ld ms\n", (long)getpid(),
	       run_seconds, period_ms);
	fflush(stdout);
	if ((errno = pthread_create(&tw, NULL, writer, NULL)) ||
	    (errno = pthread_create(&tp, NULL, helper, NULL)) ||
	    (errno = pthread_create(&th, NULL, heartbeat, NULL)))
		die("pthread_create");
	sleep_ns((uint64_t)(run_seconds * 1e9));
	atomic_store(&stop, true);
	pthread_join(th, NULL);
	pthread_join(tp, NULL);
	pthread_join(tw, NULL);
	printf("heartbeat: %llu requests written, %llu heartbeats, state %llu\n",
	       (unsigned long long)written, (unsigned long long)beats,
	       (unsigned long long)state);
	printf("heartbeat: pid %ld\n", (long)getpid());
	return written > 0 && beats > 0 ? 0 : 1;
}
