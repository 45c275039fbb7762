/* SPDX-License-Identifier: MIT */
/*
 * report-cases.h — hand-built graphs with their knots, ready to be written
 * as reports: shared by test-report.c (checks the text and JSON writers)
 * and report-dump.c (writes JSON for the schema validation test).
 */
#ifndef WPERF_TEST_REPORT_CASES_H
#define WPERF_TEST_REPORT_CASES_H

#include "wperf/report.h"

struct report_case {
	struct wperf_graph g;
	struct wperf_knots knots;
	struct wperf_classes classes;   /* the knots' classifications, as the sink makes them */
	bool *focus;
	struct wperf_report r;
};

/* NULL-terminated list of the case names. */
extern const char *const report_case_names[];

/* Build case `name`: 0, or -1 for an unknown name or a failure. */
int report_case_build(const char *name, struct report_case *c);
void report_case_free(struct report_case *c);

#endif
