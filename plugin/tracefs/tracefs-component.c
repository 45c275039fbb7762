/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-component.c — the source.wperf.tracefs component:
 * its description and help, its parameters, and the trace IR it creates
 * once (clock, trace, stream and event classes, one per ftrace event
 * recorded, bound to the LTTng layout of tracefs-layout.c). The iterator
 * is tracefs-source.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "components.h"
#include "common/comp-error.h"
#include "common/params.h"
#include "tracefs-source.h"

#define DEFAULT_BUFFER_KB   4096

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
	"  defer-mib=MIB              While recording, only read the ring buffers\n"
	"                             and keep up to MIB MiB of raw pages in\n"
	"                             memory; turn them into messages after the\n"
	"                             recording stops, so the recorded program\n"
	"                             does not share its CPUs with the conversion.\n"
	"                             Past MIB (or past the room left at\n"
	"                             room-path), convert as they are read.\n"
	"                             Default: 0 (always as read).\n"
	"  room-path=\"PATH\"           With defer-mib: a directory on the file\n"
	"                             system the messages will be written to;\n"
	"                             deferring stops when its free space falls\n"
	"                             below twice the pages held plus 128 MiB.\n"
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

static const char *const known_params[] = {
	"duration", "buffer-size-kb", "instance", "snapshot", "stacks", "ready-file",
	"defer-mib", "room-path", NULL
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

/* defer-mib=MIB and room-path="PATH" (kept: params do not outlive
 * initialization). */
static int read_defer_params(struct tracefs_comp *comp, const bt_value *params,
			     char *err, size_t errlen)
{
	struct statvfs st;
	const char *v = NULL;
	int rc;

	if (wperf_params_get_int(params, "defer-mib", 0, 1048576,
				 &comp->defer_mib, err, errlen) < 0)
		return -1;
	if (comp->defer_mib && comp->snapshot) {
		snprintf(err, errlen, "parameter `defer-mib`: not with snapshot=true "
			 "(a snapshot records nothing new)");
		return -1;
	}
	rc = wperf_params_get_string(params, "room-path", &v, err, errlen);
	if (rc <= 0)
		return rc;
	if (!comp->defer_mib) {
		snprintf(err, errlen, "parameter `room-path`: only with defer-mib "
			 "(the room is what the deferred pages will need)");
		return -1;
	}
	if (statvfs(v, &st) != 0) {
		snprintf(err, errlen, "parameter `room-path`: cannot see the file system "
			 "of %.256s: %s", v, strerror(errno));
		return -1;
	}
	comp->room_path = strdup(v);
	if (!comp->room_path) {
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
	    read_snapshot_params(comp, params, err, errlen) < 0 ||
	    read_defer_params(comp, params, err, errlen) < 0)
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
void tracefs_set_event_tid(bt_message *msg, int64_t tid)
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
		/* sched_wakeup only without sched_waking, bound just before. */
		if (l->fallback && comp->nbound > 0 && comp->bound[comp->nbound - 1].layout == l - 1)
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
	free(comp->room_path);
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
	WPERF_COMP_ERROR(self, NULL, "%s", err);
	destroy_comp(comp);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
}

void wperf_tracefs_finalize(bt_self_component_source *self_source)
{
	destroy_comp(bt_self_component_get_data(
		bt_self_component_source_as_self_component(self_source)));
}

