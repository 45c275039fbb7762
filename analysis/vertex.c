/* SPDX-License-Identifier: MIT */
/*
 * vertex.c — the vertex table (see vertex.h).
 */
#include <stdlib.h>
#include <string.h>

#include "merge-keys.h"
#include "vertex.h"

#define TID_EMPTY VT_TID_EMPTY
#define TID_TOMBSTONE (INT64_MIN + 1)

void vt_init(struct vertex_table *t)
{
	memset(t, 0, sizeof *t);
}

void vt_fini(struct vertex_table *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].comm);
	}
	free(t->v);
	free(t->comm_flags);
	free(t->comm_base_len);
	free(t->tid_slots);
	free(t->pseudo);
	memset(t, 0, sizeof *t);
}


uint32_t vt_find_last_thread(const struct vertex_table *t, int64_t tid)
{
	uint32_t live = vt_find_thread(t, tid);

	if (live != VERTEX_NONE)
		return live;
	for (size_t i = t->n; i-- > 0;)
		if (t->v[i].kind == WPERF_V_THREAD && t->v[i].tid == tid)
			return (uint32_t)i;
	return VERTEX_NONE;
}

static void tid_insert_raw(struct vt_tid_slot *slots, size_t cap, int64_t tid, uint32_t id)
{
	size_t i = vt_tid_slot(tid, cap);

	while (slots[i].tid != TID_EMPTY && slots[i].tid != TID_TOMBSTONE && slots[i].tid != tid)
		i = (i + 1) & (cap - 1);
	slots[i] = (struct vt_tid_slot){ tid, id };
}

/* Rebuild the index at twice the live size, dropping tombstones. */
static bool tid_grow(struct vertex_table *t)
{
	size_t cap = t->tid_cap ? t->tid_cap * 2 : 256;
	struct vt_tid_slot *slots = malloc(cap * sizeof *slots);

	if (!slots)
		return false;
	for (size_t i = 0; i < cap; i++)
		slots[i] = (struct vt_tid_slot){ TID_EMPTY, 0 };
	t->tid_used = 0;
	for (size_t i = 0; i < t->tid_cap; i++) {
		const struct vt_tid_slot *old = &t->tid_slots[i];

		if (old->tid != TID_EMPTY && old->tid != TID_TOMBSTONE) {
			tid_insert_raw(slots, cap, old->tid, old->vertex);
			t->tid_used++;
		}
	}
	free(t->tid_slots);
	t->tid_slots = slots;
	t->tid_cap = cap;
	return true;
}

static uint32_t append_vertex(struct vertex_table *t, enum wperf_vertex_kind kind)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct wperf_vertex *v = realloc(t->v, cap * sizeof *v);
		uint8_t *flags = v ? realloc(t->comm_flags, cap) : NULL;

		if (v)
			t->v = v;
		if (flags)
			t->comm_flags = flags;
		uint32_t *base = flags ? realloc(t->comm_base_len, cap * sizeof *base) : NULL;

		if (!base) {
			t->oom = true;
			return VERTEX_NONE;
		}
		t->comm_base_len = base;
		t->cap = cap;
	}
	struct wperf_vertex *v = &t->v[t->n];

	t->comm_flags[t->n] = 0;
	t->comm_base_len[t->n] = VT_BASE_UNKNOWN;

	memset(v, 0, sizeof *v);
	v->id = (uint32_t)t->n;
	v->kind = kind;
	v->tid = v->pid = -1;
	v->first_ts = v->last_ts = -1;
	v->host = t->current_host;
	return (uint32_t)t->n++;
}

/* Point an indexed tid at a new vertex; false when tid is not indexed. */
static bool replace_live_tid(struct vertex_table *t, int64_t tid, uint32_t id)
{
	for (size_t i = vt_tid_slot(tid, t->tid_cap);; i = (i + 1) & (t->tid_cap - 1)) {
		if (t->tid_slots[i].tid == tid) {
			t->tid_slots[i].vertex = id;
			return true;
		}
		if (t->tid_slots[i].tid == TID_EMPTY)
			return false;
	}
}

uint32_t vt_new_thread(struct vertex_table *t, int64_t tid)
{
	if ((t->tid_used + 1) * 2 > t->tid_cap && !tid_grow(t)) {
		t->oom = true;
		return VERTEX_NONE;
	}
	uint32_t id = append_vertex(t, WPERF_V_THREAD);

	if (id == VERTEX_NONE)
		return id;
	t->v[id].tid = tid;
	if (!replace_live_tid(t, tid, id)) {
		tid_insert_raw(t->tid_slots, t->tid_cap, tid, id);
		t->tid_used++;
	}
	return id;
}

void vt_forget_tid(struct vertex_table *t, int64_t tid, uint32_t id)
{
	if (!t->tid_cap)
		return;
	for (size_t i = vt_tid_slot(tid, t->tid_cap);; i = (i + 1) & (t->tid_cap - 1)) {
		if (t->tid_slots[i].tid == TID_EMPTY)
			return;
		if (t->tid_slots[i].tid == tid) {
			if (t->tid_slots[i].vertex == id)
				t->tid_slots[i].tid = TID_TOMBSTONE;
			return;
		}
	}
}

uint32_t vt_pseudo(struct vertex_table *t, enum wperf_vertex_kind kind,
		   const char *name)
{
	for (size_t i = 0; i < t->n_pseudo; i++) {
		struct wperf_vertex *v = &t->v[t->pseudo[i]];

		if (v->kind == kind && v->host == t->current_host && strcmp(v->name, name) == 0)
			return v->id;
	}
	if (t->n_pseudo == t->cap_pseudo) {
		size_t cap = t->cap_pseudo ? t->cap_pseudo * 2 : 16;
		uint32_t *p = realloc(t->pseudo, cap * sizeof *p);

		if (!p) {
			t->oom = true;
			return VERTEX_NONE;
		}
		t->pseudo = p;
		t->cap_pseudo = cap;
	}
	uint32_t id = append_vertex(t, kind);

	if (id == VERTEX_NONE)
		return id;
	t->v[id].name = strdup(name);
	if (!t->v[id].name) {
		t->n--;
		t->oom = true;
		return VERTEX_NONE;
	}
	t->pseudo[t->n_pseudo++] = id;
	return id;
}

static void replace_string(struct vertex_table *t, char **slot, const char *s)
{
	if (!s || (*slot && strcmp(*slot, s) == 0))
		return;
	char *copy = strdup(s);

	if (!copy) {
		t->oom = true;
		return;
	}
	free(*slot);
	*slot = copy;
}

void vt_set_name(struct vertex_table *t, uint32_t id, const char *name)
{
	replace_string(t, &t->v[id].name, name);
}

static uint8_t comm_flags_of(const char *comm)
{
	if (!comm)
		return 0;
	return (wperf_comm_is_tracer_thread(comm) ? VT_COMM_TRACER : 0) |
	       (wperf_comm_waits_only_for_work(comm) ? VT_COMM_WAITS_FOR_WORK : 0) |
	       (strncmp(comm, "kworker/", 8) == 0 ? VT_COMM_KWORKER : 0) |
	       (strncmp(comm, "ksoftirqd/", 10) == 0 ? VT_COMM_KSOFTIRQD : 0);
}

/* vt_set_comm()'s change of comm (and name). */
void vt_change_comm(struct vertex_table *t, uint32_t id, const char *comm)
{
	replace_string(t, &t->v[id].comm, comm);
	replace_string(t, &t->v[id].name, comm);
	t->comm_flags[id] = comm_flags_of(t->v[id].comm);
	t->comm_base_len[id] = VT_BASE_UNKNOWN;
}

uint32_t vt_find_comm_base_len(struct vertex_table *t, uint32_t id)
{
	/* A comm is a short string (a kernel's, 15 bytes at most). */
	t->comm_base_len[id] = (uint32_t)wperf_name_base_len(t->v[id].comm);
	return t->comm_base_len[id];
}
