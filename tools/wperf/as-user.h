/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/as-user.h — a file opened as the user who ran sudo, for
 * root (wperf(1), "WHAT WPERF DOES AS ROOT").
 *
 * `sudo wperf top --output ~/top.txt` writes the reports as root into a
 * path the user controls: a link the user put at ~/top.txt (or in place
 * of a directory on the way) would have root truncate and overwrite
 * whatever it leads to, /etc/shadow or a disk. The shell's own `sudo
 * wperf top > ~/top.txt` opens the file as the user; this does the same:
 * a child process that runs as the user opens the path, so the kernel
 * checks the user's own permissions at every step, and hands the
 * descriptor back to root over a socket. Root writes only where the user
 * could have written, and a new file is the user's.
 */
#ifndef WPERF_TOOL_AS_USER_H
#define WPERF_TOOL_AS_USER_H

#include <sys/types.h>

struct wperf_user;

/* Become user `as` (groups, gid, uid: all of them, for good): in a child
 * process only. 0, or errno. */
int wperf_become_user(const struct wperf_user *as);

/* open(path, flags, mode) in a child running as `as`, the descriptor
 * passed back: the descriptor (O_CLOEXEC), or -1 with errno (the
 * child's open's, or the fork's). */
int wperf_open_as(const char *path, int flags, mode_t mode, const struct wperf_user *as);

/* What a child running as the user does: a descriptor, or -1 with
 * errno. */
typedef int (*wperf_as_user_fn)(void *arg);

/* fn(arg) in a child running as `as`, its descriptor passed back: the
 * descriptor (O_CLOEXEC), or -1 with errno: fn's, the fork's, EIO when
 * the child ended without an answer (killed), ETIMEDOUT when it gave
 * none in OPEN_AS_TIMEOUT_MS (30 s; the child is then killed). */
int wperf_run_as(const struct wperf_user *as, wperf_as_user_fn fn, void *arg);

/* What errno e of the calls above means, for the one line that says
 * why a file could not be opened as the user: the child's silence
 * (ETIMEDOUT) or death (EIO), a FIFO without a reader (ENXIO), a
 * block device (ENOTSUP), else strerror(e). */
const char *wperf_as_user_why(int e);

/* Where `sudo wperf report --output DIR/NAME` may write, as the user
 * `as` could (`> DIR/NAME`): DIR opened as that user (every link on the
 * way followed with that user's rights), returned when the user may
 * create NAME in it and replace what NAME is now, so that root writes
 * the report there atomically (a temporary file renamed over NAME); or,
 * when NAME is a device or FIFO, NAME itself opened for writing as the
 * user (O_NONBLOCK: ENXIO for a FIFO without a reader). -1 with errno
 * (as wperf_run_as(); EPERM: NAME is another user's in a sticky DIR). */
int wperf_open_place_as(const char *dir, const char *name, const struct wperf_user *as);

/* The report file itself, for `sudo wperf report --output DIR/NAME`
 * with DIR held as dirfd (wperf_open_place_as()): made by the user, so
 * that it is the user's, as `> DIR/NAME` would make it, and the user may
 * remove or overwrite the report they asked for; root only writes
 * through the descriptor. */

/* ".wperf-report.XXXXXX" and its '\0'. */
#define WPERF_TEMP_NAME_LEN 21

/* A new file in dirfd, created by the user: unnamed (O_TMPFILE; tmp is
 * then "") where the file system can, else under the hidden name put
 * in tmp. The descriptor (read-write), or -1 with errno as
 * wperf_run_as(). */
int wperf_temp_file_as(int dirfd, char tmp[WPERF_TEMP_NAME_LEN], const struct wperf_user *as);

/* The finished file fd (made by wperf_temp_file_as(), tmp its name) put
 * in place as NAME in dirfd, by the user: the kernel applies that
 * user's rights to replace what NAME is (a sticky directory's other
 * users' files stay theirs). 0, or -1 with errno (nothing left under a
 * temporary name but tmp itself). */
int wperf_place_file_as(int dirfd, int fd, const char *tmp, const char *name,
			const struct wperf_user *as);

/* Remove name from dirfd as the user (a report that failed), quietly. */
void wperf_unlink_as(int dirfd, const char *name, const struct wperf_user *as);

#endif /* WPERF_TOOL_AS_USER_H */
