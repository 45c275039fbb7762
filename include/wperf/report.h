/* SPDX-License-Identifier: MIT */
/*
 * wperf/report.h — the knot report: the graph, its knots, and the writers
 * that print them for a person (text) or a script (JSON, doc/wperf-report.7.md),
 * with the JSON string writer that the lines around a report share.
 */
#ifndef WPERF_REPORT_H
#define WPERF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "wperf/classify.h"
#include "wperf/cpu.h"
#include "wperf/graph.h"
#include "wperf/knots.h"

struct wperf_report {
	const struct wperf_graph *graph;
	const struct wperf_knots *knots;
	int64_t threshold_ns;          /* the termination threshold in force */
	const char *threshold_spec;    /* as the user gave it, e.g. "20%" */
	int64_t min_weight_ns;         /* the noise floor for knot finding */
	const char *min_weight_spec;   /* as the user gave it, e.g. "1%" */
	bool strict_rule;              /* knot-rule=strict (wperf/knots.h) */
	int64_t leave_ppm;             /* the dominant rule's ratio in force (0: strict) */
	int64_t tie_ppm;               /* refinement's tie tolerance in force */
	const bool *focus;             /* NULL: everything; else per vertex id */
	const bool *opaque;            /* NULL, or per vertex id: the tracer's threads,
	                                  whose waits are no dependency (knots.h) */
	const char *stacks_note;       /* how stack frames were named, or why not;
	                                  NULL: no stacks */
	const struct wperf_cpu_finding *cpu; /* NULL: not computed (wperf/cpu.h);
	                                  when `first`, the report leads with it */
	const struct wperf_classes *classes; /* each finding's classification, made
	                                  once (wperf_classes_find); NULL: none said */
};

/* Both return 0, or -1 when writing failed (errno set). */
int wperf_report_write_text(const struct wperf_report *r, FILE *out);
int wperf_report_write_json(const struct wperf_report *r, FILE *out);

/* s as a JSON string, quotes included (NULL: null), escaped as in the JSON
 * report: bytes that are not UTF-8 become U+FFFD. For what is written
 * around a report (sink.wperf.knots every= lines: a period's error, a
 * notice that the hosts' clocks cannot be synchronised yet). */
void wperf_json_string(FILE *out, const char *s);

/* s copied into buf (len bytes, cut short where it ends, never inside a
 * character) as the text report shows a name from a trace: each control
 * character, DEL and byte that is not UTF-8 as '?', so that no name (a
 * host's, which any trace's metadata may say) can move a terminal's
 * cursor or change its colours, nor break a line. buf may be s. */
void wperf_text_clean(char *buf, size_t len, const char *s);

/* The wait-for graph for pictures and graph tools (doc/wperf-report.7.md,
 * "PICTURES, HTML AND GRAPHML"). Same return convention. */

/* Graphviz DOT: knots as clusters, edge width and label by weight, solid
 * at or above the threshold and dashed below, devices in their own shapes. */
int wperf_report_write_dot(const struct wperf_report *r, FILE *out);

/* GraphML (written with libxml2): every vertex and edge, with kind, tid,
 * comm, weight, count and the knot each belongs to. -1 with errno
 * ELIBACC when libxml2 cannot be loaded. */
int wperf_report_write_graphml(const struct wperf_report *r, FILE *out);

/* Whether libxml2 (libxml2.so.2), loaded at first use, is there for
 * wperf_report_write_graphml(). */
bool wperf_report_graphml_available(void);

/* One self-contained HTML page: the first finding's picture, the knot
 * summary, the whole picture, sortable tables of knots, edges and threads.
 * svg is the whole picture (the output of wperf_report_write_svg) and
 * first_svg the first finding's (wperf_report_write_first_svg; NULL: none),
 * or svg is NULL and no_picture says why there is none. */
int wperf_report_write_html(const struct wperf_report *r, const char *svg,
			    const char *first_svg, const char *no_picture, FILE *out);

/* Is Graphviz's `dot` on PATH? */
bool wperf_graphviz_available(void);

/* The DOT picture laid out by Graphviz (`dot -Tsvg`), written to out.
 * 0, or -1 with a one-line reason in err (errno ENOENT: dot not found). */
int wperf_report_write_svg(const struct wperf_report *r, FILE *out, char *err,
			   size_t errlen);

/* The HTML page's first picture, laid out as the above: the first finding
 * and what touches it, compact enough for a phone's width, with counts of
 * what it leaves out (doc/wperf-report.7.md, PICTURES). */
int wperf_report_write_first_svg(const struct wperf_report *r, FILE *out, char *err,
				 size_t errlen);

/* A classification's evidence (wperf/classify.h) as one sentence with its
 * numbers, for a person (analysis/report/report-evidence.c). */
void wperf_evidence_describe(char *buf, size_t len, const struct wperf_graph *g,
			     const struct wperf_evidence *ev);

#endif /* WPERF_REPORT_H */
