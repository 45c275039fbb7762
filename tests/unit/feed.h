/* SPDX-License-Identifier: MIT */
/*
 * feed.h — hand-built event sequences for the streaming analysis (a switch,
 * a wakeup, an interrupt, a block request, a fork) and readers of the graph
 * it finishes with, shared by the unit tests that drive
 * wperf_analysis_feed() directly. Header-only: static inline helpers, so
 * a test includes it once and uses what it needs.
 */
#ifndef WPERF_TEST_FEED_H
#define WPERF_TEST_FEED_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "wperf/analysis.h"

#define MS 1000000LL

/* ---- building events ---- */

static inline struct wperf_event base(enum wperf_event_type type, int64_t ts, int cpu)
{
	struct wperf_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.ts = ts;
	ev.cpu = cpu;
	ev.current_tid = -1;
	ev.current_pid = -1;
	ev.context_flags = WPERF_CTX_UNKNOWN;
	return ev;
}

static inline void sw(struct wperf_analysis *a, int64_t ts, int cpu, int64_t prev,
	       int64_t prev_state, int64_t next)
{
	struct wperf_event ev = base(WPERF_EV_SWITCH, ts, cpu);

	ev.u.sw.prev_tid = prev;
	ev.u.sw.prev_state = prev_state;
	ev.u.sw.next_tid = next;
	wperf_analysis_feed(a, &ev);
}

static inline void wake(struct wperf_analysis *a, int64_t ts, int cpu, int64_t tid)
{
	struct wperf_event ev = base(WPERF_EV_WAKEUP, ts, cpu);

	ev.u.wake.tid = tid;
	ev.u.wake.waking = true;
	wperf_analysis_feed(a, &ev);
}

static inline void simple(struct wperf_analysis *a, enum wperf_event_type type,
		   int64_t ts, int cpu, int64_t num)
{
	struct wperf_event ev = base(type, ts, cpu);

	if (type == WPERF_EV_IRQ_ENTRY || type == WPERF_EV_IRQ_EXIT) {
		ev.u.irq.irq = num;
		ev.u.irq.name = type == WPERF_EV_IRQ_ENTRY ? "virtio0" : NULL;
	} else {
		ev.u.softirq.vec = num;
	}
	wperf_analysis_feed(a, &ev);
}

static inline void block(struct wperf_analysis *a, enum wperf_event_type type, int64_t ts,
		  int cpu, uint64_t sector, int64_t tid)
{
	struct wperf_event ev = base(type, ts, cpu);

	ev.u.block.dev = (253u << 20) | 0;
	ev.u.block.sector = sector;
	ev.u.block.nr_sector = 8;
	ev.u.block.bytes = 4096;
	ev.u.block.tid = tid;
	wperf_analysis_feed(a, &ev);
}

/* ---- reading the graph ---- */

static inline uint32_t vertex_of_tid(const struct wperf_graph *g, int64_t tid)
{
	for (size_t i = 0; i < g->n_vertices; i++)
		if (g->vertices[i].kind == WPERF_V_THREAD && g->vertices[i].tid == tid)
			return (uint32_t)i;
	return UINT32_MAX;
}

static inline uint32_t vertex_named(const struct wperf_graph *g, const char *name)
{
	for (size_t i = 0; i < g->n_vertices; i++)
		if (g->vertices[i].kind != WPERF_V_THREAD && strcmp(g->vertices[i].name, name) == 0)
			return (uint32_t)i;
	return UINT32_MAX;
}

static inline const struct wperf_edge *edge(const struct wperf_graph *g, uint32_t from, uint32_t to)
{
	for (size_t i = 0; i < g->n_edges; i++)
		if (g->edges[i].from == from && g->edges[i].to == to)
			return &g->edges[i];
	return NULL;
}

static inline int64_t weight(const struct wperf_graph *g, int64_t from_tid, int64_t to_tid)
{
	const struct wperf_edge *e = edge(g, vertex_of_tid(g, from_tid), vertex_of_tid(g, to_tid));

	return e ? e->weight_ns : -1;
}

static inline int finish(struct wperf_analysis *a, struct wperf_graph *g)
{
	int rc = wperf_analysis_finish(a, g);

	if (rc)
		fprintf(stderr, "finish failed: %s\n", wperf_analysis_error(a));
	wperf_analysis_destroy(a);
	return rc;
}

/* Thread child_tid (of process child_pid) forked by parent_tid on cpu. */
static inline void fork_thread(struct wperf_analysis *a, int64_t ts, int cpu, int64_t parent_tid,
			       int64_t child_tid, int64_t child_pid, const char *comm)
{
	struct wperf_event ev = base(WPERF_EV_FORK, ts, cpu);

	ev.u.fork.parent_tid = parent_tid;
	ev.u.fork.parent_pid = parent_tid;
	ev.u.fork.child_tid = child_tid;
	ev.u.fork.child_pid = child_pid;
	ev.u.fork.child_comm = comm;
	wperf_analysis_feed(a, &ev);
}

#endif
