/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/decode-layout.h — the kernel event layouts the decoder
 * reads, and the "event plan" that says where each value lives.
 *
 * One kind of event (a context switch, a wakeup, a block request) has a
 * different name and different member names in each layout: LTTng modules
 * 2.0 to 2.13 (and source.wperf.tracefs, which writes the same names), perf
 * CTF (`sched:sched_switch`, prev_pid for the tid, perf_tid and
 * common_flags in the payload), and our LTTng-UST provider's annotations.
 * decode-layout.c holds that table and, once per event class, turns it
 * into a plan of member indexes (wperf_plan_build()); decode.c keeps the
 * plans and reads every event through them (wperf_plan_read_event():
 * straight-line readers for the layouts of most events, resolved once
 * per class, else wperf_plan_fill_event()). The readers run for every
 * event, hence inline here.
 */
#ifndef WPERF_PLUGIN_DECODE_LAYOUT_H
#define WPERF_PLUGIN_DECODE_LAYOUT_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "wperf/event.h"
#include "wperf/graph.h"   /* WPERF_STACK_MAX_FRAMES */

enum value_kind { WANT_INT, WANT_STR, WANT_INT_ARRAY };

#define MAX_SLOTS 6

enum field_scope { SCOPE_NONE, SCOPE_PAYLOAD, SCOPE_COMMON_CTX, SCOPE_SPECIFIC_CTX };

/* How the decoder reads an event of a class: through the generic
 * reader (any type, any scope), or, for the events that make most of a
 * scheduler trace when all their values sit in the payload and the
 * class has no context values or stacks (LTTng's kernel layout, the
 * tracefs recorder's), straight through the payload. */
enum plan_reader { READ_GENERIC, READ_PAYLOAD_SWITCH, READ_PAYLOAD_WAKEUP };

/* Where one value lives in every event of a class. */
struct field_ref {
	enum field_scope scope;   /* SCOPE_NONE: the class does not carry it */
	uint64_t index;           /* member index within that scope's structure */
	bool is_signed;
};

/* What the decoder reads from every event of one class. slot[] follows
 * the order of that type's values in decode-layout.c's table. */
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
	/* Whether any value above lives in the event's common or specific
	 * context: the decoder borrows a context only when it is read. */
	bool reads_common_ctx, reads_specific_ctx;
	/* Whether the class carries current_tid, current_pid or
	 * common_flags at all (LTTng's kernel events without contexts do
	 * not): the decoder skips the three reads when not. */
	bool reads_current;
	/* How an event of the class is read, chosen once per class. */
	enum plan_reader reader;
};

/* Fill p for event class ec (p->type -1: not an event the analysis reads). */
void wperf_plan_build(const bt_event_class *ec, struct event_plan *p);

/* Find member `name` of kind `kind` in structure field class fc (of
 * scope `scope`); false when fc has none. */
bool wperf_plan_find_member(const bt_field_class *fc, enum field_scope scope,
			    const char *name, enum value_kind kind, struct field_ref *out);

/*
 * Kernels before 4.14 report a switch's raw task state, in which a task's
 * last switch says TASK_DEAD, 64 (event.h WPERF_PREV_STATE_DEAD). Traces
 * without sched_process_exit (ref-basic-kernel-analysis, Linux 4.4) have
 * no other word of a thread's death: without this it would wait forever.
 */
bool wperf_layout_raw_task_dead(const char *release);

/* The event's structure for each scope, by enum field_scope (base[SCOPE_NONE]
 * always NULL): resolved per event, since the structures belong to the
 * event. An array, not a switch: every value an event gives is read
 * through it (a jump per read cost a sixth of the decoder). */
struct event_scopes {
	const bt_field *base[4];
};

static inline const bt_field *member(const struct event_scopes *s, const struct field_ref *r)
{
	const bt_field *base = s->base[r->scope];

	return base ? bt_field_structure_borrow_member_field_by_index_const(base, r->index)
		    : NULL;
}

/* Any integer (signed or unsigned, any width, enumerations too), as the
 * 64 bits the kernel wrote; dflt when the class does not carry it. */
static inline int64_t read_int(const struct event_scopes *s, const struct field_ref *r, int64_t dflt)
{
	const bt_field *f = member(s, r);

	if (!f)
		return dflt;
	if (r->is_signed)
		return bt_field_integer_signed_get_value(f);
	return (int64_t)bt_field_integer_unsigned_get_value(f);
}

static inline const char *read_str(const struct event_scopes *s, const struct field_ref *r)
{
	const bt_field *f = member(s, r);

	return f ? bt_field_string_get_value(f) : NULL;
}

/* An integer member of the payload, as read_int() reads it. */
static inline int64_t payload_int(const bt_field *payload, const struct field_ref *r)
{
	const bt_field *f = bt_field_structure_borrow_member_field_by_index_const(payload,
										  r->index);

	return r->is_signed ? bt_field_integer_signed_get_value(f)
			    : (int64_t)bt_field_integer_unsigned_get_value(f);
}

static inline const char *payload_str(const bt_field *payload, const struct field_ref *r)
{
	return bt_field_string_get_value(
		bt_field_structure_borrow_member_field_by_index_const(payload, r->index));
}

/* READ_PAYLOAD_SWITCH: what wperf_plan_fill_event() reads of a switch. */
static inline void wperf_plan_read_switch(const struct event_plan *p, const bt_field *payload,
					  bool raw_task_dead_64, struct wperf_event *ev)
{
	ev->u.sw.prev_tid = payload_int(payload, &p->slot[0]);
	ev->u.sw.next_tid = payload_int(payload, &p->slot[1]);
	ev->u.sw.prev_state = payload_int(payload, &p->slot[2]);
	if (raw_task_dead_64 && ev->u.sw.prev_state == 64)
		ev->u.sw.prev_state |= WPERF_PREV_STATE_DEAD;
	ev->u.sw.prev_comm = payload_str(payload, &p->slot[3]);
	ev->u.sw.next_comm = payload_str(payload, &p->slot[4]);
}

/* READ_PAYLOAD_WAKEUP: what wperf_plan_fill_event() reads of a wakeup
 * (not a new thread's: its comm is read too). */
static inline void wperf_plan_read_wakeup(const struct event_plan *p, const bt_field *payload,
					  struct wperf_event *ev)
{
	ev->u.wake.tid = payload_int(payload, &p->slot[0]);
	ev->u.wake.waking = p->waking;
	ev->u.wake.has_target_cpu = true;
	ev->u.wake.target_cpu = (int)payload_int(payload, &p->slot[2]);
}

/* The decoder's buffers an event's strings and stack point into, valid
 * until the next event. */
struct wperf_plan_buffers {
	char comm[16];       /* exec: basename of the file, as the kernel's comm */
	uint64_t stack[2 * WPERF_STACK_MAX_FRAMES];
};

/* The generic reader: fill ev's current thread and context where the
 * class carries them, its type-specific part (ev->type set) from the
 * event's scopes, and for a switch or a stack event its call stack.
 * raw_task_dead_64: the trace's kernel reports TASK_DEAD as 64
 * (wperf_layout_raw_task_dead()). */
void wperf_plan_fill_event(const struct event_plan *p, const struct event_scopes *s,
			   bool raw_task_dead_64, struct wperf_plan_buffers *buf,
			   struct wperf_event *ev);

/* Read an event of plan p into ev (type, time, CPU, zeroed union and no
 * stack set) through the plan's reader. */
static inline void wperf_plan_read_event(const struct event_plan *p, const struct event_scopes *s,
					 bool raw_task_dead_64, struct wperf_plan_buffers *buf,
					 struct wperf_event *ev)
{
	ev->current_tid = ev->current_pid = -1;
	ev->context_flags = WPERF_CTX_UNKNOWN;
	if (p->reader == READ_PAYLOAD_SWITCH)
		wperf_plan_read_switch(p, s->base[SCOPE_PAYLOAD], raw_task_dead_64, ev);
	else if (p->reader == READ_PAYLOAD_WAKEUP)
		wperf_plan_read_wakeup(p, s->base[SCOPE_PAYLOAD], ev);
	else
		wperf_plan_fill_event(p, s, raw_task_dead_64, buf, ev);
}

#endif
