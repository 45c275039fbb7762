/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/output.c — report files written atomically.
 *
 * The report goes to a temporary file created (mkstemp) in the target's own
 * directory, so the final rename() stays on one file system and is atomic:
 * a reader sees either the old file or the whole new report, never half of
 * one, and an error or an interruption leaves nothing behind.
 */
#include "output.h"
#include "error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

static bool is_stdout(const char *path)
{
	return !path || strcmp(path, "-") == 0;
}

/* "DIR/.wperf-report.XXXXXX" beside path: hidden, so a directory listing
 * taken while the report is written does not show a half file by its
 * name, and short, so that any name the file system takes for the report
 * itself (up to NAME_MAX) can be written through it. */
static char *temp_template(const char *path)
{
	static const char base[] = ".wperf-report.XXXXXX";
	const char *slash = strrchr(path, '/');
	size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
	size_t len = dir_len + sizeof base;
	char *t = malloc(len);

	if (t)
		snprintf(t, len, "%.*s%s", (int)dir_len, path, base);
	return t;
}

/* mkstemp creates files 0600; a report should get the usual permissions
 * (0666 less the umask), like a file created with fopen(). */
static void set_default_mode(int fd)
{
	mode_t mask = umask(0);

	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
}

/* The directory path is in, malloc'ed: "." for a bare name, "/" for
 * "/name". NULL when out of memory. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

/* The kernel's own file systems (/proc, /sys, ...): they take no new file,
 * whatever the permissions say, and refuse one with an errno that names
 * something else (ENOENT in /proc, EACCES in /sys even for root). NULL for
 * any other file system. */
static const char *kernel_fs(const char *dir)
{
	static const struct { long magic; const char *name; } kinds[] = {
		{ 0x9fa0, "proc" },         /* PROC_SUPER_MAGIC */
		{ 0x62656572, "sysfs" },    /* SYSFS_MAGIC */
		{ 0x74726163, "tracefs" },  /* TRACEFS_MAGIC */
		{ 0x64626720, "debugfs" },  /* DEBUGFS_MAGIC */
		{ 0x63677270, "cgroup2" },  /* CGROUP2_SUPER_MAGIC */
		{ 0x27e0eb, "cgroup" },     /* CGROUP_SUPER_MAGIC */
		{ 0x73636673, "securityfs" },
		{ 0x6e736673, "nsfs" },
		{ 0xcafe4a11, "bpf" },
	};
	struct statfs fs;

	if (statfs(dir, &fs) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if ((long)fs.f_type == kinds[i].magic)
			return kinds[i].name;
	return NULL;
}

/* Why a new file (the report's temporary file) cannot be made beside path,
 * errno e, in one line with what to do: the errno alone misleads (a
 * report to /proc/version would say "No such file or directory"). */
static void explain_create_failure(char *err, size_t errlen, const char *path, int e)
{
	char *dir = dir_of(path);
	const char *fs = dir ? kernel_fs(dir) : NULL;
	struct stat st;

	if (!dir) {
		wperf_set_err(err, errlen, "cannot write `%s`: out of memory", path);
		return;
	}
	if (fs)
		wperf_set_err(err, errlen, "cannot write `%s`: `%s` is on %s, a kernel file "
			      "system that takes no report: give a file on a disk or tmpfs",
			      path, dir, fs);
	else if ((e == ENOENT || e == ENOTDIR) && stat(dir, &st) == 0 && !S_ISDIR(st.st_mode))
		wperf_set_err(err, errlen, "cannot write `%s`: `%s` is not a directory: give a "
			      "file in a directory", path, dir);
	else if (e == ENOENT || e == ENOTDIR)
		wperf_set_err(err, errlen, "cannot write `%s`: directory `%s` does not exist: "
			      "create it or give a file in an existing directory", path, dir);
	else if (e == EACCES || e == EPERM)
		wperf_set_err(err, errlen, "cannot write `%s`: uid %ld may not create files in "
			      "directory `%s` (%s): give a file in a directory you can write",
			      path, (long)geteuid(), dir, strerror(e));
	else if (e == EROFS)
		wperf_set_err(err, errlen, "cannot write `%s`: directory `%s` is on a read-only "
			      "file system: give a file elsewhere", path, dir);
	else if (e == ENOSPC || e == EDQUOT)
		wperf_set_err(err, errlen, "cannot write `%s`: no room in directory `%s` (%s): "
			      "free some space or give a file elsewhere", path, dir, strerror(e));
	else
		wperf_set_err(err, errlen, "cannot write `%s`: cannot create a file in directory "
			      "`%s`: %s", path, dir, strerror(e));
	free(dir);
}

/* As root: path is a symbolic link of another user's (the user's own
 * ~/report.json, a link planted where root writes the report), which
 * root must not follow: it would write the report, as root, wherever
 * that user points it (a device written in place: /dev/sda), or have
 * it replace the link with a file of root's. Set err and say true. A
 * link of root's (/dev/stdout) is followed; not root: the kernel checks
 * the caller's own permissions. */
static bool foreign_link(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (geteuid() != 0 || lstat(path, &st) != 0 || !S_ISLNK(st.st_mode) || st.st_uid == 0)
		return false;
	wperf_set_err(err, errlen, "cannot write `%s`: it is a symbolic link of uid %ld, and "
		      "root follows no other user's link: give the file itself, or write the "
		      "report as that user", path, (long)st.st_uid);
	return true;
}

/* The descriptor a path names by itself: N for /dev/fd/N and
 * /proc/self/fd/N, 1 for /dev/stdout, 2 for /dev/stderr; -1 for any
 * other path. Such a path is written through that descriptor (a copy of
 * it), as a shell's redirection would be, never opened again by name:
 * opening /proc/self/fd/N anew would truncate an appended file, and
 * renaming a temporary file over /dev/stdout would replace the link
 * itself (as root, every process's /dev/stdout). `sudo wperf top
 * --output FILE` hands the sink the descriptor it opened as the user
 * (tools/wperf/as-user.h) so. */
static int descriptor_named(const char *path)
{
	static const char *const prefixes[] = { "/dev/fd/", "/proc/self/fd/" };
	const char *n = NULL;
	long fd = 0;

	if (strcmp(path, "/dev/stdout") == 0)
		return 1;
	if (strcmp(path, "/dev/stderr") == 0)
		return 2;
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0] && !n; i++)
		if (strncmp(path, prefixes[i], strlen(prefixes[i])) == 0)
			n = path + strlen(prefixes[i]);
	if (!n || !*n || strspn(n, "0123456789") != strlen(n) || strlen(n) > 9)
		return -1;
	fd = strtol(n, NULL, 10);
	return (int)fd;
}

/* A stream on a copy of descriptor fd (path: its name, for err); NULL
 * with err set when fd is not open for writing. */
static FILE *descriptor_stream(int fd, const char *path, char *err, size_t errlen)
{
	int flags = fcntl(fd, F_GETFL), copy;
	FILE *f;

	if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) {
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path,
			      strerror(flags < 0 ? errno : EBADF));
		return NULL;
	}
	if ((copy = fcntl(fd, F_DUPFD_CLOEXEC, 3)) < 0 || !(f = fdopen(copy, "w"))) {
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path, strerror(errno));
		if (copy >= 0)
			close(copy);
		return NULL;
	}
	return f;
}

FILE *wperf_output_stream(const char *path, char *err, size_t errlen)
{
	int fd = descriptor_named(path);
	FILE *f;

	if (fd >= 0)
		return descriptor_stream(fd, path, err, errlen);
	if (foreign_link(path, err, errlen))
		return NULL;
	if (!(f = fopen(path, "w")))
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path, strerror(errno));
	return f;
}

static bool is_special_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/* Open the device or FIFO path for writing, in place. As root, a link
 * at its end is followed only in a directory no other user can write
 * to (/dev/stdout): elsewhere that user could put one there between the
 * look and the open. What was opened must still be no regular file,
 * and never a block device (a disk: a report is never written over
 * one). The descriptor, or -1 with errno (ELOOP: a link where none may
 * be). */
static int open_special(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = dir_of(path);
	int at = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
	int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC, fd = -1, e;
	struct stat st;

	free(dir);
	if (at < 0)
		return -1;
	if (geteuid() == 0 && (fstat(at, &st) != 0 || st.st_uid != 0 || (st.st_mode & 022)))
		flags |= O_NOFOLLOW;
	memset(&st, 0, sizeof st);
	fd = openat(at, slash ? slash + 1 : path, flags);
	e = errno;
	close(at);
	if (fd >= 0 && fstat(fd, &st) != 0) {
		e = errno;
		close(fd);
		fd = -1;
	} else if (fd >= 0 && (S_ISREG(st.st_mode) || S_ISDIR(st.st_mode) ||
			       S_ISBLK(st.st_mode))) {
		e = S_ISBLK(st.st_mode) ? ENOTSUP : EAGAIN;
		close(fd);
		fd = -1;
	}
	errno = e;
	return fd;
}

static int open_in_place(struct wperf_output *o, const char *path, char *err, size_t errlen)
{
	int fd;

	o->path = strdup(path);
	if (!o->path) {
		wperf_set_err(err, errlen, "cannot write `%s`: out of memory", path);
		return -1;
	}
	if ((fd = open_special(path)) < 0 || !(o->f = fdopen(fd, "w"))) {
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path,
			      errno == ENOTSUP ? "it is a block device (a disk), which takes no "
			      "report" : errno == EAGAIN ? "it was replaced while being opened" :
			      errno == ELOOP ? "it became a symbolic link, which root does not "
			      "follow here" : strerror(errno));
		if (fd >= 0)
			close(fd);
		free(o->path);
		o->path = NULL;
		return -1;
	}
	return 0;
}

int wperf_output_open(struct wperf_output *o, const char *path, char *err, size_t errlen)
{
	int fd;

	memset(o, 0, sizeof *o);
	if (is_stdout(path)) {
		o->f = stdout;
		return 0;
	}
	if (path[0] == '\0' || path[strlen(path) - 1] == '/') {
		wperf_set_err(err, errlen, "`%s` is not a file name", path);
		return -1;
	}
	if (descriptor_named(path) >= 0) {
		if (!(o->path = strdup(path))) {
			wperf_set_err(err, errlen, "cannot write `%s`: out of memory", path);
			return -1;
		}
		if (!(o->f = descriptor_stream(descriptor_named(path), path, err, errlen))) {
			free(o->path);
			o->path = NULL;
			return -1;
		}
		return 0;
	}
	if (foreign_link(path, err, errlen))
		return -1;
	if (is_special_file(path))
		return open_in_place(o, path, err, errlen);
	o->path = strdup(path);
	o->tmp_path = temp_template(path);
	if (!o->path || !o->tmp_path) {
		wperf_set_err(err, errlen, "cannot write `%s`: out of memory", path);
		goto fail;
	}
	fd = mkstemp(o->tmp_path);
	if (fd < 0) {
		explain_create_failure(err, errlen, path, errno);
		goto fail;
	}
	set_default_mode(fd);
	o->f = fdopen(fd, "w");
	if (!o->f) {
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path, strerror(errno));
		close(fd);
		unlink(o->tmp_path);
		goto fail;
	}
	return 0;
fail:
	free(o->path);
	free(o->tmp_path);
	memset(o, 0, sizeof *o);
	return -1;
}

int wperf_output_check(const char *path, char *err, size_t errlen)
{
	struct wperf_output o;

	if (is_stdout(path))
		return 0;
	if (descriptor_named(path) >= 0) {
		FILE *f = descriptor_stream(descriptor_named(path), path, err, errlen);

		if (!f)
			return -1;
		fclose(f);      /* a copy: the descriptor stays open */
		return 0;
	}
	if (foreign_link(path, err, errlen))
		return -1;
	if (path[0] != '\0' && is_special_file(path)) {
		struct stat st;

		if (stat(path, &st) == 0 && S_ISBLK(st.st_mode)) {
			wperf_set_err(err, errlen, "cannot write `%s`: it is a block device (a disk), "
				      "which takes no report", path);
			return -1;
		}
		if (access(path, W_OK) == 0)
			return 0;
		wperf_set_err(err, errlen, "cannot write `%s`: %s", path, strerror(errno));
		return -1;
	}
	/* The very file system call the report will make, undone at once:
	 * no permission bit or access() can tell what the file system says. */
	if (wperf_output_open(&o, path, err, errlen) < 0)
		return -1;
	wperf_output_abort(&o);
	return 0;
}

static void release(struct wperf_output *o)
{
	free(o->path);
	free(o->tmp_path);
	memset(o, 0, sizeof *o);
}

int wperf_output_commit(struct wperf_output *o, char *err, size_t errlen)
{
	int saved;

	if (!o->f)
		return 0;
	errno = 0;   /* so a failure flagged only by ferror() reads as EIO */
	if (!o->path) {   /* standard output: nothing to rename */
		o->f = NULL;
		if (fflush(stdout) != 0 || ferror(stdout)) {
			wperf_set_err(err, errlen, "cannot write to standard output: %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (!o->tmp_path) {   /* a device or FIFO, written in place */
		int bad = fflush(o->f) != 0 || ferror(o->f);

		bad |= fclose(o->f) != 0;
		o->f = NULL;
		if (bad)
			goto fail;
		release(o);
		return 0;
	}
	/* ferror catches a write that failed earlier and was not checked. */
	if (fflush(o->f) != 0 || ferror(o->f) || fsync(fileno(o->f)) != 0)
		goto fail;
	if (fclose(o->f) != 0) {
		o->f = NULL;
		goto fail;
	}
	o->f = NULL;
	if (rename(o->tmp_path, o->path) != 0)
		goto fail;
	release(o);
	return 0;
fail:
	saved = errno ? errno : EIO;
	wperf_set_err(err, errlen, "cannot write `%s`: %s", o->path, strerror(saved));
	wperf_output_abort(o);
	return -1;
}

void wperf_output_abort(struct wperf_output *o)
{
	if (o->path) {
		if (o->f)
			fclose(o->f);
		if (o->tmp_path)
			unlink(o->tmp_path);
	}
	release(o);
}
