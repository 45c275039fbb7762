/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/spawn.h — starting a background program with its output in
 * a log file, and reading back from that log why it failed. The trigger
 * watcher (flight.c), lttng-sessiond (sessiond.c) and lttng-relayd
 * (top-live.c) start this way. The recorded command (command.c) does
 * not: it runs in the foreground, as another user, on the terminal.
 */
#ifndef WPERF_TOOL_SPAWN_H
#define WPERF_TOOL_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

enum {
	/* In a session of its own: a terminal's Ctrl-C is not for it. */
	WPERF_SPAWN_SETSID = 1 << 0,
	/* Without LD_PRELOAD: a daemon must not run under a test run's
	 * sanitizer or LTTng-UST preloads. */
	WPERF_SPAWN_NO_PRELOAD = 1 << 1,
};

/* Start file (looked up in PATH when it has no '/') with argv, in the
 * background: SIGINT, SIGTERM, SIGHUP and SIGPIPE at their default, no
 * signal blocked, standard input /dev/null, standard output and error
 * into log_fd (left as they are when log_fd < 0), flags as above. Its
 * pid, or -1 with errno (the program could not be run). */
pid_t wperf_spawn_background(const char *file, char *const argv[], int log_fd, int flags);

/* The last non-blank line of the log at path, blanks around it removed,
 * into out; out unchanged when there is none (or no log). */
void wperf_log_last_line(const char *path, char *out, size_t len);

#endif /* WPERF_TOOL_SPAWN_H */
