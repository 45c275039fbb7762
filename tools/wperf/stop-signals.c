/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/stop-signals.c — how a stop by signal reaches the command's
 * loops (stop-signals.h): counted in the handler, taken by whichever loop
 * looks next. It uses no other file of the command, so the waits that
 * end on a signal (waits.c, under the LTTng calls) and the loops that
 * take it (command.c, record.c, top.c) all sit above it.
 */
#include "stop-signals.h"

#include <signal.h>
#include <stddef.h>

/* How many of each stop signal arrived, and how many were taken: a count
 * rather than a flag, so that two Ctrl-Cs between two looks are two. */
static volatile sig_atomic_t received[NSIG];
static volatile sig_atomic_t taken[NSIG];
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void on_stop_signal(int sig)
{
	received[sig]++;
}

static void set_stop_signals(void (*handler)(int))
{
	struct sigaction sa = { .sa_handler = handler };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		sigaction(stop_signals[i], &sa, NULL);
}

void wperf_stop_signals_catch(void)
{
	set_stop_signals(on_stop_signal);
}

void wperf_stop_signals_ignore(void)
{
	set_stop_signals(SIG_IGN);
}

/* The last stop signal taken: what an interrupted wperf exits with. */
static int last_taken;

int wperf_stop_signal_take(void)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		int sig = stop_signals[i];

		if (taken[sig] != received[sig]) {
			taken[sig]++;
			last_taken = sig;
			return sig;
		}
	}
	return 0;
}

bool wperf_stop_signal_pending(void)
{
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (taken[stop_signals[i]] != received[stop_signals[i]])
			return true;
	return false;
}

int wperf_interrupted_status(void)
{
	/* A wait that ended on a signal leaves it pending, not taken. */
	for (size_t i = 0; !last_taken && i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (taken[stop_signals[i]] != received[stop_signals[i]])
			return 128 + stop_signals[i];
	return 128 + (last_taken ? last_taken : SIGINT);
}
