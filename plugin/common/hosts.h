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

#include <math.h>

#include "wperf/analysis.h"
#include "wperf/event.h"
#include "wperf/graph.h"

/* A host's clock put on the reference host's: its time y is the
 * reference's x0 + (y - y0) / alpha (the line sink.wperf.netsync finds,
 * y = alpha * x + beta, anchored at a point (x0, y0) of it; composed
 * along a chain of host pairs when the host was placed through others). */
struct wperf_host_clock_given {
	char name[72];
	long double alpha;
	int64_t y0, x0;
	double accuracy_ns;
	int64_t moved_ns;       /* already added to its clock by its source */
	char via[WPERF_HOSTS_MAX * 72];   /* the hosts it was placed through, "B,C"; "" */
};

/* The clock rates a host's transform may have (alpha above): a rate
 * outside is no synchronisation but a fit of too few or too close
 * points. */
static inline bool wperf_host_clock_rate_ok(long double alpha)
{
	return alpha > 0.5L && alpha < 2.0L;
}

struct wperf_host {
	int clock;              /* index in wperf_hosts.clocks, or -1 */
	bool has_uuid;
	uint8_t uuid[16];
	bool has_hostname;
	char name[72];          /* the hostname, made unique among the hosts */
};

struct wperf_hosts {
	struct wperf_host host[WPERF_HOSTS_MAX];
	const char *names[WPERF_HOSTS_MAX];   /* host[i].name */
	size_t n;
	struct wperf_host_clock_given clocks[WPERF_HOSTS_MAX];
	size_t n_clocks;
	/* A transform that changes as the input goes (sink.wperf.knots'
	 * sync-hosts, wperf_hosts_set_clock): each host's times are kept from
	 * going back when a new transform puts them a little earlier. */
	bool clamp;
	int64_t floor[WPERF_HOSTS_MAX];
};

/* Put the clock of the host named in item on the reference's:
 * "NAME:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS[:via=B,C]" (sink.wperf.knots'
 * host-clocks; MOVED_NS, what its source already added to its clock,
 * and via, the hosts whose pairs placed it, only for the statement of
 * its clock). 0, or
 * -1 with why in err. */
int wperf_hosts_give_clock(struct wperf_hosts *h, const char *item, char *err, size_t errlen);

/* Put (or put again) the clock of the host named in item on the
 * reference's, from now on: the item as for wperf_hosts_give_clock();
 * an earlier one of that name is replaced, and the hosts seen already
 * follow it. Times of one host never go back after (hosts.clamp). 0, or
 * -1 with why in err. */
int wperf_hosts_set_clock(struct wperf_hosts *h, const char *item, char *err, size_t errlen);

/* ns of host `host`'s clock on the reference clock (ns itself when its
 * clock was not given). */
static inline int64_t wperf_hosts_time(const struct wperf_hosts *h, uint32_t host, int64_t ns)
{
	int c = h->host[host].clock;

	if (c < 0)
		return ns;
	return h->clocks[c].x0 + (int64_t)llroundl((long double)(ns - h->clocks[c].y0) /
						   h->clocks[c].alpha);
}

/* wperf_analysis_finish() of a, the graph's hosts named and their clocks
 * stated. 0, or -1 (the analysis' error, or out of memory). */
int wperf_hosts_finish(const struct wperf_hosts *h, struct wperf_analysis *a,
		       struct wperf_graph *g);

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
