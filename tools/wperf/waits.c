/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/waits.c — waits with a deadline and a voice (waits.h): the
 * lock files several wperfs share, polled with the holder's pid in them,
 * and the watchdog thread that watches each call into liblttng-ctl.
 *
 * Why a thread that cuts connections rather than a timer signal:
 * liblttng-ctl retries recvmsg on EINTR, so no signal ends its wait; a
 * shut-down socket does (recvmsg returns 0, the call fails with the
 * daemon's "no session daemon" error, and wperf goes on to its own
 * cleanup). Once a call was cut the daemon counts as wedged for the rest
 * of the run: the later calls (cleanup's destroy) are not made, and the
 * final line says what was left in it.
 */
#include "waits.h"
#include "command.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void nap_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 },
		  NULL);
}

/* "pid N (its command line, printable characters only)", or "pid N" when
 * it cannot be read. */
static void describe_pid(long pid, char *out, size_t len)
{
	char path[64], cmd[160] = "";
	ssize_t n = 0;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
		n = read(fd, cmd, sizeof(cmd) - 1);
		close(fd);
	}
	for (ssize_t i = 0; i < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
		else if ((unsigned char)cmd[i] < 0x20 || (unsigned char)cmd[i] >= 0x7f)
			cmd[i] = '?';
	cmd[n > 0 ? n : 0] = '\0';
	while (n > 0 && cmd[n - 1] == ' ')
		cmd[--n] = '\0';
	if (n > 0)
		snprintf(out, len, "pid %ld (%s)", pid, cmd);
	else
		snprintf(out, len, "pid %ld", pid);
}

/* ------------------------------------------------------------ lock files */

long wperf_lock_holder(const char *path)
{
	char text[32] = "";
	ssize_t n;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return 0;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	return strtol(text, NULL, 10) > 0 ? strtol(text, NULL, 10) : 0;
}

/* Open path for locking: ours, a regular file, not through a link. */
static int open_lock(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
		wperf_say("warning: %s belongs to another user or is not a file: going on "
			  "without it (remove it)", path);
		close(fd);
		return -1;
	}
	return fd;
}

static void write_holder(int fd)
{
	char text[32];
	int n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());

	if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n)
		return;     /* then the messages of the others name no holder */
}

static void holder_text(const char *path, char *out, size_t len)
{
	long pid = wperf_lock_holder(path);

	if (pid > 0)
		describe_pid(pid, out, len);
	else
		snprintf(out, len, "a process that did not write its pid");
}

int wperf_lock_wait(const char *path, const char *what, double give_up_s)
{
	int fd = open_lock(path);

	if (fd < 0)
		return -1;
	return wperf_lock_fd_wait(fd, path, what, give_up_s);
}

int wperf_lock_fd_wait(int fd, const char *path, const char *what, double give_up_s)
{
	double start = now_s();
	bool said = false;
	char holder[256];

	while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		double waited = now_s() - start;

		if (errno != EWOULDBLOCK && errno != EINTR)
			return fd;      /* no locking here (NFS?): go on as before */
		if (!said && waited >= WPERF_WAIT_SAY_AFTER) {
			holder_text(path, holder, sizeof(holder));
			wperf_say("waiting for %s (%s), held by %s", path, what, holder);
			said = true;
		}
		if (wperf_stop_signal_pending() || waited >= give_up_s) {
			holder_text(path, holder, sizeof(holder));
			if (waited >= give_up_s)
				wperf_fail("gave up after %.0f s waiting for %s (%s), held by %s: "
					   "end that process if it hangs (kill %ld)", waited, path,
					   what, holder, wperf_lock_holder(path));
			close(fd);
			return WPERF_LOCK_GIVEN_UP;
		}
		nap_ms(50);
	}
	write_holder(fd);
	return fd;
}

void wperf_lock_release(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0) {
		/* the next holder writes its own pid anyway */
	}
	close(fd);
}

/* ------------------------------------------------------------ lttng-sessiond */

/* The pid in lttng-sessiond's pid file (root's in /var/run/lttng, a
 * user's in $LTTNG_HOME/.lttng or $HOME/.lttng), when that process is a
 * session daemon; 0 otherwise. */
static long sessiond_pid(void)
{
	const char *home = getenv("LTTNG_HOME");
	char path[PATH_MAX], comm[64] = "";
	long pid = 0;
	int fd;

	if (!home || !*home)
		home = getenv("HOME");
	for (int i = 0; i < 2 && !pid; i++) {
		if (i == 0)
			snprintf(path, sizeof(path), "/var/run/lttng/lttng-sessiond.pid");
		else if (home && getuid() != 0)
			snprintf(path, sizeof(path), "%s/.lttng/lttng-sessiond.pid", home);
		else
			break;
		pid = wperf_lock_holder(path);
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (pid > 0 && (fd = open(path, O_RDONLY | O_CLOEXEC)) >= 0) {
			ssize_t n = read(fd, comm, sizeof(comm) - 1);

			close(fd);
			comm[n > 0 ? n : 0] = '\0';
		}
		if (strncmp(comm, "lttng-sessiond", 14))
			pid = 0;
	}
	return pid;
}

/* The state letter of /proc/PID/stat (T: stopped), or '?'. */
static char process_state(long pid)
{
	char path[64], text[512];
	ssize_t n;
	int fd;
	char *paren;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return '?';
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	text[n > 0 ? n : 0] = '\0';
	paren = strrchr(text, ')');
	return paren && paren[1] == ' ' && paren[2] ? paren[2] : '?';
}

/* The watched call; the mutex guards it against the watchdog thread. */
static struct {
	pthread_mutex_t mu;
	bool active, cut_this_call, interrupted;
	char what[160];
	double began, give_up_s, signal_at, cut_at;
	bool said;
	char wedged[1024];      /* sticky once a call was cut */
} ctl = { .mu = PTHREAD_MUTEX_INITIALIZER };

/* Shut down every socket of this process connected to a session daemon
 * (the peer is bound in LTTng's run directory: /var/run/lttng/... or
 * ~/.lttng/...): the blocked recvmsg returns. */
static void cut_connections(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct sockaddr_un peer;
		socklen_t len = sizeof(peer);
		int fd = atoi(e->d_name);

		memset(&peer, 0, sizeof(peer));
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || fd == dirfd(d) ||
		    getpeername(fd, (struct sockaddr *)&peer, &len) != 0 ||
		    peer.sun_family != AF_UNIX)
			continue;
		peer.sun_path[sizeof(peer.sun_path) - 1] = '\0';
		if (strstr(peer.sun_path, "/lttng/") || strstr(peer.sun_path, "/.lttng/"))
			shutdown(fd, SHUT_RDWR);
	}
	closedir(d);
}

/* The line of a wedged daemon: which, since when, and what frees it. */
static void compose_wedged(bool interrupted, double waited)
{
	long pid = sessiond_pid();
	char who[64] = "lttng-sessiond";

	if (pid)
		snprintf(who, sizeof(who), "lttng-sessiond (pid %ld)", pid);
	if (interrupted)
		snprintf(ctl.wedged, sizeof(ctl.wedged), "interrupted while waiting %.1f s for "
			 "%s to answer (%s)", waited, who, ctl.what);
	else if (pid && process_state(pid) == 'T')
		snprintf(ctl.wedged, sizeof(ctl.wedged), "%s did not answer within %.0f s (%s): "
			 "it is stopped; resume it (kill -CONT %ld) or end it (kill %ld)", who,
			 waited, ctl.what, pid, pid);
	else if (pid)
		snprintf(ctl.wedged, sizeof(ctl.wedged), "%s did not answer within %.0f s (%s): "
			 "it is wedged; restart it (kill %ld; the next wperf starts one)", who,
			 waited, ctl.what, pid);
	else
		snprintf(ctl.wedged, sizeof(ctl.wedged), "lttng-sessiond did not answer within "
			 "%.0f s (%s): restart it (pgrep -a lttng-sessiond, then kill that pid)",
			 waited, ctl.what);
}

/* One look of the watchdog at the call under way (mutex held). */
static void watch_call(void)
{
	double t = now_s(), waited = t - ctl.began;

	if (!ctl.said && waited >= WPERF_WAIT_SAY_AFTER && !ctl.cut_this_call) {
		long pid = sessiond_pid();
		char who[64] = "lttng-sessiond";

		if (pid)
			snprintf(who, sizeof(who), "lttng-sessiond (pid %ld)", pid);
		wperf_say("waiting for %s to answer (%s); giving up after %.0f s", who, ctl.what,
			  ctl.give_up_s);
		ctl.said = true;
	}
	if (ctl.cut_this_call) {
		cut_connections();      /* a connection made since */
		if (t - ctl.cut_at > 3.0) {
			/* The call did not return though cut (blocked in
			 * connect?): the line, and out; the kernel frees
			 * the locks. */
			wperf_fail("%s", ctl.wedged);
			_exit(ctl.interrupted ? WPERF_EXIT_INTERRUPTED : WPERF_EXIT_FAIL);
		}
		return;
	}
	if (wperf_stop_signal_pending() && ctl.signal_at == 0)
		ctl.signal_at = t;
	if ((ctl.signal_at > 0 && t - ctl.signal_at >= 0.5) || waited >= ctl.give_up_s) {
		ctl.interrupted = ctl.signal_at > 0 && waited < ctl.give_up_s;
		compose_wedged(ctl.interrupted, waited);
		ctl.cut_this_call = true;
		ctl.cut_at = t;
		cut_connections();
	}
}

static void *watchdog(void *unused)
{
	(void)unused;
	for (;;) {
		nap_ms(100);
		pthread_mutex_lock(&ctl.mu);
		if (ctl.active)
			watch_call();
		pthread_mutex_unlock(&ctl.mu);
	}
	return NULL;
}

/* The watchdog, with every signal blocked: the stop signals go to the
 * main thread, whose handler counts them. */
static void start_watchdog(void)
{
	sigset_t all, old;
	pthread_t t;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&t, NULL, watchdog, NULL) == 0)
		pthread_detach(t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

bool wperf_ctl_begin(const char *what, double give_up_s, char *why, size_t whylen)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	bool go;

	pthread_once(&once, start_watchdog);
	pthread_mutex_lock(&ctl.mu);
	go = !ctl.wedged[0];
	if (go) {
		snprintf(ctl.what, sizeof(ctl.what), "%s", what);
		ctl.began = now_s();
		ctl.give_up_s = give_up_s;
		ctl.signal_at = 0;
		ctl.said = ctl.cut_this_call = false;
		ctl.active = true;
	} else if (why && whylen) {
		snprintf(why, whylen, "%s", ctl.wedged);
	}
	pthread_mutex_unlock(&ctl.mu);
	return go;
}

bool wperf_ctl_end(char *why, size_t whylen)
{
	bool cut;

	pthread_mutex_lock(&ctl.mu);
	ctl.active = false;
	cut = ctl.cut_this_call;
	if (cut && why && whylen)
		snprintf(why, whylen, "%s", ctl.wedged);
	pthread_mutex_unlock(&ctl.mu);
	return cut;
}

const char *wperf_ctl_wedged(void)
{
	const char *w;

	pthread_mutex_lock(&ctl.mu);
	w = ctl.wedged[0] ? ctl.wedged : NULL;
	pthread_mutex_unlock(&ctl.mu);
	return w;
}

bool wperf_ctl_interrupted(void)
{
	return wperf_ctl_wedged() && ctl.interrupted;
}
