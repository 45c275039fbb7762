/* SPDX-License-Identifier: MIT */
/*
 * vertex.h — the vertex table: every thread and pseudo-thread the analysis
 * has met, addressed by a dense id (the index into the table).
 *
 * Threads are found by tid among the *live* threads; a tid reused after its
 * thread ended gets a new vertex (tc-many-threads reuses thousands). Pseudo
 * vertices (disks, interrupts, timer, unknown, ...) are found by name.
 * Ids are stable; pointers into the table are not (it grows).
 */
#ifndef WPERF_VERTEX_H
#define WPERF_VERTEX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "wperf/graph.h"

#define VERTEX_NONE UINT32_MAX

struct vertex_table {
	struct wperf_vertex *v;
	size_t n, cap;
	/* tid -> live thread vertex: open addressing, linear probing. A
	 * slot holds both, so that a look-up (two per switch, one per
	 * wakeup) touches one cache line, not one of keys and one of values. */
	struct vt_tid_slot {
		int64_t tid;
		uint32_t vertex;
	} *tid_slots;
	size_t tid_cap, tid_used;   /* used counts tombstones too */
	/* Pseudo vertices are few (disks, irq lines): a plain list. */
	uint32_t *pseudo;
	size_t n_pseudo, cap_pseudo;
	/* Per vertex, what its comm says of it (VT_COMM_*), worked out when
	 * the comm changes rather than on every wait that needs it. */
	uint8_t *comm_flags;
	/* Per vertex, the length of its comm's name base
	 * (wperf_name_base_len()), or VT_BASE_UNKNOWN: whether a waiter and
	 * its waker are two programs is asked of every wait between two
	 * processes, and two comms' bases are then two lengths and, when
	 * equal, that many bytes, with no strlen() per wait. Worked out when
	 * first asked after the comm changed: most threads' comms change
	 * (fork, exec) more often than they wait on another process. */
	uint32_t *comm_base_len;
	bool oom;                   /* an allocation failed: results incomplete */
	/* The host of the event being analysed: new vertices are its, and
	 * a pseudo vertex ("timer", "nic:eth0") is one per host. */
	uint32_t current_host;
};

/* What a thread's comm tells (graph.h's wperf_comm_* tests, and the
 * analysis' own prefixes). */
enum {
	VT_COMM_TRACER = 1,          /* wperf_comm_is_tracer_thread() */
	VT_COMM_WAITS_FOR_WORK = 2,  /* wperf_comm_waits_only_for_work() */
	VT_COMM_KWORKER = 4,         /* "kworker/..." */
	VT_COMM_KSOFTIRQD = 8,       /* "ksoftirqd/..." */
};

void vt_init(struct vertex_table *t);
void vt_fini(struct vertex_table *t);       /* frees what was not moved out */

static inline struct wperf_vertex *vt_get(struct vertex_table *t, uint32_t id)
{
	return &t->v[id];
}

/* The VT_COMM_* flags of a vertex's current comm (0 without one). */
static inline unsigned vt_comm_flags(const struct vertex_table *t, uint32_t id)
{
	return t->comm_flags[id];
}

#define VT_BASE_UNKNOWN UINT32_MAX

/* vt_comm_base_len()'s first answer after a comm change. */
uint32_t vt_find_comm_base_len(struct vertex_table *t, uint32_t id);

/* The length of the name base of vertex id's comm (set). */
static inline uint32_t vt_comm_base_len(struct vertex_table *t, uint32_t id)
{
	uint32_t n = t->comm_base_len[id];

	return n != VT_BASE_UNKNOWN ? n : vt_find_comm_base_len(t, id);
}

/* Do the comms of vertices a and b (both set) share their name base
 * ("worker-1", "worker-12")? */
static inline bool vt_same_name_base(struct vertex_table *t, uint32_t a, uint32_t b)
{
	uint32_t n = vt_comm_base_len(t, a);

	return n == vt_comm_base_len(t, b) && memcmp(t->v[a].comm, t->v[b].comm, n) == 0;
}

#define VT_TID_EMPTY INT64_MIN

/* The slot of the tid index a lookup of tid probes first. */
static inline size_t vt_tid_slot(int64_t tid, size_t cap)
{
	uint64_t h = (uint64_t)tid * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 17) & (cap - 1);
}

/* The live thread with this tid, or VERTEX_NONE. Inline: every switch
 * and wakeup looks up one or two, and a call's prologue cost as much
 * as the probe. */
static inline uint32_t vt_find_thread(const struct vertex_table *t, int64_t tid)
{
	if (!t->tid_cap)
		return VERTEX_NONE;
	for (size_t i = vt_tid_slot(tid, t->tid_cap);; i = (i + 1) & (t->tid_cap - 1)) {
		if (t->tid_slots[i].tid == tid)
			return t->tid_slots[i].vertex;
		if (t->tid_slots[i].tid == VT_TID_EMPTY)
			return VERTEX_NONE;
	}
}
/* The newest thread vertex with this tid, live or ended, or VERTEX_NONE.
 * A scan of the table, for rare events only. */
uint32_t vt_find_last_thread(const struct vertex_table *t, int64_t tid);
/* A new vertex for tid, replacing any live one in the tid index. */
uint32_t vt_new_thread(struct vertex_table *t, int64_t tid);
/* The thread no longer owns its tid (it ended); its vertex stays. */
void vt_forget_tid(struct vertex_table *t, int64_t tid, uint32_t id);
/* The pseudo vertex of that kind and name, created on first use. */
uint32_t vt_pseudo(struct vertex_table *t, enum wperf_vertex_kind kind,
		   const char *name);
/* Replace a vertex's name or comm (copied). */
void vt_set_name(struct vertex_table *t, uint32_t id, const char *name);
void vt_change_comm(struct vertex_table *t, uint32_t id, const char *comm);

/* Every switch and wakeup names its thread, and the name seldom changes:
 * one comparison then, inline. A thread's name only ever follows its
 * comm (vt_set_name renames disks), so it is unchanged too. */
static inline void vt_set_comm(struct vertex_table *t, uint32_t id, const char *comm)
{
	if (!comm || (t->v[id].comm && strcmp(t->v[id].comm, comm) == 0))
		return;
	vt_change_comm(t, id, comm);
}

#endif /* WPERF_VERTEX_H */
