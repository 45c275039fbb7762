/* SPDX-License-Identifier: MIT */
/*
 * disk.c — block devices as pseudo-threads (see disk.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "disk.h"

void disk_init(struct disk_tracker *d)
{
	memset(d, 0, sizeof *d);
	d->win_begin = INT64_MIN;
	d->win_end = INT64_MAX;
}

void disk_set_window(struct disk_tracker *d, int64_t begin, int64_t end)
{
	d->win_begin = begin;
	d->win_end = end;
}

/* The part of a busy period [from, to] inside the window. */
static int64_t busy_in_window(const struct disk_tracker *d, int64_t from, int64_t to)
{
	if (from < d->win_begin)
		from = d->win_begin;
	if (to > d->win_end)
		to = d->win_end;
	return to > from ? to - from : 0;
}

void disk_fini(struct disk_tracker *d)
{
	for (size_t i = 0; i < d->n_names; i++)
		free(d->names[i]);
	free(d->names);
	free(d->name_devs);
	free(d->req);
	free(d->disks);
	free(d->issuers);
	memset(d, 0, sizeof *d);
}

static bool grow(void **arr, size_t *cap, size_t elem)
{
	size_t n = *cap ? *cap * 2 : 16;
	void *p = realloc(*arr, n * elem);

	if (!p)
		return false;
	*arr = p;
	*cap = n;
	return true;
}

static const char *known_name(const struct disk_tracker *d, uint64_t dev)
{
	for (size_t i = 0; i < d->n_names; i++)
		if (d->name_devs[i] == dev)
			return d->names[i];
	return NULL;
}

static void format_disk_name(const struct disk_tracker *d, uint64_t dev,
			     char *buf, size_t len)
{
	const char *name = known_name(d, dev);

	if (name)
		snprintf(buf, len, "disk:%s", name);
	else
		/* The low 32 bits: above them is the host (wperf_host_id()). */
		snprintf(buf, len, "disk:%" PRIu64 ":%" PRIu64, (dev & 0xFFFFFFFF) >> 20,
			 dev & 0xFFFFF);
}

static struct disk_state *disk_state_of(struct disk_tracker *d, struct vertex_table *vt,
					uint64_t dev)
{
	for (size_t i = 0; i < d->n_disks; i++)
		if (d->disks[i].dev == dev)
			return &d->disks[i];
	if (d->n_disks == d->cap_disks &&
	    !grow((void **)&d->disks, &d->cap_disks, sizeof *d->disks)) {
		d->oom = true;
		return NULL;
	}
	char name[96];

	format_disk_name(d, dev, name, sizeof name);
	uint32_t v = vt_pseudo(vt, WPERF_V_DISK, name);

	if (v == VERTEX_NONE)
		return NULL;
	d->disks[d->n_disks] = (struct disk_state){ .dev = dev, .vertex = v };
	return &d->disks[d->n_disks++];
}

uint32_t disk_vertex(struct disk_tracker *d, struct vertex_table *vt, uint64_t dev)
{
	struct disk_state *s = disk_state_of(d, vt, dev);

	return s ? s->vertex : VERTEX_NONE;
}

void disk_set_name(struct disk_tracker *d, struct vertex_table *vt, uint64_t dev,
		   const char *name)
{
	if (!name || !*name || known_name(d, dev))
		return;
	if (d->n_names % 16 == 0) {
		char **n = realloc(d->names, (d->n_names + 16) * sizeof *n);
		uint64_t *v = n ? realloc(d->name_devs, (d->n_names + 16) * sizeof *v) : NULL;

		if (n)
			d->names = n;
		if (!v) {
			d->oom = true;
			return;
		}
		d->name_devs = v;
	}
	d->names[d->n_names] = strdup(name);
	if (!d->names[d->n_names]) {
		d->oom = true;
		return;
	}
	d->name_devs[d->n_names++] = dev;
	/* A disk met before its name: rename its vertex. */
	for (size_t i = 0; i < d->n_disks; i++) {
		if (d->disks[i].dev == dev) {
			char full[96];

			format_disk_name(d, dev, full, sizeof full);
			vt_set_name(vt, d->disks[i].vertex, full);
		}
	}
}

/* ---- in-flight requests: open addressing on (dev, sector) ---- */

static size_t req_slot(uint64_t dev, uint64_t sector, size_t cap)
{
	uint64_t h = (dev * 0x9E3779B97F4A7C15ull) ^ (sector * 0xC2B2AE3D27D4EB4Full);

	return (size_t)(h >> 13) & (cap - 1);
}

static struct disk_request *req_find(struct disk_tracker *d, uint64_t dev, uint64_t sector)
{
	if (!d->req_cap)
		return NULL;
	for (size_t i = req_slot(dev, sector, d->req_cap);; i = (i + 1) & (d->req_cap - 1)) {
		struct disk_request *r = &d->req[i];

		if (!r->used)
			return NULL;
		if (r->dev == dev && r->sector == sector)
			return r;
	}
}

static bool req_rehash(struct disk_tracker *d)
{
	size_t cap = d->req_cap ? d->req_cap * 2 : 256;
	struct disk_request *req = calloc(cap, sizeof *req);

	if (!req)
		return false;
	for (size_t i = 0; i < d->req_cap; i++) {
		if (!d->req[i].used)
			continue;
		size_t s = req_slot(d->req[i].dev, d->req[i].sector, cap);

		while (req[s].used)
			s = (s + 1) & (cap - 1);
		req[s] = d->req[i];
	}
	free(d->req);
	d->req = req;
	d->req_cap = cap;
	return true;
}

static struct disk_request *req_get(struct disk_tracker *d, uint64_t dev, uint64_t sector)
{
	struct disk_request *r = req_find(d, dev, sector);

	if (r)
		return r;
	if ((d->req_used + 1) * 2 > d->req_cap && !req_rehash(d)) {
		d->oom = true;
		return NULL;
	}
	size_t s = req_slot(dev, sector, d->req_cap);

	while (d->req[s].used)
		s = (s + 1) & (d->req_cap - 1);
	d->req[s] = (struct disk_request){ .dev = dev, .sector = sector,
					   .issuer = VERTEX_NONE, .used = true };
	d->req_used++;
	return &d->req[s];
}

/* Remove with backward-shift deletion so probe chains stay intact. */
static void req_remove(struct disk_tracker *d, struct disk_request *r)
{
	size_t i = (size_t)(r - d->req);

	d->req[i].used = false;
	d->req_used--;
	for (size_t j = (i + 1) & (d->req_cap - 1); d->req[j].used; j = (j + 1) & (d->req_cap - 1)) {
		size_t home = req_slot(d->req[j].dev, d->req[j].sector, d->req_cap);
		/* Move j back into the hole at i if its home is not in (i, j]. */
		bool movable = (i <= j) ? (home <= i || home > j) : (home <= i && home > j);

		if (movable) {
			d->req[i] = d->req[j];
			d->req[j].used = false;
			i = j;
		}
	}
}

/* ---- issuers ---- */

static void account_issuer(struct disk_tracker *d, uint32_t disk, uint32_t thread,
			   uint64_t bytes)
{
	for (size_t i = 0; i < d->n_issuers; i++) {
		struct disk_issuer *is = &d->issuers[i];

		if (is->disk == disk && is->thread == thread) {
			is->bytes += bytes;
			is->requests++;
			return;
		}
	}
	if (d->n_issuers == d->cap_issuers &&
	    !grow((void **)&d->issuers, &d->cap_issuers, sizeof *d->issuers)) {
		d->oom = true;
		return;
	}
	d->issuers[d->n_issuers++] = (struct disk_issuer){ disk, thread, bytes, 1 };
}

static uint64_t request_key(uint64_t sector, uint64_t nr_sector)
{
	return nr_sector == 0 ? DISK_FLUSH_SECTOR : sector;
}

void disk_request_insert(struct disk_tracker *d, uint64_t dev, uint64_t sector,
			 uint64_t nr_sector, uint64_t bytes, uint32_t issuer)
{
	struct disk_request *r = req_get(d, dev, request_key(sector, nr_sector));

	if (!r || r->in_flight)
		return;
	r->issuer = issuer;
	r->bytes = bytes;
}

void disk_request_issue(struct disk_tracker *d, struct vertex_table *vt, int64_t ts,
			uint64_t dev, uint64_t sector, uint64_t nr_sector,
			uint64_t bytes, uint32_t issuer)
{
	struct disk_state *s = disk_state_of(d, vt, dev);
	struct disk_request *r = req_get(d, dev, request_key(sector, nr_sector));

	if (!s || !r)
		return;
	if (r->in_flight && nr_sector != 0)
		return;                 /* re-issue of a request already counted */
	/* The thread that queued the request is the one waiting for it; the
	 * one issuing it may be a kworker plugging the queue. */
	if (r->issuer == VERTEX_NONE || r->in_flight)
		r->issuer = issuer;
	if (bytes)
		r->bytes = bytes;
	r->in_flight++;
	if (s->in_flight++ == 0)
		s->busy_since = ts;
	if (r->issuer != VERTEX_NONE && ts >= d->win_begin && ts <= d->win_end)
		account_issuer(d, s->vertex, r->issuer, r->bytes);
}

uint32_t disk_request_complete(struct disk_tracker *d, struct vertex_table *vt,
			       int64_t ts, uint64_t dev, uint64_t sector,
			       uint64_t nr_sector)
{
	struct disk_state *s = disk_state_of(d, vt, dev);
	struct disk_request *r = req_find(d, dev, request_key(sector, nr_sector));

	if (!s)
		return VERTEX_NONE;
	if (!r || !r->in_flight) {
		/* A write with a pre/post-flush completes once for its data
		 * and once more, with no sectors, when its flush sequence
		 * ends: that second completion is expected, not an anomaly. */
		if (nr_sector != 0)
			d->unmatched_completions++;
		return s->vertex;
	}
	if (--r->in_flight == 0)
		req_remove(d, r);
	if (--s->in_flight == 0) {
		struct wperf_vertex *v = vt_get(vt, s->vertex);

		v->busy_ns += busy_in_window(d, s->busy_since, ts);
	}
	return s->vertex;
}

void disk_finish(struct disk_tracker *d, struct vertex_table *vt,
		 struct edge_map *edges, int64_t begin, int64_t end)
{
	for (size_t i = 0; i < d->n_disks; i++) {
		struct disk_state *s = &d->disks[i];
		struct wperf_vertex *v = vt_get(vt, s->vertex);

		if (s->in_flight > 0)
			v->busy_ns += busy_in_window(d, s->busy_since, end);
		s->in_flight = 0;
	}
	for (size_t i = 0; i < d->n_issuers; i++) {
		struct disk_issuer *is = &d->issuers[i];

		vt_get(vt, is->disk)->bytes += is->bytes;
	}
	for (size_t i = 0; i < d->n_issuers; i++) {
		struct disk_issuer *is = &d->issuers[i];
		struct wperf_vertex *disk = vt_get(vt, is->disk);
		int64_t idle = (end - begin) - disk->busy_ns;
		uint64_t requests = 0;

		if (idle < 0)
			idle = 0;
		for (size_t j = 0; j < d->n_issuers; j++)
			if (d->issuers[j].disk == is->disk)
				requests += d->issuers[j].requests;
		/* Share by bytes; a disk that only saw zero-byte requests
		 * (flushes) shares by request count. */
		long double share = disk->bytes
			? (long double)is->bytes / (long double)disk->bytes
			: (long double)is->requests / (long double)requests;
		/* Corrupt byte counts can wrap the disk's total: a share above
		 * 1 would overflow w (UBSan, found by tests/fuzz). */
		if (share > 1)
			share = 1;
		else if (!(share >= 0))
			share = 0;
		int64_t w = (int64_t)((long double)idle * share + 0.5L);
		/* The edge exists even when the share rounds to nothing: the
		 * thread did give the disk work (count says how much). */
		size_t e = edges_get(edges, is->disk, is->thread);

		if (e == EDGE_NONE)
			continue;
		edges->e[e].weight_ns += w;
		edges->e[e].direct_ns += w;
		edges->e[e].count += is->requests;
	}
}
