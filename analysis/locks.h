/* SPDX-License-Identifier: MIT */
/*
 * locks.h — user-space spin locks seen through the wperf:before_spin /
 * wperf:after_spin annotations (wperf-method(7) §6): who holds each lock.
 *
 * A spinning thread waits for the thread that last completed after_spin on
 * the same lock (the holder that handed it over). Locks are addresses, so
 * they are keyed by (process, address).
 */
#ifndef WPERF_LOCKS_H
#define WPERF_LOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct lock_entry {
	int64_t pid;
	uint64_t lock;
	uint32_t holder;        /* thread vertex */
	bool used;
};

struct lock_table {
	struct lock_entry *e;
	size_t cap, used;
	bool oom;
};

void locks_init(struct lock_table *t);
void locks_fini(struct lock_table *t);

/* The thread that last took the lock, or UINT32_MAX if none was seen. */
uint32_t locks_holder(const struct lock_table *t, int64_t pid, uint64_t lock);
void locks_set_holder(struct lock_table *t, int64_t pid, uint64_t lock, uint32_t holder);

#endif /* WPERF_LOCKS_H */
