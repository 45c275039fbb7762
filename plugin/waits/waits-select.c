/* SPDX-License-Identifier: MIT */
/*
 * plugin/waits/waits-select.c — filter.wperf.waits' `pids`, `comms` and
 * `states` parameters (see waits-select.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/error.h"
#include "common/params.h"
#include "waits-select.h"

#define N_STATES (WPERF_SEG_WAITING + 1)
#define ALL_STATES ((1u << N_STATES) - 1)

/* The state named s, or -1. */
static int state_of(const char *s)
{
	for (int i = 0; i < N_STATES; i++)
		if (strcmp(s, wperf_segment_state_name((enum wperf_segment_state)i)) == 0)
			return i;
	return -1;
}

static int read_states(struct waits_selection *sel, const bt_value *params,
		       char *err, size_t errlen)
{
	struct wperf_string_list l = { NULL, 0 };
	int rc = wperf_params_get_nonempty_list(params, "states",
		"of running, runnable, waiting", &l, err, errlen);

	if (rc <= 0)
		return rc;    /* not given: every state, as initialised */
	sel->states = 0;
	for (size_t i = 0; i < l.n; i++) {
		int st = state_of(l.items[i]);

		if (st < 0) {
			wperf_set_err(err, errlen, "parameter `states`: \"%s\" is not a segment "
				"state (expected running, runnable and/or waiting)", l.items[i]);
			rc = -1;
			break;
		}
		sel->states |= 1u << st;
	}
	wperf_string_list_free(&l);
	return rc < 0 ? -1 : 0;
}

int waits_selection_read(struct waits_selection *sel, const bt_value *params,
			 char *err, size_t errlen)
{
	*sel = (struct waits_selection){ .states = ALL_STATES };
	if (wperf_params_get_id_list(params, "pids", &sel->ids, &sel->n_ids, err, errlen) < 0 ||
	    wperf_params_get_nonempty_list(params, "comms", "thread name", &sel->comms,
					   err, errlen) < 0 ||
	    wperf_params_get_bool(params, "follow-forks", &sel->follow_forks, err, errlen) < 0 ||
	    read_states(sel, params, err, errlen) < 0) {
		waits_selection_fini(sel);
		return -1;
	}
	if (sel->follow_forks && !sel->ids && !sel->comms.n) {
		wperf_set_err(err, errlen, "parameter `follow-forks`: there is no choice of "
			      "threads to follow (give `pids` or `comms` too)");
		waits_selection_fini(sel);
		return -1;
	}
	return 0;
}

/* Deep enough for any real process tree; a longer chain is a parent loop
 * of a corrupt trace. */
#define LINEAGE_MAX_DEPTH 4096

static void lineage_mark(struct waits_lineage *lin, uint32_t v)
{
	if (v >= lin->n) {
		size_t n = lin->n ? lin->n : 256;
		uint8_t *p;

		while (n <= v)
			n *= 2;
		p = realloc(lin->shown, n);
		if (!p)
			return;     /* not remembered: asked again next time, slower, not wrong */
		memset(p + lin->n, 0, n - lin->n);
		lin->shown = p;
		lin->n = n;
	}
	lin->shown[v] = 1;
}

bool waits_lineage_listed(const struct waits_selection *sel, struct waits_lineage *lin,
			  const struct wperf_analysis *a, uint32_t v)
{
	uint32_t path[64];
	size_t n_path = 0;
	struct wperf_thread_info info;
	bool listed = false;

	if (v < lin->n && lin->shown[v])
		return true;
	if (wperf_analysis_thread_info(a, v, &info) < 0)
		return false;
	/* Up the forks, one look-up per ancestor: info is always u's child's. */
	for (uint32_t u, depth = 0; depth < LINEAGE_MAX_DEPTH && info.forked_by != UINT32_MAX;
	     depth++) {
		u = info.forked_by;
		if (n_path < sizeof path / sizeof *path)
			path[n_path++] = u;
		if (u < lin->n && lin->shown[u]) {
			listed = true;
			break;
		}
		if (wperf_analysis_thread_info(a, u, &info) < 0)
			break;
		if (waits_selection_lists(sel, info.tid, info.pid, info.comm)) {
			listed = true;
			break;
		}
	}
	if (!listed)
		return false;
	lineage_mark(lin, v);
	for (size_t i = 0; i < n_path; i++)
		lineage_mark(lin, path[i]);
	return true;
}

void waits_lineage_fini(struct waits_lineage *lin)
{
	free(lin->shown);
	*lin = (struct waits_lineage){ NULL, 0 };
}

void waits_selection_fini(struct waits_selection *sel)
{
	free(sel->ids);
	sel->ids = NULL;
	sel->n_ids = 0;
	wperf_string_list_free(&sel->comms);
}

bool waits_selection_is_everything(const struct waits_selection *sel)
{
	return !sel->ids && !sel->comms.n && sel->states == ALL_STATES;
}

void waits_selection_explain_none(const struct waits_selection *sel, uint64_t closed,
				  char *err, size_t errlen)
{
	bool by_thread = sel->ids || sel->comms.n, by_state = sel->states != ALL_STATES;
	const char *threads = sel->ids && sel->comms.n ? "`pids`/`comms`"
			      : sel->ids ? "`pids`" : "`comms`";
	char names[64];

	if (by_thread && by_state)
		snprintf(names, sizeof names, "parameters %s and `states`", threads);
	else
		snprintf(names, sizeof names, "parameter %s", by_thread ? threads : "`states`");
	wperf_set_err(err, errlen, "%s: none of the trace's %llu segments %s%s%s (run the "
		"filter without %s to see them all)",
		names, (unsigned long long)closed,
		by_thread ? "belongs to a listed thread or process" : "",
		by_thread && by_state ? " in a listed state" : "",
		!by_thread ? "is in a listed state" : "",
		by_thread && by_state ? "them" : "it");
}
