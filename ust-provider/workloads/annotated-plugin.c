/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/workloads/annotated-plugin.c — a plugin with the wperf
 * annotations, for a program that has none and dlopen()s it
 * (plugin-host.c): what libwperf-ust-preload.so must see after the start.
 *
 * It exports one function, run in the caller's thread: `spins` times, the
 * WPERF_BEFORE_SPIN / WPERF_AFTER_SPIN pair on one lock word, and
 * WPERF_PROGRESS("item") after each. No other thread: the events are
 * counted, not analysed.
 */
#define WPERF_ANNOTATE_DEFINE   /* this plugin holds the tracepoint definitions */
#include <wperf/annotate.h>

#include <stdint.h>

static int lock_word;   /* its address is the `lock` field of the events */

/* Returns the lock's address, as the events carry it. */
__attribute__((visibility("default"))) uintptr_t annotated_plugin_run(long spins)
{
	for (long i = 0; i < spins; i++) {
		WPERF_BEFORE_SPIN(&lock_word);
		__atomic_fetch_add(&lock_word, 1, __ATOMIC_ACQ_REL);
		WPERF_AFTER_SPIN(&lock_word);
		WPERF_PROGRESS("item");
	}
	return (uintptr_t)&lock_word;
}
