/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/ctf-metadata.c — the packet structure of CTF 1.8 metadata
 * files (ctf-metadata.h says why it is checked).
 *
 * A packetized metadata stream is a sequence of packets, each with a
 * 37-byte header: magic 0x75D11D57, uuid[16], checksum, content_size and
 * packet_size (in bits, uint32 each), then five one-byte fields; the byte
 * order is the one in which the magic reads right. The messages are those
 * of wperf-lami's metadata_problem() (tools/wperf-lami.py).
 */
#include "ctf-metadata.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define METADATA_MAGIC 0x75D11D57u
#define METADATA_HEADER 37

static uint32_t read_u32(const unsigned char *p, bool little)
{
	return little ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
			(uint32_t)p[3] << 24
		      : (uint32_t)p[3] | (uint32_t)p[2] << 8 | (uint32_t)p[1] << 16 |
			(uint32_t)p[0] << 24;
}

/* The whole file, or NULL with why set. */
static unsigned char *slurp(const char *path, size_t *len, char *why, size_t whylen)
{
	/* Not blocking at open, and only a regular file: a FIFO or a link
	 * to a device named metadata would hang the report or fill its
	 * memory (babeltrace2 would then hang on it too). */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	unsigned char *data = NULL;
	size_t cap = 0, n = 0;
	struct stat st;
	FILE *f;

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		snprintf(why, whylen, "%s is not a regular file: not a trace's metadata", path);
		close(fd);
		return NULL;
	}
	if (fd < 0 || !(f = fdopen(fd, "rb"))) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	for (;;) {
		if (n == cap) {
			unsigned char *bigger = realloc(data, cap ? cap * 2 : 65536);

			if (!bigger) {
				snprintf(why, whylen, "cannot read %s: out of memory", path);
				free(data);
				fclose(f);
				return NULL;
			}
			data = bigger;
			cap = cap ? cap * 2 : 65536;
		}
		size_t got = fread(data + n, 1, cap - n, f);

		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
		free(data);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return data;
}

static bool only_space(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strchr(" \t\n\r\v\f", p[i]) || !p[i])
			return false;
	return true;
}

/* Walk the packets of one file: 0 whole, 1 with why set. */
static int check_packets(const char *path, const unsigned char *data, size_t len,
			 bool little, char *why, size_t whylen)
{
	size_t offset = 0;

	for (unsigned n = 1; offset < len; n++) {
		if (len - offset < METADATA_HEADER) {
			snprintf(why, whylen, "%s is cut short inside the header of metadata "
				 "packet %u (at byte %zu of %zu): the trace was not closed "
				 "properly or not copied whole", path, n, offset, len);
			return 1;
		}
		const unsigned char *head = data + offset;
		uint32_t content_bits = read_u32(head + 24, little);
		uint32_t packet_bits = read_u32(head + 28, little);
		size_t size = packet_bits / 8;

		if (read_u32(head, little) != METADATA_MAGIC) {
			snprintf(why, whylen, "%s: metadata packet %u (at byte %zu) has no "
				 "packet magic: the file is damaged", path, n, offset);
			return 1;
		}
		if (packet_bits % 8 || size < METADATA_HEADER || content_bits > packet_bits) {
			snprintf(why, whylen, "%s: metadata packet %u (at byte %zu) has an "
				 "impossible size (%u bits, content %u bits): the file is "
				 "damaged", path, n, offset, packet_bits, content_bits);
			return 1;
		}
		if (offset + size > len) {
			snprintf(why, whylen, "%s is cut short inside metadata packet %u (it "
				 "needs bytes %zu to %zu, the file has %zu): the trace was not "
				 "closed properly or not copied whole", path, n, offset,
				 offset + size, len);
			return 1;
		}
		offset += size;
	}
	return 0;
}

/* One file: 0 whole or plain text, 1 with why set. */
static int check_file(const char *path, char *why, size_t whylen)
{
	size_t len = 0;
	unsigned char *data = slurp(path, &len, why, whylen);
	int rc = 0;

	if (!data)
		return 1;
	if (len < 4) {
		if (!only_space(data, len)) {
			snprintf(why, whylen, "%s is cut short (%zu bytes)", path, len);
			rc = 1;
		}
	} else if (read_u32(data, true) == METADATA_MAGIC) {
		rc = check_packets(path, data, len, true, why, whylen);
	} else if (read_u32(data, false) == METADATA_MAGIC) {
		rc = check_packets(path, data, len, false, why, whylen);
	}
	free(data);
	return rc;
}

/* The metadata files found by nftw (it takes no user pointer). */
static struct {
	char **paths;
	size_t n, cap;
	bool oom;
} found;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if ((type != FTW_F && type != FTW_SL) || strcmp(path + ftw->base, "metadata"))
		return 0;
	if (found.n == found.cap) {
		size_t cap = found.cap ? found.cap * 2 : 16;
		char **bigger = realloc(found.paths, cap * sizeof(*bigger));

		if (!bigger) {
			found.oom = true;
			return 1;
		}
		found.paths = bigger;
		found.cap = cap;
	}
	if (!(found.paths[found.n] = strdup(path))) {
		found.oom = true;
		return 1;
	}
	found.n++;
	return 0;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int wperf_check_metadata(const char *dir, char *why, size_t whylen)
{
	int rc = 0;

	found.n = 0;
	found.oom = false;
	/* Unreadable directories are skipped, as os.walk does. */
	nftw(dir, collect, 16, FTW_PHYS);
	if (found.oom) {
		snprintf(why, whylen, "out of memory while looking for metadata files");
		rc = 1;
	}
	if (found.n)
		qsort(found.paths, found.n, sizeof(*found.paths), by_path);
	for (size_t i = 0; i < found.n && !rc; i++)
		rc = check_file(found.paths[i], why, whylen);
	for (size_t i = 0; i < found.n; i++)
		free(found.paths[i]);
	free(found.paths);
	found.paths = NULL;
	found.cap = found.n = 0;
	return rc;
}
