/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/stop-signals.h — SIGINT, SIGTERM and SIGHUP as requests to
 * stop: caught, counted, taken once each (stop-signals.c). command.h
 * includes it.
 */
#ifndef WPERF_TOOL_STOP_SIGNALS_H
#define WPERF_TOOL_STOP_SIGNALS_H

#include <stdbool.h>

/* Catch SIGINT, SIGTERM and SIGHUP for the recording (also when started
 * as a background job, where SIGINT comes ignored). */
void wperf_stop_signals_catch(void);

/* Ignore them while tearing down: a second Ctrl-C, a kill or a closed
 * terminal must not leave the recorder, the session or the daemon
 * behind. */
void wperf_stop_signals_ignore(void);

/* A stop asked for by signal since wperf_stop_signals_catch(): 0, or the
 * signal number. Clears it. */
int wperf_stop_signal_take(void);

/* Whether a stop signal arrived that was not taken yet (any thread may
 * look: the waits of waits.c end on it and leave it to be taken). */
bool wperf_stop_signal_pending(void);

/* The exit status of a wperf that a stop signal ended: 128 + the last
 * signal taken (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP), as if
 * that signal had ended it; else 128 + one still pending; else 130. */
int wperf_interrupted_status(void);

#endif /* WPERF_TOOL_STOP_SIGNALS_H */
