/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/ptr-map.h — a pointer-keyed open-addressing hash table
 * whose values are owned (freed with the table).
 *
 * The decoder keeps its per-event-class plans and per-stream states in two
 * of these (decode.c), so that decoding an event costs a hash look-up and
 * no string comparison. Keys are babeltrace2 objects' addresses, which
 * stay valid while the objects live.
 */
#ifndef WPERF_PLUGIN_PTR_MAP_H
#define WPERF_PLUGIN_PTR_MAP_H

#include <stddef.h>

struct ptr_map {
	const void **keys;
	void **values;
	size_t cap;      /* a power of two, or 0 */
	size_t len;
};

/* The value stored under key, or NULL. */
void *ptr_map_get(const struct ptr_map *m, const void *key);
/* Store value under key (not already present); -1 when out of memory. */
int ptr_map_put(struct ptr_map *m, const void *key, void *value);
/* Free every value and the table; m is empty again. */
void ptr_map_free_all(struct ptr_map *m);

#endif
