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
 *   this file            the message iterator: its trace, streams, outbox
 *                        and methods, and the first stop signal.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "components.h"
#include "common/comp-error.h"
#include "tracefs-source.h"

/* ------------------------------------------------------------------ */
/* The first Ctrl-C, SIGTERM or SIGHUP (see the header comment)       */
/* ------------------------------------------------------------------ */

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

static void take_first_stop_signals(void)
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
static void give_back_stop_signals(void)
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

/* ------------------------------------------------------------------ */
/* Iterator: the trace, streams and the outbox of messages              */
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

/* Queue a message; a NULL one (failed creation) is an error. */
int tracefs_push(struct tracefs_iter *it, bt_message *msg)
{
	if (!msg) {
		snprintf(it->err, sizeof(it->err), "cannot create a message (out of memory)");
		return -1;
	}
	if (it->out_len == it->out_cap) {
		size_t cap = it->out_cap ? it->out_cap * 2 : 1024;
		const bt_message **bigger = realloc(it->out, cap * sizeof(*bigger));

		if (!bigger) {
			bt_message_put_ref(msg);
			snprintf(it->err, sizeof(it->err), "out of memory");
			return -1;
		}
		it->out = bigger;
		it->out_cap = cap;
	}
	it->out[it->out_len++] = msg;
	return 0;
}

/* Never let a message time go backwards across streams (see the header
 * comment: an event committed after the watermark passed it is rare). */
uint64_t tracefs_monotonic_ts(struct tracefs_iter *it, uint64_t ts)
{
	if (ts < it->last_ts)
		ts = it->last_ts;
	it->last_ts = ts;
	return ts;
}

int tracefs_begin_packet(struct tracefs_iter *it, int cpu, uint64_t ts)
{
	struct cpu_stream *s = &it->streams[cpu];
	bt_field *context;

	s->packet = bt_packet_create(s->stream);
	if (!s->packet)
		return tracefs_push(it, NULL);
	context = bt_packet_borrow_context_field(s->packet);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(context, 0),
		(uint64_t)cpu);
	return tracefs_push(it, bt_message_packet_beginning_create_with_default_clock_snapshot(
		it->self, s->packet, tracefs_monotonic_ts(it, ts)));
}

int tracefs_end_packet(struct tracefs_iter *it, int cpu, uint64_t ts)
{
	struct cpu_stream *s = &it->streams[cpu];
	int ret = tracefs_push(it, bt_message_packet_end_create_with_default_clock_snapshot(
		it->self, s->packet, tracefs_monotonic_ts(it, ts)));

	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	return ret;
}

/* End every open packet at ts and begin new ones there. */
int tracefs_cut_packets(struct tracefs_iter *it, uint64_t ts)
{
	for (int cpu = 0; cpu < it->ncpus; cpu++)
		if (tracefs_end_packet(it, cpu, ts) || tracefs_begin_packet(it, cpu, ts))
			return -1;
	it->packet_cut_ts = ts;
	return 0;
}

/*
 * Report lost events of one CPU over [last message time, end]. CTF 1.8
 * (sink.ctf.fs) can only say "N events lost between the end of the
 * previous packet and the end of this one", so: end the open packet now,
 * emit the discarded-events message, and make a packet that ends at `end`.
 * count < 0 means the kernel did not say how many.
 */
int tracefs_report_loss(struct tracefs_iter *it, int cpu, uint64_t end,
			int64_t count, bool reopen)
{
	uint64_t begin = it->last_ts;
	bt_message *msg;

	if (end < begin)
		end = begin;
	/* Switches may be among the lost events: who runs is now unknown. */
	wperf_idle_set_current(&it->idle, cpu, WPERF_CURRENT_UNKNOWN);
	if (tracefs_end_packet(it, cpu, begin))
		return -1;
	msg = bt_message_discarded_events_create_with_default_clock_snapshots(
		it->self, it->streams[cpu].stream, begin, end);
	if (msg && count >= 0)
		bt_message_discarded_events_set_count(msg, (uint64_t)count);
	if (tracefs_push(it, msg) || tracefs_begin_packet(it, cpu, begin) || tracefs_end_packet(it, cpu, end))
		return -1;
	return reopen ? tracefs_begin_packet(it, cpu, end) : 0;
}

bool tracefs_should_stop(struct tracefs_iter *it)
{
	if (stop_signal_received || bt_self_message_iterator_is_interrupted(it->self))
		return true;
	return it->comp->duration_ns > 0 &&
		wperf_monotonic_ns() >= it->start_ts + (uint64_t)it->comp->duration_ns;
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
		take_first_stop_signals();
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
	give_back_stop_signals();
	destroy_iter(it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_tracefs_iter_finalize(bt_self_message_iterator *self)
{
	struct tracefs_iter *it = bt_self_message_iterator_get_data(self);

	/* Tracing stops now, not only when the component goes away. */
	if (it) {
		wperf_recorder_stop(it->comp->rec);
		give_back_stop_signals();
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

