/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/output.h — the recording directory `wperf record` writes,
 * as root, and what it keeps there: the checks that make writing into it
 * safe, the private files it creates, DIR/wperf.json (the state that
 * `wperf snapshot`, `wperf stop` and `wperf report` read back), and who
 * the recorded command runs as, with the group permissions that let that
 * user read the trace afterwards. The layout is wperf(1)'s; recording.h
 * reads it back.
 *
 * Root writes files into DIR: a directory another user owns or can write
 * to would let that user plant symbolic links and have root overwrite any
 * file through them. Every file is created with O_EXCL | O_NOFOLLOW, and
 * DIR itself is never a link. DIR's parent may be the user's (their
 * home): DIR is held by descriptor from its creation on and reached only
 * through it (safe-dir.h).
 */
#ifndef WPERF_TOOL_OUTPUT_H
#define WPERF_TOOL_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "safe-dir.h"

/* DIR may be used: it does not exist (and its parent is not a directory
 * every user can write to without the sticky bit), or it is an empty
 * directory of the recorder's, writable by it alone, not a link. false
 * after saying why, in one line with the fix. */
bool wperf_output_check(const char *out);

/* Create DIR (0755) or take the empty one wperf_output_check() accepted,
 * hold it in *dir (its `shown` is its real path), checked again through
 * the descriptor, and make DIR/.wperf. DIR's missing parents are made
 * from descriptor to descriptor, as the user `as` (NULL: as root) would
 * make them with mkdir -p (parents.h). false after saying why. *existed
 * tells whether DIR was there before (for wperf_output_discard()). */
struct wperf_user;
bool wperf_output_prepare(const char *out, const struct wperf_user *as, bool *existed,
			  struct wperf_dir *dir);

/* Nothing was recorded: remove DIR/.wperf and, unless it existed before,
 * DIR itself where it is now, so that a retry with the same -o does not
 * find it "not empty". */
void wperf_output_discard(struct wperf_dir *dir, bool existed);

/* rm -rf path: every file and directory below it and itself, links
 * removed, not followed (wperf_remove_tree_at()). path's parent must be
 * the caller's: a held directory's /proc name, or below one. What cannot
 * be removed stays, silently. */
void wperf_remove_tree(const char *path);

/* A new file at path for writing (mode 0644, O_EXCL | O_NOFOLLOW |
 * O_CLOEXEC), any old file or link of that name unlinked first; NULL
 * with errno set. */
FILE *wperf_private_file(const char *path);

/* The same as a descriptor (for a child's log): -1 with errno. */
int wperf_private_fd(const char *path);

/* ------------------------------------------------------------ the user */

/* Who the recorded command runs as (and who may read the trace). */
struct wperf_user {
	char name[256];
	uid_t uid;
	gid_t gid;
	gid_t groups[256];
	int ngroups;
	char home[4096];
};

/* --user NAME (a name or a uid), else $SUDO_USER, else root. 1 with *user
 * filled for a user other than root, 0 for root as it is (or when not
 * root), -1 after saying why (no such user). */
int wperf_command_user(const char *name, struct wperf_user *user);

/* The same, said by no line: the user DIR's missing parents are made as
 * when there is no command (wperf_output_prepare()). */
int wperf_sudo_user(const char *name, struct wperf_user *user);

/* Let user read the tree `name` of the held directory at ("." : at
 * itself; shown names it in warnings): every directory and file below it
 * (links skipped) gets the user's group, group read (and search on
 * directories), and loses group write. Owner and other bits stay. A walk
 * from descriptor to descriptor that never follows a link
 * (wperf_share_tree_at()). Warns about what it cannot change. */
void wperf_share_with_user(int at, const char *name, const char *shown, const char *user,
			   gid_t gid);

/* Hold the flight recorder directory dir (its real path; never a link)
 * in *held, when root may act on what it says: it, its .wperf and its
 * wperf.json are not links, belong to the caller and no other user can
 * write to them, as `wperf record` makes them. Its wperf.json names an
 * ftrace instance, a session, a trigger, a watcher's pid and a plugin
 * directory that `wperf stop` and `wperf snapshot` remove, destroy, kill
 * and load as root: written by another user, it would have root do that
 * user's bidding. Not root: not checked. false after saying why. */
bool wperf_flight_dir_open(const char *dir, struct wperf_dir *held);

/* The same for the directory at (/proc/PID/fd/N) holds, the flight
 * recorder's DIR (dir: its path, for messages): the trigger watcher
 * gets DIR so from `wperf record`, which holds it while it starts the
 * watcher, and never through DIR's path. */
bool wperf_flight_dir_open_held(const char *dir, const char *at, struct wperf_dir *held);

/* ------------------------------------------------------------ DIR/wperf.json */

/* What DIR/wperf.json says (wperf(1), "FILES"). NULL strings and
 * negative numbers are written as null; `running`, `watcher`,
 * `instance` and `trigger_*` only for a flight recorder. */
struct wperf_state {
	const char *output;             /* DIR's real path */
	char *const *command;           /* the recorded command (NULL: none) */
	const char *plugin_path;
	long snapshots;
	const struct wperf_user *user;  /* NULL: root */
	long sessiond_started;          /* pid of the daemon this wperf started, or -1 */
	const char *kernel;             /* "lttng" or "tracefs" */
	const char *tracefs;            /* tracefs mount point (tracefs only) */
	const char *session;            /* the LTTng session's name */
	const char *relay;              /* the lttng-relayd URL the trace streams to
					 * (record --relay), or NULL: DIR holds it */
	bool live;                      /* with relay: a live session */
	const char *mode;               /* "record" or "flight-recorder" */
	bool running;                   /* flight recorder: not stopped yet */
	const char *instance;           /* flight recorder: its ftrace instance */
	long watcher;                   /* flight recorder: the trigger watcher's pid, or -1 */
	const char *trigger_name, *trigger_event, *trigger_filter;
};

/* s as a JSON string on f: the escapes of Python's json.dump; UTF-8
 * as it is, and each byte that is not part of a UTF-8 character (a path
 * or a command's argument may hold any) as \ufffd, as the report's JSON
 * writer does: the file stays valid JSON. NULL is null. The one string
 * writer of wperf.json and a snapshot's wperf.json. */
void wperf_json_put_string(FILE *f, const char *s);

/* Write DIR/wperf.json: a new file in DIR/.wperf, renamed over the old
 * one, so a reader never sees half of it. false after saying why. */
bool wperf_state_save(const char *out, const struct wperf_state *state);

/* Set one member of DIR/wperf.json to the JSON text value, the rest of
 * the file as written: text is the file as read, member one of its
 * top-level members as wperf_json_members() found it (json.h). Written
 * as wperf_state_save() writes. Nothing when member was not found; false
 * after saying why. */
struct json_want;
bool wperf_state_set(const char *out, const char *text, const struct json_want *member,
		     const char *value);

#endif /* WPERF_TOOL_OUTPUT_H */
