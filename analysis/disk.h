/* SPDX-License-Identifier: MIT */
/*
 * disk.h — block devices as pseudo-threads (wperf-method(7) §5).
 *
 * Tracks requests from issue to completion (matched by device and sector)
 * to know when each disk is busy, and which threads issued how many bytes.
 * A disk "waits for" the threads that give it work while it is idle: at the
 * end, its idle time is handed to its issuers in proportion to their bytes,
 * as disk -> thread edges. Without those edges a disk would be a dead end
 * and the knot of a thread blocked on its own I/O could not appear.
 */
#ifndef WPERF_DISK_H
#define WPERF_DISK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "edges.h"
#include "vertex.h"

struct disk_request {
	uint64_t dev, sector;   /* sector: DISK_FLUSH_SECTOR for zero-sector requests */
	uint32_t issuer;        /* thread vertex or VERTEX_NONE */
	uint64_t bytes;
	uint32_t in_flight;     /* issued and not completed (flushes may overlap) */
	bool used;
};

/*
 * Flushes carry no sectors, and the kernel does not report them with one
 * sector value (issued at 0, completed at 2^64-1 on Linux 6.x): all
 * zero-sector requests of a device share this key and complete in turn.
 */
#define DISK_FLUSH_SECTOR UINT64_MAX

struct disk_issuer {
	uint32_t disk, thread;
	uint64_t bytes, requests;
};

struct disk_state {
	uint64_t dev;
	uint32_t vertex;
	int64_t in_flight;
	int64_t busy_since;
};

struct disk_tracker {
	struct disk_request *req;      /* open addressing on (dev, sector) */
	size_t req_cap, req_used;
	struct disk_state *disks;
	size_t n_disks, cap_disks;
	struct disk_issuer *issuers;
	size_t n_issuers, cap_issuers;
	char **names;                  /* dev -> name from the statedump, parallel arrays */
	uint64_t *name_devs;
	size_t n_names;
	uint64_t unmatched_completions;
	/* Only busy time inside [win_begin, win_end] counts, and only
	 * requests issued inside it share the idle time (wperf_analysis_set_window). */
	int64_t win_begin, win_end;
	bool oom;
};

void disk_init(struct disk_tracker *d);
void disk_fini(struct disk_tracker *d);
/* Count only [begin, end] (disk_init: all time). */
void disk_set_window(struct disk_tracker *d, int64_t begin, int64_t end);

/* The disk's vertex ("disk:vda", or "disk:MAJ:MIN" until a name is known). */
uint32_t disk_vertex(struct disk_tracker *d, struct vertex_table *vt, uint64_t dev);
void disk_set_name(struct disk_tracker *d, struct vertex_table *vt, uint64_t dev,
		   const char *name);

/* A request was queued (insert) or handed to the device (issue). */
void disk_request_insert(struct disk_tracker *d, uint64_t dev, uint64_t sector,
			 uint64_t nr_sector, uint64_t bytes, uint32_t issuer);
void disk_request_issue(struct disk_tracker *d, struct vertex_table *vt, int64_t ts,
			uint64_t dev, uint64_t sector, uint64_t nr_sector,
			uint64_t bytes, uint32_t issuer);
/* Returns the disk's vertex (VERTEX_NONE if unknown). */
uint32_t disk_request_complete(struct disk_tracker *d, struct vertex_table *vt,
			       int64_t ts, uint64_t dev, uint64_t sector,
			       uint64_t nr_sector);

/* Close busy periods at end and add the idle-time edges disk -> issuer. */
void disk_finish(struct disk_tracker *d, struct vertex_table *vt,
		 struct edge_map *edges, int64_t begin, int64_t end);

#endif /* WPERF_DISK_H */
