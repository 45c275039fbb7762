/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-sink.c — sink.wperf.knots: kernel events in, knot
 * report out.
 *
 * Every message of the input port goes through the decoder (decode.c) into
 * the streaming analysis. At the end of the input the analysis closes its
 * segments and hands over the wait-for graph; the sink finds its knots and
 * writes the report, as text or JSON, to standard output or atomically to a
 * file (output.c).
 *
 * Nothing is written before the whole input has been analysed: an error, or
 * an interruption (Ctrl-C makes the babeltrace2 CLI stop the graph without
 * delivering END and then finalize the components), leaves no report at all
 * rather than a partial one.
 *
 * Except with every=PERIOD (a live session): then a report of the period
 * just ended and of the run so far is written at each period of trace
 * time, as a stream (knots-every.c).
 *
 * This file is the component: its help, its methods and the consuming of
 * messages. Its parameters are knots-params.c's, the report
 * knots-report.c's; what the files share, knots-sink.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "components.h"
#include "wperf/knots.h"
#include "wperf/report.h"
#include "knots-sink.h"

const char wperf_knots_description[] =
	"Find the knots (cycles of waiting) that bound a multi-threaded program's "
	"throughput, from kernel scheduler, interrupt and block events.";

const char wperf_knots_help[] =
	"Reads kernel events (LTTng kernel traces, perf CTF from `perf data convert\n"
	"--to-ctf`, source.wperf.tracefs), builds the wait-for graph of the\n"
	"program's threads with cascaded redistribution of waiting time (wPerf,\n"
	"OSDI'18), and reports its knots, sinks and per-thread breakdown.\n"
	"It can follow filter.wperf.waits directly: that filter's own output is\n"
	"ignored, so nothing is counted twice.\n"
	"\n"
	"Record at least sched_switch and sched_waking (or sched_wakeup), plus\n"
	"irq_handler_*, irq_softirq_* and block_rq_* events to see interrupts and\n"
	"disks; the LTTng statedump gives every thread's initial state.\n"
	"\n"
	"Parameters:\n"
	"\n"
	"  format=F             Report format: text (default), json, dot (Graphviz),\n"
	"                       svg (the dot picture laid out by Graphviz, which\n"
	"                       must be installed), html (one self-contained page:\n"
	"                       findings, picture, sortable tables) or graphml.\n"
	"  path=FILE            Write the report to FILE, atomically (a temporary\n"
	"                       file beside it, renamed when complete).\n"
	"                       Default: standard output (also `-`).\n"
	"  threshold=T          Termination threshold of knot refinement: stop\n"
	"                       removing a knot's lightest edge once it weighs T.\n"
	"                       A duration (\"250ms\", \"1.5s\", a number of seconds)\n"
	"                       or a share of the analysed duration (\"20%\").\n"
	"                       Default: " DEFAULT_THRESHOLD ".\n"
	"  min-weight=W         Noise floor: edges lighter than W take no part in\n"
	"                       knot finding (a few stray wakeups would otherwise\n"
	"                       tie every thread of a busy system into one knot).\n"
	"                       Same forms as threshold; 0 keeps every edge.\n"
	"                       Default: " DEFAULT_MIN_WEIGHT ".\n"
	"  knot-rule=R          Which strongly connected groups are knots:\n"
	"                       dominant (those whose edges leaving the group\n"
	"                       weigh at most leave-ratio of its internal edges)\n"
	"                       or strict (the paper's: no edge leaves it).\n"
	"                       Default: dominant.\n"
	"  leave-ratio=P        With knot-rule=dominant: the largest share of a\n"
	"                       group's internal weight that may leave it (\"20%\").\n"
	"                       Default: " DEFAULT_LEAVE_RATIO ".\n"
	"  tie-tolerance=P      Refinement cuts edges whose weights are within P of\n"
	"                       the lightest of them together (\"0%\": only exactly\n"
	"                       equal ones), so alike threads stay or go together.\n"
	"                       Default: " DEFAULT_TIE_TOLERANCE ".\n"
	"  pids=LIST            Focus on these processes or threads: a thread\n"
	"                       matches if its pid (tgid) or tid is listed,\n"
	"                       except LTTng-UST's own threads (\"<comm>-ust\"),\n"
	"                       whose waits the focus does not follow either.\n"
	"                       An array or a comma-separated string. Default: none.\n"
	"  nic-capacity=LIST    Link speeds, \"DEV=SPEED,...\" (e.g. \"eth0=1Gbit,lo=10Gbit\";\n"
	"                       bit/s or B/s with k, M, G, T). A NIC's idle time, and\n"
	"                       so its edges back to the threads that send through\n"
	"                       it, needs its speed: without it the report says the\n"
	"                       idle time is unknown. Default: none.\n"
	"  comms=LIST           Focus on threads with these names (comm).\n"
	"                       An array or a comma-separated string. Default: none.\n"
	"                       With pids and/or comms, only knots and sinks that\n"
	"                       the focused threads wait on are reported.\n"
	"  follow-forks=BOOL    With pids or comms: the focus also takes in every\n"
	"                       thread the focused ones forked, directly or not,\n"
	"                       in the trace (a wrapper script's program, a\n"
	"                       server's workers). Default: false.\n"
	"  merge=KEY            Merge similar threads into one vertex before looking\n"
	"                       for knots: pool (the default: alike threads, same\n"
	"                       name with trailing digits stripped, either the\n"
	"                       non-main threads of one process or processes\n"
	"                       forked by one thread; \"worker-* \xc3\x97" "4\"), none,\n"
	"                       process (\"process COMM (PID)\"), name (across\n"
	"                       processes: worker-12 -> \"worker-*\"), or stack\n"
	"                       (threads of a process whose heaviest wait has the\n"
	"                       same call stack: \"worker-* @ futex_wait_queue\";\n"
	"                       the trace needs stacks). Waits between members\n"
	"                       become a self-loop. The focus still matches the\n"
	"                       threads. Default: pool.\n"
	"  begin=TIME, end=TIME Count only this time window, reading the whole trace:\n"
	"                       the names of threads, their processes and disks, and\n"
	"                       every thread's state, come from before the window\n"
	"                       too (babeltrace2's --begin/--end drop them). Segments\n"
	"                       and waits crossing an edge count for their part\n"
	"                       inside. TIME as for --begin/--end: \"YYYY-MM-DD\n"
	"                       hh:mm[:ss[.ns]]\", \"YYYY-MM-DD\", \"hh:mm[:ss[.ns]]\" (on\n"
	"                       the trace's first date) or seconds from the clock's\n"
	"                       origin \"[-]s[.ns]\". Default: the whole trace.\n"
	"  gmt=BOOL             Dates and times of day are UTC, not local time.\n"
	"                       Default: false.\n"
	"  every=DURATION       Also report periodically, at each DURATION of trace\n"
	"                       time (\"5s\"): the knots of the period just ended and\n"
	"                       of the whole run so far, then at the end those of\n"
	"                       the last period and the final report (the same as\n"
	"                       without every=). For `-i lttng-live`. Text or json\n"
	"                       (one object per line); path= is then written as a\n"
	"                       stream, flushed after each report. Default: none.\n"
	"  host-clocks=LIST     With several hosts' traces: each other host's clock\n"
	"                       put on the reference's before its events are\n"
	"                       analysed, \"HOST:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS,...\"\n"
	"                       (HOST's time y is X0 + (y - Y0) / ALPHA), as\n"
	"                       `wperf report TRACE TRACE...` computes them from\n"
	"                       sink.wperf.netsync. Default: none.\n"
	"  sync-hosts=LIST      With several hosts' live sessions, read once: their\n"
	"                       names, \"A,B,...\" (2 to 8). The sink synchronises\n"
	"                       their clocks from the TCP segments matched so far,\n"
	"                       holding every message until each host has a\n"
	"                       transform (`wperf top --relay URL --hosts A,B`).\n"
	"                       Not with host-clocks, begin or end. Default: none.\n"
	"  short-lived=merge|keep  merge: the short-lived children of one parent\n"
	"                       (forked and ended in the trace, alive under 10%\n"
	"                       of it, at least two) become \"PARENT-children\",\n"
	"                       which waits for the parent between them.\n"
	"                       Default: keep.\n"
	"\n"
	"Connected straight to filter.wperf.waits, the sink reuses that filter's\n"
	"analysis of the kernel events instead of repeating it (same report).\n"
	"\n"
	"Environment: WPERF_DECODE_STATS=1 prints the number of decoded events of\n"
	"each type to standard error at the end (and whether they were decoded by\n"
	"filter.wperf.waits). WPERF_SHARE_ANALYSIS=0 makes the sink analyse on its\n"
	"own even behind filter.wperf.waits.\n"
	"\n"
	"Example:\n"
	"  babeltrace2 TRACE -c sink.wperf.knots -p 'format=\"json\",path=\"knots.json\"'\n"
	"\n"
	"See the babeltrace2-sink.wperf.knots(7) manual page; the report:\n"
	"wperf-report(7); the method: wperf-method(7).\n";

static void sink_destroy(struct knots_sink *s)
{
	if (!s)
		return;
	/* Interrupted or failed before the report was committed: leave no
	 * temporary file behind. */
	wperf_output_abort(&s->out);
	bt_message_iterator_put_ref(s->iter);
	wperf_decoder_destroy(s->decoder);
	wperf_analysis_destroy(s->analysis);
	wperf_analysis_destroy(s->every.window);
	if (s->every.out && s->every.out != stdout)
		fclose(s->every.out);
	wperf_shared_analysis_put(s->shared);
	free(s->path);
	free(s->pids);
	wperf_string_list_free(&s->comms);
	wperf_string_list_free(&s->nic_capacity);
	wperf_string_list_free(&s->host_clocks);
	sink_sync_destroy(s);
	wperf_string_list_free(&s->sync_hosts);
	free(s);
}

/* ------------------------------------------------------------------ */
/* Component methods.                                                  */
/* ------------------------------------------------------------------ */

bt_component_class_initialize_method_status wperf_knots_init(
	bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	const bt_value *params, void *init_data)
{
	struct knots_sink *s = calloc(1, sizeof *s);

	(void)config;
	(void)init_data;
	if (!s)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	s->self = bt_self_component_sink_as_self_component(self);
	if (sink_read_params(s, params) < 0)
		goto error;
	s->decoder = wperf_decoder_create();
	s->analysis = wperf_analysis_create();
	if (!s->decoder || !s->analysis || sink_setup_analysis(s, s->analysis) < 0) {
		sink_fail(s, "out of memory");
		goto error;
	}
	wperf_decoder_set_window(s->decoder, &s->window);
	for (size_t i = 0; i < s->host_clocks.n; i++) {
		char err[512];

		if (wperf_decoder_give_host_clock(s->decoder, s->host_clocks.items[i], err,
						  sizeof err) < 0) {
			sink_fail(s, "%s", err);
			goto error;
		}
	}
	if (sink_every_init(s) < 0 || sink_sync_init(s) < 0)
		goto error;
	if (bt_self_component_sink_add_input_port(self, "in", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		sink_fail(s, "cannot add input port `in`");
		goto error;
	}
	bt_self_component_set_data(s->self, s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	sink_destroy(s);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_knots_finalize(bt_self_component_sink *self)
{
	sink_destroy(bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self)));
}

static bool sharing_disabled(void)
{
	const char *env = getenv("WPERF_SHARE_ANALYSIS");

	return env && strcmp(env, "0") == 0;
}

/*
 * Reuse the analysis of a filter.wperf.waits connected straight to our
 * input port (shared-analysis.h): it decodes exactly the kernel messages
 * we would, so analysing them again only doubles the cost. Our options
 * go to the shared analysis now, before its first event (the timelines,
 * which the filter does not keep for itself, and nic-capacity, only read
 * when the analysis finishes), and the false-wakeup stage is
 * switched on by the filter's decoder from the same stream classes ours
 * would see. Our own analysis is dropped so nothing can feed it.
 */
static int try_reuse(struct knots_sink *s, const bt_port *in)
{
	const bt_connection *conn = bt_port_borrow_connection_const(in);
	const bt_port_output *up;

	/* every= feeds a second analysis from our decoder; sync-hosts=
	 * holds the messages back and reorders them. */
	if (!conn || sharing_disabled() || s->every_ns || s->sync)
		return 0;
	up = bt_connection_borrow_upstream_port_const(conn);
	/* The filter's window is its analysis': only the same one will do. */
	s->shared = wperf_shared_analysis_claim(
		bt_port_borrow_component_const(bt_port_output_as_port_const(up)), &s->window);
	if (!s->shared)
		return 0;
	if (sink_setup_analysis(s, s->shared->analysis) < 0) {
		sink_fail(s, "out of memory");
		return -1;
	}
	wperf_analysis_destroy(s->analysis);
	s->analysis = NULL;
	return 0;
}

bt_component_class_sink_graph_is_configured_method_status
wperf_knots_graph_is_configured(bt_self_component_sink *self)
{
	struct knots_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_self_component_port_input *port =
		bt_self_component_sink_borrow_input_port_by_name(self, "in");

	if (!bt_port_is_connected(bt_self_component_port_as_port(
		    bt_self_component_port_input_as_self_component_port(port)))) {
		sink_fail(s, "input port `in` is not connected: connect a source of kernel "
			  "events (e.g. source.ctf.fs) to it");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	if (bt_message_iterator_create_from_sink_component(self, port, &s->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		sink_fail(s, "cannot create a message iterator on input port `in`");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	/* Creating our iterator created the upstream one: a filter.wperf.waits
	 * there has registered its analysis by now. */
	if (try_reuse(s, bt_self_component_port_as_port(
		    bt_self_component_port_input_as_self_component_port(port))) < 0)
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* Decode a batch; on error, the messages not yet decoded are released too.
 * While reusing a filter's analysis, that filter has decoded them already. */
static int feed_batch(struct knots_sink *s, bt_message_array_const msgs, uint64_t count)
{
	char err[512];
	int rc = 0;

	if (s->shared) {
		for (uint64_t i = 0; i < count; i++)
			bt_message_put_ref(msgs[i]);
		s->messages_in += count;
		return 0;
	}

	if (s->sync) {
		for (uint64_t i = 0; i < count; i++) {
			if (rc == 0)
				rc = sink_sync_take(s, msgs[i]);
			else
				bt_message_put_ref(msgs[i]);
		}
		return rc;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (rc == 0 &&
		    wperf_decoder_feed_message(s->decoder, s->analysis, msgs[i],
					       err, sizeof err) < 0) {
			sink_fail(s, "%s", err);
			rc = -1;
		}
		bt_message_put_ref(msgs[i]);
	}
	return rc;
}

/*
 * Upstream failed (a corrupt or truncated trace: the reader said why, in
 * a chain of causes). Say in one line what the user needs: the analysis
 * stopped, no report was written, and the root cause, whitespace folded.
 */
static void fail_upstream(struct knots_sink *s)
{
	const bt_error *e = bt_current_thread_take_error();
	char root[512] = "see the causes that follow";
	uint64_t n = e ? bt_error_get_cause_count(e) : 0;

	if (n > 0) {
		/* Index 0 is the oldest cause: where the error began (the
		 * reader of the trace); later ones are its way down the graph. */
		const bt_error_cause *c = bt_error_borrow_cause_by_index(e, 0);
		const char *m = bt_error_cause_get_message(c);
		size_t j = 0;

		if (bt_error_cause_get_actor_type(c) == BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT) {
			const char *plugin, *cls;
			int len;

			plugin = bt_error_cause_component_actor_get_plugin_name(c);
			cls = bt_error_cause_component_actor_get_component_class_name(c);
			len = snprintf(root, sizeof root, "%s.%s: ", plugin ? plugin : "?", cls);

			j = len > 0 && (size_t)len < sizeof root ? (size_t)len : 0;
		}

		for (; m && *m && j + 1 < sizeof root; m++) {
			bool space = *m == ' ' || *m == '\n' || *m == '\t';

			if (!space || (j > 0 && root[j - 1] != ' '))
				root[j++] = space ? ' ' : *m;
		}
		root[j] = '\0';
	}
	if (e)
		bt_current_thread_move_error(e);
	/* The muxer's words for clocks that disagree are cryptic. */
	sink_fail(s, "cannot read the trace to its end: %s%s; no report was written", root,
		  strstr(root, "muxer") && strstr(root, "timestamp is less than")
		  ? " (events go back in time across streams: a corrupt packet, or the "
		    "packet ends of lttng-modules before 2.9.13 overlapping the next packet: "
		    "put filter.wperf.repair before the muxer, as wperf report does)" : "");
}

bt_component_class_sink_consume_method_status
wperf_knots_consume(bt_self_component_sink *self)
{
	struct knots_sink *s = bt_self_component_get_data(
		bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t count = 0;

	switch (bt_message_iterator_next(s->iter, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		if (feed_batch(s, msgs, count) < 0)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		BT_MESSAGE_ITERATOR_PUT_REF_AND_RESET(s->iter);
		/* every= ends its stream of reports (knots-every.c); else the
		 * one report (knots-report.c). */
		if (s->sync && sink_sync_end(s) < 0)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		sink_print_decode_stats(s);
		if ((s->every_ns ? sink_finish_every(s) : sink_finish(s)) < 0)
			return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_ERROR:
	default:
		fail_upstream(s);
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
}

