/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/params.c — reading component parameters.
 *
 * babeltrace2's own parameter-validation helpers are internal to its tree,
 * so this is a small replacement: every getter either succeeds, reports the
 * parameter as absent, or writes one line naming the parameter, what is
 * wrong with it and what is expected. Components prefix that line with
 * their own name and append it as the error cause.
 */
#include "params.h"
#include "error.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *value_type_name(bt_value_type type)
{
	switch (type) {
	case BT_VALUE_TYPE_NULL: return "null";
	case BT_VALUE_TYPE_BOOL: return "a boolean";
	case BT_VALUE_TYPE_UNSIGNED_INTEGER: return "an unsigned integer";
	case BT_VALUE_TYPE_SIGNED_INTEGER: return "a signed integer";
	case BT_VALUE_TYPE_REAL: return "a real number";
	case BT_VALUE_TYPE_STRING: return "a string";
	case BT_VALUE_TYPE_ARRAY: return "an array";
	case BT_VALUE_TYPE_MAP: return "a map";
	default: return "an unknown type";
	}
}

/* The value of name, or NULL when absent. babeltrace2 passes an empty map
 * (never NULL) when no --params were given, but be lenient anyway. */
static const bt_value *lookup(const bt_value *params, const char *name)
{
	if (!params || !bt_value_is_map(params))
		return NULL;
	return bt_value_map_borrow_entry_value_const(params, name);
}

/* ---- unknown parameter names ---------------------------------------- */

struct known_check {
	const char *const *known;
	char *err;
	size_t errlen;
	bool failed;
};

static bool is_known(const char *const *known, const char *key)
{
	for (size_t i = 0; known[i]; i++)
		if (strcmp(known[i], key) == 0)
			return true;
	return false;
}

static bt_value_map_foreach_entry_const_func_status
check_one_key(const char *key, const bt_value *value, void *data)
{
	struct known_check *c = data;
	char list[256] = "";
	size_t used = 0;

	(void)value;
	if (is_known(c->known, key))
		return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;

	/* Name the parameters that do exist, so a typo is easy to fix. */
	for (size_t i = 0; c->known[i] && used < sizeof list; i++) {
		int n = snprintf(list + used, sizeof list - used, "%s%s",
				 i ? ", " : "", c->known[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	wperf_set_err(c->err, c->errlen, "parameter `%s`: unknown parameter (known: %s)",
		key, list[0] ? list : "none");
	c->failed = true;
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_INTERRUPT;
}

int wperf_params_check_known(const bt_value *params, const char *const *known,
			     char *err, size_t errlen)
{
	struct known_check c = { known, err, errlen, false };

	if (!params || bt_value_is_null(params))
		return 0;
	if (!bt_value_is_map(params)) {
		wperf_set_err(err, errlen, "parameters: expected a map, got %s",
			value_type_name(bt_value_get_type(params)));
		return -1;
	}
	bt_value_map_foreach_entry_const(params, check_one_key, &c);
	return c.failed ? -1 : 0;
}

/* ---- typed getters --------------------------------------------------- */

int wperf_params_get_string(const bt_value *params, const char *name,
			    const char **out, char *err, size_t errlen)
{
	const bt_value *v = lookup(params, name);

	if (!v)
		return 0;
	if (!bt_value_is_string(v)) {
		wperf_set_err(err, errlen, "parameter `%s`: expected a string, got %s",
			name, value_type_name(bt_value_get_type(v)));
		return -1;
	}
	*out = bt_value_string_get(v);
	return 1;
}

/* Words people write for booleans in --params strings. */
static int parse_bool_word(const char *s, bool *out)
{
	static const char *const yes[] = { "true", "yes", "on", "1", NULL };
	static const char *const no[] = { "false", "no", "off", "0", NULL };

	for (size_t i = 0; yes[i]; i++)
		if (strcasecmp(s, yes[i]) == 0)
			return *out = true, 0;
	for (size_t i = 0; no[i]; i++)
		if (strcasecmp(s, no[i]) == 0)
			return *out = false, 0;
	return -1;
}

int wperf_params_get_bool(const bt_value *params, const char *name,
			  bool *out, char *err, size_t errlen)
{
	const bt_value *v = lookup(params, name);

	if (!v)
		return 0;
	if (bt_value_is_bool(v)) {
		*out = bt_value_bool_get(v);
		return 1;
	}
	if (bt_value_is_string(v) && parse_bool_word(bt_value_string_get(v), out) == 0)
		return 1;
	wperf_set_err(err, errlen, "parameter `%s`: expected a boolean (true or false)", name);
	return -1;
}

/* Parse a whole string as a decimal integer; 0 or -1. */
static int parse_int64(const char *s, int64_t *out)
{
	char *end;
	long long v;

	while (isspace((unsigned char)*s))
		s++;
	if (*s == '\0')
		return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end != '\0')
		return -1;
	*out = (int64_t)v;
	return 0;
}

int wperf_params_get_int(const bt_value *params, const char *name,
			 int64_t min, int64_t max, int64_t *out,
			 char *err, size_t errlen)
{
	const bt_value *v = lookup(params, name);
	int64_t val;

	if (!v)
		return 0;
	if (bt_value_is_signed_integer(v)) {
		val = bt_value_integer_signed_get(v);
	} else if (bt_value_is_unsigned_integer(v)) {
		uint64_t u = bt_value_integer_unsigned_get(v);
		val = u > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)u;
	} else if (bt_value_is_string(v) &&
		   parse_int64(bt_value_string_get(v), &val) == 0) {
		/* a number given as a string, e.g. from a shell script */
	} else {
		wperf_set_err(err, errlen, "parameter `%s`: expected an integer between %" PRId64
			" and %" PRId64, name, min, max);
		return -1;
	}
	if (val < min || val > max) {
		wperf_set_err(err, errlen, "parameter `%s`: %" PRId64 " is out of range (expected %"
			PRId64 " to %" PRId64 ")", name, val, min, max);
		return -1;
	}
	*out = val;
	return 1;
}

/* ---- durations ------------------------------------------------------- */

struct duration_unit {
	const char *suffix;
	double ns;
};

/* Longest suffixes first so "ms" is not read as "m" followed by "s". */
static const struct duration_unit duration_units[] = {
	{ "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
};

static int unit_ns(const char *suffix, double *ns)
{
	if (*suffix == '\0') {   /* no unit: seconds */
		*ns = 1e9;
		return 0;
	}
	for (size_t i = 0; i < sizeof duration_units / sizeof duration_units[0]; i++) {
		if (strcmp(suffix, duration_units[i].suffix) == 0) {
			*ns = duration_units[i].ns;
			return 0;
		}
	}
	return -1;
}

int wperf_parse_duration_ns(const char *s, int64_t *out)
{
	char *end;
	double number, scale, ns;

	while (isspace((unsigned char)*s))
		s++;
	/* strtod would accept "inf", "nan" and hex: insist on a plain number. */
	if (!isdigit((unsigned char)*s) && *s != '.')
		return -1;
	errno = 0;
	number = strtod(s, &end);
	if (errno || end == s)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	{
		/* trailing spaces after the unit are harmless */
		char unit[8];
		size_t len = strcspn(end, " \t\n");

		if (len >= sizeof unit || end[len + strspn(end + len, " \t\n")] != '\0')
			return -1;
		memcpy(unit, end, len);
		unit[len] = '\0';
		if (unit_ns(unit, &scale) < 0)
			return -1;
	}
	ns = number * scale;
	if (!isfinite(ns) || ns < 0 || ns > 9.2e18)
		return -1;
	*out = (int64_t)(ns + 0.5);   /* round to the nearest ns */
	return 0;
}

int wperf_params_get_duration_ns(const bt_value *params, const char *name,
				 int64_t *out, char *err, size_t errlen)
{
	const bt_value *v = lookup(params, name);
	const int64_t max_s = INT64_MAX / 1000000000;

	if (!v)
		return 0;
	if (bt_value_is_signed_integer(v) || bt_value_is_unsigned_integer(v)) {
		int64_t s;

		if (bt_value_is_signed_integer(v))
			s = bt_value_integer_signed_get(v);
		else
			s = bt_value_integer_unsigned_get(v) > (uint64_t)max_s
				? max_s + 1 : (int64_t)bt_value_integer_unsigned_get(v);
		if (s < 0 || s > max_s)
			goto bad;
		*out = s * 1000000000;
		return 1;
	}
	if (bt_value_is_real(v)) {
		double s = bt_value_real_get(v);

		if (!isfinite(s) || s < 0 || s > (double)max_s)
			goto bad;
		*out = (int64_t)(s * 1e9 + 0.5);
		return 1;
	}
	if (bt_value_is_string(v) && wperf_parse_duration_ns(bt_value_string_get(v), out) == 0)
		return 1;
bad:
	wperf_set_err(err, errlen, "parameter `%s`: expected a duration such as 5, \"1.5s\", "
		"\"250ms\", \"100us\", \"42ns\" or \"2m\" (a number alone means seconds)", name);
	return -1;
}

/* ---- lists of strings ------------------------------------------------ */

void wperf_string_list_free(struct wperf_string_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = 0;
}

bool wperf_string_list_contains(const struct wperf_string_list *l, const char *s)
{
	if (!s)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->items[i], s) == 0)
			return true;
	return false;
}

static int list_push(struct wperf_string_list *l, const char *s, size_t len)
{
	char **grown = realloc(l->items, (l->n + 1) * sizeof *grown);

	if (!grown)
		return -1;
	l->items = grown;
	l->items[l->n] = strndup(s, len);
	if (!l->items[l->n])
		return -1;
	l->n++;
	return 0;
}

/* Split "a, b,c" at commas, trimming spaces around each item. Empty items
 * are skipped, so that a trailing comma in a list of names is harmless,
 * or kept (keep_empty), for the caller to refuse: in "1,,2" a pid is
 * likely missing. An empty string is no item either way. */
static int list_push_split(struct wperf_string_list *l, const char *s, bool keep_empty)
{
	if (!*s)
		return 0;
	for (;;) {
		size_t len = strcspn(s, ",");
		const char *b = s, *e = s + len;

		while (b < e && isspace((unsigned char)*b))
			b++;
		while (e > b && isspace((unsigned char)e[-1]))
			e--;
		if ((e > b || keep_empty) && list_push(l, b, (size_t)(e - b)) < 0)
			return -1;
		s += len;
		if (*s != ',')
			return 0;
		s++;
		if (!*s && !keep_empty)
			return 0;
	}
}

/* One array element: a string (itself split at commas) or an integer. */
static int list_push_value(struct wperf_string_list *l, const bt_value *v, bool keep_empty)
{
	char num[32];

	if (bt_value_is_string(v))
		return list_push_split(l, bt_value_string_get(v), keep_empty);
	if (bt_value_is_signed_integer(v))
		snprintf(num, sizeof num, "%" PRId64, bt_value_integer_signed_get(v));
	else if (bt_value_is_unsigned_integer(v))
		snprintf(num, sizeof num, "%" PRIu64, bt_value_integer_unsigned_get(v));
	else
		return 1;
	return list_push(l, num, strlen(num));
}

static int get_list(const bt_value *params, const char *name, bool keep_empty,
		    struct wperf_string_list *out, char *err, size_t errlen)
{
	const bt_value *v = lookup(params, name);
	struct wperf_string_list l = { NULL, 0 };
	int rc = 0;

	if (!v)
		return 0;
	if (bt_value_is_array(v)) {
		for (uint64_t i = 0; rc == 0 && i < bt_value_array_get_length(v); i++)
			rc = list_push_value(&l, bt_value_array_borrow_element_by_index_const(v, i),
					     keep_empty);
	} else {
		rc = list_push_value(&l, v, keep_empty);
	}
	if (rc > 0)
		wperf_set_err(err, errlen, "parameter `%s`: expected a string, an integer, or an "
			"array of them (e.g. \"a,b\" or [a, b])", name);
	else if (rc < 0)
		wperf_set_err(err, errlen, "parameter `%s`: out of memory", name);
	if (rc != 0) {
		wperf_string_list_free(&l);
		return -1;
	}
	*out = l;
	return 1;
}

int wperf_params_get_string_list(const bt_value *params, const char *name,
				 struct wperf_string_list *out, char *err, size_t errlen)
{
	return get_list(params, name, false, out, err, errlen);
}

static int nonempty(int rc, const char *name, const char *what, struct wperf_string_list *out,
		    char *err, size_t errlen)
{
	if (rc > 0 && out->n == 0) {
		wperf_string_list_free(out);
		wperf_set_err(err, errlen, "parameter `%s`: empty list (give at least one %s, "
			"or omit the parameter)", name, what);
		return -1;
	}
	return rc;
}

int wperf_params_get_nonempty_list(const bt_value *params, const char *name,
				   const char *what, struct wperf_string_list *out,
				   char *err, size_t errlen)
{
	return nonempty(wperf_params_get_string_list(params, name, out, err, errlen), name,
			what, out, err, errlen);
}

static int by_value(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* An id given twice (the list sorted in a copy), or 0 when none is. */
static int64_t twice(const int64_t *ids, size_t n)
{
	int64_t *sorted = malloc(n * sizeof *sorted), found = 0;

	if (!sorted)
		return 0;    /* out of memory: a repeat is harmless, let it pass */
	memcpy(sorted, ids, n * sizeof *sorted);
	qsort(sorted, n, sizeof *sorted, by_value);
	for (size_t i = 1; i < n && !found; i++)
		if (sorted[i] == sorted[i - 1])
			found = sorted[i];
	free(sorted);
	return found;
}

/* One item of an id list: a positive integer, else -1 with err set. */
static int parse_id(const char *name, const char *item, int64_t *out, char *err,
		    size_t errlen)
{
	char *end;

	if (!*item) {
		wperf_set_err(err, errlen, "parameter `%s`: an empty item (two commas in a row, "
			"or one at an end): give ids separated by single commas", name);
		return -1;
	}
	errno = 0;
	*out = strtoll(item, &end, 10);
	if (errno || *end != '\0' || !isdigit((unsigned char)item[0])) {
		wperf_set_err(err, errlen, "parameter `%s`: \"%s\" is not a process or thread id "
			"(expected positive integers, e.g. 1234,1235)", name, item);
		return -1;
	}
	if (*out == 0) {
		wperf_set_err(err, errlen, "parameter `%s`: 0 is not a process or thread id (it "
			"is the idle task): give positive integers", name);
		return -1;
	}
	return 0;
}

int wperf_params_get_id_list(const bt_value *params, const char *name,
			     int64_t **ids, size_t *n, char *err, size_t errlen)
{
	struct wperf_string_list l = { NULL, 0 };
	int rc = nonempty(get_list(params, name, true, &l, err, errlen), name, "id", &l, err,
			  errlen);
	int64_t *v, dup;

	if (rc <= 0)
		return rc;
	v = calloc(l.n, sizeof *v);
	if (!v) {
		wperf_set_err(err, errlen, "parameter `%s`: out of memory", name);
		goto error;
	}
	for (size_t i = 0; i < l.n; i++)
		if (parse_id(name, l.items[i], &v[i], err, errlen) < 0)
			goto error;
	if ((dup = twice(v, l.n))) {
		wperf_set_err(err, errlen, "parameter `%s`: %" PRId64 " is given twice: give "
			"each id once", name, dup);
		goto error;
	}
	*ids = v;
	*n = l.n;
	wperf_string_list_free(&l);
	return 1;
error:
	free(v);
	wperf_string_list_free(&l);
	return -1;
}

bool wperf_id_list_contains(const int64_t *ids, size_t n, int64_t id)
{
	for (size_t i = 0; i < n; i++)
		if (ids[i] == id)
			return true;
	return false;
}

int wperf_parse_rate_bps(const char *s, uint64_t *out)
{
	char *end;
	double v, scale = 1;

	if (!s || !*s)
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	switch (*end) {
	case 'k': case 'K': scale = 1e3; end++; break;
	case 'M': scale = 1e6; end++; break;
	case 'G': scale = 1e9; end++; break;
	case 'T': scale = 1e12; end++; break;
	default: break;
	}
	if (strcmp(end, "B") == 0 || strcmp(end, "Bps") == 0)
		scale *= 8;             /* bytes per second */
	else if (*end && strcmp(end, "b") != 0 && strcmp(end, "bit") != 0 &&
		 strcmp(end, "bps") != 0)
		return -1;
	v *= scale;
	if (v < 1 || v > 1e18)
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}
