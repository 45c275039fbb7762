/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-produce.c — source.wperf.tracefs' messages, phase
 * by phase: stream and packet beginnings, the synthetic statedump, the
 * recording merged across CPUs below the watermark (with the idle
 * switches tracefs-idle.c restores and the ready marker), the drain after
 * tracing stops, and the ends. The time order and the watermark are
 * described at the top of tracefs-source.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "tracefs-source.h"

/* ------------------------------------------------------------------ */
/* Producing messages, phase by phase                                   */
/* ------------------------------------------------------------------ */

static int produce_begin(struct tracefs_iter *it)
{
	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		if (tracefs_push(it, bt_message_stream_beginning_create(it->self,
				it->streams[cpu].stream)) ||
		    tracefs_begin_packet(it, cpu, it->start_ts))
			return -1;
	}
	it->packet_cut_ts = it->start_ts;
	/* A snapshot is all read already: its events, then the statedump. */
	it->phase = it->comp->snapshot ? PHASE_DRAINING : PHASE_STATEDUMP;
	return 1;
}

static bt_message *create_statedump_msg(struct tracefs_iter *it,
					bt_event_class *ec, bt_field **payload)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, ec, it->streams[0].packet, tracefs_monotonic_ts(it, it->sd_ts));

	if (msg)
		tracefs_set_event_tid(msg, -1);
	if (msg && payload)
		*payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	return msg;
}

static int emit_thread_state(struct tracefs_iter *it,
			     const struct wperf_thread_state *t)
{
	bt_field *p;
	bt_message *msg = create_statedump_msg(it, it->comp->ec_sd_process, &p);

	/* Member order: see wperf_statedump_process_layout. */
	if (msg) {
		wperf_payload_set_int(p, 0, t->tid);
		wperf_payload_set_int(p, 1, t->pid);
		wperf_payload_set_int(p, 2, t->ppid);
		wperf_payload_set_string(p, 3, t->name);
		wperf_payload_set_int(p, 4, t->type);
		wperf_payload_set_int(p, 5, t->status);
		wperf_payload_set_int(p, 6, t->cpu);
		wperf_idle_remember(&it->idle, t->tid, t->name, 20);
	}
	return tracefs_push(it, msg);
}

static int emit_block_device(struct tracefs_iter *it,
			     const struct wperf_block_device *d)
{
	bt_field *p;
	bt_message *msg = create_statedump_msg(it, it->comp->ec_sd_block, &p);

	if (msg) {
		wperf_payload_set_uint(p, 0, d->dev);
		wperf_payload_set_string(p, 1, d->name);
	}
	return tracefs_push(it, msg);
}

/* lttng_statedump_start, the block devices, the threads, then _end; all
 * stamped at the recording start, on CPU 0's stream. */
static int produce_statedump(struct tracefs_iter *it)
{
	struct tracefs_comp *comp = it->comp;
	size_t total = it->sd.ndisks + it->sd.nthreads;

	if (it->sd_next == 0 &&
	    tracefs_push(it, create_statedump_msg(it, comp->ec_sd_start, NULL)))
		return -1;
	for (int n = 0; n < EVENTS_PER_PRODUCE && it->sd_next < total; n++, it->sd_next++) {
		int ret = it->sd_next < it->sd.ndisks ?
			emit_block_device(it, &it->sd.disks[it->sd_next]) :
			emit_thread_state(it, &it->sd.threads[it->sd_next - it->sd.ndisks]);

		if (ret)
			return -1;
	}
	if (it->sd_next < total)
		return 1;
	if (tracefs_push(it, create_statedump_msg(it, comp->ec_sd_end, NULL)))
		return -1;
	wperf_statedump_free(&it->sd);
	it->phase = it->comp->snapshot ? PHASE_ENDING : PHASE_RECORDING;
	return 1;
}

/*
 * The CPU whose queued event is the oldest, if no CPU can still deliver an
 * older one; NULL when we must wait for more data.
 */
static struct wperf_cpu_reader *next_ready_cpu(struct wperf_recorder *rec)
{
	struct wperf_cpu_reader *oldest = NULL;
	uint64_t watermark = UINT64_MAX;

	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		if (!r->has_event) {
			if (r->delivered_until < watermark)
				watermark = r->delivered_until;
		} else if (!oldest || r->event_ts < oldest->event_ts) {
			oldest = r;
		}
	}
	return oldest && oldest->event_ts <= watermark ? oldest : NULL;
}

static int64_t payload_int(const bt_field *payload, uint64_t idx)
{
	return bt_field_integer_signed_get_value(
		bt_field_structure_borrow_member_field_by_index_const(payload, idx));
}

static const char *payload_string(const bt_field *payload, uint64_t idx)
{
	return bt_field_string_get_value(
		bt_field_structure_borrow_member_field_by_index_const(payload, idx));
}

/*
 * Follow who runs on each CPU and remember thread names, for restoring
 * untraced switches out of idle (tracefs-idle.h). Member indexes: see the
 * sched_switch and wakeup layouts in tracefs-layout.c.
 */
static void note_sched_event(struct tracefs_iter *it,
			     const struct wperf_bound_layout *b, int cpu,
			     const bt_field *payload)
{
	if (b->is_switch) {
		wperf_idle_remember(&it->idle, payload_int(payload, 1),
				    payload_string(payload, 0), payload_int(payload, 2));
		wperf_idle_remember(&it->idle, payload_int(payload, 5),
				    payload_string(payload, 4), payload_int(payload, 6));
		wperf_idle_set_current(&it->idle, cpu, payload_int(payload, 5));
	} else if (b->is_wakeup) {
		wperf_idle_remember(&it->idle, payload_int(payload, 1),
				    payload_string(payload, 0), payload_int(payload, 2));
	}
}

/* Emit the sched_switch "idle -> tid" the kernel did not trace on cpu. */
static int emit_restored_switch(struct tracefs_iter *it, int cpu, int64_t tid,
				uint64_t ts)
{
	const struct wperf_thread_name *next = wperf_idle_lookup(&it->idle, tid);
	char idle_comm[16];
	bt_field *p;
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, it->comp->switch_layout->event_class,
		it->streams[cpu].packet, tracefs_monotonic_ts(it, ts));

	if (msg) {
		tracefs_set_event_tid(msg, 0);   /* the switch is the idle thread's */
		snprintf(idle_comm, sizeof(idle_comm), "swapper/%d", cpu);
		p = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
		wperf_payload_set_string(p, 0, idle_comm);
		wperf_payload_set_int(p, 1, 0);
		wperf_payload_set_int(p, 2, 20);   /* idle: kernel prio 120 */
		wperf_payload_set_int(p, 3, 0);    /* idle is always runnable */
		wperf_payload_set_string(p, 4, next ? next->comm : "");
		wperf_payload_set_int(p, 5, tid);
		wperf_payload_set_int(p, 6, next ? next->prio : 20);
	}
	wperf_idle_set_current(&it->idle, cpu, tid);
	it->idle.restored++;
	return tracefs_push(it, msg);
}

/*
 * ready-file: an event recorded after tracing was on came back through the
 * ring buffer, so the recording records. Say it once: write the file whole
 * (a reader waits for its newline). -1 with it->err set on failure.
 */
static int say_ready(struct tracefs_iter *it, uint64_t ts)
{
	const char *path = it->comp->ready_file;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	char line[32];
	int n = snprintf(line, sizeof(line), "%" PRIu64 "\n", ts);
	bool ok = fd >= 0 && write(fd, line, (size_t)n) == n;
	int e = errno;

	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		snprintf(it->err, sizeof(it->err), "parameter `ready-file`: cannot write "
			 "%.256s: %s", path, strerror(e));
		return -1;
	}
	it->ready_said = true;
	return 0;
}

static int emit_event(struct tracefs_iter *it, struct wperf_cpu_reader *r)
{
	struct tracefs_comp *comp = it->comp;
	struct tep_record record = {
		.ts = r->event_ts,
		.data = r->event_data,
		.size = kbuffer_event_size(r->kbuf),
		.cpu = r->cpu,
	};
	int id = tep_data_type(comp->rec->tep, &record);
	const struct wperf_bound_layout *b;
	bt_message *msg;
	bt_field *payload;
	int64_t pid;
	uint64_t ts;

	/* Any event, ours (the marker) or not, proves the buffer records. */
	if (comp->ready_file && !it->ready_said && r->event_ts >= it->ready_after_ts &&
	    say_ready(it, r->event_ts))
		return -1;
	if (id < 0 || id > comp->max_id || comp->bound_by_id[id] < 0)
		return 0;  /* not an event we enabled: nothing to say */
	b = &comp->bound[comp->bound_by_id[id]];
	if (r->event_ts < it->last_ts)
		it->clamped++;
	pid = tep_data_pid(comp->rec->tep, &record);
	/* A kernel stack is written right after its sched_switch with the
	 * thread that switched out as common_pid: that thread is not running
	 * again, even when idle came next. */
	if (!wperf_layout_by_stack_trigger(b->layout) &&
	    wperf_idle_switch_missing(&it->idle, r->cpu, pid) &&
	    emit_restored_switch(it, r->cpu, pid, r->event_ts))
		return -1;
	ts = tracefs_monotonic_ts(it, r->event_ts);
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, b->event_class, it->streams[r->cpu].packet, ts);
	if (!msg)
		return tracefs_push(it, NULL);
	tracefs_set_event_tid(msg, pid);
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	if (wperf_layout_fill(b, pid, &record, payload)) {
		bt_message_put_ref(msg);
		return tracefs_push(it, NULL);
	}
	note_sched_event(it, b, r->cpu, payload);
	return tracefs_push(it, msg);
}

/* Emit up to EVENTS_PER_PRODUCE events that are safe to emit. */
static int emit_ready_events(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	int emitted = 0;

	while (emitted < EVENTS_PER_PRODUCE) {
		struct wperf_cpu_reader *r = next_ready_cpu(rec);

		if (!r)
			break;
		if (r->event_ts > rec->read_until) {
			/* Read from a live buffer after the snapshot time. */
			wperf_recorder_advance(rec, r);
			continue;
		}
		if (r->missed_before_event) {
			if (tracefs_report_loss(it, r->cpu, r->event_ts,
					r->missed_before_event, true))
				return -1;
			r->missed_before_event = 0;
		}
		if (r->event_ts >= it->packet_cut_ts + PACKET_PERIOD_NS &&
		    tracefs_cut_packets(it, r->event_ts))
			return -1;
		if (emit_event(it, r))
			return -1;
		wperf_recorder_advance(rec, r);
		emitted++;
	}
	return emitted;
}

/* A ring-buffer page's size (4096 until the first read says otherwise). */
static uint64_t page_bytes(const struct wperf_recorder *rec)
{
	return (uint64_t)(rec->subbuf_size ? rec->subbuf_size : 4096);
}

/* The pages held now, in bytes. */
static uint64_t held_bytes(const struct wperf_recorder *rec)
{
	return (uint64_t)rec->queued_pages * page_bytes(rec);
}

/* What may be held while recording: what defer-mib allows, and two ring
 * buffers per CPU beyond it. */
static uint64_t held_cap(const struct tracefs_iter *it)
{
	return ((uint64_t)it->comp->defer_mib << 20) +
	       2 * (uint64_t)it->ncpus * (uint64_t)it->comp->buffer_size_kb * 1024;
}

int tracefs_poll_cpus(struct tracefs_iter *it, bool stopping)
{
	struct wperf_recorder *rec = it->comp->rec;
	int max_pages = (int)((uint64_t)it->comp->buffer_size_kb * 1024 / page_bytes(rec)) + 1;

	it->last_poll_ns = wperf_monotonic_ns();
	for (int i = 0; i < rec->ncpus; i++) {
		/* A CPU with nothing queued is read even then: its events
		 * bound what the others may emit (next_ready_cpu()). */
		if (!stopping && rec->cpus[i].has_event && held_bytes(rec) >= held_cap(it))
			continue;
		if (wperf_recorder_poll_cpu(rec, &rec->cpus[i], max_pages, stopping,
					    it->err, sizeof(it->err)) < 0)
			return -1;
	}
	return 0;
}

/* A backlog (what a deferral held, or a burst) is converted a few hundred
 * events per call: the ring buffers are read meanwhile at least as often
 * as when idle, or they would overflow while it lasts. */
static bool poll_due(const struct tracefs_iter *it)
{
	return wperf_monotonic_ns() - it->last_poll_ns >= IDLE_SLEEP_NS;
}

/* The room deferred pages need once converted: the trace they become
 * is about as large (ftrace's records and CTF's are alike), so twice
 * what is held, and a margin for everything else writing there. */
#define DEFER_ROOM_MARGIN (UINT64_C(128) << 20)

static bool room_for_deferred(const struct tracefs_iter *it, uint64_t held)
{
	struct statvfs st;

	if (!it->comp->room_path)
		return true;
	if (statvfs(it->comp->room_path, &st) != 0)
		return false;
	return (uint64_t)st.f_bavail * st.f_frsize >= 2 * held + DEFER_ROOM_MARGIN;
}

/*
 * defer-mib: while the program records, read the ring buffers only, and
 * turn the pages into messages once the recording stops. Making messages
 * is the recorder's main cost (doc/performance.md); the program's CPUs
 * are then spared it while it is measured. Not before the ready line
 * (the command waits for it, and it is said when an event is emitted),
 * and never again once too much is held: from then on the pages are
 * converted as they are read, as without defer-mib.
 */
static bool deferring(struct tracefs_iter *it)
{
	struct tracefs_comp *comp = it->comp;
	uint64_t held = held_bytes(comp->rec);

	if (!comp->defer_mib || it->deferral_over || (comp->ready_file && !it->ready_said))
		return false;
	if (held >= (uint64_t)comp->defer_mib << 20 || !room_for_deferred(it, held))
		it->deferral_over = true;
	return !it->deferral_over;
}

static int produce_recording(struct tracefs_iter *it)
{
	int n;

	if (tracefs_should_stop(it)) {
		wperf_recorder_stop(it->comp->rec);
		it->stop_ts = wperf_monotonic_ns();
		it->phase = PHASE_DRAINING;
		return 1;
	}
	if (deferring(it))
		return tracefs_poll_cpus(it, false) ? -1 : 0;
	if (poll_due(it) && tracefs_poll_cpus(it, false))
		return -1;
	n = emit_ready_events(it);
	if (n != 0)
		return n;
	if (tracefs_poll_cpus(it, false))
		return -1;
	return emit_ready_events(it);
}

static bool all_drained(struct wperf_recorder *rec)
{
	for (int i = 0; i < rec->ncpus; i++)
		if (!rec->cpus[i].drained || rec->cpus[i].has_event)
			return false;
	return true;
}

static int produce_draining(struct tracefs_iter *it)
{
	int n = emit_ready_events(it);

	if (n != 0)
		return n;
	if (all_drained(it->comp->rec)) {
		it->phase = it->comp->snapshot ? PHASE_STATEDUMP : PHASE_ENDING;
		return 1;
	}
	if (tracefs_poll_cpus(it, true))
		return -1;
	return 1;  /* progress: each poll drains or queues more */
}

/* Losses the pages did not announce (per_cpu stats), then the ends. */
static int produce_ending(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	uint64_t end = it->stop_ts > it->last_ts ? it->stop_ts : it->last_ts;

	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		/* A flight recorder's counters count the history it overwrote
		 * on purpose: not a loss inside the snapshot. */
		int64_t lost = it->comp->snapshot ? 0 : wperf_recorder_lost_events(rec, cpu);
		int64_t unreported = lost - (int64_t)rec->cpus[cpu].missed_reported;

		if (lost > 0 && unreported > 0 &&
		    tracefs_report_loss(it, cpu, end, unreported, false))
			return -1;
		if (it->streams[cpu].packet && tracefs_end_packet(it, cpu, end))
			return -1;
		if (tracefs_push(it, bt_message_stream_end_create(it->self,
				it->streams[cpu].stream)))
			return -1;
	}
	it->phase = PHASE_DONE;
	return 1;
}

/* Make some messages; 1 = progress, 0 = nothing to do yet, -1 = error. */
int tracefs_produce(struct tracefs_iter *it)
{
	switch (it->phase) {
	case PHASE_BEGIN:     return produce_begin(it);
	case PHASE_STATEDUMP: return produce_statedump(it);
	case PHASE_RECORDING: return produce_recording(it);
	case PHASE_DRAINING:  return produce_draining(it);
	case PHASE_ENDING:    return produce_ending(it);
	default:              return 0;
	}
}

