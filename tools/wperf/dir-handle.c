/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/dir-handle.c — directories found by their file handles
 * (dir-handle.h).
 */
#include "dir-handle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* A file handle with room for the largest (f_handle is a zero-length
 * array at its end). */
static struct file_handle *new_handle(void)
{
	struct file_handle *fh = calloc(1, sizeof(*fh) + MAX_HANDLE_SZ);

	if (fh)
		fh->handle_bytes = MAX_HANDLE_SZ;
	return fh;
}

bool wperf_dir_handle(int dirfd, char *buf, size_t len)
{
	struct file_handle *fh = new_handle();
	struct stat st;
	int mount_id, n = -1;

	if (fh && name_to_handle_at(dirfd, "", fh, &mount_id, AT_EMPTY_PATH) == 0 &&
	    fstat(dirfd, &st) == 0) {
		n = snprintf(buf, len, "%u:%u %d ", major(st.st_dev), minor(st.st_dev),
			     fh->handle_type);
		for (unsigned i = 0; i < fh->handle_bytes && n > 0 && (size_t)n + 3 <= len; i++)
			n += snprintf(buf + n, len - (size_t)n, "%02x", fh->f_handle[i]);
	}
	free(fh);
	return n > 0 && (size_t)n < len;
}

/* A handle line read back into h and the device's numbers; false when
 * it is malformed. */
static bool parse(const char *line, struct file_handle *h, unsigned *maj, unsigned *min)
{
	int type, used = 0;
	const char *hex;
	size_t n;

	if (sscanf(line, "%u:%u %d %n", maj, min, &type, &used) != 3 || !used)
		return false;
	hex = line + used;
	n = strspn(hex, "0123456789abcdef") / 2;
	if (!n || n > MAX_HANDLE_SZ)
		return false;
	h->handle_bytes = (unsigned)n;
	h->handle_type = type;
	for (size_t i = 0; i < n; i++) {
		char byte[3] = { hex[2 * i], hex[2 * i + 1], 0 };

		h->f_handle[i] = (unsigned char)strtoul(byte, NULL, 16);
	}
	return true;
}

/* A directory on a mount of the file system maj:min here (a line of
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT ..."): its
 * descriptor, or -1 with errno. */
static int mount_of(unsigned maj, unsigned min)
{
	char line[8192], point[4096];
	unsigned a, b;
	int fd = -1;
	FILE *f = fopen("/proc/self/mountinfo", "r");

	if (!f)
		return -1;
	while (fd < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*d %*d %u:%u %*s %4095s", &a, &b, point) == 3 && a == maj &&
		    b == min && !strchr(point, '\\'))
			fd = open(point, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fclose(f);
	if (fd < 0)
		errno = ENODEV;
	return fd;
}

int wperf_dir_handle_open(const char *handle)
{
	struct file_handle *h = new_handle();
	unsigned maj, min;
	int mount = -1, fd = -1, e = EINVAL;

	if (h && parse(handle, h, &maj, &min)) {
		if ((mount = mount_of(maj, min)) >= 0)
			fd = open_by_handle_at(mount, h, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		e = errno;
	}
	if (mount >= 0)
		close(mount);
	free(h);
	errno = e;
	return fd;
}
