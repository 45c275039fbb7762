/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/main.c — the `wperf` command: record a program's kernel and
 * LTTng-UST events and report the knots of its wait-for graph (wPerf,
 * OSDI'18). The manual is wperf(1) (doc/wperf.1.md).
 *
 * This file dispatches on the subcommand. Each is C, on libbabeltrace2
 * and liblttng-ctl, but diff:
 *
 *   report            C (report.c): the babeltrace2 graph runs in-process
 *   stop              C (stop.c), on liblttng-ctl
 *   record            C (record.c): the LTTng session on liblttng-ctl, the
 *                     tracefs recorder's graph in a child process
 *                     (recorder.c); --snapshot: the flight recorder (flight.c)
 *   snapshot          C (snapshot.c): liblttng-ctl, and the ftrace snapshot
 *                     read by a babeltrace2 graph in-process
 *   _watch            C (watch.c): the flight recorder's trigger watcher
 *   top               C (top.c, top-live.c): liblttng-ctl, and the graph
 *                     in-process (in a child process of its own)
 *   diff              Python on purpose (tools/wperf_diff.py: it compares
 *                     two JSON reports, nothing a C library helps with):
 *                     the arguments after `diff` are handed to it, a
 *                     private program (libexec/wperf/wperf-diff;
 *                     build/tools/wperf-diff here)
 *
 * `wperf --help` says the same.
 */
#include "wperf.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
"usage: wperf record [-o DIR] [--stacks] [OPTIONS] [-- COMMAND [ARG...]]\n"
"       wperf record --snapshot [-o DIR] [--trigger-on EVENT] [OPTIONS] [-- COMMAND...]\n"
"       wperf snapshot DIR\n"
"       wperf stop DIR\n"
"       wperf top [--every DURATION] [--duration SECONDS] [--format text|json]\n"
"                 [--output FILE] [--pids LIST | --comms LIST] [--params STR]\n"
"       wperf top --relay URL --hosts HOST[/SESSION],... [--every DURATION] [...]\n"
"       wperf report [--plugin-path DIR] TRACE [TRACE...] [--format FORMAT] [--output FILE]\n"
"                    [--pids LIST | --comms LIST | --all] [--threshold T] [--min-weight W]\n"
"                    [--params STR] [--verbose]\n"
"       wperf diff [--format text|json] [--fail-if-knot-grows PCT] [--min-change PCT]\n"
"                  [--absolute] [--top N] A.json B.json\n"
"\n"
"Record a program's kernel and LTTng-UST events, and report the knots\n"
"(cycles of waiting) that bound its throughput (wPerf). See wperf(1).\n"
"\n"
"commands:\n"
"  record    record kernel + UST events into DIR until COMMAND exits (or Ctrl-C);\n"
"            with --snapshot: start a flight recorder and return\n"
"  snapshot  save what the flight recorder of DIR holds into DIR/snapshot-N\n"
"  stop      stop the flight recorder of DIR (session and ftrace instance removed)\n"
"  top       watch the running system: the knots of the last period and of the run so\n"
"            far, every --every (an LTTng live session; ftrace without lttng-modules)\n"
"  report    read TRACE with babeltrace2 (in-process) into sink.wperf.knots\n"
"  diff      compare two JSON reports (before/after): knots, edges, wait lengths\n"
"\n"
"`wperf COMMAND --help` describes each command's options.\n"
"\n"
"`wperf diff` runs a Python program with the arguments after `diff`:\n"
"%s\n";

/* The path of `wperf diff`'s program. The build tree's copy names it
 * without a directory: it is the file beside this binary, wherever the
 * two were copied (a test runs a copy as an unprivileged user when the
 * build tree is in a private directory). The installed copy names
 * libexec's. */
static const char *diff_program(const char *self, char *buf, size_t len)
{
	const char *diff = wperf_paths.diff_program;
	const char *slash = self ? strrchr(self, '/') : NULL;

	if (strchr(diff, '/') || !slash ||
	    snprintf(buf, len, "%.*s/%s", (int)(slash - self), self, diff) >= (int)len)
		return diff;
	return buf;
}

/* Replace this process with `wperf diff`'s program, given the arguments
 * after `diff` (argv[1] is "diff"): its pid, signals and exit status are
 * the command's. Returns only on failure. */
static int run_diff(char **argv)
{
	char *self = realpath("/proc/self/exe", NULL);
	char buf[PATH_MAX];
	const char *diff = diff_program(self, buf, sizeof(buf));

	free(self);
	argv[1] = (char *)diff;
	execv(diff, argv + 1);
	return wperf_fail("cannot run %s for wperf diff: %s (reinstall wperf)",
			  diff, strerror(errno));
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		char *self = realpath("/proc/self/exe", NULL);
		char buf[PATH_MAX];

		printf(usage, diff_program(self, buf, sizeof(buf)));
		free(self);
		return cmd ? WPERF_EXIT_OK : WPERF_EXIT_USAGE;
	}
	if (!strcmp(cmd, "--version")) {
		printf("wperf %s\n", wperf_paths.version);
		return WPERF_EXIT_OK;
	}
	if (!strcmp(cmd, "report"))
		return wperf_cmd_report(argc - 1, argv + 1);
	if (!strcmp(cmd, "stop"))
		return wperf_cmd_stop(argc - 1, argv + 1);
	if (!strcmp(cmd, "snapshot"))
		return wperf_cmd_snapshot(argc - 1, argv + 1);
	if (!strcmp(cmd, "_watch"))
		return wperf_cmd_watch(argc - 1, argv + 1);
	if (!strcmp(cmd, "record"))
		return wperf_cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "top"))
		return wperf_cmd_top(argc - 1, argv + 1);
	if (!strcmp(cmd, "diff"))
		return run_diff(argv);
	return wperf_fail("unknown command `%s` (commands: record, snapshot, stop, top, "
			  "report, diff; see wperf --help)", cmd);
}
