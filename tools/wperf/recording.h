/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/recording.h — what `wperf record` leaves in a recording
 * directory and `wperf report` reads back: DIR/command.pid (the recorded
 * command), DIR/wperf.json (what was recorded: a plain recording or a
 * flight recorder with DIR/snapshot-N), and DIR/.wperf/recording, the mark
 * of a recording not closed yet. The writer is `wperf record` (record.c,
 * output.c); the layout is wperf(1)'s.
 */
#ifndef WPERF_TOOL_RECORDING_H
#define WPERF_TOOL_RECORDING_H

#include <stdbool.h>
#include <stddef.h>

#define WPERF_STATE "wperf.json"
#define WPERF_PRIVATE ".wperf"

/* The pid in command.pid of trace (or, for a flight recorder's snapshot
 * DIR/snapshot-N, of DIR), as written there: true with it in pid, false
 * when there is none or it is not a pid. */
bool wperf_recorded_command(const char *trace, char *pid, size_t pidlen);

/* Refuse a recording still being written, or cut short before its kernel
 * trace was closed (false after saying why); warn about one cut short
 * that can be read (true). */
bool wperf_check_closed(const char *trace);

/* The `mode` of trace/wperf.json into mode (empty without one). false
 * after saying why when the file exists and cannot be read. */
bool wperf_recording_mode(const char *trace, char *mode, size_t modelen);

/* The same for the string member key (`relay`, `session`). */
bool wperf_recording_string(const char *trace, const char *key, char *out, size_t outlen);

/* The latest whole snapshot of a flight recorder (DIR/snapshot-N with its
 * wperf.json, largest N), malloc'ed; NULL after saying why. */
char *wperf_latest_snapshot(const char *trace);

/* An absolute, normalised path (Python's os.path.abspath: no symbolic
 * links resolved), malloc'ed; NULL when out of memory. */
char *wperf_abspath(const char *path);

#endif /* WPERF_TOOL_RECORDING_H */
