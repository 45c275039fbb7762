/* SPDX-License-Identifier: MIT */
/*
 * tests/workloads/tcp-pingpong.c — a client and a server thread talking
 * over loopback TCP, for recording real traces.
 *
 * The client ("tcp-client") sends a request of REQ_SIZE bytes and waits
 * for a small reply; the server ("tcp-server") reads the request, does a
 * little CPU work and replies. Each waits for the other *through the
 * network stack*: the receive softirq runs on the sender's CPU right after
 * it sent, so the wait-for graph has client -> server and server ->
 * client, a knot of the two (wperf-analysis(7), Network interfaces), and
 * nic:lo counts the bytes.
 *
 * Usage: tcp-pingpong [--seconds N]  (default 2). Prints its pid, the
 * number of round trips, and each thread's own account of its time from
 * /proc/thread-self/schedstat (running, runnable; blocked is the rest of
 * its life): the truth a test holds the report to, measured without
 * wperf. How much the server blocks waiting for the client depends on the
 * machine: when other load or tracing slows the server, the next request
 * is already there each time it reads, and the server, always busy, is
 * what bounds the pair.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define REQ_SIZE   (16 * 1024)
#define REPLY_SIZE 64
#define SERVER_WORK_NS 20000

static double seconds = 2;
static int listen_fd;
static unsigned long round_trips;

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static _Noreturn void die(const char *what)
{
	perror(what);
	exit(1);
}

/* "tcp-server: running N ns, runnable N ns, blocked N ns, of N ns" for
 * the calling thread, which began at start_ns (CLOCK_MONOTONIC). */
static void say_own_time(const char *name, uint64_t start_ns)
{
	unsigned long long run = 0, wait = 0;
	uint64_t life = now_ns(CLOCK_MONOTONIC) - start_ns;
	FILE *f = fopen("/proc/thread-self/schedstat", "r");

	if (!f || fscanf(f, "%llu %llu", &run, &wait) != 2) {
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	printf("%s: running %llu ns, runnable %llu ns, blocked %llu ns, of %llu ns\n", name,
	       run, wait, life > run + wait ? (unsigned long long)(life - run - wait) : 0ULL,
	       (unsigned long long)life);
	fflush(stdout);
}

/* Read or write exactly len bytes (TCP may split them). */
static int full_io(int fd, void *buf, size_t len, int writing)
{
	for (size_t done = 0; done < len;) {
		ssize_t n = writing ? write(fd, (char *)buf + done, len - done)
				    : read(fd, (char *)buf + done, len - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static volatile uint64_t work_sink;  /* keeps the server's work from being optimised away */

static void *server(void *arg)
{
	static char req[REQ_SIZE], reply[REPLY_SIZE];
	uint64_t began = now_ns(CLOCK_MONOTONIC);
	int fd = accept(listen_fd, NULL, NULL);

	(void)arg;
	pthread_setname_np(pthread_self(), "tcp-server");
	if (fd < 0)
		die("accept");
	while (full_io(fd, req, sizeof req, 0) == 0) {
		uint64_t start = now_ns(CLOCK_THREAD_CPUTIME_ID);

		while (now_ns(CLOCK_THREAD_CPUTIME_ID) - start < SERVER_WORK_NS)
			for (size_t i = 0; i < 256; i++)
				work_sink += (unsigned char)req[i];
		if (full_io(fd, reply, sizeof reply, 1) < 0)
			break;
	}
	close(fd);
	say_own_time("tcp-server", began);
	return NULL;
}

static void *client(void *arg)
{
	static char req[REQ_SIZE], reply[REPLY_SIZE];
	struct sockaddr_in *addr = arg;
	int fd = socket(AF_INET, SOCK_STREAM, 0), one = 1;
	uint64_t began = now_ns(CLOCK_MONOTONIC), end;

	pthread_setname_np(pthread_self(), "tcp-client");
	if (fd < 0 || connect(fd, (struct sockaddr *)addr, sizeof *addr) < 0)
		die("connect");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	memset(req, 'x', sizeof req);
	end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	while (now_ns(CLOCK_MONOTONIC) < end) {
		if (full_io(fd, req, sizeof req, 1) < 0 || full_io(fd, reply, sizeof reply, 0) < 0)
			die("client i/o");
		round_trips++;
	}
	close(fd);
	say_own_time("tcp-client", began);
	return NULL;
}

int main(int argc, char **argv)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	socklen_t len = sizeof addr;
	pthread_t s, c;

	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--seconds") == 0 && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: tcp-pingpong [--seconds N]\n");
			return 2;
		}
	}
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	listen_fd = socket(AF_INET, SOCK_STREAM, 0);
	if (listen_fd < 0 || bind(listen_fd, (struct sockaddr *)&addr, sizeof addr) < 0 ||
	    listen(listen_fd, 1) < 0 || getsockname(listen_fd, (struct sockaddr *)&addr, &len) < 0)
		die("listen");
	printf("tcp-pingpong: pid %d\n", (int)getpid());
	fflush(stdout);
	if (pthread_create(&s, NULL, server, NULL) || pthread_create(&c, NULL, client, &addr))
		die("pthread_create");
	pthread_join(c, NULL);
	pthread_join(s, NULL);
	printf("tcp-pingpong: round_trips %lu\n", round_trips);
	return 0;
}
