/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/decode-layout.c — which kernel events the analysis reads,
 * under their name in each trace layout, and where their values are.
 *
 * Layouts recognised (ECOSYSTEM.md, "Kernel event layouts"):
 *   - LTTng modules 2.0 to 2.13 (and the tracefs recorder, which writes the
 *     same names): `sched_switch` with prev_tid/next_tid, ...
 *   - perf CTF: `sched:sched_switch` with prev_pid/next_pid (which are
 *     tids), every event carrying perf_tid and common_flags in its payload.
 *   - our LTTng-UST provider's annotations (wperf:*).
 * The table below is the whole of that knowledge; wperf_plan_build() turns
 * it into member indexes once per event class, and wperf_plan_fill_event()
 * reads an event through them (decode-layout.h). decode.c does the rest:
 * messages, streams and time.
 */
#include "decode-layout.h"
#include "tcp-key.h"

#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* What to read from each kind of event.                               */
/* ------------------------------------------------------------------ */

/* One value an event type needs, under its LTTng and its perf name. A NULL
 * name means the layout does not carry it (e.g. perf's parent_pid is a tid,
 * not the tgid LTTng's parent_pid is, so it must not fill that slot). */
struct slot_spec {
	const char *lttng_name;
	const char *perf_name;
	enum value_kind kind;
	bool required;       /* without it the event class is not ours */
};

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
		{ "tid", NULL, WANT_INT, OPT },
		{ "rwbs", NULL, WANT_INT, OPT } } },
	{ WPERF_EV_BLOCK_ISSUE, { "block_rq_issue" }, {
		{ "dev", "dev", WANT_INT, REQ },
		{ "sector", "sector", WANT_INT, REQ },
		{ "nr_sector", "nr_sector", WANT_INT, REQ },
		{ "bytes", "bytes", WANT_INT, OPT },
		{ "tid", NULL, WANT_INT, OPT },
		{ "rwbs", NULL, WANT_INT, OPT } } },
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
		{ "len", "len", WANT_INT, REQ },
		{ "skbaddr", "skbaddr", WANT_INT, OPT } } },
	/* lttng-modules 2.13 records netif_receive_skb as net_if_receive_skb
	 * (from 2.9 with the TCP header, read by name: tcp-key.h). */
	{ WPERF_EV_NET_RECV, { "netif_receive_skb", "net_if_receive_skb" }, {
		{ "name", "name", WANT_STR, REQ },
		{ "len", "len", WANT_INT, REQ },
		{ "skbaddr", "skbaddr", WANT_INT, OPT } } },
	/* Only their TCP key: the packet's bytes are net_dev_xmit's. */
	{ WPERF_EV_TCP_SEND, { "inet_sock_local_out", "net_dev_queue" }, { { 0 } } },
	{ WPERF_EV_TCP_RECV, { "inet_sock_local_in" }, { { 0 } } },
	/* source.wperf.tracefs with stacks="kernel": ftrace's kernel_stack
	 * entry after each sched_switch (the frames are read by find_stacks). */
	{ WPERF_EV_STACK, { "wperf_kernel_stack" }, {
		{ "tid", NULL, WANT_INT, REQ },
		{ "ips", NULL, WANT_INT_ARRAY, REQ } } },
};

/* perf names its tracepoints "subsystem:event"; these are the subsystems
 * whose events we read. */
static const char *const perf_prefixes[] = { "sched:", "irq:", "timer:", "block:", "net:" };

bool wperf_layout_raw_task_dead(const char *release)
{
	unsigned major, minor;

	return sscanf(release, "%u.%u", &major, &minor) == 2 &&
		(major < 4 || (major == 4 && minor < 14));
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
bool wperf_plan_find_member(const bt_field_class *fc, enum field_scope scope,
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
	    (wperf_plan_find_member(bt_stream_class_borrow_event_common_context_field_class_const(sc),
			 SCOPE_COMMON_CTX, ctx_name, WANT_INT, out) ||
	     wperf_plan_find_member(bt_event_class_borrow_specific_context_field_class_const(ec),
			 SCOPE_SPECIFIC_CTX, ctx_name, WANT_INT, out)))
		return;
	if (payload_name)
		wperf_plan_find_member(bt_event_class_borrow_payload_field_class_const(ec),
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
					wperf_plan_find_member(scopes[sc_i], scope_ids[sc_i], names[n][k],
						    WANT_INT_ARRAY, &p->stack[k]);
	}
}

/* Which contexts the plan reads (every reference it holds is one). */
static void note_scopes_read(struct event_plan *p)
{
	const struct field_ref *refs[MAX_SLOTS + 5] = {
		&p->current_tid, &p->current_pid, &p->common_flags, &p->stack[0], &p->stack[1],
	};

	for (size_t i = 0; i < MAX_SLOTS; i++)
		refs[5 + i] = &p->slot[i];
	for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
		p->reads_common_ctx |= refs[i]->scope == SCOPE_COMMON_CTX;
		p->reads_specific_ctx |= refs[i]->scope == SCOPE_SPECIFIC_CTX;
	}
	p->reads_current = p->current_tid.scope != SCOPE_NONE ||
			   p->current_pid.scope != SCOPE_NONE ||
			   p->common_flags.scope != SCOPE_NONE;
}

static bool in_payload(const struct event_plan *p, int first, int last)
{
	for (int i = first; i <= last; i++)
		if (p->slot[i].scope != SCOPE_PAYLOAD)
			return false;
	return true;
}

/* The plan's reader (decode-layout.h enum plan_reader). */
static enum plan_reader reader_of(const struct event_plan *p)
{
	if (p->reads_current || p->stack[0].scope != SCOPE_NONE ||
	    p->stack[1].scope != SCOPE_NONE)
		return READ_GENERIC;
	if (p->type == WPERF_EV_SWITCH && in_payload(p, 0, 4))
		return READ_PAYLOAD_SWITCH;
	if (p->type == WPERF_EV_WAKEUP && in_payload(p, 0, 0) && in_payload(p, 2, 2))
		return READ_PAYLOAD_WAKEUP;
	return READ_GENERIC;
}

void wperf_plan_build(const bt_event_class *ec, struct event_plan *p)
{
	const char *name = bt_event_class_get_name(ec);
	const bt_field_class *payload = bt_event_class_borrow_payload_field_class_const(ec);
	const struct type_spec *spec;
	bool perf;

	memset(p, 0, sizeof *p);
	p->type = -1;
	p->unreadable_type = -1;
	if (name && strcmp(name, "perf_mmap") == 0) {
		p->perf_mmap = wperf_plan_find_member(payload, SCOPE_PAYLOAD, "start", WANT_INT,
					   &p->mmap_start) &&
			       wperf_plan_find_member(payload, SCOPE_PAYLOAD, "filename", WANT_STR,
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
		if (!wperf_plan_find_member(payload, SCOPE_PAYLOAD, field, s->kind, &p->slot[i]) &&
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
	note_scopes_read(p);
	p->reader = reader_of(p);
}

/* ------------------------------------------------------------------ */
/* Reading an event through its plan.                                  */
/* ------------------------------------------------------------------ */

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

static void read_stack(struct wperf_plan_buffers *buf, const struct event_plan *p,
		       const struct event_scopes *s, struct wperf_event *ev)
{
	uint32_t n = 0, cap = sizeof buf->stack / sizeof buf->stack[0];

	for (int k = 0; k < 2; k++)
		if (p->stack[k].scope != SCOPE_NONE)
			n = read_frames(s, &p->stack[k], buf->stack, n, cap);
	ev->stack = n ? buf->stack : NULL;
	ev->n_stack = n;
}

/* The kernel's comm for an exec'd file: its basename, cut to the 15
 * characters of TASK_COMM_LEN, so it matches what sched_switch reports. */
static const char *exec_comm(struct wperf_plan_buffers *buf, const char *filename)
{
	const char *base;

	if (!filename)
		return NULL;
	base = strrchr(filename, '/');
	base = base ? base + 1 : filename;
	snprintf(buf->comm, sizeof buf->comm, "%s", base);
	return buf->comm;
}

/* A packet: its device, bytes and skb where the layout has them (the
 * TCP_* events have none), and its TCP key where it carries one. */
static void read_net(const struct event_scopes *s, const struct field_ref *f,
		     struct wperf_event *ev)
{
	struct wperf_tcp_key k;

	ev->u.net.dev = read_str(s, &f[0]);
	ev->u.net.len = (uint64_t)read_int(s, &f[1], 0);
	ev->u.net.skb = (uint64_t)read_int(s, &f[2], 0);
	ev->u.net.has_tcp = wperf_tcp_key_of(s->base[SCOPE_PAYLOAD], &k);
	if (ev->u.net.has_tcp) {
		ev->u.net.seq = k.seq;
		ev->u.net.ack_seq = k.ack_seq;
		ev->u.net.tcp_flags = k.flags;
	}
}

/* Fill the type-specific part; slot positions follow type_specs[]. */
static void fill_event(const struct event_plan *p, const struct event_scopes *s,
		       bool raw_task_dead_64, struct wperf_plan_buffers *buf,
		       struct wperf_event *ev)
{
	const struct field_ref *f = p->slot;

	switch (ev->type) {
	case WPERF_EV_SWITCH:
		ev->u.sw.prev_tid = read_int(s, &f[0], -1);
		ev->u.sw.next_tid = read_int(s, &f[1], -1);
		ev->u.sw.prev_state = read_int(s, &f[2], 0);
		if (raw_task_dead_64 && ev->u.sw.prev_state == 64)
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
		ev->u.task.comm = exec_comm(buf, read_str(s, &f[1]));
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
		ev->u.block.rwbs = ev->type == WPERF_EV_BLOCK_COMPLETE
			? 0 : (uint32_t)read_int(s, &f[5], 0);
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
	case WPERF_EV_TCP_SEND:
	case WPERF_EV_TCP_RECV:
		read_net(s, f, ev);
		break;
	case WPERF_EV_STACK:   /* whose stack it is; the frames: read_stack() */
		ev->current_tid = read_int(s, &f[0], -1);
		break;
	case WPERF_EV_FALSE_WAKEUP:
	case WPERF_EV_TYPE_COUNT:
		break;
	}
}

/* The current thread and interrupt context, where the class carries them. */
static void read_current(const struct event_plan *p, const struct event_scopes *s,
			 struct wperf_event *ev)
{
	ev->current_tid = read_int(s, &p->current_tid, -1);
	ev->current_pid = read_int(s, &p->current_pid, -1);
	if (p->common_flags.scope != SCOPE_NONE)
		ev->context_flags = (int)(read_int(s, &p->common_flags, 0) &
					  (WPERF_CTX_HARDIRQ | WPERF_CTX_SOFTIRQ));
}

void wperf_plan_fill_event(const struct event_plan *p, const struct event_scopes *s,
			   bool raw_task_dead_64, struct wperf_plan_buffers *buf,
			   struct wperf_event *ev)
{
	if (p->reads_current)
		read_current(p, s, ev);
	fill_event(p, s, raw_task_dead_64, buf, ev);
	if (ev->type == WPERF_EV_SWITCH || ev->type == WPERF_EV_STACK)
		read_stack(buf, p, s, ev);
}
