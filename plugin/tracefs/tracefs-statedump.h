/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-statedump.h — the initial state of the system, read from
 * /proc and /sys, for the synthetic lttng_statedump_* events.
 *
 * LTTng records a "statedump" when tracing starts: one event per thread
 * (name, process, state) and one per block device (number, name). ftrace
 * has no such thing, so we read the same facts from procfs and sysfs. The
 * analysis needs them to know threads that do nothing during the recording
 * and to name disks ("vda" rather than 254:0).
 */
#ifndef WPERF_PLUGIN_TRACEFS_STATEDUMP_H
#define WPERF_PLUGIN_TRACEFS_STATEDUMP_H

#include <stddef.h>
#include <stdint.h>

/* lttng-modules enum values (lttng_thread_type, lttng_process_status). */
#define WPERF_THREAD_USER    0
#define WPERF_THREAD_KERNEL  1
#define WPERF_STATUS_ZOMBIE  4
#define WPERF_STATUS_WAIT    5
#define WPERF_STATUS_RUN     6
#define WPERF_STATUS_DEAD    7

struct wperf_thread_state {
	int32_t tid, pid, ppid;
	int32_t type;    /* WPERF_THREAD_* */
	int32_t status;  /* WPERF_STATUS_* */
	int32_t cpu;     /* the CPU it last ran on */
	char name[32];
};

struct wperf_block_device {
	uint32_t dev;    /* kernel dev_t: major << 20 | minor */
	char name[256]; /* a /sys/class/block entry name */
};

struct wperf_statedump {
	struct wperf_thread_state *threads;
	size_t nthreads;
	struct wperf_block_device *disks;
	size_t ndisks;
};

/* Read every thread and block device; 0 on success, -1 out of memory.
 * Threads or devices that vanish while we read are skipped. */
int wperf_statedump_collect(struct wperf_statedump *sd);
void wperf_statedump_free(struct wperf_statedump *sd);

#endif /* WPERF_PLUGIN_TRACEFS_STATEDUMP_H */
