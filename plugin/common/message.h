/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/message.h — what any babeltrace2 message carries whatever
 * its type: the stream it belongs to and its default clock snapshot. The
 * one place that knows which message types carry which, so the decoder,
 * the knots sink's host synchronisation and the repair filter read them
 * alike. Every accessor's precondition is checked first: the library
 * does not check them at run time.
 */
#ifndef WPERF_PLUGIN_MESSAGE_H
#define WPERF_PLUGIN_MESSAGE_H

#include <babeltrace2/babeltrace.h>

/* The stream msg belongs to (borrowed), or NULL (an iterator's
 * inactivity message belongs to none). */
const bt_stream *wperf_message_stream(const bt_message *msg);

/*
 * msg's default clock snapshot (borrowed from msg), or NULL when it has
 * none: an event or packet of a stream without a clock (or without packet
 * times), a stream beginning or end of unknown time. Discarded events and
 * packets give their beginning, the time muxers order them by; an
 * inactivity message, its one snapshot.
 */
const bt_clock_snapshot *wperf_message_time(const bt_message *msg);

#endif
