/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-source.c — source.wperf.tracefs: record kernel
 * scheduler, interrupt, timer, block and network events from tracefs (ftrace) and
 * emit them as one babeltrace2 trace in the LTTng kernel layout.
 *
 * Pieces:
 *   tracefs-component.c  the component: parameters, trace class, event classes;
 *   tracefs-recorder.c   the private ftrace instance and per-CPU readers;
 *   tracefs-layout.c     ftrace event → LTTng event name and fields;
 *   tracefs-statedump.c  the initial threads and disks from /proc, /sys;
 *   tracefs-idle.c       restores switches out of idle the kernel missed;
 *   tracefs-produce.c    the messages, phase by phase;
 *   tracefs-outbox.c     the messages made and not yet handed out, the
 *                        packets and the losses between them;
 *   tracefs-stop.c       when to stop: the first stop signal, the
 *                        graph's interrupter, `duration`;
 *   this file            the message iterator: its trace, streams and
 *                        methods.
 *
 * Time order. A message iterator must emit non-decreasing times across
 * all its streams, but ftrace only orders events within one CPU. We keep
 * one output port and merge the CPUs with a watermark: the oldest queued
 * event of all CPUs is emitted only when no CPU can still deliver an older
 * one, i.e. when every CPU with nothing queued was last found empty after
 * that time (see COMMIT_MARGIN_NS in tracefs-recorder.c). One port per CPU
 * with inactivity messages would push the same merge onto the muxer and
 * make every downstream user handle inactivity; a single merged port keeps
 * the recorder self-contained and the muxer trivial. At stop we turn
 * tracing off and drain every CPU, so the whole tail comes out in order.
 * Memory stays bounded: only the events newer than the watermark (a few
 * poll periods) are held, as raw ring-buffer pages.
 *
 * Ctrl-C. The babeltrace2 CLI's SIGINT handler only sets the graph's
 * interrupter; bt_graph_run() then returns before the next consume and the
 * CLI destroys the graph at once: no iterator is called again, so no sink
 * ever sees the end of the packets and streams. To end a recording made
 * "until interrupted" properly, the iterator takes the FIRST SIGINT itself
 * (unless SIGINT is ignored), puts the previous handler back at once (so a
 * second Ctrl-C interrupts as usual), and turns the signal into "stop
 * tracing, drain, end packets and streams, then END". SIGTERM (kill,
 * timeout(1), systemd) and SIGHUP (the terminal closed) get the same:
 * uncaught, they end the process with no trace metadata written and the
 * tracefs instance left recording. A program running
 * the graph itself gets the same stop from its interrupter
 * (bt_self_message_iterator_is_interrupted()) if it keeps the graph going.
 *
 * Snapshots. With instance="NAME" and snapshot=true the component attaches
 * to a flight recorder (an instance left recording in overwrite mode by
 * `wperf record --snapshot`), takes a snapshot of its ring buffers (see
 * wperf_recorder_open_snapshot()), reads it all at initialization, emits
 * it, and ends. The instance keeps recording and is never modified. The
 * statedump is read from /proc at the snapshot time and stamped with it,
 * after the events, as `lttng regenerate statedump` does before an LTTng
 * snapshot: the buffer's beginning has been overwritten long ago, so no
 * earlier time would be true.
 *
 * Ready. Tracing is on only once the iterator exists, after every event
 * was enabled at initialization (which reads the kernel's formats: a second
 * or more). A program that starts a command "once the recorder records"
 * cannot tell that from tracefs (a new instance reads tracing_on=1 before
 * anything is enabled). With ready-file="PATH", the iterator writes a marker
 * to the instance's trace_marker right after turning tracing on, and writes
 * PATH (the time of the event, in ns, and a newline) when it reads back an
 * event recorded after that instant: the marker, or any other. Everything
 * that happens after PATH appears is in the trace (bar losses, which the
 * trace says).
 *
 * Packets. Each CPU stream gets a new packet every PACKET_PERIOD_NS, for
 * two reasons: sink.ctf.fs only writes a packet when it ends (so a
 * recording stopped by Ctrl-C in the babeltrace2 CLI, which destroys the
 * graph without ending the streams, keeps all but the last period), and
 * CTF 1.8 can only place discarded events between two packet ends.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "components.h"
#include "common/comp-error.h"
#include "tracefs-source.h"


/* ------------------------------------------------------------------ */
/* Iterator: the trace and its streams                                  */
/* ------------------------------------------------------------------ */

/*
 * The environment readers of LTTng kernel traces look at
 * (doc/wperf-tracecompass.7.md lists each entry and who reads it):
 * domain "kernel" makes Trace Compass open the trace as a kernel trace
 * and lttng-analyses read it; tracer_name says who recorded it (not
 * lttng-modules); the version numbers are those of the lttng-modules event
 * layout the events follow, since that is what both read them for
 * (lttng-analyses: whether sched_wakeup's prio is already offset by 100,
 * true from 2.7.1 on; it refuses a trace without tracer_patchlevel).
 */
#define TRACE_ORIGIN "Linux tracefs (ftrace) events recorded by wperf's " \
	"source.wperf.tracefs, renamed to the lttng-modules 2.13 layout; " \
	"not recorded by lttng-modules"

static int set_environment(bt_trace *trace)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	return bt_trace_set_environment_entry_string(trace, "hostname", u.nodename) ||
		bt_trace_set_environment_entry_string(trace, "domain", "kernel") ||
		bt_trace_set_environment_entry_string(trace, "sysname", u.sysname) ||
		bt_trace_set_environment_entry_string(trace, "kernel_release", u.release) ||
		bt_trace_set_environment_entry_string(trace, "kernel_version", u.version) ||
		bt_trace_set_environment_entry_string(trace, "tracer_name", "wperf-tracefs") ||
		bt_trace_set_environment_entry_integer(trace, "tracer_major", 2) ||
		bt_trace_set_environment_entry_integer(trace, "tracer_minor", 13) ||
		bt_trace_set_environment_entry_integer(trace, "tracer_patchlevel", 0) ||
		bt_trace_set_environment_entry_string(trace, "tracer_layout", "lttng-modules 2.13") ||
		bt_trace_set_environment_entry_string(trace, "trace_origin", TRACE_ORIGIN) ||
		bt_trace_set_environment_entry_string(trace, "wperf_version", WPERF_VERSION) ? -1 : 0;
}

static int create_trace(struct tracefs_iter *it)
{
	struct tracefs_comp *comp = it->comp;

	it->trace = bt_trace_create(comp->trace_class);
	if (!it->trace || bt_trace_set_name(it->trace, "kernel") ||
	    set_environment(it->trace))
		return -1;
	it->ncpus = comp->rec->ncpus;
	it->streams = calloc((size_t)it->ncpus, sizeof(*it->streams));
	if (!it->streams)
		return -1;
	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		char name[32];

		it->streams[cpu].stream = bt_stream_create(comp->stream_class, it->trace);
		if (!it->streams[cpu].stream)
			return -1;
		snprintf(name, sizeof(name), "cpu%d", cpu);
		bt_stream_set_name(it->streams[cpu].stream, name);
	}
	return 0;
}


/* ------------------------------------------------------------------ */
/* Iterator methods                                                     */
/* ------------------------------------------------------------------ */

static void destroy_iter(struct tracefs_iter *it)
{
	if (!it)
		return;
	for (size_t i = it->out_head; i < it->out_len; i++)
		bt_message_put_ref(it->out[i]);
	free(it->out);
	for (int cpu = 0; it->streams && cpu < it->ncpus; cpu++) {
		bt_packet_put_ref(it->streams[cpu].packet);
		bt_stream_put_ref(it->streams[cpu].stream);
	}
	free(it->streams);
	/*
	 * Torn down mid-stream (second Ctrl-C in the CLI, an error): a sink
	 * may still hold an open packet. babeltrace2 2.0.4's sink.ctf.fs then
	 * drops that packet (the last reference to our trace) in its finalize
	 * and writes the metadata from the freed trace: a crash. Keeping the
	 * trace alive (one small object, in a process that is about to exit
	 * in the CLI case) lets the sink write a readable trace instead.
	 */
	if (it->phase == PHASE_BEGIN || it->phase == PHASE_DONE)
		bt_trace_put_ref(it->trace);
	wperf_statedump_free(&it->sd);
	wperf_idle_fini(&it->idle);
	free(it);
}

/*
 * Take the snapshot and read all of it now: the streams must begin at the
 * oldest event the buffers still hold, which is known only once read.
 */
/*
 * A flight recorder's CPUs keep different lengths of history: a busy CPU
 * overwrites its oldest events sooner (history_overwritten). Before the
 * last of those CPUs' first events, the other CPUs' events would be
 * analysed without the busy one's (its wakeups missing, its silence taken
 * for idleness). So the snapshot starts there, where every CPU has its
 * history, as `babeltrace2 --stream-intersection` would cut it.
 */
static void start_where_every_cpu_has_history(struct wperf_recorder *rec)
{
	uint64_t start = 0;

	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		if (r->history_overwritten && r->has_event && r->event_ts > start &&
		    r->event_ts <= rec->read_until)
			start = r->event_ts;
	}
	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];
		bool skipped = false;

		while (r->has_event && r->event_ts < start) {
			wperf_recorder_advance(rec, r);
			skipped = true;
		}
		if (skipped)
			r->missed_before_event = 0;   /* a loss in the history left out */
	}
}

static int read_snapshot(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	uint64_t snapshot_ts;

	if (wperf_recorder_open_snapshot(rec, &snapshot_ts, it->err, sizeof(it->err)))
		return -1;
	snprintf(it->err, sizeof(it->err), "cannot read /proc for the statedump (out of memory)");
	if (wperf_statedump_collect(&it->sd))
		return -1;
	for (bool pending = true; pending;) {
		if (tracefs_poll_cpus(it, true))
			return -1;
		pending = false;
		for (int i = 0; i < rec->ncpus; i++)
			pending |= !rec->cpus[i].drained;
	}
	start_where_every_cpu_has_history(rec);
	it->start_ts = it->sd_ts = it->stop_ts = snapshot_ts;
	for (int i = 0; i < rec->ncpus; i++)
		if (rec->cpus[i].has_event && rec->cpus[i].event_ts < it->start_ts)
			it->start_ts = rec->cpus[i].event_ts;
	it->last_ts = it->start_ts;
	return 0;
}

bt_message_iterator_class_initialize_method_status wperf_tracefs_iter_init(
	bt_self_message_iterator *self,
	bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port)
{
	struct tracefs_comp *comp = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct tracefs_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it) {
		WPERF_ITER_ERROR(self, NULL, "out of memory");
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	it->comp = comp;
	it->self = self;
	snprintf(it->err, sizeof(it->err), "cannot create the trace (out of memory?)");
	if (comp->has_iterator) {
		/* Two readers would split the ring buffers between them. */
		snprintf(it->err, sizeof(it->err), "only one message iterator "
			 "per source.wperf.tracefs component is supported: "
			 "connect its port to one downstream component");
		goto error;
	}
	if (create_trace(it) || wperf_idle_init(&it->idle, it->ncpus))
		goto error;
	if (comp->snapshot) {
		if (read_snapshot(it))
			goto error;
	} else {
		/* Start before reading /proc: every change after the
		 * statedump's snapshot is then in the trace (as LTTng does). */
		it->start_ts = wperf_monotonic_ns();
		it->last_ts = it->sd_ts = it->start_ts;
		/* From the moment tracing starts: a signal during the
		 * statedump (a long /proc scan) stops at the first call. */
		tracefs_take_stop_signals();
		if (wperf_recorder_start(comp->rec, it->err, sizeof(it->err)))
			goto error;
		/* ready-file: an event from now on read back says we record;
		 * the marker makes one at once (else the next switch does). */
		it->ready_after_ts = wperf_monotonic_ns();
		if (comp->ready_file)
			wperf_recorder_mark(comp->rec, "wperf: recording");
		snprintf(it->err, sizeof(it->err), "cannot read /proc for the statedump (out of memory)");
		if (wperf_statedump_collect(&it->sd))
			goto error;
	}
	comp->has_iterator = true;
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	WPERF_ITER_ERROR(self, NULL, "%s", it->err);
	wperf_recorder_stop(comp->rec);
	tracefs_give_back_stop_signals();
	destroy_iter(it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_tracefs_iter_finalize(bt_self_message_iterator *self)
{
	struct tracefs_iter *it = bt_self_message_iterator_get_data(self);

	/* Tracing stops now, not only when the component goes away. */
	if (it) {
		wperf_recorder_stop(it->comp->rec);
		tracefs_give_back_stop_signals();
	}
	destroy_iter(it);
}

static void idle_sleep(void)
{
	struct timespec ts = { 0, IDLE_SLEEP_NS };

	nanosleep(&ts, NULL);  /* EINTR (Ctrl-C) just ends it early */
}

bt_message_iterator_class_next_method_status wperf_tracefs_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count)
{
	struct tracefs_iter *it = bt_self_message_iterator_get_data(self);

	*count = 0;
	while (*count < capacity) {
		int ret;

		if (it->out_head < it->out_len) {
			msgs[(*count)++] = it->out[it->out_head++];
			continue;
		}
		it->out_head = it->out_len = 0;
		ret = tracefs_produce(it);
		if (ret < 0) {
			WPERF_ITER_ERROR(self, NULL, "%s", it->err);
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		if (ret == 0)
			break;
	}
	if (*count > 0)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	if (it->phase == PHASE_DONE)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	idle_sleep();
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
}

