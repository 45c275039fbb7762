/* SPDX-License-Identifier: MIT */
/*
 * report-format.h — small formatting helpers shared by the report writers:
 * the analysed duration, shares of it as fixed-point numbers (no floating
 * point printf, so a plugin host's LC_NUMERIC cannot turn "0.5" into
 * "0,5"), human durations, vertex labels and histogram summaries.
 *
 * Internal to analysis/; not a public header.
 */
#ifndef WPERF_REPORT_FORMAT_H
#define WPERF_REPORT_FORMAT_H

/* A device is "the limit" of the threads that wait on it only when it was
 * busy at least this share (ppm) of the analysed time: below, it sat idle
 * most of the time and each request's latency, not its capacity, is what
 * the waits measure (wperf-analysis(7), "Disks"). */
#define WPERF_FMT_DEVICE_LIMIT_PPM 500000

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wperf/classify.h"
#include "wperf/graph.h"
#include "wperf/knots.h"
#include "wperf/report.h"
#include "numbers.h"

/*
 * The focus's start (doc/wperf-report.7.md, Data quality): the earliest
 * first_ts of a focus thread (or merged vertex), how long after the
 * analysed range's beginning it came, whether the trace saw that thread
 * forked, and whether it came late: more than WPERF_FOCUS_LATE_NS (0.5 s)
 * and more than a tenth of the analysed time after the beginning. A
 * recorder starts a command a few tens of milliseconds after its trace
 * begins (hundreds on a loaded machine); a command whose start the trace
 * missed comes a second or more late.
 */
#define WPERF_FOCUS_LATE_NS INT64_C(500000000)

struct wperf_focus_start {
	int64_t first_ns, after_ns;
	bool forked;                 /* its fork is in the trace */
	bool late;
};

/* false when the report has no focus or the trace showed no focus thread. */
struct wperf_report;
bool wperf_fmt_focus_start(const struct wperf_report *r, struct wperf_focus_start *out);

/* Finding k's classification (r->classes, made once by the report's
 * maker), or NULL when it has none; k is one of r->knots->items. */
static inline const struct wperf_classification *
wperf_report_class_of(const struct wperf_report *r, const struct wperf_knot *k)
{
	return wperf_classes_get(r->classes, (size_t)(k - r->knots->items));
}

/*
 * Does the threads table list vertex v (text, HTML, the JSON `threads`)?
 * A thread or merged vertex that lived in the analysed range. With the
 * sink's begin/end window, the trace before and after it names threads
 * that never ran, waited or existed within it: they keep their vertex
 * (ids stay stable), but a table of the window's time has no row of
 * zeros for them (doc/wperf-report.7.md).
 */
bool wperf_fmt_thread_listed(const struct wperf_vertex *v);

/* How many vertices are threads or merged vertices not listed so. */
size_t wperf_fmt_threads_outside(const struct wperf_graph *g);

/* "0.123456": millionths as a decimal fraction of 1 (JSON "share"). */
void wperf_fmt_ppm_fraction(char *buf, size_t len, uint64_t ppm);

/* "45.2%": millionths as a percentage with one decimal. */
void wperf_fmt_ppm_percent(char *buf, size_t len, uint64_t ppm);

/*
 * A weight split into its two parts (doc/wperf-report.7.md, "Weights"):
 * "own 3.20 s (80.0% of the members' time) + cascaded 16.6 s". own is the
 * waiters' own waiting (direct_ns summed), at most waiters_ns, the time
 * those waiters existed (wperf_vertex_time summed); the cascaded part is
 * weight - own, others' waiting passed on to these edges, and gets no
 * percentage: it can exceed any time of the waiters. whose: "the
 * members'", "its waiters'", "the waiter's".
 */
void wperf_fmt_weight_split(char *buf, size_t len, int64_t weight, int64_t own,
			    int64_t waiters_ns, const char *whose);

/*
 * What kind of sink a finding is (doc/wperf-report.7.md, "Sink kinds"):
 * a sink waits for nothing in the graph, but that means something else
 * for each kind of vertex, and calls for something else.
 */
enum wperf_fmt_sink_kind {
	WPERF_SINK_THREAD_WORK,     /* a thread that ran or wanted a CPU at least
	                               half of its time: its own work bounds it */
	WPERF_SINK_THREAD_WAITING,  /* a thread that waited most of its time, on
	                               nothing that counts as a dependency */
	WPERF_SINK_TIMER,           /* paced by timers (wperf_sink_limit) */
	WPERF_SINK_UNSEEN,          /* waited on what the trace does not show */
	WPERF_SINK_DISK,
	WPERF_SINK_NIC,
	WPERF_SINK_INTERRUPT,       /* an irq or softirq vertex */
	WPERF_SINK_OTHER,
};

enum wperf_fmt_sink_kind wperf_fmt_sink_kind(const struct wperf_graph *g,
					     const struct wperf_knot *k);

/* "thread_work", "thread_waiting", "timer", "unseen", "disk", "nic",
 * "interrupt", "other": the JSON `sink_kind`. */
const char *wperf_fmt_sink_kind_name(enum wperf_fmt_sink_kind kind);

/* What that kind of sink means and what to do about it, one or two
 * sentences with the sink's own numbers, for the text and HTML reports.
 * Timer and unseen sinks are described by their writers (with the
 * waiting that made them so); this gives what to do for them. */
void wperf_fmt_sink_kind_words(char *buf, size_t len, const struct wperf_graph *g,
			       const struct wperf_knot *k);

/* weight - own, never below 0 (corrupt input). */
int64_t wperf_fmt_cascaded(int64_t weight, int64_t own);

/* Length of the well-formed UTF-8 sequence at s (RFC 3629: no overlongs,
 * no surrogates, nothing above U+10FFFF), or 0 when it is not one. Reads
 * past s[0] only while the bytes are continuation bytes, so it never
 * runs over a terminating NUL. */
size_t wperf_fmt_utf8_length(const unsigned char *s);

/* x in decimal into buf (at least 21 bytes), NUL-terminated; its length. */
size_t wperf_fmt_u64(char *buf, uint64_t x);

/* A duration with 3 significant digits in ns/us/ms/s: "1.23 ms".
 * compact: no space and "-" for zero ("1.23ms"), for tables. */
void wperf_fmt_duration(char *buf, size_t len, int64_t ns, int compact);

/* "12.345678901 s": an absolute timestamp in seconds, full precision; a
 * time after 2001 is taken to count from the Unix epoch (LTTng's and
 * source.wperf.tracefs's clocks do) and shown as a UTC date:
 * "2026-11-22 02:27:01.123456789 UTC". */
void wperf_fmt_timestamp(char *buf, size_t len, int64_t ns);

/* How a vertex is shown to a person: "comm (tid)" for threads, the name
 * otherwise. Control characters become '?'. */
void wperf_fmt_vertex_label(char *buf, size_t len, const struct wperf_graph *g,
			    uint32_t id);

/* The columns text takes on a terminal (UTF-8 aware). */
size_t wperf_fmt_display_width(const char *s);

/* The same, at most `width` characters when it can: a thread's comm is
 * cut ("very-long-na... (1234)") so that its tid stays visible. */
void wperf_fmt_vertex_label_fit(char *buf, size_t len, const struct wperf_graph *g,
				uint32_t id, size_t width);

/* A finding in a few words: "dd (13665)", or "dd (13665) +2" for one of
 * three members. */
void wperf_fmt_finding_name(char *buf, size_t len, const struct wperf_graph *g,
			    const struct wperf_knot *k);


/* "[1.02 us, 2.05 us)": the range of wait lengths bucket b holds. */
void wperf_fmt_bucket_range(char *buf, size_t len, int bucket);

/* "[1.02 us, 2.05 us)": the range that holds the median wait length of a
 * histogram (wperf_hist_median_range()), "-" when it is empty. */
void wperf_fmt_median_range(char *buf, size_t len, const uint64_t hist[WPERF_HIST_BUCKETS]);

/* "4107.223": count per second over duration_ns, 3 decimals, written with
 * integer arithmetic so no locale can make it "4107,223". */
void wperf_fmt_rate(char *buf, size_t len, uint64_t count, int64_t duration_ns);

/* Write text into a column `width` characters wide (UTF-8 aware, cut with
 * "..." when too long), padded with spaces on the right (or left when
 * right_align). */
void wperf_fmt_cell(FILE *out, const char *text, size_t width, int right_align);

/* ---- Shared by the picture and GraphML writers (report-dot.c,
 * report-html.c, report-graphml.c). ---- */

/* "Knot 2", "Sink 1", "Background knot 3": knot i of the report numbered
 * as the text report does (knots and background knots count together,
 * sinks apart). */
void wperf_fmt_knot_title(char *buf, size_t len, const struct wperf_knots *ks, size_t i);

/* The end of every report writer: 0 when the report is all out (flushed,
 * no stream error), else -1 with errno set (EIO if nothing more precise).
 * failed: the writer already met an error of its own (then no flush). */
int wperf_fmt_finish(FILE *out, bool failed);

/* How many of the report's items are of this kind (ks may be NULL). */
size_t wperf_fmt_count_kind(const struct wperf_knots *ks, enum wperf_knot_kind kind);

/* Where each vertex and edge stands in the report: the index (in report
 * order, as in the JSON `knots` array) of the knot, sink or background
 * knot it belongs to, or -1. */
struct wperf_fmt_knot_map {
	long *vertex_knot;      /* per vertex: the knot it is a member of */
	long *edge_knot;        /* per edge: the knot it is an internal edge of */
	long *edge_cut;         /* per edge: the knot whose refinement cut it */
	long *edge_cut_rank;    /* per edge: 1 for the first edge that knot cut, ... */
};

/*
 * The DOT text that `dot -Tsvg` draws (report-svg.c): as
 * wperf_report_write_dot for WPERF_PICTURE_DATA; the picture
 * (WPERF_PICTURE_SUMMARY) draws only the first findings and the
 * dependencies into or out of them, ranks its edges' widths, folds the
 * other findings into one box and counts what it leaves out; the first
 * picture (WPERF_PICTURE_FIRST) the first finding alone, compact
 * (doc/wperf-report.7.md, PICTURES). Same return convention.
 */
enum wperf_fmt_picture {
	WPERF_PICTURE_DATA,     /* format=dot: every dependency */
	WPERF_PICTURE_SUMMARY,  /* format=svg and the HTML page's whole picture */
	WPERF_PICTURE_FIRST,    /* the HTML page's first picture: the first finding,
	                           what touches it, and counts of the rest */
};

struct wperf_report;
int wperf_fmt_write_dot_picture(const struct wperf_report *r, FILE *out,
				enum wperf_fmt_picture mode);

/* 0, or -1 when out of memory (nothing to free then). ks may be NULL. */
int wperf_fmt_knot_map_init(struct wperf_fmt_knot_map *m, const struct wperf_graph *g,
			    const struct wperf_knots *ks);
void wperf_fmt_knot_map_fini(struct wperf_fmt_knot_map *m);

/*
 * What a focused report is about (doc/wperf-report.7.md, "Focus"): the
 * focus vertices, what they wait on, directly or not, over dependencies
 * (not through a device's own edges, its idle time waiting for whoever
 * gives it work: as knot finding), and the members of the findings. One
 * flag per vertex id, to free; NULL when the report has no focus, or when
 * out of memory (then *oom is set).
 */
bool *wperf_fmt_focus_reach(const struct wperf_report *r, bool *oom);

/* A copy of s (NULL: "") in which every byte that is not UTF-8, every
 * control character and the non-characters U+FFFE/U+FFFF are U+FFFD:
 * what XML 1.0 accepts. NULL when out of memory. */
char *wperf_fmt_utf8_clean(const char *s);

/* Write s as XML/HTML text or attribute value: &, <, >, " and ' escaped,
 * cleaned as by wperf_fmt_utf8_clean. NULL writes nothing. */
void wperf_fmt_xml_escaped(FILE *out, const char *s);

/*
 * The data-quality problems that can change the findings, said once each
 * above them in every report (report-caveats.c has the rules and why;
 * doc/wperf-report.7.md, "Caveats"). kind is the JSON `caveats[].kind`,
 * label the text report's line label, text the sentence, reason the short
 * clause the headline gives for a caveat that may make the findings wrong.
 */
#define WPERF_CAVEATS_MAX 8

struct wperf_caveat {
	const char *kind;
	const char *label;
	bool may_be_wrong;
	char text[768];
	char reason[320];
};

struct wperf_report;
/* Fill c (WPERF_CAVEATS_MAX entries); returns how many. */
size_t wperf_fmt_caveats(const struct wperf_report *r, struct wperf_caveat *c);

/* "findings below may be wrong: the trace lacks ...; ...", or "" when no
 * caveat may make the findings wrong. */
void wperf_fmt_caveat_headline(char *buf, size_t len, const struct wperf_caveat *c, size_t n);

/*
 * The CPU finding's words (report-cpu-words.c), for the text and HTML
 * reports alike: its title, the summary, who else ran meanwhile ("" when
 * nobody is listed) and the advice. r->cpu must be set.
 */
struct wperf_fmt_cpu_words {
	const char *title;
	char summary[2048];
	char others[768];
	const char *advice;
};

void wperf_fmt_cpu_words(struct wperf_fmt_cpu_words *w, const struct wperf_report *r);

/* A finding whose members were woken to run on a CPU the trace lacks
 * (wperf_vertex.woken_to_missing_cpu): the words the text (MISSING CPU)
 * and HTML reports print on it; "" when none was. */
void wperf_fmt_knot_missing_cpu(char *buf, size_t len, const struct wperf_graph *g,
				const struct wperf_knot *k);

/* The marker of an edge whose waits may be untraced timer expiries
 * (wperf_edge_may_be_timer) and what it means: the text report's
 * footnote, the HTML page's marker title. */
#define WPERF_FMT_TIMER_MARK "(timer?)"
#define WPERF_FMT_TIMER_NOTE "the trace has no timer expiry events and the waiter is also " \
	"woken by interrupts it does not show: these waits may be a timer that fired while " \
	"the waker ran, not the waker's doing (Data quality)"

/* A background knot using at least this share (ppm) of one CPU is busy:
 * threads that hand work back and forth, or a pool's workers cut apart by
 * refinement, sit just under the rule's one CPU (wperf-method(7) §7), and
 * the text and HTML reports say so in these words. */
#define WPERF_FMT_BACKGROUND_BUSY_PPM 900000
#define WPERF_FMT_BACKGROUND_BUSY_NOTE "Only just under one CPU, though: threads that " \
	"hand work back and forth, or workers of a pool that refinement cut into pieces, " \
	"look so too; if these are such workers, merge them (merge=\"process\" or " \
	"\"name\") and look again."

/* dot's SVG picture (len bytes) written to out with its edge labels
 * moved apart: none on another label, a vertex, another text or a stroke
 * where a free spot beside its edge exists (report-svg-labels.c). 0, or -1
 * when writing failed. */
int wperf_fmt_svg_place_labels(const char *svg, size_t len, FILE *out);

#endif /* WPERF_REPORT_FORMAT_H */
