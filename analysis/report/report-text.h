/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text.h — what the sections of the text report
 * share: page geometry, the small writers every section uses, and each
 * section's entry point. The report's order and style are described at
 * the top of report-text.c.
 */
#ifndef WPERF_REPORT_TEXT_H
#define WPERF_REPORT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "report-format.h"
#include "wperf/report.h"

#define PAGE_WIDTH 98           /* leave the last columns of 100 free */
#define MAX_THREAD_ROWS 20
#define MAX_LISTED_MEMBERS 12
#define MAX_LISTED_GAPS 5
#define MAX_LISTED_LOSERS 3     /* threads named per lost-event counter */
#define LABEL_LEN 128
/* Marks an edge that may be an untraced timer (wperf_edge_may_be_timer). */
#define TIMER_MARK WPERF_FMT_TIMER_MARK

/* report-text-words.c: the small writers every section uses */

/* The vertex's label (wperf_fmt_vertex_label) in a LABEL_LEN buffer. */
void text_label(char *buf, const struct wperf_graph *g, uint32_t id);

/* Print words separated by ", ", wrapping at the page width and
 * indenting continuation lines; `col` is where the cursor is now. */
size_t text_put_listed(FILE *out, const char *word, int first, size_t col,
		       size_t indent);

/* Print text as lines of at most PAGE_WIDTH columns, broken at spaces
 * (a word longer than a line is left whole): the first line after
 * `first`, the others indented by `indent` spaces. */
void text_put_wrapped(FILE *out, const char *first, const char *text, size_t indent);

/* "a (1), b (2), disk:vda" with at most MAX_LISTED_MEMBERS names. */
void text_put_members(FILE *out, const struct wperf_graph *g,
		      const uint32_t *ids, size_t n, size_t col, size_t indent);

/* How many edges count as dependencies in the report's graph. */
size_t text_count_dependencies(const struct wperf_report *r);

/* report-text-knots.c: a knot and its edges */

/* An edge table's column heads, and the footnote explaining TIMER_MARK
 * when a row carried it. */
void text_write_edge_table_header(FILE *out);
void text_write_timer_footnote(FILE *out, bool any);

/* One row of an edge table; true when the edge carries the timer mark. */
bool text_write_edge_row(FILE *out, const struct wperf_graph *g,
			 const struct wperf_edge *e);

/* A row of an edge table from its cells (pair: "a -> b"; last: the
 * median wait length, or what the row stands for). */
void text_write_edge_cells(FILE *out, const char *pair, const char *weight, const char *own,
			   const char *own_share, uint64_t waits, const char *last);

/* What refinement removed from the knot and why it stopped. */
void text_write_refinement(FILE *out, const struct wperf_graph *g,
			   const struct wperf_knot *k);

/* wperf-method(7) §10: what kind of problem it looks like, and the facts that
 * say so (wperf/classify.h), so a person can check the hint. */
void text_write_classification(FILE *out, const struct wperf_report *r,
			       const struct wperf_knot *k);

/* "    a (1) -> setup (3), 100 ms (1 wait)" for the heaviest leaving edges. */
void text_write_leaving_edges(FILE *out, const struct wperf_graph *g,
			      const size_t *edges, size_t n);

/* A knot that edges leave (the dominant rule): how much, and where to. */
void text_write_knot_leaving(FILE *out, const struct wperf_report *r,
			     const struct wperf_knot *k);

/* Finding number `number`, a knot, in full. */
void text_write_knot(FILE *out, const struct wperf_report *r,
		     const struct wperf_knot *k, size_t number);

/* report-text-findings.c: the findings in rank order, sinks and groups */

/*
 * Heavy strongly connected groups that the knot rule turned down, with
 * the weight that leaves them and where to: a group that looks like a
 * knot and is not one must not vanish without a word.
 */
void text_write_groups(FILE *out, const struct wperf_report *r);

/* Every finding in rank order, with the weights' legend first. */
void text_write_findings(FILE *out, const struct wperf_report *r);

/* report-text-threads.c: the per-thread breakdown */

/* Vertices that stand for merged threads (wperf/merge.h), with the tids
 * they stand for: the rest of the report names only the merged vertex. */
void text_write_merged(FILE *out, const struct wperf_report *r);

/* The per-thread table, heaviest first (at most MAX_THREAD_ROWS). */
void text_write_threads(FILE *out, const struct wperf_report *r);

/* report-text-quality.c: how much to trust the data */

/* The data quality section. */
void text_write_quality(FILE *out, const struct wperf_report *r);

#endif
