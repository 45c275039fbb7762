/* SPDX-License-Identifier: MIT */
/*
 * fuzz-analysis.c — libFuzzer target: arbitrary sequences of normalised
 * events (wperf/event.h) into the analysis library, then knot finding,
 * merging and both report writers, as sink.wperf.knots does.
 *
 * The input is read as a stream of small records. A decoder can hand the
 * analysis anything a damaged or hostile trace contains: tids that never
 * switched in, wakeups of dead threads, exits without forks, timestamps
 * going backwards (streams out of order), unknown CPUs, discarded events
 * in the middle of a wait, NULL names. None of it may crash, leak state
 * across analyses or trip the sanitizers.
 *
 * Build and run: tests/fuzz/run.sh (doc/reliability.md).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wperf/analysis.h"
#include "wperf/knots.h"
#include "wperf/merge.h"
#include "wperf/report.h"

struct reader {
	const uint8_t *p;
	size_t n;
};

static uint8_t u8(struct reader *r)
{
	if (r->n == 0)
		return 0;
	r->n--;
	return *r->p++;
}

static uint32_t u16(struct reader *r)
{
	return (uint32_t)u8(r) | (uint32_t)u8(r) << 8;
}

/* Few distinct tids, so that events meet the same threads; a few special
 * values (idle, unknown, huge) as a broken trace may carry. */
static int64_t tid(struct reader *r)
{
	static const int64_t special[] = { 0, -1, 1, INT64_MAX, INT64_MIN, 4194304 };
	uint8_t b = u8(r);

	if (b >= 0xf0)
		return special[b % (sizeof special / sizeof *special)];
	return 100 + b % 12;
}

static const char *name(struct reader *r)
{
	static const char *const names[] = {
		NULL, "", "A", "B", "worker-1", "worker-2", "kworker/0:1", "lttng-consumerd",
		"a-rather-long-thread-name-that-exceeds-the-sixteen-bytes-of-comm",
		"eth0", "lo", "virtio0", "nvme0q1", "100%\"\\\n\t{}",
	};

	return names[u8(r) % (sizeof names / sizeof *names)];
}

static int64_t prev_state(struct reader *r)
{
	static const int64_t states[] = {
		0, 1, 2, 16, 32, 64, 128, 256, 1024, 2048, 0x402, -1, INT64_MAX,
	};

	return states[u8(r) % (sizeof states / sizeof *states)];
}

/* Time moves forward by small steps, sometimes jumps, sometimes goes back
 * (events out of order across streams, clocks that do not correlate).
 * Kept within [0, 2^52] ns (52 days): the analysis sums durations in
 * 64-bit ns (a merged vertex adds its members'), which is only safe for
 * traces shorter than centuries; the decoder refuses timestamps that do
 * not fit in 64-bit ns from the origin. */
#define TS_MAX (1LL << 52)

static int64_t next_ts(struct reader *r, int64_t ts)
{
	uint8_t b = u8(r);
	int64_t step = (int64_t)u16(r);

	switch (b >> 5) {
	case 0:
		break;
	case 1:
		ts -= step * 1000;
		break;
	case 2:
		ts += step * 1000000;
		break;
	case 3:
		ts = b == 0x7f ? TS_MAX : ts + step * 1000000000LL;
		break;
	default:
		ts += step * 100;
		break;
	}
	return ts < 0 ? 0 : ts > TS_MAX ? TS_MAX : ts;
}

static void fill_event(struct reader *r, struct wperf_event *ev)
{
	ev->cpu = (int)(u8(r) % 6) - 1;
	ev->current_tid = u8(r) & 1 ? tid(r) : -1;
	ev->current_pid = u8(r) & 1 ? tid(r) : -1;
	ev->context_flags = (int[]){ WPERF_CTX_UNKNOWN, 0, WPERF_CTX_HARDIRQ,
				     WPERF_CTX_SOFTIRQ }[u8(r) % 4];
	switch (ev->type) {
	case WPERF_EV_SWITCH:
		ev->u.sw.prev_tid = tid(r);
		ev->u.sw.next_tid = tid(r);
		ev->u.sw.prev_state = prev_state(r);
		ev->u.sw.prev_comm = name(r);
		ev->u.sw.next_comm = name(r);
		break;
	case WPERF_EV_WAKEUP:
	case WPERF_EV_WAKEUP_NEW:
		ev->u.wake.tid = tid(r);
		ev->u.wake.comm = name(r);
		ev->u.wake.waking = u8(r) & 1;
		break;
	case WPERF_EV_FORK:
		ev->u.fork.parent_tid = tid(r);
		ev->u.fork.parent_pid = tid(r);
		ev->u.fork.child_tid = tid(r);
		ev->u.fork.child_pid = tid(r);
		ev->u.fork.child_comm = name(r);
		break;
	case WPERF_EV_EXEC:
	case WPERF_EV_EXIT:
	case WPERF_EV_FREE:
		ev->u.task.tid = tid(r);
		ev->u.task.comm = name(r);
		break;
	case WPERF_EV_IRQ_ENTRY:
	case WPERF_EV_IRQ_EXIT:
		ev->u.irq.irq = (int64_t)(int8_t)u8(r);
		ev->u.irq.name = name(r);
		break;
	case WPERF_EV_SOFTIRQ_ENTRY:
	case WPERF_EV_SOFTIRQ_EXIT:
		ev->u.softirq.vec = (int64_t)(int8_t)u8(r) % 14;
		break;
	case WPERF_EV_BLOCK_INSERT:
	case WPERF_EV_BLOCK_ISSUE:
	case WPERF_EV_BLOCK_COMPLETE:
		ev->u.block.dev = (uint64_t)(u8(r) % 3) << 20 | (u8(r) % 2);
		ev->u.block.sector = u8(r) % 8;
		ev->u.block.nr_sector = u8(r) % 4;
		ev->u.block.bytes = u8(r) & 1 ? UINT64_MAX : (uint64_t)u16(r);
		ev->u.block.tid = tid(r);
		break;
	case WPERF_EV_STATEDUMP_PROCESS:
		ev->u.statedump.tid = tid(r);
		ev->u.statedump.pid = tid(r);
		ev->u.statedump.ppid = tid(r);
		ev->u.statedump.name = name(r);
		ev->u.statedump.status = u8(r) % 8;
		break;
	case WPERF_EV_STATEDUMP_BLOCK_DEVICE:
		ev->u.blockdev.dev = (uint64_t)(u8(r) % 3) << 20 | (u8(r) % 2);
		ev->u.blockdev.name = name(r);
		break;
	case WPERF_EV_SPIN_BEGIN:
	case WPERF_EV_SPIN_END:
		ev->u.spin.lock = u8(r) % 3;
		break;
	case WPERF_EV_PROGRESS:
		ev->u.progress.name = name(r);
		break;
	case WPERF_EV_NET_XMIT:
	case WPERF_EV_NET_RECV:
		ev->u.net.dev = name(r);
		ev->u.net.len = u16(r);
		/* fall through: few skbs and keys, so that sends and receives pair */
	case WPERF_EV_TCP_SEND:
	case WPERF_EV_TCP_RECV:
		ev->u.net.skb = u8(r) % 4;
		ev->u.net.has_tcp = u8(r) & 1;
		ev->u.net.seq = u8(r) % 4;
		break;
	default:
		break;
	}
}

/* What sink.wperf.knots does with a finished graph. */
static void report(struct wperf_graph *g, uint8_t opts)
{
	struct wperf_merge_options mo = { (enum wperf_merge_key)(opts % 3), opts & 4 };
	bool *focus = NULL;
	struct wperf_knots k = { 0 };
	struct wperf_classes cl;

	if (mo.key != WPERF_MERGE_NONE || mo.short_lived)
		wperf_graph_merge(g, &mo, NULL);
	if ((opts & 8) && g->n_vertices) {
		focus = calloc(g->n_vertices, sizeof *focus);
		if (focus)
			for (size_t i = 0; i < g->n_vertices; i += 2)
				focus[i] = true;
	}
	struct wperf_knot_options ko = {
		.threshold_ns = (opts & 16) ? 0 : (g->end_ns - g->begin_ns) / 5,
		.min_weight_ns = (opts & 32) ? 1000 : 0,
		.focus = focus,
	};

	if (wperf_knots_find(g, &ko, &k) < 0) {
		free(focus);
		return;
	}
	if (wperf_classes_find(g, &k, ko.min_weight_ns, &cl) == 0) {
		struct wperf_report r = {
			.graph = g, .knots = &k, .classes = &cl, .threshold_ns = ko.threshold_ns,
			.threshold_spec = "20%", .min_weight_ns = ko.min_weight_ns,
			.min_weight_spec = "0", .focus = focus,
		};
		FILE *out = fopen("/dev/null", "w");

		if (out) {
			wperf_report_write_text(&r, out);
			wperf_report_write_json(&r, out);
			fclose(out);
		}
		wperf_classes_fini(&cl);
	}
	wperf_knots_fini(&k);
	free(focus);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct reader r = { data, size };
	struct wperf_analysis *a = wperf_analysis_create();
	struct wperf_graph g;
	int64_t ts = 1000000000;
	uint8_t flags = u8(&r);

	if (!a)
		return 0;
	if (flags & 1)
		wperf_analysis_expect_false_wakeups(a);
	if (flags & 2)
		wperf_analysis_set_nic_capacity(a, "eth0", 1000000000);
	while (r.n > 0) {
		uint8_t op = u8(&r);
		struct wperf_event ev;

		memset(&ev, 0, sizeof ev);
		ts = next_ts(&r, ts);
		if (op >= 0xf8) {
			/* A gap: discarded events or packets, with or without times. */
			int64_t b = u8(&r) & 1 ? -1 : ts - (int64_t)u16(&r) * 1000;
			int64_t e = u8(&r) & 1 ? -1 : ts + (int64_t)u16(&r) * 1000;

			wperf_analysis_discarded(a, (int)(u8(&r) % 6) - 1, op & 1, u8(&r) % 3, b, e);
			continue;
		}
		if (op >= 0xf0) {
			wperf_analysis_bound(a, op & 1, ts);
			continue;
		}
		ev.type = (enum wperf_event_type)(op % (WPERF_EV_TYPE_COUNT + 1));
		ev.ts = ts;
		fill_event(&r, &ev);
		wperf_analysis_feed(a, &ev);
	}
	if (wperf_analysis_finish(a, &g) == 0) {
		report(&g, flags >> 2);
		wperf_graph_fini(&g);
	} else if (strchr(wperf_analysis_error(a), '\n')) {
		abort();   /* errors are one line */
	}
	wperf_analysis_destroy(a);
	return 0;
}
