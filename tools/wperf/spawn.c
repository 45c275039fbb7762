/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/spawn.c — background programs (spawn.h): one posix_spawn
 * set-up for the trigger watcher, lttng-sessiond and lttng-relayd, so
 * that each starts with the same clean signal state, no terminal input
 * and its output in its log, and the one reader of that log's last line,
 * which is what the program said when it failed.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* environ without LD_PRELOAD (the entries are environ's); NULL with
 * errno. */
static char **environment_without_preload(void)
{
	size_t n = 0, k = 0;
	char **env;

	while (environ[n])
		n++;
	if (!(env = calloc(n + 1, sizeof(*env))))
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	return env;
}

pid_t wperf_spawn_background(const char *file, char *const argv[], int log_fd, int flags)
{
	char **env = flags & WPERF_SPAWN_NO_PRELOAD ? environment_without_preload() : environ;
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, defaults;
	pid_t pid;
	int err;

	if (!env)
		return -1;
	/* Ignored or blocked here (Ctrl-C handling) is not for it. */
	sigemptyset(&none);
	sigemptyset(&defaults);
	sigaddset(&defaults, SIGINT);
	sigaddset(&defaults, SIGTERM);
	sigaddset(&defaults, SIGHUP);
	sigaddset(&defaults, SIGPIPE);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setsigdefault(&attr, &defaults);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
				 (flags & WPERF_SPAWN_SETSID ? POSIX_SPAWN_SETSID : 0));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (log_fd >= 0) {
		posix_spawn_file_actions_adddup2(&fa, log_fd, 1);
		posix_spawn_file_actions_adddup2(&fa, log_fd, 2);
	}
	err = posix_spawnp(&pid, file, &fa, &attr, argv, env);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	if (env != environ)
		free(env);
	if (err) {
		errno = err;
		return -1;
	}
	return pid;
}

void wperf_log_last_line(const char *path, char *out, size_t len)
{
	char line[1024];
	FILE *f = fopen(path, "re");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *b = line + strspn(line, " \t"), *e = b + strlen(b);

		while (e > b && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
			*--e = '\0';
		if (*b)
			snprintf(out, len, "%s", b);
	}
	fclose(f);
}
