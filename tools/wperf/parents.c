/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/parents.c — DIR's parent, its missing parents made from
 * descriptor to descriptor, as the user who ran sudo (parents.h says
 * why).
 */
#include "parents.h"
#include "as-user.h"
#include "output.h"
#include "wperf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define OPEN_DIR (O_RDONLY | O_DIRECTORY | O_CLOEXEC)

/* Deeper than any path that fits PATH_MAX with room for a trace. */
#define MAX_PARTS 2048

/* path's components, split in a copy of it. */
struct parts {
	const char *path;
	char *copy;
	char *at[MAX_PARTS];
	int n;
};

static bool split(const char *path, struct parts *p)
{
	char *save = NULL;

	p->path = path;
	p->n = 0;
	if (!(p->copy = strdup(path)))
		return false;
	for (char *s = strtok_r(p->copy, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (p->n == MAX_PARTS)
			return false;
		p->at[p->n++] = s;
	}
	return p->n > 0;
}

/* The length of the path up to and including component i. */
static int upto(const struct parts *p, int i)
{
	return (int)(p->at[i] - p->copy + (long)strlen(p->at[i]));
}

/* Make components [i, end) of p, each in the one before, starting in
 * the directory at (left open): mkdirat, then openat with O_NOFOLLOW. 0,
 * or the errno of the first that failed. */
static int make_chain(int at, const struct parts *p, int i, int end)
{
	int cur = at;

	for (; i < end; i++) {
		int fd, e;

		if (mkdirat(cur, p->at[i], 0755) != 0 && errno != EEXIST)
			fd = -1;
		else
			fd = openat(cur, p->at[i], OPEN_DIR | O_NOFOLLOW);
		e = errno;
		if (cur != at)
			close(cur);
		if (fd < 0)
			return e ? e : EIO;
		cur = fd;
	}
	if (cur != at)
		close(cur);
	return 0;
}

/* The same in a child that runs as user `as`: the kernel checks the
 * user's permissions, and what is made is the user's. */
static int make_chain_as(int at, const struct parts *p, int i, int end,
			 const struct wperf_user *as)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return errno;
	if (pid == 0) {
		if (wperf_become_user(as) != 0)
			_exit(EPERM);
		_exit(make_chain(at, p, i, end));
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : EINTR;
}

static int missing_failed(const struct parts *p, int i, const struct wperf_user *as, int e)
{
	if (as)
		wperf_fail("cannot create %.*s as %s: %s (wperf makes the output directory's "
			   "missing parents as the user who ran sudo, as their mkdir -p would: "
			   "create it first, or give --user root)", upto(p, i), p->path, as->name,
			   strerror(e));
	else
		wperf_fail("cannot create %.*s: %s", upto(p, i), p->path, strerror(e));
	return -1;
}

/* Open component i of p in the directory at: made just now (made: 0,
 * or the errno of the making), it must be a directory (not a link:
 * O_NOFOLLOW) of its maker's, or root's. The descriptor, or -1 after
 * saying why. */
static int open_made(int at, const struct parts *p, int i, const struct wperf_user *as,
		     int made)
{
	uid_t maker = as ? as->uid : geteuid();
	struct stat st;
	int fd = openat(at, p->at[i], OPEN_DIR | O_NOFOLLOW);

	if (fd < 0 && errno == ENOENT && made)
		return missing_failed(p, i, as, made);
	if (fd < 0 || fstat(fd, &st) != 0 || (st.st_uid != maker && st.st_uid != 0)) {
		wperf_fail("%.*s was replaced while being created (%s): choose another output "
			   "directory with -o", upto(p, i), p->path,
			   fd < 0 ? (errno == ELOOP || errno == ENOTDIR ? "by a link or a file" :
				     strerror(errno)) : "by another user's directory");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

const char *wperf_kernel_fs(int fd)
{
	static const struct { long magic; const char *name; } kinds[] = {
		{ 0x9fa0, "proc" }, { 0x62656572, "sysfs" }, { 0x74726163, "tracefs" },
		{ 0x64626720, "debugfs" }, { 0x63677270, "cgroup2" }, { 0x27e0eb, "cgroup" },
		{ 0x62656570, "configfs" }, { 0x73636673, "securityfs" }, { 0xcafe4a11, "bpf" },
		{ 0x6165676c, "pstore" }, { 0xde5e81e4, "efivarfs" },
	};
	struct statfs fs;

	if (fstatfs(fd, &fs) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if ((long)fs.f_type == kinds[i].magic)
			return kinds[i].name;
	return NULL;
}

/* From the directory at (component i's parent) on: the missing parents
 * made, then opened again one by one. The last one's descriptor (at
 * closed), or -1 after saying why. */
static int make_missing(int at, const struct parts *p, int i, const struct wperf_user *as)
{
	int end = p->n - 1, cur = at;
	int made;

	if (wperf_kernel_fs(at)) {
		wperf_fail("cannot create %.*s: it would be on %s, a kernel file system where a "
			   "new directory is no directory to write in: choose another output "
			   "directory with -o", upto(p, i), p->path, wperf_kernel_fs(at));
		close(at);
		return -1;
	}
	made = as ? make_chain_as(at, p, i, end, as) : make_chain(at, p, i, end);

	for (; cur >= 0 && i < end; i++) {
		int fd = open_made(cur, p, i, as, made);

		close(cur);
		cur = fd;
	}
	return cur;
}

/* Another user who may rename entries of DIR's parent could swap DIR for
 * a link once it is made; a sticky directory such as /tmp forbids that. */
static bool parent_safe(int fd, const struct parts *p)
{
	struct stat st;

	if (geteuid() != 0 || fstat(fd, &st) != 0 || !(st.st_mode & 0002) ||
	    (st.st_mode & S_ISVTX))
		return true;
	wperf_fail("the directory %.*s is writable by every user and not sticky: choose an "
		   "output directory elsewhere with -o", p->n > 1 ? upto(p, p->n - 2) : 1,
		   p->n > 1 ? p->path : "/");
	return false;
}

int wperf_parents_open(const char *path, const struct wperf_user *as, const char **name)
{
	struct parts p;
	int cur = -1, i = 0;

	if (!split(path, &p)) {
		wperf_fail("cannot use output directory %s: %s", path, strerror(errno ? errno :
										 ENAMETOOLONG));
		goto end;
	}
	*name = path + (p.at[p.n - 1] - p.copy);
	if ((cur = open("/", OPEN_DIR)) < 0) {
		wperf_fail("cannot open /: %s", strerror(errno));
		goto end;
	}
	/* The parents that exist, as the path names them. */
	for (; i < p.n - 1; i++) {
		int fd = openat(cur, p.at[i], OPEN_DIR);

		if (fd < 0)
			break;
		close(cur);
		cur = fd;
	}
	if (i < p.n - 1 && errno != ENOENT) {
		wperf_fail("cannot use %.*s: %s", upto(&p, i), path, strerror(errno));
		close(cur);
		cur = -1;
	} else if (i < p.n - 1)
		cur = make_missing(cur, &p, i, as);
	if (cur >= 0 && !parent_safe(cur, &p)) {
		close(cur);
		cur = -1;
	}
end:
	free(p.copy);
	return cur;
}
