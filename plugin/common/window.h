/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/window.h — the `begin`, `end` and `gmt` parameters of
 * sink.wperf.knots and filter.wperf.waits: a time window to count, while
 * the whole trace is read (wperf_analysis_set_window).
 *
 * Why not babeltrace2's --begin/--end: its trimmer drops everything before
 * the window, so the statedump, the forks and the comm changes that named
 * the threads and disks never reach the analysis. These parameters take
 * the times the trimmer takes, in its forms, so a user can move from one
 * to the other:
 *
 *   YYYY-MM-DD hh:mm[:ss[.nnnnnnnnn]]   a date and time of day
 *   YYYY-MM-DD                          midnight of that day
 *   hh:mm[:ss[.nnnnnnnnn]]              a time of day, on the date of the
 *                                       trace's first message
 *   [-]s[.nnnnnnnnn]                    seconds from the clock's origin
 *   an integer value                    seconds from the clock's origin
 *
 * Dates and times of day are local time, or UTC with gmt=true.
 */
#ifndef WPERF_PLUGIN_WINDOW_H
#define WPERF_PLUGIN_WINDOW_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum wperf_bound_kind {
	WPERF_BOUND_NONE,         /* not given: the trace's own beginning or end */
	WPERF_BOUND_NS,           /* ns from the clock's origin */
	WPERF_BOUND_TIME_OF_DAY,  /* on the date of the trace's first message */
};

struct wperf_bound {
	enum wperf_bound_kind kind;
	int64_t ns;                         /* WPERF_BOUND_NS */
	unsigned hour, minute, second, nsec; /* WPERF_BOUND_TIME_OF_DAY */
	char spec[64];                      /* as given, for messages */
};

struct wperf_window {
	struct wperf_bound begin, end;
	bool gmt;
};

/* Whether any bound was given. */
static inline bool wperf_window_given(const struct wperf_window *w)
{
	return w->begin.kind != WPERF_BOUND_NONE || w->end.kind != WPERF_BOUND_NONE;
}

/* One bound in the forms above; 0, or -1 if malformed. */
int wperf_bound_parse(const char *s, bool gmt, struct wperf_bound *out);

/* Read `begin`, `end` and `gmt` (all optional) into *w (zeroed first).
 * 0, or -1 with a one-line message naming the parameter in err: a
 * malformed time, or an end before the beginning when both are known. */
int wperf_params_get_window(const bt_value *params, struct wperf_window *w, char *err,
			    size_t errlen);

/* The window in ns from the origin, INT64_MIN / INT64_MAX for open ends;
 * first_ns: the time of the trace's first message, for times of day.
 * 0, or -1 with a one-line message in err (an end before the beginning). */
int wperf_window_resolve(const struct wperf_window *w, int64_t first_ns, int64_t *begin,
			 int64_t *end, char *err, size_t errlen);

/* Whether two windows are given the same way (so they count the same). */
bool wperf_window_equal(const struct wperf_window *a, const struct wperf_window *b);

#endif /* WPERF_PLUGIN_WINDOW_H */
