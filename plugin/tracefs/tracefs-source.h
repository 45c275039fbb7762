/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-source.h — what the files of source.wperf.tracefs
 * share: the component's and the iterator's state, and the functions one
 * calls in another. The design (time order, Ctrl-C, snapshots, ready,
 * packets) is described at the top of tracefs-source.c.
 */
#ifndef WPERF_PLUGIN_TRACEFS_SOURCE_H
#define WPERF_PLUGIN_TRACEFS_SOURCE_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stdint.h>

#include "tracefs-idle.h"
#include "tracefs-layout.h"
#include "tracefs-recorder.h"
#include "tracefs-statedump.h"

#define NS_PER_S            UINT64_C(1000000000)
#define PACKET_PERIOD_NS    (NS_PER_S / 2)
#define EVENTS_PER_PRODUCE  256
#define IDLE_SLEEP_NS       (20 * 1000 * 1000)

struct tracefs_comp {
	bt_self_component *self;
	int64_t duration_ns;            /* -1: until interrupted */
	int64_t buffer_size_kb;
	const char *instance;           /* attach to it (snapshot) */
	char *ready_file;               /* ready-file: written once recording */
	int64_t defer_mib;              /* defer-mib: 0 = convert as we read */
	char *room_path;                /* room-path: where the trace will go */
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
	bool deferral_over;             /* converting as we read from now on */
	uint64_t last_poll_ns;          /* when the ring buffers were last read */
	const bt_message **out;         /* messages made, not yet handed out */
	size_t out_head, out_len, out_cap;
	char err[512];
};

/* tracefs-component.c */

/* Set the event's context: the running thread (-1: not a recorded event). */
void tracefs_set_event_tid(bt_message *msg, int64_t tid);

/* tracefs-outbox.c */

/* Queue a message; a NULL one (failed creation) is an error. */
int tracefs_push(struct tracefs_iter *it, bt_message *msg);

/* Never let a message time go backwards across streams (see the header
 * comment: an event committed after the watermark passed it is rare). */
uint64_t tracefs_monotonic_ts(struct tracefs_iter *it, uint64_t ts);

/* Begin, or end, CPU cpu's packet at ts. */
int tracefs_begin_packet(struct tracefs_iter *it, int cpu, uint64_t ts);
int tracefs_end_packet(struct tracefs_iter *it, int cpu, uint64_t ts);

/* End every open packet at ts and begin new ones there. */
int tracefs_cut_packets(struct tracefs_iter *it, uint64_t ts);

/*
 * Report lost events of one CPU over [last message time, end]. CTF 1.8
 * (sink.ctf.fs) can only say "N events lost between the end of the
 * previous packet and the end of this one", so: end the open packet now,
 * emit the discarded-events message, and make a packet that ends at `end`.
 * count < 0 means the kernel did not say how many.
 */
int tracefs_report_loss(struct tracefs_iter *it, int cpu, uint64_t end,
			int64_t count, bool reopen);

/* tracefs-stop.c */

/* From now on, the first SIGINT, SIGTERM or SIGHUP (each not ignored)
 * only asks the recording to stop; the next one does what it did before. */
void tracefs_take_stop_signals(void);

/* Put back the handlers still ours (those not received yet). */
void tracefs_give_back_stop_signals(void);

/* A stop signal came, the graph was interrupted, or `duration` is over. */
bool tracefs_should_stop(struct tracefs_iter *it);

/* tracefs-produce.c */

/* Read what the CPUs have; read at most a buffer's worth per CPU per call,
 * and while recording nothing past what may be held (defer-mib, or two
 * ring buffers per CPU), so memory stays bounded even if the writers
 * outpace us: the kernel then loses events, which are reported. */
int tracefs_poll_cpus(struct tracefs_iter *it, bool stopping);

/* Make some messages; 1 = progress, 0 = nothing to do yet, -1 = error. */
int tracefs_produce(struct tracefs_iter *it);

#endif
