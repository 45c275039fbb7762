/* SPDX-License-Identifier: MIT */
/*
 * plugin/waits/waits-select.h — which segments filter.wperf.waits shows: its
 * `pids`, `comms`, `follow-forks` and `states` parameters.
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

#include "common/params.h"
#include "wperf/analysis.h"

struct waits_selection {
	/* `pids` (processes or threads) and `comms` (thread names): a thread
	 * either lists is shown; neither given: every thread. */
	int64_t *ids;
	size_t n_ids;
	struct wperf_string_list comms;
	bool follow_forks;     /* and the threads a listed one forked */
	unsigned states;       /* `states`: one bit per enum wperf_segment_state */
};

/* With follow-forks, per iterator: the thread vertices found shown by
 * lineage (a thread stays shown once its ancestor was listed). */
struct waits_lineage {
	uint8_t *shown;        /* by vertex id */
	size_t n;
};

/* Read `pids`, `comms`, `follow-forks` and `states` from params (all
 * optional). 0, or -1 with a one-line message naming the parameter in err. */
int waits_selection_read(struct waits_selection *sel, const bt_value *params,
			 char *err, size_t errlen);
void waits_selection_fini(struct waits_selection *sel);

/* Whether a thread is listed: by tid, by pid once the trace has said
 * which process it belongs to, or by name (comm). */
static inline bool waits_selection_lists(const struct waits_selection *sel, int64_t tid,
					 int64_t pid, const char *comm)
{
	return wperf_id_list_contains(sel->ids, sel->n_ids, tid) ||
	       (pid >= 0 && wperf_id_list_contains(sel->ids, sel->n_ids, pid)) ||
	       wperf_string_list_contains(&sel->comms, comm);
}

/* With follow-forks: is a thread that forked thread vertex v, directly or
 * not, listed (as the analysis knows the forks now)? */
bool waits_lineage_listed(const struct waits_selection *sel, struct waits_lineage *lin,
			  const struct wperf_analysis *a, uint32_t v);
void waits_lineage_fini(struct waits_lineage *lin);

/* Whether seg is shown: its state is chosen and its thread is listed, or,
 * with follow-forks, one of the threads that forked it. */
static inline bool waits_selection_has(const struct waits_selection *sel,
				       struct waits_lineage *lin,
				       const struct wperf_analysis *a,
				       const struct wperf_segment *seg)
{
	if (!(sel->states & (1u << seg->state)))
		return false;
	if (!sel->ids && !sel->comms.n)
		return true;
	if (waits_selection_lists(sel, seg->tid, seg->pid, seg->comm))
		return true;
	return sel->follow_forks && waits_lineage_listed(sel, lin, a, seg->vertex);
}

/* Whether sel shows every segment (no `pids`, `comms` or `states`). */
bool waits_selection_is_everything(const struct waits_selection *sel);

/* The error when the trace had `closed` segments and none was chosen. */
void waits_selection_explain_none(const struct waits_selection *sel, uint64_t closed,
				  char *err, size_t errlen);

#endif /* WPERF_PLUGIN_WAITS_SELECT_H */
