/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/procs.c — whose a running process is (procs.h says by
 * which rule, and why).
 */
#include "procs.h"

#include <stdio.h>
#include <string.h>

long wperf_process_uid(long pid)
{
	char path[64], line[256];
	unsigned long uids[4];
	int n = 0;
	FILE *f;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	if (!(f = fopen(path, "re")))
		return -1;
	/* "Uid:\treal\teffective\tsaved\tfilesystem" */
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "Uid:", 4)) {
			n = sscanf(line + 4, "%lu %lu %lu %lu", &uids[0], &uids[1], &uids[2],
				   &uids[3]);
			break;
		}
	fclose(f);
	if (n != 4 || uids[1] != uids[0] || uids[2] != uids[0] || uids[3] != uids[0])
		return -1;
	return (long)uids[0];
}

bool wperf_process_is(long pid, uid_t uid)
{
	return wperf_process_uid(pid) == (long)uid;
}
