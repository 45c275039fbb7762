/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/ptr-map.c — the pointer-keyed hash table of ptr-map.h.
 */
#include "ptr-map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static size_t ptr_hash(const void *p, size_t cap)
{
	uint64_t x = (uint64_t)(uintptr_t)p;

	/* Allocations are aligned: mix the high bits down (splitmix64 finaliser). */
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	return (size_t)x & (cap - 1);
}

void *ptr_map_get(const struct ptr_map *m, const void *key)
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

int ptr_map_put(struct ptr_map *m, const void *key, void *value)
{
	if ((m->len + 1) * 2 > m->cap && ptr_map_grow(m) < 0)
		return -1;
	ptr_map_insert_unchecked(m, key, value);
	return 0;
}

void ptr_map_free_all(struct ptr_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->values[i]);
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof *m);
}
