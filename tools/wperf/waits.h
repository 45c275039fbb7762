/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/waits.h — every wait of wperf's on another process has a
 * deadline and a voice: after about two seconds it says on standard error
 * what it waits for (and who holds it), a stop signal (SIGINT, SIGTERM,
 * SIGHUP) ends it within a second, and at its deadline it gives up with
 * one line naming what is wedged and the command that frees it.
 *
 * Two kinds of waits live here: a lock file shared by several wperfs
 * (polled, never a blocking flock; its holder writes its pid in it), and
 * a call into liblttng-ctl, which can block for ever in recvmsg when the
 * session daemon does not answer: a watchdog thread cuts that call's
 * connection to the daemon (shutdown(2) on the process's sockets to
 * lttng-sessiond) so the call returns an error instead.
 */
#ifndef WPERF_TOOL_WAITS_H
#define WPERF_TOOL_WAITS_H

#include <stdbool.h>
#include <stddef.h>

/* Seconds before a wait says what it waits for. */
#define WPERF_WAIT_SAY_AFTER 2.0

/* The lock file could not be had (the reason said): give up. */
#define WPERF_LOCK_GIVEN_UP (-2)

/* Take the exclusive lock of the file at path, made 0600 when missing
 * (never through a link; a file of another user's is not waited on:
 * then -1 after a warning, go on without it). what says what it guards,
 * for the messages. Its descriptor, with this process's pid written in
 * the file; WPERF_LOCK_GIVEN_UP after a stop signal (left pending for the
 * caller) or after give_up_s seconds (one line naming the holder said). */
int wperf_lock_wait(const char *path, const char *what, double give_up_s);

/* The same on a lock file already open (fd, named path in the messages):
 * fd, or WPERF_LOCK_GIVEN_UP after closing it. */
int wperf_lock_fd_wait(int fd, const char *path, const char *what, double give_up_s);

/* Release a lock of wperf_lock_wait (its pid cleared); -1 is no lock. */
void wperf_lock_release(int fd);

/* The pid written in the lock file at path, or 0. */
long wperf_lock_holder(const char *path);

/* ------------------------------------------------------------ lttng-sessiond */

/* Deadlines of calls into liblttng-ctl: a question (list sessions, list
 * tracepoints) and the heavier commands (create, start, stop, destroy,
 * snapshot), which the daemon may take long to do on a loaded machine. */
#define WPERF_CTL_ASK_S 15.0
#define WPERF_CTL_DO_S 90.0

/* Before a call into liblttng-ctl: what it does ("listing sessions").
 * false when the daemon was found wedged (or a stop signal cut a call)
 * already: then why holds the line that says so and the call must not
 * be made. */
bool wperf_ctl_begin(const char *what, double give_up_s, char *why, size_t whylen);

/* After it: true when the call was cut (its result is the cut's, not the
 * daemon's): why then holds the line that says why. */
bool wperf_ctl_end(char *why, size_t whylen);

/* The line saying that lttng-sessiond does not answer (NULL while it
 * does), and whether a stop signal cut the wait. */
const char *wperf_ctl_wedged(void);
bool wperf_ctl_interrupted(void);

#endif /* WPERF_TOOL_WAITS_H */
