/* SPDX-License-Identifier: MIT */
/*
 * plugin/waits/waits-trace.h — the `wperf` trace that filter.wperf.waits adds
 * beside the upstream traces: one stream of `wperf:segment` events, one per
 * closed thread segment.
 *
 * A filter cannot add event classes to the upstream stream classes (they
 * arrive const), so this module owns a whole trace of its own: trace class,
 * clock class (a copy of the upstream kernel clock, so that muxers and
 * viewers put both traces on one time base), stream class with packets,
 * one event class, one trace, one stream. It turns segments into messages
 * and appends them to the filter's output queue, opening the stream and
 * packets on the way and closing them at the end.
 */
#ifndef WPERF_PLUGIN_WAITS_TRACE_H
#define WPERF_PLUGIN_WAITS_TRACE_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/analysis.h"

/* Messages waiting to be handed downstream, in output order. Owns one
 * reference per message. */
struct waits_queue {
	const bt_message **msgs;
	size_t head;            /* next message to hand out */
	size_t len;             /* messages stored, handed out or not */
	size_t cap;
};

/* Append msg, taking over its reference (put even on failure). 0 or -1. */
int waits_queue_push(struct waits_queue *q, const bt_message *msg);
/* Move up to capacity messages into out; returns how many. */
uint64_t waits_queue_pop(struct waits_queue *q, bt_message_array_const out,
			 uint64_t capacity);
bool waits_queue_is_empty(const struct waits_queue *q);
/* Put every message still queued and free the storage. */
void waits_queue_fini(struct waits_queue *q);

/*
 * A point in time as an upstream message gave it: nanoseconds from the
 * clock's origin and, when known, the raw value in the snapshot's clock, so
 * that a segment stamped "at this message" can reuse it exactly when our
 * clock is a copy of that one (no rounding through nanoseconds). Holds a
 * reference to that clock class; waits_time_fini() releases it.
 */
struct waits_time {
	int64_t ns;
	uint64_t cycles;
	const bt_clock_class *clock;     /* NULL: only ns is known */
	bool known;
};

/* Set *t to the time of a clock snapshot unless that is before t->ns. A
 * snapshot that cannot be expressed in ns from origin (overflow) changes
 * nothing. */
void waits_time_advance(struct waits_time *t, const bt_clock_snapshot *cs);
/* Set *t to ns, in no particular clock. */
void waits_time_set_ns(struct waits_time *t, int64_t ns);
void waits_time_fini(struct waits_time *t);

struct waits_trace;

/* Create the trace classes, trace and stream for iterator self, with a
 * clock class copied from kernel_clock. NULL on failure (err set). */
struct waits_trace *waits_trace_create(bt_self_message_iterator *self,
				       const bt_clock_class *kernel_clock,
				       char *err, size_t errlen);
void waits_trace_destroy(struct waits_trace *t);

/* Append the event message of seg at time `at` (preceded by stream and
 * packet beginnings the first time, and by a packet change when the current
 * packet is full). Times never go backwards in our stream: an earlier `at`
 * is raised to the latest time already emitted. 0, or -1 (err set). */
int waits_trace_emit_segment(struct waits_trace *t, const struct wperf_segment *seg,
			     const struct waits_time *at, struct waits_queue *q,
			     char *err, size_t errlen);

/* Append packet end and stream end at time `at` if the stream was begun;
 * nothing otherwise. 0, or -1 (err set). */
int waits_trace_emit_end(struct waits_trace *t, const struct waits_time *at,
			 struct waits_queue *q, char *err, size_t errlen);

#endif /* WPERF_PLUGIN_WAITS_TRACE_H */
