/* SPDX-License-Identifier: MIT */
/*
 * tools/tests/ust-ticker.c — a tiny LTTng-UST program for the `wperf`
 * command's tests: N times, compute for a while, emit tracef("tick %d")
 * and sleep 2 ms. Its events must fall inside the kernel's record of it
 * running (time correlation), and "tick K" can fire an LTTng trigger.
 *
 * usage: ust-ticker [N [TAG]]   (default 100; with TAG the events say
 * "TAG tick K", so that a test's trigger filter is not matched by another
 * ticker on the same machine)
 */
#include <lttng/tracef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile unsigned long sink;   /* keeps the work from being optimised away */

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100;

	for (int i = 0; i < n; i++) {
		/* A few hundred microseconds on the CPU, so each tick happens
		 * well inside a scheduling slice of this thread. */
		for (unsigned long k = 0; k < 200000; k++)
			sink += k;
		if (argc > 2)
			tracef("%s tick %d", argv[2], i);
		else
			tracef("tick %d", i);
		usleep(2000);
	}
	printf("ust-ticker: %d ticks\n", n);
	return 0;
}
