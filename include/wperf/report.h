/*
 * wperf/report.h — the knot report: the graph, its knots, and the writers
 * that print them for a person (text) or a script (JSON, doc/wperf-report.7.md).
 */
#ifndef WPERF_REPORT_H
#define WPERF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "wperf/graph.h"
#include "wperf/knots.h"

struct wperf_report {
	const struct wperf_graph *graph;
	const struct wperf_knots *knots;
	int64_t threshold_ns;          /* the termination threshold in force */
	const char *threshold_spec;    /* as the user gave it, e.g. "20%" */
	int64_t min_weight_ns;         /* the noise floor for knot finding */
	const char *min_weight_spec;   /* as the user gave it, e.g. "1%" */
	const bool *focus;             /* NULL: everything; else per vertex id */
};

/* Both return 0, or -1 when writing failed (errno set). */
int wperf_report_write_text(const struct wperf_report *r, FILE *out);
int wperf_report_write_json(const struct wperf_report *r, FILE *out);

#endif /* WPERF_REPORT_H */
