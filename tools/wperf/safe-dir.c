/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/safe-dir.c — directories held by descriptor, and the walks
 * root makes in them without ever following a link (safe-dir.h says
 * why).
 */
#include "safe-dir.h"
#include "dir-names.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Deeper than any trace wperf writes (DIR/ust/uid/0/64-bit/index). */
#define MAX_DEPTH 32

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

/* ------------------------------------------------------------ held directories */

static void hold(struct wperf_dir *d, int fd, const char *shown)
{
	d->fd = fd;
	snprintf(d->at, sizeof(d->at), "/proc/self/fd/%d", d->fd);
	snprintf(d->pid_at, sizeof(d->pid_at), "/proc/%ld/fd/%d", (long)getpid(), d->fd);
	snprintf(d->shown, sizeof(d->shown), "%s", shown);
	wperf_dir_names_add(d);
}

bool wperf_dir_open(struct wperf_dir *d, const char *path)
{
	int fd;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if ((fd = open(path, OPEN_DIR)) < 0)
		return false;
	hold(d, fd, path);
	return true;
}

bool wperf_dir_open_at(struct wperf_dir *d, int at, const char *name, const char *shown)
{
	int fd;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if ((fd = openat(at, name, OPEN_DIR)) < 0)
		return false;
	hold(d, fd, shown);
	return true;
}

bool wperf_dir_open_held(struct wperf_dir *d, const char *at, const char *shown)
{
	int fd;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (strncmp(at, "/proc/", 6)) {
		errno = EINVAL;
		return false;
	}
	/* Without O_NOFOLLOW: the /proc link is the one to follow. */
	if ((fd = open(at, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return false;
	hold(d, fd, shown);
	return true;
}

void wperf_dir_close(struct wperf_dir *d)
{
	wperf_dir_names_remove(d);
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

bool wperf_dir_trusted(const struct wperf_dir *d, const char *what)
{
	struct stat st;

	if (geteuid() != 0)
		return true;
	if (fstat(d->fd, &st) != 0) {
		wperf_fail("cannot use %s %s: %s", what, d->shown, strerror(errno));
		return false;
	}
	if (st.st_uid != geteuid()) {
		wperf_fail("%s %s belongs to uid %u, not to the recorder (uid %u): remove it or "
			   "choose another with -o", what, d->shown, (unsigned)st.st_uid,
			   (unsigned)geteuid());
		return false;
	}
	if (st.st_mode & 0022) {
		wperf_fail("%s %s is writable by other users (mode %04o): remove it or choose "
			   "another with -o", what, d->shown, (unsigned)(st.st_mode & 07777));
		return false;
	}
	return true;
}

bool wperf_dir_where(const struct wperf_dir *d, char *buf, size_t len)
{
	struct stat held_st, now;
	ssize_t n = readlink(d->at, buf, len - 1);

	if (n <= 0 || fstat(d->fd, &held_st) != 0)
		return false;
	buf[n] = '\0';
	return buf[0] == '/' && lstat(buf, &now) == 0 && S_ISDIR(now.st_mode) &&
	       now.st_dev == held_st.st_dev && now.st_ino == held_st.st_ino;
}

/* ------------------------------------------------------------ removing */

static void remove_at(int at, const char *name, int depth);

/* A listing of the directory fd on a descriptor of its own, so that
 * closedir() leaves fd open; NULL when it cannot be read. */
static DIR *list_dir(int fd)
{
	int copy = dup(fd);
	DIR *d = copy >= 0 ? fdopendir(copy) : NULL;

	if (!d && copy >= 0)
		close(copy);
	return d;
}

/* The listing's next name other than "." and "..", or NULL at its end. */
static const char *next_entry(DIR *d)
{
	struct dirent *e;

	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			return e->d_name;
	return NULL;
}

/* Everything in the directory fd. */
static void empty_dir(int fd, int depth)
{
	DIR *d = list_dir(fd);
	const char *name;

	if (!d)
		return;
	while ((name = next_entry(d)))
		remove_at(fd, name, depth + 1);
	closedir(d);
}

static void remove_at(int at, const char *name, int depth)
{
	struct stat st;
	int fd;

	if (depth > MAX_DEPTH || fstatat(at, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (!S_ISDIR(st.st_mode)) {
		unlinkat(at, name, 0);
		return;
	}
	if ((fd = openat(at, name, OPEN_DIR)) >= 0) {
		empty_dir(fd, depth);
		close(fd);
	}
	unlinkat(at, name, AT_REMOVEDIR);
}

void wperf_remove_tree_at(int at, const char *name)
{
	remove_at(at, name, 0);
}

/* ------------------------------------------------------------ sharing */

struct share {
	const char *user;
	gid_t gid;
};

/* The group and its bits on the object fd (st: its fstat). */
static void share_fd(const struct share *s, int fd, const struct stat *st, const char *shown)
{
	mode_t bits = S_ISDIR(st->st_mode) ? 0050 : 0040;

	/* Group write is dropped: the group is now the user's. */
	if (fchown(fd, (uid_t)-1, s->gid) != 0 ||
	    fchmod(fd, ((st->st_mode & 07777) & ~(mode_t)0020) | bits) != 0)
		wperf_say("warning: cannot let %s read %s: %s", s->user, shown, strerror(errno));
}

static void share_walk(const struct share *s, int fd, const char *shown, int depth);

/* name in the directory at: opened without following a link, checked to
 * be what was listed (same device and inode, a directory or a regular
 * file), changed through its descriptor; directories walked. */
static void share_one(const struct share *s, int at, const char *name, const char *parent,
		      int depth)
{
	char shown[PATH_MAX];
	struct stat listed, st;
	int fd;

	if (depth > MAX_DEPTH || fstatat(at, name, &listed, AT_SYMLINK_NOFOLLOW) != 0)
		return;
	if (!S_ISDIR(listed.st_mode) && !S_ISREG(listed.st_mode))
		return;     /* links (and FIFOs, sockets) are left as they are */
	fd = openat(at, name, S_ISDIR(listed.st_mode) ? OPEN_DIR :
		    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (strcmp(name, "."))
		snprintf(shown, sizeof(shown), "%s/%s", parent, name);
	else
		snprintf(shown, sizeof(shown), "%s", parent);
	if (fstat(fd, &st) == 0 && st.st_dev == listed.st_dev && st.st_ino == listed.st_ino &&
	    (st.st_mode & S_IFMT) == (listed.st_mode & S_IFMT)) {
		share_fd(s, fd, &st, shown);
		if (S_ISDIR(st.st_mode))
			share_walk(s, fd, shown, depth);
	}
	close(fd);
}

static void share_walk(const struct share *s, int fd, const char *shown, int depth)
{
	DIR *d = list_dir(fd);
	const char *name;

	if (!d)
		return;
	while ((name = next_entry(d)))
		share_one(s, fd, name, shown, depth + 1);
	closedir(d);
}

void wperf_share_tree_at(int at, const char *name, const char *shown, const char *user,
			 gid_t gid)
{
	struct share s = { .user = user, .gid = gid };

	share_one(&s, at, name, shown, 0);
}
