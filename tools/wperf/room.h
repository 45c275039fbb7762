/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/room.h — the room a recording needs on the file system of
 * its directory, so that no writer of the trace ever meets a full disk.
 *
 * babeltrace2 2.0.4's sink.ctf.fs aborts after ENOSPC (a double free):
 * the kernel trace then has no metadata and nothing can read it. So the
 * kernel recorder must never be the one to find the disk full, whatever
 * --min-free says:
 *  - at the start, the room to write out what the tracers' ring buffers
 *    can hold (three per CPU: the kernel's, in CTF, and LTTng-UST's, plus
 *    4 MiB for metadata and logs) is set aside in a file of that size
 *    (DIR/.wperf/reserve, allocated, not written), so that no other
 *    writer on that file system can take it;
 *  - while recording, the free space outside it is checked every 50 ms
 *    against --min-free plus what the file system filled in 2 s at the
 *    fastest rate seen so far (at least 2 MiB): the time to see it and
 *    stop the recorder's tracing;
 *  - below that, the recorder stops tracing at once and the reserve is
 *    given back for what its buffers still hold.
 * The tracefs recorder, a child process, holds the reserve file open and
 * keeps its share of it (its ring buffers in CTF and the metadata) when
 * wperf gives the rest back: it draws on it only if it meets the full
 * disk itself, which another writer can make happen between two checks
 * (room-draw.h).
 * On a file system that cannot allocate without writing (no fallocate),
 * the reserve is added to the margin instead.
 */
#ifndef WPERF_TOOL_ROOM_H
#define WPERF_TOOL_ROOM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

struct wperf_room {
	char out[PATH_MAX];             /* DIR, as files are reached there */
	char shown[PATH_MAX];           /* DIR, as messages name it */
	char reserve_path[PATH_MAX];    /* DIR/.wperf/reserve */
	bool reserved;                  /* the reserve file holds reserve bytes */
	int reserve_fd;                 /* open while reserved, else -1 */
	double recorder_share;          /* what a recorder child holds of it */
	double min_free;                /* --min-free, bytes */
	double min_free_mb;
	double reserve;                 /* the tracers' buffers, written out: bytes */
	double kernel_share;            /* of which the kernel recorder's */
	double peak_rate;               /* fastest filling seen, bytes/s */
	double last_free, last_time;    /* the previous sample of the rate */
};

/* For DIR (reached as out, named shown in messages), --min-free MiB and
 * ring buffers of buffer_kb per CPU. */
void wperf_room_init(struct wperf_room *w, const char *out, const char *shown,
		     double min_free_mb, long buffer_kb);

/* Before recording: room for --min-free, the reserve and the headroom,
 * then the reserve set aside. false with why set (the fix in it). */
bool wperf_room_prepare(struct wperf_room *w, char *why, size_t whylen);

/* While recording (about every 50 ms): false, with why saying how much
 * is left and the margin, when the recording must stop now. */
bool wperf_room_ok(struct wperf_room *w, char *why, size_t whylen);

/* The tracefs recorder's share of the reserve: the reserve file's
 * descriptor for the child to inherit (-1: no reserve), whose share
 * wperf_room_release() leaves allocated. */
int wperf_room_share_with_recorder(struct wperf_room *w);

/* Give the reserve back (the recorder has been told to stop), but for
 * the recorder's share. */
void wperf_room_release(struct wperf_room *w);

#endif /* WPERF_TOOL_ROOM_H */
