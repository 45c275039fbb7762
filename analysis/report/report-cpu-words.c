/* SPDX-License-Identifier: MIT */
/*
 * report-cpu-words.c — the words of the CPU finding ("First: the CPUs",
 * wperf/cpu.h), shared by the text and HTML reports so that the page says
 * everything the text says, in the same words: what the threads waited
 * for, who else ran meanwhile, and what to do (doc/wperf-report.7.md,
 * First: the CPUs).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report-format.h"
#include "wperf/cpu.h"
#include "wperf/report.h"

/* "fio ×4 6.90 s, jbd2/vda1-8 (212) 40.1 ms": the listed vertices and a
 * time of each (running or runnable), into buf. */
static void list_with_times(char *buf, size_t len, const struct wperf_graph *g,
			    const uint32_t *ids, size_t n, bool running)
{
	char name[128], d[32];
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		const struct wperf_vertex *v = &g->vertices[ids[i]];

		wperf_fmt_vertex_label(name, sizeof name, g, ids[i]);
		wperf_fmt_duration(d, sizeof d, running ? v->running_ns : wperf_vertex_cpu_need_ns(v), 0);
		used += (size_t)snprintf(buf + used, len - used, "%s%s %s", i ? ", " : "", name, d);
	}
}

void wperf_fmt_cpu_words(struct wperf_fmt_cpu_words *w, const struct wperf_report *r)
{
	const struct wperf_cpu_finding *c = r->cpu;
	char runnable[32], waiting[32], share[64], span[32], most[512], others[512];
	char ran[32], on_runnable[32], wr[32], ww[32], proc[64] = "";

	w->title = "First: the CPUs. Too few CPUs, or other load";
	w->advice = "Give them CPUs or priority, or move the other load away; the knots and "
		    "sinks below are what they wait on once they run.";
	wperf_fmt_duration(runnable, sizeof runnable, c->runnable_ns, 0);
	wperf_fmt_duration(waiting, sizeof waiting, c->waiting_ns, 0);
	wperf_fmt_duration(on_runnable, sizeof on_runnable, c->waited_on_runnable_ns, 0);
	wperf_fmt_duration(wr, sizeof wr, c->weighted_runnable_ns, 0);
	wperf_fmt_duration(ww, sizeof ww, c->weighted_waiting_ns, 0);
	wperf_fmt_duration(span, sizeof span, c->span_ns, 0);
	/* One thread: the share of its time it was runnable. Several: their
	 * summed runnable time over their span is how many were runnable at
	 * once on average, a count (as a percentage it would exceed 100%
	 * and read as a share of someone's time). */
	if (c->n_threads == 1 || c->span_ns <= 0) {
		char pct[24];

		wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(c->runnable_ns, c->span_ns));
		snprintf(share, sizeof share, "%s of", pct);
	} else {
		int64_t hundredths = (c->runnable_ns * 100 + c->span_ns / 2) / c->span_ns;

		snprintf(share, sizeof share, "on average %" PRId64 ".%02" PRId64
			 " of them at once over", hundredths / 100, hundredths % 100);
	}
	list_with_times(most, sizeof most, r->graph, c->runnable, c->n_runnable, false);
	if (c->process_pid > 0) {
		char d[32];

		wperf_fmt_duration(d, sizeof d, c->process_runnable_ns, 0);
		snprintf(proc, sizeof proc, "process %" PRId64 " (%s in all): ", c->process_pid, d);
	}
	snprintf(w->summary, sizeof w->summary, "%zu thread%s %s %s runnable (ready, waiting "
		 "for a CPU) %s in all, %s the %s they existed, and waited %s on threads, devices "
		 "and interrupts, %s of it on threads that were themselves runnable. Each "
		 "weighed by the share of its time it asked for a CPU, waiting for a CPU "
		 "(%s) outweighs the other waits (%s): less waiting cannot help them until "
		 "they get a CPU. Most runnable: %s%s.", c->n_threads,
		 c->n_threads == 1 ? "" : "s", r->focus ? "of the focus" : "of the trace",
		 c->n_threads == 1 ? "was" : "were", runnable, share, span, waiting, on_runnable,
		 wr, ww, proc, most[0] ? most : "none");
	w->others[0] = '\0';
	if (c->n_others > 0) {
		int64_t analysed = wperf_graph_duration(r->graph);
		char when[96] = "Meanwhile";

		wperf_fmt_duration(ran, sizeof ran, c->others_running_ns, 0);
		list_with_times(others, sizeof others, r->graph, c->others, c->n_others, true);
		/* The others' running time is the analysed range's (a vertex
		 * keeps one sum): when the report's threads lived only part
		 * of it, say over what, or a 31 ms command would seem to
		 * have shared two CPUs with 1.24 s of other work. */
		if (c->span_ns > 0 && analysed > c->span_ns + c->span_ns / 100) {
			char all[32];

			wperf_fmt_duration(all, sizeof all, analysed, 0);
			snprintf(when, sizeof when, "Over the whole %s analysed", all);
		}
		snprintf(w->others, sizeof w->others, "%s other threads ran %s on the "
			 "CPUs: %s%s.", when, ran, others, c->n_others < WPERF_CPU_LISTED ? "" :
			 " and others");
	}
	/* The CPUs went mostly to the report's own threads: they compete
	 * among themselves first. Moving other load away still frees what it
	 * ran, but no more: more CPUs or less work per request go further. */
	if (c->own_running_ns > c->others_running_ns) {
		size_t used = strlen(w->others);
		char own[32];

		/* Without a focus (--all) the report's threads are the whole
		 * trace's but the tracer's: no program of its own to speak of. */
		bool all = !r->focus;

		w->title = all ? "First: the CPUs. Contention among the traced threads"
			       : "First: the CPUs. Contention among its own threads";
		w->advice = "More CPUs, or less CPU work per request, help most; moving other "
			    "load away frees at most the CPU time it ran, above. The knots and "
			    "sinks below are what they wait on once they run.";
		wperf_fmt_duration(own, sizeof own, c->own_running_ns, 0);
		if (all)
			snprintf(w->others + used, sizeof w->others - used, "%sThe traced threads "
				 "ran %s, more than the tracer's: contention among them, not the "
				 "tracing.", used ? " " : "", own);
		else
			snprintf(w->others + used, sizeof w->others - used, "%sIts own threads ran "
				 "%s, more than all the others: contention among its own threads, "
				 "not other load.", used ? " " : "", own);
	}
}
