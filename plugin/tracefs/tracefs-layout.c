/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-layout.c — the ftrace → LTTng (lttng-modules 2.13) event
 * mapping, and the code that decodes a raw ftrace record into the payload
 * of a babeltrace2 event. Which tracepoints, in which order, and which
 * of them are required is wperf/kernel-events.h's list.
 */
#include "tracefs-layout.h"
#include "wperf/kernel-events.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define F(n, k, f) { n, WPERF_OUT_##k, f, WPERF_SRC_FIELD }
#define PRIO(n, f) { n, WPERF_OUT_S32, f, WPERF_SRC_PRIO }
#define TGID(n, f) { n, WPERF_OUT_S32, f, WPERF_SRC_TGID }
#define RWBS(n, f) { n, WPERF_OUT_U32, f, WPERF_SRC_RWBS }

/* Frames kept of a kernel stack (the kernel's own limit is about 64). */
#define WPERF_STACK_FRAMES_MAX 64
#define CURRENT_TID(n) { n, WPERF_OUT_S32, NULL, WPERF_SRC_COMMON_PID }
#define CHILD_TGID(n, f) { n, WPERF_OUT_S32, f, WPERF_SRC_CHILD_TGID }

/* sched_waking, sched_wakeup and sched_wakeup_new share one layout. */
#define WAKEUP_FIELDS { F("comm", STRING, "comm"), F("tid", S32, "pid"), \
	PRIO("prio", "prio"), F("target_cpu", S32, "target_cpu") }
#define TASK_FIELDS { F("comm", STRING, "comm"), F("tid", S32, "pid"), \
	PRIO("prio", "prio") }
#define BLOCK_RQ_FIELDS { F("dev", U32, "dev"), F("sector", U64, "sector"), \
	F("nr_sector", U32, "nr_sector"), F("bytes", U32, "bytes"), \
	CURRENT_TID("tid"), RWBS("rwbs", "rwbs"), F("comm", STRING, "comm") }
#define SOFTIRQ_FIELDS { F("vec", U32, "vec") }

/* Each tracepoint's fields, by its id in wperf/kernel-events.h: a
 * tracepoint added there without its fields here does not compile. */
#define FIELDS_SCHED_SWITCH { \
	F("prev_comm", STRING, "prev_comm"), F("prev_tid", S32, "prev_pid"), \
	PRIO("prev_prio", "prev_prio"), F("prev_state", S64, "prev_state"), \
	F("next_comm", STRING, "next_comm"), F("next_tid", S32, "next_pid"), \
	PRIO("next_prio", "next_prio") }
/* sched_waking appeared in Linux 4.3; the recorder falls back to
 * sched_wakeup without it (and records sched_wakeup only then). */
#define FIELDS_SCHED_WAKING WAKEUP_FIELDS
#define FIELDS_SCHED_WAKEUP WAKEUP_FIELDS
#define FIELDS_SCHED_WAKEUP_NEW WAKEUP_FIELDS
#define FIELDS_SCHED_PROCESS_FORK { \
	F("parent_comm", STRING, "parent_comm"), \
	F("parent_tid", S32, "parent_pid"), TGID("parent_pid", "parent_pid"), \
	F("child_comm", STRING, "child_comm"), \
	F("child_tid", S32, "child_pid"), CHILD_TGID("child_pid", "child_pid") }
/* Not an LTTng event: its clone flags say whether the child of the
 * sched_process_fork that follows is a thread (CLONE_THREAD) of its
 * parent's process or a new process, which /proc can no longer tell
 * once a short-lived thread is gone. */
#define FIELDS_TASK_NEWTASK { \
	F("tid", S32, "pid"), { "clone_flags", WPERF_OUT_HEX64, "clone_flags", \
				WPERF_SRC_CLONE } }
#define FIELDS_SCHED_PROCESS_EXEC { \
	F("filename", STRING, "filename"), F("tid", S32, "pid"), \
	F("old_tid", S32, "old_pid") }
#define FIELDS_SCHED_PROCESS_EXIT TASK_FIELDS
#define FIELDS_SCHED_PROCESS_FREE TASK_FIELDS
#define FIELDS_IRQ_HANDLER_ENTRY { F("irq", S32, "irq"), F("name", STRING, "name") }
#define FIELDS_IRQ_HANDLER_EXIT { F("irq", S32, "irq"), F("ret", S32, "ret") }
#define FIELDS_SOFTIRQ_ENTRY SOFTIRQ_FIELDS
#define FIELDS_SOFTIRQ_EXIT SOFTIRQ_FIELDS
#define FIELDS_SOFTIRQ_RAISE SOFTIRQ_FIELDS
#define FIELDS_HRTIMER_EXPIRE_ENTRY { \
	F("hrtimer", HEX64, "hrtimer"), F("now", S64, "now"), \
	F("function", HEX64, "function") }
#define FIELDS_HRTIMER_EXPIRE_EXIT { F("hrtimer", HEX64, "hrtimer") }
#define FIELDS_TIMER_EXPIRE_ENTRY { \
	F("timer", HEX64, "timer"), F("now", U64, "now"), \
	F("function", HEX64, "function") }
#define FIELDS_TIMER_EXPIRE_EXIT { F("timer", HEX64, "timer") }
#define FIELDS_BLOCK_RQ_INSERT BLOCK_RQ_FIELDS
#define FIELDS_BLOCK_RQ_ISSUE BLOCK_RQ_FIELDS
#define FIELDS_BLOCK_RQ_COMPLETE { \
	F("dev", U32, "dev"), F("sector", U64, "sector"), \
	F("nr_sector", U32, "nr_sector"), F("error", S32, "error"), \
	RWBS("rwbs", "rwbs") }
#define FIELDS_NET_DEV_XMIT { \
	F("skbaddr", HEX64, "skbaddr"), F("rc", S32, "rc"), \
	F("len", U32, "len"), F("name", STRING, "name") }
#define FIELDS_NETIF_RECEIVE_SKB { \
	F("skbaddr", HEX64, "skbaddr"), F("len", U32, "len"), \
	F("name", STRING, "name") }

#define LAYOUT(id, system, event, name, lttng_name, flags) \
	{ system, event, name, WPERF_KEV_REQUIRED_BY_FTRACE(flags), FIELDS_##id, \
	  ((flags) & WPERF_KEV_FTRACE_FALLBACK) != 0 },

const struct wperf_layout wperf_layouts[] = {
	WPERF_KERNEL_TRACEPOINTS(LAYOUT)
	/* The kernel stack of the thread switching out, written by the
	 * stacktrace trigger right after its sched_switch. */
	{ "ftrace", "kernel_stack", "wperf_kernel_stack", false, {
		CURRENT_TID("tid"), { "ips", WPERF_OUT_STACK, "caller", WPERF_SRC_FIELD } }, false },
	{ NULL, NULL, NULL, false, { { NULL, 0, NULL, 0 } }, false },
};

/* The order of these fields is relied on by tracefs-statedump.c. */
const struct wperf_layout wperf_statedump_process_layout = {
	NULL, NULL, "lttng_statedump_process_state", false, {
		F("tid", S32, NULL), F("pid", S32, NULL), F("ppid", S32, NULL),
		F("name", STRING, NULL), F("type", S32, NULL),
		F("status", S32, NULL), F("cpu", S32, NULL) }, false };
const struct wperf_layout wperf_statedump_block_device_layout = {
	NULL, NULL, "lttng_statedump_block_device", false, {
		F("dev", U32, NULL), F("diskname", STRING, NULL) }, false };
const struct wperf_layout wperf_statedump_start_layout = {
	NULL, NULL, "lttng_statedump_start", false, { { NULL, 0, NULL, 0 } }, false };
const struct wperf_layout wperf_statedump_end_layout = {
	NULL, NULL, "lttng_statedump_end", false, { { NULL, 0, NULL, 0 } }, false };

static bt_field_class *create_field_class(bt_trace_class *tc,
					  enum wperf_out_kind kind)
{
	bt_field_class *fc;

	switch (kind) {
	case WPERF_OUT_STRING:
		return bt_field_class_string_create(tc);
	case WPERF_OUT_STACK: {
		bt_field_class *addr = create_field_class(tc, WPERF_OUT_HEX64);
		fc = addr ? bt_field_class_array_dynamic_create(tc, addr, NULL) : NULL;
		bt_field_class_put_ref(addr);
		return fc;
	}
	case WPERF_OUT_S32:
	case WPERF_OUT_S64:
		fc = bt_field_class_integer_signed_create(tc);
		break;
	default:
		fc = bt_field_class_integer_unsigned_create(tc);
		break;
	}
	if (!fc)
		return NULL;
	bt_field_class_integer_set_field_value_range(fc,
		kind == WPERF_OUT_S32 || kind == WPERF_OUT_U32 ? 32 : 64);
	if (kind == WPERF_OUT_HEX64)
		bt_field_class_integer_set_preferred_display_base(fc,
			BT_FIELD_CLASS_INTEGER_PREFERRED_DISPLAY_BASE_HEXADECIMAL);
	return fc;
}

static bt_field_class *create_payload_class(const struct wperf_layout *l,
					    bt_trace_class *tc)
{
	bt_field_class *payload = bt_field_class_structure_create(tc);

	for (int i = 0; payload && i < WPERF_LAYOUT_MAX_FIELDS && l->fields[i].name; i++) {
		bt_field_class *member = create_field_class(tc, l->fields[i].kind);

		if (!member || bt_field_class_structure_append_member(payload,
				l->fields[i].name, member)) {
			bt_field_class_put_ref(member);
			bt_field_class_put_ref(payload);
			return NULL;
		}
		bt_field_class_put_ref(member);
	}
	return payload;
}

bt_event_class *wperf_layout_create_event_class(const struct wperf_layout *l,
						bt_stream_class *sc)
{
	bt_trace_class *tc = bt_stream_class_borrow_trace_class(sc);
	bt_event_class *ec = bt_event_class_create(sc);
	bt_field_class *payload;

	if (!ec || bt_event_class_set_name(ec, l->name))
		goto error;
	if (!l->fields[0].name)
		return ec;  /* no payload, like lttng_statedump_start */
	payload = create_payload_class(l, tc);
	if (!payload || bt_event_class_set_payload_field_class(ec, payload)) {
		bt_field_class_put_ref(payload);
		goto error;
	}
	bt_field_class_put_ref(payload);
	return ec;
error:
	bt_event_class_put_ref(ec);
	return NULL;
}

void wperf_layout_bind_fields(struct wperf_bound_layout *b)
{
	for (int i = 0; i < WPERF_LAYOUT_MAX_FIELDS; i++) {
		const struct wperf_out_field *f = &b->layout->fields[i];

		b->src[i] = f->name && f->from ?
			tep_find_any_field(b->format, f->from) : NULL;
	}
}

/*
 * A number field of the record, sign-extended when the kernel says so.
 * Read in place: the record comes from this machine's kernel, in its byte
 * order (tep_read_number_field() would convert for another host's, at
 * ten times the cost, on every field of every event).
 */
static int64_t read_number(const struct tep_format_field *field,
			   const struct tep_record *record)
{
	const char *p;
	bool is_signed;

	if (!field || field->offset < 0 || field->offset + field->size > record->size)
		return 0;
	p = (const char *)record->data + field->offset;
	is_signed = (field->flags & TEP_FIELD_IS_SIGNED) != 0;
	switch (field->size) {
	case 1: { uint8_t v = (uint8_t)*p; return is_signed ? (int64_t)(int8_t)v : (int64_t)v; }
	case 2: { uint16_t v; memcpy(&v, p, 2); return is_signed ? (int64_t)(int16_t)v : (int64_t)v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return is_signed ? (int64_t)(int32_t)v : (int64_t)v; }
	case 8: { uint64_t v; memcpy(&v, p, 8); return (int64_t)v; }
	default: return 0;
	}
}

/*
 * Thread group ids learned so far, by tid: records are converted a little
 * after they happen, and at the end of a recording some threads have
 * exited, so /proc no longer knows them. What was learned while they
 * lived is used then; without it a late lookup would call a thread of a
 * multi-threaded process a process of its own. One slot per tid modulo
 * the table size: a clash forgets the older entry, never returns a wrong
 * one (the tid is kept beside the tgid).
 */
#define TGID_SLOTS 65536
static struct { int64_t tid, tgid; } tgid_cache[TGID_SLOTS];

static int64_t *cached_tgid(int64_t tid)
{
	size_t slot = (size_t)tid % TGID_SLOTS;

	return tgid_cache[slot].tid == tid ? &tgid_cache[slot].tgid : NULL;
}

static void remember_tgid(int64_t tid, int64_t tgid)
{
	size_t slot = (size_t)tid % TGID_SLOTS;

	tgid_cache[slot].tid = tid;
	tgid_cache[slot].tgid = tgid;
}

/*
 * The thread group id of a tid, read from /proc while the thread is (most
 * likely) still alive: this runs within a fraction of a second of the
 * event. Then what an earlier lookup found; last, the tid itself (right
 * for single-threaded processes).
 */
static int64_t tgid_of(int64_t tid)
{
	char path[64], line[128];
	int64_t tgid = 0, *cached;
	FILE *f;

	if (tid <= 0)
		return tid;
	snprintf(path, sizeof(path), "/proc/%lld/status", (long long)tid);
	f = fopen(path, "r");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (strncmp(line, "Tgid:", 5) == 0) {
				tgid = strtoll(line + 5, NULL, 10);
				break;
			}
		}
		fclose(f);
	}
	if (tgid > 0) {
		remember_tgid(tid, tgid);
		return tgid;
	}
	cached = cached_tgid(tid);
	return cached ? *cached : tid;
}

/* lttng-modules' RWBS_FLAG_* (instrumentation/events/block.h). */
enum {
	RWBS_WRITE = 1 << 0, RWBS_DISCARD = 1 << 1, RWBS_READ = 1 << 2,
	RWBS_RAHEAD = 1 << 3, RWBS_SYNC = 1 << 5, RWBS_META = 1 << 6,
	RWBS_SECURE = 1 << 7, RWBS_FLUSH = 1 << 8, RWBS_FUA = 1 << 9,
	RWBS_PREFLUSH = 1 << 10,
};

/*
 * blk_fill_rwbs writes an optional 'F' (preflush), one operation ('W',
 * 'D' or "DE" for a secure erase, 'F' for a flush, 'R', 'N' for none),
 * then flags: 'F' (FUA), 'A' (read-ahead), 'S' (sync), 'M' (metadata).
 * Letters it may add later are ignored.
 */
uint32_t wperf_rwbs_flags(const char *rwbs)
{
	const char *p = rwbs;
	uint32_t flags = 0;

	if (p[0] == 'F' && p[1] && strchr("WDFRN", p[1])) {
		flags |= RWBS_PREFLUSH;
		p++;
	}
	switch (*p) {
	case 'W': flags |= RWBS_WRITE; break;
	case 'R': flags |= RWBS_READ; break;
	case 'F': flags |= RWBS_FLUSH; break;
	case 'D':
		flags |= RWBS_DISCARD;
		if (p[1] == 'E') {
			flags |= RWBS_SECURE;
			p++;
		}
		break;
	case 'N': break;
	default: return flags;
	}
	for (p++; *p; p++) {
		if (*p == 'F')
			flags |= RWBS_FUA;
		else if (*p == 'A')
			flags |= RWBS_RAHEAD;
		else if (*p == 'S')
			flags |= RWBS_SYNC;
		else if (*p == 'M')
			flags |= RWBS_META;
	}
	return flags;
}

/*
 * Where a string field's bytes are in the record, and how many it may
 * hold: a fixed array (comm), or a __data_loc / __rel_loc one whose 32-bit
 * slot says offset (low 16 bits) and length (high 16). NULL when it
 * reaches outside the record.
 */
static const char *string_bytes(const struct tep_format_field *field,
				const struct tep_record *record, size_t *len)
{
	int offset, size;

	if (!field || field->offset < 0 || field->offset + field->size > record->size)
		return NULL;
	offset = field->offset;
	size = field->size;
	if (field->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (field->size != 4)
			return NULL;
		memcpy(&loc, (const char *)record->data + field->offset, 4);
		offset = (int)(loc & 0xffff);
		size = (int)(loc >> 16);
		if (field->flags & TEP_FIELD_IS_RELATIVE)
			offset += field->offset + field->size;
	}
	if (size <= 0 || offset >= record->size)
		return NULL;
	*len = (size_t)size < (size_t)(record->size - offset) ?
		(size_t)size : (size_t)(record->size - offset);
	return (const char *)record->data + offset;
}

/* A string field into buf (NUL-terminated), bounded by the record and
 * by buf. */
static void read_string(const struct tep_format_field *field,
			const struct tep_record *record, char *buf, size_t size)
{
	size_t max = 0, n = 0;
	const char *raw = string_bytes(field, record, &max);

	if (raw) {
		if (max > size - 1)
			max = size - 1;
		n = strnlen(raw, max);
		memcpy(buf, raw, n);
	}
	buf[n] = '\0';
}

/* Copy a string field, bounded by the record. */
static int set_string_from_record(bt_field *member, const struct tep_format_field *field,
				  const struct tep_record *record)
{
	char buf[4096];

	read_string(field, record, buf, sizeof(buf));
	return bt_field_string_set_value(member, buf) ==
		BT_FIELD_STRING_SET_VALUE_STATUS_OK ? 0 : -1;
}

/*
 * The frames of ftrace's kernel_stack entry: its format declares
 * caller[8], but the kernel writes as many as the stack has (`size`
 * entries, bounded here by what the record holds), ending early at a
 * zero or ULONG_MAX slot.
 */
static int set_stack_from_record(bt_field *member, struct tep_format_field *caller,
				 const struct tep_record *record)
{
	uint64_t n = 0, max;

	if (caller && caller->offset >= 0 && caller->offset < record->size)
		max = (uint64_t)(record->size - caller->offset) / 8;
	else
		max = 0;
	if (max > WPERF_STACK_FRAMES_MAX)
		max = WPERF_STACK_FRAMES_MAX;
	while (n < max) {
		uint64_t ip;
		memcpy(&ip, (const char *)record->data + caller->offset + 8 * n, 8);
		if (ip == 0 || ip == UINT64_MAX)
			break;
		n++;
	}
	if (bt_field_array_dynamic_set_length(member, n) !=
	    BT_FIELD_DYNAMIC_ARRAY_SET_LENGTH_STATUS_OK)
		return -1;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t ip;
		memcpy(&ip, (const char *)record->data + caller->offset + 8 * i, 8);
		bt_field_integer_unsigned_set_value(
			bt_field_array_borrow_element_field_by_index(member, i), ip);
	}
	return 0;
}

/*
 * Clone flags of the threads task_newtask announced, by child tid, until
 * their sched_process_fork (which follows on the same CPU) reads them.
 */
#define CLONE_SLOTS 4096
#define CLONE_THREAD_FLAG 0x00010000ull
static struct { int64_t tid, parent; uint64_t flags; } clones[CLONE_SLOTS];

static uint64_t remember_clone(int64_t child, int64_t parent, uint64_t flags)
{
	size_t slot = (size_t)child % CLONE_SLOTS;

	clones[slot].tid = child;
	clones[slot].parent = parent;
	clones[slot].flags = flags;
	return flags;
}

/* The thread group of a child just forked: its parent's when it is a
 * thread (CLONE_THREAD), its own tid when a new process; /proc otherwise. */
static int64_t child_tgid(int64_t child)
{
	size_t slot = (size_t)child % CLONE_SLOTS;
	int64_t tgid;

	if (child <= 0 || clones[slot].tid != child)
		return tgid_of(child);
	tgid = (clones[slot].flags & CLONE_THREAD_FLAG) ? tgid_of(clones[slot].parent) : child;
	clones[slot].tid = 0;
	remember_tgid(child, tgid);
	return tgid;
}

static int64_t field_value(const struct wperf_bound_layout *b, int i,
			   int64_t common_pid, struct tep_record *record)
{
	const struct wperf_out_field *f = &b->layout->fields[i];

	switch (f->source) {
	case WPERF_SRC_PRIO:
		return read_number(b->src[i], record) - 100;
	case WPERF_SRC_TGID:
		return tgid_of(read_number(b->src[i], record));
	case WPERF_SRC_COMMON_PID:
		return common_pid;
	case WPERF_SRC_CHILD_TGID:
		return child_tgid(read_number(b->src[i], record));
	case WPERF_SRC_RWBS: {
		char rwbs[16];

		read_string(b->src[i], record, rwbs, sizeof(rwbs));
		return wperf_rwbs_flags(rwbs);
	}
	case WPERF_SRC_CLONE:
		/* The layout's first field is the child's tid (pid). */
		return (int64_t)remember_clone(read_number(b->src[0], record),
					       common_pid,
					       (uint64_t)read_number(b->src[i], record));
	default:
		return read_number(b->src[i], record);
	}
}

int wperf_layout_fill(const struct wperf_bound_layout *b, int64_t common_pid,
		      struct tep_record *record, bt_field *payload)
{
	for (int i = 0; i < WPERF_LAYOUT_MAX_FIELDS && b->layout->fields[i].name; i++) {
		const struct wperf_out_field *f = &b->layout->fields[i];
		bt_field *member = bt_field_structure_borrow_member_field_by_index(
			payload, (uint64_t)i);

		switch (f->kind) {
		case WPERF_OUT_STRING:
			if (set_string_from_record(member, b->src[i], record))
				return -1;
			break;
		case WPERF_OUT_S32:
		case WPERF_OUT_S64:
			bt_field_integer_signed_set_value(member,
				field_value(b, i, common_pid, record));
			break;
		case WPERF_OUT_STACK:
			if (set_stack_from_record(member, b->src[i], record))
				return -1;
			break;
		default:
			bt_field_integer_unsigned_set_value(member,
				(uint64_t)field_value(b, i, common_pid, record));
			break;
		}
	}
	return 0;
}

void wperf_payload_set_int(bt_field *payload, uint64_t idx, int64_t value)
{
	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, idx), value);
}

void wperf_payload_set_uint(bt_field *payload, uint64_t idx, uint64_t value)
{
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, idx), value);
}

int wperf_payload_set_string(bt_field *payload, uint64_t idx, const char *s)
{
	return bt_field_string_set_value(
		bt_field_structure_borrow_member_field_by_index(payload, idx), s) ==
		BT_FIELD_STRING_SET_VALUE_STATUS_OK ? 0 : -1;
}
