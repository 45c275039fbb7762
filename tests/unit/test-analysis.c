/* SPDX-License-Identifier: MIT */
/*
 * test-analysis.c — the streaming analysis on hand-built event sequences,
 * with exact expected weights (wperf-method(7) §3-5). These drive the library
 * directly; tests/test_scenarios_*.py drive the same cases through a real
 * babeltrace2 graph.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "feed.h"
#include "wperf/analysis.h"
#include "wperf/merge.h"

/* ---- scenarios ---- */

/* wperf-method(7) §4, shifted by 50 ms: B waits for C over [0, 250];
 * A waits for B over [50, 350]. A->B = 300 ms, B->C = 250 + 200 = 450 ms. */
static void test_nested(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 2);           /* B runs on cpu 0 ... */
	sw(a, 0, 1, 0, 0, 1);           /* A runs on cpu 1 */
	sw(a, 0 * MS, 0, 2, 1, 3);      /* B sleeps, C runs on cpu 0 */
	sw(a, 50 * MS, 1, 1, 1, 0);     /* A sleeps */
	wake(a, 250 * MS, 0, 2);        /* C wakes B */
	sw(a, 250 * MS, 0, 3, 1, 2);    /* C sleeps, B runs */
	wake(a, 350 * MS, 0, 1);        /* B wakes A */
	sw(a, 350 * MS, 1, 0, 0, 1);
	sw(a, 400 * MS, 0, 2, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("nested A->B", weight(&g, 1, 2), 300 * MS);
	CHECK_EQ("nested B->C", weight(&g, 2, 3), 450 * MS);
	CHECK_EQ("nested B->C direct", edge(&g, vertex_of_tid(&g, 2), vertex_of_tid(&g, 3))->direct_ns, 250 * MS);
	wperf_graph_fini(&g);
}

/* The timelines the HTML report draws (wperf/graph.h), from the nested
 * scenario: A runs [0, 50], waits for B [50, 350], runs to the end (400);
 * B waits for C [0, 250] and runs [250, 400]. Not kept when turned off. */
static void nested_events(struct wperf_analysis *a)
{
	sw(a, 0, 0, 0, 0, 2);
	sw(a, 0, 1, 0, 0, 1);
	sw(a, 0 * MS, 0, 2, 1, 3);
	sw(a, 50 * MS, 1, 1, 1, 0);
	wake(a, 250 * MS, 0, 2);
	sw(a, 250 * MS, 0, 3, 1, 2);
	wake(a, 350 * MS, 0, 1);
	sw(a, 350 * MS, 1, 0, 0, 1);
	sw(a, 400 * MS, 0, 2, 0, 0);
}

static void test_timelines(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	nested_events(a);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("timelines kept", g.timelines != NULL, 1);
	if (g.timelines) {
		uint32_t A = vertex_of_tid(&g, 1), B = vertex_of_tid(&g, 2);
		const struct wperf_timeline *t = &g.timelines[A];

		CHECK_EQ("A's spans", t->n, 3);
		CHECK_EQ("A exact", t->width_ns, 0);
		if (t->n == 3) {
			CHECK_EQ("A runs until", t->spans[0].end_ns, 50 * MS);
			CHECK_EQ("A running", t->spans[0].ns[WPERF_SPAN_RUNNING], 50 * MS);
			CHECK_EQ("A waits from", t->spans[1].start_ns, 50 * MS);
			CHECK_EQ("A waits until", t->spans[1].end_ns, 350 * MS);
			CHECK_EQ("A waits for B", t->spans[1].target, B);
			CHECK_EQ("A waiting", t->spans[1].ns[WPERF_SPAN_WAITING], 300 * MS);
			CHECK_EQ("A runs again until", t->spans[2].end_ns, 400 * MS);
		}
		t = &g.timelines[B];
		CHECK_EQ("B's spans", t->n, 2);
		if (t->n == 2) {
			CHECK_EQ("B waits for C", t->spans[0].target, vertex_of_tid(&g, 3));
			CHECK_EQ("B waits until", t->spans[0].end_ns, 250 * MS);
			CHECK_EQ("B runs", t->spans[1].ns[WPERF_SPAN_RUNNING], 150 * MS);
		}
	}
	wperf_graph_fini(&g);

	a = wperf_analysis_create();
	wperf_analysis_keep_timelines(a, false);
	nested_events(a);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("timelines not kept", g.timelines == NULL, 1);
	CHECK_EQ("the same graph", weight(&g, 2, 3), 450 * MS);
	wperf_graph_fini(&g);
}

/* A chain: A waits for B [100, 400], B for C [0, 300], C for D [200, 500]
 * (D wakes C at 500? no: C must wake B at 300, so C is running at 300).
 * Use: C waits for D [0, 250]; B waits for C [50, 300]; A waits for B [100, 400].
 * m_C = B's wait on C over [50,300] (1 + m_B); m_B = 1 on [100,400] (A).
 * A->B = 300. B->C = ∫[50,300](1 + m_B) = 250 + 200 = 450.
 * C->D = ∫[0,250](1 + m_C): m_C = 1+m_B on [50,300]: on [0,50]: 1; [50,100]: 2;
 * [100,250]: 3 -> 50 + 100 + 450 = 600. */
static void test_chain(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 3);           /* C on cpu 0 */
	sw(a, 0, 1, 0, 0, 2);           /* B on cpu 1 */
	sw(a, 0, 2, 0, 0, 1);           /* A on cpu 2 */
	sw(a, 0, 3, 0, 0, 4);           /* D on cpu 3 */
	sw(a, 0 * MS, 0, 3, 1, 0);      /* C sleeps */
	sw(a, 50 * MS, 1, 2, 1, 0);     /* B sleeps */
	sw(a, 100 * MS, 2, 1, 1, 0);    /* A sleeps */
	wake(a, 250 * MS, 3, 3);        /* D wakes C */
	sw(a, 250 * MS, 0, 0, 0, 3);
	wake(a, 300 * MS, 0, 2);        /* C wakes B */
	sw(a, 300 * MS, 1, 0, 0, 2);
	wake(a, 400 * MS, 1, 1);        /* B wakes A */
	sw(a, 400 * MS, 2, 0, 0, 1);
	sw(a, 500 * MS, 3, 4, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("chain A->B", weight(&g, 1, 2), 300 * MS);
	CHECK_EQ("chain B->C", weight(&g, 2, 3), 450 * MS);
	CHECK_EQ("chain C->D", weight(&g, 3, 4), 600 * MS);
	wperf_graph_fini(&g);
}

/*
 * Chained waits (wperf_edge.chained): a wait on a thread that had itself
 * been waiting since the wait began. C runs all along; B waits for C
 * [0, 100] and [360, 400]; A waits for B [150, 300] (B had stopped
 * waiting at 100: not chained) and [350, 450] (B waited from 360 to 400:
 * chained). C never waits, so B's waits on it are not chained.
 */
static void test_chained_waits(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 3);           /* C on cpu 0 */
	sw(a, 0, 1, 0, 0, 2);           /* B on cpu 1 */
	sw(a, 0, 2, 0, 0, 1);           /* A on cpu 2 */
	sw(a, 0 * MS, 1, 2, 1, 0);      /* B sleeps */
	wake(a, 100 * MS, 0, 2);        /* C wakes B */
	sw(a, 100 * MS, 1, 0, 0, 2);
	sw(a, 150 * MS, 2, 1, 1, 0);    /* A sleeps */
	wake(a, 300 * MS, 1, 1);        /* B wakes A */
	sw(a, 300 * MS, 2, 0, 0, 1);
	sw(a, 350 * MS, 2, 1, 1, 0);    /* A sleeps */
	sw(a, 360 * MS, 1, 2, 1, 0);    /* B sleeps */
	wake(a, 400 * MS, 0, 2);        /* C wakes B */
	sw(a, 400 * MS, 1, 0, 0, 2);
	wake(a, 450 * MS, 1, 1);        /* B wakes A */
	sw(a, 450 * MS, 2, 0, 0, 1);
	sw(a, 500 * MS, 0, 3, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	const struct wperf_edge *ab = edge(&g, vertex_of_tid(&g, 1), vertex_of_tid(&g, 2));
	const struct wperf_edge *bc = edge(&g, vertex_of_tid(&g, 2), vertex_of_tid(&g, 3));
	CHECK_EQ("A->B exists", ab != NULL, 1);
	CHECK_EQ("B->C exists", bc != NULL, 1);
	if (ab && bc) {
		CHECK_EQ("A->B waits", ab->count, 2);
		CHECK_EQ("A->B chained", ab->chained, 1);
		CHECK_EQ("A->B direct", ab->direct_ns, 250 * MS);
		CHECK_EQ("B->C waits", bc->count, 2);
		CHECK_EQ("B->C chained", bc->chained, 0);
	}
	wperf_graph_fini(&g);
}

/*
 * Grouped waits (wperf_edge.grouped): wakeups by one waker within 50 us
 * of each other, the waker not waiting between, as a barrier opening.
 * W runs on cpu 0; A (cpu 1) and B (cpu 2) wait for it [0, 100 ms] and
 * [0, 100.01 ms]: grouped, both. A again [200, 300 ms]: alone. B
 * [400, 450 ms], then W sleeps, C wakes it 10 us later, and W wakes A
 * (waiting since 350 ms) 20 us after B: W waited between, so neither is
 * grouped.
 */
static void test_grouped_waits(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	const int64_t US = 1000;

	sw(a, 0, 0, 0, 0, 1);           /* W on cpu 0 */
	sw(a, 0, 1, 0, 0, 2);           /* A on cpu 1 */
	sw(a, 0, 2, 0, 0, 3);           /* B on cpu 2 */
	sw(a, 0, 3, 0, 0, 4);           /* C on cpu 3 */
	sw(a, 0, 1, 2, 1, 0);           /* A sleeps */
	sw(a, 0, 2, 3, 1, 0);           /* B sleeps */
	wake(a, 100 * MS, 0, 2);
	sw(a, 100 * MS, 1, 0, 0, 2);
	wake(a, 100 * MS + 10 * US, 0, 3);
	sw(a, 100 * MS + 10 * US, 2, 0, 0, 3);
	sw(a, 200 * MS, 1, 2, 1, 0);    /* A sleeps */
	wake(a, 300 * MS, 0, 2);
	sw(a, 300 * MS, 1, 0, 0, 2);
	sw(a, 350 * MS, 1, 2, 1, 0);    /* A sleeps */
	sw(a, 400 * MS, 2, 3, 1, 0);    /* B sleeps */
	wake(a, 450 * MS, 0, 3);        /* W wakes B */
	sw(a, 450 * MS, 2, 0, 0, 3);
	sw(a, 450 * MS + 5 * US, 0, 1, 1, 0);    /* W sleeps */
	wake(a, 450 * MS + 10 * US, 3, 1);       /* C wakes W */
	sw(a, 450 * MS + 10 * US, 0, 0, 0, 1);
	wake(a, 450 * MS + 20 * US, 0, 2);       /* W wakes A */
	sw(a, 450 * MS + 20 * US, 1, 0, 0, 2);
	sw(a, 500 * MS, 3, 4, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	const struct wperf_edge *aw = edge(&g, vertex_of_tid(&g, 2), vertex_of_tid(&g, 1));
	const struct wperf_edge *bw = edge(&g, vertex_of_tid(&g, 3), vertex_of_tid(&g, 1));
	const struct wperf_edge *wc = edge(&g, vertex_of_tid(&g, 1), vertex_of_tid(&g, 4));
	CHECK_EQ("A->W exists", aw != NULL, 1);
	CHECK_EQ("B->W exists", bw != NULL, 1);
	CHECK_EQ("W->C exists", wc != NULL, 1);
	if (aw && bw && wc) {
		CHECK_EQ("A->W waits", aw->count, 3);
		CHECK_EQ("A->W grouped", aw->grouped, 1);
		CHECK_EQ("B->W waits", bw->count, 2);
		CHECK_EQ("B->W grouped", bw->grouped, 1);
		CHECK_EQ("W->C grouped", wc->grouped, 0);
	}
	wperf_graph_fini(&g);
}

/* A wakeup inside a hard interrupt is the interrupt's, not the interrupted
 * thread's; one inside a TIMER softirq is the timer's. */
static void test_interrupt_wakers(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);           /* A on cpu 0 */
	sw(a, 0, 1, 0, 0, 9);           /* X on cpu 1 */
	sw(a, 0, 2, 0, 0, 2);           /* B on cpu 2 */
	sw(a, 10 * MS, 0, 1, 1, 0);     /* A sleeps */
	sw(a, 10 * MS, 2, 2, 1, 0);     /* B sleeps */
	simple(a, WPERF_EV_IRQ_ENTRY, 30 * MS, 1, 24);
	wake(a, 30 * MS, 1, 1);         /* the irq wakes A */
	simple(a, WPERF_EV_IRQ_EXIT, 30 * MS, 1, 24);
	simple(a, WPERF_EV_SOFTIRQ_ENTRY, 40 * MS, 1, 1);
	wake(a, 40 * MS, 1, 2);         /* the timer wakes B */
	simple(a, WPERF_EV_SOFTIRQ_EXIT, 40 * MS, 1, 1);
	sw(a, 50 * MS, 1, 9, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t irq = vertex_named(&g, "irq:24:virtio0"), timer = vertex_named(&g, "timer");
	const struct wperf_edge *e1 = edge(&g, vertex_of_tid(&g, 1), irq);
	const struct wperf_edge *e2 = edge(&g, vertex_of_tid(&g, 2), timer);

	CHECK_EQ("A->irq exists", e1 != NULL, 1);
	CHECK_EQ("B->timer exists", e2 != NULL, 1);
	if (e1 && e2) {
		CHECK_EQ("A->irq", e1->weight_ns, 20 * MS);
		CHECK_EQ("B->timer", e2->weight_ns, 30 * MS);
	}
	CHECK_EQ("nothing waits on X", weight(&g, 1, 9), -1);
	CHECK_EQ("B's timer wait", g.vertices[vertex_of_tid(&g, 2)].waiting_ns[WPERF_V_TIMER], 30 * MS);
	wperf_graph_fini(&g);
}

/*
 * perf marks the tail of __do_softirq, past its last softirq_exit, as
 * softirq context: ksoftirqd woken there waits for the softirq left
 * pending (RCU, raised by itself), not for an untraced interrupt. Events
 * carry perf's context flags. K = ksoftirqd/0 (3), X = cc1 (100) on cpu 0.
 * K sleeps [10, 30 ms] (woken with RCU pending), then [40, 60 ms] (woken
 * with nothing pending: untraced-interrupt, as before).
 */
static void flagged(struct wperf_analysis *a, enum wperf_event_type type, int64_t ts,
		    int64_t num, uint32_t flags)
{
	struct wperf_event ev = base(type, ts, 0);

	ev.context_flags = flags;
	if (type == WPERF_EV_WAKEUP) {
		ev.u.wake.tid = num;
		ev.u.wake.waking = true;
	} else {
		ev.u.softirq.vec = num;
	}
	wperf_analysis_feed(a, &ev);
}

static void named_switch(struct wperf_analysis *a, int64_t ts, int cpu, int64_t prev,
			 const char *prev_comm, int64_t prev_state, int64_t next,
			 const char *next_comm)
{
	struct wperf_event ev = base(WPERF_EV_SWITCH, ts, cpu);

	ev.context_flags = 0;
	ev.u.sw.prev_tid = prev;
	ev.u.sw.prev_comm = prev_comm;
	ev.u.sw.prev_state = prev_state;
	ev.u.sw.next_tid = next;
	ev.u.sw.next_comm = next_comm;
	wperf_analysis_feed(a, &ev);
}

static void test_softirq_daemon_perf_flags(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	named_switch(a, 0, 0, 0, "swapper/0", 0, 100, "cc1");
	named_switch(a, 0, 1, 0, "swapper/1", 0, 3, "ksoftirqd/0");
	named_switch(a, 10 * MS, 1, 3, "ksoftirqd/0", 1, 0, "swapper/1");
	flagged(a, WPERF_EV_SOFTIRQ_ENTRY, 30 * MS, 9, WPERF_CTX_SOFTIRQ);
	flagged(a, WPERF_EV_SOFTIRQ_RAISE, 30 * MS, 9, WPERF_CTX_SOFTIRQ);
	flagged(a, WPERF_EV_SOFTIRQ_EXIT, 30 * MS, 9, WPERF_CTX_SOFTIRQ);
	flagged(a, WPERF_EV_WAKEUP, 30 * MS, 3, WPERF_CTX_SOFTIRQ);
	named_switch(a, 30 * MS, 1, 0, "swapper/1", 0, 3, "ksoftirqd/0");
	flagged(a, WPERF_EV_SOFTIRQ_ENTRY, 35 * MS, 9, WPERF_CTX_SOFTIRQ);   /* RCU runs */
	flagged(a, WPERF_EV_SOFTIRQ_EXIT, 35 * MS, 9, WPERF_CTX_SOFTIRQ);
	named_switch(a, 40 * MS, 1, 3, "ksoftirqd/0", 1, 0, "swapper/1");
	flagged(a, WPERF_EV_WAKEUP, 60 * MS, 3, WPERF_CTX_SOFTIRQ);
	named_switch(a, 70 * MS, 0, 100, "cc1", 0, 0, "swapper/0");
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t k = vertex_of_tid(&g, 3);
	const struct wperf_edge *rcu = edge(&g, k, vertex_named(&g, "softirq:RCU"));
	const struct wperf_edge *untraced = edge(&g, k, vertex_named(&g, "untraced-interrupt"));

	CHECK_EQ("ksoftirqd->softirq:RCU exists", rcu != NULL, 1);
	CHECK_EQ("ksoftirqd->untraced-interrupt exists", untraced != NULL, 1);
	if (rcu && untraced) {
		CHECK_EQ("ksoftirqd->softirq:RCU", rcu->direct_ns, 20 * MS);
		CHECK_EQ("ksoftirqd->untraced-interrupt", untraced->direct_ns, 20 * MS);
	}
	CHECK_EQ("ksoftirqd waits on no thread", weight(&g, 3, 100), -1);
	wperf_graph_fini(&g);
}

/* Which names are the kernel's service threads (graph.h). */
static void test_service_thread_names(void)
{
	static const char *const yes[] = {
		"ksoftirqd/0", "migration/12", "cpuhp/1", "idle_inject/3", "watchdog/0",
		"watchdogd", "rcu_sched", "rcu_preempt", "rcu_tasks_kthre", "rcuc/2", "rcuog/0",
		"rcuop/7", NULL
	};
	static const char *const no[] = {
		"", "kworker/0:1", "kswapd0", "jbd2/vda1-8", "ksoftirqd", "migration", "watchdog",
		"watchdogd2", "rcu", "rcuworker", "mysqld", "worker-1", "cc1", "idle", NULL
	};

	for (size_t i = 0; yes[i]; i++)
		CHECK_EQ(yes[i], wperf_comm_waits_only_for_work(yes[i]), 1);
	for (size_t i = 0; no[i]; i++)
		CHECK_EQ(no[i], wperf_comm_waits_only_for_work(no[i]), 0);
	CHECK_EQ("NULL", wperf_comm_waits_only_for_work(NULL), 0);
}

/* W issues a 4 KiB write and waits for it; the disk completes it in its
 * irq and wakes W. W->disk = the wait; disk->W = the disk's idle time. */
static void test_disk(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 5);
	block(a, WPERF_EV_BLOCK_ISSUE, 100 * MS, 0, 64, 5);
	sw(a, 100 * MS, 0, 5, 2, 0);    /* W waits (D) */
	simple(a, WPERF_EV_IRQ_ENTRY, 400 * MS, 1, 24);
	block(a, WPERF_EV_BLOCK_COMPLETE, 400 * MS, 1, 64, -1);
	wake(a, 400 * MS, 1, 5);
	simple(a, WPERF_EV_IRQ_EXIT, 400 * MS, 1, 24);
	sw(a, 400 * MS, 0, 0, 0, 5);
	sw(a, 1000 * MS, 0, 5, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t w = vertex_of_tid(&g, 5), disk = vertex_named(&g, "disk:253:0");
	const struct wperf_edge *wd = edge(&g, w, disk), *dw = edge(&g, disk, w);

	CHECK_EQ("W->disk exists", wd != NULL, 1);
	CHECK_EQ("disk->W exists", dw != NULL, 1);
	if (wd && dw) {
		CHECK_EQ("W->disk", wd->weight_ns, 300 * MS);
		CHECK_EQ("disk->W (idle)", dw->weight_ns, 700 * MS);
	}
	CHECK_EQ("disk busy", g.vertices[disk].busy_ns, 300 * MS);
	wperf_graph_fini(&g);
}

/* Each thread's segments tile its lifetime; a wait open at the end goes
 * to `unknown`. */
struct tiling { int64_t last_end[16]; int64_t total[16]; int gaps; };

static void on_seg(const struct wperf_segment *s, void *data)
{
	struct tiling *t = data;

	if (s->tid < 0 || s->tid >= 16)
		return;
	if (t->last_end[s->tid] >= 0 && t->last_end[s->tid] != s->start_ns)
		t->gaps++;
	t->last_end[s->tid] = s->end_ns;
	t->total[s->tid] += s->end_ns - s->start_ns;
}

static void test_tiling_and_open_wait(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	struct tiling t;

	memset(&t, 0, sizeof t);
	for (int i = 0; i < 16; i++)
		t.last_end[i] = -1;
	wperf_analysis_on_segment(a, on_seg, &t);
	sw(a, 0, 1, 0, 0, 0);           /* cpu 1 is known to be idle */
	sw(a, 0, 0, 0, 0, 1);
	sw(a, 10 * MS, 0, 1, 0, 2);     /* A preempted: runnable */
	sw(a, 20 * MS, 0, 2, 1, 1);     /* B sleeps forever */
	sw(a, 30 * MS, 0, 1, 1, 0);     /* A sleeps */
	wake(a, 35 * MS, 1, 1);         /* from idle cpu 1: untraced interrupt */
	sw(a, 40 * MS, 0, 0, 0, 1);
	sw(a, 60 * MS, 0, 1, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("no gaps", t.gaps, 0);
	CHECK_EQ("A tiles 0..60", t.total[1], 60 * MS);
	CHECK_EQ("B tiles 10..60", t.total[2], 50 * MS);
	CHECK_EQ("waits open at end", g.quality.waits_open_at_end, 1);
	const struct wperf_vertex *va = &g.vertices[vertex_of_tid(&g, 1)];

	CHECK_EQ("A running", va->running_ns, 10 * MS + 10 * MS + 20 * MS);
	CHECK_EQ("A runnable", va->runnable_ns, 10 * MS + 5 * MS);
	CHECK_EQ("A waiting on an untraced interrupt", va->waiting_ns[WPERF_V_UNKNOWN], 5 * MS);
	CHECK_EQ("untraced interrupt wakeups", g.quality.untraced_interrupt_wakeups, 1);
	wperf_graph_fini(&g);
}

static void test_missing_events(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	simple(a, WPERF_EV_IRQ_ENTRY, 0, 0, 1);
	CHECK_EQ("finish fails without sched_switch", wperf_analysis_finish(a, &g), -1);
	if (!strstr(wperf_analysis_error(a), "sched_switch")) {
		check_test_failures++;
		fprintf(stderr, "FAIL error does not name sched_switch: %s\n", wperf_analysis_error(a));
	}
	wperf_analysis_destroy(a);
}

/* Lost events are counted for the trace and for the thread they concern:
 * A switched in while waiting, with no wakeup seen (a lost wakeup); B
 * switched in on CPU 1 while still running on CPU 0 (a lost switch-out). */
static void test_lost_events_per_thread(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);              /* A runs */
	sw(a, 1 * MS, 0, 1, 1, 2);         /* A waits; B runs */
	sw(a, 2 * MS, 1, 0, 0, 1);         /* A back on CPU 1: no wakeup seen */
	sw(a, 3 * MS, 1, 1, 0, 0);         /* A preempted */
	sw(a, 4 * MS, 1, 0, 0, 2);         /* B on CPU 1, still running on 0 */
	sw(a, 5 * MS, 0, 2, 0, 0);
	wake(a, 6 * MS, 0, 1);             /* the trace has wakeups (A runnable) */
	if (finish(a, &g))
		return;
	const struct wperf_vertex *va = &g.vertices[vertex_of_tid(&g, 1)];
	const struct wperf_vertex *vb = &g.vertices[vertex_of_tid(&g, 2)];

	CHECK_EQ("trace: waits without wakeup", g.quality.waits_without_wakeup, 1);
	CHECK_EQ("trace: state mismatches", g.quality.state_mismatches, 1);
	CHECK_EQ("A: waits without wakeup", va->waits_without_wakeup, 1);
	CHECK_EQ("A: state mismatches", va->state_mismatches, 0);
	CHECK_EQ("B: waits without wakeup", vb->waits_without_wakeup, 0);
	CHECK_EQ("B: state mismatches", vb->state_mismatches, 1);
	wperf_graph_fini(&g);
}

/* ---- user-space annotations (wperf-method(7) §6) ---- */

static void annotate(struct wperf_analysis *a, enum wperf_event_type type, int64_t ts,
		     int cpu, int64_t tid, uint64_t lock)
{
	struct wperf_event ev = base(type, ts, cpu);

	ev.current_tid = tid;
	ev.current_pid = 100;
	if (type == WPERF_EV_PROGRESS)
		ev.u.progress.name = "item";
	else
		ev.u.spin.lock = lock;
	wperf_analysis_feed(a, &ev);
}

/*
 * A takes lock L at 1 ms. B spins on it over [10, 40] ms: B waits for A
 * (30 ms), which is not running time. C spins over [60, 100] but is
 * preempted during [70, 80]: it waits for B, the last to take L, over
 * [60, 70] + [80, 100] = 30 ms, and is runnable for 10 ms.
 */
static void test_spin(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	const uint64_t L = 0x7f00dead0000ull;

	sw(a, 0, 0, 0, 0, 1);                                   /* A on cpu 0 */
	sw(a, 0, 1, 0, 0, 2);                                   /* B on cpu 1 */
	sw(a, 0, 2, 0, 0, 3);                                   /* C on cpu 2 */
	annotate(a, WPERF_EV_SPIN_BEGIN, 1 * MS, 0, 1, L);
	annotate(a, WPERF_EV_SPIN_END, 1 * MS, 0, 1, L);       /* A took it at once */
	wake(a, 2 * MS, 0, 7);          /* a wakeup elsewhere: the trace has them */
	annotate(a, WPERF_EV_SPIN_BEGIN, 10 * MS, 1, 2, L);
	annotate(a, WPERF_EV_SPIN_END, 40 * MS, 1, 2, L);      /* B took it from A */
	annotate(a, WPERF_EV_SPIN_BEGIN, 60 * MS, 2, 3, L);
	sw(a, 70 * MS, 2, 3, 0, 0);                             /* C preempted */
	sw(a, 80 * MS, 2, 0, 0, 3);
	annotate(a, WPERF_EV_SPIN_END, 100 * MS, 2, 3, L);     /* C took it from B */
	sw(a, 120 * MS, 0, 1, 0, 0);
	sw(a, 120 * MS, 1, 2, 0, 0);
	sw(a, 120 * MS, 2, 3, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("B -> A (spin)", weight(&g, 2, 1), 30 * MS);
	CHECK_EQ("C -> B (spin, preempted)", weight(&g, 3, 2), 30 * MS);
	CHECK_EQ("C never waits for A", weight(&g, 3, 1), -1);
	const struct wperf_vertex *b = &g.vertices[vertex_of_tid(&g, 2)];
	const struct wperf_vertex *c = &g.vertices[vertex_of_tid(&g, 3)];

	CHECK_EQ("B running excludes the spin", b->running_ns, 120 * MS - 30 * MS);
	CHECK_EQ("B waiting on a thread", b->waiting_ns[WPERF_V_THREAD], 30 * MS);
	CHECK_EQ("C runnable while preempted", c->runnable_ns, 10 * MS);
	CHECK_EQ("C running", c->running_ns, 120 * MS - 30 * MS - 10 * MS);
	wperf_graph_fini(&g);
}

/*
 * T (tid 4) sleeps over [10, 20] ms, is woken by X (tid 8) but finds its
 * condition false (false_wakeup at 21), sleeps again at 22 and is woken by
 * Y (tid 9) at 50: one wait [10, 50] on Y (a second declaration in the
 * same run merges into it too). Later it sleeps at 60, is woken
 * by X at 70, runs 70 ms (not a short run) and then declares a false
 * wakeup: that one is not merged.
 */
static void test_false_wakeup(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	wperf_analysis_expect_false_wakeups(a);
	sw(a, 0, 0, 0, 0, 4);           /* T on cpu 0 */
	sw(a, 0, 1, 0, 0, 8);           /* X on cpu 1 */
	sw(a, 0, 2, 0, 0, 9);           /* Y on cpu 2 */
	sw(a, 10 * MS, 0, 4, 1, 0);
	wake(a, 20 * MS, 1, 4);         /* X wakes T ... */
	sw(a, 20 * MS, 0, 0, 0, 4);
	annotate(a, WPERF_EV_FALSE_WAKEUP, 21 * MS, 0, 4, 0);   /* ... for nothing */
	/* Its wait returned at once (no sleep) and it declares again. */
	annotate(a, WPERF_EV_FALSE_WAKEUP, 21 * MS + 500000, 0, 4, 0);
	sw(a, 22 * MS, 0, 4, 1, 0);
	wake(a, 50 * MS, 2, 4);         /* Y wakes T for real */
	sw(a, 50 * MS, 0, 0, 0, 4);
	annotate(a, WPERF_EV_PROGRESS, 55 * MS, 0, 4, 0);
	sw(a, 60 * MS, 0, 4, 1, 0);
	wake(a, 70 * MS, 1, 4);
	sw(a, 70 * MS, 0, 0, 0, 4);
	annotate(a, WPERF_EV_PROGRESS, 139 * MS, 0, 4, 0);
	annotate(a, WPERF_EV_FALSE_WAKEUP, 140 * MS, 0, 4, 0);
	sw(a, 150 * MS, 0, 4, 1, 0);
	wake(a, 160 * MS, 2, 4);
	sw(a, 160 * MS, 0, 0, 0, 4);
	sw(a, 200 * MS, 0, 4, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t t = vertex_of_tid(&g, 4), x = vertex_of_tid(&g, 8), y = vertex_of_tid(&g, 9);
	const struct wperf_edge *ty = edge(&g, t, y), *tx = edge(&g, t, x);

	CHECK_EQ("T -> Y exists", ty != NULL, 1);
	CHECK_EQ("T -> X exists", tx != NULL, 1);
	if (ty && tx) {
		CHECK_EQ("T -> Y: the merged wait + the last one", ty->direct_ns, 40 * MS + 10 * MS);
		CHECK_EQ("T -> Y count", ty->count, 2);
		CHECK_EQ("T -> X: only the unmerged wait", tx->direct_ns, 10 * MS);
		CHECK_EQ("T -> X count", tx->count, 1);
	}
	CHECK_EQ("T running: not the short run", g.vertices[t].running_ns,
		 10 * MS + 10 * MS + 80 * MS + 40 * MS);
	CHECK_EQ("merged (both declarations)", g.quality.false_wakeups_merged, 2);
	CHECK_EQ("unmerged", g.quality.false_wakeups_unmerged, 1);
	CHECK_EQ("progress points", g.n_progress, 1);
	if (g.n_progress == 1)
		CHECK_EQ("items", g.progress[0].count, 2);
	wperf_graph_fini(&g);
}

/* ---- network interfaces (wperf-method(7) §5) ---- */

static void net(struct wperf_analysis *a, enum wperf_event_type type, int64_t ts, int cpu,
		const char *dev, uint64_t len)
{
	struct wperf_event ev = base(type, ts, cpu);

	ev.u.net.dev = dev;
	ev.u.net.len = len;
	wperf_analysis_feed(a, &ev);
}

/*
 * T sends 1000 bytes on lo at 1 s and sleeps; the reply arrives in NET_RX
 * softirq context on cpu 1 at 2 s and wakes T: T waits 1 s for nic:lo.
 * At 8000 bit/s the link was busy 1 s of the 4 s analysed: its 3 s idle go
 * to T, its only sender. Without the speed: no nic -> T edge at all.
 */
static void nic_scenario(struct wperf_analysis *a)
{
	sw(a, 0, 0, 0, 0, 5);           /* T on cpu 0 */
	sw(a, 0, 1, 0, 0, 0);           /* cpu 1 idle */
	net(a, WPERF_EV_NET_XMIT, 1000 * MS, 0, "lo", 1000);
	sw(a, 1000 * MS, 0, 5, 1, 0);
	simple(a, WPERF_EV_SOFTIRQ_ENTRY, 2000 * MS, 1, WPERF_SOFTIRQ_NET_RX);
	net(a, WPERF_EV_NET_RECV, 2000 * MS, 1, "lo", 1000);
	wake(a, 2000 * MS, 1, 5);
	simple(a, WPERF_EV_SOFTIRQ_EXIT, 2000 * MS, 1, WPERF_SOFTIRQ_NET_RX);
	sw(a, 2000 * MS, 0, 0, 0, 5);
	sw(a, 4000 * MS, 0, 5, 0, 0);
}

static void test_nic(void)
{
	for (int with_speed = 0; with_speed < 2; with_speed++) {
		struct wperf_analysis *a = wperf_analysis_create();
		struct wperf_graph g;

		if (with_speed)
			wperf_analysis_set_nic_capacity(a, "lo", 8000);
		nic_scenario(a);
		if (finish(a, &g)) {
			check_test_failures++;
			return;
		}
		uint32_t t = vertex_of_tid(&g, 5), lo = vertex_named(&g, "nic:lo");
		const struct wperf_edge *tn = edge(&g, t, lo), *nt = edge(&g, lo, t);

		CHECK_EQ("T -> nic:lo exists", tn != NULL, 1);
		if (tn)
			CHECK_EQ("T -> nic:lo", tn->weight_ns, 1000 * MS);
		CHECK_EQ("bytes sent on lo", g.vertices[lo].bytes, 1000);
		if (with_speed) {
			CHECK_EQ("nic:lo -> T exists", nt != NULL, 1);
			if (nt)
				CHECK_EQ("nic:lo -> T (idle)", nt->weight_ns, 3000 * MS);
			CHECK_EQ("lo busy", g.vertices[lo].busy_ns, 1000 * MS);
		} else {
			CHECK_EQ("no idle edge without a speed", nt == NULL, 1);
			CHECK_EQ("speed unknown", g.vertices[lo].capacity_bps, 0);
		}
		wperf_graph_fini(&g);
	}
}

/*
 * Per-CPU streams merged with a little skew: the child (tid 21) is switched
 * in on cpu 1 half a millisecond before its fork event on cpu 0. It is one
 * thread, of known origin, not a reused tid.
 */
static void test_child_seen_before_fork(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 20);
	sw(a, 0, 1, 0, 0, 0);
	sw(a, 100 * MS, 1, 0, 0, 21);
	fork_thread(a, 100 * MS + 500000, 0, 20, 21, 20, "child");
	wake(a, 150 * MS, 0, 7);
	sw(a, 200 * MS, 1, 21, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	int n = 0;

	for (size_t i = 0; i < g.n_vertices; i++)
		n += g.vertices[i].kind == WPERF_V_THREAD && g.vertices[i].tid == 21;
	CHECK_EQ("one vertex for the child", n, 1);
	CHECK_EQ("its life starts when first seen", g.vertices[vertex_of_tid(&g, 21)].first_ts,
		 100 * MS);
	CHECK_EQ("of known origin", g.vertices[vertex_of_tid(&g, 21)].unknown_initial_state, 0);
	CHECK_EQ("its process", g.vertices[vertex_of_tid(&g, 21)].pid, 20);
	wperf_graph_fini(&g);
}

/* After sched_process_exit a thread may still sleep (S) and run again
 * before it leaves the CPU dead (X = 16): one vertex, one life. */
static void test_exit_then_sleep(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	struct wperf_event ev;

	sw(a, 0, 0, 0, 0, 30);
	sw(a, 0, 1, 0, 0, 31);
	ev = base(WPERF_EV_EXIT, 10 * MS, 0);
	ev.u.task.tid = 30;
	wperf_analysis_feed(a, &ev);
	sw(a, 11 * MS, 0, 30, 1, 0);      /* sleeps while exiting */
	wake(a, 12 * MS, 1, 30);
	sw(a, 12 * MS, 0, 0, 0, 30);
	sw(a, 13 * MS, 0, 30, 16, 0);     /* gone */
	sw(a, 20 * MS, 1, 31, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	int n = 0;

	for (size_t i = 0; i < g.n_vertices; i++)
		n += g.vertices[i].kind == WPERF_V_THREAD && g.vertices[i].tid == 30;
	CHECK_EQ("one vertex for the exiting thread", n, 1);
	CHECK_EQ("its life ends when it leaves dead", g.vertices[vertex_of_tid(&g, 30)].last_ts,
		 13 * MS);
	CHECK_EQ("it waited 1 ms for tid 31", weight(&g, 30, 31), 1 * MS);
	wperf_graph_fini(&g);
}

/* Wait stacks: on the switch (LTTng contexts, perf callchains) and from
 * a kernel-stack event right after it (tracefs); per edge, the heaviest
 * first with their counts and waiting time.
 *   cpu0: A sleeps [0,100] (S1), B sleeps [100,200] (S2), A sleeps
 *   [200,300] (S1, from a stack event), A sleeps [400,450] (S3); each
 *   woken by the other, running on cpu0.
 * A->B: 3 waits: S1 2 waits 200 ms, then S3 1 wait 50 ms. B->A: S2 100 ms. */
static void switch_with_stack(struct wperf_analysis *a, int64_t ts, int64_t prev,
			      int64_t state, int64_t next, const uint64_t *ips, uint32_t n)
{
	struct wperf_event ev = base(WPERF_EV_SWITCH, ts, 0);

	ev.u.sw.prev_tid = prev;
	ev.u.sw.prev_state = state;
	ev.u.sw.next_tid = next;
	ev.stack = ips;
	ev.n_stack = n;
	wperf_analysis_feed(a, &ev);
}

static void test_wait_stacks(void)
{
	static const uint64_t s1[] = { 0xffffffff81000010ull, 0xffffffff81000020ull };
	static const uint64_t s2[] = { 0xffffffff81000030ull };
	static const uint64_t s3[] = { 0xffffffff81000010ull, 0x7f0000001234ull };
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	struct wperf_event st = base(WPERF_EV_STACK, 200 * MS + 1000, 0);

	switch_with_stack(a, 0, 10, 1, 20, s1, 2);
	wake(a, 100 * MS, 0, 10);
	switch_with_stack(a, 100 * MS, 20, 1, 10, s2, 1);
	wake(a, 200 * MS, 0, 20);
	sw(a, 200 * MS, 0, 10, 1, 20);
	st.current_tid = 10;
	st.stack = s1;
	st.n_stack = 2;
	wperf_analysis_feed(a, &st);
	wake(a, 300 * MS, 0, 10);
	sw(a, 300 * MS, 0, 20, 0, 10);
	switch_with_stack(a, 400 * MS, 10, 1, 20, s3, 2);
	wake(a, 450 * MS, 0, 10);
	sw(a, 450 * MS, 0, 20, 0, 10);
	sw(a, 500 * MS, 0, 10, 0, 20);
	if (finish(a, &g))
		return;
	const struct wperf_edge *ab = edge(&g, vertex_of_tid(&g, 10), vertex_of_tid(&g, 20));
	const struct wperf_edge *ba = edge(&g, vertex_of_tid(&g, 20), vertex_of_tid(&g, 10));
	CHECK_EQ("stacks named", g.n_stacks, 3);
	CHECK_EQ("A->B exists", ab != NULL, 1);
	CHECK_EQ("B->A exists", ba != NULL, 1);
	if (ab && ba && g.n_stacks == 3) {
		CHECK_EQ("A->B waits", ab->count, 3);
		/* Waits end A->B, B->A, A->B, A->B: A->B starts a run twice
		 * (first, and after B->A), B->A once. */
		CHECK_EQ("A->B turns", ab->turns, 2);
		CHECK_EQ("B->A turns", ba->turns, 1);
		CHECK_EQ("A->B stacks", ab->n_stacks, 2);
		CHECK_EQ("A->B S1 count", ab->stacks[0].count, 2);
		CHECK_EQ("A->B S1 ns", ab->stacks[0].ns, 200 * MS);
		CHECK_EQ("A->B S1 frames", g.stacks[ab->stacks[0].stack].n, 2);
		CHECK_EQ("A->B S1 frame 1", g.stacks[ab->stacks[0].stack].ips[1], s1[1]);
		CHECK_EQ("A->B S3 count", ab->stacks[1].count, 1);
		CHECK_EQ("A->B S3 ns", ab->stacks[1].ns, 50 * MS);
		CHECK_EQ("A->B S3 user frame", g.stacks[ab->stacks[1].stack].ips[1], s3[1]);
		CHECK_EQ("B->A stacks", ba->n_stacks, 1);
		CHECK_EQ("B->A S2 ns", ba->stacks[0].ns, 100 * MS);
		CHECK_EQ("B->A S2 frame", g.stacks[ba->stacks[0].stack].ips[0], s2[0]);
		CHECK_EQ("A's main stack is S1",
			 wperf_vertex_main_stack(&g, vertex_of_tid(&g, 10)), ab->stacks[0].stack);
	}
	wperf_graph_fini(&g);
}

/*
 * Waits for work (wperf-analysis(7), "Waits for work"): kworker K (5)
 * sleeps in `k_state` over [0, 100 ms] until A (1) queues work; then in D
 * over [110, 150] until C (3) wakes it; B (2) waits on K over [50, 200].
 * In the idle state, K's first wait is kept apart (idle_ns) and weighs
 * nothing: K -> A weighs 0, else 100 ms (B's wait does not cascade into
 * it either way: B asked K for nothing, so only K's last wait before it
 * woke B does, "Inherited waiting"). The D wait stays a dependency and
 * cascades: K -> C = 40 + 40. With `idle_seen`, another
 * thread first sleeps in 0x80, so the trace has the idle state and a
 * kworker's S sleep is a plain wait.
 */
static void idle_case(const char *what, int64_t k_state, bool idle_seen, bool want_idle)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	char msg[160];

	named_switch(a, 0, 0, 0, "swapper/0", 0, 5, "kworker/0:1");
	named_switch(a, 0, 1, 0, "swapper/1", 0, 1, "a");
	named_switch(a, 0, 2, 0, "swapper/2", 0, 2, "b");
	named_switch(a, 0, 3, 0, "swapper/3", 0, 3, "c");
	if (idle_seen) {
		named_switch(a, 0, 4, 0, "swapper/4", 0, 7, "rcu_preempt");
		named_switch(a, 0, 4, 7, "rcu_preempt", 0x80, 0, "swapper/4");
	}
	named_switch(a, 0, 0, 5, "kworker/0:1", k_state, 0, "swapper/0");
	named_switch(a, 50 * MS, 2, 2, "b", 1, 0, "swapper/2");
	wake(a, 100 * MS, 1, 5);                 /* A queues work */
	named_switch(a, 100 * MS, 0, 0, "swapper/0", 0, 5, "kworker/0:1");
	named_switch(a, 110 * MS, 0, 5, "kworker/0:1", 2, 0, "swapper/0");
	wake(a, 150 * MS, 3, 5);                 /* C ends K's D wait */
	named_switch(a, 150 * MS, 0, 0, "swapper/0", 0, 5, "kworker/0:1");
	wake(a, 200 * MS, 0, 2);                 /* K wakes B */
	named_switch(a, 210 * MS, 2, 0, "swapper/2", 0, 2, "b");
	named_switch(a, 220 * MS, 1, 1, "a", 0, 0, "swapper/1");
	named_switch(a, 220 * MS, 3, 3, "c", 0, 0, "swapper/3");
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t k = vertex_of_tid(&g, 5);
	const struct wperf_edge *ka = edge(&g, k, vertex_of_tid(&g, 1));

	snprintf(msg, sizeof msg, "%s: K->A exists", what);
	CHECK_EQ(msg, ka != NULL, 1);
	if (ka) {
		snprintf(msg, sizeof msg, "%s: K->A weight", what);
		CHECK_EQ(msg, ka->weight_ns, want_idle ? 0 : 100 * MS);
		snprintf(msg, sizeof msg, "%s: K->A idle_ns", what);
		CHECK_EQ(msg, ka->idle_ns, want_idle ? 100 * MS : 0);
		snprintf(msg, sizeof msg, "%s: K->A count", what);
		CHECK_EQ(msg, ka->count, want_idle ? 0 : 1);
		snprintf(msg, sizeof msg, "%s: K->A idle_count", what);
		CHECK_EQ(msg, ka->idle_count, want_idle ? 1 : 0);
	}
	snprintf(msg, sizeof msg, "%s: K->C (D wait, cascaded)", what);
	CHECK_EQ(msg, weight(&g, 5, 3), 80 * MS);
	snprintf(msg, sizeof msg, "%s: B->K", what);
	CHECK_EQ(msg, weight(&g, 2, 5), 150 * MS);
	snprintf(msg, sizeof msg, "%s: K's waiting time keeps the idle wait", what);
	CHECK_EQ(msg, g.vertices[k].waiting_ns[WPERF_V_THREAD], 140 * MS);
	snprintf(msg, sizeof msg, "%s: has_idle_state", what);
	CHECK_EQ(msg, g.quality.has_idle_state, idle_seen || (want_idle && k_state != 1));
	wperf_graph_fini(&g);
}

static void test_idle_waits(void)
{
	idle_case("reported TASK_IDLE (0x80, >= 4.14)", 0x80, false, true);
	idle_case("raw TASK_IDLE (0x402, lttng-modules 2.10)", 0x402, false, true);
	idle_case("kworker in S, no idle state in the trace", 1, false, true);
	idle_case("kworker in S, idle state seen", 1, true, false);
	idle_case("kworker in D", 2, false, false);
}

/*
 * Untraced timers (wperf-analysis(7)): no timer expiry events. A (1) is
 * woken at 20 ms on idle cpu 1 by an interrupt the trace does not show,
 * then at 40 ms on cpu 0 from X's (9) context: A -> X may be a timer
 * charged to X. With perf's context flags on every event, the first is
 * marked hard-irq and the second thread context: the trace tells timers
 * from threads, and nothing is marked.
 */
static void timer_case(bool flags)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	struct wperf_event ev;
	const struct wperf_edge *ax;

	sw(a, 0, 0, 0, 0, 9);
	sw(a, 0, 1, 0, 0, 1);
	sw(a, 10 * MS, 1, 1, 1, 0);
	ev = base(WPERF_EV_WAKEUP, 20 * MS, 1);
	ev.u.wake.tid = 1;
	ev.u.wake.waking = true;
	ev.context_flags = flags ? WPERF_CTX_HARDIRQ : WPERF_CTX_UNKNOWN;
	wperf_analysis_feed(a, &ev);
	sw(a, 20 * MS, 1, 0, 0, 1);
	sw(a, 30 * MS, 1, 1, 1, 0);
	ev = base(WPERF_EV_WAKEUP, 40 * MS, 0);
	ev.u.wake.tid = 1;
	ev.u.wake.waking = true;
	ev.context_flags = flags ? 0 : WPERF_CTX_UNKNOWN;
	wperf_analysis_feed(a, &ev);
	sw(a, 40 * MS, 1, 0, 0, 1);
	sw(a, 50 * MS, 0, 9, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	ax = edge(&g, vertex_of_tid(&g, 1), vertex_of_tid(&g, 9));
	CHECK_EQ("A -> X exists", ax != NULL, 1);
	CHECK_EQ("has_timer_events", g.quality.has_timer_events, 0);
	CHECK_EQ("has_irq_context", g.quality.has_irq_context, flags);
	if (ax)
		CHECK_EQ(flags ? "A -> X not marked (flags)" : "A -> X may be a timer",
			 wperf_edge_may_be_timer(&g, ax), !flags);
	wperf_graph_fini(&g);
}

static void test_untraced_timers(void)
{
	timer_case(false);
	timer_case(true);
}

/*
 * Waits on a runnable thread (wperf_vertex.waited_on_runnable_ns): A
 * waits for B over [0, 100] ms; B is preempted by C over [20, 50] (runnable
 * 30 ms) and wakes A at 100. A waits again over [150, 200], B running all
 * along: nothing. C, preempted at 50, is runnable to the end, but nobody
 * waits for it.
 */
static void test_waits_on_runnable(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);           /* A on cpu 0 */
	sw(a, 0, 1, 0, 0, 2);           /* B on cpu 1 */
	sw(a, 0, 0, 1, 1, 0);           /* A sleeps */
	sw(a, 20 * MS, 1, 2, 0, 3);     /* B preempted by C */
	sw(a, 50 * MS, 1, 3, 0, 2);     /* C preempted by B */
	wake(a, 100 * MS, 1, 1);        /* B wakes A */
	sw(a, 100 * MS, 0, 0, 0, 1);
	sw(a, 150 * MS, 0, 1, 1, 0);    /* A sleeps again */
	wake(a, 200 * MS, 1, 1);        /* B wakes A */
	sw(a, 200 * MS, 0, 0, 0, 1);
	sw(a, 250 * MS, 0, 1, 0, 0);
	sw(a, 250 * MS, 1, 2, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	const struct wperf_vertex *va = &g.vertices[vertex_of_tid(&g, 1)];
	const struct wperf_vertex *vb = &g.vertices[vertex_of_tid(&g, 2)];

	CHECK_EQ("A waited on B", va->waiting_ns[WPERF_V_THREAD], 150 * MS);
	CHECK_EQ("B runnable", vb->runnable_ns, 30 * MS);
	CHECK_EQ("A waited on B while B was runnable", va->waited_on_runnable_ns, 30 * MS);
	CHECK_EQ("B waited on nobody runnable", vb->waited_on_runnable_ns, 0);
	const struct wperf_edge *ab = edge(&g, vertex_of_tid(&g, 1), vertex_of_tid(&g, 2));
	CHECK_EQ("A->B exists", ab != NULL, 1);
	if (ab)
		CHECK_EQ("A->B: the part on a runnable B", ab->runnable_ns, 30 * MS);
	wperf_graph_fini(&g);
}

/*
 * A waits on W over [5, 60] ms. W waits on the disk over [10, 40], then,
 * woken by its completion, waits for its CPU behind H until 50 (that
 * delay is the disk's cost: wperf-analysis(7), "The CPUs"), runs, and
 * wakes A at 60. The disk held A up over [10, 50], not [10, 40]: W's
 * edge to the disk gets its own 30 ms and A's 40 ms cascaded.
 */
static void test_device_delay_cascades(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 5);           /* W on cpu 0 */
	sw(a, 0, 1, 0, 0, 6);           /* A on cpu 1 */
	sw(a, 5 * MS, 1, 6, 1, 7);      /* A waits; X runs on cpu 1 */
	block(a, WPERF_EV_BLOCK_ISSUE, 10 * MS, 0, 64, 5);
	sw(a, 10 * MS, 0, 5, 2, 8);     /* W waits (D); H runs on cpu 0 */
	simple(a, WPERF_EV_IRQ_ENTRY, 40 * MS, 0, 24);
	block(a, WPERF_EV_BLOCK_COMPLETE, 40 * MS, 0, 64, -1);
	wake(a, 40 * MS, 0, 5);
	simple(a, WPERF_EV_IRQ_EXIT, 40 * MS, 0, 24);
	sw(a, 50 * MS, 0, 8, 0, 5);     /* H preempted: W runs */
	wake(a, 60 * MS, 0, 6);         /* W wakes A */
	sw(a, 60 * MS, 1, 7, 0, 6);
	sw(a, 100 * MS, 0, 5, 0, 8);
	sw(a, 100 * MS, 1, 6, 0, 7);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t w = vertex_of_tid(&g, 5), at = vertex_of_tid(&g, 6);
	uint32_t disk = vertex_named(&g, "disk:253:0");
	const struct wperf_edge *aw = edge(&g, at, w), *wd = edge(&g, w, disk);

	CHECK_EQ("W woken by the disk, then waited for its CPU",
		 g.vertices[w].woken_cpu_wait_ns, 10 * MS);
	CHECK_EQ("A->W exists", aw != NULL, 1);
	CHECK_EQ("W->disk exists", wd != NULL, 1);
	if (aw && wd) {
		CHECK_EQ("A->W", aw->weight_ns, 55 * MS);
		CHECK_EQ("W->disk: its 30 ms and A's 40 ms held up by the disk",
			 wd->weight_ns, 70 * MS);
		CHECK_EQ("A->W: 40 ms of it ended at the disk", aw->device_ns, 40 * MS);
		CHECK_EQ("A->W: W's delay after the disk's wakeup is not a CPU's",
			 aw->runnable_ns, 0);
	}
	wperf_graph_fini(&g);
}

static void process(struct wperf_analysis *a, int64_t tid, int64_t pid, const char *name)
{
	struct wperf_event ev = base(WPERF_EV_STATEDUMP_PROCESS, 0, 0);

	ev.u.statedump.tid = tid;
	ev.u.statedump.pid = pid;
	ev.u.statedump.name = name;
	wperf_analysis_feed(a, &ev);
}

/*
 * Service time (wperf_edge.served_ns): client C (pid 10) wakes server S
 * (pid 20) at 10 ms and waits until S answers at 50. Meanwhile S waited
 * on T (pid 30, also named "server") over [25, 35]. S ran 30 of C's 40
 * ms: C -> S served 30 ms. S had waited on C over [1, 10] while C ran:
 * S -> C served 9 ms. T is another process of the same program, which
 * may share a lock with S: S -> T serves nothing.
 */
static void test_served(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	process(a, 10, 10, "client");
	process(a, 20, 20, "server");
	process(a, 30, 30, "server");
	sw(a, 0, 0, 0, 0, 10);
	sw(a, 0, 1, 0, 0, 20);
	sw(a, 0, 2, 0, 0, 30);
	sw(a, 1 * MS, 1, 20, 1, 0);     /* S waits for a request */
	sw(a, 2 * MS, 2, 30, 1, 0);     /* T waits */
	wake(a, 10 * MS, 0, 20);        /* C's request */
	sw(a, 10 * MS, 0, 10, 1, 0);    /* C waits for the answer */
	sw(a, 10 * MS, 1, 0, 0, 20);
	wake(a, 25 * MS, 1, 30);
	sw(a, 25 * MS, 1, 20, 1, 0);    /* S waits on T */
	sw(a, 25 * MS, 2, 0, 0, 30);
	wake(a, 35 * MS, 2, 20);
	sw(a, 35 * MS, 2, 30, 1, 0);
	sw(a, 35 * MS, 1, 0, 0, 20);
	wake(a, 50 * MS, 1, 10);        /* the answer */
	sw(a, 50 * MS, 1, 20, 1, 0);
	sw(a, 50 * MS, 0, 0, 0, 10);
	sw(a, 100 * MS, 0, 10, 0, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t c = vertex_of_tid(&g, 10), s = vertex_of_tid(&g, 20), t = vertex_of_tid(&g, 30);
	const struct wperf_edge *cs = edge(&g, c, s), *sc = edge(&g, s, c), *st = edge(&g, s, t);

	CHECK_EQ("C->S, S->C and S->T exist", cs && sc && st, 1);
	if (cs && sc && st) {
		CHECK_EQ("C->S direct", cs->direct_ns, 40 * MS);
		CHECK_EQ("C->S: S worked 30 ms of it", cs->served_ns, 30 * MS);
		CHECK_EQ("S->C: C worked all 9 ms", sc->served_ns, 9 * MS);
		CHECK_EQ("S->T: one program", st->served_ns, 0);
	}
	wperf_graph_fini(&g);
}

/* quality.cpus counts the CPUs the trace has events of: slot 0 of the
 * analysis's CPUs is "CPU unknown" (an event with no CPU, as `wperf top`
 * meets between its periods, or a CPU number out of range), which is no
 * CPU. Counted, 2 CPUs read as 3, and the saturated-knot rule's capacity
 * with them. */
static void test_cpus_counted(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 1);
	sw(a, 0, 1, 0, 0, 2);
	wake(a, 5 * MS, -1, 3);         /* no CPU: slot 0 */
	wake(a, 6 * MS, 100000, 4);     /* out of range: slot 0 too */
	sw(a, 10 * MS, 0, 1, 1, 0);
	sw(a, 10 * MS, 1, 2, 1, 0);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	CHECK_EQ("CPUs seen: 0 and 1, not the unknown one", g.quality.cpus, 2);
	wperf_graph_fini(&g);
}

/*
 * The same on an idle CPU: W, woken by the disk at 40 ms on cpu 0, idle
 * since W's wait began, runs at 41. The idle CPU's 1 ms of wakeup
 * latency is no wait for a CPU (wake_latency_ns), and belongs to the disk
 * wait too: A's 31 ms over [10, 41] are cascaded to the disk.
 */
static void test_device_latency_cascades(void)
{
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;

	sw(a, 0, 0, 0, 0, 5);           /* W on cpu 0 */
	sw(a, 0, 1, 0, 0, 6);           /* A on cpu 1 */
	sw(a, 5 * MS, 1, 6, 1, 7);      /* A waits; X runs on cpu 1 */
	block(a, WPERF_EV_BLOCK_ISSUE, 10 * MS, 0, 64, 5);
	sw(a, 10 * MS, 0, 5, 2, 0);     /* W waits (D); cpu 0 idles */
	simple(a, WPERF_EV_IRQ_ENTRY, 40 * MS, 0, 24);
	block(a, WPERF_EV_BLOCK_COMPLETE, 40 * MS, 0, 64, -1);
	wake(a, 40 * MS, 0, 5);
	simple(a, WPERF_EV_IRQ_EXIT, 40 * MS, 0, 24);
	sw(a, 41 * MS, 0, 0, 0, 5);     /* the idle CPU runs W */
	wake(a, 60 * MS, 0, 6);         /* W wakes A */
	sw(a, 60 * MS, 1, 7, 0, 6);
	sw(a, 100 * MS, 0, 5, 0, 0);
	sw(a, 100 * MS, 1, 6, 0, 7);
	if (finish(a, &g)) {
		check_test_failures++;
		return;
	}
	uint32_t w = vertex_of_tid(&g, 5), disk = vertex_named(&g, "disk:253:0");
	const struct wperf_edge *wd = edge(&g, w, disk);

	CHECK_EQ("W's wakeup latency", g.vertices[w].wake_latency_ns, 1 * MS);
	CHECK_EQ("no CPU delay", g.vertices[w].woken_cpu_wait_ns, 0);
	CHECK_EQ("W->disk exists", wd != NULL, 1);
	if (wd)
		CHECK_EQ("W->disk: its 30 ms and A's 31 ms", wd->weight_ns, 61 * MS);
	wperf_graph_fini(&g);
}

int main(void)
{
	RUN_TEST(test_nested);
	RUN_TEST(test_timelines);
	RUN_TEST(test_chain);
	RUN_TEST(test_chained_waits);
	RUN_TEST(test_grouped_waits);
	RUN_TEST(test_interrupt_wakers);
	RUN_TEST(test_softirq_daemon_perf_flags);
	RUN_TEST(test_service_thread_names);
	RUN_TEST(test_disk);
	RUN_TEST(test_tiling_and_open_wait);
	RUN_TEST(test_missing_events);
	RUN_TEST(test_lost_events_per_thread);
	RUN_TEST(test_spin);
	RUN_TEST(test_false_wakeup);
	RUN_TEST(test_nic);
	RUN_TEST(test_child_seen_before_fork);
	RUN_TEST(test_exit_then_sleep);
	RUN_TEST(test_wait_stacks);
	RUN_TEST(test_idle_waits);
	RUN_TEST(test_untraced_timers);
	RUN_TEST(test_waits_on_runnable);
	RUN_TEST(test_device_delay_cascades);
	RUN_TEST(test_served);
	RUN_TEST(test_cpus_counted);
	RUN_TEST(test_device_latency_cascades);
	return check_finish();
}
