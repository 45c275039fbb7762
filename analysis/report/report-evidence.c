/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-evidence.c — a classification's evidence in
 * words: one sentence per fact, with its numbers, for the text, HTML and
 * JSON reports. The facts and the rules that weigh them are
 * analysis/classify.c's; the words are the report layer's.
 */
#include <stdio.h>

#include "report-format.h"
#include "wperf/classify.h"
#include "wperf/report.h"

#define LABEL 96

/* A device wait's cost after its wakeup (wperf-analysis(7), The CPUs). */
#define CPU_DELAYS "the CPU delays after the device woke them, that wait's cost"

/* "(9.5 s of it on a thread that was waiting on it; 316 ms the CPU delays after
 * the device woke them, that wait's cost)", or "" when neither. */
static void device_parts(char *buf, size_t len, const struct wperf_evidence *ev)
{
	char through[32], woken[32];

	wperf_fmt_duration(through, sizeof through, ev->through_ns, 0);
	wperf_fmt_duration(woken, sizeof woken, ev->woken_ns, 0);
	if (ev->through_ns > 0 && ev->woken_ns > 0)
		snprintf(buf, len, " (%s of it on a thread that was waiting on it; %s "
			 CPU_DELAYS ")", through, woken);
	else if (ev->through_ns > 0)
		snprintf(buf, len, " (%s of it on a thread that was waiting on it)", through);
	else if (ev->woken_ns > 0)
		snprintf(buf, len, " (%s of it " CPU_DELAYS ")", woken);
	else
		buf[0] = '\0';
}

/* "; of their 3.26 s runnable in all (the threads table's), 2.10 ms was a
 * wakeup's latency on an idle CPU and 2.59 s the CPU delays after device
 * wakeups, those waits' cost": the runnable time the threads table shows
 * beside the part of it a finding counts as a wait for a CPU (a_ns), so
 * that the two figures read as parts of one, not as two answers; "" when
 * they are equal. `woken_named`: the sentence has named those delays. */
static void runnable_rest(char *buf, size_t len, const struct wperf_evidence *ev,
			  const char *whose, bool woken_named)
{
	int64_t rest = ev->runnable_ns - ev->a_ns;
	int64_t lat = ev->latency_ns < rest ? ev->latency_ns : rest;
	int64_t woken = rest - lat;
	char all[32], l[32], w[32], lpart[96] = "", wpart[128] = "";

	buf[0] = '\0';
	if (rest <= 0)
		return;
	wperf_fmt_duration(all, sizeof all, ev->runnable_ns, 0);
	wperf_fmt_duration(l, sizeof l, lat, 0);
	wperf_fmt_duration(w, sizeof w, woken, 0);
	if (lat > 0)
		snprintf(lpart, sizeof lpart, "%s was a wakeup's latency on an idle CPU", l);
	if (woken > 0)
		snprintf(wpart, sizeof wpart, "%s%s %s", w, lat > 0 ? "" : " was",
			 woken_named ? "those delays" : "the CPU delays after device wakeups, "
			 "those waits' cost");
	snprintf(buf, len, "; of %s %s runnable in all (the threads table's), %s%s%s", whose, all,
		 lpart, lat > 0 && woken > 0 ? " and " : "", wpart);
}

/* " (and 6.47 s on a runnable thread, directly or down the chain: a wait
 * for a CPU, on neither side)", with the waits on another program serving
 * them beside it, or "": the threads' waits on each other that end on
 * neither the device's side nor the threads'. */
static void neither_side(char *buf, size_t len, const struct wperf_evidence *ev)
{
	char r[32], s[32];

	wperf_fmt_duration(r, sizeof r, ev->on_runnable_ns, 0);
	wperf_fmt_duration(s, sizeof s, ev->served_ns, 0);
	if (ev->on_runnable_ns > 0 && ev->served_ns > 0)
		snprintf(buf, len, " (and %s on a runnable thread, directly or down the chain, "
			 "a wait for a CPU, and %s on another program working on their "
			 "request, its service time: on neither side)", r, s);
	else if (ev->on_runnable_ns > 0)
		snprintf(buf, len, " (and %s on a runnable thread, directly or down the "
			 "chain: a wait for a CPU, on neither side)", r);
	else if (ev->served_ns > 0)
		snprintf(buf, len, " (and %s on another program working on their request: "
			 "its service time, on neither side)", s);
	else
		buf[0] = '\0';
}

static void device_weight_describe(char *buf, size_t len, const struct wperf_evidence *ev,
				   const char *v1, const char *a, const char *b)
{
	char parts[192], cpu[256];
	bool in_device = ev->a_ns >= ev->b_ns;

	device_parts(parts, sizeof parts, ev);
	neither_side(cpu, sizeof cpu, ev);
	snprintf(buf, len, "the threads waited on %s%s %s, directly or through each "
		 "other%s, %s the %s of their other waits on each other%s: %s", v1,
		 ev->total > 1 ? " and the other devices" : "", a, parts,
		 in_device ? "at least" : "less than", b, cpu,
		 in_device ? "the knot's waiting ends in the device"
			   : "the device is a member, but the knot's waiting ends between "
			     "its threads");
}

void wperf_evidence_describe(char *buf, size_t len, const struct wperf_graph *g,
			     const struct wperf_evidence *ev)
{
	char v1[LABEL] = "?", v2[LABEL] = "?", a[32], b[32], pct[32], woken[128] = "";
	char rest[320];

	if (ev->vertex < g->n_vertices)
		wperf_fmt_vertex_label(v1, sizeof v1, g, ev->vertex);
	if (ev->vertex2 < g->n_vertices)
		wperf_fmt_vertex_label(v2, sizeof v2, g, ev->vertex2);
	wperf_fmt_duration(a, sizeof a, ev->a_ns, 0);
	wperf_fmt_duration(b, sizeof b, ev->b_ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, ev->ppm);
	if (ev->woken_ns > 0) {
		char w[32];
		wperf_fmt_duration(w, sizeof w, ev->woken_ns, 0);
		snprintf(woken, sizeof woken, " (%s of it " CPU_DELAYS ")", w);
	}

	switch (ev->kind) {
	case WPERF_EV_DEVICE:
		snprintf(buf, len, "%s is a member: the threads wait for it %s, "
			 "and it waits for them (idle) %s", v1, a, b);
		return;
	case WPERF_EV_RUNNABLE:
		runnable_rest(rest, sizeof rest, ev, "its", false);
		snprintf(buf, len, "%s was runnable %s of its time (%s), its CPU held by "
			 "another thread%s%s", v1, pct, a, rest, ev->decides ? ": it needs a CPU "
			 "or priority, not less waiting" : "; the knot's own waits weigh more");
		return;
	case WPERF_EV_CPU_DEMAND:
		/* "waited for a CPU another thread held": not all the runnable
		 * time the threads table shows (runnable_rest says the rest). */
		runnable_rest(rest, sizeof rest, ev, "their", ev->woken_ns > 0);
		snprintf(buf, len, "the members waited for a CPU another thread held %s in all, "
			 "%s the %s they waited on each other%s%s%s%s", a,
			 ev->a_ns > ev->b_ns ? "more than" : "not more than", b,
			 ev->vertex < g->n_vertices ? " and on " : "",
			 ev->vertex < g->n_vertices ? v1 : "", woken, rest);
		return;
	case WPERF_EV_WAIT_LENGTH: {
		char lo[32], hi[32];
		wperf_fmt_duration(lo, sizeof lo, ev->a_ns, 0);
		wperf_fmt_duration(hi, sizeof hi, ev->b_ns, 0);
		snprintf(buf, len, "the %llu waits of threads on each other have a median "
			 "length between %s and %s", (unsigned long long)ev->count, lo, hi);
		return;
	}
	case WPERF_EV_TURNS:
		snprintf(buf, len, "%s -> %s %s and back %s: %llu waits in %llu turns, "
			 "about %llu in a row before the other side waits", v1, v2, a, b,
			 (unsigned long long)ev->count, (unsigned long long)ev->turns,
			 (unsigned long long)(ev->turns ? ev->count / ev->turns : ev->count));
		return;
	case WPERF_EV_QUEUE:
		snprintf(buf, len, "%llu of their %llu waits (%s) began while the thread that "
			 "ended them was waiting itself: %s", (unsigned long long)ev->count,
			 (unsigned long long)ev->total, pct,
			 ev->ppm > WPERF_QUEUE_CHAINED_PPM
				 ? "a queue, each woken by the one queued before it"
				 : "it was working, not queued");
		return;
	case WPERF_EV_GROUP:
		snprintf(buf, len, "%llu of the %llu waits of threads on each other (%s) ended in "
			 "a wakeup that woke others at the same moment: %s",
			 (unsigned long long)ev->count, (unsigned long long)ev->total, pct,
			 ev->ppm > WPERF_GROUP_WAKE_PPM
				 ? "a group woken at once, as when a barrier opens for the last "
				   "to arrive"
				 : "one waiter at a time, as a lock hands over or a barrier with "
				   "one waiter");
		return;
	case WPERF_EV_DEVICE_WEIGHT:
		device_weight_describe(buf, len, ev, v1, a, b);
		return;
	case WPERF_EV_ONE_PROCESS:
		snprintf(buf, len, "all %llu threads belong to process %lld",
			 (unsigned long long)ev->count, (long long)ev->pid);
		return;
	case WPERF_EV_SELF_LOOP:
		snprintf(buf, len, "%s waits on itself %s (%llu waits): the threads merged "
			 "into it wait on each other", v1, a, (unsigned long long)ev->count);
		return;
	case WPERF_EV_PROCESSES:
		snprintf(buf, len, "the threads belong to %llu processes",
			 (unsigned long long)ev->count);
		return;
	case WPERF_EV_INTERRUPT:
		snprintf(buf, len, "%s is a member: interrupt handling is part of the cycle", v1);
		return;
	case WPERF_EV_CPU_SATURATED:
		snprintf(buf, len, "the members ran %s on the CPUs, %s of the %s that %llu CPU%s "
			 "could run while they existed: they kept the CPUs busy themselves%s", a,
			 pct, b, (unsigned long long)ev->count, ev->count == 1 ? "" : "s",
			 ev->decides ? ", so shorter waits cannot make room for more work" : "");
		return;
	case WPERF_EV_BACKGROUND:
		snprintf(buf, len, "no device, and its threads ran or wanted a CPU %s = %s "
			 "of the %s they existed: less than one CPU", a, pct, b);
		return;
	}
	snprintf(buf, len, "?");
}
