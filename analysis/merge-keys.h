/* SPDX-License-Identifier: MIT */
/*
 * analysis/merge-keys.h — what merge.c takes from merge-keys.c beyond
 * wperf/merge.h: the name-base key (merge=name, and the name part of a
 * pool's key), and the numbering of equal keys.
 */
#ifndef WPERF_ANALYSIS_MERGE_KEYS_H
#define WPERF_ANALYSIS_MERGE_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "worker-12" -> "worker-" (caller frees; NULL when out of memory); a
 * name of digits only is kept whole. */
char *wperf_merge_name_base(const char *comm);

/* The length of comm's name base: comm without its trailing digits
 * ("worker-12" -> 7), or all of it when it is digits only. Two comms
 * share their name base ("worker-1", "worker-12") when these lengths
 * are equal and so are that many bytes. */
size_t wperf_name_base_len(const char *comm);

/* Equal keys, equal numbers: grouping then sorts numbers, not strings
 * (thousands of threads of one process share one pool key, and sorting
 * them by it compared the whole string every time). Numbers count from
 * 0 in order of first appearance. */
struct wperf_key_numbers {
	char **keys;      /* by number: the first key given of each */
	uint32_t *slot;   /* open addressing: 1 + a number, 0 when empty */
	uint32_t *count;  /* [1 + a number]: how many keys had it ([0] is 0) */
	size_t cap;       /* slots, a power of two at least twice max_keys */
	uint32_t n;
};

/* Room for max_keys keys; -1 when out of memory (kn then freeable). */
int wperf_key_numbers_init(struct wperf_key_numbers *kn, size_t max_keys);
/* key's number; takes key (a malloc'd string) over. */
uint32_t wperf_key_number(struct wperf_key_numbers *kn, char *key);
void wperf_key_numbers_free(struct wperf_key_numbers *kn);

/* A thread taking part in one of merge.c's grouping passes. */
struct wperf_keyed {
	uint32_t num;           /* equal keys, equal numbers (above) */
	uint32_t id;
	int64_t first, last;    /* the vertex's lifetime (pools) */
	int64_t demand;         /* running + runnable (pools) */
};

/* ks by key number (a counting sort by kn's counts, which it uses up:
 * within a number in the order ks came, merge.c's id order), then for
 * pools by first seen and id. -1 when out of memory. */
int wperf_sort_keyed(struct wperf_keyed **ks, size_t n, struct wperf_key_numbers *kn,
		     bool pools);

#endif /* WPERF_ANALYSIS_MERGE_KEYS_H */
