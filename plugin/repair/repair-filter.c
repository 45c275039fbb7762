/* SPDX-License-Identifier: MIT */
/*
 * plugin/repair/repair-filter.c — filter.wperf.repair: forwards a trace
 * unchanged except for packet ends stamped after the beginning of the
 * stream's next packet, which it moves back to that beginning.
 *
 * Why: lttng-modules before 2.9.13, 2.10.10 and 2.11 (and lttng-ust before
 * 2.11) could read a packet's end time after the next packet had begun.
 * source.ctf.fs knows this bug (its "lttng-event-after-packet" quirk) and
 * repairs its packet index with the same rule, but it still stamps the
 * packet end message with the packet's own end time, so the stream's
 * messages go back in time (by about a microsecond) and
 * filter.utils.muxer stops the graph. Placed between a source's output
 * port and the muxer, this filter keeps each stream's packet end until
 * the stream's next message and, when that is a packet beginning earlier
 * than the end, emits the end at the beginning's time instead. It never
 * moves an end before the packet's last event (then the stream itself
 * goes back in time, and the muxer says so). It says on standard error
 * how many ends it moved, once, when the graph is done.
 */
#include <babeltrace2/babeltrace.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/comp-error.h"
#include "common/message.h"
#include "common/params.h"
#include "components.h"

#define COMP_NAME "filter.wperf.repair"

const char wperf_repair_description[] =
	"Move back packet ends stamped after the next packet's beginning "
	"(old LTTng tracers), so filter.utils.muxer accepts the trace.";

const char wperf_repair_help[] =
	"Put one filter.wperf.repair between each output port of a source and\n"
	"filter.utils.muxer. It forwards every message unchanged, except a\n"
	"packet end whose time is after the beginning of the same stream's next\n"
	"packet (a bug of lttng-modules before 2.9.13, 2.10.10 and 2.11): that\n"
	"end is emitted at the next packet's beginning. No parameters.\n"
	"wperf report inserts it itself.\n";

struct repair_comp {
	bt_self_component_port_input *in_port;
	uint64_t moved;          /* packet ends moved back, all iterators */
	int64_t max_moved_cycles; /* the largest move */
};

/* A stream's packet end waiting for the stream's next message. */
struct held_end {
	const bt_stream *stream;
	const bt_message *end;   /* owned, or NULL */
	uint64_t last_cycles;    /* the stream's last event time */
	bool has_last;
};

struct repair_iter {
	bt_self_message_iterator *self;
	bt_message_iterator *up;
	struct repair_comp *comp;
	struct held_end *held;
	size_t nheld, capheld;
	const bt_message **queue; /* owned messages ready to go out */
	size_t qhead, qlen, qcap;
	bool ended;               /* upstream said END: never call it again */
};

/* ---------------------------------------------------------- component */

bt_component_class_initialize_method_status wperf_repair_init(
	bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	const bt_value *params, void *init_data)
{
	static const char *const known[] = { NULL };
	char err[256];
	struct repair_comp *comp;

	(void)config;
	(void)init_data;
	if (params && wperf_params_check_known(params, known, err, sizeof(err)) < 0) {
		WPERF_COMP_ERROR(bt_self_component_filter_as_self_component(self), COMP_NAME,
				 "%s (it takes no parameters)", err);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	comp = calloc(1, sizeof(*comp));
	if (!comp)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (bt_self_component_filter_add_input_port(self, "in", NULL, &comp->in_port) ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL)) {
		free(comp);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void wperf_repair_finalize(bt_self_component_filter *self)
{
	struct repair_comp *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self));

	if (comp && comp->moved)
		fprintf(stderr, "%s: %" PRIu64 " packet end%s stamped after the next packet's "
			"beginning moved back to it (by at most %" PRId64 " clock cycles; "
			"a known bug of lttng-modules before 2.9.13, 2.10.10 and 2.11)\n",
			COMP_NAME, comp->moved, comp->moved == 1 ? "" : "s",
			comp->max_moved_cycles);
	free(comp);
}

/* ----------------------------------------------------------- iterator */

bt_message_iterator_class_initialize_method_status wperf_repair_iter_init(
	bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port)
{
	bt_self_component *sc = bt_self_message_iterator_borrow_component(self);
	struct repair_comp *comp = bt_self_component_get_data(sc);
	struct repair_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->self = self;
	it->comp = comp;
	if (bt_message_iterator_create_from_message_iterator(self, comp->in_port, &it->up) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		WPERF_ITER_ERROR(self, COMP_NAME, "cannot create the upstream message iterator");
		free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void wperf_repair_iter_finalize(bt_self_message_iterator *self)
{
	struct repair_iter *it = bt_self_message_iterator_get_data(self);

	if (!it)
		return;
	for (size_t i = 0; i < it->nheld; i++)
		bt_message_put_ref(it->held[i].end);
	for (size_t i = it->qhead; i < it->qlen; i++)
		bt_message_put_ref(it->queue[i]);
	free(it->held);
	free(it->queue);
	bt_message_iterator_put_ref(it->up);
	free(it);
}

/* Append an owned message to the output queue; -1 when out of memory
 * (the message is then released). */
static int enqueue(struct repair_iter *it, const bt_message *m)
{
	if (it->qhead == it->qlen)
		it->qhead = it->qlen = 0;
	if (it->qlen == it->qcap) {
		size_t cap = it->qcap ? it->qcap * 2 : 64;
		const bt_message **q = realloc(it->queue, cap * sizeof(*q));

		if (!q) {
			bt_message_put_ref(m);
			return -1;
		}
		it->queue = q;
		it->qcap = cap;
	}
	it->queue[it->qlen++] = m;
	return 0;
}

/* The state of a stream, created on its first message; NULL when out of
 * memory. */
static struct held_end *stream_state(struct repair_iter *it, const bt_stream *s)
{
	for (size_t i = 0; i < it->nheld; i++)
		if (it->held[i].stream == s)
			return &it->held[i];
	if (it->nheld == it->capheld) {
		size_t cap = it->capheld ? it->capheld * 2 : 8;
		struct held_end *h = realloc(it->held, cap * sizeof(*h));

		if (!h)
			return NULL;
		it->held = h;
		it->capheld = cap;
	}
	it->held[it->nheld] = (struct held_end){ .stream = s };
	return &it->held[it->nheld++];
}

/* The held end of h, at the time of `next` (a packet beginning of the
 * same stream) when it was stamped after it and the packet's last event
 * allows; enqueued. */
static int release_end(struct repair_iter *it, struct held_end *h, const bt_message *next)
{
	const bt_message *end = h->end;
	const bt_packet *packet = bt_message_packet_end_borrow_packet_const(end);
	const bt_stream_class *sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(packet));

	h->end = NULL;
	if (next && bt_message_get_type(next) == BT_MESSAGE_TYPE_PACKET_BEGINNING &&
	    bt_stream_class_packets_have_end_default_clock_snapshot(sc) &&
	    bt_stream_class_packets_have_beginning_default_clock_snapshot(sc)) {
		uint64_t end_at = bt_clock_snapshot_get_value(
			bt_message_packet_end_borrow_default_clock_snapshot_const(end));
		uint64_t begin_at = bt_clock_snapshot_get_value(
			bt_message_packet_beginning_borrow_default_clock_snapshot_const(next));

		if (begin_at < end_at && (!h->has_last || h->last_cycles <= begin_at)) {
			bt_message *moved = bt_message_packet_end_create_with_default_clock_snapshot(
				it->self, packet, begin_at);

			if (!moved) {
				bt_message_put_ref(end);
				return -1;
			}
			if ((int64_t)(end_at - begin_at) > it->comp->max_moved_cycles)
				it->comp->max_moved_cycles = (int64_t)(end_at - begin_at);
			it->comp->moved++;
			bt_message_put_ref(end);
			end = moved;
		}
	}
	return enqueue(it, end);
}

/* Release every held end as it is (before a message of no stream). */
static int release_all(struct repair_iter *it)
{
	for (size_t i = 0; i < it->nheld; i++)
		if (it->held[i].end && release_end(it, &it->held[i], NULL) < 0)
			return -1;
	return 0;
}

/* Take one upstream message (owned): hold it, or queue it after its
 * stream's held end. */
static int take(struct repair_iter *it, const bt_message *m)
{
	const bt_stream *s = wperf_message_stream(m);
	struct held_end *h;

	if (!s) {
		if (release_all(it) < 0) {
			bt_message_put_ref(m);
			return -1;
		}
		return enqueue(it, m);
	}
	if (!(h = stream_state(it, s))) {
		bt_message_put_ref(m);
		return -1;
	}
	if (h->end && release_end(it, h, m) < 0) {
		bt_message_put_ref(m);
		return -1;
	}
	switch (bt_message_get_type(m)) {
	case BT_MESSAGE_TYPE_PACKET_END:
		h->end = m;
		return 0;
	case BT_MESSAGE_TYPE_EVENT:
		if (bt_stream_class_borrow_default_clock_class_const(bt_stream_borrow_class_const(s))) {
			h->last_cycles = bt_clock_snapshot_get_value(
				bt_message_event_borrow_default_clock_snapshot_const(m));
			h->has_last = true;
		}
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		h->has_last = false;
		break;
	default:
		break;
	}
	return enqueue(it, m);
}

/* Fill the queue from upstream: OK (something queued), END, AGAIN or an
 * error status. */
static bt_message_iterator_class_next_method_status fill(struct repair_iter *it)
{
	while (it->qhead == it->qlen) {
		bt_message_array_const in;
		uint64_t n = 0;

		if (it->ended)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		switch (bt_message_iterator_next(it->up, &in, &n)) {
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
			break;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
			it->ended = true;
			if (release_all(it) < 0)
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
			continue;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
		case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
		default:
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		for (uint64_t i = 0; i < n; i++) {
			if (take(it, in[i]) < 0) {
				while (++i < n)
					bt_message_put_ref(in[i]);
				return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
			}
		}
	}
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

bt_message_iterator_class_next_method_status wperf_repair_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count)
{
	struct repair_iter *it = bt_self_message_iterator_get_data(self);
	bt_message_iterator_class_next_method_status st = fill(it);
	uint64_t n = 0;

	if (st != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
		return st;
	while (n < capacity && it->qhead < it->qlen)
		msgs[n++] = it->queue[it->qhead++];
	*count = n;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
