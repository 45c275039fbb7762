/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/idle-waiters.c — threads that wait for the whole run on
 * an event loop and are woken once at the end by a busy thread ("inherited
 * waiting"), for recording real traces.
 *
 * Threads:
 *   - "idle-<i>" (N of them, like GLib main-loop threads of an unrelated
 *     library) block in poll() on their own eventfd from the start, and
 *     return when it is written;
 *   - "downloader" writes 64 KiB to a file and fdatasyncs it, again and
 *     again, for the run time, then writes every eventfd: the one wakeup
 *     the idle threads get is its.
 * Each idle thread waits for the downloader for the whole run, so the
 * plain cascade (wperf-method(7) §4) adds each idle thread's whole wait to the
 * downloader's waits on the disk: N + 1 times the downloader's own disk
 * waiting. The idle threads asked the downloader for nothing (they never
 * woke it); wperf cascades a wait only into the waker's last wait before
 * the wakeup then (wperf-analysis(7), "Inherited waiting").
 *
 * Usage: idle-waiters [--seconds N] [--threads T] [--dir D]
 *   --seconds N  run time (default 2)
 *   --threads T  idle threads (default 6)
 *   --dir D      directory of the data file (default: a new temporary
 *                directory under /var/tmp)
 * Prints its pid and the number of writes.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 64
#define CHUNK (64 * 1024)

static double seconds = 2;
static int n_idle = 6;
static int efd[MAX_THREADS];
static char path[4096];
static unsigned long writes;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "idle-waiters: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* One idle thread: poll() on its eventfd until the downloader writes it. */
static void *idle_thread(void *arg)
{
	int i = (int)(intptr_t)arg;
	char name[16];
	struct pollfd p = { .fd = efd[i], .events = POLLIN };

	snprintf(name, sizeof name, "idle-%d", i);
	prctl(PR_SET_NAME, name);
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			die("poll");
	return NULL;
}

/* Write and sync for the run time, then wake every idle thread once. */
static void *downloader(void *arg)
{
	static char buf[CHUNK];
	double end = now() + seconds;
	uint64_t one = 1;
	int fd;

	(void)arg;
	prctl(PR_SET_NAME, "downloader");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		die(path);
	memset(buf, 'x', sizeof buf);
	while (now() < end) {
		if (pwrite(fd, buf, sizeof buf, (off_t)(writes % 64) * CHUNK) != CHUNK)
			die("pwrite");
		if (fdatasync(fd) != 0)
			die("fdatasync");
		writes++;
	}
	close(fd);
	for (int i = 0; i < n_idle; i++)
		if (write(efd[i], &one, sizeof one) != sizeof one)
			die("write eventfd");
	return NULL;
}

int main(int argc, char **argv)
{
	const char *dir = NULL;
	char tmpl[] = "/var/tmp/idle-waiters-XXXXXX";
	pthread_t idle[MAX_THREADS], dl;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			n_idle = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
			dir = argv[++i];
		else {
			fprintf(stderr, "usage: idle-waiters [--seconds N] [--threads T] [--dir D]\n");
			return 2;
		}
	}
	if (n_idle < 1 || n_idle > MAX_THREADS || seconds <= 0) {
		fprintf(stderr, "idle-waiters: --threads 1..%d, --seconds > 0\n", MAX_THREADS);
		return 2;
	}
	if (!dir && !(dir = mkdtemp(tmpl)))
		die("mkdtemp");
	snprintf(path, sizeof path, "%s/idle-waiters.dat", dir);
	printf("pid %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < n_idle; i++) {
		if ((efd[i] = eventfd(0, 0)) < 0)
			die("eventfd");
		if (pthread_create(&idle[i], NULL, idle_thread, (void *)(intptr_t)i))
			die("pthread_create");
	}
	if (pthread_create(&dl, NULL, downloader, NULL))
		die("pthread_create");
	pthread_join(dl, NULL);
	for (int i = 0; i < n_idle; i++)
		pthread_join(idle[i], NULL);
	unlink(path);
	if (dir == tmpl)
		rmdir(tmpl);
	printf("writes %lu\n", writes);
	return 0;
}
