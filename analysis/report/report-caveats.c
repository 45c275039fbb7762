/* SPDX-License-Identifier: MIT */
/*
 * report-caveats.c — the data-quality problems that can change the
 * findings, said before them (doc/wperf-report.7.md, "Caveats").
 *
 * Data quality, at the end of a report, counts every oddity of the trace;
 * most move nothing. The few that can change which knots and sinks are
 * found, or their weights, are also said once each above the findings, in
 * the text, HTML and JSON reports alike: this file decides which, with
 * what words, so that the three writers cannot disagree. A caveat that
 * can make the findings wrong (not just less precise) also qualifies the
 * headline ("findings below may be wrong: ...") and keeps the report from
 * giving advice as if the trace were complete.
 *
 * The thresholds follow from what the method does with each problem
 * (doc/wperf-analysis.7.md, doc/reliability.md):
 *  - a CPU without events hides every switch and wakeup that happened on
 *    it: nothing bounds what is missing, so any such CPU is said and makes
 *    the findings possibly wrong;
 *  - events discarded by the tracer leave gaps whose waits are cut (their
 *    weights become lower bounds): always said; possibly wrong when the
 *    gaps cover a tenth of the analysed time or more, as then any share
 *    can be off by a tenth;
 *  - events out of order (clocks that disagree) are taken at the previous
 *    event's time, which can swap a wakeup and the switch it caused:
 *    always said; possibly wrong from a tenth of the events;
 *  - waits without a wakeup, scheduler state mismatches and wakeups from
 *    untraced interrupts each put a wait on the wrong vertex (`unknown`)
 *    or none; truncated cascades give less weight than due: said, and
 *    possibly wrong, once they reach a tenth of all waits (a tenth of the
 *    waits moved can move a share by a tenth). Below that they stay in
 *    Data quality, with whose they were.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report-format.h"
#include "wperf/report.h"

/* A tenth: the bound below which a problem cannot move a share by more
 * than a tenth (the same bound as the focus's late start). */
#define CAVEAT_PART 10

static bool at_least_a_tenth(uint64_t part, uint64_t whole)
{
	return part > 0 && (whole == 0 || part >= (whole + CAVEAT_PART - 1) / CAVEAT_PART);
}

/* Every wait the threads table counts (what the per-wait problems are a
 * share of). */
static uint64_t all_waits(const struct wperf_graph *g)
{
	uint64_t n = 0;

	for (size_t v = 0; v < g->n_vertices; v++)
		if (wperf_fmt_thread_listed(&g->vertices[v]))
			n += g->vertices[v].waits;
	return n;
}

static struct wperf_caveat *next(struct wperf_caveat *c, size_t *n, const char *kind,
				 const char *label, bool wrong)
{
	struct wperf_caveat *x = &c[(*n)++];

	x->kind = kind;
	x->label = label;
	x->may_be_wrong = wrong;
	x->text[0] = x->reason[0] = '\0';
	return x;
}

static void missing_cpus(const struct wperf_quality *q, struct wperf_caveat *c, size_t *n)
{
	char cpus[96] = "";
	size_t used = 0;

	if (q->n_missing_cpus == 0)
		return;
	for (size_t i = 0; i < q->n_missing_cpus && used < sizeof cpus; i++)
		used += (size_t)snprintf(cpus + used, sizeof cpus - used, "%s%d",
					 i ? ", " : "", q->missing_cpus[i].cpu);
	struct wperf_caveat *x = next(c, n, "missing_cpus", "Missing", true);
	const char *s = q->n_missing_cpus == 1 ? "" : "s";

	snprintf(x->text, sizeof x->text, "the trace has no events of CPU%s %s, where wakeups "
		 "sent threads to run (its stream file is missing or empty): what ran and waited "
		 "there is not in the graph, so knots, sinks and weights may be missing or wrong. "
		 "Record again and check that every CPU's stream file has events.", s, cpus);
	snprintf(x->reason, sizeof x->reason, "the trace lacks the events of CPU%s %s", s, cpus);
}

static void lost_events(const struct wperf_graph *g, struct wperf_caveat *c, size_t *n)
{
	const struct wperf_quality *q = &g->quality;
	uint64_t all = q->events + q->discarded_events;
	int64_t duration = wperf_graph_duration(g);
	char share[32], gap[32], gap_share[32], packets[48], gaps[128];

	if (q->discarded_events == 0 && q->discarded_packets == 0)
		return;
	bool wrong = duration > 0 && q->gap_ns > 0 &&
		     at_least_a_tenth((uint64_t)q->gap_ns, (uint64_t)duration);
	struct wperf_caveat *x = next(c, n, "lost_events", "Lost", wrong);
	uint64_t ppm = wperf_ppm((int64_t)q->discarded_events, (int64_t)all);

	if (ppm < 500 && q->discarded_events > 0)
		snprintf(share, sizeof share, "under 0.1%%");   /* not "0.0%" of a real loss */
	else
		wperf_fmt_ppm_percent(share, sizeof share, ppm);
	wperf_fmt_duration(gap, sizeof gap, q->gap_ns, 0);
	wperf_fmt_ppm_percent(gap_share, sizeof gap_share, wperf_ppm(q->gap_ns, duration));
	packets[0] = gaps[0] = '\0';
	if (q->discarded_packets)
		snprintf(packets, sizeof packets, " and %" PRIu64 " packet%s", q->discarded_packets,
			 q->discarded_packets == 1 ? "" : "s");
	if (q->gap_ns > 0)
		snprintf(gaps, sizeof gaps, "; some CPU was in a gap %s (%s of the analysed time)",
			 gap, gap_share);
	snprintf(x->text, sizeof x->text, "%" PRIu64 " events (%s of what was traced)%s "
		 "discarded by the tracer%s. Waits across a gap are cut or missing: findings that "
		 "touch one say so, Data quality lists the gaps. Record with larger buffers (wperf "
		 "record --buffer-size-kb) or fewer events.", q->discarded_events, share, packets,
		 gaps);
	snprintf(x->reason, sizeof x->reason, "gaps where events were lost cover %s of the "
		 "analysed time", gap_share);
}

static void out_of_order(const struct wperf_quality *q, struct wperf_caveat *c, size_t *n)
{
	if (q->events_out_of_order == 0)
		return;
	struct wperf_caveat *x = next(c, n, "events_out_of_order", "Order",
				      at_least_a_tenth(q->events_out_of_order, q->events));

	snprintf(x->text, sizeof x->text, "%" PRIu64 " events came earlier than one fed before "
		 "them (clocks that disagree) and were taken at that one's time: a wakeup and the "
		 "switch it caused may be swapped, and the waits around them misattributed.",
		 q->events_out_of_order);
	snprintf(x->reason, sizeof x->reason, "%" PRIu64 " of %" PRIu64 " events came out of "
		 "order", q->events_out_of_order, q->events);
}

/* A counter of waits put on the wrong vertex (or given less weight),
 * said when it reaches a tenth of all waits. */
static void per_wait(uint64_t count, uint64_t waits, const char *kind, const char *label,
		     const char *what, const char *effect, struct wperf_caveat *c, size_t *n)
{
	if (!at_least_a_tenth(count, waits))
		return;
	struct wperf_caveat *x = next(c, n, kind, label, true);

	snprintf(x->text, sizeof x->text, "%" PRIu64 " of the %" PRIu64 " waits (a tenth or "
		 "more) %s: %s. Data quality says whose.", count, waits, what, effect);
	snprintf(x->reason, sizeof x->reason, "%" PRIu64 " of %" PRIu64 " waits %s", count,
		 waits, what);
}

/*
 * A recording that follows some threads only (`perf record` without -a,
 * or with -p/-t): the switches and wakeups of every other thread are
 * missing, which shows as waits without wakeup and state mismatches. In
 * such a trace no switch ever leaves a CPU's idle task (a switch is
 * recorded in the context of the thread leaving, and idle is not
 * followed), while a system-wide one has them on every CPU that idled.
 * Said as the likely cause in the first of those caveats.
 */
#define PER_PROCESS_MIN_SWITCHES 100

static void per_process_cause(const struct wperf_quality *q, struct wperf_caveat *c, size_t n)
{
	if (q->switches < PER_PROCESS_MIN_SWITCHES || q->switches_from_idle > 0)
		return;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(c[i].kind, "waits_without_wakeup") != 0 &&
		    strcmp(c[i].kind, "state_mismatches") != 0)
			continue;
		size_t t = strlen(c[i].text), r = strlen(c[i].reason);

		snprintf(c[i].text + t, sizeof c[i].text - t, " Likely cause: no CPU ever left "
			 "its idle task in the %" PRIu64 " switches, so the trace follows some "
			 "threads only (perf record without -a, or with -p/-t): record "
			 "system-wide (perf record -a, or wperf record).", q->switches);
		snprintf(c[i].reason + r, sizeof c[i].reason - r, " (likely cause: the trace "
			 "was recorded per process, e.g. perf record without -a)");
		return;
	}
}

size_t wperf_fmt_caveats(const struct wperf_report *r, struct wperf_caveat *c)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_quality *q = &g->quality;
	uint64_t waits = all_waits(g);
	size_t n = 0;

	missing_cpus(q, c, &n);
	lost_events(g, c, &n);
	out_of_order(q, c, &n);
	per_wait(q->waits_without_wakeup, waits, "waits_without_wakeup", "Unwoken",
		 "ended with no wakeup seen", "their waker is unknown, the edge they belong to "
		 "is lighter than it was", c, &n);
	per_wait(q->state_mismatches, waits, "state_mismatches", "Mismatch",
		 "met scheduler events contradicting the tracked state",
		 "the trace lacks switches, the waits around them may be wrong", c, &n);
	per_wait(q->untraced_interrupt_wakeups, waits, "untraced_interrupt_wakeups", "Untraced",
		 "were ended from an interrupt the trace does not show",
		 "they are put on `unknown`, not on the device or thread behind it", c, &n);
	per_wait(q->cascades_truncated, waits, "cascades_truncated", "Truncated",
		 "cascaded past the history kept per thread",
		 "less weight was redistributed than was due", c, &n);
	per_process_cause(q, c, n);
	return n;
}

void wperf_fmt_caveat_headline(char *buf, size_t len, const struct wperf_caveat *c, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < n && used < len; i++) {
		if (!c[i].may_be_wrong)
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? "; " : "findings below may be wrong: ", c[i].reason);
	}
}

void wperf_fmt_knot_missing_cpu(char *buf, size_t len, const struct wperf_graph *g,
				const struct wperf_knot *k)
{
	char name[128];
	size_t n = 0, used = 0;

	buf[0] = '\0';
	if (g->quality.n_missing_cpus == 0)
		return;
	for (size_t i = 0; i < k->n_members; i++)
		n += g->vertices[k->members[i]].woken_to_missing_cpu;
	if (n == 0)
		return;
	used = (size_t)snprintf(buf, len, "woken to run on a CPU whose events the trace lacks:");
	for (size_t i = 0, shown = 0; i < k->n_members && shown < 3 && used < len; i++) {
		if (!g->vertices[k->members[i]].woken_to_missing_cpu)
			continue;
		wperf_fmt_vertex_label(name, sizeof name, g, k->members[i]);
		used += (size_t)snprintf(buf + used, len - used, "%s %s", shown++ ? "," : "", name);
	}
	if (used < len)
		snprintf(buf + used, len - used, "%s; their time there is not in the graph (see "
			 "Data quality).", n > 3 ? " and more" : "");
}
