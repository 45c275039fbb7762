/* SPDX-License-Identifier: MIT */
/*
 * report-format.c — formatting helpers of the report writers.
 *
 * All numbers are formatted with integer arithmetic: the report must read
 * the same whatever locale the process hosting the plugin has set.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "report-format.h"
#include "wperf/classify.h"
#include "wperf/report.h"

bool wperf_fmt_focus_start(const struct wperf_report *r, struct wperf_focus_start *out)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_vertex *first = NULL;

	for (size_t i = 0; r->focus && i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];

		if (!r->focus[i] || (v->kind != WPERF_V_THREAD && v->kind != WPERF_V_VIRTUAL) ||
		    v->first_ts < 0)
			continue;
		if (!first || v->first_ts < first->first_ts)
			first = v;
	}
	if (!first)
		return false;
	out->first_ns = first->first_ts;
	out->after_ns = first->first_ts > g->begin_ns ? first->first_ts - g->begin_ns : 0;
	out->forked = first->kind == WPERF_V_THREAD && first->parent_tid > 0;
	/* after > duration / 10, without overflowing */
	out->late = out->after_ns > WPERF_FOCUS_LATE_NS &&
		    out->after_ns > wperf_graph_duration(g) / 10;
	return true;
}

bool wperf_fmt_thread_listed(const struct wperf_vertex *v)
{
	return (v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL) && v->first_ts >= 0;
}

size_t wperf_fmt_threads_outside(const struct wperf_graph *g)
{
	size_t n = 0;

	for (size_t i = 0; i < g->n_vertices; i++) {
		const struct wperf_vertex *v = &g->vertices[i];
		n += (v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL) &&
		     !wperf_fmt_thread_listed(v);
	}
	return n;
}

size_t wperf_fmt_u64(char *buf, uint64_t x)
{
	char digits[20];
	size_t n = 0, len = 0;

	do {
		digits[n++] = (char)('0' + x % 10);
		x /= 10;
	} while (x);
	while (n)
		buf[len++] = digits[--n];
	buf[len] = '\0';
	return len;
}

/* Text built in place into buf[len], cut to len - 1 bytes as snprintf()
 * would: a report writes thousands of durations, shares and labels, and
 * snprintf() cost ten times this. */
struct fmt_out {
	char *buf;
	size_t len, n;
};

static struct fmt_out fo_init(char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	return (struct fmt_out){ buf, len, 0 };
}

static void fo_mem(struct fmt_out *t, const char *s, size_t n)
{
	size_t room = t->len > t->n + 1 ? t->len - 1 - t->n : 0;

	if (n > room)
		n = room;
	if (!n)
		return;
	memcpy(t->buf + t->n, s, n);
	t->n += n;
	t->buf[t->n] = '\0';
}

static void fo_str(struct fmt_out *t, const char *s)
{
	fo_mem(t, s, strlen(s));
}

static void fo_u64(struct fmt_out *t, uint64_t x)
{
	char d[24];

	fo_mem(t, d, wperf_fmt_u64(d, x));
}

static void fo_i64(struct fmt_out *t, int64_t x)
{
	if (x < 0)
		fo_mem(t, "-", 1);
	fo_u64(t, x < 0 ? (uint64_t)(-(x + 1)) + 1 : (uint64_t)x);
}

/* x's last `digits` decimal digits, zeros in front. */
static void fo_digits(struct fmt_out *t, uint64_t x, int digits)
{
	char d[20];

	for (int i = digits - 1; i >= 0; i--, x /= 10)
		d[i] = (char)('0' + x % 10);
	fo_mem(t, d, (size_t)digits);
}

void wperf_fmt_ppm_fraction(char *buf, size_t len, uint64_t ppm)
{
	struct fmt_out t = fo_init(buf, len);

	fo_u64(&t, ppm / 1000000);
	fo_mem(&t, ".", 1);
	fo_digits(&t, ppm % 1000000, 6);
}

void wperf_fmt_ppm_percent(char *buf, size_t len, uint64_t ppm)
{
	uint64_t tenths = ppm / 1000 + (ppm % 1000 >= 500);  /* of a percent */
	struct fmt_out t = fo_init(buf, len);

	fo_u64(&t, tenths / 10);
	fo_mem(&t, ".", 1);
	fo_digits(&t, tenths % 10, 1);
	fo_mem(&t, "%", 1);
}

int64_t wperf_fmt_cascaded(int64_t weight, int64_t own)
{
	if (weight <= 0)
		return 0;
	if (own <= 0)
		return weight;
	return weight > own ? weight - own : 0;
}

enum wperf_fmt_sink_kind wperf_fmt_sink_kind(const struct wperf_graph *g,
					     const struct wperf_knot *k)
{
	const struct wperf_vertex *v;

	if (k->kind != WPERF_SINK || k->n_members != 1 || k->members[0] >= g->n_vertices)
		return WPERF_SINK_OTHER;
	v = &g->vertices[k->members[0]];
	switch (v->kind) {
	case WPERF_V_DISK:
		return WPERF_SINK_DISK;
	case WPERF_V_NIC:
		return WPERF_SINK_NIC;
	case WPERF_V_IRQ:
	case WPERF_V_SOFTIRQ:
		return WPERF_SINK_INTERRUPT;
	case WPERF_V_THREAD:
	case WPERF_V_VIRTUAL:
		break;
	default:
		return WPERF_SINK_OTHER;
	}
	switch (wperf_sink_limit(g, k, NULL)) {
	case WPERF_LIMIT_TIMER:
		return WPERF_SINK_TIMER;
	case WPERF_LIMIT_UNSEEN:
		return WPERF_SINK_UNSEEN;
	case WPERF_LIMIT_WORK:
		break;
	}
	/* On a CPU or wanting one at least half of its time: its work. */
	if (wperf_ppm(wperf_add_durations(v->running_ns, v->runnable_ns),
			  wperf_time_seen(v)) >= 500000)
		return WPERF_SINK_THREAD_WORK;
	return WPERF_SINK_THREAD_WAITING;
}

const char *wperf_fmt_sink_kind_name(enum wperf_fmt_sink_kind kind)
{
	static const char *const names[] = {
		"thread_work", "thread_waiting", "timer", "unseen", "disk", "nic",
		"interrupt", "other"
	};

	return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "other";
}

void wperf_fmt_sink_kind_words(char *buf, size_t len, const struct wperf_graph *g,
			       const struct wperf_knot *k)
{
	const struct wperf_vertex *v = k->n_members == 1 && k->members[0] < g->n_vertices
				       ? &g->vertices[k->members[0]] : NULL;
	char run[32], rq[32], seen[32], busy[32], dur[32];

	if (!v) {
		snprintf(buf, len, "Its limit is its own work.");
		return;
	}
	wperf_fmt_duration(run, sizeof run, v->running_ns > 0 ? v->running_ns : 0, 0);
	wperf_fmt_duration(rq, sizeof rq, v->runnable_ns > 0 ? v->runnable_ns : 0, 0);
	wperf_fmt_duration(seen, sizeof seen, wperf_time_seen(v), 0);
	wperf_fmt_duration(busy, sizeof busy, v->busy_ns > 0 ? v->busy_ns : 0, 0);
	wperf_fmt_duration(dur, sizeof dur, wperf_graph_duration(g), 0);
	switch (wperf_fmt_sink_kind(g, k)) {
	case WPERF_SINK_THREAD_WORK:
		snprintf(buf, len, "A thread bounded by its own work: of its %s it ran %s and "
			 "waited for a CPU %s. Faster code (profile it on-CPU: perf record -g), or "
			 "its work spread over more threads or CPUs, helps; shorter waits "
			 "elsewhere do not.", seen, run, rq);
		return;
	case WPERF_SINK_THREAD_WAITING: {
		/* Where its waiting went: none of it alone made it a timer or
		 * unseen sink, and its waits on others are no dependency. */
		char timer[32], unseen[32], others[32];
		int64_t rest = 0;

		for (int kind = 0; kind < WPERF_V_KIND_COUNT; kind++)
			if (kind != WPERF_V_TIMER && kind != WPERF_V_UNKNOWN)
				rest = wperf_add_durations(rest, v->waiting_ns[kind]);
		wperf_fmt_duration(timer, sizeof timer, v->waiting_ns[WPERF_V_TIMER] > 0 ?
				   v->waiting_ns[WPERF_V_TIMER] : 0, 0);
		wperf_fmt_duration(unseen, sizeof unseen, v->waiting_ns[WPERF_V_UNKNOWN] > 0 ?
				   v->waiting_ns[WPERF_V_UNKNOWN] : 0, 0);
		wperf_fmt_duration(others, sizeof others, rest, 0);
		snprintf(buf, len, "A thread that waited most of its %s itself (it ran %s, "
			 "runnable %s): %s on timers, %s on what the trace does not show, %s on "
			 "threads and devices, each too light to be a dependency (below the "
			 "noise floor, min-weight), a wait for work or one on the tracer. Its row "
			 "under Threads splits them.", seen, run, rq, timer, unseen, others);
		return;
	}
	case WPERF_SINK_TIMER:
		snprintf(buf, len, "A shorter sleep, timeout or polling interval, or not "
			 "waiting for it, is what helps.");
		return;
	case WPERF_SINK_UNSEEN:
		snprintf(buf, len, "What it waited for is outside the trace: a trace with "
			 "interrupt and timer events, or a longer one, shows it.");
		return;
	case WPERF_SINK_DISK: {
		char pct[32];
		int64_t share = wperf_ppm(v->busy_ns, wperf_graph_duration(g));

		wperf_fmt_ppm_percent(pct, sizeof pct, share);
		if (share >= WPERF_FMT_DEVICE_LIMIT_PPM)
			snprintf(buf, len, "A disk, busy %s (%s) of the %s analysed: its service "
				 "time is the limit. Fewer, larger or cached requests, or a faster "
				 "device, help.", busy, pct, dur);
		else
			snprintf(buf, len, "A disk, busy %s (%s) of the %s analysed: idle most of "
				 "the time, so not its capacity but each request's latency holds the "
				 "threads up. Fewer synchronous requests (batched writes, fewer "
				 "fsyncs), or requests issued without waiting, help.", busy, pct, dur);
		return;
	}
	case WPERF_SINK_NIC:
		snprintf(buf, len, "A network interface: the link (or the peer) paces the "
			 "threads. Sending less, batching, or a faster link helps; with "
			 "nic-capacity given, its busy time says how full the link was.");
		return;
	case WPERF_SINK_INTERRUPT:
		snprintf(buf, len, "An interrupt: the threads were woken from its handler, so "
			 "they wait for the device or event behind it (a packet, a finished "
			 "request, a timer); look at that device, not at the handler.");
		return;
	case WPERF_SINK_OTHER:
		break;
	}
	snprintf(buf, len, "Its limit is its own work.");
}

void wperf_fmt_weight_split(char *buf, size_t len, int64_t weight, int64_t own,
			    int64_t waiters_ns, const char *whose)
{
	char o[32], c[32], pct[32];

	wperf_fmt_duration(o, sizeof o, own > 0 ? own : 0, 0);
	wperf_fmt_duration(c, sizeof c, wperf_fmt_cascaded(weight, own), 0);
	if (waiters_ns <= 0) {  /* the trace accounted no time to them */
		snprintf(buf, len, "own %s + cascaded %s", o, c);
		return;
	}
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(own, waiters_ns));
	snprintf(buf, len, "own %s (%s of %s time) + cascaded %s", o, pct, whose, c);
}

/* x / unit with `decimals` (2, 1 or 0) digits after the point: "sign
 * q.dd sep name", q holding the decimals. */
static void fmt_scaled(char *buf, size_t len, const char *sign, uint64_t q, int decimals,
		       const char *sep, const char *name)
{
	struct fmt_out t = fo_init(buf, len);
	uint64_t scale = decimals == 2 ? 100 : decimals == 1 ? 10 : 1;

	fo_str(&t, sign);
	fo_u64(&t, q / scale);
	if (decimals) {
		fo_mem(&t, ".", 1);
		fo_digits(&t, q % scale, decimals);
	}
	fo_str(&t, sep);
	fo_str(&t, name);
}

/* Format x (>= unit) with 3 significant digits in `unit`, or return 0 when
 * rounding carries it into the next unit (999.6 us is "1.00 ms"). The last
 * unit takes everything. */
static int fmt_in_unit(char *buf, size_t len, const char *sign, uint64_t x,
		       uint64_t unit, const char *name, const char *sep, int last)
{
	uint64_t q;

	if (x < 10 * unit) {
		q = (x * 100 + unit / 2) / unit;
		if (q < 1000) {
			fmt_scaled(buf, len, sign, q, 2, sep, name);
			return 1;
		}
	}
	if (x < 100 * unit) {
		q = (x * 10 + unit / 2) / unit;
		if (q < 1000) {
			fmt_scaled(buf, len, sign, q, 1, sep, name);
			return 1;
		}
	}
	q = x / unit + (x % unit >= unit / 2);
	if (q < 1000 || last) {
		fmt_scaled(buf, len, sign, q, 0, sep, name);
		return 1;
	}
	return 0;
}

void wperf_fmt_duration(char *buf, size_t len, int64_t ns, int compact)
{
	static const uint64_t units[] = { 1000ULL, 1000000ULL, 1000000000ULL };
	static const char *const names[] = { "us", "ms", "s" };
	const char *sep = compact ? "" : " ";
	const char *sign = ns < 0 ? "-" : "";
	uint64_t x = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	if (compact && x == 0) {
		struct fmt_out t = fo_init(buf, len);

		fo_mem(&t, "-", 1);
		return;
	}
	if (x < 1000) {
		fmt_scaled(buf, len, sign, x, 0, sep, "ns");
		return;
	}
	for (int i = 0; i < 3; i++)
		if ((x < units[i] * 1000 || i == 2) &&
		    fmt_in_unit(buf, len, sign, x, units[i], names[i], sep, i == 2))
			return;
}

/* 2001-09-09: no clock counting from boot gets there. */
#define EPOCH_LOOKING_NS 1000000000000000000LL

void wperf_fmt_rate(char *buf, size_t len, uint64_t count, int64_t duration_ns)
{
	unsigned long long milli = 0;

	if (duration_ns > 0)
		milli = (unsigned long long)((long double)count * 1e12L / (long double)duration_ns + 0.5L);
	snprintf(buf, len, "%llu.%03llu", milli / 1000, milli % 1000);
}

void wperf_fmt_timestamp(char *buf, size_t len, int64_t ns)
{
	if (ns >= EPOCH_LOOKING_NS) {
		time_t secs = (time_t)(ns / 1000000000LL);
		struct tm tm;
		char date[32];

		if (gmtime_r(&secs, &tm) && strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", &tm)) {
			snprintf(buf, len, "%s.%09lld UTC", date, (long long)(ns % 1000000000LL));
			return;
		}
	}
	const char *sign = ns < 0 ? "-" : "";
	uint64_t x = ns < 0 ? (uint64_t)(-(ns + 1)) + 1 : (uint64_t)ns;

	snprintf(buf, len, "%s%llu.%09llu s", sign,
		 (unsigned long long)(x / 1000000000ULL),
		 (unsigned long long)(x % 1000000000ULL));
}

static int is_cont(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

size_t wperf_fmt_utf8_length(const unsigned char *s)
{
	unsigned char c = s[0];

	if (c < 0x80)
		return 1;
	if (c >= 0xC2 && c <= 0xDF)
		return is_cont(s[1]) ? 2 : 0;
	if (c >= 0xE0 && c <= 0xEF) {
		unsigned char lo = c == 0xE0 ? 0xA0 : 0x80;
		unsigned char hi = c == 0xED ? 0x9F : 0xBF;
		if (s[1] < lo || s[1] > hi || !is_cont(s[2]))
			return 0;
		return 3;
	}
	if (c >= 0xF0 && c <= 0xF4) {
		unsigned char lo = c == 0xF0 ? 0x90 : 0x80;
		unsigned char hi = c == 0xF4 ? 0x8F : 0xBF;
		if (s[1] < lo || s[1] > hi || !is_cont(s[2]) || !is_cont(s[3]))
			return 0;
		return 4;
	}
	return 0;
}

/* Replace control characters, which could move a terminal's cursor, and
 * bytes that are not UTF-8, which would print as garbage of unknown width. */
static void sanitize(char *s)
{
	unsigned char *p = (unsigned char *)s;

	while (*p) {
		size_t n = wperf_fmt_utf8_length(p);
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f))) {
			*p++ = '?';
			continue;
		}
		p += n;
	}
}

/* wperf/report.h. */
void wperf_text_clean(char *buf, size_t len, const char *s)
{
	size_t n = 0, k;

	if (len == 0)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p; p += k) {
		k = wperf_fmt_utf8_length(p);
		if (k == 0)
			k = 1;  /* not UTF-8: one '?' a byte, as sanitize() */
		if (n + k >= len)
			break;
		memmove(buf + n, p, k);     /* buf may be s */
		n += k;
	}
	buf[n] = '\0';
	sanitize(buf);
}

void wperf_fmt_vertex_label(char *buf, size_t len, const struct wperf_graph *g,
			    uint32_t id)
{
	if (len == 0)
		return;
	if (id >= g->n_vertices) {
		snprintf(buf, len, "vertex %lu", (unsigned long)id);
		return;
	}
	const struct wperf_vertex *v = &g->vertices[id];
	const char *name = v->name ? v->name : "?";
	const char *host = wperf_vertex_host_name(g, v);

	/* Several hosts: each vertex says where it lives, "nginx (812)@web1". */
	struct fmt_out t = fo_init(buf, len);

	if (v->kind == WPERF_V_THREAD) {
		fo_str(&t, v->comm ? v->comm : name);
		fo_mem(&t, " (", 2);
		fo_i64(&t, wperf_local_id(v->tid));
		fo_mem(&t, ")", 1);
	} else {
		fo_str(&t, name);
	}
	if (host) {
		fo_mem(&t, "@", 1);
		fo_str(&t, host);
	}
	sanitize(buf);
}

void wperf_fmt_median_range(char *buf, size_t len, const uint64_t hist[WPERF_HIST_BUCKETS])
{
	char lo[32], hi[32];
	int64_t l, h;

	if (!wperf_hist_median_range(hist, &l, &h)) {
		snprintf(buf, len, "-");
		return;
	}
	wperf_fmt_duration(lo, sizeof lo, l, 1);
	wperf_fmt_duration(hi, sizeof hi, h, 1);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

void wperf_fmt_bucket_range(char *buf, size_t len, int bucket)
{
	char lo[32], hi[32];

	if (bucket < 0 || bucket >= WPERF_HIST_BUCKETS) {
		snprintf(buf, len, "-");
		return;
	}
	wperf_fmt_duration(lo, sizeof lo, (int64_t)1 << bucket, 1);
	wperf_fmt_duration(hi, sizeof hi, (int64_t)1 << (bucket + 1), 1);
	snprintf(buf, len, "[%s, %s)", lo, hi);
}

/* Characters, not bytes: UTF-8 continuation bytes do not take a column. */
size_t wperf_fmt_display_width(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			n++;
	return n;
}

/* Byte length of the first `chars` characters of s. */
static size_t prefix_bytes(const char *s, size_t chars)
{
	size_t i = 0;
	while (s[i]) {
		if (((unsigned char)s[i] & 0xC0) != 0x80) {
			if (chars == 0)
				break;
			chars--;
		}
		i++;
	}
	return i;
}

void wperf_fmt_vertex_label_fit(char *buf, size_t len, const struct wperf_graph *g,
				uint32_t id, size_t width)
{
	char full[256];
	const char *suffix;

	wperf_fmt_vertex_label(buf, len, g, id);
	if (wperf_fmt_display_width(buf) <= width || id >= g->n_vertices ||
	    g->vertices[id].kind != WPERF_V_THREAD)
		return;
	/* "comm (tid)": the tid is what tells threads apart, keep it whole. */
	snprintf(full, sizeof full, "%s", buf);
	suffix = strrchr(full, '(');
	if (!suffix || suffix == full)
		return;
	suffix--;                       /* the space before "(" */
	size_t suffix_width = wperf_fmt_display_width(suffix);
	if (width < suffix_width + 4)
		return;
	size_t keep = prefix_bytes(full, width - suffix_width - 3);
	snprintf(buf, len, "%.*s...%s", (int)keep, full, suffix);
}

void wperf_fmt_finding_name(char *buf, size_t len, const struct wperf_graph *g,
			    const struct wperf_knot *k)
{
	char name[256];

	name[0] = '\0';
	if (k->n_members && k->members[0] < g->n_vertices)
		wperf_fmt_vertex_label_fit(name, sizeof name, g, k->members[0], 32);
	if (k->n_members > 1)
		snprintf(buf, len, "%s +%zu", name, k->n_members - 1);
	else
		snprintf(buf, len, "%s", name);
}

void wperf_fmt_cell(FILE *out, const char *text, size_t width, int right_align)
{
	size_t w = wperf_fmt_display_width(text);

	if (w > width) {
		size_t keep = width > 3 ? width - 3 : 0;
		fprintf(out, "%.*s%.*s", (int)prefix_bytes(text, keep), text,
			(int)(width - keep), "...");
		return;
	}
	if (right_align)
		fprintf(out, "%*s%s", (int)(width - w), "", text);
	else
		fprintf(out, "%s%*s", text, (int)(width - w), "");
}

int wperf_fmt_finish(FILE *out, bool failed)
{
	if (failed || fflush(out) != 0 || ferror(out)) {
		if (errno == 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

size_t wperf_fmt_count_kind(const struct wperf_knots *ks, enum wperf_knot_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; ks && i < ks->n; i++)
		n += ks->items[i].kind == kind;
	return n;
}

void wperf_fmt_knot_title(char *buf, size_t len, const struct wperf_knots *ks, size_t i)
{
	size_t number = 0;
	enum wperf_knot_kind kind = ks->items[i].kind;

	/* Knots and background knots share one count, as in the text report. */
	for (size_t j = 0; j <= i; j++)
		number += (ks->items[j].kind == WPERF_SINK) == (kind == WPERF_SINK);
	snprintf(buf, len, "%s %zu", kind == WPERF_SINK ? "Sink" :
		 kind == WPERF_BACKGROUND ? "Background knot" : "Knot", number);
}

static long *minus_ones(size_t n)
{
	long *a = malloc((n ? n : 1) * sizeof *a);

	for (size_t i = 0; a && i < n; i++)
		a[i] = -1;
	return a;
}

static void map_knot(struct wperf_fmt_knot_map *m, const struct wperf_graph *g,
		     const struct wperf_knot *k, long index)
{
	for (size_t j = 0; j < k->n_members; j++)
		if (k->members[j] < g->n_vertices && m->vertex_knot[k->members[j]] < 0)
			m->vertex_knot[k->members[j]] = index;
	for (size_t j = 0; j < k->n_edges; j++)
		if (k->edges[j] < g->n_edges && m->edge_knot[k->edges[j]] < 0)
			m->edge_knot[k->edges[j]] = index;
	for (size_t j = 0; j < k->n_removed; j++) {
		size_t e = k->removed[j].edge;
		if (e < g->n_edges && m->edge_cut[e] < 0) {
			m->edge_cut[e] = index;
			m->edge_cut_rank[e] = (long)j + 1;
		}
	}
}

int wperf_fmt_knot_map_init(struct wperf_fmt_knot_map *m, const struct wperf_graph *g,
			    const struct wperf_knots *ks)
{
	m->vertex_knot = minus_ones(g->n_vertices);
	m->edge_knot = minus_ones(g->n_edges);
	m->edge_cut = minus_ones(g->n_edges);
	m->edge_cut_rank = minus_ones(g->n_edges);
	if (!m->vertex_knot || !m->edge_knot || !m->edge_cut || !m->edge_cut_rank) {
		wperf_fmt_knot_map_fini(m);
		return -1;
	}
	/* A vertex is in one knot at most (terminal components are disjoint);
	 * should two claim it, the first in report order keeps it. */
	for (size_t i = 0; ks && i < ks->n; i++)
		map_knot(m, g, &ks->items[i], (long)i);
	return 0;
}

void wperf_fmt_knot_map_fini(struct wperf_fmt_knot_map *m)
{
	free(m->vertex_knot);
	free(m->edge_knot);
	free(m->edge_cut);
	free(m->edge_cut_rank);
	memset(m, 0, sizeof *m);
}

static const char replacement[] = "\xef\xbf\xbd";   /* U+FFFD */

/* Length of the character at p that XML 1.0 accepts as is, or 0. */
static size_t xml_char_length(const unsigned char *p)
{
	size_t n = wperf_fmt_utf8_length(p);

	if (n == 1 && (*p < 0x20 || *p == 0x7f))
		return 0;
	if (n == 3 && p[0] == 0xef && p[1] == 0xbf && (p[2] == 0xbe || p[2] == 0xbf))
		return 0;       /* U+FFFE, U+FFFF */
	return n;
}

char *wperf_fmt_utf8_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	/* Each byte becomes at most 3 (U+FFFD). */
	char *out = malloc(strlen((const char *)p) * 3 + 1), *o = out;

	if (!out)
		return NULL;
	while (*p) {
		size_t n = xml_char_length(p);
		if (n == 0) {
			memcpy(o, replacement, 3);
			o += 3;
			p++;
			continue;
		}
		memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return out;
}

void wperf_fmt_xml_escaped(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (p && *p) {
		size_t n = xml_char_length(p);
		if (n == 0) {
			fputs(replacement, out);
			p++;
			continue;
		}
		switch (*p) {
		case '&':  fputs("&amp;", out); break;
		case '<':  fputs("&lt;", out); break;
		case '>':  fputs("&gt;", out); break;
		case '"':  fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default:   fwrite(p, 1, n, out);
		}
		p += n;
	}
}

/* Mark start and what it waits on, transitively, over dependencies; a
 * device's own edges are not followed (wperf_fmt_focus_reach). */
static void mark_reachable(const struct wperf_report *r, bool *marked, uint32_t start,
			   uint32_t *stack)
{
	const struct wperf_graph *g = r->graph;
	size_t top = 0;

	if (marked[start])
		return;
	marked[start] = true;
	stack[top++] = start;
	while (top > 0) {
		uint32_t v = stack[--top];

		if (wperf_vertex_kind_is_device(g->vertices[v].kind))
			continue;
		for (size_t i = wperf_graph_first_edge_from(g, v);
		     i < g->n_edges && g->edges[i].from == v; i++) {
			const struct wperf_edge *e = &g->edges[i];

			if (e->to >= g->n_vertices || marked[e->to] ||
			    !wperf_edge_is_dependency(g, e, r->min_weight_ns))
				continue;
			marked[e->to] = true;
			stack[top++] = e->to;
		}
	}
}

bool *wperf_fmt_focus_reach(const struct wperf_report *r, bool *oom)
{
	const struct wperf_graph *g = r->graph;
	size_t n = g->n_vertices ? g->n_vertices : 1;
	bool *reach;
	uint32_t *stack;

	*oom = false;
	if (!r->focus)
		return NULL;
	reach = calloc(n, sizeof *reach);
	stack = malloc(n * sizeof *stack);   /* each vertex is pushed once */
	if (!reach || !stack) {
		free(reach);
		free(stack);
		*oom = true;
		return NULL;
	}
	for (size_t v = 0; v < g->n_vertices; v++)
		if (r->focus[v])
			mark_reachable(r, reach, (uint32_t)v, stack);
	for (size_t i = 0; r->knots && i < r->knots->n; i++)
		for (size_t j = 0; j < r->knots->items[i].n_members; j++)
			if (r->knots->items[i].members[j] < g->n_vertices)
				reach[r->knots->items[i].members[j]] = true;
	free(stack);
	return reach;
}
