/* SPDX-License-Identifier: MIT */
/*
 * nic.c — network interfaces as pseudo-threads (see nic.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nic.h"

void nic_init(struct nic_tracker *n)
{
	memset(n, 0, sizeof *n);
	n->last_vertex = VERTEX_NONE;
	netpeer_init(&n->peers);
}

void nic_fini(struct nic_tracker *n)
{
	for (size_t i = 0; i < n->n_capacity; i++)
		free(n->capacity[i].name);
	free(n->capacity);
	free(n->senders);
	netpeer_fini(&n->peers);
	memset(n, 0, sizeof *n);
}

uint32_t nic_vertex(struct nic_tracker *n, struct vertex_table *vt, const char *dev)
{
	char name[64];

	if (!dev || !*dev)
		dev = "?";
	if (n->last_vertex != VERTEX_NONE && n->last_host == vt->current_host &&
	    strcmp(n->last_dev, dev) == 0)
		return n->last_vertex;
	snprintf(name, sizeof name, "nic:%s", dev);
	uint32_t v = vt_pseudo(vt, WPERF_V_NIC, name);

	/* Cache only names that fit, so a hit is always an exact match. */
	n->last_vertex = strlen(dev) < sizeof n->last_dev ? v : VERTEX_NONE;
	snprintf(n->last_dev, sizeof n->last_dev, "%s", dev);
	n->last_host = vt->current_host;
	return v;
}

int nic_set_capacity(struct nic_tracker *n, const char *dev, uint64_t bits_per_second)
{
	struct nic_capacity *c = realloc(n->capacity, (n->n_capacity + 1) * sizeof *c);

	if (!c)
		return -1;
	n->capacity = c;
	c[n->n_capacity].name = strdup(dev);
	if (!c[n->n_capacity].name)
		return -1;
	c[n->n_capacity++].bits_per_second = bits_per_second;
	return 0;
}

void nic_sent(struct nic_tracker *n, struct vertex_table *vt, uint32_t nic,
	      uint32_t thread, uint64_t len)
{
	if (nic == VERTEX_NONE)
		return;
	vt_get(vt, nic)->bytes += len;
	if (thread == VERTEX_NONE)
		return;
	for (size_t i = 0; i < n->n_senders; i++) {
		struct nic_sender *s = &n->senders[i];

		if (s->nic == nic && s->thread == thread) {
			s->bytes += len;
			s->packets++;
			return;
		}
	}
	if (n->n_senders == n->cap_senders) {
		size_t cap = n->cap_senders ? n->cap_senders * 2 : 16;
		struct nic_sender *s = realloc(n->senders, cap * sizeof *s);

		if (!s) {
			n->oom = true;
			return;
		}
		n->senders = s;
		n->cap_senders = cap;
	}
	n->senders[n->n_senders++] = (struct nic_sender){ nic, thread, len, 1 };
}

/* The capacity given for vertex "nic:<dev>", 0 if none. */
static uint64_t capacity_of(const struct nic_tracker *n, const struct wperf_vertex *v)
{
	const char *dev = v->name + strlen("nic:");

	for (size_t i = 0; i < n->n_capacity; i++)
		if (strcmp(n->capacity[i].name, dev) == 0)
			return n->capacity[i].bits_per_second;
	return 0;
}

void nic_finish(struct nic_tracker *n, struct vertex_table *vt, struct edge_map *edges,
		int64_t begin, int64_t end)
{
	for (size_t i = 0; i < vt->n; i++) {
		struct wperf_vertex *v = vt_get(vt, (uint32_t)i);

		if (v->kind != WPERF_V_NIC || strncmp(v->name, "nic:", 4) != 0)
			continue;
		v->capacity_bps = capacity_of(n, v);
		if (v->capacity_bps)
			v->busy_ns = (int64_t)((long double)v->bytes * 8.0L * 1e9L /
					       (long double)v->capacity_bps + 0.5L);
	}
	for (size_t i = 0; i < n->n_senders; i++) {
		const struct nic_sender *s = &n->senders[i];
		const struct wperf_vertex *v = vt_get(vt, s->nic);
		int64_t idle = (end - begin) - v->busy_ns;

		if (!v->capacity_bps || v->bytes == 0)
			continue;           /* unknown speed: the report says so */
		if (idle < 0)
			idle = 0;
		int64_t w = (int64_t)((long double)idle * (long double)s->bytes /
				      (long double)v->bytes + 0.5L);
		size_t e = edges_get(edges, s->nic, s->thread);

		if (e == EDGE_NONE)
			continue;
		edges->e[e].weight_ns += w;
		edges->e[e].direct_ns += w;
		edges->e[e].count += s->packets;
	}
}
