/* SPDX-License-Identifier: MIT */
/*
 * report-svg.c — the DOT picture laid out by Graphviz: `dot -Tsvg`.
 *
 * The DOT text goes to dot's standard input through an anonymous memory
 * file (memfd) rather than a pipe: we never block writing while dot
 * blocks writing, and a dot that dies early cannot SIGPIPE the process
 * hosting the plugin. Its standard error goes to another memory file, so
 * that a failure can be reported in one line with dot's own reason.
 * dot's picture is held in memory and written once its edge labels are
 * moved apart (report-svg-labels.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report-format.h"
#include "wperf/report.h"

extern char **environ;

#define INSTALL_HINT "install Graphviz (apt-get install graphviz)"

/* The first executable `dot` on PATH (an empty entry is the current
 * directory, as for execvp). 0, or -1 when there is none. */
static int find_dot(char *buf, size_t len)
{
	const char *path = getenv("PATH");
	struct stat st;

	if (!path)
		path = "/usr/local/bin:/bin:/usr/bin";
	while (1) {
		const char *colon = strchr(path, ':');
		size_t n = colon ? (size_t)(colon - path) : strlen(path);
		int w = snprintf(buf, len, "%.*s%sdot", (int)n, path, n ? "/" : "");

		if (w > 0 && (size_t)w < len && stat(buf, &st) == 0 && S_ISREG(st.st_mode) &&
		    access(buf, X_OK) == 0)
			return 0;
		if (!colon)
			return -1;
		path = colon + 1;
	}
}

bool wperf_graphviz_available(void)
{
	char dot[4096];

	return find_dot(dot, sizeof dot) == 0;
}

/* The DOT picture in a rewound memory file (close it), or -1. */
static int dot_input(const struct wperf_report *r, enum wperf_fmt_picture mode)
{
	int fd = memfd_create("wperf-dot", MFD_CLOEXEC);
	int copy = fd < 0 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC, 0);
	FILE *f = copy < 0 ? NULL : fdopen(copy, "w");
	int rc;

	if (!f) {
		if (copy >= 0)
			close(copy);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	rc = wperf_fmt_write_dot_picture(r, f, mode);
	if (fclose(f) != 0 || rc < 0 || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Copy what dot writes on the pipe to out, to the end. 0, or -1 when
 * reading or writing failed (the pipe is still drained, so dot ends). */
static int copy_output(int fd, FILE *out, size_t *total)
{
	char buf[65536];
	int rc = 0;

	*total = 0;
	while (1) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			return rc;
		if (rc == 0 && fwrite(buf, 1, (size_t)n, out) != (size_t)n)
			rc = -1;
		*total += (size_t)n;
	}
}

/* dot's first line of complaint, for a one-line error. */
static void first_error_line(int fd, char *buf, size_t len)
{
	ssize_t n;

	buf[0] = '\0';
	if (len < 2 || lseek(fd, 0, SEEK_SET) != 0)
		return;
	n = read(fd, buf, len - 1);
	buf[n > 0 ? n : 0] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
}

static int wait_for(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

static void describe_failure(int status, int errfd, char *err, size_t errlen)
{
	char why[256];

	first_error_line(errfd, why, sizeof why);
	if (WIFEXITED(status))
		snprintf(err, errlen, "Graphviz `dot -Tsvg` failed with exit status %d%s%s",
			 WEXITSTATUS(status), why[0] ? ": " : "", why);
	else
		snprintf(err, errlen, "Graphviz `dot -Tsvg` was killed by signal %d%s%s",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0, why[0] ? ": " : "", why);
}

/* Run dot with the three descriptors; its output goes to out. */
static int run_dot(const char *dot, int in, int errfd, FILE *out, char *err, size_t errlen)
{
	char arg0[] = "dot", arg1[] = "-Tsvg";
	char *argv[] = { arg0, arg1, NULL };
	posix_spawn_file_actions_t fa;
	int p[2], status = 0, copied, copy_errno;
	size_t total = 0;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "cannot run Graphviz `dot`: %s", strerror(errno));
		return -1;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_adddup2(&fa, errfd, 2);
	int rc = posix_spawn(&pid, dot, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (rc != 0) {
		close(p[0]);
		snprintf(err, errlen, "cannot run Graphviz `%s`: %s (%s)", dot, strerror(rc),
			 INSTALL_HINT);
		errno = rc;
		return -1;
	}
	copied = copy_output(p[0], out, &total);
	copy_errno = errno;     /* before close and waitpid touch it */
	close(p[0]);
	if (wait_for(pid, &status) < 0) {
		snprintf(err, errlen, "cannot wait for Graphviz `dot`: %s", strerror(errno));
		return -1;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		describe_failure(status, errfd, err, errlen);
		errno = EIO;
		return -1;
	}
	if (copied < 0) {
		snprintf(err, errlen, "cannot write the SVG picture: %s", strerror(copy_errno));
		errno = copy_errno;
		return -1;
	}
	if (total == 0) {
		snprintf(err, errlen, "Graphviz `dot -Tsvg` exited 0 but wrote nothing");
		errno = EIO;
		return -1;
	}
	return 0;
}

/* dot's picture, its edge labels then moved apart (report-svg-labels.c). */
static int run_dot_and_place(const char *dot, int in, int errfd, FILE *out, char *err,
			     size_t errlen)
{
	char *svg = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&svg, &len);
	int rc;

	if (!mem) {
		snprintf(err, errlen, "cannot hold the SVG picture: %s", strerror(errno));
		return -1;
	}
	rc = run_dot(dot, in, errfd, mem, err, errlen);
	if (fclose(mem) != 0 && rc == 0) {
		snprintf(err, errlen, "cannot hold the SVG picture: %s", strerror(errno));
		rc = -1;
	}
	if (rc == 0 && wperf_fmt_svg_place_labels(svg, len, out) < 0) {
		snprintf(err, errlen, "cannot write the SVG picture: %s", strerror(errno));
		rc = -1;
	}
	free(svg);
	return rc;
}

static int write_svg(const struct wperf_report *r, enum wperf_fmt_picture mode, FILE *out,
		     char *err, size_t errlen)
{
	char dot[4096];
	int in, errfd, rc;

	if (find_dot(dot, sizeof dot) < 0) {
		snprintf(err, errlen, "Graphviz is not installed (no `dot` on PATH): "
			 INSTALL_HINT ", or use format=dot");
		errno = ENOENT;
		return -1;
	}
	in = dot_input(r, mode);
	if (in < 0) {
		snprintf(err, errlen, "cannot prepare the DOT picture: %s", strerror(errno));
		return -1;
	}
	errfd = memfd_create("wperf-dot-stderr", MFD_CLOEXEC);
	if (errfd < 0) {
		snprintf(err, errlen, "cannot run Graphviz `dot`: %s", strerror(errno));
		close(in);
		return -1;
	}
	rc = run_dot_and_place(dot, in, errfd, out, err, errlen);
	close(in);
	close(errfd);
	return rc;
}

int wperf_report_write_svg(const struct wperf_report *r, FILE *out, char *err,
			   size_t errlen)
{
	return write_svg(r, WPERF_PICTURE_SUMMARY, out, err, errlen);
}

int wperf_report_write_first_svg(const struct wperf_report *r, FILE *out, char *err,
				 size_t errlen)
{
	return write_svg(r, WPERF_PICTURE_FIRST, out, err, errlen);
}
