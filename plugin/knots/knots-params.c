/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-params.c — sink.wperf.knots's parameters: each read,
 * checked and turned into the component's state (knots-sink.h, struct
 * knots_sink) at initialization, before any message is read, so that a
 * mistake is a one-line error and not a report cut short. Their meaning
 * is documented in babeltrace2-sink.wperf.knots(7) and summarised in the
 * component's help (knots-sink.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "wperf/report.h"
#include "knots-sink.h"

static int read_format(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "format", &v, err, sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	static const char *const names[] = {
		[FORMAT_TEXT] = "text", [FORMAT_JSON] = "json", [FORMAT_DOT] = "dot",
		[FORMAT_SVG] = "svg", [FORMAT_HTML] = "html", [FORMAT_GRAPHML] = "graphml",
	};
	size_t i = 0, n = sizeof names / sizeof names[0];

	s->format = FORMAT_TEXT;
	if (rc == 0)
		return 0;
	while (i < n && strcmp(v, names[i]) != 0)
		i++;
	if (i == n) {
		sink_fail(s, "parameter `format`: unknown value \"%s\" (expected text, json, dot, "
			  "svg, html or graphml)", v);
		return -1;
	}
	s->format = (enum report_format)i;
	/* Say so now rather than after reading a long trace. (html does
	 * without: the page says why it has no picture.) */
	if (s->format == FORMAT_SVG && !wperf_graphviz_available()) {
		sink_fail(s, "parameter `format`: svg needs Graphviz's `dot`, which is not on "
			  "PATH: install it (apt-get install graphviz) or use format=dot");
		return -1;
	}
	if (s->format == FORMAT_GRAPHML && !wperf_report_graphml_available()) {
		sink_fail(s, "parameter `format`: graphml needs libxml2 (libxml2.so.2), which "
			  "cannot be loaded: install it (apt-get install libxml2) or use format=json");
		return -1;
	}
	return 0;
}

/* Refuse early, before a long trace is read, a path that names a
 * directory or that cannot be written: the report's temporary file is
 * made and removed there, so the reason is the file system's own. */
static int check_path_writable(struct knots_sink *s, const char *path)
{
	struct stat st;
	char err[1024];

	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		sink_fail(s, "parameter `path`: `%s` is a directory (give a file name)", path);
		return -1;
	}
	if (wperf_output_check(path, err, sizeof err) < 0) {
		sink_fail(s, "parameter `path`: %s", err);
		return -1;
	}
	return 0;
}

static int read_path(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "path", &v, err, sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (rc == 0 || strcmp(v, "-") == 0)
		return 0;
	if (v[0] == '\0') {
		sink_fail(s, "parameter `path`: empty file name (omit it, or give `-`, for "
			  "standard output)");
		return -1;
	}
	if (check_path_writable(s, v) < 0)
		return -1;
	s->path = strdup(v);
	if (!s->path) {
		sink_fail(s, "parameter `path`: out of memory");
		return -1;
	}
	return 0;
}

/* "20%", "12.5 %": a share of the analysed duration. 0 or -1. */
static int parse_percent(const char *v, double *out)
{
	char *end;
	double p;

	p = strtod(v, &end);
	if (end == v)
		return -1;
	while (*end == ' ')
		end++;
	if (*end != '%' || end[1] != '\0' || !(p >= 0 && p <= 100))
		return -1;
	*out = p;
	return 0;
}

/* The parameter name, a duration or a percentage of the analysed duration
 * (default_spec when absent), into *t. */
static int read_weight_limit(struct knots_sink *s, const bt_value *params,
			     const char *name, const char *default_spec,
			     struct weight_limit *t)
{
	const bt_value *v = bt_value_is_map(params)
		? bt_value_map_borrow_entry_value_const(params, name) : NULL;
	const char *spec = v && bt_value_is_string(v) ? bt_value_string_get(v) : default_spec;
	char err[512];

	if (!v || (bt_value_is_string(v) && strchr(spec, '%'))) {
		if (parse_percent(spec, &t->percent) < 0) {
			sink_fail(s, "parameter `%s`: \"%s\" is not a percentage between "
				  "0%% and 100%% (e.g. \"%s\")", name, spec, default_spec);
			return -1;
		}
		t->is_percent = true;
		snprintf(t->spec, sizeof t->spec, "%s", spec);
		return 0;
	}
	if (wperf_params_get_duration_ns(params, name, &t->ns, err, sizeof err) < 0) {
		sink_fail(s, "%s, or a percentage of the analysed duration such as \"%s\"",
			  err, default_spec);
		return -1;
	}
	t->is_percent = false;
	if (bt_value_is_string(v))
		snprintf(t->spec, sizeof t->spec, "%s", spec);
	else
		snprintf(t->spec, sizeof t->spec, "%.9gs", (double)t->ns / 1e9);
	return 0;
}

static int read_pids(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_id_list(params, "pids", &s->pids, &s->n_pids, err,
				     sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

static int read_comms(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_nonempty_list(params, "comms", "thread name", &s->comms, err,
					   sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* follow-forks=true: a focus on a command takes in the processes it
 * started (a wrapper script's program, a forking server's workers). */
static int read_follow_forks(struct knots_sink *s, const bt_value *params)
{
	char err[512];
	int rc = wperf_params_get_bool(params, "follow-forks", &s->follow_forks, err,
				       sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (rc > 0 && s->follow_forks && s->n_pids == 0 && s->comms.n == 0) {
		sink_fail(s, "parameter `follow-forks`: there is no focus to follow "
			  "(give `pids` or `comms` too)");
		return -1;
	}
	return 0;
}

/* nic-capacity="eth0=1Gbit,lo=10Gbit": link speeds, without which a
 * NIC's idle time is unknown (we never assume one). */
static int read_nic_capacity(struct knots_sink *s, const bt_value *params)
{
	char err[512];
	int rc = wperf_params_get_string_list(params, "nic-capacity", &s->nic_capacity,
					      err, sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < s->nic_capacity.n; i++) {
		const char *item = s->nic_capacity.items[i];
		const char *eq = strchr(item, '=');
		uint64_t bps;

		if (!eq || eq == item || wperf_parse_rate_bps(eq + 1, &bps) < 0) {
			sink_fail(s, "parameter `nic-capacity`: \"%s\" is not DEVICE=SPEED "
				  "(e.g. \"eth0=1Gbit,lo=10Gbit\"; units bit/s or B/s with k, M, "
				  "G, T)",
				  item);
			return -1;
		}
	}
	return 0;
}

/* host-clocks="VM3:ALPHA:Y0:X0:ACC:MOVED,...": hosts' clocks put on the
 * reference host's (plugin/common/hosts.h); checked when the decoder
 * takes them. */
static int read_host_clocks(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_string_list(params, "host-clocks", &s->host_clocks, err,
					 sizeof err) < 0 ||
	    wperf_params_get_string_list(params, "sync-hosts", &s->sync_hosts, err,
					 sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (s->host_clocks.n && s->sync_hosts.n) {
		sink_fail(s, "parameter `sync-hosts`: cannot be combined with `host-clocks` "
			  "(the clocks are either given or synchronised here)");
		return -1;
	}
	return 0;
}

static int sink_apply_nic_capacity(struct knots_sink *s, struct wperf_analysis *a)
{
	for (size_t i = 0; i < s->nic_capacity.n; i++) {
		char dev[64];
		const char *item = s->nic_capacity.items[i];
		const char *eq = strchr(item, '=');
		uint64_t bps = 0;

		snprintf(dev, sizeof dev, "%.*s", (int)(eq - item), item);
		wperf_parse_rate_bps(eq + 1, &bps);   /* checked by read_nic_capacity */
		if (wperf_analysis_set_nic_capacity(a, dev, bps) < 0)
			return -1;
	}
	return 0;
}

/* The analysis this sink reads (its own, or the one it claimed from a
 * filter.wperf.waits): the link speeds given, and the timelines only the
 * HTML page draws (wperf_analysis_keep_timelines: up to 7 KiB per thread). */
int sink_setup_analysis(struct knots_sink *s, struct wperf_analysis *a)
{
	wperf_analysis_keep_timelines(a, s->format == FORMAT_HTML);
	return sink_apply_nic_capacity(s, a);
}

/* merge=pool|none|process|name|stack and short-lived=merge|keep
 * (wperf/merge.h). Pools are merged unless told otherwise: an unmerged
 * pool of equal workers splits its weight among them, and refinement
 * keeps a different subset of them on every run. Short-lived children
 * are merged by default in a focused report (knots-report.c). */
static int read_merge(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "merge", &v, err, sizeof err);

	s->merge.key = WPERF_MERGE_POOL;

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (rc > 0 && wperf_merge_key_parse(v, &s->merge.key) < 0) {
		sink_fail(s, "parameter `merge`: unknown value \"%s\" (expected pool, none, "
			  "process, name or stack)", v);
		return -1;
	}
	rc = wperf_params_get_string(params, "short-lived", &v, err, sizeof err);
	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	s->merge.short_lived = rc > 0 && strcmp(v, "merge") == 0;
	s->short_lived_given = rc > 0;
	if (rc > 0 && !s->merge.short_lived && strcmp(v, "keep") != 0) {
		sink_fail(s, "parameter `short-lived`: unknown value \"%s\" (expected merge "
			  "or keep)", v);
		return -1;
	}
	return 0;
}

/* A share (\"10%\") into parts per million; default_spec when absent. */
static int read_ppm(struct knots_sink *s, const bt_value *params, const char *name,
		    const char *default_spec, int64_t *ppm)
{
	const char *v = default_spec;
	char err[512];
	double p;
	int rc = wperf_params_get_string(params, name, &v, err, sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (rc == 0)
		v = default_spec;
	if (parse_percent(v, &p) < 0) {
		sink_fail(s, "parameter `%s`: \"%s\" is not a percentage between 0%% and 100%% "
			  "(e.g. \"%s\")", name, v, default_spec);
		return -1;
	}
	*ppm = (int64_t)(p * 10000.0 + 0.5);
	return 0;
}

/* knot-rule, leave-ratio and tie-tolerance (wperf/knots.h). */
static int read_knot_rule(struct knots_sink *s, const bt_value *params)
{
	const char *v = NULL;
	char err[512];
	int rc = wperf_params_get_string(params, "knot-rule", &v, err, sizeof err);

	if (rc < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	s->strict_rule = rc > 0 && strcmp(v, "strict") == 0;
	if (rc > 0 && !s->strict_rule && strcmp(v, "dominant") != 0) {
		sink_fail(s, "parameter `knot-rule`: unknown value \"%s\" (expected dominant or "
			  "strict)", v);
		return -1;
	}
	if (read_ppm(s, params, "leave-ratio", DEFAULT_LEAVE_RATIO, &s->leave_ppm) < 0 ||
	    read_ppm(s, params, "tie-tolerance", DEFAULT_TIE_TOLERANCE, &s->tie_ppm) < 0)
		return -1;
	if (s->strict_rule)
		s->leave_ppm = 0;
	return 0;
}

/* begin, end and gmt: the time window counted (window.h). */
static int read_window(struct knots_sink *s, const bt_value *params)
{
	char err[512];

	if (wperf_params_get_window(params, &s->window, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* every=DURATION: periodic reports, text or json only (a stream of
 * pictures or pages would be no use). */
static int read_every(struct knots_sink *s, const bt_value *params)
{
	const bt_value *v = bt_value_is_map(params)
		? bt_value_map_borrow_entry_value_const(params, "every") : NULL;
	char err[512];

	if (!v)
		return 0;
	if (wperf_params_get_duration_ns(params, "every", &s->every_ns, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (s->every_ns <= 0) {
		sink_fail(s, "parameter `every`: the period must be longer than 0 (e.g. \"5s\")");
		return -1;
	}
	if (s->format != FORMAT_TEXT && s->format != FORMAT_JSON) {
		sink_fail(s, "parameter `every`: periodic reports are text or json, not %s",
			  s->format == FORMAT_DOT ? "dot" : s->format == FORMAT_SVG ? "svg" :
			  s->format == FORMAT_HTML ? "html" : "graphml");
		return -1;
	}
	if (wperf_window_given(&s->window)) {
		sink_fail(s, "parameter `every`: cannot be combined with begin/end (every= "
			  "reports periods of the whole input)");
		return -1;
	}
	return 0;
}

int sink_read_params(struct knots_sink *s, const bt_value *params)
{
	static const char *const known[] = {
		"format", "path", "threshold", "min-weight", "pids", "comms", "nic-capacity",
		"merge", "short-lived", "follow-forks", "knot-rule", "leave-ratio",
		"tie-tolerance", "begin", "end", "gmt", "every", "host-clocks", "sync-hosts", NULL
	};
	char err[512];

	if (wperf_params_check_known(params, known, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	if (read_format(s, params) < 0 || read_path(s, params) < 0 ||
	    read_weight_limit(s, params, "threshold", DEFAULT_THRESHOLD, &s->threshold) < 0 ||
	    read_weight_limit(s, params, "min-weight", DEFAULT_MIN_WEIGHT, &s->min_weight) < 0 ||
	    read_knot_rule(s, params) < 0 ||
	    read_pids(s, params) < 0 || read_nic_capacity(s, params) < 0 ||
	    read_host_clocks(s, params) < 0 ||
	    read_comms(s, params) < 0 || read_follow_forks(s, params) < 0 ||
	    read_merge(s, params) < 0 || read_window(s, params) < 0 ||
	    read_every(s, params) < 0)
		return -1;
	return 0;
}
