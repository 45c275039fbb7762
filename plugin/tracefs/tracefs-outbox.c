/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-outbox.c — the messages source.wperf.tracefs has
 * made and not yet handed out, in time order: the queue, the per-CPU
 * packets (begun, ended, cut every PACKET_PERIOD_NS) and the lost events
 * between them. The producer (tracefs-produce.c) fills it, the iterator
 * (tracefs-source.c) empties it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "tracefs-source.h"

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
