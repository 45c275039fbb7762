/* SPDX-License-Identifier: MIT */
/*
 * report-graphml.c — the wait-for graph as GraphML, for graph tools
 * (networkx, Gephi, yEd, igraph), written with libxml2's xmlTextWriter so
 * that escaping and well-formedness are libxml2's business.
 *
 * libxml2 is loaded when a GraphML report is asked for, not with the
 * plugin: it brings ICU and the C++ runtime, whose symbol look-ups at
 * load time cost every babeltrace2 run about 5 million instructions
 * (doc/performance.md). Its functions are called through `lx`.
 *
 * Every vertex and edge is written, whatever the focus, with the ids of
 * the JSON report: vertex "v<id>" is `vertices[id]`, edge "e<i>" is
 * `edges[i]`, and `knot` is an index into the JSON `knots` array (-1:
 * none). Attributes are listed in doc/wperf-report.7.md. Strings from the
 * kernel (comm, device names) are cleaned to what XML 1.0 accepts: bytes
 * that are not UTF-8 and control characters become U+FFFD.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "report-format.h"
#include "wperf/report.h"

/* The libxml2 functions this file calls, from the library loaded at
 * first use (load_libxml2). */
static struct {
	bool loaded;
	xmlOutputBufferPtr (*OutputBufferCreateFile)(FILE *, xmlCharEncodingHandlerPtr);
	int (*OutputBufferClose)(xmlOutputBufferPtr);
	xmlTextWriterPtr (*NewTextWriter)(xmlOutputBufferPtr);
	void (*FreeTextWriter)(xmlTextWriterPtr);
	int (*SetIndent)(xmlTextWriterPtr, int);
	int (*StartDocument)(xmlTextWriterPtr, const char *, const char *, const char *);
	int (*EndDocument)(xmlTextWriterPtr);
	int (*StartElement)(xmlTextWriterPtr, const xmlChar *);
	int (*EndElement)(xmlTextWriterPtr);
	int (*WriteAttribute)(xmlTextWriterPtr, const xmlChar *, const xmlChar *);
	int (*WriteString)(xmlTextWriterPtr, const xmlChar *);
	void (*SetGenericErrorFunc)(void *, xmlGenericErrorFunc);
	xmlGenericErrorFunc *(*GenericError)(void);   /* the per-thread handler */
	void **(*GenericErrorContext)(void);
} lx;

/* Every symbol of `lx` from libxml2 (kept loaded); false when it or one
 * of them is missing. */
bool wperf_report_graphml_available(void)
{
	static const char *const names[] = {
		"xmlOutputBufferCreateFile", "xmlOutputBufferClose", "xmlNewTextWriter",
		"xmlFreeTextWriter", "xmlTextWriterSetIndent", "xmlTextWriterStartDocument",
		"xmlTextWriterEndDocument", "xmlTextWriterStartElement",
		"xmlTextWriterEndElement", "xmlTextWriterWriteAttribute",
		"xmlTextWriterWriteString", "xmlSetGenericErrorFunc", "__xmlGenericError",
		"__xmlGenericErrorContext",
	};
	void *slot[sizeof names / sizeof names[0]];
	void *lib;

	if (lx.loaded)
		return true;
	lib = dlopen("libxml2.so.2", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		return false;
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		slot[i] = dlsym(lib, names[i]);
		if (!slot[i])
			return false;
	}
	_Static_assert(sizeof slot == sizeof lx - offsetof(__typeof__(lx), OutputBufferCreateFile),
		       "one name per function of lx");
	memcpy(&lx.OutputBufferCreateFile, slot, sizeof slot);
	lx.loaded = true;
	return true;
}

/* The writer and a sticky error: each step is skipped after a failure,
 * and the caller checks once at the end. */
struct gml {
	xmlTextWriterPtr w;
	int failed;
};

static void check(struct gml *x, int rc)
{
	if (rc < 0)
		x->failed = 1;
}

static void start(struct gml *x, const char *name)
{
	if (!x->failed)
		check(x, lx.StartElement(x->w, BAD_CAST name));
}

static void end(struct gml *x)
{
	if (!x->failed)
		check(x, lx.EndElement(x->w));
}

static void attr(struct gml *x, const char *name, const char *value)
{
	char *clean = wperf_fmt_utf8_clean(value);

	if (!clean)
		x->failed = 1;
	if (!x->failed)
		check(x, lx.WriteAttribute(x->w, BAD_CAST name, BAD_CAST clean));
	free(clean);
}

static void data_str(struct gml *x, const char *key, const char *value)
{
	char *clean = wperf_fmt_utf8_clean(value);

	if (!clean)
		x->failed = 1;
	start(x, "data");
	attr(x, "key", key);
	if (!x->failed)
		check(x, lx.WriteString(x->w, BAD_CAST clean));
	end(x);
	free(clean);
}

static void data_i64(struct gml *x, const char *key, long long value)
{
	char buf[32];

	snprintf(buf, sizeof buf, "%lld", value);
	data_str(x, key, buf);
}

static void data_bool(struct gml *x, const char *key, bool value)
{
	data_str(x, key, value ? "true" : "false");
}

/* The attribute declarations: id, element, name, type. Key ids carry the
 * element's initial so node and edge attributes may share a name. */
static const char *const keys[][4] = {
	{ "g_begin_ns", "graph", "begin_ns", "long" },
	{ "g_end_ns", "graph", "end_ns", "long" },
	{ "g_duration_ns", "graph", "duration_ns", "long" },
	{ "g_threshold_ns", "graph", "threshold_ns", "long" },
	{ "g_min_weight_ns", "graph", "min_weight_ns", "long" },
	{ "v_kind", "node", "kind", "string" },
	{ "v_name", "node", "name", "string" },
	{ "v_label", "node", "label", "string" },
	{ "v_tid", "node", "tid", "long" },
	{ "v_pid", "node", "pid", "long" },
	{ "v_comm", "node", "comm", "string" },
	{ "v_host", "node", "host", "string" },
	{ "v_members", "node", "members", "string" },
	{ "v_running_ns", "node", "running_ns", "long" },
	{ "v_runnable_ns", "node", "runnable_ns", "long" },
	{ "v_waiting_ns", "node", "waiting_ns", "long" },
	{ "v_knot", "node", "knot", "int" },
	{ "v_knot_kind", "node", "knot_kind", "string" },
	{ "v_focus", "node", "focus", "boolean" },
	{ "e_weight", "edge", "weight", "long" },
	{ "e_direct_ns", "edge", "direct_ns", "long" },
	{ "e_count", "edge", "count", "long" },
	{ "e_cascaded_ns", "edge", "cascaded_ns", "long" },
	{ "e_own_share", "edge", "own_share", "double" },
	{ "e_dependency", "edge", "dependency", "boolean" },
	{ "e_knot", "edge", "knot", "int" },
	{ "e_cut_by", "edge", "cut_by", "int" },
	{ "e_cut_rank", "edge", "cut_rank", "int" },
};

static void write_keys(struct gml *x)
{
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		start(x, "key");
		attr(x, "id", keys[i][0]);
		attr(x, "for", keys[i][1]);
		attr(x, "attr.name", keys[i][2]);
		attr(x, "attr.type", keys[i][3]);
		end(x);
	}
}

static void write_graph_data(struct gml *x, const struct wperf_report *r)
{
	data_i64(x, "g_begin_ns", r->graph->begin_ns);
	data_i64(x, "g_end_ns", r->graph->end_ns);
	data_i64(x, "g_duration_ns", wperf_graph_duration(r->graph));
	data_i64(x, "g_threshold_ns", r->threshold_ns);
	data_i64(x, "g_min_weight_ns", r->min_weight_ns);
}

/* A merged vertex's threads, "12 13 14". */
static void write_members(struct gml *x, const struct wperf_vertex *v)
{
	size_t len = v->n_members * 21 + 1, used = 0;
	char *buf = malloc(len);

	if (!buf) {
		x->failed = 1;
		return;
	}
	buf[0] = '\0';
	for (size_t i = 0; i < v->n_members; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%lld", i ? " " : "",
					 (long long)v->members[i]);
	data_str(x, "v_members", buf);
	free(buf);
}

static void write_times(struct gml *x, const struct wperf_vertex *v)
{
	long long waiting = 0;

	for (int k = 0; k < WPERF_V_KIND_COUNT; k++)
		waiting += v->waiting_ns[k];
	data_i64(x, "v_running_ns", v->running_ns);
	data_i64(x, "v_runnable_ns", v->runnable_ns);
	data_i64(x, "v_waiting_ns", waiting);
}

static void write_vertex(struct gml *x, const struct wperf_report *r,
			 const struct wperf_fmt_knot_map *m, size_t id)
{
	const struct wperf_vertex *v = &r->graph->vertices[id];
	char buf[256];
	long knot = m->vertex_knot[id];

	snprintf(buf, sizeof buf, "v%zu", id);
	start(x, "node");
	attr(x, "id", buf);
	data_str(x, "v_kind", wperf_vertex_kind_name(v->kind));
	data_str(x, "v_name", v->name ? v->name : "");
	wperf_fmt_vertex_label(buf, sizeof buf, r->graph, (uint32_t)id);
	data_str(x, "v_label", buf);
	if (v->kind == WPERF_V_THREAD) {
		data_i64(x, "v_tid", wperf_local_id(v->tid));
		data_i64(x, "v_pid", wperf_local_id(v->pid));
		if (v->comm)
			data_str(x, "v_comm", v->comm);
	}
	/* Several hosts: where it lives (its tid and pid are that host's). */
	if (wperf_vertex_host_name(r->graph, v))
		data_str(x, "v_host", wperf_vertex_host_name(r->graph, v));
	if (v->kind == WPERF_V_VIRTUAL && v->n_members)
		write_members(x, v);
	if (v->kind == WPERF_V_THREAD || v->kind == WPERF_V_VIRTUAL)
		write_times(x, v);
	data_i64(x, "v_knot", knot);
	if (knot >= 0)
		data_str(x, "v_knot_kind", wperf_knot_kind_name(r->knots->items[knot].kind));
	data_bool(x, "v_focus", r->focus && r->focus[id]);
	end(x);
}

static void write_edge(struct gml *x, const struct wperf_report *r,
		       const struct wperf_fmt_knot_map *m, size_t i)
{
	const struct wperf_edge *e = &r->graph->edges[i];
	char buf[32];

	start(x, "edge");
	snprintf(buf, sizeof buf, "e%zu", i);
	attr(x, "id", buf);
	snprintf(buf, sizeof buf, "v%lu", (unsigned long)e->from);
	attr(x, "source", buf);
	snprintf(buf, sizeof buf, "v%lu", (unsigned long)e->to);
	attr(x, "target", buf);
	data_i64(x, "e_weight", e->weight_ns);
	data_i64(x, "e_direct_ns", e->direct_ns);
	data_i64(x, "e_count", (long long)e->count);
	/* weight = own (direct) + cascaded, as in the JSON; own_share is of
	 * the waiter's time, at most 1 (doc/wperf-report.7.md, WEIGHTS). */
	data_i64(x, "e_cascaded_ns", wperf_fmt_cascaded(e->weight_ns, e->direct_ns));
	wperf_fmt_ppm_fraction(buf, sizeof buf,
			       wperf_ppm(e->direct_ns, wperf_vertex_time(r->graph, e->from)));
	data_str(x, "e_own_share", buf);
	data_bool(x, "e_dependency", wperf_edge_is_dependency(r->graph, e, r->min_weight_ns));
	data_i64(x, "e_knot", m->edge_knot[i]);
	data_i64(x, "e_cut_by", m->edge_cut[i]);
	data_i64(x, "e_cut_rank", m->edge_cut[i] >= 0 ? m->edge_cut_rank[i] : 0);
	end(x);
}

static void write_document(struct gml *x, const struct wperf_report *r,
			   const struct wperf_fmt_knot_map *m)
{
	if (!x->failed)
		check(x, lx.SetIndent(x->w, 1));
	if (!x->failed)
		check(x, lx.StartDocument(x->w, "1.0", "UTF-8", NULL));
	start(x, "graphml");
	attr(x, "xmlns", "http://graphml.graphdrawing.org/xmlns");
	attr(x, "xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance");
	attr(x, "xsi:schemaLocation", "http://graphml.graphdrawing.org/xmlns "
	     "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd");
	write_keys(x);
	start(x, "graph");
	attr(x, "id", "wperf");
	attr(x, "edgedefault", "directed");
	write_graph_data(x, r);
	for (size_t v = 0; v < r->graph->n_vertices && !x->failed; v++)
		write_vertex(x, r, m, v);
	for (size_t i = 0; i < r->graph->n_edges && !x->failed; i++)
		write_edge(x, r, m, i);
	end(x);         /* graph */
	end(x);         /* graphml */
	if (!x->failed)
		check(x, lx.EndDocument(x->w));
}

/* libxml2 would print its own "I/O error" lines on a full disk; the
 * caller reports the failure in one line from errno instead. */
static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int wperf_report_write_graphml(const struct wperf_report *r, FILE *out)
{
	struct wperf_fmt_knot_map m;
	struct gml x = { NULL, 0 };
	xmlOutputBufferPtr buf;

	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	if (!wperf_report_graphml_available()) {
		errno = ELIBACC;
		return -1;
	}
	if (wperf_fmt_knot_map_init(&m, r->graph, r->knots) < 0)
		return -1;
	/* Closing this buffer flushes it; it does not close `out`. */
	buf = lx.OutputBufferCreateFile(out, NULL);
	x.w = buf ? lx.NewTextWriter(buf) : NULL;
	if (!x.w) {
		if (buf)
			lx.OutputBufferClose(buf);
		wperf_fmt_knot_map_fini(&m);
		errno = ENOMEM;
		return -1;
	}
	/* The handler is per thread in libxml2: put back the caller's. */
	xmlGenericErrorFunc old_handler = *lx.GenericError();
	void *old_ctx = *lx.GenericErrorContext();
	lx.SetGenericErrorFunc(NULL, quiet);
	errno = 0;
	write_document(&x, r, &m);
	lx.FreeTextWriter(x.w);         /* flushes into out, frees buf */
	lx.SetGenericErrorFunc(old_ctx, old_handler);
	wperf_fmt_knot_map_fini(&m);
	return wperf_fmt_finish(out, x.failed);
}
