/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-idle.h — restore the switches out of the idle task that
 * some kernels do not trace.
 *
 * On some kernels (seen on this project's CI VM, Linux 6.18 with
 * haltpoll/vCPU scheduling patches) a CPU leaves its idle task without a
 * sched_switch event: even a plain ftrace instance shows thousands of
 * "task -> idle" switches on that CPU and no "idle -> task" one. The
 * analysis would then see threads switched out that never ran. Every
 * ftrace event records the thread that was running (common_pid), so once
 * a CPU that the trace says is idle records an event from another thread,
 * we know that thread was switched in since the CPU's previous event, and
 * emit the missing sched_switch just before that event.
 *
 * To name the thread in the restored event we keep its last known comm
 * and priority from the sched events and the statedump, in a small
 * direct-mapped cache (a miss only costs the name).
 */
#ifndef WPERF_PLUGIN_TRACEFS_IDLE_H
#define WPERF_PLUGIN_TRACEFS_IDLE_H

#include <stdbool.h>
#include <stdint.h>

#define WPERF_NAME_SLOTS 4096
#define WPERF_CURRENT_UNKNOWN (-1)

struct wperf_thread_name {
	int64_t tid;       /* 0 in an empty slot (tid 0 is never cached) */
	int64_t prio;      /* LTTng prio (kernel prio - 100) */
	char comm[16];
};

struct wperf_idle_tracker {
	int ncpus;
	int64_t *current;  /* per CPU: the running tid per the trace */
	struct wperf_thread_name names[WPERF_NAME_SLOTS];
	uint64_t restored; /* switches restored so far */
};

int wperf_idle_init(struct wperf_idle_tracker *t, int ncpus);
void wperf_idle_fini(struct wperf_idle_tracker *t);

void wperf_idle_remember(struct wperf_idle_tracker *t, int64_t tid,
			 const char *comm, int64_t prio);
/* The cached name of tid, or NULL. */
const struct wperf_thread_name *wperf_idle_lookup(
	const struct wperf_idle_tracker *t, int64_t tid);

/* A sched_switch was emitted on cpu (or, with WPERF_CURRENT_UNKNOWN,
 * events were lost there and we no longer know who runs). */
void wperf_idle_set_current(struct wperf_idle_tracker *t, int cpu, int64_t tid);

/* True when the trace says cpu is idle but `running` (common_pid of an
 * event recorded there) is another thread: a switch was not traced. */
bool wperf_idle_switch_missing(const struct wperf_idle_tracker *t, int cpu,
			       int64_t running);

#endif /* WPERF_PLUGIN_TRACEFS_IDLE_H */
