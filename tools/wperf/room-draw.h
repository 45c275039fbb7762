/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/room-draw.h — the kernel recorder's side of the room
 * (room.h): where its writer, babeltrace2's sink.ctf.fs, gets disk space
 * when the file system is full.
 *
 * sink.ctf.fs takes each stream's space with posix_fallocate() before it
 * writes a packet through a memory map. In babeltrace2 2.0 (and its
 * master since), a failed one while a packet grows leaves the packet's
 * map freed but still recorded, so closing the stream frees it again and
 * glibc aborts (SIGABRT, "double free"): the streams are closed before
 * the metadata is written, and the trace is lost. wperf's check of the
 * free space runs every 50 ms, and another writer on the same file
 * system (dd, the recorded command) can fill it in less: the recorder
 * can meet the full disk first, whatever margin wperf keeps.
 *
 * So the recorder child holds the reserve file (DIR/.wperf/reserve, its
 * descriptor inherited from wperf) and the wperf executable defines
 * posix_fallocate() (and posix_fallocate64(), exported, so that the ctf
 * plugin's calls come here):
 * on ENOSPC it gives back 1 MiB of the reserve and tries again, until it
 * succeeds or the reserve is empty. Empty and still ENOSPC (another
 * writer took what was given back), the child says so on its why-pipe
 * and ends with WPERF_RECORDER_EXIT_NO_ROOM, before sink.ctf.fs can see
 * the error and crash: the trace then has no metadata and is said lost.
 * Outside a recorder child (nothing held) it is glibc's posix_fallocate.
 */
#ifndef WPERF_TOOL_ROOM_DRAW_H
#define WPERF_TOOL_ROOM_DRAW_H

#include <stdbool.h>

/* The recorder child's exit status when the file system was full and the
 * reserve spent: its trace is lost. */
#define WPERF_RECORDER_EXIT_NO_ROOM 3

/* In the recorder child: draw on the reserve file open as reserve_fd
 * (-1: none) when the disk is full; say why on why_fd, naming the
 * directory as shown. */
void wperf_room_draw_hold(int reserve_fd, int why_fd, const char *shown);

/* Give what is left of the reserve back to the file system (before
 * sink.ctf.fs writes the metadata, which does not go through
 * posix_fallocate). */
void wperf_room_draw_give_back(void);

/* Whether the recorder drew on the reserve (the disk was full). */
bool wperf_room_draw_drew(void);

#endif /* WPERF_TOOL_ROOM_DRAW_H */
