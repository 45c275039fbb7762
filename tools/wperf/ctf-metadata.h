/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/ctf-metadata.h — is every packetized CTF metadata file of a
 * trace whole? babeltrace2 2.0 loops forever on a metadata file cut inside
 * a packet (an unclosed or half-copied trace), so `wperf report` checks
 * before it builds the graph, and names the file.
 */
#ifndef WPERF_TOOL_CTF_METADATA_H
#define WPERF_TOOL_CTF_METADATA_H

#include <stddef.h>

/* Check every file named `metadata` under dir (links not followed), in
 * path order. 0 when all are whole (or plain text, which babeltrace2
 * reports itself); 1 with the first problem in why (one line). */
int wperf_check_metadata(const char *dir, char *why, size_t whylen);

#endif /* WPERF_TOOL_CTF_METADATA_H */
