/*
 * plugin/waits-select.c — filter.wperf.waits' `pids` and `states`
 * parameters (see waits-select.h).
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "params.h"
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
	int rc = wperf_params_get_string_list(params, "states", &l, err, errlen);

	if (rc <= 0) {
		sel->states = ALL_STATES;
		return rc;
	}
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
	if (rc > 0 && sel->states == 0) {
		wperf_set_err(err, errlen, "parameter `states`: empty list (give at least "
			"one of running, runnable, waiting, or omit the parameter)");
		rc = -1;
	}
	wperf_string_list_free(&l);
	return rc < 0 ? -1 : 0;
}

int waits_selection_read(struct waits_selection *sel, const bt_value *params,
			 char *err, size_t errlen)
{
	*sel = (struct waits_selection){ NULL, 0, ALL_STATES };
	if (wperf_params_get_id_list(params, "pids", &sel->ids, &sel->n_ids, err, errlen) < 0 ||
	    read_states(sel, params, err, errlen) < 0) {
		waits_selection_fini(sel);
		return -1;
	}
	return 0;
}

void waits_selection_fini(struct waits_selection *sel)
{
	free(sel->ids);
	sel->ids = NULL;
	sel->n_ids = 0;
}

void waits_selection_explain_none(const struct waits_selection *sel, uint64_t closed,
				  char *err, size_t errlen)
{
	bool by_id = sel->ids != NULL, by_state = sel->states != ALL_STATES;

	wperf_set_err(err, errlen, "%s: none of the trace's %llu segments %s%s%s (run the "
		"filter without %s to see them all)",
		by_id && by_state ? "parameters `pids` and `states`"
			: by_id ? "parameter `pids`" : "parameter `states`",
		(unsigned long long)closed,
		by_id ? "belongs to a listed process or thread" : "",
		by_id && by_state ? " in a listed state" : "",
		!by_id ? "is in a listed state" : "",
		by_id && by_state ? "them" : "it");
}
