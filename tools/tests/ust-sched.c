/* SPDX-License-Identifier: MIT */
/*
 * tools/tests/ust-sched.c — emit, through LTTng-UST, the scheduler events
 * of two made-up threads that take turns on CPU 0: `fake-client` (tid
 * 40001) wakes `fake-server` (40002) and goes to sleep, the server runs
 * for a millisecond, wakes the client and sleeps, and so on: each waits
 * for the other, a knot of two. The events (ust-sched-tp.h) are in perf's
 * layout, which sink.wperf.knots reads; the program pins itself to CPU 0
 * so that they all land in that CPU's stream, whose cpu_id the analysis
 * takes for the CPU they ran on. With LTTng's kernel tracer missing, it
 * gives a live session a wait-for graph (the `wperf top --relay` tests).
 *
 * usage: ust-sched SECONDS   (prints "ust-sched: N rounds" at the end)
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "ust-sched-tp.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CLIENT 40001
#define SERVER 40002

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The running thread (tid, comm) wakes the other and sleeps. */
static void hand_over(const char *comm, int32_t tid, const char *other, int32_t other_tid)
{
	lttng_ust_tracepoint(sched, sched_waking, other, other_tid, 0);
	lttng_ust_tracepoint(sched, sched_switch, comm, tid, 1, other, other_tid);
	usleep(1000);
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 10);
	cpu_set_t cpu0;
	long rounds = 0;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) != 0) {
		perror("ust-sched: sched_setaffinity");
		return 1;
	}
	while (now() < end) {
		hand_over("fake-client", CLIENT, "fake-server", SERVER);
		hand_over("fake-server", SERVER, "fake-client", CLIENT);
		rounds++;
	}
	printf("ust-sched: %ld rounds\n", rounds);
	return 0;
}
