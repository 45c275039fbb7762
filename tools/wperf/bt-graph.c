/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-graph.c — babeltrace2 graphs in-process (bt-graph.h):
 * `babeltrace2 INPUT... -c SINK` (wperf_bt_run) and `babeltrace2 -c SOURCE
 * -c SINK` (wperf_bt_run_source; without the muxer when the source is
 * wperf's own, which merges its CPUs in time order itself).
 *
 * The graph is the one babeltrace2(1)'s `convert` command builds for
 * `babeltrace2 INPUT... -c SINK`, so that a report is the same either way:
 *
 *  - source discovery as the CLI's (src/autodisc/autodisc.c in
 *    babeltrace2 2.0): each input, and each directory under it not
 *    claimed yet, is offered to source.ctf.fs (the only source component
 *    class of babeltrace2's own plugins that answers for a directory)
 *    with the `babeltrace.support-info` query; a directory it claims is
 *    not searched further. Traces with the same `group` (a trace UUID)
 *    make one source.ctf.fs with several `inputs`; a trace found under an
 *    input gets `trace-name`, its path below that input;
 *  - the components named as the CLI names them (auto-disc-source-ctf-fs,
 *    auto-disc-source-ctf-fs-0, ..., muxer, and the sink by its class),
 *    logging at WARNING, the CLI's default, with the CTF metadata decoder
 *    at WARNING too (it reads BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL);
 *  - every source output port connected, in order, to a new input port
 *    of filter.utils.muxer, whose output goes to the sink; one difference:
 *    when reading traces, each port goes through its own
 *    filter.wperf.repair (repair-0, repair-1, ...) on its way to the
 *    muxer, so the traces of old LTTng tracers whose packet ends overlap
 *    the next packet (which the muxer refuses) are read too. It forwards
 *    everything else unchanged: the report is the CLI's report.
 *
 * With wperf_bt_handle_sigint_as_end(), a filter of wperf's own (bt-end.c)
 * sits before the sink of a wperf_bt_run_source() graph: SIGINT ends the
 * sink's input there, for sources that never end by themselves.
 *
 * What the components write on standard error while the graph is built
 * and runs is kept in a memory file (file descriptor 2 points there):
 * babeltrace2 2.0's CTF metadata decoder says why it cannot read a
 * metadata file only in its log, not in the error's causes, so the caller
 * needs that text to say it in one line.
 */
#include "bt-graph.h"
#include "bt-end.h"
#include "wperf.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#define MODULE "wperf"
#define CAUSE(...) BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_UNKNOWN(MODULE, __VA_ARGS__)

/* The CLI's default log level, for the library and the components. */
#define LOG_LEVEL BT_LOGGING_LEVEL_WARNING

/* ------------------------------------------------------------ signals */

static bt_interrupter *interrupter;     /* of every graph and query */
static volatile sig_atomic_t interrupted;
static int real_stderr = STDERR_FILENO; /* while fd 2 is captured: the saved one */
static char timeout_message[4096];

static void on_sigint(int sig)
{
	(void)sig;
	wperf_bt_interrupt();
}

static void on_timeout(int sig)
{
	(void)sig;
	/* Only async-signal-safe calls: write(2) and _exit(2). */
	ssize_t unused = write(real_stderr, timeout_message, strlen(timeout_message));

	(void)unused;
	_exit(1);
}

void wperf_bt_interrupt(void)
{
	interrupted = 1;
	if (interrupter)
		bt_interrupter_set(interrupter);
}

static void handle_by_interrupting(int sig)
{
	struct sigaction sa = { .sa_handler = on_sigint, .sa_flags = SA_RESETHAND };

	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void wperf_bt_handle_sigint(void)
{
	handle_by_interrupting(SIGINT);
}

/* Put the end filter before the sink (wperf_bt_handle_sigint_as_end). */
static bool end_filter;
static volatile sig_atomic_t sigints;

static void on_sigint_as_end(int sig)
{
	(void)sig;
	if (sigints++ == 0)
		wperf_bt_end_input();
	else
		wperf_bt_interrupt();
}

void wperf_bt_handle_sigint_as_end(void)
{
	struct sigaction sa = { .sa_handler = on_sigint_as_end };

	end_filter = true;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
}

void wperf_bt_handle_sigterm(void)
{
	handle_by_interrupting(SIGTERM);
}

void wperf_bt_set_timeout(double timeout, const char *message)
{
	struct sigaction sa = { .sa_handler = on_timeout };
	struct itimerval it = { 0 };

	if (timeout <= 0) {     /* disarm */
		setitimer(ITIMER_REAL, &it, NULL);
		return;
	}
	FILE *m = fmemopen(timeout_message, sizeof(timeout_message) - 1, "w");

	/* Escaped as wperf_fail() writes: the message names the trace. */
	memset(timeout_message, 0, sizeof(timeout_message));
	if (m) {
		fputs("wperf: error: ", m);
		wperf_put_escaped(m, message);
		fputc('\n', m);
		fclose(m);
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	it.it_value.tv_sec = (time_t)timeout;
	it.it_value.tv_usec = (suseconds_t)((timeout - (double)(time_t)timeout) * 1e6);
	if (!it.it_value.tv_sec && !it.it_value.tv_usec)
		it.it_value.tv_usec = 1;
	setitimer(ITIMER_REAL, &it, NULL);
}

/* ------------------------------------------------------------ standard error */

struct capture {
	int memfd;
};

/* Point file descriptor 2 at a memory file. */
static void capture_begin(struct capture *c)
{
	fflush(stderr);
	c->memfd = memfd_create("wperf-babeltrace2-log", MFD_CLOEXEC);
	if (c->memfd < 0)
		return;     /* then it goes where it went */
	real_stderr = dup(STDERR_FILENO);
	if (real_stderr < 0 || dup2(c->memfd, STDERR_FILENO) < 0) {
		close(c->memfd);
		c->memfd = -1;
		real_stderr = STDERR_FILENO;
	}
}

/* Restore file descriptor 2; what was written, NUL-terminated (malloc'ed). */
static char *capture_end(struct capture *c, size_t *len)
{
	struct stat st;
	char *text;
	ssize_t got = 0;

	fflush(stderr);
	*len = 0;
	if (c->memfd < 0)
		return strdup("");
	dup2(real_stderr, STDERR_FILENO);
	close(real_stderr);
	real_stderr = STDERR_FILENO;
	if (fstat(c->memfd, &st) != 0 || !(text = malloc((size_t)st.st_size + 1))) {
		close(c->memfd);
		return strdup("");
	}
	if (st.st_size > 0)
		got = pread(c->memfd, text, (size_t)st.st_size, 0);
	close(c->memfd);
	*len = got > 0 ? (size_t)got : 0;
	text[*len] = '\0';
	return text;
}

/* ------------------------------------------------------------ plugins */

/* The plugin named `name` in the file `path`, or NULL. */
static const bt_plugin *plugin_from_file(const char *path, const char *name)
{
	const bt_plugin_set *set = NULL;
	const bt_plugin *found = NULL;

	if (bt_plugin_find_all_from_file(path, BT_FALSE, &set) != BT_PLUGIN_FIND_ALL_FROM_FILE_STATUS_OK)
		return NULL;
	for (uint64_t i = 0; i < bt_plugin_set_get_plugin_count(set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);

		if (!strcmp(bt_plugin_get_name(p), name)) {
			found = p;
			bt_plugin_get_ref(found);
			break;
		}
	}
	bt_plugin_set_put_ref(set);
	return found;
}

/* babeltrace2's own ctf and utils plugins: from $BABELTRACE_PLUGIN_PATH,
 * the user's and the system's plugin directories, as the CLI looks, the
 * first of each name found. One search: each bt_plugin_find() loads
 * every plugin of those directories to pick one. */
static void system_plugins(const bt_plugin **ctf, const bt_plugin **utils)
{
	const bt_plugin_set *set = NULL;

	*ctf = *utils = NULL;
	if (bt_plugin_find_all(BT_TRUE, BT_TRUE, BT_TRUE, BT_TRUE, BT_FALSE, &set) !=
	    BT_PLUGIN_FIND_ALL_STATUS_OK)
		return;
	for (uint64_t i = 0; i < bt_plugin_set_get_plugin_count(set); i++) {
		const bt_plugin *p = bt_plugin_set_borrow_plugin_by_index_const(set, i);
		const bt_plugin **want = !strcmp(bt_plugin_get_name(p), "ctf") ? ctf
			: !strcmp(bt_plugin_get_name(p), "utils") ? utils : NULL;

		if (want && !*want) {
			*want = p;
			bt_plugin_get_ref(p);
		}
	}
	bt_plugin_set_put_ref(set);
}

int wperf_bt_load(struct wperf_bt *bt, const char *plugin_dir, char *why, size_t whylen)
{
	struct capture c;
	char path[4096];

	memset(bt, 0, sizeof(*bt));
	/* As the CLI sets them (babeltrace2-log-level.c), unless the user did. */
	setenv("BABELTRACE_PLUGIN_CTF_METADATA_LOG_LEVEL", "W", 0);
	setenv("BABELTRACE_PYTHON_BT2_LOG_LEVEL", "W", 0);
	if (!getenv("LIBBABELTRACE2_INIT_LOG_LEVEL"))
		bt_logging_set_global_level(LOG_LEVEL);
	if (!interrupter && !(interrupter = bt_interrupter_create())) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	capture_begin(&c);
	snprintf(path, sizeof(path), "%s/babeltrace-plugin-wperf.so", plugin_dir);
	bt->wperf = plugin_from_file(path, "wperf");
	system_plugins(&bt->ctf, &bt->utils);
	bt_current_thread_clear_error();
	bt->log = capture_end(&c, &bt->loglen);
	if (!bt->wperf)
		snprintf(why, whylen, "cannot load %s (babeltrace2 says: %s)", path,
			 bt->loglen ? "see --verbose" : "nothing");
	else if (!bt->ctf || !bt->utils)
		snprintf(why, whylen, "babeltrace2's %s plugin is missing: install babeltrace2 "
			 "(apt-get install babeltrace2)", bt->ctf ? "utils" : "ctf");
	else
		return 0;
	wperf_bt_unload(bt);
	return -1;
}

void wperf_bt_unload(struct wperf_bt *bt)
{
	bt_plugin_put_ref(bt->wperf);
	bt_plugin_put_ref(bt->ctf);
	bt_plugin_put_ref(bt->utils);
	free(bt->log);
	memset(bt, 0, sizeof(*bt));
}

/* ------------------------------------------------------------ source discovery */

/* One source.ctf.fs to create: the traces of one group. */
struct source {
	char *group;            /* NULL: a group of its own */
	bt_value *inputs;       /* array of strings */
	const char *origin;     /* the input it was found under (first one) */
	size_t norigins;        /* how many inputs contributed */
};

struct discovery {
	const bt_component_class *fs;
	struct source *sources;
	size_t n, cap;
	const char *origin;     /* the input being searched */
};

/* Add a claimed trace directory to its group (a new one if needed). */
static int add_trace(struct discovery *d, const char *path, const char *group)
{
	struct source *s = NULL;

	for (size_t i = 0; group && i < d->n; i++)
		if (d->sources[i].group && !strcmp(d->sources[i].group, group))
			s = &d->sources[i];
	if (!s) {
		if (d->n == d->cap) {
			size_t cap = d->cap ? d->cap * 2 : 8;
			struct source *bigger = realloc(d->sources, cap * sizeof(*bigger));

			if (!bigger)
				return -1;
			d->sources = bigger;
			d->cap = cap;
		}
		s = &d->sources[d->n++];
		memset(s, 0, sizeof(*s));
		s->group = group ? strdup(group) : NULL;
		s->inputs = bt_value_array_create();
		s->origin = d->origin;
		s->norigins = 1;
		if (!s->inputs || (group && !s->group))
			return -1;
	} else if (s->origin != d->origin) {
		s->norigins++;
	}
	return bt_value_array_append_string_element(s->inputs, path) ? -1 : 0;
}

/* Ask source.ctf.fs whether path (a directory) is a trace: 1 claimed, 0
 * not, -1 error (a cause appended). */
static int support_info(struct discovery *d, const char *path)
{
	bt_value *params = bt_value_map_create();
	const bt_value *result = NULL;
	bt_query_executor *q = NULL;
	double weight = 0;
	const char *group = NULL;
	int rc = -1;

	if (!params || bt_value_map_insert_string_entry(params, "input", path) ||
	    bt_value_map_insert_string_entry(params, "type", "directory") ||
	    !(q = bt_query_executor_create(d->fs, "babeltrace.support-info", params))) {
		CAUSE("Out of memory.");
		goto end;
	}
	bt_query_executor_set_logging_level(q, LOG_LEVEL);
	bt_query_executor_add_interrupter(q, interrupter);
	switch (bt_query_executor_query(q, &result)) {
	case BT_QUERY_EXECUTOR_QUERY_STATUS_OK:
		break;
	case BT_QUERY_EXECUTOR_QUERY_STATUS_ERROR:
	case BT_QUERY_EXECUTOR_QUERY_STATUS_MEMORY_ERROR:
		CAUSE("babeltrace.support-info query failed.");
		goto end;
	default:
		rc = 0;
		goto end;
	}
	if (bt_value_is_real(result)) {
		weight = bt_value_real_get(result);
	} else if (bt_value_is_signed_integer(result)) {
		weight = (double)bt_value_integer_signed_get(result);
	} else if (bt_value_is_map(result)) {
		const bt_value *w = bt_value_map_borrow_entry_value_const(result, "weight");
		const bt_value *g = bt_value_map_borrow_entry_value_const(result, "group");

		if (w && bt_value_is_real(w))
			weight = bt_value_real_get(w);
		else if (w && bt_value_is_signed_integer(w))
			weight = (double)bt_value_integer_signed_get(w);
		if (g && bt_value_is_string(g))
			group = bt_value_string_get(g);
	}
	rc = 0;
	if (weight > 0 && weight <= 1) {
		rc = add_trace(d, path, group) ? -1 : 1;
		if (rc < 0)
			CAUSE("Out of memory.");
	}
end:
	bt_value_put_ref(result);
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	return rc;
}

/* A path and what is under it, in directory order: 1 some trace found,
 * 0 none, -1 error. */
static int discover(struct discovery *d, const char *path)
{
	struct stat st;
	struct dirent *e;
	DIR *dir;
	int rc, found = 0;

	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return 0;   /* files: source.ctf.fs claims directories only */
	if (interrupted)
		return 0;
	if ((rc = support_info(d, path)) != 0)
		return rc;
	if (!(dir = opendir(path))) {
		if (errno == EACCES)
			return 0;
		CAUSE("Failed to open directory %s: %s", path, strerror(errno));
		return -1;
	}
	while ((e = readdir(dir))) {
		char *child;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (asprintf(&child, "%s/%s", path, e->d_name) < 0) {
			closedir(dir);
			CAUSE("Out of memory.");
			return -1;
		}
		rc = discover(d, child);
		free(child);
		if (rc < 0) {
			closedir(dir);
			return -1;
		}
		found |= rc;
	}
	closedir(dir);
	return found;
}

static void discovery_fini(struct discovery *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->sources[i].group);
		bt_value_put_ref(d->sources[i].inputs);
	}
	free(d->sources);
}

/* ------------------------------------------------------------ the graph */

/* A component name not used yet: prefix, then prefix-0, prefix-1, ... */
static void unique_name(char *name, size_t len, const char *prefix, size_t index)
{
	if (index == 0)
		snprintf(name, len, "%s", prefix);
	else
		snprintf(name, len, "%s-%zu", prefix, index - 1);
}

/* wperf_bt_set_clock_offsets(): per input, ns added to its clocks. */
static struct {
	const char *const *inputs;
	const int64_t *ns;
	size_t n;
} clock_offsets;

void wperf_bt_set_clock_offsets(const char *const *inputs, const int64_t *ns, size_t n)
{
	clock_offsets.inputs = inputs;
	clock_offsets.ns = ns;
	clock_offsets.n = n;
}

static void (*before_finalize)(void);

void wperf_bt_set_before_finalize(void (*fn)(void))
{
	before_finalize = fn;
}

/* The clock offset given for the input s was found under, or 0. */
static int64_t source_clock_offset(const struct source *s)
{
	for (size_t i = 0; i < clock_offsets.n; i++)
		if (s->norigins == 1 && clock_offsets.inputs[i] == s->origin)
			return clock_offsets.ns[i];
	return 0;
}

/* The params of one source.ctf.fs: inputs, and trace-name when it holds
 * one trace found below the input it was given (the CLI's rule); the
 * clock offset given for its input. */
static bt_value *source_params(const struct source *s)
{
	bt_value *params = bt_value_map_create();
	int64_t offset = source_clock_offset(s);

	if (!params)
		return NULL;
	if (offset && bt_value_map_insert_signed_integer_entry(params, "clock-class-offset-ns",
								offset))
		goto error;
	if (bt_value_array_get_length(s->inputs) == 1 && s->norigins == 1) {
		const char *input = bt_value_string_get(
			bt_value_array_borrow_element_by_index_const(s->inputs, 0));
		const char *rel = input + strlen(s->origin);

		while (*rel == '/')
			rel++;
		if (*rel && bt_value_map_insert_string_entry(params, "trace-name", rel))
			goto error;
	}
	if (bt_value_map_insert_entry(params, "inputs", s->inputs))
		goto error;
	return params;
error:
	bt_value_put_ref(params);
	return NULL;
}

/* The first input port of the muxer not connected yet, or NULL. */
static const bt_port_input *free_muxer_port(const bt_component_filter *muxer)
{
	for (uint64_t j = 0; j < bt_component_filter_get_input_port_count(muxer); j++) {
		const bt_port_input *p = bt_component_filter_borrow_input_port_by_index_const(muxer, j);

		if (!bt_port_is_connected(bt_port_input_as_port_const(p)))
			return p;
	}
	return NULL;
}

/* out -> a new filter.wperf.repair named repair-INDEX; its output port,
 * or NULL. */
static const bt_port_output *through_repair(bt_graph *g, const bt_component_class_filter *cls,
					    const bt_port_output *out, uint64_t index)
{
	const bt_component_filter *rep = NULL;
	char name[64];

	snprintf(name, sizeof(name), "repair-%" PRIu64, index);
	if (bt_graph_add_filter_component(g, cls, name, NULL, LOG_LEVEL, &rep) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		CAUSE("Cannot create component: filter.wperf.repair");
		return NULL;
	}
	if (bt_graph_connect_ports(g, out, bt_component_filter_borrow_input_port_by_index_const(rep, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		CAUSE("Cannot connect a source port to filter.wperf.repair.");
		return NULL;
	}
	return bt_component_filter_borrow_output_port_by_index_const(rep, 0);
}

/* Connect every output port of src to a new input port of the muxer,
 * each through its own filter.wperf.repair when repair is given
 * (*nrepairs counts them across the graph's sources). */
static int connect_to_muxer(bt_graph *g, const bt_component_source *src,
			    const bt_component_filter *muxer, const char *what,
			    const bt_component_class_filter *repair, uint64_t *nrepairs)
{
	for (uint64_t i = 0; i < bt_component_source_get_output_port_count(src); i++) {
		const bt_port_output *out = bt_component_source_borrow_output_port_by_index_const(src, i);
		const bt_port_input *in = free_muxer_port(muxer);

		if (repair && !(out = through_repair(g, repair, out, (*nrepairs)++)))
			return -1;
		if (!in || bt_graph_connect_ports(g, out, in, NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
			CAUSE("Cannot connect a port of %s to filter.utils.muxer.", what);
			return -1;
		}
	}
	return 0;
}

/* Run a built graph to its end, an error, or an interruption. */
static enum wperf_run_status run_graph(bt_graph *g)
{
	for (;;) {
		bt_graph_run_status rs = bt_graph_run(g);

		if (interrupted)
			return WPERF_RUN_INTERRUPTED;
		if (rs == BT_GRAPH_RUN_STATUS_OK)
			return WPERF_RUN_OK;
		if (rs != BT_GRAPH_RUN_STATUS_AGAIN)
			return WPERF_RUN_FAILED;
		usleep(100000);     /* the CLI's retry delay */
	}
}

/* Build and run the graph; the run status. */
static enum wperf_run_status build_and_run(const struct wperf_bt *bt, struct discovery *d,
					   const bt_plugin *plugin, const char *sink_class,
					   const bt_value *params)
{
	const bt_component_class_filter *muxer_cls =
		bt_plugin_borrow_filter_component_class_by_name_const(bt->utils, "muxer");
	const bt_component_class_sink *sink_cls =
		bt_plugin_borrow_sink_component_class_by_name_const(plugin, sink_class);
	const bt_component_class_source *fs_cls =
		bt_plugin_borrow_source_component_class_by_name_const(bt->ctf, "fs");
	const bt_component_class_filter *repair_cls =
		bt_plugin_borrow_filter_component_class_by_name_const(bt->wperf, "repair");
	uint64_t nrepairs = 0;
	const bt_component_source **sources = NULL;
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sink = NULL;
	enum wperf_run_status status = WPERF_RUN_FAILED;
	bt_graph *g = bt_graph_create(0);
	char name[256];

	if (!g || !muxer_cls || !sink_cls || !fs_cls || !repair_cls) {
		CAUSE("Cannot create the graph (%s).", !g ? "out of memory" :
		      !muxer_cls ? "no filter.utils.muxer" :
		      !repair_cls ? "no filter.wperf.repair" :
		      !sink_cls ? "no such sink" : "no source.ctf.fs");
		goto end;
	}
	bt_graph_add_interrupter(g, interrupter);
	/* Created in the CLI's order: sources, filter, sink. */
	if (!(sources = calloc(d->n ? d->n : 1, sizeof(*sources)))) {
		CAUSE("Out of memory.");
		goto end;
	}
	for (size_t i = 0; i < d->n; i++) {
		bt_value *sp = source_params(&d->sources[i]);

		unique_name(name, sizeof(name), "auto-disc-source-ctf-fs", i);
		int rc = sp ? (int)bt_graph_add_source_component(g, fs_cls, name, sp, LOG_LEVEL,
								 &sources[i]) : -1;

		bt_value_put_ref(sp);
		if (rc != BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
			CAUSE("Cannot create component: plugin-name=\"ctf\", comp-cls-name=\"fs\", "
			      "comp-name=\"%s\"", name);
			goto end;
		}
	}
	if (bt_graph_add_filter_component(g, muxer_cls, "muxer", NULL, LOG_LEVEL, &muxer) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		CAUSE("Cannot create component: filter.utils.muxer");
		goto end;
	}
	snprintf(name, sizeof(name), "sink.%s.%s", bt_plugin_get_name(plugin), sink_class);
	if (bt_graph_add_sink_component(g, sink_cls, name, params, LOG_LEVEL, &sink) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK) {
		CAUSE("Cannot create component: %s", name);
		goto end;
	}
	for (size_t i = 0; i < d->n; i++)
		if (connect_to_muxer(g, sources[i], muxer, "source.ctf.fs", repair_cls, &nrepairs))
			goto end;
	if (bt_graph_connect_ports(g, bt_component_filter_borrow_output_port_by_index_const(muxer, 0),
				   bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		CAUSE("Cannot connect filter.utils.muxer to %s.", name);
		goto end;
	}
	status = run_graph(g);
end:
	free(sources);
	bt_graph_put_ref(g);
	return status;
}

enum wperf_run_status wperf_bt_run(const struct wperf_bt *bt, const char *const *inputs,
				   size_t ninputs, const bt_plugin *plugin,
				   const char *sink_class, const bt_value *params,
				   struct wperf_run *run)
{
	struct discovery d = {
		.fs = bt_component_class_source_as_component_class_const(
			bt_plugin_borrow_source_component_class_by_name_const(bt->ctf, "fs")),
	};
	struct capture c;
	int found = 0;

	memset(run, 0, sizeof(*run));
	bt_current_thread_clear_error();
	capture_begin(&c);
	for (size_t i = 0; i < ninputs && found >= 0; i++) {
		int rc;

		d.origin = inputs[i];
		rc = discover(&d, inputs[i]);
		found = rc < 0 ? -1 : found | rc;
	}
	if (interrupted)
		run->status = WPERF_RUN_INTERRUPTED;
	else if (found < 0)
		run->status = WPERF_RUN_FAILED;
	else if (!found || !d.n)
		run->status = WPERF_RUN_NO_TRACE;
	else
		run->status = build_and_run(bt, &d, plugin, sink_class, params);
	run->log = capture_end(&c, &run->loglen);
	if (run->status == WPERF_RUN_NO_TRACE) {
		for (size_t i = 0; i < ninputs; i++)
			CAUSE("No trace was found based on input `%s`.", inputs[i]);
		CAUSE("No source component.");
	}
	if (run->status != WPERF_RUN_OK)
		run->error = bt_current_thread_take_error();
	bt_current_thread_clear_error();
	discovery_fini(&d);
	return run->status;
}

void wperf_run_fini(struct wperf_run *run)
{
	if (run->error)
		bt_error_release(run->error);
	free(run->log);
	memset(run, 0, sizeof(*run));
}

/* ------------------------------------------------------------ source -> sink */

/* Add the component `type`.`plugin`.`cls` named as the CLI names an
 * unnamed one (its full class name); NULL after appending a cause. */
static const void *add_component(bt_graph *g, char type, const bt_plugin *plugin,
				 const char *cls, const bt_value *params, uint64_t index)
{
	const char *kind = type == 's' ? "source" : "sink";
	const void *comp = NULL;
	char name[256];
	int rc = -1;

	/* The second and later sources of one class: "...-2" (a graph's
	 * component names are unique). */
	snprintf(name, sizeof(name), "%s.%s.%s", kind, bt_plugin_get_name(plugin), cls);
	if (index)
		snprintf(name + strlen(name), sizeof(name) - strlen(name), "-%" PRIu64, index + 1);
	if (type == 's') {
		const bt_component_class_source *c =
			bt_plugin_borrow_source_component_class_by_name_const(plugin, cls);

		if (c)
			rc = (int)bt_graph_add_source_component(g, c, name, params, LOG_LEVEL,
								(const bt_component_source **)&comp);
	} else {
		const bt_component_class_sink *c =
			bt_plugin_borrow_sink_component_class_by_name_const(plugin, cls);

		if (c)
			rc = (int)bt_graph_add_sink_component(g, c, name, params, LOG_LEVEL,
							      (const bt_component_sink **)&comp);
	}
	if (rc == -1)
		CAUSE("No component class %s in plugin `%s`.", name, bt_plugin_get_name(plugin));
	else if (rc != BT_GRAPH_ADD_COMPONENT_STATUS_OK)
		CAUSE("Cannot create component: plugin-name=\"%s\", comp-cls-name=\"%s\", "
		      "comp-name=\"%s\"", bt_plugin_get_name(plugin), cls, name);
	return rc == BT_GRAPH_ADD_COMPONENT_STATUS_OK ? comp : NULL;
}

/* out -> wperf's end filter (bt-end.h): its output port, or NULL after
 * appending a cause. */
static const bt_port_output *through_end_filter(bt_graph *g, const bt_port_output *out)
{
	const bt_component_class_filter *cls = wperf_bt_end_class();
	const bt_component_filter *end = NULL;

	if (!cls || bt_graph_add_filter_component(g, cls, "wperf-end", NULL, LOG_LEVEL, &end) !=
	    BT_GRAPH_ADD_COMPONENT_STATUS_OK ||
	    bt_graph_connect_ports(g, out, bt_component_filter_borrow_input_port_by_index_const(
					   end, 0), NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		CAUSE("Cannot create component: filter.wperf-end (out of memory?)");
		return NULL;
	}
	return bt_component_filter_borrow_output_port_by_index_const(end, 0);
}

/*
 * Build source -> muxer -> sink in g and run it. A wperf source with one
 * output port (source.wperf.tracefs) merges its CPUs in time order itself:
 * it goes straight to the sink, since a muxer would only queue and
 * re-check each message (about 500 instructions per event, an eighth of
 * what `wperf record`'s recorder spends on one).
 */
static enum wperf_run_status build_source_graph(bt_graph *g, const struct wperf_bt *bt,
						const bt_plugin *src_plugin, const char *src_class,
						const bt_value *src_params,
						const bt_plugin *sink_plugin, const char *sink_class,
						const bt_value *sink_params)
{
	const bt_component_class_filter *muxer_cls =
		bt_plugin_borrow_filter_component_class_by_name_const(bt->utils, "muxer");
	const bt_component_source *src[WPERF_BT_SOURCES_MAX];
	const bt_component_filter *muxer = NULL;
	const bt_component_sink *sink;
	const bt_port_output *out;
	/* An array of parameters: one source each (several hosts' live
	 * sessions), all into the muxer. */
	bool several = bt_value_is_array(src_params);
	uint64_t n = several ? bt_value_array_get_length(src_params) : 1;
	char what[256];

	if (n < 1 || n > WPERF_BT_SOURCES_MAX) {
		CAUSE("Between 1 and %d sources can be read at once.", WPERF_BT_SOURCES_MAX);
		return WPERF_RUN_FAILED;
	}
	/* Created in the CLI's order: sources, filter, sink. */
	for (uint64_t i = 0; i < n; i++)
		if (!(src[i] = add_component(g, 's', src_plugin, src_class,
					     several ? bt_value_array_borrow_element_by_index_const(
						     src_params, i) : src_params, i)))
			return WPERF_RUN_FAILED;
	bool straight = !several && src_plugin == bt->wperf &&
			bt_component_source_get_output_port_count(src[0]) == 1;

	if (!straight && (!muxer_cls || bt_graph_add_filter_component(g, muxer_cls, "muxer", NULL,
			LOG_LEVEL, &muxer) != BT_GRAPH_ADD_COMPONENT_STATUS_OK)) {
		CAUSE("Cannot create component: filter.utils.muxer");
		return WPERF_RUN_FAILED;
	}
	if (!(sink = add_component(g, 'k', sink_plugin, sink_class, sink_params, 0)))
		return WPERF_RUN_FAILED;
	snprintf(what, sizeof(what), "source.%s.%s", bt_plugin_get_name(src_plugin), src_class);
	for (uint64_t i = 0; !straight && i < n; i++)
		if (connect_to_muxer(g, src[i], muxer, what, NULL, NULL))
			return WPERF_RUN_FAILED;
	out = straight ? bt_component_source_borrow_output_port_by_index_const(src[0], 0)
		       : bt_component_filter_borrow_output_port_by_index_const(muxer, 0);
	if (end_filter && !(out = through_end_filter(g, out)))
		return WPERF_RUN_FAILED;
	if (bt_graph_connect_ports(g, out, bt_component_sink_borrow_input_port_by_index_const(sink, 0),
				   NULL) != BT_GRAPH_CONNECT_PORTS_STATUS_OK) {
		CAUSE("Cannot connect %s to sink.%s.%s.", straight ? what : "filter.utils.muxer",
		      bt_plugin_get_name(sink_plugin), sink_class);
		return WPERF_RUN_FAILED;
	}
	return run_graph(g);
}

enum wperf_run_status wperf_bt_run_source(const struct wperf_bt *bt,
					  const bt_plugin *source_plugin,
					  const char *source_class,
					  const bt_value *source_params,
					  const bt_plugin *sink_plugin, const char *sink_class,
					  const bt_value *sink_params, bool capture,
					  struct wperf_run *run)
{
	struct capture c = { .memfd = -1 };
	bt_graph *g;

	memset(run, 0, sizeof(*run));
	bt_current_thread_clear_error();
	if (capture)
		capture_begin(&c);
	if (!(g = bt_graph_create(0))) {
		CAUSE("Cannot create the graph (out of memory).");
		run->status = WPERF_RUN_FAILED;
	} else {
		bt_graph_add_interrupter(g, interrupter);
		run->status = build_source_graph(g, bt, source_plugin, source_class,
						 source_params, sink_plugin, sink_class,
						 sink_params);
	}
	/* Destroyed before the log is taken: finalizing writes too. */
	if (before_finalize)
		before_finalize();
	bt_graph_put_ref(g);
	if (capture) {
		run->log = capture_end(&c, &run->loglen);
	} else {
		run->log = strdup("");
		run->loglen = 0;
	}
	if (run->status != WPERF_RUN_OK)
		run->error = bt_current_thread_take_error();
	bt_current_thread_clear_error();
	return run->status;
}
