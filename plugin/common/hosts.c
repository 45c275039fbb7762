/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/hosts.c — which machine recorded each kernel stream, and
 * ids unique across machines (see hosts.h).
 */
#include "hosts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
	x->clock = -1;
	for (size_t c = 0; c < h->n_clocks; c++)
		if (strcmp(h->clocks[c].name, x->name) == 0)
			x->clock = (int)c;
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

/* The last ":via=" in item, or NULL. */
static const char *via_of(const char *item)
{
	const char *v = NULL;

	for (const char *p = item; (p = strstr(p, ":via=")); p++)
		v = p;
	return v;
}

/* The numbers after NAME in "NAME:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS", from
 * the right (a name may hold a colon), and the hosts of ":via=B,C" after
 * them. */
static bool parse_clock(const char *item, struct wperf_host_clock_given *c)
{
	const char *colon[5];
	const char *end = via_of(item);
	char *stop;

	c->via[0] = '\0';
	if (end) {
		if (!end[5] || strlen(end + 5) >= sizeof c->via)
			return false;
		snprintf(c->via, sizeof c->via, "%s", end + 5);
	} else {
		end = item + strlen(item);
	}
	const char *last = end;

	for (int k = 4; k >= 0; k--) {
		while (end > item && end[-1] != ':')
			end--;
		if (end == item)
			return false;
		colon[k] = --end;
	}
	if (colon[0] == item || (size_t)(colon[0] - item) >= sizeof c->name)
		return false;
	snprintf(c->name, sizeof c->name, "%.*s", (int)(colon[0] - item), item);
	errno = 0;
	c->alpha = strtold(colon[0] + 1, &stop);
	if (stop != colon[1] || !wperf_host_clock_rate_ok(c->alpha))
		return false;
	c->y0 = strtoll(colon[1] + 1, &stop, 10);
	if (stop != colon[2])
		return false;
	c->x0 = strtoll(colon[2] + 1, &stop, 10);
	if (stop != colon[3])
		return false;
	c->accuracy_ns = strtod(colon[3] + 1, &stop);
	if (stop != colon[4] || !(c->accuracy_ns >= 0))
		return false;
	c->moved_ns = strtoll(colon[4] + 1, &stop, 10);
	return stop == last && errno == 0;
}

int wperf_hosts_give_clock(struct wperf_hosts *h, const char *item, char *err, size_t errlen)
{
	struct wperf_host_clock_given c;

	if (!parse_clock(item, &c)) {
		snprintf(err, errlen, "parameter `host-clocks`: \"%.200s\" is not "
			 "HOST:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS[:via=HOST,...] (HOST's time y "
			 "is the reference's X0 + (y - Y0) / ALPHA, ALPHA between 0.5 and 2; "
			 "MOVED_NS already added to its clock by its source; via: the hosts "
			 "its clock was placed through)", item);
		return -1;
	}
	if (h->n_clocks == WPERF_HOSTS_MAX) {
		snprintf(err, errlen, "parameter `host-clocks`: more than %d hosts",
			 WPERF_HOSTS_MAX);
		return -1;
	}
	h->clocks[h->n_clocks++] = c;
	return 0;
}

int wperf_hosts_set_clock(struct wperf_hosts *h, const char *item, char *err, size_t errlen)
{
	struct wperf_host_clock_given c;
	size_t k;

	if (!parse_clock(item, &c)) {
		snprintf(err, errlen, "internal error: host clock \"%.200s\" is not "
			 "HOST:ALPHA:Y0:X0:ACCURACY_NS:MOVED_NS[:via=HOST,...]", item);
		return -1;
	}
	for (k = 0; k < h->n_clocks && strcmp(h->clocks[k].name, c.name); k++)
		;
	if (k == WPERF_HOSTS_MAX) {
		snprintf(err, errlen, "more than %d hosts to synchronise", WPERF_HOSTS_MAX);
		return -1;
	}
	h->clocks[k] = c;
	if (k == h->n_clocks)
		h->n_clocks++;
	for (size_t i = 0; i < h->n; i++)
		if (!strcmp(h->host[i].name, c.name))
			h->host[i].clock = (int)k;
	h->clamp = true;
	return 0;
}

/* The statement of each host whose clock was moved. -1: out of memory. */
static int state_clocks(const struct wperf_hosts *h, struct wperf_graph *g)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n; i++)
		n += h->host[i].clock >= 0;
	if (!n || g->n_hosts < 2)
		return 0;
	if (!(g->host_clocks = calloc(n, sizeof *g->host_clocks)))
		return -1;
	for (size_t i = 0; i < h->n; i++) {
		const struct wperf_host_clock_given *c;
		struct wperf_host_clock *out;

		if (h->host[i].clock < 0)
			continue;
		c = &h->clocks[h->host[i].clock];
		out = &g->host_clocks[g->n_host_clocks++];
		out->host = (uint32_t)i;
		out->alpha = (double)c->alpha;
		out->anchor_ns = c->x0;
		out->offset_ns = (double)(c->y0 - c->x0 - c->moved_ns);
		out->accuracy_ns = c->accuracy_ns;
		if (c->via[0] && !(out->via = strdup(c->via)))
			return -1;
		/* The reference: the one host whose clock was not moved. */
		for (size_t r = 0; r < h->n; r++)
			if (h->host[r].clock < 0 && !out->reference)
				out->reference = strdup(h->host[r].name);
		if (!out->reference && !(out->reference = strdup("?")))
			return -1;
	}
	return 0;
}

int wperf_hosts_finish(const struct wperf_hosts *h, struct wperf_analysis *a,
		       struct wperf_graph *g)
{
	if (wperf_analysis_finish(a, g) < 0)
		return -1;
	if (wperf_graph_set_hosts(g, h->names, h->n) < 0 || state_clocks(h, g) < 0) {
		wperf_graph_fini(g);
		return -1;
	}
	return 0;
}
