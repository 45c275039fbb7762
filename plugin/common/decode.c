/*
 * plugin/common/decode.c — from babeltrace2 messages to normalised events.
 *
 * The per-event path must be cheap: a kernel trace holds millions of
 * events and most of them (syscalls, kmem, ...) are of no interest. So every
 * decision that depends only on the event class — is this a scheduler event,
 * in which layout, at which member index is `prev_tid` — is taken once, the
 * first time the class is seen, and kept in an "event plan". Per-stream facts
 * (CPU, whether the stream is part of a kernel trace at all) are kept in a
 * "stream state". Both live in small pointer-keyed hash tables, so decoding
 * one event is two hash look-ups and a few indexed member reads, with no
 * string comparison.
 *
 * Layouts recognised (ECOSYSTEM.md, "Kernel event layouts"):
 *   - LTTng modules 2.0 to 2.13 (and the tracefs recorder, which writes the
 *     same names): `sched_switch` with prev_tid/next_tid, ...
 *   - perf CTF: `sched:sched_switch` with prev_pid/next_pid (which are
 *     tids), every event carrying perf_tid and common_flags in its payload.
 */
#include "decode.h"
#include "error.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* ------------------------------------------------------------------ */
/* A pointer-keyed open-addressing hash table of owned entries.        */
/* ------------------------------------------------------------------ */

struct ptr_map {
	const void **keys;
	void **values;
	size_t cap;      /* a power of two, or 0 */
	size_t len;
};

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	/* Allocations are aligned: mix the high bits down (splitmix64 finaliser). */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

static void *ptr_map_get(const struct ptr_map *m, const void *key)
{
	if (m->cap == 0)
		return NULL;
	for (size_t i = ptr_hash(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (m->keys[i] == key)
			return m->values[i];
		if (!m->keys[i])
			return NULL;
	}
}

static void ptr_map_insert_unchecked(struct ptr_map *m, const void *key, void *value)
{
	size_t i = ptr_hash(key, m->cap);

	while (m->keys[i])
		i = (i + 1) & (m->cap - 1);
	m->keys[i] = key;
	m->values[i] = value;
	m->len++;
}

/* Keep the load factor under one half so probe chains stay short. */
static int ptr_map_grow(struct ptr_map *m)
{
	struct ptr_map bigger = { 0 };

	bigger.cap = m->cap ? m->cap * 2 : 64;
	bigger.keys = calloc(bigger.cap, sizeof *bigger.keys);
	bigger.values = calloc(bigger.cap, sizeof *bigger.values);
	if (!bigger.keys || !bigger.values) {
		free(bigger.keys);
		free(bigger.values);
		return -1;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->keys[i])
			ptr_map_insert_unchecked(&bigger, m->keys[i], m->values[i]);
	free(m->keys);
	free(m->values);
	*m = bigger;
	return 0;
}

static int ptr_map_put(struct ptr_map *m, const void *key, void *value)
{
	if ((m->len + 1) * 2 > m->cap && ptr_map_grow(m) < 0)
		return -1;
	ptr_map_insert_unchecked(m, key, value);
	return 0;
}

static void ptr_map_free_all(struct ptr_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->values[i]);
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof *m);
}

/* ------------------------------------------------------------------ */
/* What to read from each kind of event.                               */
/* ------------------------------------------------------------------ */

enum value_kind { WANT_INT, WANT_STR, WANT_INT_ARRAY };

/* One value an event type needs, under its LTTng and its perf name. A NULL
 * name means the layout does not carry it (e.g. perf's parent_pid is a tid,
 * not the tgid LTTng's parent_pid is, so it must not fill that slot). */
struct slot_spec {
	const char *lttng_name;
	const char *perf_name;
	enum value_kind kind;
	bool required;       /* without it the event class is not ours */
};

#define MAX_SLOTS 6
#define MAX_NAMES 4

struct type_spec {
	enum wperf_event_type type;
	const char *names[MAX_NAMES];  /* LTTng names; perf's, once the
	                                  "sched:" style prefix is removed */
	struct slot_spec slots[MAX_SLOTS];
};

#define REQ true
#define OPT false

/* Slot order matters: fill_event() reads slots by these positions. */
static const struct type_spec type_specs[] = {
	{ WPERF_EV_SWITCH, { "sched_switch" }, {
		{ "prev_tid", "prev_pid", WANT_INT, REQ },
		{ "next_tid", "next_pid", WANT_INT, REQ },
		{ "prev_state", "prev_state", WANT_INT, REQ },
		{ "prev_comm", "prev_comm", WANT_STR, OPT },
		{ "next_comm", "next_comm", WANT_STR, OPT } } },
	{ WPERF_EV_WAKEUP, { "sched_waking", "sched_wakeup" }, {
		{ "tid", "pid", WANT_INT, REQ },
		{ "comm", "comm", WANT_STR, OPT },
		{ "target_cpu", "target_cpu", WANT_INT, OPT } } },
	{ WPERF_EV_WAKEUP_NEW, { "sched_wakeup_new" }, {
		{ "tid", "pid", WANT_INT, REQ },
		{ "comm", "comm", WANT_STR, OPT },
		{ "target_cpu", "target_cpu", WANT_INT, OPT } } },
	{ WPERF_EV_FORK, { "sched_process_fork" }, {
		{ "parent_tid", "parent_pid", WANT_INT, REQ },
		{ "parent_pid", NULL, WANT_INT, OPT },
		{ "child_tid", "child_pid", WANT_INT, REQ },
		{ "child_pid", NULL, WANT_INT, OPT },
		{ "child_comm", "child_comm", WANT_STR, OPT } } },
	{ WPERF_EV_EXEC, { "sched_process_exec" }, {
		{ "tid", "pid", WANT_INT, REQ },
		{ "filename", "filename", WANT_STR, OPT } } },
	{ WPERF_EV_EXIT, { "sched_process_exit" }, {
		{ "tid", "pid", WANT_INT, REQ },
		{ "comm", "comm", WANT_STR, OPT } } },
	{ WPERF_EV_FREE, { "sched_process_free" }, {
		{ "tid", "pid", WANT_INT, REQ },
		{ "comm", "comm", WANT_STR, OPT } } },
	{ WPERF_EV_IRQ_ENTRY, { "irq_handler_entry" }, {
		{ "irq", "irq", WANT_INT, REQ },
		{ "name", "name", WANT_STR, OPT } } },
	{ WPERF_EV_IRQ_EXIT, { "irq_handler_exit" }, {
		{ "irq", "irq", WANT_INT, REQ } } },
	{ WPERF_EV_SOFTIRQ_ENTRY, { "irq_softirq_entry", "softirq_entry" }, {
		{ "vec", "vec", WANT_INT, REQ } } },
	{ WPERF_EV_SOFTIRQ_EXIT, { "irq_softirq_exit", "softirq_exit" }, {
		{ "vec", "vec", WANT_INT, REQ } } },
	{ WPERF_EV_SOFTIRQ_RAISE, { "irq_softirq_raise", "softirq_raise" }, {
		{ "vec", "vec", WANT_INT, REQ } } },
	{ WPERF_EV_TIMER_ENTRY, { "timer_hrtimer_expire_entry", "hrtimer_expire_entry",
				  "timer_expire_entry" }, { { 0 } } },
	{ WPERF_EV_TIMER_EXIT, { "timer_hrtimer_expire_exit", "hrtimer_expire_exit",
				 "timer_expire_exit" }, { { 0 } } },
	{ WPERF_EV_BLOCK_INSERT, { "block_rq_insert" }, {
		{ "dev", "dev", WANT_INT, REQ },
		{ "sector", "sector", WANT_INT, REQ },
		{ "nr_sector", "nr_sector", WANT_INT, REQ },
		{ "bytes", "bytes", WANT_INT, OPT },
		{ "tid", NULL, WANT_INT, OPT } } },
	{ WPERF_EV_BLOCK_ISSUE, { "block_rq_issue" }, {
		{ "dev", "dev", WANT_INT, REQ },
		{ "sector", "sector", WANT_INT, REQ },
		{ "nr_sector", "nr_sector", WANT_INT, REQ },
		{ "bytes", "bytes", WANT_INT, OPT },
		{ "tid", NULL, WANT_INT, OPT } } },
	{ WPERF_EV_BLOCK_COMPLETE, { "block_rq_complete" }, {
		{ "dev", "dev", WANT_INT, REQ },
		{ "sector", "sector", WANT_INT, REQ },
		{ "nr_sector", "nr_sector", WANT_INT, REQ } } },
	{ WPERF_EV_STATEDUMP_PROCESS, { "lttng_statedump_process_state" }, {
		{ "tid", NULL, WANT_INT, REQ },
		{ "pid", NULL, WANT_INT, OPT },
		{ "ppid", NULL, WANT_INT, OPT },
		{ "name", NULL, WANT_STR, OPT },
		{ "status", NULL, WANT_INT, REQ } } },
	{ WPERF_EV_STATEDUMP_BLOCK_DEVICE, { "lttng_statedump_block_device" }, {
		{ "dev", NULL, WANT_INT, REQ },
		{ "diskname", NULL, WANT_STR, OPT } } },
	/* The LTTng-UST provider of ust-provider/ (include/wperf/annotate.h). */
	{ WPERF_EV_SPIN_BEGIN, { "wperf:before_spin" }, {
		{ "lock", NULL, WANT_INT, REQ } } },
	{ WPERF_EV_SPIN_END, { "wperf:after_spin" }, {
		{ "lock", NULL, WANT_INT, REQ } } },
	{ WPERF_EV_FALSE_WAKEUP, { "wperf:false_wakeup" }, { { 0 } } },
	{ WPERF_EV_PROGRESS, { "wperf:progress" }, {
		{ "name", NULL, WANT_STR, OPT } } },
	{ WPERF_EV_NET_XMIT, { "net_dev_xmit" }, {
		{ "name", "name", WANT_STR, REQ },
		{ "len", "len", WANT_INT, REQ } } },
	/* lttng-modules 2.13 records netif_receive_skb as net_if_receive_skb. */
	{ WPERF_EV_NET_RECV, { "netif_receive_skb", "net_if_receive_skb" }, {
		{ "name", "name", WANT_STR, REQ },
		{ "len", "len", WANT_INT, REQ } } },
	/* source.wperf.tracefs with stacks="kernel": ftrace's kernel_stack
	 * entry after each sched_switch (the frames are read by find_stacks). */
	{ WPERF_EV_STACK, { "wperf_kernel_stack" }, {
		{ "tid", NULL, WANT_INT, REQ },
		{ "ips", NULL, WANT_INT_ARRAY, REQ } } },
};

/* perf names its tracepoints "subsystem:event"; these are the subsystems
 * whose events we read. */
static const char *const perf_prefixes[] = { "sched:", "irq:", "timer:", "block:", "net:" };

/* ------------------------------------------------------------------ */
/* Decoder state.                                                      */
/* ------------------------------------------------------------------ */

enum field_scope { SCOPE_NONE, SCOPE_PAYLOAD, SCOPE_COMMON_CTX, SCOPE_SPECIFIC_CTX };

/* Where one value lives in every event of a class. */
struct field_ref {
	enum field_scope scope;   /* SCOPE_NONE: the class does not carry it */
	uint64_t index;           /* member index within that scope's structure */
	bool is_signed;
};

struct event_plan {
	int type;                 /* enum wperf_event_type, or -1: not ours */
	bool waking;              /* sched_waking (rather than sched_wakeup) */
	struct field_ref slot[MAX_SLOTS];
	struct field_ref current_tid;   /* perf_tid, or LTTng's `tid` context */
	struct field_ref current_pid;   /* perf_pid, or LTTng's `pid` context */
	struct field_ref common_flags;  /* perf/ftrace irq-context flags */
	/* Call stacks: LTTng's callstack_kernel and callstack_user contexts,
	 * perf's perf_callchain, source.wperf.tracefs's kernel stack `ips`. */
	struct field_ref stack[2];
	/* perf_mmap (perf data convert --all): where perf saw the kernel's
	 * text, which tells whether this kernel can name its stack frames. */
	bool perf_mmap;
	struct field_ref mmap_start, mmap_filename;
	/* An event we read by name whose layout lacks a field we need
	 * (type -1 then): which type it would have been, and the field. */
	int unreadable_type;
	const char *missing_field;
};

struct stream_state {
	bool skip;                /* not kernel events, or our own output */
	int cpu;                  /* from the packet context's cpu_id, or -1 */
	bool cpu_ref_resolved;    /* cpu_ref looked up (first packet) */
	struct field_ref cpu_ref; /* where cpu_id is in the packet context */
	bool has_clock;
	const bt_clock_class *clock;
	/* The plans of this stream's event classes by class id, filled as
	 * they are met: every event needs its plan, and an array index is
	 * cheaper than hashing the class pointer (see plan_in_stream()). */
	struct event_plan **plan_by_id;
	uint64_t n_plan_by_id;
};

struct wperf_decoder {
	/* every=: called with each event's time first; `also` fed too. */
	wperf_decoder_time_hook time_hook;
	void *time_hook_data;
	struct wperf_analysis *also;
	struct ptr_map plans;     /* const bt_event_class * -> struct event_plan */
	struct ptr_map streams;   /* const bt_stream * -> struct stream_state */
	const bt_stream *last_stream;            /* one-entry cache: events of */
	struct stream_state *last_stream_state;  /* a stream come in runs */
	const bt_clock_class *clock_class;       /* of the first kernel stream */
	uint8_t clock_uuid[16];                  /* its UUID, kept: the class may be
	                                            gone when the analysis ends */
	bool has_clock_uuid;
	uint64_t kernel_text;                    /* perf_mmap of [kernel.kallsyms], or 0 */
	char kernel_release[128];                /* the trace's, "" when it does not say */
	bool raw_task_dead_64;                   /* its kernel reports TASK_DEAD as 64 */
	char comm_buf[16];        /* exec: basename of the file, as the kernel's comm */
	uint64_t counts[WPERF_EV_TYPE_COUNT];
	uint64_t stack_buf[2 * WPERF_STACK_MAX_FRAMES];
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

/*
 * Kernels before 4.14 report a switch's raw task state, in which a task's
 * last switch says TASK_DEAD, 64 (event.h WPERF_PREV_STATE_DEAD). Traces
 * without sched_process_exit (ref-basic-kernel-analysis, Linux 4.4) have
 * no other word of a thread's death: without this it would wait forever.
 */
static bool release_reports_raw_task_dead(const char *release)
{
	unsigned major, minor;

	return sscanf(release, "%u.%u", &major, &minor) == 2 &&
		(major < 4 || (major == 4 && minor < 14));
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
			d->raw_task_dead_64 = release_reports_raw_task_dead(d->kernel_release);
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

/* ------------------------------------------------------------------ */
/* Building an event plan (once per event class).                      */
/* ------------------------------------------------------------------ */

/* An array (static or dynamic) of integers: a call stack. */
static bool is_int_array(const bt_field_class *fc)
{
	if (!bt_field_class_type_is(bt_field_class_get_type(fc), BT_FIELD_CLASS_TYPE_ARRAY))
		return false;
	return bt_field_class_type_is(bt_field_class_get_type(
		bt_field_class_array_borrow_element_field_class_const(fc)),
		BT_FIELD_CLASS_TYPE_INTEGER);
}

/* Find a member by name and kind in a structure field class. */
static bool find_member(const bt_field_class *fc, enum field_scope scope,
			const char *name, enum value_kind kind, struct field_ref *out)
{
	uint64_t n;

	if (!fc || !name || bt_field_class_get_type(fc) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return false;
	n = bt_field_class_structure_get_member_count(fc);
	for (uint64_t i = 0; i < n; i++) {
		const bt_field_class_structure_member *m =
			bt_field_class_structure_borrow_member_by_index_const(fc, i);
		bt_field_class_type t;

		if (strcmp(bt_field_class_structure_member_get_name(m), name) != 0)
			continue;
		t = bt_field_class_get_type(
			bt_field_class_structure_member_borrow_field_class_const(m));
		/* Enumerations are integers too: bt_field_class_type_is() knows. */
		if (kind == WANT_INT && !bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_INTEGER))
			return false;
		if (kind == WANT_STR && t != BT_FIELD_CLASS_TYPE_STRING)
			return false;
		if (kind == WANT_INT_ARRAY && !is_int_array(
			    bt_field_class_structure_member_borrow_field_class_const(m)))
			return false;
		out->scope = scope;
		out->index = i;
		out->is_signed = bt_field_class_type_is(t, BT_FIELD_CLASS_TYPE_SIGNED_INTEGER);
		return true;
	}
	return false;
}

/* Look for a per-event context value in the event's own contexts first,
 * then in the payload (where perf puts perf_tid and common_flags). */
static void find_context_value(const bt_event_class *ec, const char *ctx_name,
			       const char *payload_name, struct field_ref *out)
{
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);

	out->scope = SCOPE_NONE;
	if (ctx_name &&
	    (find_member(bt_stream_class_borrow_event_common_context_field_class_const(sc),
			 SCOPE_COMMON_CTX, ctx_name, WANT_INT, out) ||
	     find_member(bt_event_class_borrow_specific_context_field_class_const(ec),
			 SCOPE_SPECIFIC_CTX, ctx_name, WANT_INT, out)))
		return;
	if (payload_name)
		find_member(bt_event_class_borrow_payload_field_class_const(ec),
			    SCOPE_PAYLOAD, payload_name, WANT_INT, out);
}

/* The type spec whose names include name (after removing a perf prefix). */
static const struct type_spec *spec_for_name(const char *name, bool *perf_layout)
{
	*perf_layout = false;
	for (size_t i = 0; i < sizeof perf_prefixes / sizeof perf_prefixes[0]; i++) {
		size_t len = strlen(perf_prefixes[i]);

		if (strncmp(name, perf_prefixes[i], len) == 0) {
			name += len;
			*perf_layout = true;
			break;
		}
	}
	for (size_t i = 0; i < sizeof type_specs / sizeof type_specs[0]; i++)
		for (size_t j = 0; j < MAX_NAMES && type_specs[i].names[j]; j++)
			if (strcmp(type_specs[i].names[j], name) == 0)
				return &type_specs[i];
	return NULL;
}

/* Where the event's call stacks are, kernel part first. */
static void find_stacks(const bt_event_class *ec, struct event_plan *p)
{
	static const char *const names[][2] = {
		{ "callstack_kernel", "callstack_user" },   /* LTTng contexts */
		{ "perf_callchain", NULL },                 /* perf data convert */
		{ "ips", NULL },                            /* wperf_kernel_stack */
	};
	const bt_stream_class *sc = bt_event_class_borrow_stream_class_const(ec);
	const bt_field_class *scopes[3] = {
		bt_stream_class_borrow_event_common_context_field_class_const(sc),
		bt_event_class_borrow_specific_context_field_class_const(ec),
		bt_event_class_borrow_payload_field_class_const(ec),
	};
	const enum field_scope scope_ids[3] = { SCOPE_COMMON_CTX, SCOPE_SPECIFIC_CTX,
						SCOPE_PAYLOAD };

	for (int k = 0; k < 2; k++) {
		p->stack[k].scope = SCOPE_NONE;
		for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
			for (int sc_i = 0; sc_i < 3 && names[n][k]; sc_i++)
				if (p->stack[k].scope == SCOPE_NONE)
					find_member(scopes[sc_i], scope_ids[sc_i], names[n][k],
						    WANT_INT_ARRAY, &p->stack[k]);
	}
}

static void build_plan(const bt_event_class *ec, struct event_plan *p)
{
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const struct type_spec *spec;
	bool perf;

	memset(p, 0, sizeof *p);
	p->type = -1;
	p->unreadable_type = -1;
	if (name && strcmp(name, "perf_mmap") == 0) {
		p->perf_mmap = find_member(payload, SCOPE_PAYLOAD, "start", WANT_INT,
					   &p->mmap_start) &&
			       find_member(payload, SCOPE_PAYLOAD, "filename", WANT_STR,
					   &p->mmap_filename);
		return;
	}
	spec = name ? spec_for_name(name, &perf) : NULL;
	if (!spec)
		return;
	for (size_t i = 0; i < MAX_SLOTS; i++) {
		const struct slot_spec *s = &spec->slots[i];
		const char *field = perf ? s->perf_name : s->lttng_name;

		if (!s->lttng_name && !s->perf_name)
			break;
		if (!find_member(payload, SCOPE_PAYLOAD, field, s->kind, &p->slot[i]) &&
		    s->required) {
			/* Same name, unknown layout: not an event we read,
			 * but the reason no such event was read. */
			p->unreadable_type = spec->type;
			p->missing_field = field;
			return;
		}
	}
	p->type = spec->type;
	p->waking = strstr(name, "sched_waking") != NULL;
	/* LTTng's `tid` context (add-context -t tid) and perf's perf_tid both
	 * name the thread running when the event was recorded. */
	find_context_value(ec, "tid", "perf_tid", &p->current_tid);
	if (p->current_tid.scope == SCOPE_NONE)
		find_context_value(ec, "perf_tid", NULL, &p->current_tid);
	if (p->current_tid.scope == SCOPE_NONE)   /* LTTng-UST: add-context -t vtid */
		find_context_value(ec, "vtid", NULL, &p->current_tid);
	/* Likewise its process: how perf traces, whose fork events carry
	 * only tids, tell which process a thread belongs to. */
	find_context_value(ec, "pid", "perf_pid", &p->current_pid);
	if (p->current_pid.scope == SCOPE_NONE)
		find_context_value(ec, "perf_pid", NULL, &p->current_pid);
	if (p->current_pid.scope == SCOPE_NONE)
		find_context_value(ec, "vpid", NULL, &p->current_pid);
	find_context_value(ec, "common_flags", "common_flags", &p->common_flags);
	find_stacks(ec, p);
}

static struct event_plan *plan_for_class(struct wperf_decoder *d, const bt_event_class *ec)
{
	struct event_plan *p = ptr_map_get(&d->plans, ec);

	if (p)
		return p;
	p = malloc(sizeof *p);
	if (!p)
		return NULL;
	build_plan(ec, p);
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

static struct stream_state *stream_state_for(struct wperf_decoder *d, const bt_stream *stream)
{
	struct stream_state *st;
	bool kernel;

	if (stream == d->last_stream)
		return d->last_stream_state;
	st = ptr_map_get(&d->streams, stream);
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
		/* Components emitting their own events (filter.wperf.waits) need
		 * the kernel time base before the first kernel event. */
		if (!st->skip && st->clock && !d->clock_class) {
			d->clock_class = st->clock;
			remember_clock_uuid(d, st->clock);
			remember_release(d, bt_stream_borrow_trace_const(stream));
		}
	}
	d->last_stream = stream;
	d->last_stream_state = st;
	return st;
}

/* ------------------------------------------------------------------ */
/* Reading values.                                                     */
/* ------------------------------------------------------------------ */

/* The event's structure for a scope: resolved per event, since the
 * structures themselves belong to the event. */
struct event_scopes {
	const bt_field *payload, *common_ctx, *specific_ctx;
};

static const bt_field *member(const struct event_scopes *s, const struct field_ref *r)
{
	const bt_field *base = NULL;

	switch (r->scope) {
	case SCOPE_PAYLOAD: base = s->payload; break;
	case SCOPE_COMMON_CTX: base = s->common_ctx; break;
	case SCOPE_SPECIFIC_CTX: base = s->specific_ctx; break;
	case SCOPE_NONE: return NULL;
	}
	return base ? bt_field_structure_borrow_member_field_by_index_const(base, r->index)
		    : NULL;
}

/* Any integer (signed or unsigned, any width, enumerations too), as the
 * 64 bits the kernel wrote; dflt when the class does not carry it. */
static int64_t read_int(const struct event_scopes *s, const struct field_ref *r, int64_t dflt)
{
	const bt_field *f = member(s, r);

	if (!f)
		return dflt;
	if (r->is_signed)
		return bt_field_integer_signed_get_value(f);
	return (int64_t)bt_field_integer_unsigned_get_value(f);
}

/* perf marks where a callchain's kernel and user parts begin with values
 * from PERF_CONTEXT_MAX (-4095) up: they are not frames. */
#define PERF_CONTEXT_MAX ((uint64_t)-4095)

/* Append the frames of an integer array to buf (at most cap in all);
 * zeros (unused slots of a fixed array) and perf's markers are skipped. */
static uint32_t read_frames(const struct event_scopes *s, const struct field_ref *r,
			    uint64_t *buf, uint32_t n, uint32_t cap)
{
	const bt_field *f = member(s, r);
	uint64_t len = f ? bt_field_array_get_length(f) : 0;

	for (uint64_t i = 0; i < len && n < cap; i++) {
		const bt_field *e = bt_field_array_borrow_element_field_by_index_const(f, i);
		uint64_t ip = bt_field_class_type_is(bt_field_get_class_type(e),
						     BT_FIELD_CLASS_TYPE_SIGNED_INTEGER)
			? (uint64_t)bt_field_integer_signed_get_value(e)
			: bt_field_integer_unsigned_get_value(e);
		if (ip != 0 && ip < PERF_CONTEXT_MAX)
			buf[n++] = ip;
	}
	return n;
}

static void read_stack(struct wperf_decoder *d, const struct event_plan *p,
		       const struct event_scopes *s, struct wperf_event *ev)
{
	uint32_t n = 0, cap = sizeof d->stack_buf / sizeof d->stack_buf[0];

	for (int k = 0; k < 2; k++)
		if (p->stack[k].scope != SCOPE_NONE)
			n = read_frames(s, &p->stack[k], d->stack_buf, n, cap);
	ev->stack = n ? d->stack_buf : NULL;
	ev->n_stack = n;
}

static const char *read_str(const struct event_scopes *s, const struct field_ref *r)
{
	const bt_field *f = member(s, r);

	return f ? bt_field_string_get_value(f) : NULL;
}

/* The kernel's comm for an exec'd file: its basename, cut to the 15
 * characters of TASK_COMM_LEN, so it matches what sched_switch reports. */
static const char *exec_comm(struct wperf_decoder *d, const char *filename)
{
	const char *base;

	if (!filename)
		return NULL;
	base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	snprintf(d->comm_buf, sizeof d->comm_buf, "%s", base);
	return d->comm_buf;
}

/* Fill the type-specific part; slot positions follow type_specs[]. */
static void fill_event(struct wperf_decoder *d, const struct event_plan *p,
		       const struct event_scopes *s, struct wperf_event *ev)
{
	const struct field_ref *f = p->slot;

	switch (ev->type) {
	case WPERF_EV_SWITCH:
		ev->u.sw.prev_tid = read_int(s, &f[0], -1);
		ev->u.sw.next_tid = read_int(s, &f[1], -1);
		ev->u.sw.prev_state = read_int(s, &f[2], 0);
		if (d->raw_task_dead_64 && ev->u.sw.prev_state == 64)
			ev->u.sw.prev_state |= WPERF_PREV_STATE_DEAD;
		ev->u.sw.prev_comm = read_str(s, &f[3]);
		ev->u.sw.next_comm = read_str(s, &f[4]);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		ev->u.wake.tid = read_int(s, &f[0], -1);
		/* Half of a scheduler trace is wakeups, and only a new
		 * thread's name is used (event.h): no string read for the rest. */
		if (ev->type == WPERF_EV_WAKEUP_NEW)
			ev->u.wake.comm = read_str(s, &f[1]);
		ev->u.wake.waking = p->waking;
		/* Where it will run: a CPU the trace must then show (cpus.h). */
		ev->u.wake.has_target_cpu = f[2].scope != SCOPE_NONE;
		ev->u.wake.target_cpu = (int)read_int(s, &f[2], -1);
		break;
	case WPERF_EV_FORK:
		ev->u.fork.parent_tid = read_int(s, &f[0], -1);
		ev->u.fork.parent_pid = read_int(s, &f[1], -1);
		ev->u.fork.child_tid = read_int(s, &f[2], -1);
		ev->u.fork.child_pid = read_int(s, &f[3], -1);
		ev->u.fork.child_comm = read_str(s, &f[4]);
		break;
	case WPERF_EV_EXEC:
		ev->u.task.tid = read_int(s, &f[0], -1);
		ev->u.task.comm = exec_comm(d, read_str(s, &f[1]));
		break;
	case WPERF_EV_EXIT:
	case WPERF_EV_FREE:
		ev->u.task.tid = read_int(s, &f[0], -1);
		ev->u.task.comm = read_str(s, &f[1]);
		break;
	case WPERF_EV_IRQ_ENTRY:
	case WPERF_EV_IRQ_EXIT:
		ev->u.irq.irq = read_int(s, &f[0], -1);
		ev->u.irq.name = ev->type == WPERF_EV_IRQ_ENTRY ? read_str(s, &f[1]) : NULL;
		break;
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
	case WPERF_EV_SOFTIRQ_RAISE:
		ev->u.softirq.vec = read_int(s, &f[0], -1);
		break;
	case WPERF_EV_TIMER_ENTRY:
	case WPERF_EV_TIMER_EXIT:
		break;
	case WPERF_EV_BLOCK_INSERT:
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
		ev->u.block.dev = (uint64_t)read_int(s, &f[0], 0);
		ev->u.block.sector = (uint64_t)read_int(s, &f[1], 0);
		ev->u.block.nr_sector = (uint64_t)read_int(s, &f[2], 0);
		ev->u.block.bytes = ev->type == WPERF_EV_BLOCK_COMPLETE
			? 0 : (uint64_t)read_int(s, &f[3], 0);
		ev->u.block.tid = ev->type == WPERF_EV_BLOCK_COMPLETE
			? -1 : read_int(s, &f[4], -1);
		break;
	case WPERF_EV_STATEDUMP_PROCESS:
		ev->u.statedump.tid = read_int(s, &f[0], -1);
		ev->u.statedump.pid = read_int(s, &f[1], -1);
		ev->u.statedump.ppid = read_int(s, &f[2], -1);
		ev->u.statedump.name = read_str(s, &f[3]);
		ev->u.statedump.status = read_int(s, &f[4], -1);
		break;
	case WPERF_EV_STATEDUMP_BLOCK_DEVICE:
		ev->u.blockdev.dev = (uint64_t)read_int(s, &f[0], 0);
		ev->u.blockdev.name = read_str(s, &f[1]);
		break;
	case WPERF_EV_SPIN_BEGIN:
	case WPERF_EV_SPIN_END:
		ev->u.spin.lock = (uint64_t)read_int(s, &f[0], 0);
		break;
	case WPERF_EV_PROGRESS:
		ev->u.progress.name = read_str(s, &f[0]);
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		ev->u.net.dev = read_str(s, &f[0]);
		ev->u.net.len = (uint64_t)read_int(s, &f[1], 0);
		break;
	case WPERF_EV_STACK:   /* whose stack it is; the frames: read_stack() */
		ev->current_tid = read_int(s, &f[0], -1);
		break;
	case WPERF_EV_FALSE_WAKEUP:
	case WPERF_EV_TYPE_COUNT:
		break;
	}
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

/* Two kernel traces are only one machine's history if their clocks say
 * so (LTTng's clock UUID is the boot id). Mixing hosts would merge
 * unrelated threads that happen to share a tid. */
static int check_same_machine(struct wperf_decoder *d, const bt_clock_class *cc,
			      char *err, size_t errlen)
{
	bt_uuid a, b;   /* 16 bytes each */

	if (!d->clock_class) {
		d->clock_class = cc;
		return 0;
	}
	if (cc == d->clock_class)
		return 0;
	a = bt_clock_class_get_uuid(d->clock_class);
	b = bt_clock_class_get_uuid(cc);
	if (a && b && memcmp(a, b, 16) != 0) {
		wperf_set_err(err, errlen, "the input holds kernel events of two machines or boots "
			"(their clock UUIDs differ): analyse one host's trace at a time");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Messages.                                                           */
/* ------------------------------------------------------------------ */

/* perf's mmap of "[kernel.kallsyms]_text": the kernel's text address
 * when perf recorded (its KASLR slide). Nothing else of perf_mmap is used. */
static int note_perf_mmap(struct wperf_decoder *d, const struct event_plan *p,
			  const bt_event *event)
{
	struct event_scopes s = { bt_event_borrow_payload_field_const(event), NULL, NULL };
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

/*
 * The default clock snapshot of any message but an event, or NULL when it
 * has none (streams without a clock, stream beginnings of unknown time,
 * packets without times). Every accessor's precondition is checked first:
 * the library does not check them at run time.
 */
static const bt_clock_snapshot *boundary_time(const bt_message *msg)
{
	const bt_clock_snapshot *cs = NULL;
	const bt_stream_class *sc;

	switch (bt_message_get_type(msg)) {
	case BT_MESSAGE_TYPE_EVENT:   /* decode_event() knows its stream's clock */
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
	/* Discarded items: their beginning is the time muxers order them by. */
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
	if (check_same_machine(d, st->clock, err, errlen) < 0)
		return -1;

	/* Field by field: a memset of the whole event became a `rep stos`
	 * that cost more than the rest of this function. */
	memset(&ev.u, 0, sizeof ev.u);
	ev.stack = NULL;
	ev.n_stack = 0;
	ev.type = (enum wperf_event_type)p->type;
	if (snapshot_ns(d->latest_time, &ev.ts, err, errlen) < 0)
		return -1;
	scopes.payload = bt_event_borrow_payload_field_const(event);
	scopes.common_ctx = bt_event_borrow_common_context_field_const(event);
	scopes.specific_ctx = bt_event_borrow_specific_context_field_const(event);
	ev.cpu = st->cpu;
	ev.current_tid = read_int(&scopes, &p->current_tid, -1);
	ev.current_pid = read_int(&scopes, &p->current_pid, -1);
	ev.context_flags = p->common_flags.scope == SCOPE_NONE ? WPERF_CTX_UNKNOWN
		: (int)(read_int(&scopes, &p->common_flags, 0) &
			(WPERF_CTX_HARDIRQ | WPERF_CTX_SOFTIRQ));
	fill_event(d, p, &scopes, &ev);
	if (ev.type == WPERF_EV_SWITCH || ev.type == WPERF_EV_STACK)
		read_stack(d, p, &scopes, &ev);
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
	struct event_scopes s = { ctx, NULL, NULL };

	if (!ctx)
		return;
	if (!st->cpu_ref_resolved) {
		/* SCOPE_PAYLOAD stands for "the structure in s.payload" here. */
		if (!find_member(bt_field_borrow_class_const(ctx), SCOPE_PAYLOAD,
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

/* The boundaries below get their message's time from boundary_time()
 * (cs, NULL when it has none): the one place that knows which carry one. */

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
	}
	wperf_analysis_discarded(a, st->cpu, packets, count, begin, end);
	if (d->also)
		wperf_analysis_discarded(d->also, st->cpu, packets, count, begin, end);
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

	if (bt_message_get_type(msg) != BT_MESSAGE_TYPE_EVENT)
		cs = boundary_time(msg);
	else if (bt_message_event_borrow_stream_class_default_clock_class_const(msg))
		cs = bt_message_event_borrow_default_clock_snapshot_const(msg);
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
		cs = boundary_time(msg);
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
