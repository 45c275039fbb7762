/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/orphans.h — what a `wperf` killed with SIGKILL leaves
 * behind, and its removal by the next wperf: an LTTng session that
 * records on (`wperf record`'s, `wperf top`'s live one), and `wperf
 * top`'s work directory in /tmp. Each is named after the pid of the
 * wperf that made it; only wperf's own names are touched, and only once
 * that pid is gone. So is a flight recorder's trigger whose watcher was
 * killed: its output names the watcher's pid. (The recorder's ftrace instance is removed by its
 * parent at once, recorder.c; a killed wperf's recorder destroys the
 * session itself, this sweep is for the rest.)
 */
#ifndef WPERF_TOOL_ORPHANS_H
#define WPERF_TOOL_ORPHANS_H

#include <stdbool.h>
#include <stddef.h>

/* The pid of the wperf that named LTTng session `name`: the number after
 * the last '-' of "wperf-...-PID" (`wperf record`, `wperf top`), else 0. */
long wperf_session_owner(const char *name);

/* No process has this pid (kill(pid, 0) says ESRCH). */
bool wperf_pid_gone(long pid);

/* Process pid runs a trigger watcher, `wperf _watch ...` (its command
 * line's second word): a flight recorder's, whose trigger and held
 * directory are its own. */
bool wperf_runs_watch(long pid);

/* Destroy the LTTng sessions a killed wperf left recording: named as
 * `wperf record` or `wperf top` names them, their owner's pid gone, and
 * not in snapshot mode (a flight recorder's session is meant to outlive
 * the wperf that started it). Each said in one line. */
void wperf_sweep_orphaned_sessions(void);

/* Destroy session `name` if it is such an orphan: 1 when destroyed, 0
 * when it is not one (or not there), -1 when the destroy failed. */
int wperf_destroy_if_orphaned(const char *name);

/* Remove the LTTng triggers whose trigger watcher is dead (a flight
 * recorder's `--trigger-on`, its watcher killed by SIGKILL): named as
 * wperf names them ("wperf-...-trigger"), this user's, their snapshots
 * going to /proc/PID/fd/N of a PID that is gone or no watcher any more
 * (another process's descriptor N, were the trigger left). Each said in
 * one line. The flight recorder itself goes on; `wperf stop` stops it. */
void wperf_sweep_orphaned_triggers(void);

/* `wperf top`'s work directory: /tmp/wperf-top-PID-XXXXXX (mkdtemp's
 * template into tmpl, len >= 64). */
void wperf_top_workdir_template(char *tmpl, size_t len);

/* Remove the work directories of `wperf top`s that are gone: this
 * user's (owner, mode 0700), not links, their pid gone. */
void wperf_sweep_top_workdirs(void);

#endif /* WPERF_TOOL_ORPHANS_H */
