/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/procs.h — whose a running process is, the one rule every
 * "is this daemon ours?" of wperf asks (a stale session daemon pid file,
 * sessiond.c; a running lttng-relayd wperf top would stream to,
 * top-live.c).
 *
 * The rule: a process is uid's when its real, effective, saved and
 * file-system uids, as /proc/PID/status gives them, are all uid. Why
 * not the owner of /proc/PID (stat): the kernel gives that directory to
 * root for any process that is not dumpable, which any user can make
 * their own: a user's lttng-relayd started from an executable the user
 * may not read (mode 0711) is not dumpable, and stat(/proc/PID) says
 * root. Why all four uids, not the real one alone: a process in the
 * middle of a set-user-ID program, or one that changed only some of its
 * uids, belongs to two users at once, and wperf trusts or signals only
 * what no other user has a hand in.
 */
#ifndef WPERF_TOOL_PROCS_H
#define WPERF_TOOL_PROCS_H

#include <stdbool.h>
#include <sys/types.h>

/* The uid process pid runs as, when its four uids are that one uid;
 * -1 when they differ, or pid is gone or unreadable. */
long wperf_process_uid(long pid);

/* Process pid is uid's alone (the rule above). */
bool wperf_process_is(long pid, uid_t uid);

#endif /* WPERF_TOOL_PROCS_H */
