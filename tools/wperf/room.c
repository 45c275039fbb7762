/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/room.c — the room a recording needs on its file system
 * (room.h): the reserve for the tracers' buffers, and the check of what
 * is left while recording.
 */
#include "room.h"
#include "output.h"
#include "recording.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define MIB 1048576.0
/* Metadata, indexes and logs written at the end, beside the buffers. */
#define RESERVE_EXTRA (4 * MIB)
/* The least room kept for what is written while wperf sees the disk
 * filling and the recorder stops tracing. */
#define HEADROOM_MIN (2 * MIB)
/* How long that takes at most, at the fastest rate seen (seconds). */
#define HEADROOM_SECONDS 2.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void wperf_room_init(struct wperf_room *w, const char *out, const char *shown,
		     double min_free_mb, long buffer_kb)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);

	memset(w, 0, sizeof(*w));
	snprintf(w->out, sizeof(w->out), "%s", out);
	snprintf(w->shown, sizeof(w->shown), "%s", shown);
	snprintf(w->reserve_path, sizeof(w->reserve_path), "%s/" WPERF_PRIVATE "/reserve", out);
	w->min_free_mb = min_free_mb;
	w->min_free = min_free_mb * MIB;
	/* Per CPU: the kernel ring buffer (its CTF may take twice its bytes)
	 * and the UST one. */
	w->reserve = (double)(cpus > 0 ? cpus : 1) * 3 * (double)buffer_kb * 1024 + RESERVE_EXTRA;
	w->kernel_share = (double)(cpus > 0 ? cpus : 1) * 2 * (double)buffer_kb * 1024 + RESERVE_EXTRA;
	w->reserve_fd = -1;
	w->last_free = -1;
}

/* Bytes free for us; negative when unknown (no check then). */
static double free_bytes(const struct wperf_room *w)
{
	struct statvfs st;

	if (statvfs(w->out, &st) != 0)
		return -1;
	return (double)st.f_bavail * (double)st.f_frsize;
}

static double headroom(const struct wperf_room *w)
{
	double h = w->peak_rate * HEADROOM_SECONDS;

	return h > HEADROOM_MIN ? h : HEADROOM_MIN;
}

/* What must stay free outside the reserve. */
static double margin(const struct wperf_room *w)
{
	return w->min_free + headroom(w) + (w->reserved ? 0 : w->reserve);
}

/*
 * The room left, said between before and after, into the caller's buffer:
 * DIR may be a path of PATH_MAX bytes, so no fixed buffer in between.
 */
static void describe(const struct wperf_room *w, double free, const char *before,
		     const char *after, char *out, size_t len)
{
	snprintf(out, len, "%s%.1f MiB left on the file system of %s (the margin is --min-free "
		 "%g MiB plus %.1f MiB for the buffers and what is written while the recorder "
		 "stops)%s", before, (free + (w->reserved ? w->reserve : 0)) / MIB, w->shown,
		 w->min_free_mb, (margin(w) - w->min_free + (w->reserved ? w->reserve : 0)) / MIB,
		 after);
}

bool wperf_room_prepare(struct wperf_room *w, char *why, size_t whylen)
{
	double free = free_bytes(w);
	int fd;

	if (free >= 0 && free < margin(w)) {
		describe(w, free, "only ", ": free some space, record elsewhere with -o, or "
			 "lower --min-free / --buffer-size-kb", why, whylen);
		return false;
	}
	if ((fd = wperf_private_fd(w->reserve_path)) < 0)
		return true;    /* counted in the margin instead */
	w->reserved = fallocate(fd, 0, 0, (off_t)w->reserve) == 0;
	if (!w->reserved) {
		close(fd);
		unlink(w->reserve_path);
	} else
		w->reserve_fd = fd;
	return true;
}

/* The fastest the file system filled, over samples 0.2 s apart or more. */
static void sample_rate(struct wperf_room *w, double free, double t)
{
	if (w->last_free >= 0 && t - w->last_time < 0.2)
		return;
	if (w->last_free >= 0 && w->last_free > free &&
	    (w->last_free - free) / (t - w->last_time) > w->peak_rate)
		w->peak_rate = (w->last_free - free) / (t - w->last_time);
	w->last_free = free;
	w->last_time = t;
}

bool wperf_room_ok(struct wperf_room *w, char *why, size_t whylen)
{
	double free = free_bytes(w), t = now();

	if (free < 0)
		return true;
	sample_rate(w, free, t);
	if (free >= margin(w))
		return true;
	describe(w, free, "", "", why, whylen);
	return false;
}

int wperf_room_share_with_recorder(struct wperf_room *w)
{
	if (w->reserve_fd >= 0)
		w->recorder_share = w->kernel_share;
	return w->reserve_fd;
}

void wperf_room_release(struct wperf_room *w)
{
	struct stat st;

	if (!w->reserved)
		return;
	/* Truncated, not only unlinked: the recorder child's descriptor
	 * keeps the file, and what it holds, until it ends. */
	if (fstat(w->reserve_fd, &st) == 0 && st.st_size > (off_t)w->recorder_share)
		(void)!ftruncate(w->reserve_fd, (off_t)w->recorder_share);
	unlink(w->reserve_path);
	close(w->reserve_fd);
	w->reserve_fd = -1;
	w->reserved = false;
}
