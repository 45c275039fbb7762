/*
 * report-html.h — the parts of the HTML page drawn by report-timeline.c:
 * a finding's timeline and an edge's details (histogram, call stacks).
 */
#ifndef WPERF_REPORT_HTML_H
#define WPERF_REPORT_HTML_H

#include <stdio.h>

#include "wperf/report.h"

/* The timeline of finding i (r->knots->items[i]): a row per member. */
void wperf_html_timeline(FILE *out, const struct wperf_report *r, size_t i);

/* <details> with the edge's wait-length histogram and heaviest stacks. */
void wperf_html_edge_details(FILE *out, const struct wperf_graph *g,
			     const struct wperf_edge *e);

#endif /* WPERF_REPORT_HTML_H */
