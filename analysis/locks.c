/* SPDX-License-Identifier: MIT */
/*
 * locks.c — user-space spin-lock holders (see locks.h).
 */
#include <stdlib.h>
#include <string.h>

#include "locks.h"

void locks_init(struct lock_table *t)
{
	memset(t, 0, sizeof *t);
}

void locks_fini(struct lock_table *t)
{
	free(t->e);
	memset(t, 0, sizeof *t);
}

static size_t slot_of(int64_t pid, uint64_t lock, size_t cap)
{
	uint64_t h = ((uint64_t)pid * 0x9E3779B97F4A7C15ull) ^ (lock * 0xC2B2AE3D27D4EB4Full);

	return (size_t)(h >> 11) & (cap - 1);
}

static struct lock_entry *find(const struct lock_table *t, int64_t pid, uint64_t lock)
{
	if (!t->cap)
		return NULL;
	for (size_t i = slot_of(pid, lock, t->cap);; i = (i + 1) & (t->cap - 1)) {
		struct lock_entry *e = &t->e[i];

		if (!e->used)
			return NULL;
		if (e->pid == pid && e->lock == lock)
			return e;
	}
}

static bool grow(struct lock_table *t)
{
	size_t cap = t->cap ? t->cap * 2 : 64;
	struct lock_entry *e = calloc(cap, sizeof *e);

	if (!e)
		return false;
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->e[i].used)
			continue;
		size_t s = slot_of(t->e[i].pid, t->e[i].lock, cap);

		while (e[s].used)
			s = (s + 1) & (cap - 1);
		e[s] = t->e[i];
	}
	free(t->e);
	t->e = e;
	t->cap = cap;
	return true;
}

uint32_t locks_holder(const struct lock_table *t, int64_t pid, uint64_t lock)
{
	const struct lock_entry *e = find(t, pid, lock);

	return e ? e->holder : UINT32_MAX;
}

void locks_set_holder(struct lock_table *t, int64_t pid, uint64_t lock, uint32_t holder)
{
	struct lock_entry *e = find(t, pid, lock);

	if (e) {
		e->holder = holder;
		return;
	}
	if ((t->used + 1) * 2 > t->cap && !grow(t)) {
		t->oom = true;
		return;
	}
	size_t s = slot_of(pid, lock, t->cap);

	while (t->e[s].used)
		s = (s + 1) & (t->cap - 1);
	t->e[s] = (struct lock_entry){ pid, lock, holder, true };
	t->used++;
}
