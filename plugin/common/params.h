/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/params.h — component parameters (--params): reject unknown names,
 * read typed values, and say in one line which parameter is wrong and why.
 *
 * Every function writes a message into err (size errlen) when it fails, in
 * the form "parameter `NAME`: what is wrong (what is expected)".
 */
#ifndef WPERF_PLUGIN_PARAMS_H
#define WPERF_PLUGIN_PARAMS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 0 when every key of the params map is in known (NULL-terminated), else -1. */
int wperf_params_check_known(const bt_value *params, const char *const *known,
			     char *err, size_t errlen);

/* For each getter: 1 = present and valid (*out set), 0 = absent (*out
 * untouched), -1 = present but invalid (err set). */
int wperf_params_get_string(const bt_value *params, const char *name,
			    const char **out, char *err, size_t errlen);
int wperf_params_get_bool(const bt_value *params, const char *name,
			  bool *out, char *err, size_t errlen);
/* Accepts a signed or unsigned integer value, or a string of digits,
 * within [min, max]. */
int wperf_params_get_int(const bt_value *params, const char *name,
			 int64_t min, int64_t max, int64_t *out,
			 char *err, size_t errlen);
/* A duration: an integer (seconds), or a string "5", "5s", "1.5s", "250ms",
 * "100us", "42ns", "2m". */
int wperf_params_get_duration_ns(const bt_value *params, const char *name,
				 int64_t *out, char *err, size_t errlen);

/* A link speed: a number with an optional SI prefix (k, M, G, T) and unit,
 * "bit"/"b"/"bps" for bits per second or "B" for bytes per second:
 * "10Gbit", "1Gb", "100Mbps", "125MB", "1000000000". 0, or -1 if malformed
 * or zero. */
int wperf_parse_rate_bps(const char *s, uint64_t *out);

/* Parse a duration string as above; 0 on success, -1 if malformed. */
int wperf_parse_duration_ns(const char *s, int64_t *out);

/* A list of strings, owned (free with wperf_string_list_free). */
struct wperf_string_list {
	char **items;
	size_t n;
};

/* A list given as an array ([a, b]) or a comma-separated string ("a,b");
 * integers are accepted and turned into their decimal text; items are
 * trimmed and empty ones dropped. Same return convention as the getters
 * (on 1, *out is owned by the caller). */
int wperf_params_get_string_list(const bt_value *params, const char *name,
				 struct wperf_string_list *out, char *err, size_t errlen);
/* The same, for a parameter that chooses things: a given but empty list
 * ([] or "") is refused with "parameter `NAME`: empty list (give at least
 * one WHAT, or omit the parameter)". */
int wperf_params_get_nonempty_list(const bt_value *params, const char *name,
				   const char *what, struct wperf_string_list *out,
				   char *err, size_t errlen);
void wperf_string_list_free(struct wperf_string_list *l);
/* Whether s is one of l's items (a NULL s is not). */
bool wperf_string_list_contains(const struct wperf_string_list *l, const char *s);

/* A non-empty list of process or thread ids, in the forms of a string
 * list ([1234, 1235] or "1234,1235"). Same return convention as the
 * getters; on 1, *ids (n of them) is owned by the caller (free()). */
int wperf_params_get_id_list(const bt_value *params, const char *name,
			     int64_t **ids, size_t *n, char *err, size_t errlen);
/* Whether id is one of ids[0 .. n). */
bool wperf_id_list_contains(const int64_t *ids, size_t n, int64_t id);

#endif /* WPERF_PLUGIN_PARAMS_H */
