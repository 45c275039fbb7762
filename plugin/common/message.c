/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/message.c — a message's stream and default clock
 * snapshot, whatever its type (message.h).
 */
#include "message.h"

const bt_stream *wperf_message_stream(const bt_message *msg)
{
	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		return bt_event_borrow_stream_const(bt_message_event_borrow_event_const(msg));
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return bt_message_stream_beginning_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_STREAM_END:
		return bt_message_stream_end_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return bt_packet_borrow_stream_const(bt_message_packet_beginning_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_PACKET_END:
		return bt_packet_borrow_stream_const(bt_message_packet_end_borrow_packet_const(msg));
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return bt_message_discarded_events_borrow_stream_const(msg);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return bt_message_discarded_packets_borrow_stream_const(msg);
	default:
		return NULL;
	}
}

const bt_clock_snapshot *wperf_message_time(const bt_message *msg)
{
	const bt_clock_snapshot *cs = NULL;
	const bt_stream_class *sc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:
		if (bt_message_event_borrow_stream_class_default_clock_class_const(msg))
			cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_beginning_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_beginning_default_clock_snapshot(sc))
			cs = bt_message_packet_beginning_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_PACKET_END:
		sc = bt_stream_borrow_class_const(bt_packet_borrow_stream_const(
			bt_message_packet_end_borrow_packet_const(msg)));
		if (bt_stream_class_packets_have_end_default_clock_snapshot(sc))
			cs = bt_message_packet_end_borrow_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		/* A stream may begin or end at a time its source cannot tell. */
		if (bt_message_stream_beginning_borrow_stream_class_default_clock_class_const(msg) &&
		    bt_message_stream_beginning_borrow_default_clock_snapshot_const(msg, &cs) !=
		    BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN)
			cs = NULL;
		break;
	case BT_MESSAGE_TYPE_STREAM_END:
		if (bt_message_stream_end_borrow_stream_class_default_clock_class_const(msg) &&
		    bt_message_stream_end_borrow_default_clock_snapshot_const(msg, &cs) !=
		    BT_MESSAGE_STREAM_CLOCK_SNAPSHOT_STATE_KNOWN)
			cs = NULL;
		break;
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_events_borrow_stream_const(msg));
		if (bt_stream_class_discarded_events_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_events_borrow_beginning_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		sc = bt_stream_borrow_class_const(
			bt_message_discarded_packets_borrow_stream_const(msg));
		if (bt_stream_class_discarded_packets_have_default_clock_snapshots(sc))
			cs = bt_message_discarded_packets_borrow_beginning_default_clock_snapshot_const(msg);
		break;
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		cs = bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
		break;
	}
	return cs;
}
