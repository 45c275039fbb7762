/* SPDX-License-Identifier: MIT */
/*
 * analysis/merge-keys.h — what merge.c takes from merge-keys.c beyond
 * wperf/merge.h: the name-base key (merge=name, and the name part of a
 * pool's key).
 */
#ifndef WPERF_ANALYSIS_MERGE_KEYS_H
#define WPERF_ANALYSIS_MERGE_KEYS_H

/* "worker-12" -> "worker-" (caller frees; NULL when out of memory); a
 * name of digits only is kept whole. */
char *wperf_merge_name_base(const char *comm);

#endif /* WPERF_ANALYSIS_MERGE_KEYS_H */
