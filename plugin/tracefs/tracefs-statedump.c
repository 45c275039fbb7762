/* SPDX-License-Identifier: MIT */
/*
 * plugin/tracefs/tracefs-statedump.c — read the threads of /proc/<pid>/task/<tid>
 * and the block devices of /sys/class/block for the synthetic statedump.
 */
#include "tracefs-statedump.h"

#include <ctype.h>
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PF_KTHREAD 0x00200000u  /* include/linux/sched.h */

/* Grow *array (of elem-sized items) so that one more fits. */
static int reserve_one(void **array, size_t count, size_t *cap, size_t elem)
{
	void *bigger;

	if (count < *cap)
		return 0;
	*cap = *cap ? *cap * 2 : 256;
	bigger = realloc(*array, *cap * elem);
	if (!bigger)
		return -1;
	*array = bigger;
	return 0;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

/* lttng_process_status of a /proc state letter: R is running, everything
 * that is not dead is waiting (S, D, I, T, t, P, ...). */
static int32_t status_of(char state)
{
	switch (state) {
	case 'R': return WPERF_STATUS_RUN;
	case 'Z': return WPERF_STATUS_ZOMBIE;
	case 'X': return WPERF_STATUS_DEAD;
	default:  return WPERF_STATUS_WAIT;
	}
}

/*
 * Parse /proc/<pid>/task/<tid>/stat. The name is between the first '(' and
 * the LAST ')' since a name may itself contain ") ". After it come, from
 * field 3: state ppid pgrp session tty_nr tpgid flags ... processor (39).
 */
static int read_thread(long pid, const char *tid, struct wperf_thread_state *t)
{
	char path[128], buf[1024];
	FILE *f;
	size_t n;
	char *open, *close, *p;
	unsigned long flags = 0;
	long ppid = 0, cpu = -1;

	snprintf(path, sizeof(path), "/proc/%ld/task/%s/stat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	open = strchr(buf, '(');
	close = strrchr(buf, ')');
	if (!open || !close || close < open || close[1] != ' ' ||
	    !close[2] || close[3] != ' ')
		return -1;

	memset(t, 0, sizeof(*t));
	n = (size_t)(close - open - 1);
	if (n >= sizeof(t->name))
		n = sizeof(t->name) - 1;
	memcpy(t->name, open + 1, n);
	t->tid = (int32_t)atol(tid);
	t->pid = (int32_t)pid;
	t->status = status_of(close[2]);

	/* Walk the space-separated fields after the state letter. */
	p = close + 4;  /* ") S " then field 4 */
	for (int field = 4; field <= 39 && p && *p; field++) {
		if (field == 4)
			ppid = strtol(p, NULL, 10);
		else if (field == 9)
			flags = strtoul(p, NULL, 10);
		else if (field == 39)
			cpu = strtol(p, NULL, 10);
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	t->ppid = (int32_t)ppid;
	t->cpu = (int32_t)cpu;
	t->type = (flags & PF_KTHREAD) ? WPERF_THREAD_KERNEL : WPERF_THREAD_USER;
	return 0;
}

static int collect_process(struct wperf_statedump *sd, size_t *cap, long pid)
{
	char path[64];
	DIR *tasks;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%ld/task", pid);
	tasks = opendir(path);
	if (!tasks)
		return 0;  /* the process exited meanwhile */
	while ((de = readdir(tasks))) {
		if (!is_number(de->d_name))
			continue;
		if (reserve_one((void **)&sd->threads, sd->nthreads, cap,
				sizeof(*sd->threads))) {
			closedir(tasks);
			return -1;
		}
		if (read_thread(pid, de->d_name, &sd->threads[sd->nthreads]) == 0)
			sd->nthreads++;
	}
	closedir(tasks);
	return 0;
}

static int collect_threads(struct wperf_statedump *sd)
{
	DIR *proc = opendir("/proc");
	struct dirent *de;
	size_t cap = 0;
	int ret = 0;

	if (!proc)
		return 0;  /* no procfs: no statedump, not an error */
	while (ret == 0 && (de = readdir(proc)))
		if (is_number(de->d_name))
			ret = collect_process(sd, &cap, atol(de->d_name));
	closedir(proc);
	return ret;
}

/* /sys/class/block/<name>/dev holds "major:minor" (disks and partitions). */
static int collect_block_devices(struct wperf_statedump *sd)
{
	DIR *dir = opendir("/sys/class/block");
	struct dirent *de;
	size_t cap = 0;

	if (!dir)
		return 0;
	while ((de = readdir(dir))) {
		char path[512];
		unsigned major, minor;
		FILE *f;
		int got;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/class/block/%s/dev", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		got = fscanf(f, "%u:%u", &major, &minor);
		fclose(f);
		if (got != 2)
			continue;
		if (reserve_one((void **)&sd->disks, sd->ndisks, &cap,
				sizeof(*sd->disks))) {
			closedir(dir);
			return -1;
		}
		sd->disks[sd->ndisks].dev = (major << 20) | minor;
		snprintf(sd->disks[sd->ndisks].name, sizeof(sd->disks[0].name),
			 "%s", de->d_name);
		sd->ndisks++;
	}
	closedir(dir);
	return 0;
}

int wperf_statedump_collect(struct wperf_statedump *sd)
{
	memset(sd, 0, sizeof(*sd));
	if (collect_threads(sd) || collect_block_devices(sd)) {
		wperf_statedump_free(sd);
		return -1;
	}
	return 0;
}

void wperf_statedump_free(struct wperf_statedump *sd)
{
	free(sd->threads);
	free(sd->disks);
	memset(sd, 0, sizeof(*sd));
}
