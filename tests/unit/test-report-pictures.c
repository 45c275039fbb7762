/* SPDX-License-Identifier: MIT */
/*
 * test-report-pictures.c — the DOT, GraphML and HTML writers on the
 * hand-built cases of report-cases.c, plus a merged vertex with a
 * self-loop: exact key lines (clusters, shapes, solid/dashed by the
 * threshold, widths, what refinement cut), escaping of hostile names, a
 * GraphML that libxml2 parses back with the right attributes, and write
 * errors. (Graphviz, networkx and a real browser read the output of real
 * traces in tests/test_report_formats.py.)
 *
 * `test-report-pictures CASE FORMAT` prints one rendering (dot, graphml,
 * html), to look at.
 */
#include <errno.h>
#include <stdlib.h>

#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "check.h"
#include "graph-builder.h"
#include "report-cases.h"
#include "report/report-format.h"

#define MS 1000000LL

enum fmt { DOT, GRAPHML, HTML };

/* A merged pool "worker-*" whose threads wait on each other (a self-loop)
 * and a thread that waits on the pool: one knot of one vertex. */
static int build_selfloop(struct report_case *c)
{
	memset(c, 0, sizeof *c);
	gb_init(&c->g, 0, 1000 * MS);
	uint32_t pool = gb_vertex(&c->g, WPERF_V_VIRTUAL, "worker-*");
	uint32_t main_thread = gb_thread(&c->g, "main", 1);
	gb_edge(&c->g, pool, pool, 600 * MS)->count = 7;
	gb_edge(&c->g, main_thread, pool, 100 * MS);
	gb_sort(&c->g);
	/* 1.5 s of CPU in 1 s: more than one CPU, so not a background knot. */
	c->g.vertices[pool].running_ns = 1500 * MS;
	struct wperf_knot_options o = { .threshold_ns = 200 * MS };
	if (wperf_knots_find(&c->g, &o, &c->knots) ||
	    wperf_classes_find(&c->g, &c->knots, 0, &c->classes))
		return -1;
	c->r = (struct wperf_report){ .graph = &c->g, .knots = &c->knots,
				      .classes = &c->classes, .threshold_ns = 200 * MS,
				      .threshold_spec = "20%" };
	return 0;
}

static int build(const char *name, struct report_case *c)
{
	if (!strcmp(name, "selfloop"))
		return build_selfloop(c);
	return report_case_build(name, c);
}

static int write_fmt(const struct wperf_report *r, enum fmt f, FILE *out)
{
	static const char svg[] = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n"
				  "<svg id=\"fake-picture\"></svg>\n";

	switch (f) {
	case DOT:     return wperf_report_write_dot(r, out);
	case GRAPHML: return wperf_report_write_graphml(r, out);
	default:      return wperf_report_write_html(r, svg, NULL, NULL, out);
	}
}

/* The whole output for one case as a string (free it), or NULL. */
static char *render(const char *name, enum fmt f)
{
	struct report_case c;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	if (build(name, &c)) {
		report_case_free(&c);
		return NULL;
	}
	out = open_memstream(&text, &len);
	if (out) {
		CHECK_INT(write_fmt(&c.r, f, out), 0);
		fclose(out);
	}
	report_case_free(&c);
	return text;
}

static void check_contains(const char *text, const char *want)
{
	if (!text || !strstr(text, want)) {
		fprintf(stderr, "# output lacks: %s\n", want);
		check_test_failures++;
	}
}

static void check_lacks(const char *text, const char *unwanted)
{
	if (!text || strstr(text, unwanted)) {
		fprintf(stderr, "# output has: %s\n", unwanted);
		check_test_failures++;
	}
}

/* Valid UTF-8 and no control characters but newlines. */
static void check_clean(const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	while (p && *p) {
		size_t n = wperf_fmt_utf8_length(p);
		if (n == 0 || (n == 1 && *p < 0x20 && *p != '\n')) {
			fprintf(stderr, "# bad byte 0x%02x at offset %td\n", *p,
				(const char *)p - text);
			check_test_failures++;
			n = 1;
		}
		p += n;
	}
}

/* ---- DOT ---- */

/* basic: knot {mysqld 101 (v1), jbd2 (v2), disk:vda (v3)}, refinement cut
 * v1 -> v3 (50 ms); sink server (v5); threshold 200 ms; heaviest edge
 * 400 ms; edges to timer (v6) and unknown (v7) are not dependencies. */
static void test_dot_basic(void)
{
	char *t = render("basic", DOT);

	check_contains(t, "digraph wperf {\n");
	check_contains(t, "  subgraph cluster_0 {\n    label=\"Knot 1: 950 ms = own 950 ms + cascaded 0 ns\";\n"
			  "    style=\"rounded,filled\"; color=\"#c62828\"; fillcolor=\"#fdecea\";\n"
			  "    v1 [label=\"mysqld (101)\", shape=ellipse, style=filled, "
			  "fillcolor=\"white\", color=\"#c62828\", tooltip=");
	check_contains(t, "    v3 [label=\"disk:vda\", shape=cylinder,");
	check_contains(t, "  subgraph cluster_1 {\n    label=\"Sink 1: 200 ms = own 150 ms + cascaded 50.0 ms\";\n");
	check_contains(t, "  v11 [label=\"worker-*\", shape=doublecircle,");
	/* At or above the threshold: solid; the heaviest is 5 wide. */
	check_contains(t, "  v2 -> v3 [label=\"400 ms\\nown 400 ms\", style=solid, color=\"#c62828\", "
			  "fontcolor=\"#c62828\", penwidth=5.0, tooltip=\"jbd2/vda1-8 (200) -> "
			  "disk:vda: 400 ms = own 400 ms (80.0% of the waiter's time) + cascaded 0 ns, 80 "
			  "waits\"];\n");
	check_contains(t, "tooltip=\"client (300) -> server (301): 150 ms = own 100 ms (50.0% of the "
			  "waiter's time) + cascaded 50.0 ms, 1000 waits\"");
	check_contains(t, "  v0 -> v1 [label=\"200 ms\\nown 150 ms\", style=solid,");
	/* Below it: dashed; cut by refinement, and said so. */
	check_contains(t, "  v1 -> v3 [label=\"50.0 ms\\nown 50.0 ms\\ncut 1 (Knot 1)\", style=dashed, "
			  "color=\"#1565c0\", fontcolor=\"#1565c0\", penwidth=1.5,");
	check_contains(t, "  v4 -> v5 [label=\"150 ms\\nown 100 ms\", style=dashed, color=\"#37474f\"");
	check_lacks(t, "-> v6 ");      /* timer */
	check_lacks(t, "-> v7 ");      /* unknown */
	check_lacks(t, "  v12 [");     /* idle-0: waits on nothing drawn */
	check_contains(t, "7 of 37 vertices and 7 of 10 edges drawn");
	check_clean(t);
	free(t);
}

static void test_dot_selfloop(void)
{
	char *t = render("selfloop", DOT);

	check_contains(t, "  subgraph cluster_0 {\n    label=\"Knot 1: 600 ms = own 600 ms + cascaded 0 ns\";\n");
	check_contains(t, "    v0 [label=\"worker-*\", shape=doublecircle,");
	check_contains(t, "  v0 -> v0 [label=\"600 ms\\nown 600 ms\", style=solid, color=\"#c62828\"");
	check_contains(t, "  v1 -> v0 [label=\"100 ms\\nown 100 ms\", style=dashed,");
	check_contains(t, "tooltip=\"main (1) -> worker-*: 100 ms = own 100 ms + cascaded 0 ns, 1 wait\"");
	free(t);
}

/* With a focus on client (v4): only what it waits on is drawn. */
static void test_dot_focus(void)
{
	char *t = render("focus", DOT);

	check_contains(t, "  v4 [label=\"client (300)\", shape=ellipse, penwidth=2.5,");
	check_contains(t, "  v4 -> v5 [");
	check_contains(t, ", reachable from the focus");
	check_lacks(t, "mysqld");
	check_lacks(t, "worker-*");
	free(t);
}

static void test_dot_empty(void)
{
	char *t = render("empty", DOT);

	check_contains(t, "0 knots, 0 sinks");
	check_contains(t, "no dependency to draw");
	check_contains(t, "\n}\n");
	free(t);
	t = render("timers-only", DOT);
	check_contains(t, "0 of 2 vertices and 0 of 1 edges drawn");
	check_lacks(t, "->");
	free(t);
}

/* Quotes and backslashes escaped, control characters and bad bytes gone. */
static void test_dot_hostile(void)
{
	char *t = render("strings", DOT);

	/* 9 bad characters: \n \x01 \x7f \xff, the 3 bytes of a surrogate, the 2
	 * of an overlong "/" (split literals: "??-" would be a trigraph). */
	check_contains(t, "v0 [label=\"q\\\"b\\\\n" "?????????" "-\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80 (1)\"");
	check_contains(t, "v1 [label=\"? (2)\"");
	check_clean(t);
	free(t);
}

/* ---- GraphML ---- */

static xmlDocPtr parse(const char *text)
{
	return text ? xmlReadMemory(text, (int)strlen(text), "report.graphml", "UTF-8",
				    XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)
		    : NULL;
}

/* The text of the one node the GraphML XPath expression selects. */
static char *xpath_text(xmlDocPtr doc, const char *expr)
{
	xmlXPathContextPtr ctx = xmlXPathNewContext(doc);
	xmlXPathObjectPtr res;
	char *out = NULL;

	if (!ctx)
		return NULL;
	xmlXPathRegisterNs(ctx, BAD_CAST "g", BAD_CAST "http://graphml.graphdrawing.org/xmlns");
	res = xmlXPathEvalExpression(BAD_CAST expr, ctx);
	if (res && res->nodesetval && res->nodesetval->nodeNr == 1) {
		xmlChar *s = xmlNodeGetContent(res->nodesetval->nodeTab[0]);
		out = s ? strdup((const char *)s) : NULL;
		xmlFree(s);
	}
	xmlXPathFreeObject(res);
	xmlXPathFreeContext(ctx);
	return out;
}

static void check_xpath(xmlDocPtr doc, const char *expr, const char *want)
{
	char *got = xpath_text(doc, expr);

	if (!got || strcmp(got, want) != 0) {
		fprintf(stderr, "# %s is \"%s\", want \"%s\"\n", expr, got ? got : "(none)", want);
		check_test_failures++;
	}
	free(got);
}

static void test_graphml_basic(void)
{
	char *t = render("basic", GRAPHML);
	xmlDocPtr doc = parse(t);

	CHECK(doc != NULL);
	check_contains(t, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	check_contains(t, "<key id=\"v_kind\" for=\"node\" attr.name=\"kind\" attr.type=\"string\"/>");
	check_contains(t, "<key id=\"e_weight\" for=\"edge\" attr.name=\"weight\" attr.type=\"long\"/>");
	check_contains(t, "<graph id=\"wperf\" edgedefault=\"directed\">");
	if (doc) {
		check_xpath(doc, "//g:graph/g:data[@key='g_threshold_ns']", "200000000");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_kind']", "thread");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_tid']", "101");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_comm']", "mysqld");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_knot']", "0");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_knot_kind']", "knot");
		check_xpath(doc, "//g:node[@id='v3']/g:data[@key='v_kind']", "disk");
		check_xpath(doc, "//g:node[@id='v3']/g:data[@key='v_knot']", "0");
		check_xpath(doc, "//g:node[@id='v5']/g:data[@key='v_knot_kind']", "sink");
		check_xpath(doc, "//g:node[@id='v6']/g:data[@key='v_knot']", "-1");
		/* m0 -> m1: 200 ms, 150 direct (of m0's 510 ms), 40 waits; the first edge. */
		check_xpath(doc, "//g:edge[@id='e0']/@source", "v0");
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_weight']", "200000000");
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_direct_ns']", "150000000");
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_count']", "40");
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_cascaded_ns']", "50000000");
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_own_share']", "0.294118"); /* 150 / 510 ms */
		check_xpath(doc, "//g:edge[@id='e0']/g:data[@key='e_knot']", "-1");
		check_xpath(doc, "//g:edge[@source='v2' and @target='v3']/g:data[@key='e_knot']", "0");
		check_xpath(doc, "//g:edge[@source='v1' and @target='v3']/g:data[@key='e_cut_by']", "0");
		check_xpath(doc, "//g:edge[@source='v1' and @target='v3']/g:data[@key='e_cut_rank']", "1");
		check_xpath(doc, "//g:edge[@source='v0' and @target='v6']/g:data[@key='e_dependency']",
			    "false");
	}
	xmlFreeDoc(doc);
	free(t);
}

/* Every vertex and edge is there, whatever the focus. */
static void test_graphml_counts(void)
{
	char *t = render("focus", GRAPHML);
	xmlDocPtr doc = parse(t);
	xmlXPathContextPtr ctx = doc ? xmlXPathNewContext(doc) : NULL;

	CHECK(ctx != NULL);
	if (ctx) {
		xmlXPathRegisterNs(ctx, BAD_CAST "g", BAD_CAST "http://graphml.graphdrawing.org/xmlns");
		xmlXPathObjectPtr n = xmlXPathEvalExpression(BAD_CAST "count(//g:node)", ctx);
		xmlXPathObjectPtr e = xmlXPathEvalExpression(BAD_CAST "count(//g:edge)", ctx);
		CHECK(n && e);
		if (n && e) {
			CHECK_INT(n->floatval, 37);
			CHECK_INT(e->floatval, 10);
		}
		xmlXPathFreeObject(n);
		xmlXPathFreeObject(e);
		xmlXPathFreeContext(ctx);
		check_xpath(doc, "//g:node[@id='v4']/g:data[@key='v_focus']", "true");
		check_xpath(doc, "//g:node[@id='v1']/g:data[@key='v_focus']", "false");
	}
	xmlFreeDoc(doc);
	free(t);
}

/* Bad bytes and control characters become U+FFFD; the XML stays
 * well-formed and says what it should. */
static void test_graphml_hostile(void)
{
	char *t = render("strings", GRAPHML);
	xmlDocPtr doc = parse(t);

	CHECK(doc != NULL);
	check_clean(t);
	if (doc) {
		check_xpath(doc, "//g:node[@id='v0']/g:data[@key='v_comm']",
			    "q\"b\\n\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"
			    "-\xc3\xa9\xe2\x9c\x93\xf0\x9f\x98\x80");
		check_xpath(doc, "//g:node[@id='v2']/g:data[@key='v_name']", "");
	}
	xmlFreeDoc(doc);
	free(t);
}

static void test_graphml_selfloop(void)
{
	char *t = render("selfloop", GRAPHML);
	xmlDocPtr doc = parse(t);

	CHECK(doc != NULL);
	if (doc) {
		check_xpath(doc, "//g:edge[@source='v0' and @target='v0']/g:data[@key='e_knot']", "0");
		check_xpath(doc, "//g:node[@id='v0']/g:data[@key='v_kind']", "virtual");
	}
	xmlFreeDoc(doc);
	free(t);
}

/* ---- HTML ---- */

static void test_html_basic(void)
{
	char *t = render("basic", HTML);

	check_contains(t, "<!DOCTYPE html>\n<html lang=\"en\">\n");
	check_contains(t, "<div class=\"knot knot\" id=\"knot-1\">\n<h3>Knot 1: mysqld (101), "
			  "jbd2/vda1-8 (200), disk:vda</h3>\n");
	/* Weight = own + cascaded; own as a share of the members' time. */
	check_contains(t, "<p>Weight <b>950 ms</b> = own 950 ms (41.3% of the members' time) + "
			  "cascaded 0 ns.</p>");
	check_contains(t, "<p class=\"weights\">Weight = own + cascaded. <b>Own</b> is the waiters' ");
	check_lacks(t, "of the analysed time.</p>");
	check_contains(t, "<p class=\"classification blocking_io\">Looks like blocking I/O: "
			  "threads wait for a device that waits for them</p>");
	check_contains(t, "<li>disk:vda is a member: the threads wait for it ");
	check_contains(t, "<p>Gaps cover ");
	check_contains(t, "<p>Refinement cut 1 edge, lightest first (stopped: simple cycle):</p>\n"
			  "<ol><li>mysqld (101) &rarr; disk:vda: 50.0 ms = own 50.0 ms (6.3% of the "
			  "waiter's time) + cascaded 0 ns, 5 waits<details class=\"edge-more\">");
	check_contains(t, "<div class=\"knot sink\" id=\"knot-2\">\n<h3>Sink 1: server (301)</h3>");
	check_contains(t, "<p>Waited on for <b>200 ms</b> = own 150 ms (55.6% of its waiters' time) "
			  "+ cascaded 50.0 ms; it waits");
	/* What this kind of sink means, and what to do. */
	check_contains(t, "<p class=\"sink-kind timer\">A shorter sleep, timeout or polling "
			  "interval, or not waiting for it, is what helps.</p>");
	/* Each edge with its details a click away (test_html_details). */
	check_contains(t, "<ul><li>client (300) &rarr; server (301): 150 ms = own 100 ms (50.0% of "
			  "the waiter's time) + cascaded 50.0 ms, 1000 waits<details ");
	check_contains(t, "</details></li><li>worker-* &rarr; "
			  "server (301): 50.0 ms = own 50.0 ms (71.4% of the waiter's time) + cascaded "
			  "0 ns, 1 wait<details ");
	check_contains(t, "<tr><td>client (300)</td><td>server (301)</td><td class=\"n\" "
			  "data-v=\"150000000\">150ms</td><td class=\"n\" data-v=\"100000000\">100ms"
			  "</td><td class=\"n\" data-v=\"500000\">50.0%</td><td class=\"n\" "
			  "data-v=\"50000000\">50.0ms</td>");
	/* The picture, without dot's XML declaration and DOCTYPE. */
	check_contains(t, "<figure>\n<svg id=\"fake-picture\"></svg>\n</figure>");
	check_lacks(t, "<?xml");
	check_lacks(t, "<!DOCTYPE svg");
	check_contains(t, "<table class=\"sortable\" id=\"edges-table\">");
	check_contains(t, "<th data-type=\"num\">weight</th>");
	check_contains(t, "<tr><td>jbd2/vda1-8 (200)</td><td>disk:vda</td>"
			  "<td class=\"n\" data-v=\"400000000\">400ms</td>");
	check_contains(t, "<table class=\"sortable\" id=\"threads-table\">");
	check_contains(t, "<tr><td>idle-24 (1024)</td>");       /* every thread */
	check_lacks(t, "http://");     /* self-contained: nothing to fetch */
	check_lacks(t, "https://");
	check_clean(t);
	free(t);
}

/* What leaves a knot, and a heavy group that is not one. */
/* A focused page is about what the focus reaches: its tables leave the
 * rest of the machine out, and one line says how much and how to see it.
 * (Focus on client (v4), which waits on server (v5).) */
static void test_html_focus(void)
{
	char *t = render("focus", HTML);

	check_contains(t, "<p>Every edge whose waiter is the focus or what it waits on: ");
	check_contains(t, "<p class=\"left-out\">8 edges outside what the focus waits on are left "
			  "out; without a focus (pids=, comms=, wperf report --pids) they are "
			  "shown.</p>\n");
	check_contains(t, "<tr><td>client (300)</td><td>server (301)</td>");
	check_contains(t, "<tr><td>server (301)</td><td>timer</td>");
	check_lacks(t, "<tr><td>jbd2/vda1-8 (200)</td><td>disk:vda</td>");
	check_contains(t, "<p class=\"left-out\">29 threads outside what the focus waits on are "
			  "left out;");
	check_contains(t, "<tr><td>client (300)</td><td class=\"n\">300</td>");
	check_lacks(t, "<tr><td>idle-24 (1024)</td>");
	check_clean(t);
	free(t);
	/* Without a focus: everything, and no such line. */
	t = render("basic", HTML);
	check_lacks(t, "left-out");
	free(t);
}

static void test_html_leaving(void)
{
	char *t = render("leaky", HTML);

	check_contains(t, "<p>Leaves the knot: 100 ms = 10.0% of its weight:</p>\n"
			  "<ul><li>writer (1) &rarr; setup (3): 100 ms = own 100 ms (10.0% of the waiter's "
			  "time) + cascaded 0 ns, 1 wait<details ");
	check_lacks(t, "Not knots");
	check_clean(t);
	free(t);
	t = render("leaky-strict", HTML);
	check_contains(t, "<h2 id=\"groups\">Not knots</h2>\n<p>1 heavy group that waits too much "
			  "outside itself (the knot rule: strict).</p>\n<div class=\"knot group\">\n"
			  "<h3>Group: writer (1), flusher (2), disk:vda</h3>\n<p>Weight <b>1.00 s</b> = "
			  "own 1.00 s (33.3% of the members' time) + cascaded 0 ns: not a knot.</p>\n"
			  "<p>Leaves the group: "
			  "100 ms = 10.0% of its weight:</p>\n<ul><li>writer (1) &rarr; setup (3)");
	check_clean(t);
	free(t);
}

static void test_html_no_picture(void)
{
	struct report_case c;
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	CHECK_INT(report_case_build("empty", &c), 0);
	CHECK(out != NULL);
	if (out) {
		CHECK_INT(wperf_report_write_html(&c.r, NULL, NULL, "Graphviz is not installed",
						  out), 0);
		fclose(out);
	}
	check_contains(text, "<p class=\"no-picture\">No picture: Graphviz is not installed.");
	check_contains(text, "<p class=\"nothing\">No knots and no sinks were found");
	report_case_free(&c);
	free(text);
}

static void test_html_hostile(void)
{
	char *t = render("strings", HTML);

	check_contains(t, "<h3>Knot 1: q&quot;b\\n" "?????????" "-\xc3\xa9");
	check_lacks(t, "q\"b");
	check_clean(t);
	free(t);
}

/* The first knot's timeline, from timelines set by hand (as the analysis
 * keeps them, wperf/graph.h): exact spans drawn as they are, a folded
 * thread as its buckets' main states, the range tiled to its end; and an
 * edge's details: its histogram's buckets and its stack's frames. */
static void test_html_timeline_details(void)
{
	struct report_case c;
	char *t = NULL, want[512];
	size_t len = 0;
	FILE *out;

	REQUIRE_INT(report_case_build("basic", &c), 0);
	const struct wperf_knot *k = &c.knots.items[0];
	uint32_t m1 = k->members[0], jbd = k->members[1], disk = k->members[2];
	int64_t b = c.g.begin_ns;
	struct wperf_edge *e = &c.g.edges[k->edges[0]];

	c.g.timelines = calloc(c.g.n_vertices, sizeof *c.g.timelines);
	REQUIRE_INT(c.g.timelines != NULL, 1);
	/* mysqld (101): runs 200 ms, waits 300 ms for jbd2, runnable 100 ms, gone. */
	wperf_timeline_add(&c.g.timelines[m1], WPERF_SPAN_RUNNING, b, b + 200 * MS, UINT32_MAX);
	wperf_timeline_add(&c.g.timelines[m1], WPERF_SPAN_WAITING, b + 200 * MS, b + 500 * MS, jbd);
	wperf_timeline_add(&c.g.timelines[m1], WPERF_SPAN_RUNNABLE, b + 500 * MS, b + 600 * MS,
			   UINT32_MAX);
	/* jbd2: 1000 alternations of 0.3 ms running, 0.7 ms waiting for the disk. */
	for (int i = 0; i < 1000; i++) {
		int64_t at = b + i * MS;

		wperf_timeline_add(&c.g.timelines[jbd], WPERF_SPAN_RUNNING, at, at + 300000,
				   UINT32_MAX);
		wperf_timeline_add(&c.g.timelines[jbd], WPERF_SPAN_WAITING, at + 300000, at + MS,
				   disk);
	}
	CHECK(c.g.timelines[jbd].width_ns > 0);
	/* The edge's waits: 3 of [2^25, 2^26) ns, 1 of [2^27, 2^28); one stack. */
	memset(e->hist, 0, sizeof e->hist);
	e->hist[25] = 3;
	e->hist[27] = 1;
	c.g.stacks = calloc(1, sizeof *c.g.stacks);
	REQUIRE_INT(c.g.stacks != NULL, 1);
	c.g.n_stacks = 1;
	c.g.stacks[0].n = 2;
	c.g.stacks[0].ips = calloc(2, sizeof *c.g.stacks[0].ips);
	c.g.stacks[0].symbols = calloc(2, sizeof *c.g.stacks[0].symbols);
	REQUIRE_INT(c.g.stacks[0].ips && c.g.stacks[0].symbols, 1);
	c.g.stacks[0].ips[0] = 0x1000;
	c.g.stacks[0].ips[1] = 0xabc0;
	c.g.stacks[0].symbols[0] = strdup("schedule+0x10");
	e->stacks[0] = (struct wperf_edge_stack){ .stack = 0, .count = 4, .ns = e->direct_ns };
	e->n_stacks = 1;

	out = open_memstream(&t, &len);
	REQUIRE_INT(out != NULL, 1);
	CHECK_INT(wperf_report_write_html(&c.r, NULL, NULL, "no picture", out), 0);
	fclose(out);
	snprintf(want, sizeof want, "<div class=\"tl-row member\" data-vertex=\"v%u\">"
		 "<div class=\"tl-name\">mysqld (101)</div>", m1);
	check_contains(t, want);
	check_contains(t, "<rect x=\"0.000\" y=\"0\" width=\"200.000\" height=\"10\" "
			  "fill=\"#2e7d32\" data-state=\"running\" data-b=\"0\" "
			  "data-e=\"200000000\" data-ns=\"200000000,0,0\"><title>running, 0 to "
			  "+200 ms (200 ms)</title></rect>");
	snprintf(want, sizeof want, "<rect x=\"200.000\" y=\"0\" width=\"300.000\" "
		 "height=\"10\" fill=\"%s\" data-state=\"waiting\" data-b=\"200000000\" "
		 "data-e=\"500000000\" data-target=\"v%u\" data-ns=\"0,0,300000000\">"
		 "<title>waiting for jbd2/vda1-8 (200), +200 ms to +500 ms (300 ms)</title></rect>",
		 "#c62828", jbd);
	check_contains(t, want);
	check_contains(t, "data-state=\"runnable\" data-b=\"500000000\" data-e=\"600000000\"");
	check_contains(t, "data-state=\"none\" data-b=\"600000000\" data-e=\"1000000000\" "
			  "data-ns=\"0,0,0\"><title>not in the trace, +600 ms to +1.00 s (400 ms)");
	/* jbd2, folded: mostly waiting for the disk (the heaviest target: the
	 * first colour), its time in each state in the title. */
	check_contains(t, "data-state=\"waiting\" data-b=\"0\" ");
	check_contains(t, "<title>mostly waiting for disk:vda, 0 to ");
	check_contains(t, "<li><span class=\"sw\" style=\"background:#1565c0\"></span>waiting "
			  "for disk:vda</li><li><span class=\"sw\" style=\"background:#c62828\">"
			  "</span>waiting for jbd2/vda1-8 (200)</li>");
	/* A device's row says in words, on its bar, why it is grey. */
	check_contains(t, "<div class=\"tl-device\"><span>not a thread: its waiters' rows show "
			  "when it held them up</span><svg class=\"tl-bar\"");
	check_contains(t, "<title>not a thread: its waiters' rows show when it held them up, "
			  "0 to +1.00 s (1.00 s)</title>");
	/* The details of the knot's heaviest edge. */
	check_contains(t, "<details class=\"edge-more\"><summary>wait lengths, call stacks</summary>");
	check_contains(t, "data-bucket=\"25\" data-count=\"3\"");
	check_contains(t, "data-bucket=\"26\" data-count=\"0\"");
	check_contains(t, "data-bucket=\"27\" data-count=\"1\"");
	check_contains(t, "<li>4 waits, 400 ms ");
	check_contains(t, "(100.0% of the wait time), innermost frame first:<ol class=\"frames\">"
			  "<li><code>schedule+0x10</code></li><li><code>0xabc0</code></li></ol></li>");
	check_clean(t);
	free(t);
	report_case_free(&c);
}

/* /dev/full accepts the open and fails every flush with ENOSPC. */
static void test_write_errors(void)
{
	struct report_case c;
	FILE *f = fopen("/dev/full", "w");

	CHECK_INT(report_case_build("basic", &c), 0);
	CHECK(f != NULL);
	for (int i = DOT; f && i <= HTML; i++) {
		clearerr(f);
		errno = 0;
		CHECK_INT(write_fmt(&c.r, (enum fmt)i, f), -1);
		CHECK(errno != 0);
	}
	if (f)
		fclose(f);
	CHECK_INT(wperf_report_write_dot(NULL, stdout), -1);
	CHECK_INT(wperf_report_write_graphml(NULL, stdout), -1);
	CHECK_INT(wperf_report_write_html(NULL, NULL, NULL, NULL, stdout), -1);
	report_case_free(&c);
}

static int dump(const char *name, const char *format)
{
	enum fmt f = !strcmp(format, "dot") ? DOT : !strcmp(format, "graphml") ? GRAPHML : HTML;
	char *t = render(name, f);

	if (!t) {
		fprintf(stderr, "usage: test-report-pictures [CASE dot|graphml|html]\n");
		return 2;
	}
	fputs(t, stdout);
	free(t);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3)
		return dump(argv[1], argv[2]);
	RUN_TEST(test_dot_basic);
	RUN_TEST(test_dot_selfloop);
	RUN_TEST(test_dot_focus);
	RUN_TEST(test_dot_empty);
	RUN_TEST(test_dot_hostile);
	RUN_TEST(test_graphml_basic);
	RUN_TEST(test_graphml_counts);
	RUN_TEST(test_graphml_hostile);
	RUN_TEST(test_graphml_selfloop);
	RUN_TEST(test_html_basic);
	RUN_TEST(test_html_focus);
	RUN_TEST(test_html_no_picture);
	RUN_TEST(test_html_leaving);
	RUN_TEST(test_html_hostile);
	RUN_TEST(test_html_timeline_details);
	RUN_TEST(test_write_errors);
	return check_finish();
}
