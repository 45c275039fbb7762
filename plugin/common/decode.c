/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/decode.c — from babeltrace2 messages to normalised events.
 *
 * The per-event path must be cheap: a kernel trace holds millions of events,
 * most of no interest. Every decision that depends only on the event class
 * (is this a scheduler event, in which layout, at which member index is
 * `prev_tid`) is taken once per class and kept in an "event plan"; per-stream
 * facts (CPU, whether the stream is a kernel trace's) in a "stream state",
 * found through a direct-mapped cache, its plans indexed by class id. One
 * event costs two array look-ups and its plan's reader (decode-layout.h).
 *
 * This file owns the messages, the streams and time; which events are read
 * in which layout, and how, is decode-layout.c's; the hash tables ptr-map.c's.
 */
#include "decode.h"
#include "decode-layout.h"
#include "error.h"
#include "hosts.h"
#include "message.h"
#include "ptr-map.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* ------------------------------------------------------------------ */
/* Decoder state.                                                      */
/* ------------------------------------------------------------------ */

struct stream_state {
	bool skip;                /* not kernel events, or our own output */
	int cpu;                  /* from the packet context's cpu_id, or -1 */
	bool cpu_ref_resolved;    /* cpu_ref looked up (first packet) */
	struct field_ref cpu_ref; /* where cpu_id is in the packet context */
	bool has_clock;
	const bt_clock_class *clock;
	/* A clock counting nanoseconds (LTTng's, perf's, the tracefs
	 * recorder's) turns a snapshot into time since its origin by one
	 * addition of its offset: clock_origin_ns, when clock_in_ns. */
	bool clock_in_ns;
	int64_t clock_origin_ns;
	/* The plans of this stream's event classes by class id, filled as
	 * they are met: every event needs its plan, and an array index is
	 * cheaper than hashing the class pointer (see plan_in_stream()). */
	struct event_plan **plan_by_id;
	uint64_t n_plan_by_id;
	uint32_t host;            /* hosts.h: the machine that recorded it */
	bool past_hosts_max;      /* ... or one too many to tell apart */
};

#define STREAM_CACHE_SLOTS 64   /* a power of two */

/* A stream's slot: its address, past the bits malloc's alignment zeroes. */
static inline size_t stream_cache_slot(const bt_stream *stream)
{
	return ((uintptr_t)stream >> 4) & (STREAM_CACHE_SLOTS - 1);
}

struct wperf_decoder {
	/* every=: called with each event's time first; `also` fed too. */
	wperf_decoder_time_hook time_hook;
	void *time_hook_data;
	struct wperf_analysis *also;
	struct ptr_map plans;     /* const bt_event_class * -> struct event_plan */
	struct ptr_map streams;   /* const bt_stream * -> struct stream_state */
	/* A direct-mapped cache in front of `streams`: the muxer interleaves
	 * the CPUs' streams event by event, so one entry missed on most
	 * events; a slot per stream of a machine's worth of CPUs hits. */
	struct stream_cache_slot {
		const bt_stream *stream;
		struct stream_state *state;
	} stream_cache[STREAM_CACHE_SLOTS];
	const bt_clock_class *clock_class;       /* of the first kernel stream */
	uint8_t clock_uuid[16];                  /* its UUID, kept: the class may be
	                                            gone when the analysis ends */
	bool has_clock_uuid;
	uint64_t kernel_text;                    /* perf_mmap of [kernel.kallsyms], or 0 */
	char kernel_release[128];                /* the trace's, "" when it does not say */
	bool raw_task_dead_64;                   /* its kernel reports TASK_DEAD as 64 */
	uint64_t counts[WPERF_EV_TYPE_COUNT];
	struct wperf_plan_buffers buf;   /* the current event's comm and stack */
	bool false_wakeup_class;  /* a stream class declares wperf:false_wakeup */
	bool told_false_wakeups;  /* ... and the analysis knows */
	/* Per event type, the first class of that name we could not read:
	 * "sched_switch (no field `prev_state`)"; "" when none. */
	char unreadable[WPERF_EV_TYPE_COUNT][160];
	char explained[512];      /* wperf_decoder_explain()'s message */
	/* The time of the latest message fed that had one (borrowed from that
	 * message), and a count that changes with it: see
	 * wperf_decoder_latest_time(). */
	const bt_clock_snapshot *latest_time;
	uint64_t latest_time_seq;
	struct wperf_window window;   /* wperf_decoder_set_window() */
	struct wperf_hosts hosts;     /* the machines of the kernel streams */
	bool window_pending;          /* not yet resolved and given to the analysis */
};

struct wperf_decoder *wperf_decoder_create(void)
{
	return calloc(1, sizeof(struct wperf_decoder));
}

void wperf_decoder_destroy(struct wperf_decoder *d)
{
	if (!d)
		return;
	ptr_map_free_all(&d->plans);
	for (size_t i = 0; i < d->streams.cap; i++)
		if (d->streams.values[i])
			free(((struct stream_state *)d->streams.values[i])->plan_by_id);
	ptr_map_free_all(&d->streams);
	free(d);
}

/* The kernel release the trace says it was recorded on: LTTng and
 * source.wperf.tracefs write `kernel_release`, perf `release`. */
static void remember_release(struct wperf_decoder *d, const bt_trace *trace)
{
	static const char *const names[] = { "kernel_release", "release" };

	for (size_t i = 0; i < 2; i++) {
		const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(
			trace, names[i]);
		if (v && bt_value_is_string(v)) {
			snprintf(d->kernel_release, sizeof d->kernel_release, "%s",
				 bt_value_string_get(v));
			d->raw_task_dead_64 = wperf_layout_raw_task_dead(d->kernel_release);
			return;
		}
	}
}

static void remember_clock_uuid(struct wperf_decoder *d, const bt_clock_class *cc)
{
	bt_uuid uuid = bt_clock_class_get_uuid(cc);

	d->has_clock_uuid = uuid != NULL;
	if (uuid)
		memcpy(d->clock_uuid, uuid, sizeof d->clock_uuid);
}

uint64_t wperf_decoder_kernel_text(const struct wperf_decoder *d)
{
	struct utsname u;

	/* Without KASLR every kernel's text is at the same address: the
	 * address alone only means "this kernel" when the release agrees. */
	if (!d->kernel_text || uname(&u) != 0 || strcmp(u.release, d->kernel_release) != 0)
		return 0;
	return d->kernel_text;
}

const uint8_t *wperf_decoder_clock_uuid(const struct wperf_decoder *d)
{
	return d->has_clock_uuid ? d->clock_uuid : NULL;
}

const bt_clock_snapshot *wperf_decoder_latest_time(const struct wperf_decoder *d,
						   uint64_t *seq)
{
	*seq = d->latest_time_seq;
	return d->latest_time;
}

const bt_clock_class *wperf_decoder_clock_class(const struct wperf_decoder *d)
{
	return d->clock_class;
}

const uint64_t *wperf_decoder_event_counts(const struct wperf_decoder *d)
{
	return d->counts;
}

static struct event_plan *plan_for_class(struct wperf_decoder *d, const bt_event_class *ec)
{
	struct event_plan *p = ptr_map_get(&d->plans, ec);

	if (p)
		return p;
	p = malloc(sizeof *p);
	if (!p)
		return NULL;
	wperf_plan_build(ec, p);
	if (p->type == WPERF_EV_FALSE_WAKEUP)
		d->false_wakeup_class = true;
	if (p->unreadable_type >= 0 && p->unreadable_type < WPERF_EV_TYPE_COUNT &&
	    !d->unreadable[p->unreadable_type][0])
		snprintf(d->unreadable[p->unreadable_type],
			 sizeof d->unreadable[p->unreadable_type], "%.100s (no field `%.40s`)",
			 bt_event_class_get_name(ec), p->missing_field);
	if (ptr_map_put(&d->plans, ec, p) < 0) {
		free(p);
		return NULL;
	}
	return p;
}

/* Class ids are small in every trace we know (LTTng numbers a session's
 * event classes from 0); a class with a larger id is looked up by pointer. */
#define PLAN_BY_ID_MAX 4096

/* plan_for_class(), through the stream's table of its classes by id. */
static struct event_plan *plan_in_stream(struct wperf_decoder *d, struct stream_state *st,
					 const bt_event_class *ec)
{
	uint64_t id = bt_event_class_get_id(ec);
	struct event_plan *p;

	if (id < st->n_plan_by_id && st->plan_by_id[id])
		return st->plan_by_id[id];
	p = plan_for_class(d, ec);
	if (!p || id >= PLAN_BY_ID_MAX)
		return p;
	if (id >= st->n_plan_by_id) {
		uint64_t n = st->n_plan_by_id ? st->n_plan_by_id : 64;
		struct event_plan **grown;

		while (n <= id)
			n *= 2;
		grown = realloc(st->plan_by_id, n * sizeof *grown);
		if (!grown)
			return p;   /* still correct, only slower */
		memset(grown + st->n_plan_by_id, 0, (n - st->n_plan_by_id) * sizeof *grown);
		st->plan_by_id = grown;
		st->n_plan_by_id = n;
	}
	st->plan_by_id[id] = p;
	return p;
}

/* ------------------------------------------------------------------ */
/* Stream state (once per stream).                                     */
/* ------------------------------------------------------------------ */

/* Does this stream class hold any event we read? Building the plans here
 * also warms the cache before the first event. -1 on allocation failure. */
static int stream_class_has_kernel_events(struct wperf_decoder *d, const bt_stream_class *sc,
					  bool *has)
{
	uint64_t n = bt_stream_class_get_event_class_count(sc);

	/* A source that declares its event classes on the fly (none yet):
	 * give it the benefit of the doubt. */
	*has = n == 0;
	for (uint64_t i = 0; i < n; i++) {
		struct event_plan *p = plan_for_class(d,
			bt_stream_class_borrow_event_class_by_index_const(sc, i));

		if (!p)
			return -1;
		if (p->type >= 0)
			*has = true;
	}
	return 0;
}

/* Our own output (filter.wperf.waits names its trace "wperf") carries no
 * events we read; an LTTng-UST trace ("ust" domain) only our provider's
 * annotations, when its stream class has them. A trace that does not say
 * (the tracefs recorder, other converters) is read if its stream class
 * holds events we read. */
static int classify_stream(struct wperf_decoder *d, const bt_stream *stream, bool *kernel)
{
	const bt_trace *trace = bt_stream_borrow_trace_const(stream);
	const char *trace_name = bt_trace_get_name(trace);
	const bt_value *domain =
		bt_trace_borrow_environment_entry_value_by_name_const(trace, "domain");

	*kernel = false;
	if (trace_name && strcmp(trace_name, "wperf") == 0)
		return 0;
	if (domain && bt_value_is_string(domain) &&
	    strcmp(bt_value_string_get(domain), "ust") != 0) {
		*kernel = strcmp(bt_value_string_get(domain), "kernel") == 0;
		return 0;
	}
	return stream_class_has_kernel_events(d, bt_stream_borrow_class_const(stream), kernel);
}

/* Past 2^62 ns (146 years) from the clock's origin, or with an offset in
 * cycles of a second or more, babeltrace2 converts each snapshot itself. */
#define FAST_ORIGIN_MAX_S ((int64_t)1 << 32)
#define NS_PER_S 1000000000

static void note_clock_offset(struct stream_state *st)
{
	int64_t seconds;
	uint64_t cycles;

	bt_clock_class_get_offset(st->clock, &seconds, &cycles);
	st->clock_in_ns = bt_clock_class_get_frequency(st->clock) == NS_PER_S &&
			  seconds >= 0 && seconds < FAST_ORIGIN_MAX_S && cycles < NS_PER_S;
	st->clock_origin_ns = st->clock_in_ns ? seconds * NS_PER_S + (int64_t)cycles : 0;
}

/* stream_state_for() of a stream not in its cache slot. */
static __attribute__((noinline)) struct stream_state *
stream_state_missed(struct wperf_decoder *d, const bt_stream *stream,
		    struct stream_cache_slot *slot)
{
	struct stream_state *st = ptr_map_get(&d->streams, stream);
	bool kernel;

	if (!st) {
		st = calloc(1, sizeof *st);
		if (!st || classify_stream(d, stream, &kernel) < 0 ||
		    ptr_map_put(&d->streams, stream, st) < 0) {
			free(st);
			return NULL;
		}
		st->skip = !kernel;
		st->cpu = -1;
		st->clock = bt_stream_class_borrow_default_clock_class_const(
			bt_stream_borrow_class_const(stream));
		st->has_clock = st->clock != NULL;
		if (st->clock)
			note_clock_offset(st);
		if (!st->skip) {
			int h = wperf_hosts_of_stream(&d->hosts, bt_stream_borrow_trace_const(stream),
						      st->clock);

			st->host = h < 0 ? 0 : (uint32_t)h;
			st->past_hosts_max = h < 0;
		}
		/* Components emitting their own events (filter.wperf.waits) need
		 * the kernel time base before the first kernel event. */
		if (!st->skip && st->clock && !d->clock_class) {
			d->clock_class = st->clock;
			remember_clock_uuid(d, st->clock);
			remember_release(d, bt_stream_borrow_trace_const(stream));
		}
	}
	slot->stream = stream;
	slot->state = st;
	return st;
}

/* The state of a stream: once per message, so the cache's hit is inline. */
static inline struct stream_state *stream_state_for(struct wperf_decoder *d,
						    const bt_stream *stream)
{
	struct stream_cache_slot *slot = &d->stream_cache[stream_cache_slot(stream)];

	if (stream == slot->stream)
		return slot->state;
	return stream_state_missed(d, stream, slot);
}

/* ------------------------------------------------------------------ */
/* Time.                                                               */
/* ------------------------------------------------------------------ */

static int snapshot_ns(const bt_clock_snapshot *cs, int64_t *ns, char *err, size_t errlen)
{
	if (bt_clock_snapshot_get_ns_from_origin(cs, ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		wperf_set_err(err, errlen, "a timestamp (%" PRIu64 " cycles of clock `%s`) does not "
			"fit in 64-bit nanoseconds from the clock's origin: the trace's clock "
			"offset is corrupt", bt_clock_snapshot_get_value(cs),
			bt_clock_class_get_name(bt_clock_snapshot_borrow_clock_class_const(cs))
			? bt_clock_class_get_name(bt_clock_snapshot_borrow_clock_class_const(cs))
			: "(unnamed)");
		return -1;
	}
	return 0;
}

/* snapshot_ns() of an event's snapshot on its stream's clock: what
 * babeltrace2 computes (origin + value, both in ns), without its call
 * when the clock counts nanoseconds and the sum fits. */
static inline int event_ns(const struct stream_state *st, const bt_clock_snapshot *cs,
			   int64_t *ns, char *err, size_t errlen)
{
	uint64_t value;

	if (st->clock_in_ns) {
		value = bt_clock_snapshot_get_value(cs);
		if (value <= (uint64_t)INT64_MAX &&
		    !__builtin_add_overflow(st->clock_origin_ns, (int64_t)value, ns))
			return 0;
	}
	return snapshot_ns(cs, ns, err, errlen);
}

/* ------------------------------------------------------------------ */
/* Messages.                                                           */
/* ------------------------------------------------------------------ */

/* perf's mmap of "[kernel.kallsyms]_text": the kernel's text address
 * when perf recorded (its KASLR slide). Nothing else of perf_mmap is used. */
static int note_perf_mmap(struct wperf_decoder *d, const struct event_plan *p,
			  const bt_event *event)
{
	struct event_scopes s = { { NULL, bt_event_borrow_payload_field_const(event) } };
	const char *file = read_str(&s, &p->mmap_filename);

	if (file && strncmp(file, "[kernel.kallsyms]", 17) == 0)
		d->kernel_text = (uint64_t)read_int(&s, &p->mmap_start, 0);
	return 0;
}

/* Remember that the trace reached cs (NULL: this message has no time). */
static void note_time(struct wperf_decoder *d, const bt_clock_snapshot *cs)
{
	if (!cs)
		return;
	d->latest_time = cs;
	d->latest_time_seq++;
}

static int decode_event(struct wperf_decoder *d, struct wperf_analysis *a,
			const bt_message *msg, char *err, size_t errlen)
{
	const bt_event *event = bt_message_event_borrow_event_const(msg);
	struct stream_state *st = stream_state_for(d, bt_event_borrow_stream_const(event));
	struct event_plan *p;
	struct event_scopes scopes;
	struct wperf_event ev;

	if (!st)
		goto nomem;
	/* Every timed event, decoded or not: a filter stamps what it emits
	 * after this message no earlier than it. */
	if (st->has_clock)
		note_time(d, bt_message_event_borrow_default_clock_snapshot_const(msg));
	if (st->skip)
		return 0;
	p = plan_in_stream(d, st, bt_event_borrow_class_const(event));
	if (!p)
		goto nomem;
	if (p->perf_mmap)
		return note_perf_mmap(d, p, event);
	if (p->type < 0)
		return 0;
	if (!st->has_clock) {
		wperf_set_err(err, errlen, "event `%s` has no timestamp (its stream has no clock): "
			"record the trace with a clock (LTTng and perf always do)",
			bt_event_class_get_name(bt_event_borrow_class_const(event)));
		return -1;
	}
	if (st->past_hosts_max) {
		wperf_set_err(err, errlen, "the input holds kernel traces of more than %d machines "
			      "or boots: report at most %d at once", WPERF_HOSTS_MAX, WPERF_HOSTS_MAX);
		return -1;
	}

	/* Field by field: a memset of the whole event became a `rep stos`
	 * that cost more than the rest of this function. */
	memset(&ev.u, 0, sizeof ev.u);
	ev.stack = NULL;
	ev.n_stack = 0;
	ev.type = (enum wperf_event_type)p->type;
	if (event_ns(st, d->latest_time, &ev.ts, err, errlen) < 0)
		return -1;
	ev.ts = wperf_hosts_time(&d->hosts, st->host, ev.ts);
	if (d->hosts.clamp) {
		/* A transform replaced by a better one may put this event a
		 * little before the host's last: never back in time. */
		if (ev.ts < d->hosts.floor[st->host])
			ev.ts = d->hosts.floor[st->host];
		d->hosts.floor[st->host] = ev.ts;
	}
	scopes.base[SCOPE_NONE] = NULL;
	scopes.base[SCOPE_PAYLOAD] = bt_event_borrow_payload_field_const(event);
	scopes.base[SCOPE_COMMON_CTX] = p->reads_common_ctx
		? bt_event_borrow_common_context_field_const(event) : NULL;
	scopes.base[SCOPE_SPECIFIC_CTX] = p->reads_specific_ctx
		? bt_event_borrow_specific_context_field_const(event) : NULL;
	ev.cpu = st->cpu;
	wperf_plan_read_event(p, &scopes, d->raw_task_dead_64, &d->buf, &ev);
	wperf_hosts_remap(&ev, st->host);
	d->counts[ev.type]++;
	if (d->time_hook && d->time_hook(d->time_hook_data, ev.ts, true, err, errlen) != 0)
		return -1;
	wperf_analysis_feed(a, &ev);
	if (d->also)
		wperf_analysis_feed(d->also, &ev);
	return 0;
nomem:
	wperf_set_err(err, errlen, "out of memory while decoding events");
	return -1;
}

/* The CPU a stream records, from its packet context (LTTng and perf both
 * write cpu_id there: one stream per CPU). */
static void read_packet_cpu(struct stream_state *st, const bt_packet *packet)
{
	const bt_field *ctx = bt_packet_borrow_context_field_const(packet);
	struct event_scopes s = { { NULL, ctx } };

	if (!ctx)
		return;
	if (!st->cpu_ref_resolved) {
		/* SCOPE_PAYLOAD stands for "the structure in s.base[SCOPE_PAYLOAD]" here. */
		if (!wperf_plan_find_member(bt_field_borrow_class_const(ctx), SCOPE_PAYLOAD,
					    "cpu_id", WANT_INT, &st->cpu_ref))
			st->cpu_ref.scope = SCOPE_NONE;
		st->cpu_ref_resolved = true;
	}
	st->cpu = (int)read_int(&s, &st->cpu_ref, -1);
}

/*
 * A stream's beginning or end with a time: a source gives none (CTF
 * streams have no times of their own), so upstream chose it —
 * babeltrace2's --begin/--end, a trimmer cutting the trace there. The
 * analysed range reaches it (wperf_analysis_bound()).
 */
static int chosen_bound(struct wperf_analysis *a, const bt_clock_snapshot *cs, bool end,
			char *err, size_t errlen)
{
	int64_t ns;

	if (snapshot_ns(cs, &ns, err, errlen) < 0)
		return -1;
	wperf_analysis_bound(a, end, ns);
	return 0;
}

/* The boundaries below get their message's time from wperf_message_time()
 * (cs, NULL when it has none): message.c knows which carry one. */

static int decode_stream_boundary(struct wperf_decoder *d, struct wperf_analysis *a,
				  const bt_message *msg, bool beginning,
				  const bt_clock_snapshot *cs, char *err, size_t errlen)
{
	const bt_stream *stream = beginning
		? bt_message_stream_beginning_borrow_stream_const(msg)
		: bt_message_stream_end_borrow_stream_const(msg);
	struct stream_state *st = stream_state_for(d, stream);

	if (!st) {
		wperf_set_err(err, errlen, "out of memory while decoding events");
		return -1;
	}
	if (st->skip || !cs)
		return 0;
	return chosen_bound(a, cs, !beginning, err, errlen);
}

/* A packet's beginning says its CPU. Its times are not the analysed
 * range's: LTTng opens a packet when tracing starts, maybe long before its
 * first event. Out of memory: -1. */
static int decode_packet_boundary(struct wperf_decoder *d, const bt_message *msg,
				  bool beginning, char *err, size_t errlen)
{
	const bt_packet *packet = beginning
		? bt_message_packet_beginning_borrow_packet_const(msg)
		: bt_message_packet_end_borrow_packet_const(msg);
	struct stream_state *st = stream_state_for(d, bt_packet_borrow_stream_const(packet));

	if (!st) {
		wperf_set_err(err, errlen, "out of memory while decoding events");
		return -1;
	}
	if (!st->skip && beginning)
		read_packet_cpu(st, packet);
	return 0;
}

/* cs: the beginning of the discarded range, NULL when the stream's
 * discarded items have no times (then neither end has one). */
static int decode_discarded(struct wperf_decoder *d, struct wperf_analysis *a,
			    const bt_message *msg, bool packets,
			    const bt_clock_snapshot *cs, char *err, size_t errlen)
{
	const bt_stream *stream = packets
		? bt_message_discarded_packets_borrow_stream_const(msg)
		: bt_message_discarded_events_borrow_stream_const(msg);
	struct stream_state *st = stream_state_for(d, stream);
	uint64_t count = 0;
	int64_t begin = -1, end = -1;
	bt_property_availability avail;

	if (!st) {
		wperf_set_err(err, errlen, "out of memory while decoding events");
		return -1;
	}
	if (st->skip)
		return 0;
	avail = packets ? bt_message_discarded_packets_get_count(msg, &count)
			: bt_message_discarded_events_get_count(msg, &count);
	if (avail != BT_PROPERTY_AVAILABILITY_AVAILABLE)
		count = 0;
	if (cs) {
		const bt_clock_snapshot *e = packets
			? bt_message_discarded_packets_borrow_end_default_clock_snapshot_const(msg)
			: bt_message_discarded_events_borrow_end_default_clock_snapshot_const(msg);

		if (snapshot_ns(cs, &begin, err, errlen) < 0 || snapshot_ns(e, &end, err, errlen) < 0)
			return -1;
		begin = wperf_hosts_time(&d->hosts, st->host, begin);
		end = wperf_hosts_time(&d->hosts, st->host, end);
	}
	int cpu = wperf_hosts_cpu(st->host, st->cpu);

	wperf_analysis_discarded(a, cpu, packets, count, begin, end);
	if (d->also)
		wperf_analysis_discarded(d->also, cpu, packets, count, begin, end);
	return 0;
}

static int feed_one(struct wperf_decoder *d, struct wperf_analysis *a,
		    const bt_message *msg, char *err, size_t errlen);

void wperf_decoder_set_time_hook(struct wperf_decoder *d, wperf_decoder_time_hook hook,
				 void *data)
{
	d->time_hook = hook;
	d->time_hook_data = data;
}

void wperf_decoder_set_also(struct wperf_decoder *d, struct wperf_analysis *also)
{
	d->also = also;
}

/* A live source's inactivity message: time went on up to cs. */
static int decode_inactivity(struct wperf_decoder *d, const bt_clock_snapshot *cs,
			     char *err, size_t errlen)
{
	int64_t ns;

	if (!d->time_hook || !cs || !d->clock_class)
		return 0;
	if (snapshot_ns(cs, &ns, err, errlen) < 0)
		return -1;
	return d->time_hook(d->time_hook_data, ns, false, err, errlen) != 0 ? -1 : 0;
}

void wperf_decoder_set_window(struct wperf_decoder *d, const struct wperf_window *w)
{
	d->window = *w;
	d->window_pending = wperf_window_given(w);
}

/*
 * The window's times of day need a date: the first message's, as for
 * babeltrace2's trimmer. So the window is resolved, and handed to the
 * analysis, at the first message with a time: no event reached the
 * analysis before it (an event of a stream without a clock is refused).
 */
static int resolve_window(struct wperf_decoder *d, struct wperf_analysis *a,
			  const bt_message *msg, char *err, size_t errlen)
{
	const bt_clock_snapshot *cs = NULL;
	int64_t first, begin, end;

	cs = wperf_message_time(msg);
	if (!cs)
		return 0;
	if (snapshot_ns(cs, &first, err, errlen) < 0 ||
	    wperf_window_resolve(&d->window, first, &begin, &end, err, errlen) < 0)
		return -1;
	if (wperf_analysis_set_window(a, begin, end) < 0) {
		wperf_set_err(err, errlen, "internal error: the time window came after the "
			      "first event");
		return -1;
	}
	d->window_pending = false;
	return 0;
}

int wperf_decoder_feed_message(struct wperf_decoder *d, struct wperf_analysis *a,
			       const bt_message *msg, char *err, size_t errlen)
{
	int rc = feed_one(d, a, msg, err, errlen);

	/* Stream classes are read when their first stream begins, before any
	 * of their events: the analysis learns in time to hold segments. */
	if (d->false_wakeup_class && !d->told_false_wakeups) {
		wperf_analysis_expect_false_wakeups(a);
		d->told_false_wakeups = true;
	}
	return rc;
}

static int feed_one(struct wperf_decoder *d, struct wperf_analysis *a,
		    const bt_message *msg, char *err, size_t errlen)
{
	bt_message_type type = bt_message_get_type(msg);
	const bt_clock_snapshot *cs = NULL;

	if (d->window_pending && resolve_window(d, a, msg, err, errlen) < 0)
		return -1;
	if (type != BT_MESSAGE_TYPE_EVENT) {   /* decode_event() notes its own */
		cs = wperf_message_time(msg);
		note_time(d, cs);
	}
	switch (type) {
	case BT_MESSAGE_TYPE_EVENT:
		return decode_event(d, a, msg, err, errlen);
	case BT_MESSAGE_TYPE_STREAM_BEGINNING:
		return decode_stream_boundary(d, a, msg, true, cs, err, errlen);
	case BT_MESSAGE_TYPE_STREAM_END:
		return decode_stream_boundary(d, a, msg, false, cs, err, errlen);
	case BT_MESSAGE_TYPE_PACKET_BEGINNING:
		return decode_packet_boundary(d, msg, true, err, errlen);
	case BT_MESSAGE_TYPE_PACKET_END:
		return decode_packet_boundary(d, msg, false, err, errlen);
	case BT_MESSAGE_TYPE_DISCARDED_EVENTS:
		return decode_discarded(d, a, msg, false, cs, err, errlen);
	case BT_MESSAGE_TYPE_DISCARDED_PACKETS:
		return decode_discarded(d, a, msg, true, cs, err, errlen);
	case BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY:
		return decode_inactivity(d, cs, err, errlen);
	}
	return 0;
}

int wperf_decoder_finish(const struct wperf_decoder *d, struct wperf_analysis *a,
			 struct wperf_graph *g)
{
	return wperf_hosts_finish(&d->hosts, a, g);
}

int wperf_decoder_give_host_clock(struct wperf_decoder *d, const char *item, char *err,
				  size_t errlen)
{
	return wperf_hosts_give_clock(&d->hosts, item, err, errlen);
}

int wperf_decoder_set_host_clock(struct wperf_decoder *d, const char *item, char *err,
				 size_t errlen)
{
	return wperf_hosts_set_clock(&d->hosts, item, err, errlen);
}

const char *wperf_decoder_explain(struct wperf_decoder *d, const char *analysis_error)
{
	static const int needed[] = { WPERF_EV_SWITCH, WPERF_EV_WAKEUP };

	for (size_t i = 0; i < sizeof needed / sizeof needed[0]; i++) {
		int t = needed[i];

		if (d->counts[t] || !d->unreadable[t][0])
			continue;
		snprintf(d->explained, sizeof d->explained,
			 "the trace has %s events, but in a layout wperf cannot read: "
			 "event %s (wperf knows the layouts of lttng-modules, "
			 "perf data convert and ftrace)",
			 t == WPERF_EV_SWITCH ? "sched_switch" : "wakeup", d->unreadable[t]);
		return d->explained;
	}
	return analysis_error;
}
