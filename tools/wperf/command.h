/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/command.h — running the command `wperf record` records, in
 * the foreground, and how the recording stops: when the command exits,
 * at --duration, on Ctrl-C (it reaches the command too; a second one
 * stops the recording), or on SIGTERM/SIGHUP to wperf (the command gets
 * the same signal, as perf record sends it SIGTERM, and 10 s to end). The command's
 * environment preloads wperf's UST provider shim, so that annotated
 * programs record wperf:* events without being linked to LTTng-UST.
 */
#ifndef WPERF_TOOL_COMMAND_H
#define WPERF_TOOL_COMMAND_H

#include "output.h"
#include "stop-signals.h"

#include <stdbool.h>

/* name can be run, as shutil.which() finds it: a path with a slash as
 * it is, else in each directory of $PATH. */
bool wperf_on_path(const char *name);

/* argv[0] can be run (on PATH, or a path to an executable file). false
 * after saying why, with the fix ("give its path, ./server, after --"). */
bool wperf_command_check(char *const *argv);

/* Called about every 50 ms while the command runs: false to stop the
 * recording (the callback says why, or keeps it to say once the
 * recording is torn down, as the last line). */
typedef bool (*wperf_check_fn)(void *arg);

/* Run argv (as user, when not NULL) in the foreground, its pid written
 * into DIR/command.pid, until it exits, deadline (CLOCK_MONOTONIC
 * seconds; <= 0: none) passes, check fails, or signals stop the
 * recording. Its exit status (128 + n when killed by signal n; 130 after
 * two Ctrl-Cs; 128 + N after SIGTERM or SIGHUP (N) to wperf, sent on to
 * the command; 0 at the deadline; 127 when it cannot be started). With
 * argv NULL, waits for the same stops without a command (0 on Ctrl-C,
 * 128 + N on SIGTERM or SIGHUP). *failed is set
 * when check failed. */
int wperf_command_run(char *const *argv, const char *out, double deadline,
		      const struct wperf_user *user, wperf_check_fn check, void *arg,
		      bool *failed);

/* How the command of the last wperf_command_run() ended, when it exited
 * with a status other than 0 or was killed by a signal: "./prog exited
 * with status 3", "./prog was killed by SIGSEGV" into buf. false when it
 * exited with 0, or did not end (the recording stopped first). */
bool wperf_command_ending(char *buf, size_t len);

#endif /* WPERF_TOOL_COMMAND_H */
