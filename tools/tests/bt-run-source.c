/* SPDX-License-Identifier: MIT */
/*
 * tools/tests/bt-run-source.c — wperf_bt_run_source() (tools/wperf/bt-graph.c),
 * the in-process `babeltrace2 -c SOURCE -c SINK` that `wperf record` and
 * `wperf top` run, tested on the real tracer: source.wperf.tracefs
 * (duration=1) -> sink.ctf.fs into a temporary directory, read back
 * in-process into sink.wperf.knots; a source that refuses its parameters
 * fails with the component's words among the error's causes; and an
 * interruption stops a recording without a duration.
 *
 * Usage: bt-run-source PLUGIN_DIR. Exit 0 passed, 1 failed, 77 skipped
 * (not root, or no tracefs).
 */
#include "bt-failure.h"
#include "bt-graph.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;

#define CHECK(cond, ...)                                                    \
	do {                                                                \
		if (!(cond)) {                                              \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__);                       \
			fputc('\n', stderr);                                \
			failures++;                                         \
		}                                                           \
	} while (0)

static bt_value *params_of(const char *k1, const char *v1, const char *k2, const char *v2)
{
	bt_value *p = bt_value_map_create();

	if (k1)
		bt_value_map_insert_string_entry(p, k1, v1);
	if (k2)
		bt_value_map_insert_string_entry(p, k2, v2);
	return p;
}

static void why(const struct wperf_run *run, char *out, size_t len)
{
	if (run->status == WPERF_RUN_OK)
		snprintf(out, len, "ok");
	else
		wperf_run_failure(run, out, len);
}

/* source.wperf.tracefs for 1 s into dir/kernel, then read back. */
static void record_and_read_back(const struct wperf_bt *bt, const char *dir)
{
	char kernel[4096], metadata[4200], report[4200], line[4096];
	bt_value *src = bt_value_map_create(), *sink, *knots;
	const char *inputs[1] = { dir };
	struct wperf_run run;
	struct stat st;

	snprintf(kernel, sizeof(kernel), "%.4000s/kernel", dir);
	snprintf(metadata, sizeof(metadata), "%s/metadata", kernel);
	snprintf(report, sizeof(report), "%.4000s/report.json", dir);
	bt_value_map_insert_signed_integer_entry(src, "duration", 1);
	sink = params_of("path", kernel, NULL, NULL);
	bt_value_map_insert_bool_entry(sink, "assume-single-trace", BT_TRUE);
	wperf_bt_run_source(bt, bt->wperf, "tracefs", src, bt->ctf, "fs", sink, true, &run);
	why(&run, line, sizeof(line));
	CHECK(run.status == WPERF_RUN_OK, "tracefs -> ctf.fs: %s", line);
	CHECK(run.log && strlen(run.log) == run.loglen, "the log is a string");
	CHECK(stat(metadata, &st) == 0 && st.st_size > 0, "no %s", metadata);
	wperf_run_fini(&run);

	knots = params_of("format", "json", "path", report);
	wperf_bt_run(bt, inputs, 1, bt->wperf, "knots", knots, &run);
	why(&run, line, sizeof(line));
	CHECK(run.status == WPERF_RUN_OK, "read back: %s", line);
	CHECK(stat(report, &st) == 0 && st.st_size > 2, "no report %s", report);
	wperf_run_fini(&run);
	bt_value_put_ref(knots);
	bt_value_put_ref(sink);
	bt_value_put_ref(src);
}

/* A parameter the source refuses: FAILED, its words among the causes,
 * nothing written. */
static void refused_parameter(const struct wperf_bt *bt, const char *dir)
{
	char kernel[4096], line[4096];
	bt_value *src = params_of("stacks", "sideways", NULL, NULL), *sink;
	struct wperf_run run;
	struct stat st;

	snprintf(kernel, sizeof(kernel), "%s/refused", dir);
	sink = params_of("path", kernel, NULL, NULL);
	wperf_bt_run_source(bt, bt->wperf, "tracefs", src, bt->ctf, "fs", sink, true, &run);
	CHECK(run.status == WPERF_RUN_FAILED, "a bad `stacks` was accepted");
	CHECK(run.error != NULL, "no error causes");
	CHECK(wperf_run_mentions(&run, "stacks"), "the causes do not name `stacks`");
	CHECK(wperf_run_mentions(&run, "source.wperf.tracefs"),
	      "the causes do not name the component as the CLI does");
	why(&run, line, sizeof(line));
	CHECK(!strchr(line, '\n'), "not one line: %s", line);
	CHECK(stat(kernel, &st) != 0, "%s written", kernel);
	wperf_run_fini(&run);
	bt_value_put_ref(sink);
	bt_value_put_ref(src);
}

static void *interrupt_later(void *arg)
{
	(void)arg;
	sleep(2);
	wperf_bt_interrupt();
	return NULL;
}

/* No duration: the interrupter stops it (last: interruptions stick). */
static void interrupted(const struct wperf_bt *bt)
{
	bt_value *none = bt_value_map_create();
	struct wperf_run run;
	pthread_t t;

	pthread_create(&t, NULL, interrupt_later, NULL);
	wperf_bt_run_source(bt, bt->wperf, "tracefs", none, bt->utils, "dummy", none, false,
			    &run);
	pthread_join(t, NULL);
	CHECK(run.status == WPERF_RUN_INTERRUPTED, "status %d, not interrupted", run.status);
	wperf_run_fini(&run);
	bt_value_put_ref(none);
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/wperf-bt-run-source-XXXXXX", why_load[1024], rm[4200];
	struct stat st;
	struct wperf_bt bt;

	if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN_DIR\n", argv[0]);
		return 1;
	}
	if (geteuid() != 0 || stat("/sys/kernel/tracing/trace_pipe", &st) != 0) {
		printf("SKIP: needs root and tracefs at /sys/kernel/tracing\n");
		return 77;
	}
	if (wperf_bt_load(&bt, argv[1], why_load, sizeof(why_load))) {
		fprintf(stderr, "FAIL: %s\n", why_load);
		return 1;
	}
	if (!mkdtemp(dir))
		return 1;
	record_and_read_back(&bt, dir);
	refused_parameter(&bt, dir);
	interrupted(&bt);
	wperf_bt_unload(&bt);
	snprintf(rm, sizeof(rm), "rm -rf '%s'", dir);
	if (system(rm) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	printf("%s\n", failures ? "FAILED" : "passed");
	return failures ? 1 : 0;
}
