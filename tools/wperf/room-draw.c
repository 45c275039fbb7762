/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/room-draw.c — the kernel recorder child draws on the
 * reserve when the disk is full (room-draw.h says why): posix_fallocate()
 * defined here, in front of glibc's.
 */
#include "room-draw.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What one draw gives back: more than any single growth of a packet
 * (32 KiB in sink.ctf.fs), few enough to leave the rest held. */
#define DRAW_STEP (1 << 20)

static int reserve_fd = -1;
static int why_fd = -1;
static char shown[PATH_MAX];
static bool drew;

void wperf_room_draw_hold(int fd, int whyfd, const char *dir)
{
	reserve_fd = fd;
	why_fd = whyfd;
	snprintf(shown, sizeof(shown), "%s", dir);
}

void wperf_room_draw_give_back(void)
{
	if (reserve_fd >= 0 && ftruncate(reserve_fd, 0) != 0)
		return;     /* held until the child ends, then freed */
}

bool wperf_room_draw_drew(void)
{
	return drew;
}

/* Give DRAW_STEP bytes of the reserve back; false when it is empty. */
static bool draw(void)
{
	struct stat st;

	if (reserve_fd < 0 || fstat(reserve_fd, &st) != 0 || st.st_size <= 0)
		return false;
	drew = true;
	return ftruncate(reserve_fd, st.st_size > DRAW_STEP ? st.st_size - DRAW_STEP : 0) == 0;
}

/* The reserve is spent and the file system still full: end here, before
 * sink.ctf.fs sees ENOSPC (room-draw.h). */
static void out_of_room(void)
{
	char why[PATH_MAX + 256];
	int n = snprintf(why, sizeof(why), "the file system of %s is full and the room kept for "
			 "the kernel trace is used up too (%s)", shown, strerror(ENOSPC));

	if (why_fd >= 0 && n > 0)
		(void)!write(why_fd, why, strlen(why));
	_exit(WPERF_RECORDER_EXIT_NO_ROOM);
}

/* glibc's function of that name, and the draw in front of it. */
static int draw_in_front(const char *name, int (**real)(int, off_t, off_t), int fd, off_t offset,
			 off_t len)
{
	int ret;

	if (!*real && !(*real = (int (*)(int, off_t, off_t))dlsym(RTLD_NEXT, name)))
		return ENOSYS;
	while ((ret = (*real)(fd, offset, len)) == ENOSPC && reserve_fd >= 0 && fd != reserve_fd)
		if (!draw())
			out_of_room();
	return ret;
}

/* Both names (glibc's headers make a caller built with 64-bit off_t, as
 * this file is, call the second): the C names differ so that these are
 * not taken for glibc's declarations. */
int wperf_posix_fallocate(int fd, off_t offset, off_t len) __asm__("posix_fallocate");
int wperf_posix_fallocate64(int fd, off_t offset, off_t len) __asm__("posix_fallocate64");

int wperf_posix_fallocate(int fd, off_t offset, off_t len)
{
	static int (*real)(int, off_t, off_t);

	return draw_in_front("posix_fallocate", &real, fd, offset, len);
}

int wperf_posix_fallocate64(int fd, off_t offset, off_t len)
{
	static int (*real)(int, off_t, off_t);

	return draw_in_front("posix_fallocate64", &real, fd, offset, len);
}
