/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/output.c — the recording directory as `wperf record` writes
 * it (output.h): the checks that make writing into it as root safe, its
 * private files, who the recorded command runs as and how that user gets
 * to read the trace, and DIR/wperf.json.
 *
 * The one-line messages are the command's since its first version: the
 * tests and users' scripts know them. wperf.json keeps the members, order
 * and layout it has always had (a JSON object, two-space indent), so that
 * every reader
 * (recording.c, stop.c, snapshot.c, the tests, recordings made by earlier
 * versions) reads it unchanged.
 */
#include "output.h"
#include "json.h"
#include "parents.h"
#include "recording.h"
#include "safe-dir.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ checks */

/* Only root's writes are an attack; the root check comes later. */
static bool directory_is_ours(const char *path, const struct stat *st)
{
	if (geteuid() != 0)
		return true;
	if (st->st_uid != geteuid()) {
		wperf_fail("output directory %s belongs to uid %u, not to the recorder (uid %u): "
			   "remove it or choose another with -o", path, (unsigned)st->st_uid,
			   (unsigned)geteuid());
		return false;
	}
	if (st->st_mode & 0022) {
		wperf_fail("output directory %s is writable by other users (mode %04o): "
			   "remove it or choose another with -o", path, (unsigned)(st->st_mode & 07777));
		return false;
	}
	return true;
}

/* Another user who can rename entries in DIR's parent could swap DIR for
 * a link once it is made; a sticky directory such as /tmp forbids that. */
static bool parent_is_safe(const char *out)
{
	char *abs, *parent;
	struct stat st;
	bool ok = true;

	if (geteuid() != 0 || !(abs = wperf_abspath(out)))
		return true;
	parent = dirname(abs);
	/* Missing: it is made, owned by the recorder. */
	if (stat(parent, &st) == 0 && (st.st_mode & 0002) && !(st.st_mode & S_ISVTX)) {
		wperf_fail("the directory %s is writable by every user and not sticky: "
			   "choose an output directory elsewhere with -o", parent);
		ok = false;
	}
	free(abs);
	return ok;
}

/* 1 when directory path holds nothing, 0 when it holds something, -1
 * with errno when it cannot be read. */
static int is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return -1;
	while (empty && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}

/* Room left in a path after DIR for what wperf, sink.ctf.fs and LTTng
 * write below it (DIR/.wperf/snapshot-N.part/kernel/...,
 * DIR/ust/uid/0/64-bit/...): the paths are built in PATH_MAX buffers,
 * and one cut short would name another file. */
#define WPERF_OUTPUT_ROOM 256

/* DIR's absolute path leaves that room; false after saying why. */
static bool short_enough(const char *out)
{
	char *abs = wperf_abspath(out);
	size_t len = abs ? strlen(abs) : strlen(out);

	free(abs);
	if (len + WPERF_OUTPUT_ROOM < PATH_MAX)
		return true;
	wperf_fail("the output directory's path is too long (%zu bytes; at most %d): choose "
		   "a shorter one with -o", len, PATH_MAX - WPERF_OUTPUT_ROOM - 1);
	return false;
}

bool wperf_output_check(const char *out)
{
	struct stat st;
	int empty;

	if (!short_enough(out))
		return false;
	if (lstat(out, &st) != 0) {
		if (errno == ENOENT)
			return parent_is_safe(out);
		wperf_fail("cannot use output directory %s: %s", out, strerror(errno));
		return false;
	}
	if (S_ISLNK(st.st_mode)) {
		wperf_fail("output directory %s is a symbolic link: give the directory itself "
			   "with -o (wperf record does not follow links)", out);
		return false;
	}
	if (!S_ISDIR(st.st_mode)) {
		wperf_fail("output %s exists and is not a directory: choose a new directory "
			   "with -o", out);
		return false;
	}
	empty = is_empty_dir(out);
	if (empty < 0) {
		wperf_fail("cannot use output directory %s: %s", out, strerror(errno));
		return false;
	}
	if (!empty) {
		wperf_fail("output directory %s exists and is not empty: remove it or choose "
			   "another with -o", out);
		return false;
	}
	return directory_is_ours(out, &st) && parent_is_safe(out);
}

/* One part of a flight recorder's directory held as fd ("": itself):
 * not a link, of the expected type, the caller's, and writable by no one
 * else. */
static bool part_is_ours(int fd, const char *out, const char *name, mode_t type)
{
	struct stat st;

	if (fstatat(fd, name, &st, *name ? AT_SYMLINK_NOFOLLOW : AT_EMPTY_PATH) != 0) {
		if (errno == ENOENT && *name)
			wperf_fail("%s was not written by `wperf record` (no %s)", out, name);
		else
			wperf_fail("cannot read %s/%s: %s", out, name, strerror(errno));
		return false;
	}
	if ((st.st_mode & S_IFMT) != type || st.st_uid != geteuid() || (st.st_mode & 0022)) {
		wperf_fail("refusing %s: %s%s%s is %s; as root, wperf acts only on a directory "
			   "`wperf record --snapshot` made, which no other user can change",
			   out, out, *name ? "/" : "", name,
			   S_ISLNK(st.st_mode) ? "a symbolic link" :
			   (st.st_mode & S_IFMT) != type ? "not what wperf record makes" :
			   st.st_uid != geteuid() ? "another user's" : "writable by other users");
		return false;
	}
	return true;
}

/* As root: DIR, its .wperf and its wperf.json are as `wperf record`
 * makes them; held closed when not. */
static bool flight_parts_ours(struct wperf_dir *held)
{
	if (geteuid() != 0)
		return true;
	if (part_is_ours(held->fd, held->shown, "", S_IFDIR) &&
	    part_is_ours(held->fd, held->shown, WPERF_PRIVATE, S_IFDIR) &&
	    part_is_ours(held->fd, held->shown, WPERF_STATE, S_IFREG))
		return true;
	wperf_dir_close(held);
	return false;
}

bool wperf_flight_dir_open(const char *dir, struct wperf_dir *held)
{
	char *real = realpath(dir, NULL);
	const char *out = real ? real : dir;

	if (!wperf_dir_open(held, out)) {
		wperf_fail("cannot use %s: %s", dir, errno == ELOOP ? "it is a symbolic link" :
			   errno == ENOTDIR ? "not a directory" : strerror(errno));
		free(real);
		return false;
	}
	free(real);
	return flight_parts_ours(held);
}

bool wperf_flight_dir_open_held(const char *dir, const char *at, struct wperf_dir *held)
{
	if (!wperf_dir_open_held(held, at, dir)) {
		wperf_fail("cannot use %s through %s: %s", dir, at, strerror(errno));
		return false;
	}
	return flight_parts_ours(held);
}

/* ------------------------------------------------------------ creating DIR */

/* DIR, held: opened from its parent's descriptor (never through a
 * link), and it is what wperf_output_check() accepted: root's, writable
 * by root alone, empty. Its real path (the kernel's name for what was
 * opened) is what it is shown as. false after saying why. */
static bool hold(int parent, const char *name, const char *out, struct wperf_dir *dir)
{
	char real[PATH_MAX];
	ssize_t n;
	int empty = 0, copy;
	DIR *d;

	if (!wperf_dir_open_at(dir, parent, name, out)) {
		wperf_fail("output directory %s was replaced while being created: choose "
			   "another with -o (%s)", out, strerror(errno));
		return false;
	}
	if ((n = readlink(dir->at, real, sizeof(real) - 1)) > 0) {
		real[n] = '\0';
		snprintf(dir->shown, sizeof(dir->shown), "%s", real);
	}
	/* Two wperf records started at once with the same -o both found it
	 * missing or empty: each would record into it, and the one whose
	 * .wperf could not be made discarded the other's. The first to lock
	 * it records; the lock lasts as long as the descriptor (this wperf
	 * and its kernel recorder), and is checked before it is found
	 * empty. */
	if (flock(dir->fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
		wperf_fail("output directory %s is being recorded into by another wperf record: "
			   "choose another with -o", out);
		return false;
	}
	if ((copy = dup(dir->fd)) >= 0 && (d = fdopendir(copy))) {
		struct dirent *e;

		empty = 1;
		while (empty && (e = readdir(d)))
			if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
				empty = 0;
		closedir(d);
	} else if (copy >= 0)
		close(copy);
	if (!empty) {
		wperf_fail("output directory %s is not empty (it was replaced while being "
			   "created?): choose another with -o", out);
		return false;
	}
	return wperf_dir_trusted(dir, "output directory") && short_enough(dir->shown);
}

/* DIR made (0755) in its parent, the missing parents made as `as`
 * (parents.h), or the empty one there taken; held in *dir. false after
 * saying why. */
static bool make_and_hold(const char *out, const struct wperf_user *as, bool *existed,
			  struct wperf_dir *dir)
{
	char *abs = wperf_abspath(out);
	const char *name;
	struct stat st;
	bool ok = false;
	int parent;

	if (!abs) {
		wperf_fail("cannot use output directory %s: %s", out, strerror(errno));
		return false;
	}
	if ((parent = wperf_parents_open(abs, as, &name)) < 0)
		goto end;
	*existed = fstatat(parent, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (wperf_kernel_fs(parent))
		wperf_fail("cannot use output directory %s: its parent is on %s, a kernel file "
			   "system where a new directory is no directory to write in: choose "
			   "another with -o", out, wperf_kernel_fs(parent));
	else if (!*existed && mkdirat(parent, name, 0755) != 0)
		wperf_fail("cannot create output directory %s: %s", out, strerror(errno));
	else
		ok = hold(parent, name, out, dir);
	close(parent);
end:
	free(abs);
	return ok;
}

bool wperf_output_prepare(const char *out, const struct wperf_user *as, bool *existed,
			  struct wperf_dir *dir)
{
	dir->fd = -1;
	if (!wperf_output_check(out))
		return false;
	if (!make_and_hold(out, as, existed, dir)) {
		if (dir->fd >= 0)
			wperf_dir_close(dir);
		return false;
	}
	if (mkdirat(dir->fd, WPERF_PRIVATE, 0755) != 0) {
		wperf_fail("cannot create %s/" WPERF_PRIVATE ": %s", dir->shown, strerror(errno));
		wperf_output_discard(dir, *existed);
		return false;
	}
	return true;
}

void wperf_remove_tree(const char *path)
{
	char *copy = strdup(path), *copy2 = strdup(path);
	int parent;

	/* The parent is the caller's (a held directory's /proc name, or
	 * below one): only the last component could be another's. */
	if (copy && copy2 && (parent = open(dirname(copy), O_RDONLY | O_DIRECTORY |
					    O_CLOEXEC)) >= 0) {
		wperf_remove_tree_at(parent, basename(copy2));
		close(parent);
	}
	free(copy);
	free(copy2);
}

/* Remove DIR itself where it is now, when it is still there and empty:
 * through its parent's descriptor, the entry checked to be DIR. */
static void remove_dir_itself(const struct wperf_dir *dir)
{
	char where[PATH_MAX], base[PATH_MAX];
	struct stat held_st, st;
	int parent;

	if (!wperf_dir_where(dir, where, sizeof(where)) || fstat(dir->fd, &held_st) != 0)
		return;
	snprintf(base, sizeof(base), "%s", strrchr(where, '/') + 1);
	*strrchr(where, '/') = '\0';
	if ((parent = open(where[0] ? where : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return;
	if (fstatat(parent, base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == held_st.st_dev && st.st_ino == held_st.st_ino)
		unlinkat(parent, base, AT_REMOVEDIR);
	close(parent);
}

void wperf_output_discard(struct wperf_dir *dir, bool existed)
{
	wperf_remove_tree_at(dir->fd, WPERF_PRIVATE);
	if (!existed)
		remove_dir_itself(dir);
}

int wperf_private_fd(const char *path)
{
	if (unlink(path) != 0 && errno != ENOENT)
		return -1;
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
}

FILE *wperf_private_file(const char *path)
{
	int fd = wperf_private_fd(path);
	FILE *f;

	if (fd < 0)
		return NULL;
	if (!(f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
}

/* ------------------------------------------------------------ the user */

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* wperf_command_user(), saying who the command runs as when say. */
static int look_up_user(const char *name, struct wperf_user *user, bool say)
{
	const char *said_by = "--user";
	struct passwd *pw;

	if (!name) {
		name = getenv("SUDO_USER");
		said_by = "SUDO_USER";
	}
	if (!name || (!*name && !strcmp(said_by, "SUDO_USER")) || geteuid() != 0)
		return 0;
	if (!*name) {
		wperf_fail("--user: empty (give a user name or uid; --user root runs the command "
			   "as root)");
		return -1;
	}
	if (all_digits(name)) {
		/* A uid: 0 to 4294967294 ((uid_t)-1 is no one), read whole, never
		 * wrapped: 4294967296 must not become 0, root. */
		char *end;
		unsigned long long uid;

		errno = 0;
		uid = strtoull(name, &end, 10);
		if (errno || *end || uid >= (uid_t)-1) {
			wperf_fail("%s: uid %s is out of range (0 to %u)", said_by, name,
				   (unsigned)((uid_t)-1 - 1));
			return -1;
		}
		pw = getpwuid((uid_t)uid);
	} else
		pw = getpwnam(name);
	if (!pw) {
		wperf_fail("%s: no user named '%s' on this machine (--user root runs the "
			   "command as root)", said_by, name);
		return -1;
	}
	if (pw->pw_uid == 0)
		return 0;
	memset(user, 0, sizeof(*user));
	snprintf(user->name, sizeof(user->name), "%s", pw->pw_name);
	snprintf(user->home, sizeof(user->home), "%s", pw->pw_dir);
	user->uid = pw->pw_uid;
	user->gid = pw->pw_gid;
	user->ngroups = (int)(sizeof(user->groups) / sizeof(user->groups[0]));
	if (getgrouplist(user->name, user->gid, user->groups, &user->ngroups) < 0) {
		/* More than fit: the first ones, the primary group among them. */
		user->ngroups = (int)(sizeof(user->groups) / sizeof(user->groups[0]));
	}
	if (say && !strcmp(said_by, "SUDO_USER"))
		wperf_say("the command runs as %s (who ran sudo; --user root keeps root), "
			  "the tracer as root", user->name);
	return 1;
}

int wperf_command_user(const char *name, struct wperf_user *user)
{
	return look_up_user(name, user, true);
}

int wperf_sudo_user(const char *name, struct wperf_user *user)
{
	return look_up_user(name, user, false);
}

void wperf_share_with_user(int at, const char *name, const char *shown, const char *user,
			   gid_t gid)
{
	wperf_share_tree_at(at, name, shown, user, gid);
}

/* ------------------------------------------------------------ DIR/wperf.json */

/* The length of the UTF-8 character at s, or 0 when s does not begin a
 * whole, shortest-form one (no surrogate, nothing above U+10FFFF): the
 * rule of the report's JSON writer (analysis/report/report-format.c),
 * which this command does not link. The reads past s[0] stop at the
 * terminating NUL: a NUL is never a continuation byte. */
static size_t utf8_length(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void wperf_json_put_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (!s) {
		fputs("null", f);
		return;
	}
	fputc('"', f);
	for (; *p; p += n ? n : 1) {
		n = utf8_length(p);
		if (n == 0) {
			fputs("\\ufffd", f);  /* not UTF-8 (a file name's byte): one U+FFFD a byte */
			continue;
		}
		if (n > 1) {
			fwrite(p, 1, n, f);
			continue;
		}
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		default:
			if (*p < 0x20)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

/* A member "key": value at the given indent, after the previous one. */
static void put_key(FILE *f, const char *key, int indent, bool *first)
{
	fprintf(f, "%s\n%*s", *first ? "" : ",", indent, "");
	*first = false;
	wperf_json_put_string(f, key);
	fputs(": ", f);
}

static void put_number(FILE *f, long n)
{
	if (n < 0)
		fputs("null", f);
	else
		fprintf(f, "%ld", n);
}

static void put_command(FILE *f, char *const *command)
{
	if (!command || !command[0]) {
		fputs("[]", f);
		return;
	}
	fputc('[', f);
	for (size_t i = 0; command[i]; i++) {
		fprintf(f, "%s\n    ", i ? "," : "");
		wperf_json_put_string(f, command[i]);
	}
	fputs("\n  ]", f);
}

static void put_user(FILE *f, const struct wperf_user *u)
{
	bool first = true;

	if (!u) {
		fputs("null", f);
		return;
	}
	fputc('{', f);
	put_key(f, "name", 4, &first);
	wperf_json_put_string(f, u->name);
	put_key(f, "uid", 4, &first);
	fprintf(f, "%u", (unsigned)u->uid);
	put_key(f, "gid", 4, &first);
	fprintf(f, "%u", (unsigned)u->gid);
	put_key(f, "groups", 4, &first);
	fputc('[', f);
	for (int i = 0; i < u->ngroups; i++)
		fprintf(f, "%s\n      %u", i ? "," : "", (unsigned)u->groups[i]);
	fputs(u->ngroups ? "\n    ]" : "]", f);
	put_key(f, "home", 4, &first);
	wperf_json_put_string(f, u->home);
	fputs("\n  }", f);
}

/* The flight recorder's members, in the order wperf.json has always had them. */
static void put_flight(FILE *f, const struct wperf_state *s, bool *first)
{
	put_key(f, "running", 2, first);
	fputs(s->running ? "true" : "false", f);
	if (s->instance) {
		put_key(f, "instance", 2, first);
		wperf_json_put_string(f, s->instance);
	}
	if (s->trigger_name) {
		bool tfirst = true;

		put_key(f, "trigger", 2, first);
		fputc('{', f);
		put_key(f, "name", 4, &tfirst);
		wperf_json_put_string(f, s->trigger_name);
		put_key(f, "event", 4, &tfirst);
		wperf_json_put_string(f, s->trigger_event);
		put_key(f, "filter", 4, &tfirst);
		wperf_json_put_string(f, s->trigger_filter);
		fputs("\n  }", f);
	}
	if (s->watcher >= 0) {
		put_key(f, "watcher", 2, first);
		put_number(f, s->watcher);
	}
}

static void put_state(FILE *f, const struct wperf_state *s)
{
	bool first = true;

	fputc('{', f);
	put_key(f, "version", 2, &first);
	fputs("1", f);
	put_key(f, "output", 2, &first);
	wperf_json_put_string(f, s->output);
	put_key(f, "command", 2, &first);
	put_command(f, s->command);
	put_key(f, "plugin_path", 2, &first);
	wperf_json_put_string(f, s->plugin_path);
	put_key(f, "snapshots", 2, &first);
	put_number(f, s->snapshots);
	put_key(f, "user", 2, &first);
	put_user(f, s->user);
	put_key(f, "sessiond_started", 2, &first);
	put_number(f, s->sessiond_started);
	put_key(f, "kernel", 2, &first);
	wperf_json_put_string(f, s->kernel);
	put_key(f, "tracefs", 2, &first);
	wperf_json_put_string(f, s->tracefs);
	put_key(f, "session", 2, &first);
	wperf_json_put_string(f, s->session);
	put_key(f, "mode", 2, &first);
	wperf_json_put_string(f, s->mode);
	if (s->relay) {
		put_key(f, "relay", 2, &first);
		wperf_json_put_string(f, s->relay);
		put_key(f, "live", 2, &first);
		fputs(s->live ? "true" : "false", f);
	}
	if (s->mode && !strcmp(s->mode, "flight-recorder"))
		put_flight(f, s, &first);
	fputs("\n}\n", f);
}

/* Open DIR/.wperf/wperf.json.tmp (tmp) for a new DIR/wperf.json (path);
 * NULL after saying why. */
static FILE *state_begin(const char *out, char tmp[PATH_MAX], char path[PATH_MAX])
{
	FILE *f;

	snprintf(tmp, PATH_MAX, "%s/" WPERF_PRIVATE "/" WPERF_STATE ".tmp", out);
	snprintf(path, PATH_MAX, "%s/" WPERF_STATE, out);
	if (!(f = wperf_private_file(tmp)))
		wperf_fail("cannot write %s: %s", tmp, strerror(errno));
	return f;
}

/* Close f and rename tmp over path, so a reader never sees half of it;
 * false after saying why (tmp removed). */
static bool state_end(FILE *f, const char *tmp, const char *path)
{
	bool ok = !ferror(f);

	if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
		wperf_fail("cannot write %s: %s", path, strerror(errno ? errno : EIO));
		unlink(tmp);
		return false;
	}
	return true;
}

bool wperf_state_save(const char *out, const struct wperf_state *state)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;

	if (!(f = state_begin(out, tmp, path)))
		return false;
	put_state(f, state);
	return state_end(f, tmp, path);
}

bool wperf_state_set(const char *out, const char *text, const struct json_want *member,
		     const char *value)
{
	char tmp[PATH_MAX], path[PATH_MAX];
	FILE *f;

	if (!member->found)
		return true;
	if (!(f = state_begin(out, tmp, path)))
		return false;
	fprintf(f, "%.*s%s%s", (int)member->value_begin, text, value, text + member->value_end);
	return state_end(f, tmp, path);
}
