/* SPDX-License-Identifier: MIT */
/*
 * plugin/waits/waits-trace.c — the `wperf` trace of filter.wperf.waits: its
 * classes, its one stream, and the messages that carry segments.
 *
 * Everything is created lazily by the filter when the first segment
 * closes, because only then do we know the upstream kernel clock to copy.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "waits-trace.h"

#define NS_PER_S INT64_C(1000000000)

/*
 * sink.ctf.fs writes a packet as one block and readers index packets, so
 * keep them a reasonable size instead of one packet for the whole run.
 */
#define WAITS_EVENTS_PER_PACKET 4096

/* The payload of `wperf:segment`, in field order. */
enum payload_field {
	F_VERTEX, F_TID, F_PID, F_NAME, F_STATE, F_START, F_DURATION,
	F_WAKER, F_WAKER_NAME, F_WAKER_KIND, F_CASCADE, F_COUNT
};

enum field_type { T_U64, T_S64, T_STRING };

static const struct {
	const char *name;
	enum field_type type;
} payload_fields[F_COUNT] = {
	[F_VERTEX] = { "vertex", T_U64 },
	[F_TID] = { "tid", T_S64 },
	[F_PID] = { "pid", T_S64 },
	[F_NAME] = { "name", T_STRING },
	[F_STATE] = { "state", T_STRING },
	[F_START] = { "start", T_S64 },
	[F_DURATION] = { "duration", T_S64 },
	[F_WAKER] = { "waker", T_S64 },
	[F_WAKER_NAME] = { "waker_name", T_STRING },
	[F_WAKER_KIND] = { "waker_kind", T_STRING },
	[F_CASCADE] = { "cascade", T_S64 },
};

/* A string whose length is known (see set_string_len()). */
struct const_str {
	const char *s;
	size_t len;
};

#define N_STATES (WPERF_SEG_WAITING + 1)

struct waits_trace {
	bt_self_message_iterator *self;  /* messages are created for it */
	bt_trace_class *trace_class;
	bt_clock_class *clock_class;
	const bt_clock_class *model_clock;  /* the kernel clock ours copies (ref) */
	bt_stream_class *stream_class;
	bt_event_class *event_class;
	bt_trace *trace;
	bt_stream *stream;
	bt_packet *packet;               /* the open packet, NULL if none */
	uint64_t events_in_packet;
	bool stream_begun, stream_ended;
	uint64_t last_cycles;            /* latest time emitted, our clock */
	/* Our clock's frequency and offset, read once: they are fixed when
	 * the clock is copied (see same_clock()). */
	uint64_t frequency;
	int64_t offset_seconds;
	uint64_t offset_cycles;
	struct const_str state_names[N_STATES];
	struct const_str kind_names[WPERF_V_KIND_COUNT];
};

static void measure_names(struct waits_trace *t);

/* ---- The output queue ------------------------------------------------ */

int waits_queue_push(struct waits_queue *q, const bt_message *msg)
{
	if (q->head == q->len)
		q->head = q->len = 0;    /* all handed out: reuse from the start */
	if (q->len == q->cap) {
		size_t cap = q->cap ? q->cap * 2 : 256;
		const bt_message **msgs = realloc(q->msgs, cap * sizeof(*msgs));
		if (!msgs) {
			bt_message_put_ref(msg);
			return -1;
		}
		q->msgs = msgs;
		q->cap = cap;
	}
	q->msgs[q->len++] = msg;
	return 0;
}

uint64_t waits_queue_pop(struct waits_queue *q, bt_message_array_const out,
			 uint64_t capacity)
{
	uint64_t n = 0;

	while (n < capacity && q->head < q->len)
		out[n++] = q->msgs[q->head++];
	return n;
}

bool waits_queue_is_empty(const struct waits_queue *q)
{
	return q->head == q->len;
}

void waits_queue_fini(struct waits_queue *q)
{
	while (q->head < q->len)
		bt_message_put_ref(q->msgs[q->head++]);
	free(q->msgs);
	*q = (struct waits_queue){ 0 };
}

/* ---- Times ------------------------------------------------------------ */

/* Make t's clock `clock`, moving the reference (rarely: one clock per trace). */
static void set_clock(struct waits_time *t, const bt_clock_class *clock)
{
	if (clock == t->clock)
		return;
	bt_clock_class_get_ref(clock);
	bt_clock_class_put_ref(t->clock);
	t->clock = clock;
}

void waits_time_advance(struct waits_time *t, const bt_clock_snapshot *cs)
{
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK || (t->known && ns < t->ns))
		return;
	t->ns = ns;
	t->cycles = bt_clock_snapshot_get_value(cs);
	set_clock(t, bt_clock_snapshot_borrow_clock_class_const(cs));
	t->known = true;
}

void waits_time_set_ns(struct waits_time *t, int64_t ns)
{
	set_clock(t, NULL);
	t->ns = ns;
	t->cycles = 0;
	t->known = true;
}

void waits_time_fini(struct waits_time *t)
{
	set_clock(t, NULL);
}

/* a * b / NS_PER_S rounded up, for 0 <= a < NS_PER_S, without overflow for
 * any frequency b a real clock has. */
static uint64_t mul_div_ceil_ns(uint64_t a, uint64_t b)
{
	uint64_t whole = a * (b / NS_PER_S);
	uint64_t rest = a * (b % NS_PER_S);  /* < 10^18: fits */

	return whole + rest / NS_PER_S + (rest % NS_PER_S != 0);
}

/*
 * The smallest value of our clock whose time is at or after ns (0 when ns
 * is before the clock's offset). Rounding up, not down, so that a segment
 * stamped "at" an upstream message of another clock never lands before it.
 */
static uint64_t cycles_at_or_after(const bt_clock_class *cc, int64_t ns)
{
	uint64_t freq = bt_clock_class_get_frequency(cc);
	int64_t off_s, sec = ns / NS_PER_S, sub = ns % NS_PER_S;
	uint64_t off_c, total, v;

	bt_clock_class_get_offset(cc, &off_s, &off_c);
	if (sub < 0) {
		sub += NS_PER_S;
		sec--;
	}
	if (sec < off_s)
		return 0;
	if ((uint64_t)(sec - off_s) > UINT64_MAX / freq / 2)
		return UINT64_MAX / 2;   /* absurdly far: saturate */
	total = (uint64_t)(sec - off_s) * freq + mul_div_ceil_ns((uint64_t)sub, freq);
	if (total <= off_c)
		return 0;
	v = total - off_c;

	/* Agree with the library's own conversion, whatever its rounding. */
	for (int i = 0; i < 4; i++) {
		int64_t got;

		if (bt_clock_class_cycles_to_ns_from_origin(cc, v, &got) !=
		    BT_CLOCK_CLASS_CYCLES_TO_NS_FROM_ORIGIN_STATUS_OK || got >= ns)
			break;
		v++;
	}
	return v;
}

/*
 * Whether `at`'s raw value can be reused as ours: its clock is the kernel
 * clock we copied, or another with the same frequency and offset (then a
 * value means the same instant in both). The pointer test settles almost
 * every segment without asking the library for the clock's parameters.
 */
static bool same_clock(const struct waits_trace *t, const struct waits_time *at)
{
	int64_t off_s;
	uint64_t off_c;

	if (!at->clock)
		return false;
	if (at->clock == t->model_clock)
		return true;
	bt_clock_class_get_offset(at->clock, &off_s, &off_c);
	return bt_clock_class_get_frequency(at->clock) == t->frequency &&
	       off_s == t->offset_seconds && off_c == t->offset_cycles;
}

/* Our clock's value for `at`, never before what we already emitted. */
static uint64_t next_cycles(struct waits_trace *t, const struct waits_time *at)
{
	uint64_t v = t->last_cycles;

	if (at->known)
		v = same_clock(t, at) ? at->cycles
						   : cycles_at_or_after(t->clock_class, at->ns);
	if (v < t->last_cycles)
		v = t->last_cycles;
	t->last_cycles = v;
	return v;
}

/* ---- Classes ---------------------------------------------------------- */

static bt_clock_class *copy_clock_class(bt_self_component *comp,
					const bt_clock_class *model)
{
	bt_clock_class *cc = bt_clock_class_create(comp);
	const char *name = bt_clock_class_get_name(model);
	const char *descr = bt_clock_class_get_description(model);
	bt_uuid uuid = bt_clock_class_get_uuid(model);
	int64_t off_s;
	uint64_t off_c;

	if (!cc)
		return NULL;
	if ((name && bt_clock_class_set_name(cc, name)) ||
	    (descr && bt_clock_class_set_description(cc, descr))) {
		bt_clock_class_put_ref(cc);
		return NULL;
	}
	bt_clock_class_get_offset(model, &off_s, &off_c);
	bt_clock_class_set_frequency(cc, bt_clock_class_get_frequency(model));
	bt_clock_class_set_offset(cc, off_s, off_c);
	bt_clock_class_set_precision(cc, bt_clock_class_get_precision(model));
	bt_clock_class_set_origin_is_unix_epoch(cc,
		bt_clock_class_origin_is_unix_epoch(model));
	if (uuid)
		bt_clock_class_set_uuid(cc, uuid);
	return cc;
}

static bt_field_class *make_payload_class(bt_trace_class *tc)
{
	bt_field_class *payload = bt_field_class_structure_create(tc);

	if (!payload)
		return NULL;
	for (int i = 0; i < F_COUNT; i++) {
		bt_field_class *member;
		int status;

		switch (payload_fields[i].type) {
		case T_U64:
			member = bt_field_class_integer_unsigned_create(tc);
			break;
		case T_S64:
			member = bt_field_class_integer_signed_create(tc);
			break;
		default:
			member = bt_field_class_string_create(tc);
			break;
		}
		if (!member)
			goto error;
		status = bt_field_class_structure_append_member(payload,
			payload_fields[i].name, member);
		bt_field_class_put_ref(member);
		if (status)
			goto error;
	}
	return payload;
error:
	bt_field_class_put_ref(payload);
	return NULL;
}

/* Trace class, stream class and event class, with our clock. 0 or -1. */
static int make_classes(struct waits_trace *t, bt_self_component *comp)
{
	bt_field_class *payload;
	int status;

	t->trace_class = bt_trace_class_create(comp);
	if (!t->trace_class)
		return -1;
	t->stream_class = bt_stream_class_create(t->trace_class);
	if (!t->stream_class || bt_stream_class_set_name(t->stream_class, "wperf") ||
	    bt_stream_class_set_default_clock_class(t->stream_class, t->clock_class))
		return -1;
	/* Packets with both times, so sink.ctf.fs writes real packet bounds. */
	bt_stream_class_set_supports_packets(t->stream_class, BT_TRUE, BT_TRUE, BT_TRUE);

	t->event_class = bt_event_class_create(t->stream_class);
	if (!t->event_class || bt_event_class_set_name(t->event_class, "wperf:segment"))
		return -1;
	payload = make_payload_class(t->trace_class);
	if (!payload)
		return -1;
	status = bt_event_class_set_payload_field_class(t->event_class, payload);
	bt_field_class_put_ref(payload);
	return status ? -1 : 0;
}

struct waits_trace *waits_trace_create(bt_self_message_iterator *self,
				       const bt_clock_class *kernel_clock,
				       char *err, size_t errlen)
{
	bt_self_component *comp = bt_self_message_iterator_borrow_component(self);
	struct waits_trace *t = calloc(1, sizeof(*t));

	if (!t)
		goto error;
	t->self = self;
	t->model_clock = kernel_clock;
	bt_clock_class_get_ref(kernel_clock);
	t->clock_class = copy_clock_class(comp, kernel_clock);
	if (!t->clock_class || make_classes(t, comp))
		goto error;
	t->frequency = bt_clock_class_get_frequency(t->clock_class);
	bt_clock_class_get_offset(t->clock_class, &t->offset_seconds, &t->offset_cycles);
	measure_names(t);
	t->trace = bt_trace_create(t->trace_class);
	/* The name is the contract with sinks: "wperf" traces are ours
	 * (the decoder skips them, sink.ctf.fs names the directory after it). */
	if (!t->trace || bt_trace_set_name(t->trace, "wperf"))
		goto error;
	t->stream = bt_stream_create(t->stream_class, t->trace);
	if (!t->stream || bt_stream_set_name(t->stream, "segments"))
		goto error;
	return t;
error:
	snprintf(err, errlen, "out of memory while creating the `wperf` segment trace");
	waits_trace_destroy(t);
	return NULL;
}

void waits_trace_destroy(struct waits_trace *t)
{
	if (!t)
		return;
	bt_packet_put_ref(t->packet);
	bt_stream_put_ref(t->stream);
	bt_trace_put_ref(t->trace);
	bt_event_class_put_ref(t->event_class);
	bt_stream_class_put_ref(t->stream_class);
	bt_clock_class_put_ref(t->clock_class);
	bt_clock_class_put_ref(t->model_clock);
	bt_trace_class_put_ref(t->trace_class);
	free(t);
}

/* ---- Messages --------------------------------------------------------- */

static int out_of_memory(char *err, size_t errlen)
{
	snprintf(err, errlen, "out of memory while emitting `wperf:segment` events");
	return -1;
}

static int begin_packet(struct waits_trace *t, uint64_t cycles, struct waits_queue *q)
{
	bt_message *msg;

	t->packet = bt_packet_create(t->stream);
	if (!t->packet)
		return -1;
	t->events_in_packet = 0;
	msg = bt_message_packet_beginning_create_with_default_clock_snapshot(
		t->self, t->packet, cycles);
	return msg ? waits_queue_push(q, msg) : -1;
}

static int end_packet(struct waits_trace *t, uint64_t cycles, struct waits_queue *q)
{
	bt_message *msg = bt_message_packet_end_create_with_default_clock_snapshot(
		t->self, t->packet, cycles);

	bt_packet_put_ref(t->packet);
	t->packet = NULL;
	return msg ? waits_queue_push(q, msg) : -1;
}

static int begin_stream(struct waits_trace *t, uint64_t cycles, struct waits_queue *q)
{
	bt_message *msg = bt_message_stream_beginning_create(t->self, t->stream);

	if (!msg)
		return -1;
	bt_message_stream_beginning_set_default_clock_snapshot(msg, cycles);
	t->stream_begun = true;
	return waits_queue_push(q, msg);
}

/* Open the stream and a packet before the first event; start a new packet
 * when the current one is full. */
static int make_room_for_event(struct waits_trace *t, uint64_t cycles,
			       struct waits_queue *q)
{
	if (!t->stream_begun)
		return begin_stream(t, cycles, q) || begin_packet(t, cycles, q) ? -1 : 0;
	if (t->events_in_packet >= WAITS_EVENTS_PER_PACKET)
		return end_packet(t, cycles, q) || begin_packet(t, cycles, q) ? -1 : 0;
	return 0;
}

static void set_int(bt_field *payload, enum payload_field i, int64_t v)
{
	bt_field *f = bt_field_structure_borrow_member_field_by_index(payload, i);

	if (payload_fields[i].type == T_U64)
		bt_field_integer_unsigned_set_value(f, (uint64_t)v);
	else
		bt_field_integer_signed_set_value(f, v);
}

static int set_string(bt_field *payload, enum payload_field i, const char *s)
{
	bt_field *f = bt_field_structure_borrow_member_field_by_index(payload, i);

	return bt_field_string_set_value(f, s ? s : "") ? -1 : 0;
}

/* A string whose length we know (the state and kind names, ""): what
 * bt_field_string_set_value() does, without its strlen(). Every segment
 * sets four strings; this one is per-segment work worth trimming. */
static int set_string_len(bt_field *payload, enum payload_field i, const char *s,
			  size_t len)
{
	bt_field *f = bt_field_structure_borrow_member_field_by_index(payload, i);

	/* Appending even "" matters: clearing only sets the length to 0, and
	 * bt_field_string_get_value() would still return a recycled event's
	 * old string (babeltrace2 2.0, clear_string_field()). */
	bt_field_string_clear(f);
	return bt_field_string_append_with_length(f, s, len) ? -1 : 0;
}

static struct const_str const_str_of(const char *s)
{
	return (struct const_str){ s, strlen(s) };
}

/* The state and kind names, measured once per trace. */
static void measure_names(struct waits_trace *t)
{
	for (int i = 0; i < N_STATES; i++)
		t->state_names[i] = const_str_of(
			wperf_segment_state_name((enum wperf_segment_state)i));
	for (int i = 0; i < WPERF_V_KIND_COUNT; i++)
		t->kind_names[i] = const_str_of(wperf_vertex_kind_name((enum wperf_vertex_kind)i));
}

static struct const_str state_name(const struct waits_trace *t, enum wperf_segment_state st)
{
	return (unsigned)st < N_STATES ? t->state_names[st]
		: const_str_of(wperf_segment_state_name(st));
}

static struct const_str kind_name(const struct waits_trace *t, enum wperf_vertex_kind k)
{
	return (unsigned)k < WPERF_V_KIND_COUNT ? t->kind_names[k]
		: const_str_of(wperf_vertex_kind_name(k));
}

static int fill_payload(const struct waits_trace *t, bt_field *payload,
			const struct wperf_segment *seg)
{
	bool waiting = seg->state == WPERF_SEG_WAITING && seg->waker != UINT32_MAX;
	struct const_str state = state_name(t, seg->state);
	struct const_str kind = waiting ? kind_name(t, seg->waker_kind)
					: (struct const_str){ "", 0 };

	set_int(payload, F_VERTEX, seg->vertex);
	set_int(payload, F_TID, seg->tid);
	set_int(payload, F_PID, seg->pid);
	set_int(payload, F_START, seg->start_ns);
	set_int(payload, F_DURATION, seg->end_ns - seg->start_ns);
	set_int(payload, F_WAKER, waiting ? (int64_t)seg->waker : -1);
	set_int(payload, F_CASCADE, waiting ? seg->cascade_ns : 0);

	return set_string(payload, F_NAME, seg->comm) ||
	       set_string_len(payload, F_STATE, state.s, state.len) ||
	       (waiting ? set_string(payload, F_WAKER_NAME, seg->waker_name)
			: set_string_len(payload, F_WAKER_NAME, "", 0)) ||
	       set_string_len(payload, F_WAKER_KIND, kind.s, kind.len) ? -1 : 0;
}

int waits_trace_emit_segment(struct waits_trace *t, const struct wperf_segment *seg,
			     const struct waits_time *at, struct waits_queue *q,
			     char *err, size_t errlen)
{
	uint64_t cycles = next_cycles(t, at);
	bt_message *msg;

	if (make_room_for_event(t, cycles, q))
		return out_of_memory(err, errlen);
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		t->self, t->event_class, t->packet, cycles);
	if (!msg)
		return out_of_memory(err, errlen);
	if (fill_payload(t, bt_event_borrow_payload_field(bt_message_event_borrow_event(msg)),
			 seg)) {
		bt_message_put_ref(msg);
		return out_of_memory(err, errlen);
	}
	t->events_in_packet++;
	return waits_queue_push(q, msg) ? out_of_memory(err, errlen) : 0;
}

int waits_trace_emit_end(struct waits_trace *t, const struct waits_time *at,
			 struct waits_queue *q, char *err, size_t errlen)
{
	uint64_t cycles;
	bt_message *msg;

	if (!t->stream_begun || t->stream_ended)
		return 0;
	cycles = next_cycles(t, at);
	if (t->packet && end_packet(t, cycles, q))
		return out_of_memory(err, errlen);
	msg = bt_message_stream_end_create(t->self, t->stream);
	if (!msg)
		return out_of_memory(err, errlen);
	bt_message_stream_end_set_default_clock_snapshot(msg, cycles);
	t->stream_ended = true;
	return waits_queue_push(q, msg) ? out_of_memory(err, errlen) : 0;
}
