/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/dir-names.c — the held directories' names for messages
 * (dir-names.h): a leaf below say.c and safe-dir.c, calling neither.
 */
#include "dir-names.h"

#include <stdio.h>
#include <string.h>

/* The held directories whose /proc names messages translate. */
static const struct wperf_dir *held[8];

void wperf_dir_names_add(const struct wperf_dir *d)
{
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (!held[i]) {
			held[i] = d;
			return;
		}
}

void wperf_dir_names_remove(const struct wperf_dir *d)
{
	for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); i++)
		if (held[i] == d)
			held[i] = NULL;
}

/* The length of the /proc name `name` at the start of s, when it ends
 * there (at the end, or a '/'); 0 otherwise. */
static size_t starts_with_name(const char *s, const char *name)
{
	size_t n = strlen(name);

	return n && !strncmp(s, name, n) && (s[n] == '\0' || s[n] == '/') ? n : 0;
}

void wperf_dir_names_shown(const char *msg, char *out, size_t len)
{
	size_t o = 0;

	while (*msg && o + 1 < len) {
		size_t skip = 0;
		const char *with = NULL;

		for (size_t i = 0; i < sizeof(held) / sizeof(held[0]) && !skip; i++) {
			if (!held[i])
				continue;
			with = held[i]->shown;
			if (!(skip = starts_with_name(msg, held[i]->at)))
				skip = starts_with_name(msg, held[i]->pid_at);
		}
		if (!skip) {
			out[o++] = *msg++;
			continue;
		}
		o += (size_t)snprintf(out + o, len - o, "%s", with);
		if (o >= len)
			o = len - 1;
		msg += skip;
	}
	out[o] = '\0';
}
