/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/thread-per-request.c — a server that starts one thread
 * per request (wperf-method(7) §8, short-lived threads), for recording real
 * traces.
 *
 * "tpr-client" sends a request over a pipe and waits for the answer on
 * another. "tpr-server" reads each request and starts a detached
 * "tpr-handler" thread for it, then reads the next. The handler computes
 * HANDLER_WORK_NS of CPU time, writes the answer and exits. Each handler
 * lives a few hundred microseconds, far less than the trace: taken one by
 * one, no handler waits for anything long enough to matter, and the chain
 * client -> handler -> server -> client is invisible. Merged into one
 * virtual thread that waits for its creator (short-lived="merge"), the
 * handlers close the cycle: client, server and handlers are the knot.
 *
 * Usage: thread-per-request [--seconds S]   (default 2)
 * At the end it prints "thread-per-request: requests N".
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpu-work.h"

#define HANDLER_WORK_NS 200000   /* CPU time per request */

static double run_seconds = 2.0;
static int to_server[2], to_client[2];   /* pipes: [0] read end, [1] write end */

/* One byte, retried on EINTR; 0 on success. */
static int put(int fd, char c)
{
	ssize_t n;

	while ((n = write(fd, &c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static int get(int fd, char *c)
{
	ssize_t n;

	while ((n = read(fd, c, 1)) < 0 && errno == EINTR)
		;
	return n == 1 ? 0 : -1;
}

static void *handler(void *arg)
{
	(void)arg;
	pthread_setname_np(pthread_self(), "tpr-handler");
	compute(HANDLER_WORK_NS);
	put(to_client[1], 'a');
	return NULL;
}

/* Reads requests until the client closes its end: 'q' or EOF. */
static void *server(void *arg)
{
	pthread_attr_t detached;
	char c;

	(void)arg;
	pthread_setname_np(pthread_self(), "tpr-server");
	pthread_attr_init(&detached);
	pthread_attr_setdetachstate(&detached, PTHREAD_CREATE_DETACHED);
	while (get(to_server[0], &c) == 0 && c == 'r') {
		pthread_t t;
		if (pthread_create(&t, &detached, handler, NULL) != 0) {
			fprintf(stderr, "thread-per-request: cannot start a handler\n");
			exit(1);
		}
	}
	pthread_attr_destroy(&detached);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t srv;
	uint64_t requests = 0;
	char c;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			run_seconds = atof(argv[++i]);
		else
			run_seconds = -1;
	}
	if (run_seconds <= 0) {
		fprintf(stderr, "usage: thread-per-request [--seconds S]\n");
		return 2;
	}
	if (pipe(to_server) < 0 || pipe(to_client) < 0) {
		perror("thread-per-request: pipe");
		return 1;
	}
	pthread_setname_np(pthread_self(), "tpr-client");
	if (pthread_create(&srv, NULL, server, NULL) != 0) {
		fprintf(stderr, "thread-per-request: cannot start the server\n");
		return 1;
	}
	int64_t end = clock_ns(CLOCK_MONOTONIC) + (int64_t)(run_seconds * 1e9);
	while (clock_ns(CLOCK_MONOTONIC) < end) {
		if (put(to_server[1], 'r') < 0 || get(to_client[0], &c) < 0) {
			perror("thread-per-request: pipe");
			return 1;
		}
		requests++;
	}
	put(to_server[1], 'q');
	pthread_join(srv, NULL);
	printf("thread-per-request: requests %llu\n", (unsigned long long)requests);
	return 0;
}
