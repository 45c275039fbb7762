/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/recorder.h — the kernel recorder of `wperf record` where
 * LTTng's kernel tracer is missing: source.wperf.tracefs -> sink.ctf.fs
 * into DIR/kernel, run by a child process of wperf (its own session, so
 * the terminal's Ctrl-C reaches the command and wperf but not the
 * recorder, which wperf stops last). The child tells wperf that it
 * records, or in one line why it cannot.
 */
#ifndef WPERF_TOOL_RECORDER_H
#define WPERF_TOOL_RECORDER_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct wperf_recorder {
	pid_t pid;              /* the child; 0 once reaped */
	int status;             /* its wait status, once reaped */
	int why_fd;             /* the child's line saying why it failed; EOF at its end */
	int ready_fd;           /* the FIFO the source writes its ready line to */
	const char *out;        /* DIR (the caller's string, kept while recording) */
	char log[PATH_MAX];     /* DIR/.wperf/kernel-recorder.log: the child's stderr */
	char ready[PATH_MAX];   /* DIR/.wperf/kernel-ready: the FIFO */
	char why[1024];         /* what the child said (empty: nothing) */
	char session[128];      /* the recording's LTTng session: the child
				 * destroys it if wperf dies first */
	bool interrupted;       /* SIGINT sent: it stops tracing and drains */
	bool out_of_room;       /* it ended on a full disk, the reserve spent:
				 * the trace is lost (room-draw.h) */
	char removed[256];      /* the dead child's ftrace instances wperf removed */
};

/* Start the recorder of DIR `out` (named `shown` in messages; the plugin
 * from plugin_dir, ring buffers of buffer_kb per CPU, kernel stacks with
 * stacks), holding the reserve file open as reserve_fd (-1: none) to draw
 * on when the disk is full (room-draw.h). If wperf
 * dies before it (SIGKILL), the recorder ends its trace and destroys
 * the LTTng session `session` (NULL: none), which nobody else would end.
 * false with why set. */
bool wperf_recorder_start(struct wperf_recorder *r, const char *plugin_dir, const char *out,
			  const char *shown, int reserve_fd, const char *session,
			  unsigned buffer_kb, bool stacks, char *why, size_t whylen);

/* Wait until the recorder records: the source has read back an event
 * recorded after tracing went on (its ready-file, a FIFO here), so every
 * event from now on is in the trace. 1 then; 0 with why set (it failed,
 * or said nothing within timeout seconds); -1 when a stop signal came
 * first (wperf_stop_signal_take() took it). */
int wperf_recorder_wait_ready(struct wperf_recorder *r, double timeout, char *why,
			      size_t whylen);

/* Whether the recorder still runs; when it does not, why holds one line
 * for the user ("the kernel recorder stopped (...): ...; the command
 * keeps running"). A recorder found dead has its ftrace instances
 * removed at once (it cannot remove them itself after SIGKILL): its
 * instances are named after its pid, which is not reused before wperf
 * reaps it. */
bool wperf_recorder_alive(struct wperf_recorder *r, char *why, size_t whylen);

/* Have it stop tracing now (SIGINT, once): what its ring buffers hold
 * is still written, then it ends (wperf_recorder_stop() waits for that). */
void wperf_recorder_interrupt(struct wperf_recorder *r);

/* Stop it: SIGINT (the source stops tracing, drains, ends its streams and
 * sink.ctf.fs writes the metadata), up to 120 s, then SIGKILL. false with
 * why set when it failed or wrote no trace. */
bool wperf_recorder_stop(struct wperf_recorder *r, char *why, size_t whylen);

/* Where tracefs is mounted (mounting it on /sys/kernel/tracing if we are
 * root and it is nowhere), in buf; NULL when nowhere. */
const char *wperf_tracefs_dir(char *buf, size_t len);

#endif /* WPERF_TOOL_RECORDER_H */
