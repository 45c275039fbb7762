/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/parents.h — the directory that will hold DIR, and DIR's
 * missing parents (`sudo wperf record -o ~/a/b/trace` where ~/a does not
 * exist yet), made as `mkdir -p` would have made them for the user who
 * ran sudo (wperf(1), "WHAT WPERF DOES AS ROOT").
 *
 * The parents that exist are reached as the path names them (links
 * followed: the path is the caller's choice). From the first that does
 * not exist on, each missing one is made in the one before through its
 * descriptor (mkdirat), and opened from it with O_NOFOLLOW: a link put in
 * its place meanwhile is refused, never followed. Under sudo (or --user)
 * the missing ones are made by a child process that runs as that user,
 * so the kernel checks the user's own permissions: root never creates a
 * directory where the user could not, and the user owns what is made
 * (mode 0755 less the umask), as their own `mkdir -p` would. Without a
 * user, root makes them (0755 less the umask).
 */
#ifndef WPERF_TOOL_PARENTS_H
#define WPERF_TOOL_PARENTS_H

struct wperf_user;

/* A descriptor (O_DIRECTORY) of path's parent, the missing parents made
 * on the way (as `as`, a user other than root; NULL: as this process),
 * and path's last component in *name (a pointer into path). path is an
 * absolute path without "." or ".." components (wperf_abspath()). -1
 * after saying why, in one line with the fix. */
int wperf_parents_open(const char *path, const struct wperf_user *as, const char **name);

/* The name of the kernel file system the directory fd is on, where
 * mkdir makes something other than a directory to write in (tracefs: an
 * ftrace instance with its ring buffers; cgroup: a control group), or
 * NULL. A DIR made there is not empty, so it is refused, and left
 * behind: each -o there (typed, or through a link of the user's on the
 * way) would leave an ftrace instance or a cgroup. */
const char *wperf_kernel_fs(int fd);

#endif /* WPERF_TOOL_PARENTS_H */
