/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/dir-names.h — what the messages call a directory held by
 * descriptor (safe-dir.h): its path as the user gave it, not the
 * /proc/self/fd/N or /proc/PID/fd/N name wperf works through.
 */
#ifndef WPERF_TOOL_DIR_NAMES_H
#define WPERF_TOOL_DIR_NAMES_H

#include "safe-dir.h"

#include <stddef.h>

/* d's names are translated from now on, until removed. */
void wperf_dir_names_add(const struct wperf_dir *d);
void wperf_dir_names_remove(const struct wperf_dir *d);

/* msg with every held directory's /proc name replaced by its path, in
 * out (wperf_say() and wperf_fail() write that). */
void wperf_dir_names_shown(const char *msg, char *out, size_t len);

#endif /* WPERF_TOOL_DIR_NAMES_H */
