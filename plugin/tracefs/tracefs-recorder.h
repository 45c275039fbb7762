/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-recorder.h — record kernel events with libtracefs into a
 * private ftrace instance and hand them out per CPU, in time order.
 *
 * This layer knows nothing about babeltrace2: it owns the ftrace instance,
 * the event formats (a libtraceevent handle) and one reader per CPU. Each
 * reader keeps a short queue of raw ring-buffer pages that were read from
 * per_cpu/cpuN/trace_pipe_raw but not consumed yet, and a cursor on the
 * oldest unconsumed event. The babeltrace2 side (tracefs-source.c) merges
 * the cursors of all CPUs.
 */
#ifndef WPERF_PLUGIN_TRACEFS_RECORDER_H
#define WPERF_PLUGIN_TRACEFS_RECORDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

struct wperf_page_chunk;

/* A raw ring-buffer sub-buffer ("page") copied out of trace_pipe_raw,
 * in a slot of a chunk of them (tracefs-recorder.c, get_page()). */
struct wperf_rb_page {
	struct wperf_rb_page *next;
	struct wperf_page_chunk *chunk;
	int len;
	char data[];
};

struct wperf_cpu_reader {
	int cpu;
	struct tracefs_cpu *tcpu;
	struct kbuffer *kbuf;

	/* Pages read but not fully consumed, oldest first; head is loaded
	 * into kbuf when has_event is true. */
	struct wperf_rb_page *head, *tail;
	bool has_event;
	void *event_data;     /* current event's payload inside head */
	uint64_t event_ts;    /* its timestamp (trace clock "mono", ns) */

	/* Lost events announced by the page the cursor just entered:
	 * 0 none, -1 some but the kernel did not say how many, else count.
	 * The consumer reads it and resets it to 0. */
	int64_t missed_before_event;
	uint64_t missed_reported;   /* sum of known counts seen in pages */

	/* Every event this CPU will still deliver has ts >= delivered_until
	 * (see wperf_recorder_poll_cpu()); UINT64_MAX once drained. */
	uint64_t delivered_until;
	bool drained;
	bool read_any;        /* a page was read: losses before it are history */
	/* A snapshot's first page says older events were overwritten: this
	 * CPU's history starts only at its first event. */
	bool history_overwritten;
};

struct wperf_recorder {
	struct tracefs_instance *instance;
	char instance_name[64];
	struct tep_handle *tep;
	int subbuf_size;
	int ncpus;
	struct wperf_cpu_reader *cpus;
	/* The pages' chunks (get_page()), and one that has free slots. */
	struct wperf_page_chunk *chunks, *fill;
	size_t nchunks;
	bool tracing;

	/* Attached to someone else's instance (a flight recorder): never
	 * change its settings, its tracing_on, or remove it. */
	bool attached;
	bool stack_trigger;   /* the stacktrace trigger is set on sched_switch */
	/* A snapshot read from the live buffers (no ftrace snapshot buffer in
	 * this kernel) paused the flight recorder: it goes on at the end. */
	bool paused;
	/* Snapshot reading: pages are read up to this time only (see
	 * wperf_recorder_open_snapshot()); UINT64_MAX otherwise. */
	uint64_t read_until;
	/* Pages read and not consumed yet, all CPUs: what a deferred
	 * conversion holds in memory (tracefs-produce.c). */
	size_t queued_pages;
};

/*
 * Create the private instance, set the "mono" clock and the per-CPU buffer
 * size, and load the formats of the event systems we decode. Tracing is
 * left off. On failure, everything is undone and err says why in one line.
 */
struct wperf_recorder *wperf_recorder_create(uint64_t buffer_size_kb,
					     char *err, size_t errlen);

/*
 * Use the existing instance `name` (a flight recorder left recording by
 * `wperf record --snapshot`) without creating, configuring or removing
 * it. Its trace clock must be "mono". err says why in one line on failure.
 */
struct wperf_recorder *wperf_recorder_attach(const char *name,
					     char *err, size_t errlen);

/* Whether system:event is enabled in the recorder's instance. */
bool wperf_recorder_event_enabled(struct wperf_recorder *rec,
				  const char *system, const char *event);

/*
 * Open the per-CPU readers of an attached instance for a snapshot of what
 * its ring buffers hold now. With ftrace snapshots (CONFIG_TRACER_SNAPSHOT)
 * the live buffers are swapped into the snapshot buffer and read from
 * per_cpu/cpuN/snapshot_raw; the live buffer is not consumed. Without,
 * the live buffers are read (consumed) from trace_pipe_raw up to the time
 * of the call. Tracing is left on either way. *snapshot_ts is that time.
 */
int wperf_recorder_open_snapshot(struct wperf_recorder *rec,
				 uint64_t *snapshot_ts, char *err, size_t errlen);

/* Stop tracing, close the readers, remove the instance, free all (an
 * attached instance is only closed). */
void wperf_recorder_destroy(struct wperf_recorder *rec);

/* The format of system:event on this kernel, or NULL if it lacks it. */
struct tep_event *wperf_recorder_find_event(struct wperf_recorder *rec,
					    const char *system,
					    const char *event);

int wperf_recorder_enable_event(struct wperf_recorder *rec,
				const char *system, const char *event,
				char *err, size_t errlen);

/* Open the per-CPU readers, clear the buffers and turn tracing on. */
int wperf_recorder_start(struct wperf_recorder *rec, char *err, size_t errlen);

/* Write text to the instance's trace_marker: an ftrace:print event of the
 * writing CPU, recorded while tracing is on. 0, or -1 (errno set). */
int wperf_recorder_mark(struct wperf_recorder *rec, const char *text);

/* Turn tracing off: what is in the buffers can still be read. */
void wperf_recorder_stop(struct wperf_recorder *rec);

/*
 * Read up to max_pages new pages of one CPU without blocking. When the
 * buffer is found empty, advance delivered_until; when stopping is true and
 * it is empty, the CPU is drained. Returns the number of pages read, or -1
 * on a read error (err set).
 */
int wperf_recorder_poll_cpu(struct wperf_recorder *rec,
			    struct wperf_cpu_reader *r, int max_pages,
			    bool stopping, char *err, size_t errlen);

/* Move the cursor of r past its current event. */
void wperf_recorder_advance(struct wperf_recorder *rec,
			    struct wperf_cpu_reader *r);

/*
 * Events the kernel lost on this CPU according to per_cpu/cpuN/stats
 * (overrun + commit overrun + dropped events), or -1 if unreadable.
 */
int64_t wperf_recorder_lost_events(struct wperf_recorder *rec, int cpu);

/* CLOCK_MONOTONIC now, in ns: the time base of the "mono" trace clock. */
uint64_t wperf_monotonic_ns(void);

/* Record the kernel stack of every thread switching out (ftrace's
 * stacktrace trigger on sched_switch; ftrace/kernel_stack entries follow
 * each sched_switch). 0, or -1 with err set. Private instances only. */
int wperf_recorder_stack_on_switch(struct wperf_recorder *rec, char *err, size_t errlen);

#endif /* WPERF_PLUGIN_TRACEFS_RECORDER_H */
