/* SPDX-License-Identifier: MIT */
/*
 * report-html.h — what the files of the HTML page share: the labels
 * (report-html-labels.c), the parts drawn by report-timeline.c (a finding's
 * timeline and an edge's details: histogram, call stacks), and the
 * sortable tables of report-html-tables.c.
 */
#ifndef WPERF_REPORT_HTML_H
#define WPERF_REPORT_HTML_H

#include <stdbool.h>
#include <stdio.h>

#include "report-format.h"
#include "wperf/report.h"

/* report-html-labels.c: labels */

/* The vertex's label (wperf_fmt_vertex_label), escaped. */
void wperf_html_vertex_label(FILE *out, const struct wperf_graph *g, uint32_t id);

/* The knot's members' labels, separated by ", ". */
void wperf_html_members(FILE *out, const struct wperf_graph *g, const struct wperf_knot *k);

/* report-timeline.c: a finding's timeline, an edge's details */

/* The timeline of finding i (r->knots->items[i]): a row per member. */
void wperf_html_timeline(FILE *out, const struct wperf_report *r, size_t i);

/* <details> with the edge's wait-length histogram and heaviest stacks. */
void wperf_html_edge_details(FILE *out, const struct wperf_graph *g,
			     const struct wperf_edge *e);

/* report-html-tables.c: the sortable tables. m maps edges and vertices
 * to their knots; reach is the focus's reach (NULL: no focus, every row). */

void wperf_html_knots_table(FILE *out, const struct wperf_report *r);
void wperf_html_edges_table(FILE *out, const struct wperf_report *r,
			    const struct wperf_fmt_knot_map *m, const bool *reach);
void wperf_html_threads_table(FILE *out, const struct wperf_report *r,
			      const struct wperf_fmt_knot_map *m, const bool *reach);

#endif /* WPERF_REPORT_HTML_H */
