/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-stop.c — when source.wperf.tracefs stops recording:
 * the first Ctrl-C, SIGTERM or SIGHUP it takes over (why: the top of
 * tracefs-source.c), the graph's interrupter, or the end of `duration`.
 * The signal handler sets a flag only this file reads; the iterator
 * (tracefs-source.c) takes and gives back the signals, the producer
 * (tracefs-produce.c) asks whether to stop.
 */
#include <signal.h>
#include <stdbool.h>

#include "tracefs-source.h"

/* Signals that ask a process to end: Ctrl-C, kill and timeout(1), a closed
 * terminal. Uncaught, SIGTERM and SIGHUP would end the process at once:
 * no finalization, so sink.ctf.fs writes no metadata (an unreadable trace)
 * and the tracefs instance stays, recording, until the next start. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static volatile sig_atomic_t stop_signal_received;   /* the signal, or 0 */
static struct sigaction previous_action[N_STOP_SIGNALS];
static bool stop_signals_taken;

static void on_first_stop_signal(int signum)
{
	stop_signal_received = signum;
	/* The next one of the same kind does what it did before (a second
	 * Ctrl-C interrupts the CLI). sigaction() is async-signal-safe. */
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (stop_signals[i] == signum)
			sigaction(signum, &previous_action[i], NULL);
}

void tracefs_take_stop_signals(void)
{
	struct sigaction ours = { .sa_handler = on_first_stop_signal };

	if (stop_signals_taken)
		return;
	sigemptyset(&ours.sa_mask);
	stop_signal_received = 0;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
		if (sigaction(stop_signals[i], NULL, &previous_action[i]) ||
		    previous_action[i].sa_handler == SIG_IGN)
			continue;  /* ignored (nohup, background job): leave it so */
		sigaction(stop_signals[i], &ours, NULL);
	}
	stop_signals_taken = true;
}

/* Put back the handlers still ours (those not received yet). */
void tracefs_give_back_stop_signals(void)
{
	if (!stop_signals_taken)
		return;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
		struct sigaction now;

		if (sigaction(stop_signals[i], NULL, &now) == 0 &&
		    now.sa_handler == on_first_stop_signal)
			sigaction(stop_signals[i], &previous_action[i], NULL);
	}
	stop_signals_taken = false;
}

/* A stop signal came, the graph was interrupted, or `duration` is over. */
bool tracefs_should_stop(struct tracefs_iter *it)
{
	if (stop_signal_received || bt_self_message_iterator_is_interrupted(it->self))
		return true;
	return it->comp->duration_ns > 0 &&
		wperf_monotonic_ns() >= it->start_ts + (uint64_t)it->comp->duration_ns;
}
