/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/hosts.c — which machine recorded each kernel stream, and
 * ids unique across machines (see hosts.h).
 */
#include "hosts.h"

#include <stdio.h>
#include <string.h>

static const char *trace_hostname(const bt_trace *trace)
{
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(trace,
										  "hostname");

	return v && bt_value_is_string(v) && *bt_value_string_get(v)
	       ? bt_value_string_get(v) : NULL;
}

/*
 * The same machine and boot: the same clock UUID when both clocks have
 * one (two boots of one machine are two hosts: their tids are not one
 * history); else the same hostname, or one of them without a name (a
 * trace that does not say is taken as the first host's, as before).
 */
static bool same_host(const struct wperf_host *h, const uint8_t *uuid, const char *hostname)
{
	if (uuid && h->has_uuid)
		return memcmp(uuid, h->uuid, 16) == 0;
	return !hostname || !h->has_hostname || strncmp(h->name, hostname, 63) == 0;
}

static void name_host(struct wperf_hosts *h, struct wperf_host *x, const bt_trace *trace,
		      const char *hostname)
{
	const char *base = hostname ? hostname : bt_trace_get_name(trace);
	bool taken;

	if (!base || !*base)
		base = "host";
	snprintf(x->name, sizeof x->name, "%.63s", base);
	/* Two boots of one machine: "vm1", "vm1#2". */
	for (unsigned k = 2; k < 100; k++) {
		taken = false;
		for (size_t i = 0; i < h->n; i++)
			taken |= strcmp(h->host[i].name, x->name) == 0;
		if (!taken)
			return;
		snprintf(x->name, sizeof x->name, "%.63s#%u", base, k);
	}
}

int wperf_hosts_of_stream(struct wperf_hosts *h, const bt_trace *trace,
			  const bt_clock_class *cc)
{
	const uint8_t *uuid = cc ? bt_clock_class_get_uuid(cc) : NULL;
	const char *hostname = trace_hostname(trace);
	struct wperf_host *x;

	for (size_t i = 0; i < h->n; i++)
		if (same_host(&h->host[i], uuid, hostname))
			return (int)i;
	if (h->n == WPERF_HOSTS_MAX)
		return -1;
	x = &h->host[h->n];
	memset(x, 0, sizeof *x);
	x->has_uuid = uuid != NULL;
	if (uuid)
		memcpy(x->uuid, uuid, 16);
	x->has_hostname = hostname != NULL;
	name_host(h, x, trace, hostname);
	h->names[h->n] = x->name;
	return (int)h->n++;
}

int wperf_hosts_cpu(uint32_t host, int cpu)
{
	if (cpu < 0)
		return cpu;
	return cpu < WPERF_HOST_CPU_STRIDE ? cpu + (int)host * WPERF_HOST_CPU_STRIDE : -1;
}

/* A kernel dev_t is 32 bits (major << 20 | minor): the host goes above. */
static uint64_t host_dev(uint32_t host, uint64_t dev)
{
	return (dev & 0xFFFFFFFF) | (uint64_t)host << WPERF_HOST_SHIFT;
}

void wperf_hosts_remap(struct wperf_event *ev, uint32_t host)
{
	ev->host = host;
	if (!host)
		return;
#define HOST_ID(x) ((x) = wperf_host_id(host, (x)))
	HOST_ID(ev->current_tid);
	HOST_ID(ev->current_pid);
	ev->cpu = wperf_hosts_cpu(host, ev->cpu);
	switch (ev->type) {
	case WPERF_EV_SWITCH:
		HOST_ID(ev->u.sw.prev_tid);
		HOST_ID(ev->u.sw.next_tid);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		HOST_ID(ev->u.wake.tid);
		if (ev->u.wake.has_target_cpu)
			ev->u.wake.target_cpu = wperf_hosts_cpu(host, ev->u.wake.target_cpu);
		break;
	case WPERF_EV_FORK:
		HOST_ID(ev->u.fork.parent_tid);
		HOST_ID(ev->u.fork.parent_pid);
		HOST_ID(ev->u.fork.child_tid);
		HOST_ID(ev->u.fork.child_pid);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_EXIT:
	case WPERF_EV_FREE:
		HOST_ID(ev->u.task.tid);
		break;
	case WPERF_EV_BLOCK_INSERT:
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
		HOST_ID(ev->u.block.tid);
		ev->u.block.dev = host_dev(host, ev->u.block.dev);
		break;
	case WPERF_EV_STATEDUMP_BLOCK_DEVICE:
		ev->u.blockdev.dev = host_dev(host, ev->u.blockdev.dev);
		break;
	case WPERF_EV_STATEDUMP_PROCESS:
		HOST_ID(ev->u.statedump.tid);
		HOST_ID(ev->u.statedump.pid);
		HOST_ID(ev->u.statedump.ppid);
		break;
	default:
		break;
	}
#undef HOST_ID
}
