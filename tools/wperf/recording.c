/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/recording.c — reading a `wperf record` directory
 * (recording.h). The JSON files are small objects written by Python's
 * json.dump; a few members of them are read (json.c).
 */
#include "recording.h"
#include "json.h"
#include "lttng.h"
#include "orphans.h"
#include "wperf.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ command.pid */

static bool is_pid(const char *s)
{
	if (*s < '1' || *s > '9')
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

/* path without trailing blanks (Python's str.strip()), in place. */
static char *strip(char *s)
{
	size_t n = strlen(s);

	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* An absolute, normalised path (Python's os.path.abspath: no symbolic
 * links resolved), malloc'ed. */
char *wperf_abspath(const char *path)
{
	char cwd[PATH_MAX], *joined, *out, *save = NULL;
	size_t n = 0;

	if (path[0] == '/')
		joined = strdup(path);
	else if (!getcwd(cwd, sizeof(cwd)) || asprintf(&joined, "%s/%s", cwd, path) < 0)
		joined = NULL;
	if (!joined || !(out = malloc(strlen(joined) + 2))) {
		free(joined);
		return NULL;
	}
	for (char *part = strtok_r(joined, "/", &save); part; part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, "."))
			continue;
		if (!strcmp(part, "..")) {
			while (n && out[n - 1] != '/')
				n--;
			if (n)
				n--;
			continue;
		}
		out[n++] = '/';
		strcpy(out + n, part);
		n += strlen(part);
	}
	if (!n)
		out[n++] = '/';
	out[n] = '\0';
	free(joined);
	return out;
}

static bool is_snapshot_name(const char *name)
{
	if (strncmp(name, "snapshot-", 9) || !name[9])
		return false;
	for (const char *p = name + 9; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

bool wperf_recorded_command(const char *trace, char *pid, size_t pidlen)
{
	char *abs = wperf_abspath(trace), *text = NULL, path[PATH_MAX];
	const char *places[2] = { trace, NULL };
	bool ok = false;

	if (!abs)
		return false;
	/* A flight recorder's snapshot DIR/snapshot-N: DIR/command.pid. */
	char *slash = strrchr(abs, '/');

	if (is_snapshot_name(slash + 1)) {
		slash[slash == abs] = '\0';  /* the parent; "/" stays "/" */
		places[1] = abs;
	}
	for (int i = 0; i < 2 && places[i] && !text; i++) {
		snprintf(path, sizeof(path), "%s/command.pid", places[i]);
		text = wperf_read_text(path);
	}
	if (text) {
		char *p = strip(text);

		if (is_pid(p) && strlen(p) < pidlen) {
			strcpy(pid, p);
			ok = true;
		}
	}
	free(text);
	free(abs);
	return ok;
}

/* ------------------------------------------------------------ unclosed recordings */

static time_t newest_mtime;

/* The time the trace's data was last written: files outside .wperf/. */
static int newest(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)type;
	if (S_ISDIR(st->st_mode))
		return 0;
	/* os.walk() skipped the files directly in a directory named .wperf. */
	if (ftw->base >= 7 && !strncmp(path + ftw->base - 7, WPERF_PRIVATE "/", 7) &&
	    (ftw->base == 7 || path[ftw->base - 8] == '/'))
		return 0;
	if (st->st_mtime > newest_mtime)
		newest_mtime = st->st_mtime;
	return 0;
}

/* Whether process pid runs a wperf (its command line says so). */
static bool wperf_alive(long pid)
{
	char path[64], buf[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if (!(f = fopen(path, "r")))
		return false;
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	return memmem(buf, n, "wperf", 5) != NULL;
}

/* A killed wperf record leaves its LTTng session tracing (the session
 * daemon runs on): its kernel recorder or the next wperf destroys it
 * (orphans.h). Say whether it is still there; as root, end it now if it
 * is an orphan (the name comes from DIR/wperf.json, which its user may
 * have written: never a live wperf's session or a flight recorder's). */
static void say_session_left(const char *trace)
{
	char path[PATH_MAX], name[256] = "";
	struct json_want want = { .key = "session", .out = name, .outlen = sizeof(name) };
	char *text;

	snprintf(path, sizeof(path), "%s/" WPERF_STATE, trace);
	if (!(text = wperf_read_text(path)))
		return;
	if (!wperf_json_members(text, &want, 1) || !want.found || !want.is_string || !name[0]) {
		free(text);
		return;
	}
	if (!wperf_lttng_session_exists(name))
		wperf_say("its LTTng session %s is not recording any more (when wperf is killed, "
			  "its kernel recorder or the next wperf destroys it)", name);
	else if (geteuid() == 0 && wperf_destroy_if_orphaned(name) > 0)
		wperf_say("warning: its LTTng session %s was still recording (its wperf was "
			  "killed): destroyed it now", name);
	else
		wperf_say("warning: its LTTng session %s still records (its wperf was killed): "
			  "end it with lttng destroy %s", name, name);
	free(text);
}

/* What DIR/.wperf/recording says: the pid of the wperf that wrote it,
 * and why the recording failed when wperf said so ("failed"). false when
 * it says nothing usable. */
static bool read_mark(const char *trace, long *pid, char *failed, size_t failedlen)
{
	char path[PATH_MAX], pidtext[32] = "";
	struct json_want want[2] = {
		{ .key = "pid", .out = pidtext, .outlen = sizeof(pidtext) },
		{ .key = "failed", .out = failed, .outlen = failedlen },
	};
	char *text, *end;
	bool ok;

	failed[0] = '\0';
	snprintf(path, sizeof(path), "%s/" WPERF_PRIVATE "/recording", trace);
	if (!(text = wperf_read_text(path)))
		return false;
	ok = wperf_json_members(text, want, 2);
	free(text);
	if (!want[1].found || !want[1].is_string)
		failed[0] = '\0';
	/* Python's int(): a number or a string of digits. */
	*pid = strtol(strip(pidtext), &end, 10);
	return ok && want[0].found && pidtext[0] && !*end;
}

bool wperf_check_closed(const char *trace)
{
	char path[PATH_MAX], when[32] = "?", failed[2048];
	struct stat st;
	long pid;

	if (!read_mark(trace, &pid, failed, sizeof(failed)))
		return true;
	if (!failed[0] && wperf_alive(pid)) {
		wperf_fail("%s is still being recorded (wperf record, pid %ld): report it "
			   "once the recording has ended", trace, pid);
		return false;
	}
	newest_mtime = 0;
	nftw(trace, newest, 16, FTW_PHYS);
	if (newest_mtime) {
		struct tm tm;

		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S",
			 localtime_r(&newest_mtime, &tm));
	}
	if (!failed[0])
		say_session_left(trace);
	snprintf(path, sizeof(path), "%s/kernel/metadata", trace);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (failed[0])
			wperf_fail("this recording was cut short at %s (wperf record, pid %ld, said: "
				   "%s) and its kernel trace was never closed: babeltrace2's "
				   "sink.ctf.fs writes a trace's metadata only when it closes it, so "
				   "nothing of it can be read; record again", when, pid, failed);
		else
			wperf_fail("this recording was cut short at %s (wperf record, pid %ld, was "
				   "killed before closing it) and its kernel trace was never closed: "
				   "babeltrace2's sink.ctf.fs writes a trace's metadata only when it "
				   "closes it, so nothing of it can be read; record again", when, pid);
		return false;
	}
	if (failed[0])
		wperf_say("warning: this recording was cut short at %s (wperf record, pid %ld, "
			  "said: %s): the report covers what was written until then",
			  when, pid, failed);
	else
		wperf_say("warning: this recording was cut short at %s (wperf record, pid %ld, "
			  "ended without closing it): the report covers what was written until "
			  "then", when, pid);
	return true;
}

/* ------------------------------------------------------------ flight recorders */

bool wperf_recording_string(const char *trace, const char *key, char *out, size_t outlen)
{
	char path[PATH_MAX];
	struct json_want want = { .key = key, .out = out, .outlen = outlen };
	struct stat st;
	char *text;

	out[0] = '\0';
	snprintf(path, sizeof(path), "%s/" WPERF_STATE, trace);
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return true;
	if (!(text = wperf_read_text(path))) {
		wperf_fail("cannot read %s: %s", path, strerror(errno));
		return false;
	}
	bool ok = wperf_json_members(text, &want, 1);

	free(text);
	if (!ok) {
		wperf_fail("cannot read %s: it is not a JSON object", path);
		return false;
	}
	if (!want.is_string)
		out[0] = '\0';
	return true;
}

bool wperf_recording_mode(const char *trace, char *mode, size_t modelen)
{
	return wperf_recording_string(trace, "mode", mode, modelen);
}

char *wperf_latest_snapshot(const char *trace)
{
	DIR *d = opendir(trace);
	struct dirent *e;
	unsigned long long best = 0;
	char *found = NULL, path[PATH_MAX];
	struct stat st;

	while (d && (e = readdir(d))) {
		if (!is_snapshot_name(e->d_name))
			continue;
		/* Whole ones only: an older wperf stopped during a snapshot
		 * could leave an empty snapshot-N behind. */
		snprintf(path, sizeof(path), "%s/%s/" WPERF_STATE, trace, e->d_name);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		unsigned long long n = strtoull(e->d_name + 9, NULL, 10);

		if (!found || n > best) {
			free(found);
			/* As os.path.join: no second slash. */
			if (asprintf(&found, "%s%s%s", trace,
				     trace[strlen(trace) - 1] == '/' ? "" : "/", e->d_name) < 0)
				found = NULL;
			best = n;
		}
	}
	if (d)
		closedir(d);
	if (!found)
		wperf_fail("%s is a flight recorder without snapshots: take one with "
			   "wperf snapshot %s", trace, trace);
	return found;
}
