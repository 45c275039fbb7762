/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/wperf.h — what the parts of the `wperf` command share: how it
 * speaks to the user (say.h: one line on standard error, "wperf: ..."), where this
 * copy of the command finds its plugin and `wperf diff`'s program, and the entry
 * points of the subcommands written in C.
 *
 * Two copies of the command are built from the same sources (meson,
 * tools/meson.build): build/tools/wperf knows its build tree (its plugin,
 * its diff program), the installed one the system directories. Only
 * paths.c differs between them (compiled with each copy's paths).
 */
#ifndef WPERF_TOOL_H
#define WPERF_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses, as the Python command had them. */
enum {
	WPERF_EXIT_OK = 0,
	WPERF_EXIT_FAIL = 1,        /* an error for the user, said in one line */
	WPERF_EXIT_USAGE = 2,       /* `wperf` with no command */
	WPERF_EXIT_INTERRUPTED = 130,
};

/* The longest --duration and --timeout: about 31 years, and far from
 * what a time_t, a timer or a deadline in seconds can hold. */
#define WPERF_MAX_SECONDS 1e9

/* Where this copy of wperf finds things (paths.c). */
struct wperf_paths {
	const char *version;
	const char *build_dir;          /* "" in the installed copy */
	const char *libdir;             /* where meson installs wperf's libraries */
	const char *system_plugin_dir;  /* babeltrace2's system plugin directory */
	const char *diff_program;       /* wperf-diff: `wperf diff`, in Python */
};
extern const struct wperf_paths wperf_paths;

/* wperf_say(), wperf_fail(): one line on standard error. */
#include "say.h"

/* The directory of babeltrace-plugin-wperf.so (--plugin-path, then
 * $WPERF_PLUGIN_PATH, this build tree's plugin/, babeltrace2's system
 * directory), resolved (babeltrace2 does not load plugins through a
 * symlinked directory). NULL after saying why, in one line. Caller frees. */
char *wperf_plugin_dir(const char *option);

/* The subcommands written in C: argv[0] is the subcommand's name. */
int wperf_cmd_report(int argc, char **argv);
int wperf_cmd_stop(int argc, char **argv);
int wperf_cmd_snapshot(int argc, char **argv);
/* `wperf _watch DIR`: the flight recorder's trigger watcher (watch.c). */
int wperf_cmd_watch(int argc, char **argv);
int wperf_cmd_record(int argc, char **argv);
int wperf_cmd_top(int argc, char **argv);

#endif /* WPERF_TOOL_H */
