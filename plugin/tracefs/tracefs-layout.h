/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-layout.h — how ftrace events become LTTng-layout events.
 *
 * The analysis decoder reads the lttng-modules 2.13 layout (event names
 * such as "sched_switch", fields such as prev_tid), so the tracefs source
 * renames events and fields, converts priorities the way LTTng does, and
 * adds the fields LTTng has and ftrace lacks. One table entry per event.
 */
#ifndef WPERF_PLUGIN_TRACEFS_LAYOUT_H
#define WPERF_PLUGIN_TRACEFS_LAYOUT_H

#include <babeltrace2/babeltrace.h>
#include <event-parse.h>
#include <stdbool.h>
#include <string.h>

#define WPERF_LAYOUT_MAX_FIELDS 8

enum wperf_out_kind {
	WPERF_OUT_S32,
	WPERF_OUT_S64,
	WPERF_OUT_U32,
	WPERF_OUT_U64,
	WPERF_OUT_HEX64,   /* an address: unsigned, shown in hexadecimal */
	WPERF_OUT_STACK,   /* a kernel stack: dynamic array of addresses (the
	                      ftrace field `from` is the caller array) */
	WPERF_OUT_STRING,
};

enum wperf_out_source {
	WPERF_SRC_FIELD,      /* the ftrace field `from`, as is */
	WPERF_SRC_PRIO,       /* ftrace prio - 100, as LTTng records it */
	WPERF_SRC_TGID,       /* the thread group of the tid in field `from` */
	WPERF_SRC_COMMON_PID, /* the current thread (common_pid) */
	WPERF_SRC_CHILD_TGID, /* sched_process_fork's child: its thread group, from
	                         the clone flags task_newtask gave just before */
	WPERF_SRC_CLONE,      /* task_newtask's clone_flags, remembered by child */
	WPERF_SRC_RWBS,       /* ftrace's rwbs string ("WS") as LTTng's bitmask */
};

struct wperf_out_field {
	const char *name;
	enum wperf_out_kind kind;
	const char *from;
	enum wperf_out_source source;
};

struct wperf_layout {
	const char *system;   /* ftrace system, NULL for synthetic events */
	const char *event;    /* ftrace event name */
	const char *name;     /* LTTng event name */
	bool required;        /* the analysis cannot work without it */
	struct wperf_out_field fields[WPERF_LAYOUT_MAX_FIELDS];
	/* Enabled only when the kernel lacks the layout just before it
	 * (WPERF_KEV_FTRACE_FALLBACK: sched_wakeup, without sched_waking). */
	bool fallback;
};

/* Not an event to enable (system "ftrace"): ftrace writes it when the
 * stacktrace trigger is set on sched_switch (parameter stacks="kernel"). */
static inline bool wperf_layout_by_stack_trigger(const struct wperf_layout *l)
{
	return l->system && strcmp(l->system, "ftrace") == 0;
}

/* The table, terminated by an entry whose name is NULL. */
extern const struct wperf_layout wperf_layouts[];

/* Synthetic statedump events (tracefs-statedump.c fills them). */
extern const struct wperf_layout wperf_statedump_process_layout;
extern const struct wperf_layout wperf_statedump_block_device_layout;
extern const struct wperf_layout wperf_statedump_start_layout;
extern const struct wperf_layout wperf_statedump_end_layout;

/* A layout bound to this kernel's format and to a babeltrace2 class. */
struct wperf_bound_layout {
	const struct wperf_layout *layout;
	struct tep_event *format;   /* NULL for synthetic events */
	struct tep_format_field *src[WPERF_LAYOUT_MAX_FIELDS];
	bt_event_class *event_class;
	bool is_switch;   /* sched_switch: tracks who runs on each CPU */
	bool is_wakeup;   /* sched_waking/wakeup/wakeup_new: names threads */
};

/* Create the event class (name + payload) of a layout in sc. */
bt_event_class *wperf_layout_create_event_class(const struct wperf_layout *l,
						bt_stream_class *sc);

/* Look up the ftrace fields a bound layout reads (NULL when missing). */
void wperf_layout_bind_fields(struct wperf_bound_layout *b);

/* Fill the payload of one event from a raw ftrace record, written by
 * thread common_pid (the record's common_pid, read once by the caller). */
int wperf_layout_fill(const struct wperf_bound_layout *b, int64_t common_pid,
		      struct tep_record *record, bt_field *payload);

/* ftrace's rwbs string (the kernel's blk_fill_rwbs: "FWS", "R", "DE")
 * as lttng-modules' RWBS_FLAG_* bitmask, which lttng-analyses and Trace
 * Compass read. */
uint32_t wperf_rwbs_flags(const char *rwbs);

/* Setters for synthetic events: member idx of a payload structure. */
void wperf_payload_set_int(bt_field *payload, uint64_t idx, int64_t value);
void wperf_payload_set_uint(bt_field *payload, uint64_t idx, uint64_t value);
int wperf_payload_set_string(bt_field *payload, uint64_t idx, const char *s);

#endif /* WPERF_PLUGIN_TRACEFS_LAYOUT_H */
