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
#include <sys/socket.h>
#include <sys/wait.h>
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

int wperf_open_as(const char *path, int flags, mode_t mode, const struct wperf_user *as)
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
			fd = open(path, flags, mode);
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
