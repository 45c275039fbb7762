/* SPDX-License-Identifier: MIT */
/*
 * plugin/waits/waits-filter.c — filter.wperf.waits: forward every upstream
 * message unchanged and add a trace named `wperf` with one
 * `wperf:segment` event per closed thread segment (running, runnable,
 * waiting), so any babeltrace2 sink or viewer shows the analysis' view of
 * each thread beside the kernel events it came from. With
 * segments-only=true the upstream messages are analysed and dropped: the
 * output is the `wperf` trace alone. begin/end count a time window of the
 * whole trace read (window.h).
 *
 * How it works: each upstream batch is appended to an output queue one
 * message at a time, and each message is fed to the decoder right after
 * being queued. The analysis reports segments synchronously as they close,
 * so the segment events land in the queue right behind the message that
 * closed them, stamped with its time: the output never goes back in time.
 * At upstream end the analysis closes what is still open; those segments,
 * then our packet end and stream end, are stamped with the latest time
 * seen. The queue only ever holds one upstream batch and what it caused
 * (or, at the end, the segments still open), so memory stays bounded.
 *
 * The `wperf` trace itself (classes, stream, messages) is in waits-trace.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "components.h"
#include "common/comp-error.h"
#include "common/decode.h"
#include "common/params.h"
#include "common/shared-analysis.h"
#include "waits-select.h"
#include "waits-trace.h"
#include "common/window.h"
#include "wperf/analysis.h"
#include "wperf/graph.h"

const char wperf_waits_description[] =
	"Forward every message and add a `wperf` trace with one `wperf:segment` "
	"event per thread segment (running, runnable, waiting; waker and cascaded weight).";

const char wperf_waits_help[] =
	"filter.wperf.waits forwards every upstream message unchanged and adds its own\n"
	"trace, named `wperf`, with one stream of `wperf:segment` events: one event per\n"
	"segment of a thread's time (running, runnable, waiting), as the wPerf analysis\n"
	"cuts them from the kernel scheduler, interrupt and block events.\n"
	"\n"
	"The event's time is when the segment closed (the time of the kernel event that\n"
	"closed it, or the end of the trace for segments still open there). Its clock is\n"
	"a copy of the kernel trace's clock, so both traces share one time base.\n"
	"\n"
	"Payload fields:\n"
	"  vertex      (u64)    the thread's vertex id in the wait-for graph\n"
	"  tid, pid    (s64)    thread and process ids\n"
	"  name        (string) the thread's command name (comm)\n"
	"  state       (string) \"running\", \"runnable\" or \"waiting\"\n"
	"  start       (s64)    when the segment began, ns from the clock's origin\n"
	"  duration    (s64)    its length in ns\n"
	"  waker       (s64)    vertex id of what ended the wait; -1 if not waiting\n"
	"  waker_name  (string) that vertex's name (\"disk:sda\", a comm, ...); \"\" if none\n"
	"                       or not known yet (a thread first seen waking this one)\n"
	"  waker_kind  (string) thread, disk, nic, irq, softirq, timer, unknown; \"\" if none\n"
	"  cascade     (s64)    ns this wait adds to the graph beyond its own duration,\n"
	"                       along its waker's own waits (cascaded redistribution)\n"
	"\n"
	"Parameters (optional; the analysis still sees every thread, for wakers,\n"
	"cascaded weights and knots; only the segment events are chosen):\n"
	"  pids=LIST     Only the segments of these processes or threads: a thread\n"
	"                matches if its tid, or its pid (tgid) once the trace has\n"
	"                said it, is listed. An array or a comma-separated string.\n"
	"  comms=LIST    Only the segments of threads with these names (comm).\n"
	"                With pids too: a thread either lists is shown.\n"
	"  follow-forks=BOOL\n"
	"                With pids or comms: also the segments of the threads a\n"
	"                listed one forked, directly or not, in the trace.\n"
	"                Default: false.\n"
	"  states=LIST   Only segments in these states: running, runnable,\n"
	"                waiting. Default: all three.\n"
	"  begin=TIME, end=TIME\n"
	"                Only the segments' parts inside this time window, the\n"
	"                whole trace still read (thread names, processes, states\n"
	"                from before it); the forms of babeltrace2 --begin/--end.\n"
	"  gmt=BOOL      Dates and times of day in begin/end are UTC. Default: false.\n"
	"  segments-only=BOOL\n"
	"                Forward only the `wperf` trace, not the upstream messages.\n"
	"                Default: false.\n"
	"  A choice that matches no segment gives an output without the `wperf`\n"
	"  trace, and a one-line note on standard error.\n"
	"\n"
	"Example:\n"
	"  babeltrace2 TRACE -c filter.wperf.waits -c sink.text.pretty\n"
	"  babeltrace2 TRACE -c filter.wperf.waits \\\n"
	"    --params='pids=1234,states=\"waiting\",segments-only=true' -c sink.text.pretty\n"
	"  babeltrace2 TRACE -c filter.wperf.waits -c sink.ctf.fs --params='path=\"OUT\"'\n"
	"    (writes the segments in OUT/wperf, beside a copy of the kernel trace)\n"
	"\n"
	"sink.wperf.knots skips the `wperf` trace, so it can follow this filter; when it\n"
	"is connected straight to it, it reuses this filter's analysis instead of\n"
	"analysing the same kernel events a second time (same report, less work).\n"
	"The trace must contain kernel scheduler events (sched_switch, sched_waking or\n"
	"sched_wakeup); without them the filter stops with an error at the end.\n"
	"\n"
	"See the babeltrace2-filter.wperf.waits(7) manual page.\n";

/* The component: its input port, for iterators to connect to, and which
 * segments they show. */
struct waits_component {
	bt_self_component_port_input *in_port;
	struct waits_selection selection;
	struct wperf_window window;   /* begin/end/gmt */
	bool segments_only;           /* drop the upstream messages */
};

struct waits_iter {
	bt_self_message_iterator *self;
	bt_message_iterator *upstream;
	/* Decoder and analysis, which a sink.wperf.knots right behind us
	 * may reuse (shared-analysis.h); decoder and analysis are borrowed
	 * from it. */
	struct wperf_shared_analysis *shared;
	struct wperf_decoder *decoder;
	struct wperf_analysis *analysis;
	struct waits_queue queue;
	struct waits_trace *trace;   /* created at the first segment shown */
	const struct waits_selection *selection;  /* the component's */
	bool segments_only;                       /* the component's */
	struct waits_lineage lineage;             /* follow-forks: ours */
	uint64_t segments_shown, segments_hidden;
	struct waits_time latest;    /* time of the latest forwarded message */
	/* The decoder notes every message's time (its latest_time); `latest`
	 * is brought up to it only when a segment needs it or a batch is
	 * done (settle_latest()): most messages close no segment. This is
	 * the decoder's count for the time `latest` was last brought to. */
	uint64_t latest_seq;
	bool segments_dropped;       /* drop_unread_segments() did */
	bool finishing;              /* inside wperf_analysis_finish() */
	bool ended;                  /* upstream ended and everything is queued */
	bool failed;                 /* an error was met (err says which): stop */
	char err[512];
};

/* ---- Component --------------------------------------------------------- */

static bt_component_class_initialize_method_status
init_error(bt_self_component_filter *self, struct waits_component *comp,
	   const char *what)
{
	WPERF_COMP_ERROR(bt_self_component_filter_as_self_component(self), NULL, "%s", what);
	waits_selection_fini(&comp->selection);
	free(comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

bt_component_class_initialize_method_status wperf_waits_init(
	bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	const bt_value *params, void *init_data)
{
	static const char *const known_params[] = { "pids", "comms", "follow-forks", "states",
						    "begin", "end", "gmt", "segments-only",
						    NULL };
	struct waits_component *comp = calloc(1, sizeof(*comp));
	char err[512];

	(void)config;
	(void)init_data;
	if (!comp)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (wperf_params_check_known(params, known_params, err, sizeof(err)) ||
	    waits_selection_read(&comp->selection, params, err, sizeof(err)) ||
	    wperf_params_get_window(params, &comp->window, err, sizeof(err)) < 0 ||
	    wperf_params_get_bool(params, "segments-only", &comp->segments_only, err,
				  sizeof(err)) < 0)
		return init_error(self, comp, err);
	if (bt_self_component_filter_add_input_port(self, "in", NULL, &comp->in_port) ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL))
		return init_error(self, comp, "cannot add the `in` and `out` ports (out of memory?)");
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void wperf_waits_finalize(bt_self_component_filter *self)
{
	struct waits_component *comp = bt_self_component_get_data(
		bt_self_component_filter_as_self_component(self));

	if (comp)
		waits_selection_fini(&comp->selection);
	free(comp);
}

/* ---- Times of upstream messages --------------------------------------- */

/* Make `latest` the time of the latest message seen. Its message is in
 * the queue (or being fed), which keeps the decoder's snapshot alive. */
static void settle_latest(struct waits_iter *it)
{
	uint64_t seq;
	const bt_clock_snapshot *cs = wperf_decoder_latest_time(it->decoder, &seq);

	if (!cs || seq == it->latest_seq)
		return;
	waits_time_advance(&it->latest, cs);
	it->latest_seq = seq;
}

/* ---- Segments ---------------------------------------------------------- */

/*
 * When a segment event goes out. While streaming: at the message that
 * closed it (the latest one), so that the next upstream message is not
 * earlier. At the end (finishing): at the segment's own end if that is
 * later, since nothing upstream follows any more.
 */
static const struct waits_time *segment_event_time(struct waits_iter *it,
						   const struct wperf_segment *seg)
{
	settle_latest(it);
	if (!it->latest.known || (it->finishing && seg->end_ns > it->latest.ns))
		waits_time_set_ns(&it->latest, seg->end_ns);
	return &it->latest;
}

static void fail(struct waits_iter *it, const char *what)
{
	if (!it->failed)
		snprintf(it->err, sizeof(it->err), "%s", what);
	it->failed = true;
}

/* The analysis' segment callback: queue one `wperf:segment` event. Errors
 * are kept in it->failed and reported once the current message is done. */
static void on_segment(const struct wperf_segment *seg, void *data)
{
	struct waits_iter *it = data;

	if (it->failed)
		return;
	if (!waits_selection_has(it->selection, &it->lineage, it->analysis, seg)) {
		it->segments_hidden++;
		return;
	}
	it->segments_shown++;
	/* A knots sink that claimed this analysis is connected straight to
	 * our only output port, and it skips the `wperf` trace unread
	 * (shared-analysis.h): building an event of eleven fields per
	 * segment for it alone would cost more than the analysis. With any
	 * other reader (sink.ctf.fs, sink.text.pretty, a second filter)
	 * nothing is claimed and every segment goes out. */
	if (it->shared->claimed && wperf_decoder_clock_class(it->decoder))
		return;
	if (!it->trace) {
		const bt_clock_class *kernel_clock = wperf_decoder_clock_class(it->decoder);

		if (!kernel_clock) {
			fail(it, "cannot timestamp `wperf:segment` events: the kernel "
				 "streams have no clock; record the trace with timestamps");
			return;
		}
		it->trace = waits_trace_create(it->self, kernel_clock, it->err, sizeof(it->err));
		if (!it->trace) {
			it->failed = true;
			return;
		}
	}
	if (waits_trace_emit_segment(it->trace, seg, segment_event_time(it, seg),
				     &it->queue, it->err, sizeof(it->err)))
		it->failed = true;
}

/* ---- Iterator ---------------------------------------------------------- */

static bt_message_iterator_class_next_method_status
iter_error(struct waits_iter *it, const char *what)
{
	WPERF_ITER_ERROR(it->self, NULL, "%s", what);
	it->failed = true;   /* never resume after an error */
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
}

static void iter_destroy(struct waits_iter *it)
{
	if (!it)
		return;
	waits_queue_fini(&it->queue);
	waits_lineage_fini(&it->lineage);
	waits_time_fini(&it->latest);
	waits_trace_destroy(it->trace);
	wperf_shared_analysis_unregister(it->shared);
	wperf_shared_analysis_put(it->shared);
	bt_message_iterator_put_ref(it->upstream);
	free(it);
}

bt_message_iterator_class_initialize_method_status wperf_waits_iter_init(
	bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port)
{
	struct waits_component *comp = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct waits_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	it->self = self;
	it->selection = &comp->selection;
	if (bt_message_iterator_create_from_message_iterator(self, comp->in_port,
							     &it->upstream)) {
		/* The upstream component already said why. */
		WPERF_ITER_ERROR(self, NULL, "cannot create the upstream message iterator on port `in`");
		iter_destroy(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	it->shared = wperf_shared_analysis_create(bt_self_component_as_component(
		bt_self_message_iterator_borrow_component(self)));
	if (!it->shared) {
		iter_destroy(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	it->decoder = it->shared->decoder;
	it->analysis = it->shared->analysis;
	it->segments_only = comp->segments_only;
	/* A sink reusing this analysis checks it counts the window it wants. */
	it->shared->window = comp->window;
	wperf_decoder_set_window(it->decoder, &comp->window);
	/* The filter draws nothing: a knots sink that claims this analysis
	 * turns the timelines back on when its format draws them. Kept
	 * always, they cost a division per segment for nobody. */
	wperf_analysis_keep_timelines(it->analysis, false);
	wperf_analysis_on_segment(it->analysis, on_segment, it);
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void wperf_waits_iter_finalize(bt_self_message_iterator *self)
{
	iter_destroy(bt_self_message_iterator_get_data(self));
}

/*
 * Queue one upstream message, then feed it to the analysis (which may
 * queue segment events right behind it). 0, or -1 with it->err set.
 */
/* segments-only: analyse the message, then let it go. Its time is
 * settled first: the decoder borrows it from the message. */
static int analyse_only(struct waits_iter *it, const bt_message *msg)
{
	int rc = wperf_decoder_feed_message(it->decoder, it->analysis, msg, it->err,
					    sizeof(it->err));

	settle_latest(it);
	bt_message_put_ref(msg);
	if (rc)
		it->failed = true;
	return it->failed ? -1 : 0;
}

static int forward_and_analyse(struct waits_iter *it, const bt_message *msg)
{
	if (it->segments_only)
		return analyse_only(it, msg);
	if (waits_queue_push(&it->queue, msg)) {
		fail(it, "out of memory while queueing upstream messages");
		return -1;
	}
	/* The queue holds our reference: msg stays valid while fed. */
	if (wperf_decoder_feed_message(it->decoder, it->analysis, msg, it->err,
				       sizeof(it->err))) {
		it->failed = true;
		return -1;
	}
	return it->failed ? -1 : 0;
}

static bt_message_iterator_class_next_method_status
forward_batch(struct waits_iter *it, bt_message_array_const msgs, uint64_t count)
{
	for (uint64_t i = 0; i < count; i++) {
		if (forward_and_analyse(it, msgs[i])) {
			/* Release what we did not get to; the queue is
			 * released when the iterator is finalised. */
			for (uint64_t j = i + 1; j < count; j++)
				bt_message_put_ref(msgs[j]);
			return iter_error(it, it->err);
		}
	}
	/* Downstream may release these messages once they are handed out. */
	settle_latest(it);
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * Upstream is done: close the segments still open (they go out at the
 * latest time seen, or their own end if later), then end our stream. A
 * trace the analysis cannot use is an error: this filter exists to show
 * segments, and silently showing none would mislead.
 */
static bt_message_iterator_class_next_method_status finish(struct waits_iter *it)
{
	struct wperf_graph graph;
	int status;

	memset(&graph, 0, sizeof(graph));
	it->finishing = true;
	status = wperf_decoder_finish(it->decoder, it->analysis, &graph);
	/* claimed was set when the graph was configured, in this thread. */
	if (status == 0 && it->shared->claimed) {
		/* The knots sink behind us reports it. */
		it->shared->graph = graph;
		it->shared->finished = true;
	} else {
		wperf_graph_fini(&graph);   /* nobody reports it */
	}
	if (status != 0)
		return iter_error(it, wperf_decoder_explain(it->decoder,
							   wperf_analysis_error(it->analysis)));
	if (it->failed)
		return iter_error(it, it->err);
	/* Asked for segments and shown none: an empty choice, not a broken
	 * run (the upstream messages may all be out already), but say so
	 * rather than look empty. */
	if (it->segments_shown == 0 && it->segments_hidden > 0) {
		waits_selection_explain_none(it->selection, it->segments_hidden, it->err,
					     sizeof(it->err));
		fprintf(stderr, "filter.wperf.waits: note: %s; the output has no `wperf` trace\n",
			it->err);
	}
	if (it->trace &&
	    waits_trace_emit_end(it->trace, &it->latest, &it->queue, it->err, sizeof(it->err)))
		return iter_error(it, it->err);
	it->ended = true;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}

/*
 * A knots sink that claimed this analysis reads none of our segments
 * (on_segment() makes no events for it), and when every segment is
 * chosen none is hidden either, so nothing is left to count: the
 * analysis then stops describing each segment for us (about 70
 * instructions per event). A sink claims before any message goes out.
 */
static void drop_unread_segments(struct waits_iter *it)
{
	if (it->shared->claimed && waits_selection_is_everything(it->selection)) {
		wperf_analysis_on_segment(it->analysis, NULL, NULL);
		it->segments_dropped = true;
	}
}

/* Get one batch from upstream into the queue, or learn it has ended. */
static bt_message_iterator_class_next_method_status pull_upstream(struct waits_iter *it)
{
	bt_message_array_const msgs;
	uint64_t count = 0;

	if (!it->segments_dropped)
		drop_unread_segments(it);
	switch (bt_message_iterator_next(it->upstream, &msgs, &count)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return forward_batch(it, msgs, count);
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return finish(it);
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		/* Upstream appended its own cause. */
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

bt_message_iterator_class_next_method_status wperf_waits_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count)
{
	struct waits_iter *it = bt_self_message_iterator_get_data(self);

	while (waits_queue_is_empty(&it->queue)) {
		bt_message_iterator_class_next_method_status status;

		if (it->ended)
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
		if (it->failed)  /* already reported; do not go on */
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		status = pull_upstream(it);
		if (status != BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK)
			return status;
	}
	*count = waits_queue_pop(&it->queue, msgs, capacity);
	/* A sink reusing our analysis checks it received all of them. */
	it->shared->messages_out += *count;
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
}
