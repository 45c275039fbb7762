/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-recorder.c — the libtracefs side of source.wperf.tracefs.
 *
 * We always record into a private ftrace instance named "wperf-<pid>", so
 * that the global buffer (and whoever else uses it) is never touched, and
 * remove it on every exit path. A process killed with SIGKILL cannot remove
 * its instance: the next recorder removes instances whose owner is gone.
 *
 * The one exception is a snapshot of a flight recorder: an instance that
 * `wperf record --snapshot` created and left recording in overwrite mode.
 * We attach to it, read what its buffers hold, and leave it as it was.
 */
#include "tracefs-recorder.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

/* Where the stacktrace trigger of stacks="kernel" is set. */
#define SWITCH_TRIGGER "events/sched/sched_switch/trigger"

uint64_t wperf_monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void set_permission_error(const char *what, const char *path,
				 char *err, size_t errlen)
{
	snprintf(err, errlen,
		 "no permission to %s %s: run as root (or with CAP_SYS_ADMIN), "
		 "or give this user read/write access to tracefs",
		 what, path);
}

static bool is_permission_errno(int e)
{
	return e == EACCES || e == EPERM || e == EROFS;
}

/*
 * Find (and if needed mount) tracefs, and check that we may use it before
 * trying anything else, so the user gets the real reason in one line.
 */
static const char *find_tracefs(char *err, size_t errlen)
{
	const char *dir = tracefs_tracing_dir();
	char instances[4096];

	if (!dir) {
		snprintf(err, errlen,
			 "tracefs is not mounted and could not be mounted: "
			 "run as root, or mount it with "
			 "`mount -t tracefs nodev /sys/kernel/tracing`");
		return NULL;
	}
	snprintf(instances, sizeof(instances), "%s/instances", dir);
	if (access(instances, R_OK | W_OK | X_OK) != 0) {
		if (is_permission_errno(errno))
			set_permission_error("use tracefs at", dir, err, errlen);
		else
			snprintf(err, errlen,
				 "cannot use tracefs instances at %s: %s "
				 "(the kernel needs CONFIG_TRACING)",
				 instances, strerror(errno));
		return NULL;
	}
	return dir;
}

/* The pid in an instance name "wperf-<pid>" or "wperf-<pid>-<n>", else 0. */
static long owner_pid(const char *name)
{
	char *end;
	long pid;

	if (strncmp(name, "wperf-", 6) != 0 || !isdigit((unsigned char)name[6]))
		return 0;
	pid = strtol(name + 6, &end, 10);
	if (*end == '-' && isdigit((unsigned char)end[1]))
		strtol(end + 1, &end, 10);
	return *end == '\0' ? pid : 0;
}

/* Remove "wperf-<pid>" instances left behind by processes that are gone. */
static void remove_stale_instances(void)
{
	char **names = tracefs_instances(NULL);

	for (int i = 0; names && names[i]; i++) {
		long pid = owner_pid(names[i]);
		struct tracefs_instance *stale;

		if (pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		stale = tracefs_instance_alloc(NULL, names[i]);
		if (stale) {
			tracefs_instance_destroy(stale);
			tracefs_instance_free(stale);
		}
	}
	tracefs_list_free(names);
}

/* Create a brand-new instance: never reuse one that someone else owns. */
static int create_instance(struct wperf_recorder *rec, char *err, size_t errlen)
{
	for (int n = 0; n < 100; n++) {
		if (n == 0)
			snprintf(rec->instance_name, sizeof(rec->instance_name),
				 "wperf-%ld", (long)getpid());
		else
			snprintf(rec->instance_name, sizeof(rec->instance_name),
				 "wperf-%ld-%d", (long)getpid(), n);
		if (tracefs_instance_exists(rec->instance_name))
			continue;
		errno = 0;
		rec->instance = tracefs_instance_create(rec->instance_name);
		if (!rec->instance) {
			if (is_permission_errno(errno))
				set_permission_error("create an ftrace instance in",
						     tracefs_tracing_dir(), err, errlen);
			else
				snprintf(err, errlen,
					 "cannot create ftrace instance %s: %s",
					 rec->instance_name, strerror(errno));
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "cannot find a free ftrace instance name "
		 "(remove old ones under %s/instances)", tracefs_tracing_dir());
	return -1;
}

static int configure_instance(struct wperf_recorder *rec,
			      uint64_t buffer_size_kb, char *err, size_t errlen)
{
	/* Off first: nothing may be recorded until start(). */
	tracefs_trace_off(rec->instance);

	/* "mono" is CLOCK_MONOTONIC, the clock LTTng uses: the recording
	 * then shares a time base with LTTng-UST traces. */
	if (tracefs_instance_file_write(rec->instance, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "cannot set the ftrace clock to \"mono\" "
			 "(this kernel is too old: it needs Linux >= 3.10)");
		return -1;
	}
	if (tracefs_instance_set_buffer_size(rec->instance,
					     (size_t)buffer_size_kb, -1) < 0) {
		snprintf(err, errlen,
			 "parameter `buffer-size-kb`: the kernel refused %" PRIu64
			 " KiB per CPU (%s): try a smaller value",
			 buffer_size_kb, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The ring buffer's page header, and nothing else yet: an event's format is
 * parsed when the source asks for that event (wperf_recorder_find_event()).
 * tracefs_local_events_system() parsed every format of seven systems and
 * all of /proc/kallsyms, which nothing here prints: most of the recorder's
 * start-up, for a few dozen formats used.
 */
static int load_formats(struct wperf_recorder *rec, char *err, size_t errlen)
{
	int len = 0;
	char *header = tracefs_instance_file_read(NULL, "events/header_page", &len);

	rec->tep = tep_alloc();
	if (!rec->tep || !header || len <= 0) {
		free(header);
		snprintf(err, errlen, "cannot read the event formats under %s/events",
			 tracefs_tracing_dir());
		return -1;
	}
	/* Unchecked, as tracefs_local_events_system() leaves it. */
	tep_parse_header_page(rec->tep, header, (unsigned long)len, sizeof(long));
	free(header);
	tep_set_long_size(rec->tep, tep_get_header_page_size(rec->tep));
	rec->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (rec->ncpus < 1)
		rec->ncpus = 1;
	tep_set_cpus(rec->tep, rec->ncpus);
	rec->cpus = calloc((size_t)rec->ncpus, sizeof(*rec->cpus));
	if (!rec->cpus) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int i = 0; i < rec->ncpus; i++)
		rec->cpus[i].cpu = i;
	return 0;
}

struct wperf_recorder *wperf_recorder_create(uint64_t buffer_size_kb,
					     char *err, size_t errlen)
{
	struct wperf_recorder *rec;

	if (!find_tracefs(err, errlen))
		return NULL;
	rec = calloc(1, sizeof(*rec));
	if (!rec) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rec->read_until = UINT64_MAX;
	remove_stale_instances();
	if (create_instance(rec, err, errlen) ||
	    configure_instance(rec, buffer_size_kb, err, errlen) ||
	    load_formats(rec, err, errlen)) {
		wperf_recorder_destroy(rec);
		return NULL;
	}
	return rec;
}

struct wperf_recorder *wperf_recorder_attach(const char *name,
					     char *err, size_t errlen)
{
	struct wperf_recorder *rec;
	char *clock;

	if (!find_tracefs(err, errlen))
		return NULL;
	if (!tracefs_instance_exists(name)) {
		snprintf(err, errlen, "parameter `instance`: no ftrace instance "
			 "named \"%s\" under %s/instances (start one with "
			 "`wperf record --snapshot`)", name, tracefs_tracing_dir());
		return NULL;
	}
	rec = calloc(1, sizeof(*rec));
	if (!rec) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	rec->attached = true;
	rec->read_until = UINT64_MAX;
	snprintf(rec->instance_name, sizeof(rec->instance_name), "%s", name);
	rec->instance = tracefs_instance_alloc(NULL, name);
	if (!rec->instance || load_formats(rec, err, errlen)) {
		if (!rec->instance)
			snprintf(err, errlen, "out of memory");
		wperf_recorder_destroy(rec);
		return NULL;
	}
	/* Timestamps in another clock would not line up with LTTng's. */
	clock = tracefs_instance_file_read(rec->instance, "trace_clock", NULL);
	if (!clock || !strstr(clock, "[mono]")) {
		snprintf(err, errlen, "ftrace instance %s does not use the \"mono\" "
			 "trace clock (echo mono > %s/instances/%s/trace_clock)",
			 name, tracefs_tracing_dir(), name);
		free(clock);
		wperf_recorder_destroy(rec);
		return NULL;
	}
	free(clock);
	return rec;
}

bool wperf_recorder_event_enabled(struct wperf_recorder *rec,
				  const char *system, const char *event)
{
	char path[256];
	char *text;
	bool on;

	snprintf(path, sizeof(path), "events/%s/%s/enable", system, event);
	text = tracefs_instance_file_read(rec->instance, path, NULL);
	on = text && text[0] == '1';  /* "1", or "1*" when soft-disabled */
	free(text);
	return on;
}

/* The sub-buffer size of the instance: what one read of *_raw returns. */
static int subbuf_size(struct wperf_recorder *rec)
{
	long long kb;

	if (tracefs_file_exists(rec->instance, "buffer_subbuf_size_kb") &&
	    tracefs_instance_file_read_number(rec->instance,
					      "buffer_subbuf_size_kb", &kb) == 0 &&
	    kb > 0)
		return (int)(kb * 1024);
	return (int)sysconf(_SC_PAGESIZE);
}

/* per_cpu/cpuN/snapshot_raw: the snapshot buffer, in trace_pipe_raw's format. */
static struct tracefs_cpu *open_snapshot_raw(struct wperf_recorder *rec, int cpu)
{
	char path[64];
	struct tracefs_cpu *tcpu;
	int fd;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/snapshot_raw", cpu);
	fd = tracefs_instance_file_open(rec->instance, path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	tcpu = tracefs_cpu_alloc_fd(fd, subbuf_size(rec), true);
	if (!tcpu)
		close(fd);
	return tcpu;
}

int wperf_recorder_open_snapshot(struct wperf_recorder *rec,
				 uint64_t *snapshot_ts, char *err, size_t errlen)
{
	/* Kernels built without CONFIG_TRACER_SNAPSHOT have no such file. */
	bool use_snapshot = tracefs_file_exists(rec->instance, "snapshot");

	if (use_snapshot) {
		/* 2 empties the spare buffer, so what 1 swaps into the live
		 * side starts clean; 1 swaps the live buffers into it. */
		if (tracefs_instance_file_write(rec->instance, "snapshot", "2") < 0 ||
		    tracefs_instance_file_write(rec->instance, "snapshot", "1") < 0) {
			snprintf(err, errlen, "cannot take an ftrace snapshot of %s: %s",
				 rec->instance_name, strerror(errno));
			return -1;
		}
	}
	/* Without a snapshot buffer the live one is read while the kernel
	 * writes on: in overwrite mode, what the reader has not reached yet is
	 * overwritten by what comes after the snapshot (a busy workload, a
	 * sanitized and so slow reader: the snapshot came out empty of it).
	 * The flight recorder pauses while it is read, and goes on after
	 * (wperf_recorder_destroy()); its events of that time are lost. */
	if (!use_snapshot && tracefs_trace_is_on(rec->instance) == 1) {
		tracefs_trace_off(rec->instance);
		rec->paused = true;
	}
	*snapshot_ts = wperf_monotonic_ns();
	/* The frozen snapshot buffer holds nothing newer; the live one does,
	 * and we stop at the snapshot time so every CPU ends at the same time. */
	rec->read_until = *snapshot_ts;
	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		r->tcpu = use_snapshot ? open_snapshot_raw(rec, i)
				       : tracefs_cpu_open(rec->instance, i, true);
		r->kbuf = tep_kbuffer(rec->tep);
		if (!r->tcpu || !r->kbuf) {
			snprintf(err, errlen, "cannot open %s/instances/%s/per_cpu/"
				 "cpu%d/%s: %s", tracefs_tracing_dir(),
				 rec->instance_name, i,
				 use_snapshot ? "snapshot_raw" : "trace_pipe_raw",
				 strerror(errno));
			return -1;
		}
		if (tracefs_cpu_read_size(r->tcpu) > rec->subbuf_size)
			rec->subbuf_size = tracefs_cpu_read_size(r->tcpu);
	}
	return 0;
}

static void release_chunk(struct wperf_recorder *rec, struct wperf_page_chunk *c);

static void close_reader(struct wperf_cpu_reader *r)
{
	if (r->tcpu)
		tracefs_cpu_close(r->tcpu);
	if (r->kbuf)
		kbuffer_free(r->kbuf);
	r->tcpu = NULL;   /* its pages go with their chunks */
	r->kbuf = NULL;
	r->head = r->tail = NULL;
	r->has_event = false;
}

void wperf_recorder_destroy(struct wperf_recorder *rec)
{
	if (!rec)
		return;
	if (rec->instance && !rec->attached)
		tracefs_trace_off(rec->instance);
	if (rec->instance && rec->paused)
		tracefs_trace_on(rec->instance);   /* the flight recorder goes on */
	/* A trigger may keep the instance busy: take it off first. */
	if (rec->stack_trigger)
		tracefs_instance_file_write(rec->instance, SWITCH_TRIGGER, "!stacktrace");
	/* The instance cannot be removed while its files are open. */
	for (int i = 0; rec->cpus && i < rec->ncpus; i++)
		close_reader(&rec->cpus[i]);
	free(rec->cpus);
	while (rec->chunks)
		release_chunk(rec, rec->chunks);
	if (rec->instance) {
		if (!rec->attached)
			tracefs_instance_destroy(rec->instance);
		tracefs_instance_free(rec->instance);
	}
	if (rec->tep)
		tep_free(rec->tep);
	free(rec);
}

struct tep_event *wperf_recorder_find_event(struct wperf_recorder *rec,
					    const char *system,
					    const char *event)
{
	struct tep_event *found = tep_find_event_by_name(rec->tep, system, event);
	char path[256];
	char *format;
	int len = 0;

	if (found)
		return found;
	/* The top level's formats: an instance has the same events. */
	if (snprintf(path, sizeof(path), "events/%s/%s/format", system, event) >=
	    (int)sizeof(path) || !tracefs_file_exists(NULL, path))
		return NULL;   /* this kernel has no such event */
	format = tracefs_instance_file_read(NULL, path, &len);
	/* A print format libtraceevent cannot parse still gives the fields,
	 * which is all the source reads. */
	if (format && len > 0)
		tep_parse_event(rec->tep, format, (unsigned long)len, system);
	free(format);
	return tep_find_event_by_name(rec->tep, system, event);
}

int wperf_recorder_enable_event(struct wperf_recorder *rec,
				const char *system, const char *event,
				char *err, size_t errlen)
{
	char path[256];

	/* The event's own file: tracefs_event_enable() would list every
	 * system and event of the kernel to match its names as patterns. */
	snprintf(path, sizeof(path), "events/%s/%s/enable", system, event);
	if (tracefs_instance_file_write(rec->instance, path, "1") < 0) {
		snprintf(err, errlen, "cannot enable event %s:%s in %s: %s",
			 system, event, rec->instance_name, strerror(errno));
		return -1;
	}
	return 0;
}

int wperf_recorder_stack_on_switch(struct wperf_recorder *rec, char *err, size_t errlen)
{
	if (tracefs_instance_file_write(rec->instance, SWITCH_TRIGGER, "stacktrace") < 0) {
		snprintf(err, errlen, "parameter `stacks`: cannot set the stacktrace trigger "
			 "on sched_switch in %s: %s (does this kernel have "
			 "CONFIG_STACKTRACE and event triggers?)", rec->instance_name,
			 strerror(errno));
		return -1;
	}
	rec->stack_trigger = true;
	return 0;
}

int wperf_recorder_start(struct wperf_recorder *rec, char *err, size_t errlen)
{
	for (int i = 0; i < rec->ncpus; i++) {
		struct wperf_cpu_reader *r = &rec->cpus[i];

		r->tcpu = tracefs_cpu_open(rec->instance, i, true);
		r->kbuf = tep_kbuffer(rec->tep);
		if (!r->tcpu || !r->kbuf) {
			snprintf(err, errlen, "cannot open %s/instances/%s/per_cpu/"
				 "cpu%d/trace_pipe_raw: %s", tracefs_tracing_dir(),
				 rec->instance_name, i, strerror(errno));
			return -1;
		}
		if (tracefs_cpu_read_size(r->tcpu) > rec->subbuf_size)
			rec->subbuf_size = tracefs_cpu_read_size(r->tcpu);
	}
	if (tracefs_trace_on(rec->instance) < 0) {
		snprintf(err, errlen, "cannot turn tracing on in %s: %s",
			 rec->instance_name, strerror(errno));
		return -1;
	}
	rec->tracing = true;
	return 0;
}

int wperf_recorder_mark(struct wperf_recorder *rec, const char *text)
{
	return tracefs_instance_file_write(rec->instance, "trace_marker", text) < 0 ? -1 : 0;
}

void wperf_recorder_stop(struct wperf_recorder *rec)
{
	if (rec->tracing && !rec->attached)
		tracefs_trace_off(rec->instance);
	rec->tracing = false;
}

/*
 * Pages are slots of 2 MiB chunks, each a transparent huge page where the
 * kernel allows it (madvise mode; one fault then maps the whole chunk),
 * its memory put in place at once. A deferred recording (defer-mib)
 * touches new memory for every page it keeps, and in this project's
 * guest a first touch of a 4 KiB page is dear: with a malloc() per page,
 * its faults and malloc itself were most of the recorder's CPU while
 * the program ran (doc/performance.md, "Recording cost on real
 * servers"). A chunk whose pages are all free again goes back to the
 * system, but for the CHUNKS_KEPT last ones (about a ring buffer's worth
 * at the default size), so that a deferral's backlog is not held once
 * converted.
 */
#define CHUNK_BYTES ((size_t)2 << 20)
#define CHUNKS_KEPT 2

struct wperf_page_chunk {
	struct wperf_page_chunk *prev, *next;
	struct wperf_rb_page *free;  /* its slots not in use */
	int data_bytes;              /* each slot's room for a page */
	int in_use;                  /* its slots handed out */
	char slots[];
};

/* CHUNK_BYTES of memory aligned on CHUNK_BYTES (a huge page's), or
 * NULL: map twice that and unmap what lies outside. */
static void *map_chunk(void)
{
	char *m = mmap(NULL, 2 * CHUNK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *start;
	size_t head;

	if (m == MAP_FAILED)
		return NULL;
	start = (char *)(((uintptr_t)m + CHUNK_BYTES - 1) & ~(uintptr_t)(CHUNK_BYTES - 1));
	head = (size_t)(start - m);
	if (head)
		munmap(m, head);
	munmap(start + CHUNK_BYTES, CHUNK_BYTES - head);
#ifdef MADV_HUGEPAGE
	madvise(start, CHUNK_BYTES, MADV_HUGEPAGE);     /* a hint: may fail */
#endif
#ifdef MADV_POPULATE_WRITE
	madvise(start, CHUNK_BYTES, MADV_POPULATE_WRITE);  /* else faulted in */
#endif
	return start;
}

static struct wperf_page_chunk *new_chunk(struct wperf_recorder *rec)
{
	/* Slots 64-byte aligned: a cache line is never shared by two. */
	size_t slot = (sizeof(struct wperf_rb_page) + (size_t)rec->subbuf_size + 63) & ~(size_t)63;
	size_t nslots = (CHUNK_BYTES - sizeof(struct wperf_page_chunk)) / slot;
	struct wperf_page_chunk *c = nslots ? map_chunk() : NULL;

	if (!c)
		return NULL;
	c->data_bytes = rec->subbuf_size;
	c->in_use = 0;
	c->free = NULL;
	for (size_t i = nslots; i-- > 0;) {
		struct wperf_rb_page *p = (struct wperf_rb_page *)(c->slots + i * slot);

		p->chunk = c;
		p->next = c->free;
		c->free = p;
	}
	c->prev = NULL;
	c->next = rec->chunks;
	if (rec->chunks)
		rec->chunks->prev = c;
	rec->chunks = c;
	rec->nchunks++;
	return c;
}

static void release_chunk(struct wperf_recorder *rec, struct wperf_page_chunk *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		rec->chunks = c->next;
	if (c->next)
		c->next->prev = c->prev;
	if (rec->fill == c)
		rec->fill = NULL;
	rec->nchunks--;
	munmap(c, CHUNK_BYTES);
}

static bool chunk_fits(const struct wperf_recorder *rec, const struct wperf_page_chunk *c)
{
	return c->free && c->data_bytes >= rec->subbuf_size;
}

static struct wperf_rb_page *get_page(struct wperf_recorder *rec)
{
	struct wperf_page_chunk *c = rec->fill;
	struct wperf_rb_page *p;

	if (!c || !chunk_fits(rec, c)) {
		for (c = rec->chunks; c && !chunk_fits(rec, c); c = c->next)
			;
		if (!c && !(c = new_chunk(rec)))
			return NULL;
		rec->fill = c;
	}
	p = c->free;
	c->free = p->next;
	c->in_use++;
	p->next = NULL;
	return p;
}

static void put_page(struct wperf_recorder *rec, struct wperf_rb_page *p)
{
	struct wperf_page_chunk *c = p->chunk;

	p->next = c->free;
	c->free = p;
	if (--c->in_use == 0 && rec->nchunks > CHUNKS_KEPT)
		release_chunk(rec, c);
}

/* The oldest queued page is consumed: recycle it. */
static void drop_head(struct wperf_recorder *rec, struct wperf_cpu_reader *r)
{
	struct wperf_rb_page *done = r->head;

	r->head = done->next;
	if (!r->head)
		r->tail = NULL;
	rec->queued_pages--;
	put_page(rec, done);
}

/* Record the lost-events note of the page just loaded into r->kbuf. */
static void note_missed_events(struct wperf_recorder *rec,
			       struct wperf_cpu_reader *r)
{
	int missed = kbuffer_missed_events(r->kbuf);
	bool first = !r->read_any;

	r->read_any = true;
	/* A flight recorder overwrites its oldest events all the time: what
	 * it lost before the first page of a snapshot is just older history,
	 * but history this CPU no longer has while others may. */
	if (missed != 0 && first && rec->read_until != UINT64_MAX)
		r->history_overwritten = true;
	if (missed == 0 || (first && rec->read_until != UINT64_MAX))
		return;
	if (missed < 0 || r->missed_before_event < 0) {
		r->missed_before_event = -1;
		return;
	}
	r->missed_before_event += missed;
	r->missed_reported += (uint64_t)missed;
}

/*
 * Make the cursor point at the oldest unconsumed event, loading the next
 * queued page (and freeing exhausted ones) as needed.
 */
static void load_cursor(struct wperf_recorder *rec, struct wperf_cpu_reader *r)
{
	while (!r->has_event && r->head) {
		unsigned long long ts;

		kbuffer_load_subbuffer(r->kbuf, r->head->data);
		note_missed_events(rec, r);
		r->event_data = kbuffer_read_event(r->kbuf, &ts);
		if (r->event_data) {
			r->event_ts = ts;
			r->has_event = true;
			return;
		}
		drop_head(rec, r);
	}
}

void wperf_recorder_advance(struct wperf_recorder *rec,
			    struct wperf_cpu_reader *r)
{
	unsigned long long ts;

	r->event_data = kbuffer_next_event(r->kbuf, &ts);
	if (r->event_data) {
		r->event_ts = ts;
		return;
	}
	/* Page exhausted: drop it and move to the next one. */
	r->has_event = false;
	drop_head(rec, r);
	load_cursor(rec, r);
}

/*
 * Events are stamped when the writer reserves space and become readable
 * when it commits; a writer interrupted in between (or a vCPU preempted by
 * the host) may commit an event stamped slightly before our read. So an
 * empty read at time t only promises events stamped >= t - this margin.
 */
#define COMMIT_MARGIN_NS (20 * 1000 * 1000)

int wperf_recorder_poll_cpu(struct wperf_recorder *rec,
			    struct wperf_cpu_reader *r, int max_pages,
			    bool stopping, char *err, size_t errlen)
{
	int pages = 0;

	if (r->drained)
		return 0;
	while (pages < max_pages) {
		uint64_t before = wperf_monotonic_ns();
		struct wperf_rb_page *p = get_page(rec);
		uint64_t page_ts;
		int n;

		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		n = tracefs_cpu_read(r->tcpu, p->data, true);
		if (n < 0) {
			put_page(rec, p);
			snprintf(err, errlen, "cannot read cpu%d/trace_pipe_raw: %s",
				 r->cpu, strerror(errno));
			return -1;
		}
		if (n == 0) {
			put_page(rec, p);
			if (stopping) {
				r->drained = true;
				r->delivered_until = UINT64_MAX;
			} else if (before > COMMIT_MARGIN_NS &&
				   before - COMMIT_MARGIN_NS > r->delivered_until) {
				r->delivered_until = before - COMMIT_MARGIN_NS;
			}
			break;
		}
		p->len = n;
		if (r->tail)
			r->tail->next = p;
		else
			r->head = p;
		r->tail = p;
		rec->queued_pages++;
		pages++;
		/* Read before load_cursor(), which may recycle an empty page. */
		page_ts = kbuffer_subbuf_timestamp(r->kbuf, p->data);
		load_cursor(rec, r);
		/* A snapshot of a live buffer ends at the snapshot time: a page
		 * begun after it holds only newer events (dropped by the
		 * consumer; see wperf_recorder_open_snapshot()). */
		if (rec->read_until != UINT64_MAX && page_ts > rec->read_until) {
			r->drained = true;
			r->delivered_until = UINT64_MAX;
			break;
		}
	}
	return pages;
}

/* Sum of the loss counters in per_cpu/cpuN/stats. */
int64_t wperf_recorder_lost_events(struct wperf_recorder *rec, int cpu)
{
	static const char *const counters[] = {
		"overrun:", "commit overrun:", "dropped events:", NULL
	};
	char path[64];
	char *text;
	int64_t lost = 0;

	snprintf(path, sizeof(path), "per_cpu/cpu%d/stats", cpu);
	text = tracefs_instance_file_read(rec->instance, path, NULL);
	if (!text)
		return -1;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		for (int i = 0; counters[i]; i++) {
			size_t len = strlen(counters[i]);

			if (strncmp(line, counters[i], len) == 0)
				lost += strtoll(line + len, NULL, 10);
		}
	}
	free(text);
	return lost;
}
