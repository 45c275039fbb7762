/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-sink.h — what the files of sink.wperf.knots share:
 * the component's state (its parameters, the analysis, the periodic
 * reports' state) and the functions one calls in another. knots-sink.c is
 * the component (help, methods, consuming messages), knots-params.c its
 * parameters, knots-report.c the report at the end, knots-every.c the
 * periodic reports of every=.
 */
#ifndef WPERF_PLUGIN_KNOTS_SINK_H
#define WPERF_PLUGIN_KNOTS_SINK_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/comp-error.h"
#include "common/decode.h"
#include "common/output.h"
#include "common/params.h"
#include "common/shared-analysis.h"
#include "wperf/analysis.h"
#include "wperf/merge.h"

#define COMP_NAME "sink.wperf.knots"

/* Defaults of the parameters, as the help and the manual page give them. */
#define DEFAULT_THRESHOLD "20%"
#define DEFAULT_MIN_WEIGHT "1%"
#define DEFAULT_LEAVE_RATIO "20%"      /* WPERF_KNOT_LEAVE_DEFAULT_PPM */
#define DEFAULT_TIE_TOLERANCE "1%"     /* WPERF_KNOT_TIE_DEFAULT_PPM */

enum report_format { FORMAT_TEXT, FORMAT_JSON, FORMAT_DOT, FORMAT_SVG, FORMAT_HTML,
		     FORMAT_GRAPHML };

/* A weight limit as given (the termination threshold, the noise floor):
 * absolute, or a share of the analysed duration, known only once the
 * analysis is finished. */
struct weight_limit {
	bool is_percent;
	double percent;
	int64_t ns;
	char spec[64];       /* as the user wrote it, for the report */
};

struct knots_sink {
	bt_self_component *self;
	bt_message_iterator *iter;
	struct wperf_decoder *decoder;
	struct wperf_analysis *analysis;   /* NULL while reusing `shared` */
	/* The analysis of a filter.wperf.waits connected straight to our
	 * input, reused instead of ours (shared-analysis.h), or NULL. */
	struct wperf_shared_analysis *shared;
	uint64_t messages_in;              /* received while reusing it */
	enum report_format format;
	char *path;                     /* NULL: standard output */
	struct weight_limit threshold;
	struct weight_limit min_weight;
	bool strict_rule;               /* knot-rule=strict */
	int64_t leave_ppm;              /* leave-ratio, dominant rule */
	int64_t tie_ppm;                /* tie-tolerance */
	int64_t *pids;
	size_t n_pids;
	struct wperf_string_list comms;
	bool follow_forks;              /* the focus takes in what it forked */
	struct wperf_merge_options merge;
	bool short_lived_given;         /* short-lived= was given: else merge
	                                   with a focus, keep without */
	struct wperf_string_list host_clocks;   /* "HOST:ALPHA:Y0:X0:ACC:MOVED" items */
	/* sync-hosts=: the hosts whose clocks are synchronised here, from
	 * the segments matched so far (knots-sync.c); NULL without. */
	struct wperf_string_list sync_hosts;
	struct knots_sync *sync;
	struct wperf_string_list nic_capacity;  /* "dev=RATE" items, checked */
	struct wperf_window window;     /* begin/end: the time counted */
	struct wperf_output out;        /* open only while the report is written */
	/* every=: periodic reports (0: none). */
	int64_t every_ns;
	struct {
		struct wperf_analysis *window;  /* the current period's analysis */
		FILE *out;                      /* the stream of reports */
		int64_t first, next;            /* first event; next period's start */
		int64_t last;                   /* the latest event's time */
		uint64_t period_events;         /* events in the current period */
		int64_t begin;                  /* the current period's start */
		uint64_t index;                 /* the current period's number, from 1 */
		bool started;
	} every;
};

/* One error line, "sink.wperf.knots: ...", as the cause of the ERROR
 * status about to be returned (plugin/common/comp-error.h). */
#define sink_fail(s, ...) WPERF_COMP_ERROR((s)->self, COMP_NAME, __VA_ARGS__)

/* knots-params.c */

/* Read and check every parameter into s; -1 with the error appended. */
int sink_read_params(struct knots_sink *s, const bt_value *params);

/* The analysis this sink reads (its own, or the one it claimed from a
 * filter.wperf.waits): the link speeds of nic-capacity=, and the
 * timelines only the HTML page draws (wperf_analysis_keep_timelines: up
 * to 7 KiB per thread). -1 when out of memory. */
int sink_setup_analysis(struct knots_sink *s, struct wperf_analysis *a);

/* knots-report.c */

/*
 * A finished analysis' graph: find the knots and write the report, into
 * f (every=: the stream of reports) or, f NULL, to the output (path=).
 * The graph is released. -1 with the error appended.
 */
int sink_report_graph(struct knots_sink *s, struct wperf_graph *graph_in, FILE *f);

/* End of input without every=: finish the analysis, find the knots,
 * write the report. */
int sink_finish(struct knots_sink *s);

/* With WPERF_DECODE_STATS set (not "0"), how many events of each kind
 * were decoded, as one line on standard error. */
void sink_print_decode_stats(const struct knots_sink *s);

/* knots-sync.c */

/* Set up sync-hosts= (at initialization; nothing without it). -1 with
 * the error appended. */
int sink_sync_init(struct knots_sink *s);
void sink_sync_destroy(struct knots_sink *s);

/* Take a message (and its reference): held until the hosts' clocks are
 * known, then decoded in the order of the reference's time. -1 with the
 * error appended. */
int sink_sync_take(struct knots_sink *s, const bt_message *msg);

/* End of input: decode what is held, or fail when the hosts could not be
 * synchronised. -1 with the error appended. */
int sink_sync_end(struct knots_sink *s);

/* knots-every.c */

/* Set up every= (at initialization): the stream and the first period. */
int sink_every_init(struct knots_sink *s);

/* End of input with every=: the last period, then the final report. */
int sink_finish_every(struct knots_sink *s);

#endif
