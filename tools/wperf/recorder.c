/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/recorder.c — the tracefs kernel recorder of `wperf record`
 * (recorder.h): source.wperf.tracefs -> sink.ctf.fs, the graph run in a
 * child process of wperf (bt-graph.c), not the babeltrace2 program.
 *
 * Why a child and not a thread: the recorder must outlive a wperf killed
 * with SIGKILL long enough to end its trace (a thread of its own sends it
 * SIGTERM, which the source turns into "stop tracing, drain, end the
 * streams", and sink.ctf.fs then writes the metadata), and it must not
 * get the terminal's Ctrl-C, which is the command's and wperf's: it runs
 * in a session of its own and is stopped last, so that the kernel trace
 * spans the UST one.
 *
 * What the parent learns, instead of reading a log:
 *  - that it records: the source's ready-file is a FIFO the parent reads
 *    (the source writes it once an event recorded after tracing went on
 *    came back, doc/source.wperf.tracefs.7.md), so the command is started
 *    only when every one of its events will be in the trace;
 *    the line it wrote (that event's time) then stays in a plain file of
 *    the same name, DIR/.wperf/kernel-ready;
 *  - why it failed, in one line on a pipe: the errno of a failed write
 *    when the log names one (sink.ctf.fs says it only there: the error's
 *    causes then just say the sink's "consume" failed), else the graph's
 *    own one line (bt-failure.c: a wperf component's message first).
 * What the components log goes to DIR/.wperf/kernel-recorder.log.
 *
 * Where tracefs is (wperf_tracefs_dir) is here too: every reader of ftrace
 * in wperf (this recorder, the flight recorder's instance, `wperf top`
 * without lttng-modules) asks it.
 */
#include "recorder.h"
#include "bt-failure.h"
#include "json.h"
#include "lttng.h"
#include "bt-graph.h"
#include "command.h"
#include "output.h"
#include "recording.h"
#include "room-draw.h"
#include "spawn.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <regex.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What the log file keeps allocated beyond its end from the start. */
#define LOG_RESERVE (1 << 20)

/* ------------------------------------------------------------ the child */

/* The first line of the log that is an error naming an errno ("... ret=28"),
 * as "message (strerror)": a failed write. false when there is none. */
static bool failed_write(const char *logpath, char *why, size_t whylen)
{
	char *text = wperf_read_text(logpath), *save = NULL;
	regex_t line, ret;
	regmatch_t m[2];
	bool found = false;

	if (!text)
		return false;
	regcomp(&line, "^[0-9][0-9]-[0-9][0-9] [^ ]+ +[0-9]+ +[0-9]+ E [^ ]+ [^ ]+ (.*)$",
		REG_EXTENDED);
	regcomp(&ret, "(^|[^A-Za-z0-9_])ret=([0-9]+)", REG_EXTENDED);
	for (char *l = strtok_r(text, "\n", &save); l && !found; l = strtok_r(NULL, "\n", &save)) {
		regmatch_t r[3];
		long n;

		if (regexec(&line, l, 2, m, 0) || regexec(&ret, l + m[1].rm_so, 3, r, 0))
			continue;
		n = strtol(l + m[1].rm_so + r[2].rm_so, NULL, 10);
		if (n > 0 && n < 200) {
			snprintf(why, whylen, "%s (%s)", l + m[1].rm_so, strerror((int)n));
			found = true;
		}
	}
	regfree(&line);
	regfree(&ret);
	free(text);
	return found;
}

/* The most raw pages the recorder holds in memory while the command runs
 * (source.wperf.tracefs's defer-mib): an eighth of the memory available
 * now, at most DEFER_MAX_MIB: a busy server makes 2 to 5 MiB a second, and
 * converting 256 MiB (about 4 million events) took 11 to 19 s on a loaded
 * 2-CPU machine, within the 120 s wperf_recorder_stop() waits for the end
 * of the trace. */
#define DEFER_MAX_MIB 256

static int64_t defer_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long long kib = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	return kib / 1024 / 8 < DEFER_MAX_MIB ? kib / 1024 / 8 : DEFER_MAX_MIB;
}

/* source.wperf.tracefs's and sink.ctf.fs's parameters. The conversion to
 * CTF is deferred to the command's end (defer-mib), so that the recorded
 * program does not share its CPUs with it (doc/performance.md). */
static bool make_params(const struct wperf_recorder *r, unsigned buffer_kb, bool stacks,
			bt_value **source, bt_value **sink)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/kernel", r->out);
	*source = bt_value_map_create();
	*sink = bt_value_map_create();
	return *source && *sink &&
	       !bt_value_map_insert_signed_integer_entry(*source, "buffer-size-kb", buffer_kb) &&
	       !bt_value_map_insert_signed_integer_entry(*source, "defer-mib", defer_mib()) &&
	       !bt_value_map_insert_string_entry(*source, "room-path", r->out) &&
	       !bt_value_map_insert_string_entry(*source, "ready-file", r->ready) &&
	       !(stacks && bt_value_map_insert_string_entry(*source, "stacks", "kernel")) &&
	       !bt_value_map_insert_string_entry(*sink, "path", path) &&
	       !bt_value_map_insert_bool_entry(*sink, "assume-single-trace", BT_TRUE);
}

/* Load the plugins and run the graph; 0, 1 with why set, or 130 when
 * interrupted before it recorded. */
static int record(const struct wperf_recorder *r, const char *plugin_dir, unsigned buffer_kb,
		  bool stacks, char *why, size_t whylen)
{
	struct wperf_bt bt;
	struct wperf_run run = { 0 };
	bt_value *source = NULL, *sink = NULL;
	enum wperf_run_status status;
	int rc = 1;

	if (wperf_bt_load(&bt, plugin_dir, why, whylen) != 0)
		return 1;
	if (!make_params(r, buffer_kb, stacks, &source, &sink))
		snprintf(why, whylen, "out of memory");
	else if ((status = wperf_bt_run_source(&bt, bt.wperf, "tracefs", source, bt.ctf, "fs",
					       sink, false, &run)) == WPERF_RUN_OK)
		rc = 0;
	else if (status == WPERF_RUN_INTERRUPTED)
		rc = 130;
	else if (!failed_write(r->log, why, whylen))
		wperf_run_failure(&run, why, whylen);
	wperf_run_fini(&run);
	bt_value_put_ref(source);
	bt_value_put_ref(sink);
	wperf_bt_unload(&bt);
	return rc;
}

static pid_t watched_parent;

/* Poll for wperf's end, then send the recorder one SIGTERM. Not
 * PR_SET_PDEATHSIG: that signal comes again as each thread of a dying
 * multi-threaded parent goes, and a second stop signal interrupts the
 * graph, losing what the source still held. */
static void *parent_watcher(void *unused)
{
	(void)unused;
	while (getppid() == watched_parent)
		usleep(100000);
	kill(getpid(), SIGTERM);
	return NULL;
}

/* Start parent_watcher with every signal blocked (they are the main
 * thread's). false when it cannot be started. */
static bool watch_parent(pid_t parent)
{
	sigset_t all, old;
	pthread_attr_t attr;
	pthread_t t;
	int err;

	watched_parent = parent;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &attr, parent_watcher, NULL);
	pthread_attr_destroy(&attr);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return err == 0;
}

/* The child: detach from the terminal, make sure it ends with wperf, log
 * to the log file, record (drawing on the reserve when the disk is full).
 * Never returns. */
static void child(const struct wperf_recorder *r, pid_t parent, int logfd, int whyfd,
		  const char *plugin_dir, unsigned buffer_kb, bool stacks)
{
	char why[1024] = "";
	sigset_t none;
	int devnull, rc;

	setsid();
	prctl(PR_SET_NAME, "wperf-recorder");
	/* Once it records, the source takes the first SIGINT and the first
	 * SIGTERM itself (to end the trace); before, either interrupts the
	 * graph, which is then finalized (the source removes its ftrace
	 * instance). wperf stops it with SIGINT; one SIGTERM comes when wperf
	 * dies (SIGKILL, a crash; watch_parent()), so that no recorder goes
	 * on tracing with nobody to stop it, and so that a recorder wperf
	 * already stopped, writing out its trace (seconds for the pages it
	 * held, defer-mib), is not cut short by a second signal. */
	wperf_bt_handle_sigint();
	wperf_bt_handle_sigterm();
	signal(SIGHUP, SIG_DFL);
	/* Blocked since the fork (wperf_recorder_start): a stop signal sent
	 * meanwhile comes now, to these handlers. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (getppid() != parent || !watch_parent(parent))   /* wperf died already */
		_exit(1);
	devnull = open("/dev/null", O_RDONLY);
	if (devnull >= 0)
		dup2(devnull, STDIN_FILENO);
	dup2(logfd, STDOUT_FILENO);
	dup2(logfd, STDERR_FILENO);
	wperf_bt_set_before_finalize(wperf_room_draw_give_back);
	rc = record(r, plugin_dir, buffer_kb, stacks, why, sizeof(why));
	if (rc && why[0])
		(void)!write(whyfd, why, strlen(why));
	/* wperf died (SIGKILL): nobody else will end its LTTng session, which
	 * would record on; destroying it writes out the UST trace. */
	if (getppid() != parent && r->session[0] && !wperf_lttng_destroy_session(r->session))
		dprintf(STDERR_FILENO, "wperf-recorder: wperf (pid %ld) died: destroyed its "
			"LTTng session %s\n", (long)parent, r->session);
	_exit(rc);
}

/* ------------------------------------------------------------ the parent */

/* The FIFO the source writes "TIME\n" to once it records, opened for
 * reading (without waiting for a writer). */
static int make_ready_fifo(struct wperf_recorder *r)
{
	snprintf(r->ready, sizeof(r->ready), "%s/" WPERF_PRIVATE "/kernel-ready", r->out);
	if ((unlink(r->ready) != 0 && errno != ENOENT) || mkfifo(r->ready, 0600) != 0)
		return -1;
	return open(r->ready, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
}

/* Block SIGINT, SIGTERM and SIGHUP; the mask before in old. */
static void block_stop_signals(sigset_t *old)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, old);
}

bool wperf_recorder_start(struct wperf_recorder *r, const char *plugin_dir, const char *out,
			  const char *shown, int reserve_fd, const char *session,
			  unsigned buffer_kb, bool stacks, char *why, size_t whylen)
{
	int whypipe[2] = { -1, -1 };
	sigset_t old;
	pid_t parent = getpid();
	FILE *log;

	memset(r, 0, sizeof(*r));
	r->why_fd = r->ready_fd = -1;
	r->out = out;
	snprintf(r->session, sizeof(r->session), "%s", session ? session : "");
	snprintf(r->log, sizeof(r->log), "%s/" WPERF_PRIVATE "/kernel-recorder.log", out);
	if (!(log = wperf_private_file(r->log))) {
		snprintf(why, whylen, "cannot write %s: %s", r->log, strerror(errno));
		return false;
	}
	/* Room for the log kept aside: when the disk fills, the line naming
	 * the failed write must still be written (no error if it cannot). */
	fallocate(fileno(log), FALLOC_FL_KEEP_SIZE, 0, LOG_RESERVE);
	if ((r->ready_fd = make_ready_fifo(r)) < 0 || pipe2(whypipe, O_CLOEXEC) != 0) {
		snprintf(why, whylen, "cannot start the kernel recorder: %s", strerror(errno));
		fclose(log);
		return false;
	}
	fflush(NULL);
	/* The stop signals blocked across the fork: until the child has its
	 * own handlers (child()), it has wperf's, which only count a signal
	 * in the child's copy of wperf's memory. A SIGINT wperf sends at once
	 * (Ctrl-C as the recorder starts) would be lost there, and the
	 * recorder would go on tracing until killed 120 s later; blocked, it
	 * waits for the child's handler. */
	block_stop_signals(&old);
	r->pid = fork();
	if (r->pid == 0) {
		/* The trace is root's and no other user's to change, whatever
		 * the umask wperf was started with (0 in some root shells). */
		umask(umask(0) | 022);
		close(whypipe[0]);
		wperf_room_draw_hold(reserve_fd, whypipe[1], shown);
		child(r, parent, fileno(log), whypipe[1], plugin_dir, buffer_kb, stacks);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	fclose(log);
	close(whypipe[1]);
	r->why_fd = whypipe[0];
	if (r->pid < 0) {
		snprintf(why, whylen, "cannot start the kernel recorder: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Read what the child said, until its end (the pipe's EOF). */
static void read_why(struct wperf_recorder *r)
{
	size_t n = strlen(r->why);
	ssize_t got;

	if (r->why_fd < 0)
		return;
	while ((got = read(r->why_fd, r->why + n, sizeof(r->why) - 1 - n)) > 0 ||
	       (got < 0 && errno == EINTR))
		if (got > 0)
			n += (size_t)got;
	r->why[n] = '\0';
	close(r->why_fd);
	r->why_fd = -1;
}

/* The pid in an ftrace instance name "wperf-<pid>" or "wperf-<pid>-<n>"
 * (source.wperf.tracefs names its instance so), else 0. */
static long instance_owner(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "wperf-", 6) || name[6] < '1' || name[6] > '9')
		return 0;
	pid = strtol(name + 6, &end, 10);
	if (*end == '-' && end[1] >= '0' && end[1] <= '9')
		strtol(end + 1, &end, 10);
	return *end ? 0 : pid;
}

/* Remove the ftrace instances of the dead child (a zombie still: its pid
 * is not anyone else's yet). A recorder killed (SIGKILL, a crash) cannot
 * remove its own, which would trace on until a later recording swept it.
 * Their names go into removed. */
static void remove_instances(const struct wperf_recorder *r, char *removed, size_t len)
{
	char tracefs[PATH_MAX], path[PATH_MAX + 512];
	struct dirent *e;
	size_t n = 0;
	DIR *d;

	removed[0] = '\0';
	if (!wperf_tracefs_dir(tracefs, sizeof(tracefs)))
		return;
	snprintf(path, sizeof(path), "%s/instances", tracefs);
	if (!(d = opendir(path)))
		return;
	while ((e = readdir(d)))
		if (instance_owner(e->d_name) == (long)r->pid &&
		    snprintf(path, sizeof(path), "%s/instances/%s", tracefs, e->d_name) <
		    (int)sizeof(path) && rmdir(path) == 0 && n < len)
			n += (size_t)snprintf(removed + n, len - n, "%s%s", n ? ", " : "",
					      e->d_name);
	closedir(d);
}

/* Reap the child, after removing what it left in tracefs; true when it
 * has ended (at once unless block). */
static bool reap(struct wperf_recorder *r, bool block)
{
	siginfo_t info = { 0 };

	if (r->pid <= 0)
		return true;
	/* WNOWAIT: seen dead but not reaped, its pid still its own. */
	if (waitid(P_PID, (id_t)r->pid, &info, WEXITED | WNOWAIT | (block ? 0 : WNOHANG)) ||
	    info.si_pid != r->pid)
		return false;
	remove_instances(r, r->removed, sizeof(r->removed));
	waitpid(r->pid, &r->status, 0);
	r->pid = 0;
	r->out_of_room = WIFEXITED(r->status) &&
			 WEXITSTATUS(r->status) == WPERF_RECORDER_EXIT_NO_ROOM;
	return true;
}

static bool reaped(struct wperf_recorder *r)
{
	return reap(r, false);
}

/* A wait status in words: "exit 1", "killed by SIGKILL". */
static void describe(int status, char *out, size_t len)
{
	const char *name;

	if (WIFSIGNALED(status) && (name = sigabbrev_np(WTERMSIG(status))))
		snprintf(out, len, "killed by SIG%s", name);
	else if (WIFSIGNALED(status))
		snprintf(out, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(out, len, "exit %d", WEXITSTATUS(status));
}

/* Where a recorder that does not answer is: the kernel function it
 * sleeps in (/proc/PID/wchan) and its log's last line, as
 * "sleeping in pipe_read; its log ends: ..." in out. A start that
 * times out removes DIR with the log in it, so the line must carry what a
 * user (or a test) needs to see why. */
static void where_stuck(const struct wperf_recorder *r, char *out, size_t len)
{
	char path[64], wchan[64] = "", last[384] = "";
	bool sleeping;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/wchan", (long)r->pid);
	if ((f = fopen(path, "re"))) {
		if (!fgets(wchan, sizeof(wchan), f))
			wchan[0] = '\0';
		fclose(f);
	}
	wperf_log_last_line(r->log, last, sizeof(last));
	sleeping = wchan[0] && strcmp(wchan, "0");
	snprintf(out, len, "%s%s; its log %s%s", sleeping ? "sleeping in " : "running",
		 sleeping ? wchan : "", last[0] ? "ends: " : "is empty", last);
}

static const char *why_or(const struct wperf_recorder *r, const char *otherwise)
{
	return r->why[0] ? r->why : otherwise;
}

static double monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The ready line, as far as it came; true once it is whole. */
static bool read_ready(struct wperf_recorder *r, char *line, size_t *len, size_t cap)
{
	ssize_t got;

	while (*len + 1 < cap && (got = read(r->ready_fd, line + *len, cap - 1 - *len)) > 0)
		*len += (size_t)got;
	line[*len] = '\0';
	return *len && line[*len - 1] == '\n';
}

/* The FIFO done with, the ready line stays in a file of that name: the
 * time of the event that proved the recorder records, for who checks
 * that the command started after it. */
static void keep_ready(struct wperf_recorder *r, const char *line)
{
	FILE *f;

	close(r->ready_fd);
	r->ready_fd = -1;
	if ((f = wperf_private_file(r->ready))) {
		fputs(line, f);
		fclose(f);
	}
}

int wperf_recorder_wait_ready(struct wperf_recorder *r, double timeout, char *why,
			      size_t whylen)
{
	double deadline = monotonic() + timeout;
	char line[64];
	size_t len = 0;

	for (;;) {
		struct pollfd fds[2] = { { r->ready_fd, POLLIN, 0 }, { r->why_fd, POLLIN, 0 } };
		double left = deadline - monotonic();

		if (wperf_stop_signal_take())
			return -1;
		if (read_ready(r, line, &len, sizeof(line))) {
			keep_ready(r, line);
			return 1;
		}
		if (fds[1].fd < 0 || left <= 0)
			break;
		if (poll(fds, 2, (int)(left * 1000) + 1) > 0 && (fds[1].revents & (POLLIN | POLLHUP)))
			read_why(r);    /* it said why, or ended: it will not record */
	}
	if (r->why_fd < 0) {
		reap(r, true);
		snprintf(why, whylen, "the kernel recorder failed: %s",
			 why_or(r, "it ended without saying why"));
	} else {
		char stuck[512];

		where_stuck(r, stuck, sizeof(stuck));
		snprintf(why, whylen, "the kernel recorder did not say it records within %g s "
			 "(%s): the command was not started", timeout, stuck);
	}
	return 0;
}

bool wperf_recorder_alive(struct wperf_recorder *r, char *why, size_t whylen)
{
	char status[64];

	if (!reaped(r))
		return true;
	read_why(r);
	describe(r->status, status, sizeof(status));
	snprintf(why, whylen, "the kernel recorder stopped (%s)%s%s%s%s; the command keeps "
		 "running", status, r->why[0] ? ": " : "", r->why,
		 r->removed[0] ? "; its ftrace instance removed: " : "", r->removed);
	return false;
}

void wperf_recorder_interrupt(struct wperf_recorder *r)
{
	if (r->pid > 0 && !r->interrupted && !reaped(r)) {
		kill(r->pid, SIGINT);
		r->interrupted = true;
	}
}

/* Wait up to timeout seconds for the child to end; true when it has.
 * Said after two seconds (writing out a large trace takes long). */
static bool wait_end(struct wperf_recorder *r, double timeout)
{
	double start = monotonic(), deadline = start + timeout;
	bool said = false;

	while (!reaped(r)) {
		if (!said && monotonic() - start >= 2) {
			wperf_say("waiting for the kernel recorder (pid %ld) to write out its trace; "
				  "giving up after %g s", (long)r->pid, timeout);
			said = true;
		}
		if (monotonic() >= deadline)
			return false;
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	return true;
}

bool wperf_recorder_stop(struct wperf_recorder *r, char *why, size_t whylen)
{
	char path[PATH_MAX], status[64];
	struct stat st;

	if (r->ready_fd >= 0) {
		close(r->ready_fd);
		r->ready_fd = -1;
		unlink(r->ready);
	}
	if (r->pid > 0 && !reaped(r)) {
		/* Once: a second SIGINT would cut the source's drain short. */
		wperf_recorder_interrupt(r);
		if (!wait_end(r, 120)) {
			char stuck[512];

			where_stuck(r, stuck, sizeof(stuck));
			wperf_say("the kernel recorder (pid %ld) did not end within 120 s of SIGINT "
				  "(%s): killed", (long)r->pid, stuck);
			kill(r->pid, SIGKILL);
			reap(r, true);
		}
	}
	read_why(r);
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status) != 0) {
		describe(r->status, status, sizeof(status));
		snprintf(why, whylen, "the kernel recorder failed (%s): %s", status,
			 why_or(r, "no message"));
		return false;
	}
	snprintf(path, sizeof(path), "%s/kernel/metadata", r->out);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, whylen, "the kernel recorder wrote no trace (see %s)", r->log);
		return false;
	}
	return true;
}

/* Where tracefs is mounted (mounting it if we may), in buf; NULL when
 * nowhere. */
const char *wperf_tracefs_dir(char *buf, size_t len)
{
	char dev[256], dir[PATH_MAX], type[64];
	const char *found = NULL;
	struct stat st;
	FILE *f = fopen("/proc/mounts", "re");

	while (f && !found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "tracefs"))
			found = dir;
	if (f)
		fclose(f);
	if (!found && geteuid() == 0 && stat("/sys/kernel/tracing", &st) == 0 &&
	    S_ISDIR(st.st_mode) && mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0)
		found = "/sys/kernel/tracing";
	if (!found)
		return NULL;
	snprintf(buf, len, "%s", found);
	return buf;
}
