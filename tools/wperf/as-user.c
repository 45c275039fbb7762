/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/as-user.c — files opened as the user who ran sudo
 * (as-user.h says why).
 */
#include "as-user.h"
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int wperf_become_user(const struct wperf_user *as)
{
	if (setgroups((size_t)as->ngroups, as->groups) != 0 ||
	    setresgid(as->gid, as->gid, as->gid) != 0 ||
	    setresuid(as->uid, as->uid, as->uid) != 0)
		return errno ? errno : EPERM;
	return 0;
}

/* Send fd over sock with the errno e (0: fd is sent) as the message. */
static void send_fd(int sock, int fd, int e)
{
	char control[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(sock, &msg, 0) < 0) {
		/* the parent then sees no answer: EIO */
	}
}

/* How long the child may take to open the file: an open can wait on a
 * wedged network file system; root's wperf then says so instead. */
#define OPEN_AS_TIMEOUT_MS 30000

/* The descriptor the child sent on sock, or -1 with errno: the child's,
 * EIO when it ended without a word (a sequenced-packet socket reads
 * end-of-file then), ETIMEDOUT when it said nothing in time. */
static int receive_fd(int sock)
{
	char control[CMSG_SPACE(sizeof(int))];
	int e = EIO, fd = -1;
	struct iovec iov = { .iov_base = &e, .iov_len = sizeof(e) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control,
			      .msg_controllen = sizeof(control) };
	struct pollfd p = { .fd = sock, .events = POLLIN };
	struct cmsghdr *c;
	int ready;
	ssize_t n;

	while ((ready = poll(&p, 1, OPEN_AS_TIMEOUT_MS)) < 0 && errno == EINTR)
		;
	if (ready <= 0) {       /* nothing to read: a recvmsg would wait on */
		errno = ready == 0 ? ETIMEDOUT : errno;
		return -1;
	}
	while ((n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(e)) {
		errno = EIO;
		return -1;
	}
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (fd < 0)
		errno = e ? e : EIO;
	return fd;
}

int wperf_run_as(const struct wperf_user *as, wperf_as_user_fn fn, void *arg)
{
	int sock[2], fd, e;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock) != 0)
		return -1;
	if ((pid = fork()) < 0) {
		e = errno;
		close(sock[0]);
		close(sock[1]);
		errno = e;
		return -1;
	}
	if (pid == 0) {
		close(sock[0]);
		if ((e = wperf_become_user(as)) == 0) {
			fd = fn(arg);
			e = fd < 0 ? errno : 0;
		} else
			fd = -1;
		send_fd(sock[1], fd, e);
		_exit(0);
	}
	close(sock[1]);
	fd = receive_fd(sock[0]);
	e = errno;
	close(sock[0]);
	if (fd < 0 && e == ETIMEDOUT)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	errno = e;
	return fd;
}

const char *wperf_as_user_why(int e)
{
	return e == ENXIO ? "a FIFO without a reader" :
	       e == ENOTSUP ? "it is a block device (a disk), which takes no report" :
	       e == ETIMEDOUT ? "the process opening it as that user did not answer in 30 s "
				"(a file system not answering?)" :
	       e == EIO ? "the process opening it as that user ended without an answer "
			  "(killed?)" :
	       strerror(e);
}

/* ------------------------------------------------------------ open(2) */

struct open_args {
	const char *path;
	int flags;
	mode_t mode;
};

static int open_fn(void *arg)
{
	const struct open_args *a = arg;

	return open(a->path, a->flags, a->mode);
}

int wperf_open_as(const char *path, int flags, mode_t mode, const struct wperf_user *as)
{
	struct open_args a = { .path = path, .flags = flags, .mode = mode };

	return wperf_run_as(as, open_fn, &a);
}

/* ------------------------------------------------------------ a report's place */

struct place_args {
	const char *dir, *name;
};

/* As the user: dir, when the user may make name in it and replace what
 * is there now; or name itself, opened for writing, when it is a device
 * or a FIFO (written in place: `> /dev/null`). -1 with errno. */
static int place_fn(void *arg)
{
	const struct place_args *a = arg;
	int dfd = open(a->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, e = 0;
	struct stat d, st;

	if (dfd < 0)
		return -1;
	if (fstatat(dfd, a->name, &st, 0) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
		fd = openat(dfd, a->name, O_WRONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		e = errno;
		close(dfd);
		errno = e;
		return fd;
	}
	/* The kernel's own rules for a new name in dir and for replacing
	 * the old one (rename(2)): write and search on dir; in a sticky
	 * directory, another user's file stays theirs. */
	if (faccessat(dfd, ".", W_OK | X_OK, 0) != 0)
		e = errno;
	else if (fstat(dfd, &d) == 0 && (d.st_mode & S_ISVTX) && d.st_uid != getuid() &&
		 fstatat(dfd, a->name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_uid != getuid())
		e = EPERM;
	if (e) {
		close(dfd);
		errno = e;
		return -1;
	}
	return dfd;
}

int wperf_open_place_as(const char *dir, const char *name, const struct wperf_user *as)
{
	struct place_args a = { .dir = dir, .name = name };

	return wperf_run_as(as, place_fn, &a);
}

/* ------------------------------------------------------------ a report file of the user's */

/* A hidden name for a report being made in its directory, as the sink's
 * own (plugin/common/output.c): ".wperf-report.XXXXXX". */
static void temp_name(char name[WPERF_TEMP_NAME_LEN])
{
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char r[6] = { 0 };

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r)) {
		unsigned long x = (unsigned long)getpid() ^ (unsigned long)time(NULL) ^
				  (unsigned long)clock();

		for (size_t i = 0; i < sizeof(r); i++, x >>= 5)
			r[i] = (unsigned char)(x + i * 7);
	}
	memcpy(name, ".wperf-report.", 14);
	for (size_t i = 0; i < sizeof(r); i++)
		name[14 + i] = letters[r[i] % (sizeof(letters) - 1)];
	name[20] = '\0';
}

struct file_args {
	int dirfd, fd;
	const char *from, *to;
	char *tmp;              /* out: the name given a named temporary file */
};

/* As the user: a new regular file in dirfd, the user's, 0666 less the
 * umask (as `> FILE` makes it): unnamed (O_TMPFILE) where the file
 * system can, so that nothing is left when wperf is killed; else under
 * a hidden temporary name, which a->tmp gets. */
static int temp_fn(void *arg)
{
	struct file_args *a = arg;
	int fd = openat(a->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0666);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL))
		return fd;
	for (int i = 0; i < 100; i++) {
		temp_name(a->tmp);
		fd = openat(a->dirfd, a->tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			    0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1;
}

int wperf_temp_file_as(int dirfd, char tmp[WPERF_TEMP_NAME_LEN], const struct wperf_user *as)
{
	struct file_args a = { .dirfd = dirfd, .tmp = tmp };
	char *shared;
	int fd, e;

	/* The child writes the name it chose where the parent reads it. */
	shared = mmap(NULL, WPERF_TEMP_NAME_LEN, PROT_READ | PROT_WRITE,
		      MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shared == MAP_FAILED)
		return -1;
	shared[0] = '\0';
	a.tmp = shared;
	fd = wperf_run_as(as, temp_fn, &a);
	e = errno;
	memcpy(tmp, shared, WPERF_TEMP_NAME_LEN);
	tmp[WPERF_TEMP_NAME_LEN - 1] = '\0';
	munmap(shared, WPERF_TEMP_NAME_LEN);
	errno = e;
	return fd;
}

/* As the user: the file a->fd (unnamed: a->from is "") named a->to in
 * a->dirfd, replacing what is there by the kernel's rules for that
 * user (rename(2)). An unnamed file gets a hidden name first: linkat()
 * makes no name that exists already. Success answers with a copy of
 * dirfd, as wperf_run_as() wants a descriptor. */
static int place_file_fn(void *arg)
{
	const struct file_args *a = arg;
	char fdpath[64], tmp[WPERF_TEMP_NAME_LEN];
	const char *from = a->from;
	int e;

	if (!*from) {
		snprintf(fdpath, sizeof(fdpath), "/proc/self/fd/%d", a->fd);
		for (int i = 0; ; i++) {
			temp_name(tmp);
			if (linkat(AT_FDCWD, fdpath, a->dirfd, tmp, AT_SYMLINK_FOLLOW) == 0)
				break;
			if (errno != EEXIST || i == 100)
				return -1;
		}
		from = tmp;
	}
	if (renameat(a->dirfd, from, a->dirfd, a->to) != 0) {
		e = errno;
		if (from == tmp)
			unlinkat(a->dirfd, tmp, 0);
		errno = e;
		return -1;
	}
	return fcntl(a->dirfd, F_DUPFD_CLOEXEC, 3);
}

int wperf_place_file_as(int dirfd, int fd, const char *tmp, const char *name,
			const struct wperf_user *as)
{
	struct file_args a = { .dirfd = dirfd, .fd = fd, .from = tmp, .to = name };
	int done = wperf_run_as(as, place_file_fn, &a);

	if (done < 0)
		return -1;
	close(done);
	return 0;
}

static int unlink_fn(void *arg)
{
	const struct file_args *a = arg;

	if (unlinkat(a->dirfd, a->from, 0) != 0)
		return -1;
	return fcntl(a->dirfd, F_DUPFD_CLOEXEC, 3);
}

void wperf_unlink_as(int dirfd, const char *name, const struct wperf_user *as)
{
	struct file_args a = { .dirfd = dirfd, .from = name };
	int done = wperf_run_as(as, unlink_fn, &a);

	if (done >= 0)
		close(done);
}
