/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/output.h — writing a report file atomically: into a temporary file
 * beside the target, flushed and renamed over it only when complete, so a
 * reader never sees half a report and a failure leaves nothing behind.
 * A path that exists and is not a regular file (/dev/null, a FIFO, a
 * terminal) is written in place: renaming over it would replace a device
 * with a file. A path that names a descriptor (/dev/fd/N,
 * /proc/self/fd/N, /dev/stdout, /dev/stderr) is written through a copy of
 * that descriptor.
 */
#ifndef WPERF_PLUGIN_OUTPUT_H
#define WPERF_PLUGIN_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

struct wperf_output {
	FILE *f;
	char *path;     /* NULL: standard output */
	char *tmp_path; /* NULL: written in place (not a regular file) */
};

/* Open path (NULL or "-": standard output). 0, or -1 with err set. */
int wperf_output_open(struct wperf_output *o, const char *path, char *err, size_t errlen);
/* Whether path can be written: the temporary file is created and removed
 * (a device or FIFO: whether it can be opened for writing, without
 * opening it). 0, or -1 with err set: one line saying why, and what to do. */
int wperf_output_check(const char *path, char *err, size_t errlen);
/* A stream of reports written as they come (every=), not atomically:
 * path opened for writing, or, when it names a descriptor (/dev/fd/N,
 * /proc/self/fd/N, /dev/stdout, /dev/stderr), a copy of that descriptor
 * (output.c says why). NULL with err set. */
FILE *wperf_output_stream(const char *path, char *err, size_t errlen);
/* Flush, fsync and rename into place. 0, or -1 with err set (temp removed). */
int wperf_output_commit(struct wperf_output *o, char *err, size_t errlen);
/* Give up: close and remove the temporary file. */
void wperf_output_abort(struct wperf_output *o);

#endif /* WPERF_PLUGIN_OUTPUT_H */
