/* SPDX-License-Identifier: MIT */
/*
 * test-report-format.c — the formatting helpers of the report writers:
 * durations with 3 significant digits, shares, labels, histogram
 * medians and table cells; and the graph's analysed duration
 * (wperf_graph_duration), which every share is a share of.
 */
#include <stdlib.h>

#include "check.h"
#include "graph-builder.h"
#include "report/report-format.h"

static void check_duration(int64_t ns, const char *want, int compact)
{
	char buf[64];
	wperf_fmt_duration(buf, sizeof buf, ns, compact);
	CHECK_STR(buf, want);
}

static void test_durations(void)
{
	check_duration(0, "0 ns", 0);
	check_duration(0, "-", 1);
	check_duration(999, "999 ns", 0);
	check_duration(1000, "1.00 us", 0);
	check_duration(1234, "1.23 us", 0);
	check_duration(1235, "1.24 us", 0);     /* rounds half up */
	check_duration(9995, "10.0 us", 0);     /* carries into the next digit */
	check_duration(12345, "12.3 us", 0);
	check_duration(123456, "123 us", 0);
	check_duration(999499, "999 us", 0);
	check_duration(999500, "1.00 ms", 0);   /* carries into the next unit */
	check_duration(12345678, "12.3ms", 1);
	check_duration(1000000000, "1.00 s", 0);
	check_duration(3600000000000LL, "3600 s", 0);
	check_duration(-1500, "-1.50 us", 0);
	check_duration(INT64_MIN, "-9223372037 s", 0);
	check_duration(INT64_MAX, "9223372037 s", 0);
}

static void test_shares(void)
{
	char buf[48];

	CHECK_INT(wperf_ppm(1, 2), 500000);
	CHECK_INT(wperf_ppm(3, 0), 0);
	CHECK_INT(wperf_ppm(-3, 10), 0);
	CHECK_INT(wperf_ppm(3, 2), 1500000);        /* cascades exceed 100% */
	wperf_fmt_ppm_fraction(buf, sizeof buf, 1234567);
	CHECK_STR(buf, "1.234567");
	wperf_fmt_ppm_fraction(buf, sizeof buf, 5);
	CHECK_STR(buf, "0.000005");
	wperf_fmt_ppm_percent(buf, sizeof buf, 452000);
	CHECK_STR(buf, "45.2%");
	wperf_fmt_ppm_percent(buf, sizeof buf, 999500);
	CHECK_STR(buf, "100.0%");
	wperf_fmt_rate(buf, sizeof buf, 12335, 3000000000LL);
	CHECK_STR(buf, "4111.667");
	wperf_fmt_rate(buf, sizeof buf, 5, 0);
	CHECK_STR(buf, "0.000");
	wperf_fmt_timestamp(buf, sizeof buf, 12000000345LL);
	CHECK_STR(buf, "12.000000345 s");
	wperf_fmt_timestamp(buf, sizeof buf, 1795313580580908994LL);
	CHECK_STR(buf, "2026-11-22 02:13:00.580908994 UTC");
}

static void test_graph_duration(void)
{
	struct wperf_graph g;
	gb_init(&g, 10, 25);
	CHECK_INT(wperf_graph_duration(&g), 15);
	gb_init(&g, 25, 10);
	CHECK_INT(wperf_graph_duration(&g), 0);
	gb_init(&g, INT64_MIN, INT64_MAX);
	CHECK_INT(wperf_graph_duration(&g), 0);
}

static void test_labels(void)
{
	struct wperf_graph g;
	char buf[64];

	gb_init(&g, 0, 1);
	uint32_t t = gb_thread(&g, "db\tworker", 42);
	uint32_t d = gb_vertex(&g, WPERF_V_DISK, "disk:vda");
	uint32_t n = gb_thread(&g, NULL, 7);
	uint32_t bad = gb_vertex(&g, WPERF_V_NIC, "nic:\xff\xc3\xa9\xe2\x9c");
	wperf_fmt_vertex_label(buf, sizeof buf, &g, t);
	CHECK_STR(buf, "db?worker (42)");
	wperf_fmt_vertex_label(buf, sizeof buf, &g, d);
	CHECK_STR(buf, "disk:vda");
	wperf_fmt_vertex_label(buf, sizeof buf, &g, n);
	CHECK_STR(buf, "? (7)");
	wperf_fmt_vertex_label(buf, sizeof buf, &g, bad);
	CHECK_STR(buf, "nic:?\xc3\xa9??");        /* invalid bytes, truncated sequence */
	wperf_fmt_vertex_label(buf, sizeof buf, &g, 99);
	CHECK_STR(buf, "vertex 99");
	wperf_fmt_vertex_label_fit(buf, sizeof buf, &g, t, 12);
	CHECK_STR(buf, "db?w... (42)");         /* comm cut, tid kept */
	wperf_fmt_vertex_label_fit(buf, sizeof buf, &g, t, 14);
	CHECK_STR(buf, "db?worker (42)");       /* fits: unchanged */
	wperf_fmt_vertex_label_fit(buf, sizeof buf, &g, d, 4);
	CHECK_STR(buf, "disk:vda");             /* not a thread: the cell cuts it */
	gb_free(&g);
}

/* The median of a histogram: the middle wait's bucket for an odd count;
 * for an even count the mean of the two middle waits, whose range is the
 * mean of their buckets' bounds (two waits in different buckets used to
 * give the shorter one's bucket). */
static void check_median(const uint64_t *h, int64_t lo, int64_t hi)
{
	int64_t l = -1, u = -1;

	CHECK(wperf_hist_median_range(h, &l, &u));
	CHECK_INT(l, lo);
	CHECK_INT(u, hi);
}

static void test_histograms(void)
{
	uint64_t h[WPERF_HIST_BUCKETS] = { 0 };
	int64_t lo = 7, hi = 7;
	char buf[64];

	CHECK(!wperf_hist_median_range(h, &lo, &hi));
	CHECK_INT(lo, 7);
	wperf_fmt_median_range(buf, sizeof buf, h);
	CHECK_STR(buf, "-");
	h[10] = 1;
	check_median(h, 1024, 2048);            /* one wait: its bucket */
	h[20] = 1;
	/* Two waits, 2^10 and 2^20 buckets: their mean is in
	 * [(2^10 + 2^20) / 2, 2^10 + 2^20), not the shorter one's bucket. */
	check_median(h, 524800, 1049600);
	wperf_fmt_median_range(buf, sizeof buf, h);
	CHECK_STR(buf, "[525us, 1.05ms)");
	h[10] = 2;                              /* 3 waits: the middle is in 2^10 */
	check_median(h, 1024, 2048);
	h[10] = 1;
	h[30] = 1;                              /* 3 waits, one each: the middle one */
	check_median(h, 1 << 20, 1 << 21);
	h[40] = 1;                              /* 4: the mean of 2^20's and 2^30's */
	check_median(h, ((int64_t)1 << 19) + ((int64_t)1 << 29),
		     ((int64_t)1 << 20) + ((int64_t)1 << 30));
	h[10] = 10;                             /* 13 waits: the 7th is in 2^10 */
	check_median(h, 1024, 2048);
	wperf_fmt_median_range(buf, sizeof buf, h);
	CHECK_STR(buf, "[1.02us, 2.05us)");
	memset(h, 0, sizeof h);
	h[0] = 1;
	h[1] = 1;                               /* 0-1 ns and 2-3 ns: mean in [1, 3) */
	check_median(h, 1, 3);
	h[5] = 2;                               /* both middle waits in 2^5: that bucket */
	h[0] = 0;
	h[1] = 0;
	check_median(h, 32, 64);
	memset(h, 0, sizeof h);
	h[WPERF_HIST_BUCKETS - 1] = UINT64_MAX;  /* saturating counts */
	h[3] = UINT64_MAX;
	check_median(h, 8, 16);
	wperf_fmt_bucket_range(buf, sizeof buf, 10);
	CHECK_STR(buf, "[1.02us, 2.05us)");
	wperf_fmt_bucket_range(buf, sizeof buf, -1);
	CHECK_STR(buf, "-");
}

static void test_cells(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	CHECK(f != NULL);
	if (!f)
		return;
	wperf_fmt_cell(f, "abc", 5, 0);
	fputc('|', f);
	wperf_fmt_cell(f, "abc", 5, 1);
	fputc('|', f);
	wperf_fmt_cell(f, "abcdefgh", 6, 0);
	fputc('|', f);
	wperf_fmt_cell(f, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9", 4, 0); /* 5 x e-acute */
	fputc('|', f);
	fclose(f);
	CHECK_STR(text, "abc  |  abc|abc...|\xc3\xa9...|");
	free(text);
}

int main(void)
{
	RUN_TEST(test_durations);
	RUN_TEST(test_shares);
	RUN_TEST(test_graph_duration);
	RUN_TEST(test_labels);
	RUN_TEST(test_histograms);
	RUN_TEST(test_cells);
	return check_finish();
}
