/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/safe-dir.h — how root works in a directory whose *path*
 * another user controls (wperf(1), "WHAT WPERF DOES AS ROOT").
 *
 * `sudo wperf record -o ~/trace` writes into a directory whose parent
 * belongs to the user, whose recorded command can rename the directory
 * away and put a link or a directory of its own in its place, at any
 * moment. So wperf opens the directory once (O_DIRECTORY | O_NOFOLLOW),
 * checks what it opened (fstat: root's, writable by no one else), holds
 * the descriptor, and from then on reaches it only through it:
 *  - its own walks (removing a tree, sharing the trace with the user) go
 *    from descriptor to descriptor (openat with O_NOFOLLOW, fstat, the
 *    change made on the descriptor), never following a link;
 *  - every other file operation, its own and those of the programs it
 *    hands a path to (sink.ctf.fs in the recorder child, lttng-sessiond's
 *    pid file, LTTng's trace output), goes through /proc/self/fd/N or
 *    /proc/PID/fd/N: the kernel resolves that to the directory the
 *    descriptor holds, wherever it was moved, not to whatever now has
 *    its name. Below it everything is root's and writable by root alone.
 * The messages still name the directory as the user gave it: wperf_say()
 * and wperf_fail() write a held directory's path for its /proc name
 * (dir-names.h).
 */
#ifndef WPERF_TOOL_SAFE_DIR_H
#define WPERF_TOOL_SAFE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A directory held by descriptor. */
struct wperf_dir {
	int fd;                 /* -1: none */
	char at[64];            /* /proc/self/fd/N: this process and its forked children */
	char pid_at[64];        /* /proc/PID/fd/N: other processes, while this one lives */
	char shown[4096];       /* the path it was opened by, for messages */
};

/* Open path as a held directory: not a link (O_NOFOLLOW), a directory.
 * Registered for messages (see above) until wperf_dir_close(). false
 * with errno set. */
bool wperf_dir_open(struct wperf_dir *d, const char *path);

/* Open name in the directory at as a held directory (shown: its path,
 * for messages): not a link (O_NOFOLLOW), a directory. false with errno
 * set. */
bool wperf_dir_open_at(struct wperf_dir *d, int at, const char *name, const char *shown);

/* Hold the directory that at, another process's /proc/PID/fd/N, holds:
 * the kernel resolves that name to the very directory, whatever the
 * path it was opened by leads to now (shown: that path, for messages).
 * false with errno set. */
bool wperf_dir_open_held(struct wperf_dir *d, const char *at, const char *shown);
void wperf_dir_close(struct wperf_dir *d);

/* Root's checks of what was opened: owned by root (the caller) and
 * writable by no other user. Not root: always true. false after saying
 * why, naming the directory as `what`. */
bool wperf_dir_trusted(const struct wperf_dir *d, const char *what);

/* Where the held directory is now: a path that names it (lstat finds the
 * same device and inode, not a link), in buf. false when no path does
 * (removed, or the kernel's path for it names something else now). */
bool wperf_dir_where(const struct wperf_dir *d, char *buf, size_t len);

/* Remove name (a file, or a directory and everything below it) from the
 * directory at: links removed, never followed. What cannot be removed
 * stays, silently. */
void wperf_remove_tree_at(int at, const char *name);

/* Let the user `user` (group gid) read the tree name of the directory at
 * (name "." : at itself): every directory and file below it gets the
 * group, group read (and search on directories), and loses group write;
 * links are skipped. Every change is made on a descriptor opened with
 * O_NOFOLLOW. Warns about what it cannot change, naming it below `shown`. */
void wperf_share_tree_at(int at, const char *name, const char *shown, const char *user,
			 gid_t gid);

#endif /* WPERF_TOOL_SAFE_DIR_H */
