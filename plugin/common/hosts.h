/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/hosts.h — which machine recorded each kernel stream, and
 * its events' ids made unique across machines.
 *
 * A host is one clock identity: LTTng's clock UUID (the boot id), or,
 * for a clock without one, the trace's `hostname` environment entry.
 * Several traces of one machine and boot (a kernel and a UST trace) are
 * one host. The first host seen is host 0, whose ids stay as they are,
 * so one host's trace analyses exactly as it always did; the events of
 * the others get their tids, pids and CPUs moved out of host 0's range
 * (wperf_host_id(), WPERF_HOST_CPU_STRIDE in wperf/graph.h), their block
 * devices' dev_t above its 32 bits, and their
 * host in wperf_event.host, so that no two machines share a thread, a
 * CPU, a disk, an interrupt line or a NIC.
 */
#ifndef WPERF_PLUGIN_HOSTS_H
#define WPERF_PLUGIN_HOSTS_H

#include <babeltrace2/babeltrace.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wperf/event.h"
#include "wperf/graph.h"

struct wperf_host {
	bool has_uuid;
	uint8_t uuid[16];
	bool has_hostname;
	char name[72];          /* the hostname, made unique among the hosts */
};

struct wperf_hosts {
	struct wperf_host host[WPERF_HOSTS_MAX];
	const char *names[WPERF_HOSTS_MAX];   /* host[i].name */
	size_t n;
};

/* The host of a kernel stream of trace `trace` on clock cc (NULL: none),
 * added when new; -1 when there are WPERF_HOSTS_MAX hosts already. */
int wperf_hosts_of_stream(struct wperf_hosts *h, const bt_trace *trace,
			  const bt_clock_class *cc);

/* Host `host`'s CPU cpu as the analysis numbers it (-1 stays -1, and a
 * CPU past WPERF_HOST_CPU_STRIDE on a host > 0 becomes -1, unknown). */
int wperf_hosts_cpu(uint32_t host, int cpu);

/* Move ev's ids out of host 0's range, and set ev->host. */
void wperf_hosts_remap(struct wperf_event *ev, uint32_t host);

#endif
