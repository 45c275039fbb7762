/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/decode.h — from babeltrace2 messages to the analysis.
 *
 * Recognises the kernel event layouts (LTTng modules 2.0 to 2.13, perf CTF
 * `sched:*`-style names with common_flags/perf_tid, and the tracefs
 * recorder's output, which uses the LTTng layout), turns each event into a
 * struct wperf_event, and forwards discarded-events/packets messages and
 * stream/packet times. Events of traces named "wperf" (our own segment
 * output) are skipped, so a sink placed after filter.wperf.waits counts
 * nothing twice. Decoding decisions are cached per event class.
 */
#ifndef WPERF_PLUGIN_DECODE_H
#define WPERF_PLUGIN_DECODE_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "window.h"
#include "wperf/analysis.h"

struct wperf_decoder;

struct wperf_decoder *wperf_decoder_create(void);
void wperf_decoder_destroy(struct wperf_decoder *d);

/*
 * Periodic reports (sink.wperf.knots every=): the hook is called with the
 * time of every decoded event before any analysis gets it, and of every
 * message iterator inactivity message (a live source's "nothing new up to
 * this time"); a non-zero return fails the message with err. `also`, when
 * not NULL, is fed every event and every loss as the main analysis is
 * (the window's analysis); set it again whenever it changes.
 */
typedef int (*wperf_decoder_time_hook)(void *data, int64_t ts, bool is_event, char *err,
				       size_t errlen);
void wperf_decoder_set_time_hook(struct wperf_decoder *d, wperf_decoder_time_hook hook,
				 void *data);
void wperf_decoder_set_also(struct wperf_decoder *d, struct wperf_analysis *also);

/* Count only this time window (window.h), resolved at the first message
 * that has a time, before the analysis sees an event. Call before the
 * first message; a window without bounds changes nothing. */
void wperf_decoder_set_window(struct wperf_decoder *d, const struct wperf_window *w);

/* Feed one message to the analysis. Returns 0, or -1 on an error that makes
 * the trace unusable (message in err). */
int wperf_decoder_feed_message(struct wperf_decoder *d, struct wperf_analysis *a,
			       const bt_message *msg, char *err, size_t errlen);

/*
 * The default clock snapshot of the latest message fed that had one, of
 * any stream (kernel or not), or NULL before the first. Noted before the
 * message reaches the analysis, so the analysis' callbacks see the time of
 * the message that made them run. Borrowed from that message: valid while
 * the caller holds it. *seq changes whenever the snapshot does (message
 * objects are recycled: a pointer may come back with another time).
 */
const bt_clock_snapshot *wperf_decoder_latest_time(const struct wperf_decoder *d,
						   uint64_t *seq);

/* The default clock class of the first kernel stream seen (borrowed), for
 * components that emit their own events on the same time base. */
const bt_clock_class *wperf_decoder_clock_class(const struct wperf_decoder *d);

/* That clock's UUID (16 bytes, copied when first seen, so it outlives the
 * clock class), or NULL when it has none. */
const uint8_t *wperf_decoder_clock_uuid(const struct wperf_decoder *d);

/* The kernel text address a perf trace recorded (its perf_mmap of
 * "[kernel.kallsyms]", with `perf data convert --all`), when the trace's
 * kernel release is the running one's; else 0. */
uint64_t wperf_decoder_kernel_text(const struct wperf_decoder *d);

/* wperf_analysis_finish() through this decoder's analysis: the graph, its
 * hosts named. 0, or -1 (the analysis' error, or out of memory). */
int wperf_decoder_finish(const struct wperf_decoder *d, struct wperf_analysis *a,
			 struct wperf_graph *g);

/* Put the clock of one host on the reference host's before any message:
 * "NAME:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS" (plugin/common/hosts.h). 0, or -1 with
 * why in err. */
int wperf_decoder_give_host_clock(struct wperf_decoder *d, const char *item, char *err,
				  size_t errlen);

/* The same while messages flow (sink.wperf.knots' sync-hosts): the
 * host's later events follow the new transform, and no host's time goes
 * back. 0, or -1 with why in err. */
int wperf_decoder_set_host_clock(struct wperf_decoder *d, const char *item, char *err,
				 size_t errlen);

/* How many events of each enum wperf_event_type were decoded and fed to
 * the analysis so far (an array of WPERF_EV_TYPE_COUNT counters). */
const uint64_t *wperf_decoder_event_counts(const struct wperf_decoder *d);

/* Why the analysis found no events of some kind, when the decoder knows
 * better: the trace declares sched_switch (or a wakeup event) but in a
 * layout wperf cannot read, so "record them" would be the wrong advice.
 * Returns a message for that case, else analysis_error as it is. The
 * message lives in the decoder. */
const char *wperf_decoder_explain(struct wperf_decoder *d, const char *analysis_error);

#endif /* WPERF_PLUGIN_DECODE_H */
