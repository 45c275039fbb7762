/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/window.c — the `begin`, `end` and `gmt` parameters (window.h):
 * babeltrace2's trimmer forms of a time, parsed by hand (no regex
 * library), and resolved to ns from the clock's origin.
 */
#define _DEFAULT_SOURCE   /* timegm */
#include "window.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "params.h"

#define NS_PER_S 1000000000LL

/* Exactly n decimal digits at *p (n == 0: one or more, up to 19). */
static bool digits(const char **p, int n, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int got = 0;

	while (*s >= '0' && *s <= '9' && (n ? got < n : got < 19)) {
		v = v * 10 + (uint64_t)(*s - '0');
		s++;
		got++;
	}
	if (got == 0 || (n && got != n) || (!n && *s >= '0' && *s <= '9'))
		return false;
	*p = s;
	*out = v;
	return true;
}

/* ".nnnnnnnnn" (one to nine digits, a fraction of a second) if present:
 * ".5" is half a second, as for the trimmer. */
static bool fraction(const char **p, unsigned *nsec)
{
	const char *s = *p;
	unsigned v = 0, got = 0;

	*nsec = 0;
	if (*s != '.')
		return true;
	s++;
	while (*s >= '0' && *s <= '9' && got < 9) {
		v = v * 10 + (unsigned)(*s - '0');
		s++;
		got++;
	}
	if (got == 0 || (*s >= '0' && *s <= '9'))
		return false;
	for (; got < 9; got++)
		v *= 10;
	*nsec = v;
	*p = s;
	return true;
}

/* "hh:mm[:ss[.nnnnnnnnn]]" */
static bool time_of_day(const char **p, struct wperf_bound *b)
{
	uint64_t h, m, sec = 0;

	if (!digits(p, 2, &h) || **p != ':')
		return false;
	(*p)++;
	if (!digits(p, 2, &m))
		return false;
	b->nsec = 0;
	if (**p == ':') {
		(*p)++;
		if (!digits(p, 2, &sec) || !fraction(p, &b->nsec))
			return false;
	}
	if (h > 23 || m > 59 || sec > 60)
		return false;
	b->hour = (unsigned)h;
	b->minute = (unsigned)m;
	b->second = (unsigned)sec;
	return true;
}

/* A date and time of day, local or UTC, into ns from the epoch. */
static bool to_ns(int year, int month, int day, const struct wperf_bound *t, bool gmt,
		  int64_t *ns)
{
	struct tm tm = {
		.tm_sec = (int)t->second, .tm_min = (int)t->minute, .tm_hour = (int)t->hour,
		.tm_mday = day, .tm_mon = month - 1, .tm_year = year - 1900, .tm_isdst = -1,
	};
	time_t secs = gmt ? timegm(&tm) : mktime(&tm);

	if (secs == (time_t)-1 || secs > INT64_MAX / NS_PER_S - 1 || secs < INT64_MIN / NS_PER_S + 1)
		return false;
	*ns = (int64_t)secs * NS_PER_S + t->nsec;
	return true;
}

/* "[-]s[.nnnnnnnnn]": seconds from the origin. */
static bool seconds(const char *s, int64_t *ns)
{
	bool neg = *s == '-';
	uint64_t whole;
	unsigned nsec;

	if (neg)
		s++;
	if (!digits(&s, 0, &whole) || !fraction(&s, &nsec) || *s != '\0' ||
	    whole > (uint64_t)(INT64_MAX / NS_PER_S) - 1)
		return false;
	*ns = (int64_t)whole * NS_PER_S + nsec;
	if (neg)
		*ns = -*ns;
	return true;
}

int wperf_bound_parse(const char *s, bool gmt, struct wperf_bound *out)
{
	const char *p = s;
	uint64_t y, mo, d;

	memset(out, 0, sizeof *out);
	snprintf(out->spec, sizeof out->spec, "%s", s);
	/* A date: 4 digits then '-'. */
	if (strlen(s) >= 10 && s[4] == '-') {
		struct wperf_bound t = { 0 };

		if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
		    !digits(&p, 2, &d) || mo < 1 || mo > 12 || d < 1 || d > 31)
			return -1;
		if (*p == ' ') {
			p++;
			if (!time_of_day(&p, &t))
				return -1;
		}
		if (*p != '\0' || !to_ns((int)y, (int)mo, (int)d, &t, gmt, &out->ns))
			return -1;
		out->kind = WPERF_BOUND_NS;
		return 0;
	}
	/* A time of day: 2 digits then ':'. */
	if (strlen(s) >= 5 && s[2] == ':') {
		if (!time_of_day(&p, out) || *p != '\0')
			return -1;
		out->kind = WPERF_BOUND_TIME_OF_DAY;
		return 0;
	}
	if (!seconds(s, &out->ns))
		return -1;
	out->kind = WPERF_BOUND_NS;
	return 0;
}

/* One bound from params: a string in the forms above, or an integer
 * (seconds). 0 absent or read, -1 with err set. */
static int get_bound(const bt_value *params, const char *name, bool gmt,
		     struct wperf_bound *b, char *err, size_t errlen)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(params, name);
	char text[64];
	const char *s = text;

	if (!v)
		return 0;
	if (bt_value_is_signed_integer(v))
		snprintf(text, sizeof text, "%" PRId64, bt_value_integer_signed_get(v));
	else if (bt_value_is_unsigned_integer(v))
		snprintf(text, sizeof text, "%" PRIu64, bt_value_integer_unsigned_get(v));
	else if (bt_value_is_string(v))
		s = bt_value_string_get(v);
	else {
		wperf_set_err(err, errlen, "parameter `%s`: expected a time (a string such as "
			      "\"12:30:05.25\" or \"1521484760.5\", or an integer of seconds)",
			      name);
		return -1;
	}
	if (wperf_bound_parse(s, gmt, b) < 0) {
		wperf_set_err(err, errlen, "parameter `%s`: \"%.64s\" is not a time (expected "
			      "\"YYYY-MM-DD hh:mm[:ss[.ns]]\", \"YYYY-MM-DD\", "
			      "\"hh:mm[:ss[.ns]]\" or seconds from the clock's origin "
			      "\"[-]s[.ns]\", as babeltrace2 --begin/--end)", name, s);
		return -1;
	}
	return 0;
}

static int64_t time_of_day_ns(const struct wperf_bound *b)
{
	return ((int64_t)b->hour * 3600 + b->minute * 60 + b->second) * NS_PER_S + b->nsec;
}

static void inverted(const struct wperf_window *w, char *err, size_t errlen)
{
	wperf_set_err(err, errlen, "parameter `end`: \"%s\" is before `begin` \"%s\" "
		      "(an empty time window)", w->end.spec, w->begin.spec);
}

int wperf_params_get_window(const bt_value *params, struct wperf_window *w, char *err,
			    size_t errlen)
{
	memset(w, 0, sizeof *w);
	if (!params || !bt_value_is_map(params))
		return 0;
	if (wperf_params_get_bool(params, "gmt", &w->gmt, err, errlen) < 0)
		return -1;
	if (get_bound(params, "begin", w->gmt, &w->begin, err, errlen) < 0 ||
	    get_bound(params, "end", w->gmt, &w->end, err, errlen) < 0)
		return -1;
	/* Both of one kind: their order is known now (times of day share
	 * the trace's date). */
	if (w->begin.kind == w->end.kind && w->begin.kind != WPERF_BOUND_NONE &&
	    (w->begin.kind == WPERF_BOUND_NS ? w->begin.ns > w->end.ns
	     : time_of_day_ns(&w->begin) > time_of_day_ns(&w->end))) {
		inverted(w, err, errlen);
		return -1;
	}
	return 0;
}

/* A time of day on the date of first_ns (local, or UTC with gmt). */
static bool on_date_of(const struct wperf_bound *b, int64_t first_ns, bool gmt, int64_t *ns)
{
	time_t secs = (time_t)(first_ns / NS_PER_S);
	struct tm tm;

	if (!(gmt ? gmtime_r(&secs, &tm) : localtime_r(&secs, &tm)))
		return false;
	return to_ns(tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, b, gmt, ns);
}

static int resolve_bound(const struct wperf_bound *b, const char *name, int64_t first_ns,
			 bool gmt, int64_t open, int64_t *ns, char *err, size_t errlen)
{
	switch (b->kind) {
	case WPERF_BOUND_NONE:
		*ns = open;
		return 0;
	case WPERF_BOUND_NS:
		*ns = b->ns;
		return 0;
	default:
		if (on_date_of(b, first_ns, gmt, ns))
			return 0;
		wperf_set_err(err, errlen, "parameter `%s`: cannot place \"%s\" on the date of "
			      "the trace's first message (%" PRId64 " ns from the origin)", name,
			      b->spec, first_ns);
		return -1;
	}
}

int wperf_window_resolve(const struct wperf_window *w, int64_t first_ns, int64_t *begin,
			 int64_t *end, char *err, size_t errlen)
{
	if (resolve_bound(&w->begin, "begin", first_ns, w->gmt, INT64_MIN, begin, err,
			  errlen) < 0 ||
	    resolve_bound(&w->end, "end", first_ns, w->gmt, INT64_MAX, end, err, errlen) < 0)
		return -1;
	if (*begin > *end) {
		inverted(w, err, errlen);
		return -1;
	}
	return 0;
}

bool wperf_window_equal(const struct wperf_window *a, const struct wperf_window *b)
{
	const struct wperf_bound *x[2] = { &a->begin, &a->end }, *y[2] = { &b->begin, &b->end };

	if (wperf_window_given(a) != wperf_window_given(b))
		return false;
	if (!wperf_window_given(a))
		return true;
	for (int i = 0; i < 2; i++)
		if (x[i]->kind != y[i]->kind || x[i]->ns != y[i]->ns ||
		    (x[i]->kind == WPERF_BOUND_TIME_OF_DAY &&
		     time_of_day_ns(x[i]) != time_of_day_ns(y[i])))
			return false;
	return a->gmt == b->gmt;
}
