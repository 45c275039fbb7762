/*
 * plugin/tracefs/tracefs-source.c — source.wperf.tracefs: record kernel scheduler,
 * interrupt, timer, block and network events from tracefs (ftrace) and
 * emit them as one babeltrace2 trace in the LTTng kernel layout.
 *
 * Pieces:
 *   tracefs-recorder.c   the private ftrace instance and per-CPU readers;
 *   tracefs-layout.c     ftrace event → LTTng event name and fields;
 *   tracefs-statedump.c  the initial threads and disks from /proc, /sys;
 *   tracefs-idle.c       restores switches out of idle the kernel missed;
 *   this file            the component, the trace IR and the messages.
 *
 * Time order. A message iterator must emit non-decreasing times across
 * all its streams, but ftrace only orders events within one CPU. We keep
 * one output port and merge the CPUs with a watermark: the oldest queued
 * event of all CPUs is emitted only when no CPU can still deliver an older
 * one, i.e. when every CPU with nothing queued was last found empty after
 * that time (see COMMIT_MARGIN_NS in tracefs-recorder.c). One port per CPU
 * with inactivity messages would push the same merge onto the muxer and
 * make every downstream user handle inactivity; a single merged port keeps
 * the recorder self-contained and the muxer trivial. At stop we turn
 * tracing off and drain every CPU, so the whole tail comes out in order.
 * Memory stays bounded: only the events newer than the watermark (a few
 * poll periods) are held, as raw ring-buffer pages.
 *
 * Ctrl-C. The babeltrace2 CLI's SIGINT handler only sets the graph's
 * interrupter; bt_graph_run() then returns before the next consume and the
 * CLI destroys the graph at once: no iterator is called again, so no sink
 * ever sees the end of the packets and streams. To end a recording made
 * "until interrupted" properly, the iterator takes the FIRST SIGINT itself
 * (unless SIGINT is ignored), puts the previous handler back at once (so a
 * second Ctrl-C interrupts as usual), and turns the signal into "stop
 * tracing, drain, end packets and streams, then END". SIGTERM (kill,
 * timeout(1), systemd) and SIGHUP (the terminal closed) get the same:
 * uncaught, they end the process with no trace metadata written and the
 * tracefs instance left recording. A program running
 * the graph itself gets the same stop from its interrupter
 * (bt_self_message_iterator_is_interrupted()) if it keeps the graph going.
 *
 * Snapshots. With instance="NAME" and snapshot=true the component attaches
 * to a flight recorder (an instance left recording in overwrite mode by
 * `wperf record --snapshot`), takes a snapshot of its ring buffers (see
 * wperf_recorder_open_snapshot()), reads it all at initialization, emits
 * it, and ends. The instance keeps recording and is never modified. The
 * statedump is read from /proc at the snapshot time and stamped with it,
 * after the events, as `lttng regenerate statedump` does before an LTTng
 * snapshot: the buffer's beginning has been overwritten long ago, so no
 * earlier time would be true.
 *
 * Ready. Tracing is on only once the iterator exists, after every event
 * was enabled at initialization (which reads the kernel's formats: a second
 * or more). A program that starts a command "once the recorder records"
 * cannot tell that from tracefs (a new instance reads tracing_on=1 before
 * anything is enabled). With ready-file="PATH", the iterator writes a marker
 * to the instance's trace_marker right after turning tracing on, and writes
 * PATH (the time of the event, in ns, and a newline) when it reads back an
 * event recorded after that instant: the marker, or any other. Everything
 * that happens after PATH appears is in the trace (bar losses, which the
 * trace says).
 *
 * Packets. Each CPU stream gets a new packet every PACKET_PERIOD_NS, for
 * two reasons: sink.ctf.fs only writes a packet when it ends (so a
 * recording stopped by Ctrl-C in the babeltrace2 CLI, which destroys the
 * graph without ending the streams, keeps all but the last period), and
 * CTF 1.8 can only place discarded events between two packet ends.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "components.h"
#include "common/params.h"
#include "tracefs-idle.h"
#include "tracefs-layout.h"
#include "tracefs-recorder.h"
#include "tracefs-statedump.h"

#define NS_PER_S            UINT64_C(1000000000)
#define PACKET_PERIOD_NS    (NS_PER_S / 2)
#define DEFAULT_BUFFER_KB   4096
#define EVENTS_PER_PRODUCE  256
#define IDLE_SLEEP_NS       (20 * 1000 * 1000)

const char wperf_tracefs_description[] =
	"Record kernel scheduler, interrupt, timer, block and network events "
	"from tracefs (ftrace) as an LTTng-like kernel trace.";

const char wperf_tracefs_help[] =
	"Records the kernel events the wPerf analysis needs from tracefs, in a\n"
	"private ftrace instance (the global trace buffer is never touched),\n"
	"and emits them as one trace named \"kernel\" in the lttng-modules 2.13\n"
	"layout: one stream per CPU (packet context `cpu_id`), clock\n"
	"\"monotonic\" (ns, Unix-epoch origin, UUID = boot id), so it merges\n"
	"with LTTng-UST traces. A statedump of every thread and block device\n"
	"is synthesised at the start. Needs root (or access to tracefs).\n"
	"\n"
	"Parameters:\n"
	"  duration=SECONDS|DURATION  How long to record: seconds, or a string\n"
	"                             like \"3\", \"1.5s\", \"250ms\", \"2m\".\n"
	"                             Default: until the graph is interrupted.\n"
	"                             The first Ctrl-C, SIGTERM (kill, timeout)\n"
	"                             or SIGHUP ends the recording cleanly: the\n"
	"                             trace is complete and the instance removed.\n"
	"  buffer-size-kb=KB          Ring buffer size per CPU, in KiB (4 to\n"
	"                             1048576). Default: 4096, about 1 s of a\n"
	"                             busy CPU, so a downstream stall or the\n"
	"                             CLI's retry sleep loses nothing. Lost\n"
	"                             events become discarded-events messages.\n"
	"  instance=\"NAME\"            With snapshot=true: the existing ftrace\n"
	"                             instance to read (a flight recorder left by\n"
	"                             `wperf record --snapshot`); it is used as\n"
	"                             it is, never created, changed or removed.\n"
	"  snapshot=true              Take a snapshot of what the instance's ring\n"
	"                             buffers hold now, emit it, then end. The\n"
	"                             instance keeps recording.\n"
	"  ready-file=\"PATH\"          Write PATH (the trace time in ns and a\n"
	"                             newline) once the recording is known to\n"
	"                             record: every event enabled, tracing on,\n"
	"                             and an event recorded since then read back.\n"
	"                             Start what is to be traced after it appears\n"
	"                             (wperf record does). Not with snapshot=true.\n"
	"  stacks=\"none\"|\"kernel\"     kernel: also record the kernel stack of\n"
	"                             every thread that switches out (ftrace's\n"
	"                             stacktrace trigger on sched_switch), as\n"
	"                             `wperf_kernel_stack` events: where each wait\n"
	"                             began. Costs about a microsecond per switch.\n"
	"                             Default: none.\n"
	"\n"
	"Example:\n"
	"  babeltrace2 -c source.wperf.tracefs --params=duration=3 \\\n"
	"              -c sink.ctf.fs --params='path=\"/tmp/kernel-trace\"'\n"
	"  babeltrace2 -c source.wperf.tracefs \\\n"
	"              --params='instance=\"wperf-flight-x\",snapshot=true' \\\n"
	"              -c sink.ctf.fs --params='path=\"/tmp/snap\"'\n"
	"\n"
	"See the babeltrace2-source.wperf.tracefs(7) manual page; recording with\n"
	"it from the command line: wperf(1).\n";

struct tracefs_comp {
	bt_self_component *self;
	int64_t duration_ns;            /* -1: until interrupted */
	int64_t buffer_size_kb;
	const char *instance;           /* attach to it (snapshot) */
	char *ready_file;               /* ready-file: written once recording */
	bool snapshot;
	bool kernel_stacks;             /* stacks="kernel" */
	struct wperf_recorder *rec;
	bt_trace_class *trace_class;
	bt_stream_class *stream_class;
	bt_clock_class *clock_class;
	struct wperf_bound_layout *bound;  /* one per ftrace event recorded */
	const struct wperf_bound_layout *switch_layout;
	size_t nbound;
	int *bound_by_id;               /* ftrace event id → index in bound */
	int max_id;
	bt_event_class *ec_sd_process, *ec_sd_block, *ec_sd_start, *ec_sd_end;
	bool has_iterator;
};

struct cpu_stream {
	bt_stream *stream;
	bt_packet *packet;              /* open packet, NULL between packets */
};

enum phase {
	PHASE_BEGIN,      /* stream and packet beginnings */
	PHASE_STATEDUMP,  /* synthetic lttng_statedump_* events */
	PHASE_RECORDING,  /* live: merge below the watermark */
	PHASE_DRAINING,   /* tracing off: read and emit what is left */
	PHASE_ENDING,     /* leftover losses, packet and stream ends */
	PHASE_DONE,
};

struct tracefs_iter {
	struct tracefs_comp *comp;
	bt_self_message_iterator *self;
	bt_trace *trace;
	struct cpu_stream *streams;
	int ncpus;
	struct wperf_statedump sd;
	struct wperf_idle_tracker idle;
	size_t sd_next;                 /* next statedump item to emit */
	enum phase phase;
	uint64_t start_ts, stop_ts;
	uint64_t sd_ts;                 /* the statedump's time */
	uint64_t last_ts;               /* time of the last message emitted */
	uint64_t packet_cut_ts;         /* when the open packets began */
	uint64_t clamped;               /* events stamped before last_ts */
	uint64_t ready_after_ts;        /* tracing was on from this time */
	bool ready_said;                /* ready-file written */
	const bt_message **out;         /* messages made, not yet handed out */
	size_t out_head, out_len, out_cap;
	char err[512];
};

/* ------------------------------------------------------------------ */
/* The first Ctrl-C, SIGTERM or SIGHUP (see the header comment)       */
/* ------------------------------------------------------------------ */

/* Signals that ask a process to end: Ctrl-C, kill and timeout(1), a closed
 * terminal. Uncaught, SIGTERM and SIGHUP would end the process at once:
 * no finalization, so sink.ctf.fs writes no metadata (an unreadable trace)
 * and the tracefs instance stays, recording, until the next start. */
static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define N_STOP_SIGNALS (sizeof stop_signals / sizeof stop_signals[0])

static volatile sig_atomic_t stop_signal_received;   /* the signal, or 0 */
static struct sigaction previous_action[N_STOP_SIGNALS];
static bool stop_signals_taken;

static void on_first_stop_signal(int signum)
{
	stop_signal_received = signum;
	/* The next one of the same kind does what it did before (a second
	 * Ctrl-C interrupts the CLI). sigaction() is async-signal-safe. */
	for (size_t i = 0; i < N_STOP_SIGNALS; i++)
		if (stop_signals[i] == signum)
			sigaction(signum, &previous_action[i], NULL);
}

static void take_first_stop_signals(void)
{
	struct sigaction ours = { .sa_handler = on_first_stop_signal };

	if (stop_signals_taken)
		return;
	sigemptyset(&ours.sa_mask);
	stop_signal_received = 0;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
		if (sigaction(stop_signals[i], NULL, &previous_action[i]) ||
		    previous_action[i].sa_handler == SIG_IGN)
			continue;  /* ignored (nohup, background job): leave it so */
		sigaction(stop_signals[i], &ours, NULL);
	}
	stop_signals_taken = true;
}

/* Put back the handlers still ours (those not received yet). */
static void give_back_stop_signals(void)
{
	if (!stop_signals_taken)
		return;
	for (size_t i = 0; i < N_STOP_SIGNALS; i++) {
		struct sigaction now;

		if (sigaction(stop_signals[i], NULL, &now) == 0 &&
		    now.sa_handler == on_first_stop_signal)
			sigaction(stop_signals[i], &previous_action[i], NULL);
	}
	stop_signals_taken = false;
}

/* ------------------------------------------------------------------ */
/* Component: parameters, trace class, event classes                    */
/* ------------------------------------------------------------------ */

static const char *const known_params[] = {
	"duration", "buffer-size-kb", "instance", "snapshot", "stacks", "ready-file", NULL
};

/* The longest instance name taken; wperf's own are "wperf-flight-" and a
 * pid or a short word. */
#define INSTANCE_NAME_MAX 64

/* An ftrace instance is a directory under tracefs' instances/: its name
 * must be one plain path component, so that "..", "a/b" or "" cannot make
 * the component (run as root) read or write elsewhere in tracefs. */
static bool plain_instance_name(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > INSTANCE_NAME_MAX || name[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = name[i];
		if (!(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') &&
		    !(c >= '0' && c <= '9') && c != '_' && c != '-' && c != '.')
			return false;
	}
	return true;
}

/* instance and snapshot go together, and a snapshot has no duration. */
static int read_snapshot_params(struct tracefs_comp *comp, const bt_value *params,
				char *err, size_t errlen)
{
	int has_instance = wperf_params_get_string(params, "instance",
						   &comp->instance, err, errlen);

	if (has_instance < 0 ||
	    wperf_params_get_bool(params, "snapshot", &comp->snapshot, err, errlen) < 0)
		return -1;
	if (has_instance && !plain_instance_name(comp->instance)) {
		snprintf(err, errlen, "parameter `instance`: \"%.64s\" is not an "
			 "instance name (letters, digits, '_', '-' and '.', not "
			 "starting with '.', at most %d characters)",
			 comp->instance, INSTANCE_NAME_MAX);
		return -1;
	}
	if (comp->snapshot && !has_instance) {
		snprintf(err, errlen, "parameter `snapshot`: needs `instance`, the "
			 "flight-recorder instance to take the snapshot of");
		return -1;
	}
	if (has_instance && !comp->snapshot) {
		snprintf(err, errlen, "parameter `instance`: only with snapshot=true "
			 "(a live recording always uses a private instance)");
		return -1;
	}
	if (comp->snapshot && comp->duration_ns > 0) {
		snprintf(err, errlen, "parameter `duration`: not with snapshot=true "
			 "(a snapshot holds what the buffers hold, then ends)");
		return -1;
	}
	return 0;
}

/* stacks="none" (default) or "kernel". */
static int read_stacks_param(struct tracefs_comp *comp, const bt_value *params,
			     char *err, size_t errlen)
{
	const char *v = NULL;
	int rc = wperf_params_get_string(params, "stacks", &v, err, errlen);

	if (rc <= 0)
		return rc;
	if (strcmp(v, "kernel") == 0)
		comp->kernel_stacks = true;
	else if (strcmp(v, "none") != 0) {
		snprintf(err, errlen, "parameter `stacks`: unknown value \"%s\" (expected "
			 "\"none\" or \"kernel\")", v);
		return -1;
	}
	if (comp->kernel_stacks && wperf_params_get_bool(params, "snapshot", &comp->snapshot,
							 err, errlen) >= 0 && comp->snapshot) {
		snprintf(err, errlen, "parameter `stacks`: not with snapshot=true (a "
			 "flight recorder records the stacks it was set up with)");
		return -1;
	}
	return 0;
}

/* ready-file="PATH": kept (params do not outlive initialization). */
static int read_ready_param(struct tracefs_comp *comp, const bt_value *params,
			    char *err, size_t errlen)
{
	const char *v = NULL;
	int rc = wperf_params_get_string(params, "ready-file", &v, err, errlen);

	if (rc <= 0)
		return rc;
	if (!v[0]) {
		snprintf(err, errlen, "parameter `ready-file`: empty path");
		return -1;
	}
	if (comp->snapshot) {
		snprintf(err, errlen, "parameter `ready-file`: not with snapshot=true "
			 "(a snapshot records nothing new)");
		return -1;
	}
	comp->ready_file = strdup(v);
	if (!comp->ready_file) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static int read_params(struct tracefs_comp *comp, const bt_value *params,
		       char *err, size_t errlen)
{
	comp->duration_ns = -1;
	comp->buffer_size_kb = DEFAULT_BUFFER_KB;
	if (wperf_params_check_known(params, known_params, err, errlen) < 0)
		return -1;
	if (wperf_params_get_duration_ns(params, "duration", &comp->duration_ns,
					 err, errlen) < 0)
		return -1;
	if (comp->duration_ns == 0) {
		snprintf(err, errlen, "parameter `duration`: must be greater "
			 "than zero (seconds, or a string like \"1.5s\")");
		return -1;
	}
	if (wperf_params_get_int(params, "buffer-size-kb", 4, 1048576,
				 &comp->buffer_size_kb, err, errlen) < 0)
		return -1;
	if (read_stacks_param(comp, params, err, errlen) < 0 ||
	    read_snapshot_params(comp, params, err, errlen) < 0)
		return -1;
	return read_ready_param(comp, params, err, errlen);
}

/* The boot id is the UUID LTTng gives the monotonic clock: two traces of
 * the same boot then correlate in the muxer. */
static int read_boot_id(uint8_t uuid[16])
{
	char text[64];
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	int n = 0;

	if (!f)
		return -1;
	if (!fgets(text, sizeof(text), f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	for (const char *p = text; *p && n < 16; p++) {
		unsigned byte;

		if (*p == '-')
			continue;
		if (sscanf(p, "%2x", &byte) != 1)
			return -1;
		uuid[n++] = (uint8_t)byte;
		p++;
	}
	return n == 16 ? 0 : -1;
}

/* CLOCK_REALTIME - CLOCK_MONOTONIC now: where the monotonic clock's zero
 * lies in Unix time. Read between two monotonic reads to halve the error. */
static uint64_t monotonic_to_epoch_offset(void)
{
	struct timespec real;
	uint64_t before = wperf_monotonic_ns(), after;

	clock_gettime(CLOCK_REALTIME, &real);
	after = wperf_monotonic_ns();
	return (uint64_t)real.tv_sec * NS_PER_S + (uint64_t)real.tv_nsec -
		(before + (after - before) / 2);
}

static bt_clock_class *create_clock_class(bt_self_component *self)
{
	bt_clock_class *cc = bt_clock_class_create(self);
	uint64_t offset = monotonic_to_epoch_offset();
	uint8_t uuid[16];

	if (!cc)
		return NULL;
	bt_clock_class_set_name(cc, "monotonic");
	bt_clock_class_set_description(cc, "Monotonic Clock");
	bt_clock_class_set_frequency(cc, NS_PER_S);
	bt_clock_class_set_offset(cc, (int64_t)(offset / NS_PER_S), offset % NS_PER_S);
	bt_clock_class_set_origin_is_unix_epoch(cc, BT_TRUE);
	if (read_boot_id(uuid) == 0)
		bt_clock_class_set_uuid(cc, uuid);
	return cc;
}

static bt_field_class *create_packet_context_class(bt_trace_class *tc)
{
	bt_field_class *context = bt_field_class_structure_create(tc);
	bt_field_class *cpu_id = bt_field_class_integer_unsigned_create(tc);

	if (!context || !cpu_id ||
	    bt_field_class_structure_append_member(context, "cpu_id", cpu_id)) {
		bt_field_class_put_ref(context);
		context = NULL;
	}
	bt_field_class_integer_set_field_value_range(cpu_id, 32);
	bt_field_class_put_ref(cpu_id);
	return context;
}

/*
 * The event common context LTTng writes with `add-context -k -t tid`: the
 * thread running when the event was recorded (ftrace's common_pid). A
 * wakeup's waker is that thread, not whoever the switches seen so far put
 * on the CPU: this kernel does not trace every switch (tracefs-idle.h),
 * and a waker missed that way used to be replaced by the thread that ran
 * before it.
 */
static bt_field_class *create_event_context_class(bt_trace_class *tc)
{
	bt_field_class *context = bt_field_class_structure_create(tc);
	bt_field_class *tid = bt_field_class_integer_signed_create(tc);

	if (!context || !tid ||
	    bt_field_class_structure_append_member(context, "tid", tid)) {
		bt_field_class_put_ref(context);
		context = NULL;
	}
	if (tid)
		bt_field_class_integer_set_field_value_range(tid, 32);
	bt_field_class_put_ref(tid);
	return context;
}

/* Set the event's context: the running thread (-1: not a recorded event). */
static void set_event_tid(bt_message *msg, int64_t tid)
{
	bt_field *ctx = bt_event_borrow_common_context_field(bt_message_event_borrow_event(msg));

	bt_field_integer_signed_set_value(
		bt_field_structure_borrow_member_field_by_index(ctx, 0), tid);
}

static int create_stream_class(struct tracefs_comp *comp)
{
	bt_field_class *context;

	comp->trace_class = bt_trace_class_create(comp->self);
	comp->clock_class = create_clock_class(comp->self);
	if (!comp->trace_class || !comp->clock_class)
		return -1;
	comp->stream_class = bt_stream_class_create(comp->trace_class);
	if (!comp->stream_class ||
	    bt_stream_class_set_default_clock_class(comp->stream_class,
						    comp->clock_class))
		return -1;
	bt_stream_class_set_supports_packets(comp->stream_class, BT_TRUE,
					     BT_TRUE, BT_TRUE);
	bt_stream_class_set_supports_discarded_events(comp->stream_class,
						      BT_TRUE, BT_TRUE);
	context = create_packet_context_class(comp->trace_class);
	if (!context || bt_stream_class_set_packet_context_field_class(
			comp->stream_class, context)) {
		bt_field_class_put_ref(context);
		return -1;
	}
	bt_field_class_put_ref(context);
	context = create_event_context_class(comp->trace_class);
	if (!context || bt_stream_class_set_event_common_context_field_class(
			comp->stream_class, context)) {
		bt_field_class_put_ref(context);
		return -1;
	}
	bt_field_class_put_ref(context);
	return 0;
}

static int count_layouts(void)
{
	int n = 0;

	while (wperf_layouts[n].name)
		n++;
	return n;
}

/*
 * For each event of the table that this kernel has: create its event
 * class, bind its fields, enable it in the instance. A required event that
 * is missing is an error: the analysis cannot work without it.
 */
static int bind_layouts(struct tracefs_comp *comp, char *err, size_t errlen)
{
	int n = count_layouts();

	comp->bound = calloc((size_t)n, sizeof(*comp->bound));
	if (!comp->bound)
		return -1;
	for (int i = 0; i < n; i++) {
		const struct wperf_layout *l = &wperf_layouts[i];
		struct wperf_bound_layout *b = &comp->bound[comp->nbound];

		/* Kernel stacks: only when asked for (a live recording) or
		 * when a flight recorder may hold them. */
		if (wperf_layout_by_stack_trigger(l) && !comp->kernel_stacks && !comp->rec->attached)
			continue;
		b->format = wperf_recorder_find_event(comp->rec, l->system, l->event);
		if (!b->format && wperf_layout_by_stack_trigger(l) && comp->kernel_stacks) {
			snprintf(err, errlen, "parameter `stacks`: this kernel has no "
				 "ftrace/kernel_stack entry (CONFIG_STACKTRACE): record without "
				 "stacks=\"kernel\"");
			return -1;
		}
		if (!b->format) {
			if (!l->required)
				continue;
			snprintf(err, errlen, "this kernel has no %s:%s tracepoint, "
				 "which the analysis needs (is CONFIG_SCHED_TRACER "
				 "/ CONFIG_TRACEPOINTS enabled?)", l->system, l->event);
			return -1;
		}
		/* A flight recorder records what it was set up with. */
		if (comp->rec->attached && !wperf_layout_by_stack_trigger(l) &&
		    !wperf_recorder_event_enabled(comp->rec, l->system, l->event)) {
			if (!l->required)
				continue;
			snprintf(err, errlen, "ftrace instance %s does not record "
				 "%s:%s, which the analysis needs (was it made by "
				 "`wperf record --snapshot`?)",
				 comp->instance, l->system, l->event);
			return -1;
		}
		b->layout = l;
		b->is_switch = strcmp(l->name, "sched_switch") == 0;
		b->is_wakeup = strncmp(l->name, "sched_wak", 9) == 0;
		wperf_layout_bind_fields(b);
		b->event_class = wperf_layout_create_event_class(l, comp->stream_class);
		if (!b->event_class)
			return -1;
		if (!comp->rec->attached && !wperf_layout_by_stack_trigger(l) &&
		    wperf_recorder_enable_event(comp->rec, l->system, l->event,
						err, errlen))
			return -1;
		if (!comp->rec->attached && wperf_layout_by_stack_trigger(l) &&
		    wperf_recorder_stack_on_switch(comp->rec, err, errlen))
			return -1;
		if (b->format->id > comp->max_id)
			comp->max_id = b->format->id;
		comp->nbound++;
	}
	comp->switch_layout = &comp->bound[0];  /* first and required */
	return 0;
}

/* Index the bound layouts by ftrace event id for the decoding loop. */
static int index_layouts(struct tracefs_comp *comp)
{
	comp->bound_by_id = malloc(((size_t)comp->max_id + 1) * sizeof(int));
	if (!comp->bound_by_id)
		return -1;
	for (int id = 0; id <= comp->max_id; id++)
		comp->bound_by_id[id] = -1;
	for (size_t i = 0; i < comp->nbound; i++)
		comp->bound_by_id[comp->bound[i].format->id] = (int)i;
	return 0;
}

static int create_statedump_classes(struct tracefs_comp *comp)
{
	bt_stream_class *sc = comp->stream_class;

	comp->ec_sd_start = wperf_layout_create_event_class(
		&wperf_statedump_start_layout, sc);
	comp->ec_sd_process = wperf_layout_create_event_class(
		&wperf_statedump_process_layout, sc);
	comp->ec_sd_block = wperf_layout_create_event_class(
		&wperf_statedump_block_device_layout, sc);
	comp->ec_sd_end = wperf_layout_create_event_class(
		&wperf_statedump_end_layout, sc);
	return comp->ec_sd_start && comp->ec_sd_process && comp->ec_sd_block &&
		comp->ec_sd_end ? 0 : -1;
}

static void destroy_comp(struct tracefs_comp *comp)
{
	if (!comp)
		return;
	/* Stops tracing and removes the instance: on every path. */
	wperf_recorder_destroy(comp->rec);
	for (size_t i = 0; i < comp->nbound; i++)
		bt_event_class_put_ref(comp->bound[i].event_class);
	free(comp->bound);
	free(comp->bound_by_id);
	bt_event_class_put_ref(comp->ec_sd_start);
	bt_event_class_put_ref(comp->ec_sd_process);
	bt_event_class_put_ref(comp->ec_sd_block);
	bt_event_class_put_ref(comp->ec_sd_end);
	bt_stream_class_put_ref(comp->stream_class);
	bt_clock_class_put_ref(comp->clock_class);
	bt_trace_class_put_ref(comp->trace_class);
	free(comp->ready_file);
	free(comp);
}

bt_component_class_initialize_method_status wperf_tracefs_init(
	bt_self_component_source *self_source,
	bt_self_component_source_configuration *config,
	const bt_value *params, void *init_data)
{
	bt_self_component *self = bt_self_component_source_as_self_component(self_source);
	struct tracefs_comp *comp = calloc(1, sizeof(*comp));
	char err[512] = "out of memory";

	(void)config;
	(void)init_data;
	if (!comp)
		goto error;
	comp->self = self;
	if (read_params(comp, params, err, sizeof(err)))
		goto error;
	comp->rec = comp->snapshot ?
		wperf_recorder_attach(comp->instance, err, sizeof(err)) :
		wperf_recorder_create((uint64_t)comp->buffer_size_kb, err, sizeof(err));
	if (!comp->rec)
		goto error;
	snprintf(err, sizeof(err), "cannot create the trace classes (out of memory?)");
	if (create_stream_class(comp) || create_statedump_classes(comp))
		goto error;
	if (bind_layouts(comp, err, sizeof(err)) || index_layouts(comp))
		goto error;
	if (bt_self_component_source_add_output_port(self_source, "out", NULL, NULL)) {
		snprintf(err, sizeof(err), "cannot add output port");
		goto error;
	}
	bt_self_component_set_data(self, comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, "%s", err);
	destroy_comp(comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_tracefs_finalize(bt_self_component_source *self_source)
{
	destroy_comp(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_source)));
}

/* ------------------------------------------------------------------ */
/* Iterator: the trace, streams and the outbox of messages              */
/* ------------------------------------------------------------------ */

static int set_environment(bt_trace *trace)
{
	struct utsname u;

	if (uname(&u))
		return -1;
	return bt_trace_set_environment_entry_string(trace, "hostname", u.nodename) ||
		bt_trace_set_environment_entry_string(trace, "domain", "kernel") ||
		bt_trace_set_environment_entry_string(trace, "sysname", u.sysname) ||
		bt_trace_set_environment_entry_string(trace, "kernel_release", u.release) ||
		bt_trace_set_environment_entry_string(trace, "kernel_version", u.version) ||
		bt_trace_set_environment_entry_string(trace, "tracer_name", "wperf-tracefs") ||
		bt_trace_set_environment_entry_integer(trace, "tracer_major", 0) ||
		bt_trace_set_environment_entry_integer(trace, "tracer_minor", 1) ? -1 : 0;
}

static int create_trace(struct tracefs_iter *it)
{
	struct tracefs_comp *comp = it->comp;

	it->trace = bt_trace_create(comp->trace_class);
	if (!it->trace || bt_trace_set_name(it->trace, "kernel") ||
	    set_environment(it->trace))
		return -1;
	it->ncpus = comp->rec->ncpus;
	it->streams = calloc((size_t)it->ncpus, sizeof(*it->streams));
	if (!it->streams)
		return -1;
	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		char name[32];

		it->streams[cpu].stream = bt_stream_create(comp->stream_class, it->trace);
		if (!it->streams[cpu].stream)
			return -1;
		snprintf(name, sizeof(name), "cpu%d", cpu);
		bt_stream_set_name(it->streams[cpu].stream, name);
	}
	return 0;
}

/* Queue a message; a NULL one (failed creation) is an error. */
static int push(struct tracefs_iter *it, bt_message *msg)
{
	if (!msg) {
		snprintf(it->err, sizeof(it->err), "cannot create a message (out of memory)");
		return -1;
	}
	if (it->out_len == it->out_cap) {
		size_t cap = it->out_cap ? it->out_cap * 2 : 1024;
		const bt_message **bigger = realloc(it->out, cap * sizeof(*bigger));

		if (!bigger) {
			bt_message_put_ref(msg);
			snprintf(it->err, sizeof(it->err), "out of memory");
			return -1;
		}
		it->out = bigger;
		it->out_cap = cap;
	}
	it->out[it->out_len++] = msg;
	return 0;
}

/* Never let a message time go backwards across streams (see the header
 * comment: an event committed after the watermark passed it is rare). */
static uint64_t monotonic_ts(struct tracefs_iter *it, uint64_t ts)
{
	if (ts < it->last_ts)
		ts = it->last_ts;
	it->last_ts = ts;
	return ts;
}

static int begin_packet(struct tracefs_iter *it, int cpu, uint64_t ts)
{
	struct cpu_stream *s = &it->streams[cpu];
	bt_field *context;

	s->packet = bt_packet_create(s->stream);
	if (!s->packet)
		return push(it, NULL);
	context = bt_packet_borrow_context_field(s->packet);
	bt_field_integer_unsigned_set_value(
		bt_field_structure_borrow_member_field_by_index(context, 0),
		(uint64_t)cpu);
	return push(it, bt_message_packet_beginning_create_with_default_clock_snapshot(
		it->self, s->packet, monotonic_ts(it, ts)));
}

static int end_packet(struct tracefs_iter *it, int cpu, uint64_t ts)
{
	struct cpu_stream *s = &it->streams[cpu];
	int ret = push(it, bt_message_packet_end_create_with_default_clock_snapshot(
		it->self, s->packet, monotonic_ts(it, ts)));

	bt_packet_put_ref(s->packet);
	s->packet = NULL;
	return ret;
}

/* End every open packet at ts and begin new ones there. */
static int cut_packets(struct tracefs_iter *it, uint64_t ts)
{
	for (int cpu = 0; cpu < it->ncpus; cpu++)
		if (end_packet(it, cpu, ts) || begin_packet(it, cpu, ts))
			return -1;
	it->packet_cut_ts = ts;
	return 0;
}

/*
 * Report lost events of one CPU over [last message time, end]. CTF 1.8
 * (sink.ctf.fs) can only say "N events lost between the end of the
 * previous packet and the end of this one", so: end the open packet now,
 * emit the discarded-events message, and make a packet that ends at `end`.
 * count < 0 means the kernel did not say how many.
 */
static int report_loss(struct tracefs_iter *it, int cpu, uint64_t end,
		       int64_t count, bool reopen)
{
	uint64_t begin = it->last_ts;
	bt_message *msg;

	if (end < begin)
		end = begin;
	/* Switches may be among the lost events: who runs is now unknown. */
	wperf_idle_set_current(&it->idle, cpu, WPERF_CURRENT_UNKNOWN);
	if (end_packet(it, cpu, begin))
		return -1;
	msg = bt_message_discarded_events_create_with_default_clock_snapshots(
		it->self, it->streams[cpu].stream, begin, end);
	if (msg && count >= 0)
		bt_message_discarded_events_set_count(msg, (uint64_t)count);
	if (push(it, msg) || begin_packet(it, cpu, begin) || end_packet(it, cpu, end))
		return -1;
	return reopen ? begin_packet(it, cpu, end) : 0;
}

/* ------------------------------------------------------------------ */
/* Producing messages, phase by phase                                   */
/* ------------------------------------------------------------------ */

static int produce_begin(struct tracefs_iter *it)
{
	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		if (push(it, bt_message_stream_beginning_create(it->self,
				it->streams[cpu].stream)) ||
		    begin_packet(it, cpu, it->start_ts))
			return -1;
	}
	it->packet_cut_ts = it->start_ts;
	/* A snapshot is all read already: its events, then the statedump. */
	it->phase = it->comp->snapshot ? PHASE_DRAINING : PHASE_STATEDUMP;
	return 1;
}

static bt_message *create_statedump_msg(struct tracefs_iter *it,
					bt_event_class *ec, bt_field **payload)
{
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, ec, it->streams[0].packet, monotonic_ts(it, it->sd_ts));

	if (msg)
		set_event_tid(msg, -1);
	if (msg && payload)
		*payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	return msg;
}

static int emit_thread_state(struct tracefs_iter *it,
			     const struct wperf_thread_state *t)
{
	bt_field *p;
	bt_message *msg = create_statedump_msg(it, it->comp->ec_sd_process, &p);

	/* Member order: see wperf_statedump_process_layout. */
	if (msg) {
		wperf_payload_set_int(p, 0, t->tid);
		wperf_payload_set_int(p, 1, t->pid);
		wperf_payload_set_int(p, 2, t->ppid);
		wperf_payload_set_string(p, 3, t->name);
		wperf_payload_set_int(p, 4, t->type);
		wperf_payload_set_int(p, 5, t->status);
		wperf_payload_set_int(p, 6, t->cpu);
		wperf_idle_remember(&it->idle, t->tid, t->name, 20);
	}
	return push(it, msg);
}

static int emit_block_device(struct tracefs_iter *it,
			     const struct wperf_block_device *d)
{
	bt_field *p;
	bt_message *msg = create_statedump_msg(it, it->comp->ec_sd_block, &p);

	if (msg) {
		wperf_payload_set_uint(p, 0, d->dev);
		wperf_payload_set_string(p, 1, d->name);
	}
	return push(it, msg);
}

/* lttng_statedump_start, the block devices, the threads, then _end; all
 * stamped at the recording start, on CPU 0's stream. */
static int produce_statedump(struct tracefs_iter *it)
{
	struct tracefs_comp *comp = it->comp;
	size_t total = it->sd.ndisks + it->sd.nthreads;

	if (it->sd_next == 0 &&
	    push(it, create_statedump_msg(it, comp->ec_sd_start, NULL)))
		return -1;
	for (int n = 0; n < EVENTS_PER_PRODUCE && it->sd_next < total; n++, it->sd_next++) {
		int ret = it->sd_next < it->sd.ndisks ?
			emit_block_device(it, &it->sd.disks[it->sd_next]) :
			emit_thread_state(it, &it->sd.threads[it->sd_next - it->sd.ndisks]);

		if (ret)
			return -1;
	}
	if (it->sd_next < total)
		return 1;
	if (push(it, create_statedump_msg(it, comp->ec_sd_end, NULL)))
		return -1;
	wperf_statedump_free(&it->sd);
	it->phase = it->comp->snapshot ? PHASE_ENDING : PHASE_RECORDING;
	return 1;
}

/*
 * The CPU whose queued event is the oldest, if no CPU can still deliver an
 * older one; NULL when we must wait for more data.
 */
static struct wperf_cpu_reader *next_ready_cpu(struct wperf_recorder *rec)
{
	struct wperf_cpu_reader *oldest = NULL;
	uint64_t watermark = UINT64_MAX;

	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		if (!r->has_event) {
			if (r->delivered_until < watermark)
				watermark = r->delivered_until;
		} else if (!oldest || r->event_ts < oldest->event_ts) {
			oldest = r;
		}
	}
	return oldest && oldest->event_ts <= watermark ? oldest : NULL;
}

static int64_t payload_int(const bt_field *payload, uint64_t idx)
{
	return bt_field_integer_signed_get_value(
		bt_field_structure_borrow_member_field_by_index_const(payload, idx));
}

static const char *payload_string(const bt_field *payload, uint64_t idx)
{
	return bt_field_string_get_value(
		bt_field_structure_borrow_member_field_by_index_const(payload, idx));
}

/*
 * Follow who runs on each CPU and remember thread names, for restoring
 * untraced switches out of idle (tracefs-idle.h). Member indexes: see the
 * sched_switch and wakeup layouts in tracefs-layout.c.
 */
static void note_sched_event(struct tracefs_iter *it,
			     const struct wperf_bound_layout *b, int cpu,
			     const bt_field *payload)
{
	if (b->is_switch) {
		wperf_idle_remember(&it->idle, payload_int(payload, 1),
				    payload_string(payload, 0), payload_int(payload, 2));
		wperf_idle_remember(&it->idle, payload_int(payload, 5),
				    payload_string(payload, 4), payload_int(payload, 6));
		wperf_idle_set_current(&it->idle, cpu, payload_int(payload, 5));
	} else if (b->is_wakeup) {
		wperf_idle_remember(&it->idle, payload_int(payload, 1),
				    payload_string(payload, 0), payload_int(payload, 2));
	}
}

/* Emit the sched_switch "idle -> tid" the kernel did not trace on cpu. */
static int emit_restored_switch(struct tracefs_iter *it, int cpu, int64_t tid,
				uint64_t ts)
{
	const struct wperf_thread_name *next = wperf_idle_lookup(&it->idle, tid);
	char idle_comm[16];
	bt_field *p;
	bt_message *msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, it->comp->switch_layout->event_class,
		it->streams[cpu].packet, monotonic_ts(it, ts));

	if (msg) {
		set_event_tid(msg, 0);   /* the switch is the idle thread's */
		snprintf(idle_comm, sizeof(idle_comm), "swapper/%d", cpu);
		p = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
		wperf_payload_set_string(p, 0, idle_comm);
		wperf_payload_set_int(p, 1, 0);
		wperf_payload_set_int(p, 2, 20);   /* idle: kernel prio 120 */
		wperf_payload_set_int(p, 3, 0);    /* idle is always runnable */
		wperf_payload_set_string(p, 4, next ? next->comm : "");
		wperf_payload_set_int(p, 5, tid);
		wperf_payload_set_int(p, 6, next ? next->prio : 20);
	}
	wperf_idle_set_current(&it->idle, cpu, tid);
	it->idle.restored++;
	return push(it, msg);
}

/*
 * ready-file: an event recorded after tracing was on came back through the
 * ring buffer, so the recording records. Say it once: write the file whole
 * (a reader waits for its newline). -1 with it->err set on failure.
 */
static int say_ready(struct tracefs_iter *it, uint64_t ts)
{
	const char *path = it->comp->ready_file;
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	char line[32];
	int n = snprintf(line, sizeof(line), "%" PRIu64 "\n", ts);
	bool ok = fd >= 0 && write(fd, line, (size_t)n) == n;
	int e = errno;

	if (fd >= 0 && close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		snprintf(it->err, sizeof(it->err), "parameter `ready-file`: cannot write "
			 "%.256s: %s", path, strerror(e));
		return -1;
	}
	it->ready_said = true;
	return 0;
}

static int emit_event(struct tracefs_iter *it, struct wperf_cpu_reader *r)
{
	struct tracefs_comp *comp = it->comp;
	struct tep_record record = {
		.ts = r->event_ts,
		.data = r->event_data,
		.size = kbuffer_event_size(r->kbuf),
		.cpu = r->cpu,
	};
	int id = tep_data_type(comp->rec->tep, &record);
	const struct wperf_bound_layout *b;
	bt_message *msg;
	bt_field *payload;
	uint64_t ts;

	/* Any event, ours (the marker) or not, proves the buffer records. */
	if (comp->ready_file && !it->ready_said && r->event_ts >= it->ready_after_ts &&
	    say_ready(it, r->event_ts))
		return -1;
	if (id < 0 || id > comp->max_id || comp->bound_by_id[id] < 0)
		return 0;  /* not an event we enabled: nothing to say */
	b = &comp->bound[comp->bound_by_id[id]];
	if (r->event_ts < it->last_ts)
		it->clamped++;
	/* A kernel stack is written right after its sched_switch with the
	 * thread that switched out as common_pid: that thread is not running
	 * again, even when idle came next. */
	if (!wperf_layout_by_stack_trigger(b->layout) &&
	    wperf_idle_switch_missing(&it->idle, r->cpu,
				      tep_data_pid(comp->rec->tep, &record)) &&
	    emit_restored_switch(it, r->cpu, tep_data_pid(comp->rec->tep, &record),
				 r->event_ts))
		return -1;
	ts = monotonic_ts(it, r->event_ts);
	msg = bt_message_event_create_with_packet_and_default_clock_snapshot(
		it->self, b->event_class, it->streams[r->cpu].packet, ts);
	if (!msg)
		return push(it, NULL);
	set_event_tid(msg, tep_data_pid(comp->rec->tep, &record));
	payload = bt_event_borrow_payload_field(bt_message_event_borrow_event(msg));
	if (wperf_layout_fill(b, comp->rec->tep, &record, payload)) {
		bt_message_put_ref(msg);
		return push(it, NULL);
	}
	note_sched_event(it, b, r->cpu, payload);
	return push(it, msg);
}

/* Emit up to EVENTS_PER_PRODUCE events that are safe to emit. */
static int emit_ready_events(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	int emitted = 0;

	while (emitted < EVENTS_PER_PRODUCE) {
		struct wperf_cpu_reader *r = next_ready_cpu(rec);

		if (!r)
			break;
		if (r->event_ts > rec->read_until) {
			/* Read from a live buffer after the snapshot time. */
			wperf_recorder_advance(rec, r);
			continue;
		}
		if (r->missed_before_event) {
			if (report_loss(it, r->cpu, r->event_ts,
					r->missed_before_event, true))
				return -1;
			r->missed_before_event = 0;
		}
		if (r->event_ts >= it->packet_cut_ts + PACKET_PERIOD_NS &&
		    cut_packets(it, r->event_ts))
			return -1;
		if (emit_event(it, r))
			return -1;
		wperf_recorder_advance(rec, r);
		emitted++;
	}
	return emitted;
}

/* Read what the CPUs have; read at most a buffer's worth per CPU per call
 * so memory stays bounded even if the writers outpace us. */
static int poll_cpus(struct tracefs_iter *it, bool stopping)
{
	struct wperf_recorder *rec = it->comp->rec;
	int max_pages = (int)(it->comp->buffer_size_kb * 1024 /
			      (rec->subbuf_size ? rec->subbuf_size : 4096)) + 1;

	for (int i = 0; i < rec->ncpus; i++)
		if (wperf_recorder_poll_cpu(rec, &rec->cpus[i], max_pages, stopping,
					    it->err, sizeof(it->err)) < 0)
			return -1;
	return 0;
}

static bool should_stop(struct tracefs_iter *it)
{
	if (stop_signal_received || bt_self_message_iterator_is_interrupted(it->self))
		return true;
	return it->comp->duration_ns > 0 &&
		wperf_monotonic_ns() >= it->start_ts + (uint64_t)it->comp->duration_ns;
}

static int produce_recording(struct tracefs_iter *it)
{
	int n;

	if (should_stop(it)) {
		wperf_recorder_stop(it->comp->rec);
		it->stop_ts = wperf_monotonic_ns();
		it->phase = PHASE_DRAINING;
		return 1;
	}
	n = emit_ready_events(it);
	if (n != 0)
		return n;
	if (poll_cpus(it, false))
		return -1;
	return emit_ready_events(it);
}

static bool all_drained(struct wperf_recorder *rec)
{
	for (int i = 0; i < rec->ncpus; i++)
		if (!rec->cpus[i].drained || rec->cpus[i].has_event)
			return false;
	return true;
}

static int produce_draining(struct tracefs_iter *it)
{
	int n = emit_ready_events(it);

	if (n != 0)
		return n;
	if (all_drained(it->comp->rec)) {
		it->phase = it->comp->snapshot ? PHASE_STATEDUMP : PHASE_ENDING;
		return 1;
	}
	if (poll_cpus(it, true))
		return -1;
	return 1;  /* progress: each poll drains or queues more */
}

/* Losses the pages did not announce (per_cpu stats), then the ends. */
static int produce_ending(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	uint64_t end = it->stop_ts > it->last_ts ? it->stop_ts : it->last_ts;

	for (int cpu = 0; cpu < it->ncpus; cpu++) {
		/* A flight recorder's counters count the history it overwrote
		 * on purpose: not a loss inside the snapshot. */
		int64_t lost = it->comp->snapshot ? 0 : wperf_recorder_lost_events(rec, cpu);
		int64_t unreported = lost - (int64_t)rec->cpus[cpu].missed_reported;

		if (lost > 0 && unreported > 0 &&
		    report_loss(it, cpu, end, unreported, false))
			return -1;
		if (it->streams[cpu].packet && end_packet(it, cpu, end))
			return -1;
		if (push(it, bt_message_stream_end_create(it->self,
				it->streams[cpu].stream)))
			return -1;
	}
	it->phase = PHASE_DONE;
	return 1;
}

/* Make some messages; 1 = progress, 0 = nothing to do yet, -1 = error. */
static int produce(struct tracefs_iter *it)
{
	switch (it->phase) {
	case PHASE_BEGIN:     return produce_begin(it);
	case PHASE_STATEDUMP: return produce_statedump(it);
	case PHASE_RECORDING: return produce_recording(it);
	case PHASE_DRAINING:  return produce_draining(it);
	case PHASE_ENDING:    return produce_ending(it);
	default:              return 0;
	}
}

/* ------------------------------------------------------------------ */
/* Iterator methods                                                     */
/* ------------------------------------------------------------------ */

static void destroy_iter(struct tracefs_iter *it)
{
	if (!it)
		return;
	for (size_t i = it->out_head; i < it->out_len; i++)
		bt_message_put_ref(it->out[i]);
	free(it->out);
	for (int cpu = 0; it->streams && cpu < it->ncpus; cpu++) {
		bt_packet_put_ref(it->streams[cpu].packet);
		bt_stream_put_ref(it->streams[cpu].stream);
	}
	free(it->streams);
	/*
	 * Torn down mid-stream (second Ctrl-C in the CLI, an error): a sink
	 * may still hold an open packet. babeltrace2 2.0.4's sink.ctf.fs then
	 * drops that packet (the last reference to our trace) in its finalize
	 * and writes the metadata from the freed trace: a crash. Keeping the
	 * trace alive (one small object, in a process that is about to exit
	 * in the CLI case) lets the sink write a readable trace instead.
	 */
	if (it->phase == PHASE_BEGIN || it->phase == PHASE_DONE)
		bt_trace_put_ref(it->trace);
	wperf_statedump_free(&it->sd);
	wperf_idle_fini(&it->idle);
	free(it);
}

/*
 * Take the snapshot and read all of it now: the streams must begin at the
 * oldest event the buffers still hold, which is known only once read.
 */
/*
 * A flight recorder's CPUs keep different lengths of history: a busy CPU
 * overwrites its oldest events sooner (history_overwritten). Before the
 * last of those CPUs' first events, the other CPUs' events would be
 * analysed without the busy one's (its wakeups missing, its silence taken
 * for idleness). So the snapshot starts there, where every CPU has its
 * history, as `babeltrace2 --stream-intersection` would cut it.
 */
static void start_where_every_cpu_has_history(struct wperf_recorder *rec)
{
	uint64_t start = 0;

	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		if (r->history_overwritten && r->has_event && r->event_ts > start &&
		    r->event_ts <= rec->read_until)
			start = r->event_ts;
	}
	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];
		bool skipped = false;

		while (r->has_event && r->event_ts < start) {
			wperf_recorder_advance(rec, r);
			skipped = true;
		}
		if (skipped)
			r->missed_before_event = 0;   /* a loss in the history left out */
	}
}

static int read_snapshot(struct tracefs_iter *it)
{
	struct wperf_recorder *rec = it->comp->rec;
	uint64_t snapshot_ts;

	if (wperf_recorder_open_snapshot(rec, &snapshot_ts, it->err, sizeof(it->err)))
		return -1;
	snprintf(it->err, sizeof(it->err), "cannot read /proc for the statedump (out of memory)");
	if (wperf_statedump_collect(&it->sd))
		return -1;
	for (bool pending = true; pending;) {
		if (poll_cpus(it, true))
			return -1;
		pending = false;
		for (int i = 0; i < rec->ncpus; i++)
			pending |= !rec->cpus[i].drained;
	}
	start_where_every_cpu_has_history(rec);
	it->start_ts = it->sd_ts = it->stop_ts = snapshot_ts;
	for (int i = 0; i < rec->ncpus; i++)
		if (rec->cpus[i].has_event && rec->cpus[i].event_ts < it->start_ts)
			it->start_ts = rec->cpus[i].event_ts;
	it->last_ts = it->start_ts;
	return 0;
}

bt_message_iterator_class_initialize_method_status wperf_tracefs_iter_init(
	bt_self_message_iterator *self,
	bt_self_message_iterator_configuration *config,
	bt_self_component_port_output *port)
{
	struct tracefs_comp *comp = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct tracefs_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, "out of memory");
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	it->comp = comp;
	it->self = self;
	snprintf(it->err, sizeof(it->err), "cannot create the trace (out of memory?)");
	if (comp->has_iterator) {
		/* Two readers would split the ring buffers between them. */
		snprintf(it->err, sizeof(it->err), "only one message iterator "
			 "per source.wperf.tracefs component is supported: "
			 "connect its port to one downstream component");
		goto error;
	}
	if (create_trace(it) || wperf_idle_init(&it->idle, it->ncpus))
		goto error;
	if (comp->snapshot) {
		if (read_snapshot(it))
			goto error;
	} else {
		/* Start before reading /proc: every change after the
		 * statedump's snapshot is then in the trace (as LTTng does). */
		it->start_ts = wperf_monotonic_ns();
		it->last_ts = it->sd_ts = it->start_ts;
		/* From the moment tracing starts: a signal during the
		 * statedump (a long /proc scan) stops at the first call. */
		take_first_stop_signals();
		if (wperf_recorder_start(comp->rec, it->err, sizeof(it->err)))
			goto error;
		/* ready-file: an event from now on read back says we record;
		 * the marker makes one at once (else the next switch does). */
		it->ready_after_ts = wperf_monotonic_ns();
		if (comp->ready_file)
			wperf_recorder_mark(comp->rec, "wperf: recording");
		snprintf(it->err, sizeof(it->err), "cannot read /proc for the statedump (out of memory)");
		if (wperf_statedump_collect(&it->sd))
			goto error;
	}
	comp->has_iterator = true;
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
error:
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(self, "%s", it->err);
	wperf_recorder_stop(comp->rec);
	give_back_stop_signals();
	destroy_iter(it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_tracefs_iter_finalize(bt_self_message_iterator *self)
{
	struct tracefs_iter *it = bt_self_message_iterator_get_data(self);

	/* Tracing stops now, not only when the component goes away. */
	if (it) {
		wperf_recorder_stop(it->comp->rec);
		give_back_stop_signals();
	}
	destroy_iter(it);
}

static void idle_sleep(void)
{
	struct timespec ts = { 0, IDLE_SLEEP_NS };

	nanosleep(&ts, NULL);  /* EINTR (Ctrl-C) just ends it early */
}

bt_message_iterator_class_next_method_status wperf_tracefs_iter_next(
	bt_self_message_iterator *self, bt_message_array_const msgs,
	uint64_t capacity, uint64_t *count)
{
	struct tracefs_iter *it = bt_self_message_iterator_get_data(self);

	*count = 0;
	while (*count < capacity) {
		int ret;

		if (it->out_head < it->out_len) {
			msgs[(*count)++] = it->out[it->out_head++];
			continue;
		}
		it->out_head = it->out_len = 0;
		ret = produce(it);
		if (ret < 0) {
			BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(
				self, "%s", it->err);
			return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
		}
		if (ret == 0)
			break;
	}
	if (*count > 0)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	if (it->phase == PHASE_DONE)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	idle_sleep();
	return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
}
