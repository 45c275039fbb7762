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

#endif /* WPERF_TOOL_AS_USER_H */
