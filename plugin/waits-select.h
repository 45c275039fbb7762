/*
 * plugin/waits-select.h — which segments filter.wperf.waits shows: its
 * `pids`, `comms` and `states` parameters.
 *
 * The choice is only of the `wperf:segment` events. The analysis behind
 * them still sees every thread: a wait's waker, its cascaded weight, and
 * the knots a sink.wperf.knots reports from the same analysis all need the
 * threads that are not shown.
 */
#ifndef WPERF_PLUGIN_WAITS_SELECT_H
#define WPERF_PLUGIN_WAITS_SELECT_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "params.h"
#include "wperf/analysis.h"

struct waits_selection {
	/* `pids` (processes or threads) and `comms` (thread names): a thread
	 * either lists is shown; neither given: every thread. */
	int64_t *ids;
	size_t n_ids;
	struct wperf_string_list comms;
	unsigned states;       /* `states`: one bit per enum wperf_segment_state */
};

/* Read `pids`, `comms` and `states` from params (all optional). 0, or -1
 * with a one-line message naming the parameter in err. */
int waits_selection_read(struct waits_selection *sel, const bt_value *params,
			 char *err, size_t errlen);
void waits_selection_fini(struct waits_selection *sel);

/* Whether seg is shown: its state is chosen and its thread is listed, by
 * tid, by pid once the trace has said which process it belongs to, or by
 * name (comm). */
static inline bool waits_selection_has(const struct waits_selection *sel,
				       const struct wperf_segment *seg)
{
	if (!(sel->states & (1u << seg->state)))
		return false;
	if (!sel->ids && !sel->comms.n)
		return true;
	return wperf_id_list_contains(sel->ids, sel->n_ids, seg->tid) ||
	       (seg->pid >= 0 && wperf_id_list_contains(sel->ids, sel->n_ids, seg->pid)) ||
	       wperf_string_list_contains(&sel->comms, seg->comm);
}

/* The error when the trace had `closed` segments and none was chosen. */
void waits_selection_explain_none(const struct waits_selection *sel, uint64_t closed,
				  char *err, size_t errlen);

#endif /* WPERF_PLUGIN_WAITS_SELECT_H */
