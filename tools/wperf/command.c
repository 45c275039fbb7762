/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/command.c — the command `wperf record` records (command.h):
 * whether it can be run, its environment (the UST provider preloaded),
 * running it in the foreground as its user, and when the recording stops.
 *
 * The behaviour is the command's since its first version, which users and
 * tests know:
 *  - the command stays in wperf's process group, so the terminal's Ctrl-C
 *    reaches both; wperf waits for the command to end, and a second
 *    Ctrl-C stops the recording (130), the command running on; a command
 *    still running a second after the first Ctrl-C (it ignores SIGINT, or
 *    takes its time to end) is said, with what a second Ctrl-C does;
 *  - a command that exits with a status other than 0, or is killed by a
 *    signal, is said (wperf_command_ending()): its status becomes wperf's,
 *    and a user would otherwise take it for wperf's own failure;
 *  - SIGTERM or SIGHUP to wperf alone (`kill`, a closed terminal) is sent
 *    on to the command, as perf record does, and the recording stops
 *    when it has ended, or 10 s later; wperf then exits 128 + that
 *    signal, as the signal would have ended it;
 *  - --duration stops the recording, not the command;
 *  - the command runs as the user (setgroups, setgid, setuid; HOME, USER
 *    and LOGNAME the user's, SUDO_USER dropped), with no descriptor of
 *    wperf's open; its pid goes to DIR/command.pid.
 *
 * A failure to start the command (exec, or becoming the user) comes back
 * to the parent through a close-on-exec pipe, as errno: "cannot run X: ..."
 * and status 127, as a shell says.
 */
#include "command.h"
#include "wperf.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ------------------------------------------------------------ checking */

/* An executable file (not a directory), as Python's shutil.which checks. */
static bool executable_file(const char *path)
{
	struct stat st;

	return access(path, X_OK) == 0 && stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

bool wperf_on_path(const char *name)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (strchr(name, '/'))
		return executable_file(name);
	if (!path)
		path = "/bin:/usr/bin";
	for (const char *p = path;; p++) {
		const char *end = strchr(p, ':');
		int len = end ? (int)(end - p) : (int)strlen(p);

		if (snprintf(buf, sizeof(buf), "%.*s%s%s", len, p, len ? "/" : "", name) <
		    (int)sizeof(buf) && executable_file(buf))
			return true;
		if (!end)
			return false;
		p = end;
	}
}

bool wperf_command_check(char *const *argv)
{
	struct stat st;
	bool is_file;

	if (!argv || !argv[0] || wperf_on_path(argv[0]))
		return true;
	is_file = stat(argv[0], &st) == 0 && S_ISREG(st.st_mode);
	if (is_file && strchr(argv[0], '/'))
		wperf_fail("cannot run %s: not executable (chmod +x %s)", argv[0], argv[0]);
	else if (is_file)
		wperf_fail("cannot run %s: not on PATH (give its path, ./%s, after --)",
			   argv[0], argv[0]);
	else
		wperf_fail("cannot run %s: no such program (give its path, e.g. ./server, "
			   "after --)", argv[0]);
	return false;
}

/* ------------------------------------------------------------ environment */

/* A library of wperf's: in the build tree, else in libdir; its real path
 * (malloc'ed), or NULL. */
static char *installed_library(const char *name)
{
	char path[PATH_MAX];
	const char *dirs[3][2] = {
		{ wperf_paths.build_dir, "/ust-provider" },
		{ wperf_paths.libdir, "" },
		{ wperf_paths.libdir, "/wperf" },
	};

	for (int i = 0; i < 3; i++) {
		struct stat st;

		if (!*dirs[i][0])
			continue;
		snprintf(path, sizeof(path), "%s%s/%s", dirs[i][0], dirs[i][1], name);
		if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
			return realpath(path, NULL);
	}
	return NULL;
}

/* libwperf-ust.so, the UST provider of the wperf:* annotations;
 * $WPERF_UST_LIB names another one, or none when empty. */
static char *ust_provider(void)
{
	const char *lib = getenv("WPERF_UST_LIB");
	char *real;

	if (lib) {
		if (!*lib)
			return NULL;
		return (real = realpath(lib, NULL)) ? real : strdup(lib);
	}
	return installed_library("libwperf-ust.so.0");
}

static bool env_is(const char *entry, const char *name)
{
	size_t n = strlen(name);

	return !strncmp(entry, name, n) && entry[n] == '=';
}

/* "NAME=value", malloc'ed. */
static char *env_entry(const char *name, const char *value)
{
	char *s;

	return asprintf(&s, "%s=%s", name, value) < 0 ? NULL : s;
}

/*
 * The command's environment: annotated programs record wperf:* events
 * without being linked to LTTng-UST. libwperf-ust-preload.so, preloaded
 * into the command and what it runs, loads the provider (named by
 * WPERF_UST_PROVIDER) only into the processes that have annotations:
 * LTTng-UST's registration with the session daemon costs every other
 * process milliseconds (a script's /bin/true, ten times slower). Without
 * it (an older install), the provider itself is preloaded. NULL-terminated,
 * malloc'ed (the entries leak: the array is built once per recording).
 */
static char **command_env(const struct wperf_user *user)
{
	char *provider = ust_provider(), *shim = provider ?
		installed_library("libwperf-ust-preload.so") : NULL;
	const char *preload = getenv("LD_PRELOAD"), *lib = shim ? shim : provider;
	size_t n = 0, count = 0;
	char **env;

	while (environ[count])
		count++;
	if (!(env = calloc(count + 8, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < count; i++) {
		const char *e = environ[i];

		if (user && (env_is(e, "HOME") || env_is(e, "USER") || env_is(e, "LOGNAME") ||
			     env_is(e, "SUDO_USER")))
			continue;
		if (lib && env_is(e, "LD_PRELOAD"))
			continue;
		env[n++] = (char *)e;
	}
	if (user) {
		env[n++] = env_entry("HOME", user->home);
		env[n++] = env_entry("USER", user->name);
		env[n++] = env_entry("LOGNAME", user->name);
	}
	if (shim && !getenv("WPERF_UST_PROVIDER"))
		env[n++] = env_entry("WPERF_UST_PROVIDER", provider);
	if (lib) {
		char *value;

		if (preload && *preload && asprintf(&value, "LD_PRELOAD=%s:%s", preload, lib) >= 0)
			env[n++] = value;
		else
			env[n++] = env_entry("LD_PRELOAD", lib);
	}
	for (size_t i = 0; i < n; i++)
		if (!env[i]) {
			free(env);
			env = NULL;
			break;
		}
	free(provider);
	free(shim);
	return env;
}

/* ------------------------------------------------------------ running */

/* In the child, before exec: the signals as a new program expects them,
 * no descriptor of wperf's, the user's identity. errno on failure. */
static int child_setup(const struct wperf_user *user)
{
	sigset_t none;

	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
		for (int fd = 3; fd < 1024; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	if (user && (setgroups((size_t)user->ngroups, user->groups) != 0 ||
		     setgid(user->gid) != 0 || setuid(user->uid) != 0))
		return errno;
	return 0;
}

/* Fork and exec argv; its pid, or -1 after saying why. */
static pid_t start(char *const *argv, const struct wperf_user *user)
{
	char **env = command_env(user);
	int pipefd[2], err = 0;
	ssize_t n = 0;     /* read only when the fork succeeded */
	pid_t pid;

	if (!env || pipe2(pipefd, O_CLOEXEC) != 0) {
		wperf_fail("cannot run %s: %s", argv[0], strerror(errno));
		free(env);
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		close(pipefd[0]);
		if (!(err = child_setup(user))) {
			execvpe(argv[0], argv, env);
			err = errno;
		}
		(void)!write(pipefd[1], &err, sizeof(err));
		_exit(127);
	}
	err = pid < 0 ? errno : 0;
	close(pipefd[1]);
	/* exec closed the pipe (started), or it says why not. */
	while (pid > 0 && (n = read(pipefd[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	free(env);
	if (pid > 0 && n == (ssize_t)sizeof(err)) {
		waitpid(pid, NULL, 0);
		pid = -1;
	} else
		err = 0;
	if (pid < 0)
		wperf_fail("cannot run %s: %s", argv[0], strerror(err));
	return pid;
}

/* DIR/command.pid, and say it. */
static void save_pid(const char *out, pid_t pid)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/command.pid", out);
	if (!(f = wperf_private_file(path)) || fprintf(f, "%d\n", (int)pid) < 0 ||
	    fclose(f) != 0)
		wperf_say("warning: cannot write %s: %s", path, strerror(errno));
	wperf_say("command pid %d (saved in %s/command.pid)", (int)pid, out);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void pause_ms(long ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = ms % 1000 * 1000000 },
		  NULL);
}

/* What ends the wait for the command: its status, or -1 to go on. */
struct waiting {
	const char *name;       /* argv[0], for what is said */
	pid_t pid;
	int interrupts;
	double interrupted;     /* when the first Ctrl-C came; 0: none yet */
	bool interrupt_said;    /* that the command outlived it, said */
	int forwarded;          /* SIGTERM or SIGHUP, sent on to the command; 0: none */
	double grace;           /* after forwarding it: until then; 0: none */
};

/* How the last command ended, when not with status 0 (waitpid's status;
 * -1: it did not end, or ended well). */
static int ended_status = -1;
static char ended_name[256];

bool wperf_command_ending(char *buf, size_t len)
{
	if (ended_status < 0)
		return false;
	if (WIFSIGNALED(ended_status))
		snprintf(buf, len, "%s was killed by SIG%s", ended_name,
			 sigabbrev_np(WTERMSIG(ended_status)) ? sigabbrev_np(WTERMSIG(ended_status))
			 : "?");
	else
		snprintf(buf, len, "%s exited with status %d", ended_name,
			 WEXITSTATUS(ended_status));
	return true;
}

/* The command's waitpid status: kept for wperf_command_ending(), and the
 * status wperf passes on. */
static int ended(const struct waiting *w, int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		ended_status = status;
		snprintf(ended_name, sizeof(ended_name), "%s", w->name);
	}
	/* Ended by a signal wperf got, wperf exits as that signal would have
	 * ended it: 128 + N, whatever the command made of it. */
	return w->forwarded ? 128 + w->forwarded : WIFSIGNALED(status) ?
	       128 + WTERMSIG(status) : WEXITSTATUS(status);
}

/* A second after the first Ctrl-C the command still runs: it ignores
 * SIGINT, or ends slowly. Without a word, the user cannot tell wperf
 * from a hung program, nor knows that a second Ctrl-C stops it. */
static void say_still_running(struct waiting *w)
{
	if (w->interrupts != 1 || w->interrupt_said || now() < w->interrupted + 1)
		return;
	w->interrupt_said = true;
	wperf_say("interrupted: %s (pid %d) still runs, and the recording goes on until it "
		  "ends; a second Ctrl-C stops the recording now and leaves it running",
		  w->name, (int)w->pid);
}

/* A stop signal while the command runs: -1 to go on waiting, or the status. */
static int on_signal(struct waiting *w, int sig)
{
	if (sig == SIGINT) {
		/* Ctrl-C went to the command too: wait for it to end; a second
		 * one stops the recording (the command may ignore SIGINT). */
		if (++w->interrupts < 2) {
			w->interrupted = now();
			return -1;
		}
		wperf_say("interrupted twice: recording stops, the command keeps running");
		return WPERF_EXIT_INTERRUPTED;
	}
	/* `kill wperf` (or a closed terminal): end the command with the same
	 * signal, as perf record does, and stop recording once it is gone. */
	if (!w->grace) {
		wperf_say("SIG%s: sending SIG%s to the command", sigabbrev_np(sig),
			  sigabbrev_np(sig));
		kill(w->pid, sig);
		w->forwarded = sig;
		w->grace = now() + 10;
	}
	return -1;
}

static int wait_command(struct waiting *w, double deadline, wperf_check_fn check, void *arg,
			bool *failed)
{
	for (;;) {
		int sig, status, rc;

		while ((sig = wperf_stop_signal_take()))
			if ((rc = on_signal(w, sig)) >= 0)
				return rc;
		if (waitpid(w->pid, &status, WNOHANG) == w->pid)
			return ended(w, status);
		say_still_running(w);
		if (check && !check(arg)) {
			*failed = true;
			return WPERF_EXIT_FAIL;
		}
		if (deadline > 0 && now() >= deadline) {
			wperf_say("duration reached: recording stops, the command keeps running");
			return WPERF_EXIT_OK;
		}
		if (w->grace && now() >= w->grace) {
			wperf_say("the command did not end within 10 s of SIG%s: recording "
				  "stops, the command keeps running", sigabbrev_np(w->forwarded));
			return 128 + w->forwarded;
		}
		pause_ms(50);
	}
}

/* No command: record until a stop signal, the deadline, or check fails. */
static int wait_stop(double deadline, wperf_check_fn check, void *arg, bool *failed)
{
	int sig;

	while (deadline <= 0 || now() < deadline) {
		/* Ctrl-C is the way to end a recording without a command (0);
		 * `kill` or a closed terminal ends it as that signal would. */
		if ((sig = wperf_stop_signal_take()))
			return sig == SIGINT ? WPERF_EXIT_OK : 128 + sig;
		if (check && !check(arg)) {
			*failed = true;
			return WPERF_EXIT_FAIL;
		}
		pause_ms(50);
	}
	return WPERF_EXIT_OK;
}

int wperf_command_run(char *const *argv, const char *out, double deadline,
		      const struct wperf_user *user, wperf_check_fn check, void *arg,
		      bool *failed)
{
	struct waiting w = { .name = argv ? argv[0] : NULL };

	*failed = false;
	ended_status = -1;
	if (!argv || !argv[0])
		return wait_stop(deadline, check, arg, failed);
	fflush(NULL);
	if ((w.pid = start(argv, user)) < 0)
		return 127;
	save_pid(out, w.pid);
	return wait_command(&w, deadline, check, arg, failed);
}
