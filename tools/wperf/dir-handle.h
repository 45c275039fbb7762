/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/dir-handle.h — a directory found again wherever it was
 * moved: its file handle (name_to_handle_at(2)) written as one line of
 * text, and opened again by it (open_by_handle_at(2), root only). A path
 * tells nothing once the directory was renamed; the handle names the
 * directory itself, and says ESTALE once it was removed. The flight
 * recorders' owner files keep one (flight.c), so that the sweep of gone
 * flight recorders tells a moved directory from a removed one.
 */
#ifndef WPERF_TOOL_DIR_HANDLE_H
#define WPERF_TOOL_DIR_HANDLE_H

#include <stdbool.h>
#include <stddef.h>

/* The handle of the directory dirfd as "MAJOR:MINOR TYPE HEX" (its file
 * system's device, the handle's type and bytes) in buf; false when its
 * file system gives none. */
bool wperf_dir_handle(int dirfd, char *buf, size_t len);

/* The directory that handle (as wperf_dir_handle() wrote it) names,
 * opened (O_DIRECTORY): its descriptor, or -1 with errno: ESTALE when
 * the directory was removed, anything else when it cannot be told
 * (no mount of its file system here, not root, a malformed line). */
int wperf_dir_handle_open(const char *handle);

#endif /* WPERF_TOOL_DIR_HANDLE_H */
