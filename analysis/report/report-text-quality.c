/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text-quality.c — how much to trust the text
 * report: lost events and the gaps they leave, the threads whose states
 * did not add up, untraced timers, and the annotations' own counters.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "gaps.h"
#include "report-format.h"
#include "wperf/classify.h"
#include "wperf/merge.h"
#include "wperf/report.h"
#include "report-text.h"

/* ------------------------------------------------------------------ */
/* Data quality                                                        */
/* ------------------------------------------------------------------ */

static void write_quality_counter(FILE *out, const char *what, uint64_t n,
				  const char *why)
{
	fprintf(out, "  %-32s %10llu%s%s\n", what, (unsigned long long)n,
		n && why ? "  " : "", n && why ? why : "");
}

static void write_gap(FILE *out, const struct wperf_gap *gap)
{
	char b[48], e[48];

	fputs("      ", out);
	if (gap->cpu >= 0)
		fprintf(out, "cpu %d: ", gap->cpu);
	else
		fputs("cpu ?: ", out);
	if (gap->begin_ns >= 0 && gap->end_ns >= 0) {
		wperf_fmt_timestamp(b, sizeof b, gap->begin_ns);
		wperf_fmt_timestamp(e, sizeof e, gap->end_ns);
		fprintf(out, "%s .. %s", b, e);
	} else {
		fputs("time unknown", out);
	}
	if (gap->count)
		fprintf(out, ", %llu %s lost", (unsigned long long)gap->count,
			gap->packets ? "packets" : "events");
	else
		fprintf(out, ", %s lost (count unknown)", gap->packets ? "packets" : "events");
	fputc('\n', out);
}

/* How much of the analysed time the gaps cover, and what it did to waits. */
static void write_gap_coverage(FILE *out, const struct wperf_graph *g)
{
	const struct wperf_quality *q = &g->quality;
	char d[32], s[32];

	wperf_fmt_duration(d, sizeof d, q->gap_ns, 0);
	wperf_fmt_ppm_percent(s, sizeof s, wperf_ppm(q->gap_ns, wperf_graph_duration(g)));
	/* Gaps without times are not counted: their extent is unknown. */
	fprintf(out, "  %-32s %10s  (%s of the analysed time)\n", "time inside gaps", d, s);
	write_quality_counter(out, "waits cut by gaps", q->waits_cut_by_gaps,
			      "(up to the gap's end: on `trace-gap`)");
	write_quality_counter(out, "runnable cut by gaps", q->runnable_cut_by_gaps,
			      "(the same: no runnable time across a gap)");
}

/*
 * The focus began long after the trace did (wperf_fmt_focus_start): a
 * command whose start the trace missed, or one started long after
 * recording began. Its shares are of the whole analysed time.
 */
static void write_focus_start(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	struct wperf_focus_start fs;
	char d[32], s[32];

	if (!wperf_fmt_focus_start(r, &fs) || !fs.late)
		return;
	wperf_fmt_duration(d, sizeof d, fs.after_ns, 0);
	wperf_fmt_ppm_percent(s, sizeof s, wperf_ppm(fs.after_ns, wperf_graph_duration(g)));
	fprintf(out, "  %-32s %10s  after the trace began (%s of the analysed time):\n"
		"  %-32s %10s  %s; its shares are of the whole time\n",
		"focus first seen", d, s, "", "",
		fs.forked ? "it began then (its fork is in the trace)"
			  : "its start may be missing (no fork in the trace)");
}

static bool in_knot_or_sink(const struct wperf_report *r, uint32_t v)
{
	for (size_t i = 0; r->knots && i < r->knots->n; i++)
		for (size_t m = 0; m < r->knots->items[i].n_members; m++)
			if (r->knots->items[i].members[m] == v)
				return true;
	return false;
}

static uint64_t mismatches_of(const struct wperf_vertex *v)
{
	return v->state_mismatches;
}

static uint64_t lost_wakeups_of(const struct wperf_vertex *v)
{
	return v->waits_without_wakeup;
}

/* The thread with the most (ties: the lowest id) that is not in `shown`,
 * or UINT32_MAX: the next one to name. */
static uint32_t next_loser(const struct wperf_graph *g,
			   uint64_t (*count)(const struct wperf_vertex *),
			   const uint32_t *shown, size_t n_shown)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t v = 0; v < g->n_vertices; v++) {
		uint64_t n = count(&g->vertices[v]);
		bool taken = false;

		for (size_t i = 0; i < n_shown; i++)
			taken |= shown[i] == v;
		if (n > 0 && !taken && (best == UINT32_MAX || n > count(&g->vertices[best])))
			best = v;
	}
	return best;
}

/* The knot and sink members among them, by name, with how often each
 * waited: two lost events among a thousand waits move little. */
static void write_losers_in_knots(FILE *out, const struct wperf_report *r,
				  uint64_t (*count)(const struct wperf_vertex *))
{
	const struct wperf_graph *g = r->graph;
	size_t listed = 0;
	char name[LABEL_LEN];

	fputs("      in knots and sinks:", out);
	for (uint32_t v = 0; v < g->n_vertices; v++) {
		const struct wperf_vertex *vx = &g->vertices[v];

		if (count(vx) == 0 || !in_knot_or_sink(r, v))
			continue;
		if (listed++ == MAX_LISTED_LOSERS) {
			fputs(" and more", out);
			break;
		}
		text_label(name, g, v);
		fprintf(out, "%s %s %llu", listed > 1 ? "," : "", name,
			(unsigned long long)count(vx));
		/* A state mismatch need not be in a wait: "1 (of its 0 waits)"
		 * would read as an impossible count. */
		if (vx->waits > 0)
			fprintf(out, " (of its %llu waits)", (unsigned long long)vx->waits);
	}
	fputc('\n', out);
}

/* The threads a vertex stands for: a merged pool's members, or itself. */
static size_t threads_of(const struct wperf_vertex *v)
{
	return v->n_members > 0 ? v->n_members : 1;
}

/*
 * Under a counter of events the trace lost around threads: whose they
 * were, most first, and whether any of them is in a knot or sink. A
 * finding rests on lost events only when its threads are among them; on
 * a busy machine they are mostly other programs' threads. Threads are
 * counted as threads, a pool (`worker ×4`) as its members, so that the
 * count agrees with the names listed after it.
 */
static void write_losers(FILE *out, const struct wperf_report *r,
			 uint64_t (*count)(const struct wperf_vertex *))
{
	const struct wperf_graph *g = r->graph;
	size_t threads = 0, in_knots = 0, n_shown = 0, threads_shown = 0;
	uint32_t shown[MAX_LISTED_LOSERS];
	char name[LABEL_LEN];

	for (uint32_t v = 0; v < g->n_vertices; v++)
		if (count(&g->vertices[v]) > 0) {
			threads += threads_of(&g->vertices[v]);
			in_knots += in_knot_or_sink(r, v);
		}
	if (threads == 0)
		return;
	fprintf(out, "      in %zu thread%s:", threads, threads == 1 ? "" : "s");
	while (n_shown < MAX_LISTED_LOSERS) {
		uint32_t v = next_loser(g, count, shown, n_shown);

		if (v == UINT32_MAX)
			break;
		text_label(name, g, v);
		fprintf(out, "%s %s %llu", n_shown ? "," : "", name,
			(unsigned long long)count(&g->vertices[v]));
		shown[n_shown++] = v;
		threads_shown += threads_of(&g->vertices[v]);
	}
	if (threads > threads_shown)
		fprintf(out, " and %zu more", threads - threads_shown);
	if (in_knots == 0 && r->knots && r->knots->n > 0)
		fputs("; none in a knot or sink", out);
	fputc('\n', out);
	if (in_knots > 0)
		write_losers_in_knots(out, r, count);
}

/* Without timer expiry events, a timer firing on a busy CPU is charged to
 * the thread it interrupted: say so, and how many edges carry the mark. */
static void write_untraced_timers(FILE *out, const struct wperf_graph *g)
{
	size_t marked;
	char line[256];

	if (g->quality.has_timer_events || g->quality.has_irq_context)
		return;
	marked = wperf_graph_count_may_be_timer(g);
	snprintf(line, sizeof line, "no timer expiry events (hrtimer_expire, timer_expire): a "
		 "timer that fires while a thread runs is charged to that thread; %zu edge%s "
		 "marked " TIMER_MARK, marked, marked == 1 ? "" : "s");
	text_put_wrapped(out, "  ", line, 4);
}

/* Several hosts: each clock put on the reference's, and how well. */
static void write_host_clocks(FILE *out, const struct wperf_graph *g)
{
	for (size_t i = 0; i < g->n_host_clocks; i++) {
		const struct wperf_host_clock *c = &g->host_clocks[i];
		char what[32], host[21], ref[256], via[512];

		/* Host names come from the traces' metadata: cleaned. */
		wperf_text_clean(host, sizeof host, g->hosts[c->host]);
		wperf_text_clean(ref, sizeof ref, c->reference);
		snprintf(what, sizeof what, "clock of %s", host);
		fprintf(out, "  %-32s on %s's time: offset %+.6f s, drift %+.3f ppm, accurate to "
			"+-%.0f ns\n", what, ref, c->offset_ns / 1e9,
			(c->alpha - 1) * 1e6, c->accuracy_ns);
		if (c->via) {
			wperf_text_clean(via, sizeof via, c->via);
			fprintf(out, "  %-32s (through %s: each pair's transform from matched TCP "
				"segments, composed; their accuracies added)\n", "", via);
		}
		else
			fprintf(out, "  %-32s (t' = (t - offset) / alpha, from matched TCP "
				"segments)\n", "");
	}
}

void text_write_quality(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_quality *q = &g->quality;

	fputs("\nData quality\n", out);
	write_quality_counter(out, "events analysed", q->events,
			      q->has_waking ? "(wakeups: sched_waking)"
					    : "(no sched_waking: used sched_wakeup)");
	write_focus_start(out, r);
	write_host_clocks(out, g);
	write_quality_counter(out, "discarded events", q->discarded_events,
			      "waits across the gaps are missing or cut");
	write_quality_counter(out, "discarded packets", q->discarded_packets,
			      "waits across the gaps are missing or cut");
	if (q->gaps && q->n_gaps > 0) {
		fprintf(out, "  %-32s %10zu\n", "gaps", q->n_gaps);
		for (size_t i = 0; i < q->n_gaps && i < MAX_LISTED_GAPS; i++)
			write_gap(out, &q->gaps[i]);
		if (q->n_gaps > MAX_LISTED_GAPS)
			fprintf(out, "      ... %zu more gaps\n", q->n_gaps - MAX_LISTED_GAPS);
		write_gap_coverage(out, g);
	}
	for (size_t i = 0; i < q->n_missing_cpus; i++)
		fprintf(out, "  %-32s %10d  (the target of %llu wakeups, but no event was recorded "
			"on it:\n  %-32s %10s  its stream file is missing or empty)\n",
			i == 0 ? "CPU without events" : "", q->missing_cpus[i].cpu,
			(unsigned long long)q->missing_cpus[i].wakeups, "", "");
	if (q->events_out_of_order)
		write_quality_counter(out, "events out of order", q->events_out_of_order,
				      "(clocks disagree: states are guesses)");
	write_quality_counter(out, "wakeups matching no wait", q->unmatched_wakeups,
			      "(the woken thread was not waiting)");
	write_quality_counter(out, "threads of unknown initial state",
			      q->unknown_initial_threads,
			      "(first seen mid-trace; no wait invented)");
	write_quality_counter(out, "waits without wakeup", q->waits_without_wakeup,
			      "(switched in with no wakeup seen)");
	write_losers(out, r, lost_wakeups_of);
	write_quality_counter(out, "waits open at end", q->waits_open_at_end,
			      "(counted as waiting on `unknown`)");
	if (q->cascades_truncated)
		write_quality_counter(out, "cascades truncated", q->cascades_truncated,
				      "(reached past the waker's kept history: less weight)");
	write_quality_counter(out, "unmatched block completions",
			      q->unmatched_block_completions, NULL);
	write_quality_counter(out, "scheduler state mismatches", q->state_mismatches,
			      "(events contradicting the tracked state)");
	write_losers(out, r, mismatches_of);
	write_quality_counter(out, "untraced interrupt wakeups", q->untraced_interrupt_wakeups,
			      "(woken from an interrupt the trace lacks: `unknown`)");
	write_untraced_timers(out, g);
	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		const char *host = wperf_vertex_host_name(g, v);
		char name[LABEL_LEN], dev[LABEL_LEN];

		if (v->kind != WPERF_V_NIC || v->bytes == 0 || v->capacity_bps ||
		    strncmp(v->name, "nic:", 4) != 0)
			continue;
		text_label(name, g, (uint32_t)i);   /* cleaned: names come from the trace */
		snprintf(dev, sizeof dev, "%s", name + 4);
		/* "nic:eth0@web1": the parameter names the device (of every host) */
		if (host && strlen(dev) > strlen(host))
			dev[strlen(dev) - strlen(host) - 1] = '\0';
		/* The whole option, shell quotes included, as `wperf report`
		 * and babeltrace2's `-c sink.wperf.knots` both take it: the
		 * bare parameter loses its double quotes in a shell and
		 * then is no string. */
		fprintf(out, "  %s: idle time unknown (give its link speed: --params "
			"'nic-capacity=\"%s=1Gbit\"')\n", name, dev);
	}
	if (q->false_wakeups_merged || q->false_wakeups_unmerged) {
		write_quality_counter(out, "false wakeups merged", q->false_wakeups_merged,
				      "(wperf:false_wakeup: one wait with the next)");
		write_quality_counter(out, "false wakeups not merged", q->false_wakeups_unmerged,
				      "(declared after a long run, or with no wakeup)");
	}
}

