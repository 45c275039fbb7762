/* SPDX-License-Identifier: MIT */
/*
 * report-html.c — the knot report as one self-contained HTML page.
 *
 * Everything is inline (CSS, the script that sorts the tables, the SVG
 * picture), so the file can be mailed or attached to a bug and opened
 * without network access. The page reads without the script; the script
 * only sorts tables (click a column heading) and, when the address ends in
 * #wperf-selftest, clicks every heading itself and writes whether each
 * column came out sorted into #wperf-selftest (the tests read it from a
 * headless browser).
 *
 * Sections: the first finding's picture (wperf_report_write_first_svg),
 * before any text; the analysed range and the parameters; the findings (each
 * knot, sink and background knot with its members, weight, edges and what
 * refinement cut), the first with its members' timeline in view and the
 * others a click away, every edge listed with its wait-length histogram
 * and call stacks a click away (report-timeline.c); the picture
 * (wperf_report_write_svg) or why there is none; sortable tables of
 * knots, edges and threads (report-html-tables.c); the data quality.
 *
 * #wperf-selftest also opens every <details> (clicking its summary) and
 * writes how many opened and how wide the page is against the window.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gaps.h"
#include "report-format.h"
#include "report-html.h"
#include "wperf/classify.h"
#include "wperf/report.h"

static const char style[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;"
	"margin:1.5em auto;max-width:80em;padding:0 1em;color:#222}\n"
	"h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.6em;border-bottom:1px solid #ccc}\n"
	".meta{color:#555}.knot{border-left:6px solid #c62828;background:#fdecea;"
	"padding:.4em .9em;margin:.8em 0}.knot.sink{border-color:#ef6c00;background:#fff3e0}\n"
	".knot.background{border-color:#757575;background:#f2f2f2}.knot h3{margin:.2em 0}\n"
	".caveats{border-left:6px solid #b71c1c;background:#fff8e1;padding:.4em .5em .4em 2em}"
	".wrong{color:#b71c1c}\n.knot ul{margin:.3em 0}"
	".nothing,.no-picture{font-weight:bold;color:#8a4b00}\n"
	"figure{margin:0;overflow:auto;border:1px solid #ddd;padding:.5em}\n"
	"figure svg{max-width:100%;height:auto}\n"
	/* The first finding's picture, at the top: as wide as the page allows
	 * up to its own size, never wider (a phone shows it whole). */
	"figure.first{border-color:#c62828;max-width:40em}"
	"figure.first figcaption{font-size:13px;color:#444;margin-bottom:.3em}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:13px}\n"
	"th,td{border:1px solid #ddd;padding:.2em .5em;text-align:left;vertical-align:top}\n"
	"td.n{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	"th{background:#f4f4f4;cursor:pointer;user-select:none;white-space:nowrap}\n"
	"th[aria-sort=ascending]::after{content:' \\25B2'}"
	"th[aria-sort=descending]::after{content:' \\25BC'}\n"
	"#wperf-status{color:#777;font-size:12px}\n"
	/* Long names wrap rather than widen the page; wide tables scroll. */
	"li,p,h3{overflow-wrap:anywhere}.scroll{overflow-x:auto;max-width:100%}\n"
	/* The timeline: a name column and a bar that takes the rest. */
	".timeline{margin:.6em 0;background:#fff;padding:.4em;border:1px solid #ddd}\n"
	".tl-row{display:grid;grid-template-columns:minmax(0,11em) minmax(0,1fr);"
	"column-gap:.5em;align-items:center;margin:2px 0}\n"
	".tl-name{font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}\n"
	".tl-bar{display:block;width:100%;height:18px}\n"
	".tl-device{position:relative}.tl-device span{position:absolute;left:.4em;right:.4em;"
	"top:0;font-size:11px;line-height:18px;color:#333;white-space:nowrap;overflow:hidden;"
	"text-overflow:ellipsis;pointer-events:none}\n"
	".tl-ticks{display:flex;justify-content:space-between;font-size:11px;color:#555}\n"
	".tl-legend{list-style:none;padding:0;margin:.4em 0 0;font-size:12px;display:flex;"
	"flex-wrap:wrap;gap:.2em 1em}\n"
	".sw{display:inline-block;width:.9em;height:.9em;margin-right:.3em;"
	"vertical-align:-.1em;border:1px solid #0003}\n"
	".tl-caption,.tl-more{font-size:12px;color:#555;margin:.2em 0}\n"
	"details.edge-more{font-size:13px;margin:.2em 0 .4em}\n"
	"details summary{cursor:pointer;color:#0b57d0}\n"
	".hist{display:block;max-width:100%;height:48px;background:#fafafa}\n"
	".hist rect{fill:#1565c0}.hist-axis{display:flex;justify-content:space-between;"
	"gap:1em;max-width:100%;min-width:12em;font-size:11px;color:#555;margin:0}\n"
	"ol.frames{margin:.2em 0;font-size:12px}\n"
	"@media (max-width:600px){body{padding:0 .5em;margin:.8em auto}"
	".tl-row{grid-template-columns:minmax(0,7em) minmax(0,1fr)}}\n";

/* Sorting: numeric columns (data-type="num") by each cell's data-v, the
 * others by text. The first click on a number sorts heaviest first. */
static const char script[] =
	"(function () {\n"
	"  'use strict';\n"
	"  function key(cell, num) {\n"
	"    var v = cell.getAttribute('data-v');\n"
	"    if (v === null) v = cell.textContent;\n"
	"    return num ? Number(v) : v.toLowerCase();\n"
	"  }\n"
	"  function sortBy(table, col, dir) {\n"
	"    var body = table.tBodies[0], heads = table.tHead.rows[0].cells;\n"
	"    var num = heads[col].getAttribute('data-type') === 'num';\n"
	"    var rows = Array.prototype.slice.call(body.rows);\n"
	"    rows.sort(function (a, b) {\n"
	"      var x = key(a.cells[col], num), y = key(b.cells[col], num);\n"
	"      return (x < y ? -1 : x > y ? 1 : 0) * dir;\n"
	"    });\n"
	"    rows.forEach(function (r) { body.appendChild(r); });\n"
	"    for (var i = 0; i < heads.length; i++) heads[i].removeAttribute('aria-sort');\n"
	"    heads[col].setAttribute('aria-sort', dir > 0 ? 'ascending' : 'descending');\n"
	"  }\n"
	"  function onClick(table, col) {\n"
	"    return function () {\n"
	"      var th = table.tHead.rows[0].cells[col], now = th.getAttribute('aria-sort');\n"
	"      var num = th.getAttribute('data-type') === 'num';\n"
	"      var dir = now ? (now === 'ascending' ? -1 : 1) : (num ? -1 : 1);\n"
	"      sortBy(table, col, dir);\n"
	"    };\n"
	"  }\n"
	"  var tables = document.querySelectorAll('table.sortable');\n"
	"  tables.forEach(function (t) {\n"
	"    var heads = t.tHead.rows[0].cells;\n"
	"    for (var c = 0; c < heads.length; c++)"
	" heads[c].addEventListener('click', onClick(t, c));\n"
	"  });\n"
	"  function sorted(table, col, dir) {\n"
	"    var num = table.tHead.rows[0].cells[col].getAttribute('data-type') === 'num';\n"
	"    var rows = table.tBodies[0].rows;\n"
	"    for (var i = 1; i < rows.length; i++) {\n"
	"      var x = key(rows[i - 1].cells[col], num), y = key(rows[i].cells[col], num);\n"
	"      if ((dir > 0 && x > y) || (dir < 0 && x < y)) return false;\n"
	"    }\n"
	"    return true;\n"
	"  }\n"
	"  function selftest() {\n"
	"    var checked = 0, bad = [];\n"
	"    tables.forEach(function (t) {\n"
	"      var heads = t.tHead.rows[0].cells;\n"
	"      for (var c = 0; c < heads.length; c++) {\n"
	"        heads[c].click();\n"
	"        var first = heads[c].getAttribute('aria-sort') === 'ascending' ? 1 : -1;\n"
	"        if (!sorted(t, c, first)) bad.push(t.id + ':' + c + ':first');\n"
	"        heads[c].click();\n"
	"        if (!sorted(t, c, -first)) bad.push(t.id + ':' + c + ':second');\n"
	"        checked++;\n"
	"      }\n"
	"    });\n"
	"    var out = document.getElementById('wperf-selftest');\n"
	"    out.textContent = bad.length ? 'selftest FAILED: ' + bad.join(' ')\n"
	"                                 : 'selftest ok: ' + checked +"
	" ' columns sorted both ways';\n"
	"    out.textContent += '; ' + layout();\n"
	"  }\n"
	/* Open every <details> by clicking its summary, as a reader would, and
	 * measure the page against the window (no sideways scrolling). */
	"  function layout() {\n"
	"    var all = document.querySelectorAll('details'), opened = 0;\n"
	"    all.forEach(function (d) {\n"
	"      var s = d.querySelector('summary');\n"
	"      var closed = d.getBoundingClientRect().height;\n"
	"      s.click();\n"
	"      if (d.open && d.getBoundingClientRect().height > closed) opened++;\n"
	"    });\n"
	"    return 'details opened ' + opened + ' of ' + all.length + '; page ' +\n"
	"      document.documentElement.scrollWidth + ' px wide in a ' + window.innerWidth +\n"
	"      ' px window';\n"
	"  }\n"
	"  document.getElementById('wperf-status').textContent =\n"
	"    'Script loaded: ' + tables.length + ' sortable tables (click a column heading).';\n"
	"  if (location.hash === '#wperf-selftest') selftest();\n"
	"})();\n";

static void esc(FILE *out, const char *s)
{
	wperf_fmt_xml_escaped(out, s);
}

/* weight = own + cascaded, with own's share of the waiters' time
 * (doc/wperf-report.7.md, "Weights"). */
static void split_text(char *buf, size_t len, int64_t weight, int64_t own, int64_t waiters,
		       const char *whose)
{
	wperf_fmt_weight_split(buf, len, weight, own, waiters, whose);
}

/* ---- Header and findings ---- */

static void write_limit(FILE *out, const char *what, int64_t ns, const char *spec)
{
	char d[32];

	wperf_fmt_duration(d, sizeof d, ns, 0);
	fprintf(out, "%s %s", what, d);
	if (spec) {
		fputs(" (", out);
		esc(out, spec);
		fputc(')', out);
	}
}

/*
 * The data-quality problems that can change the findings (report-caveats.c),
 * one line each, after the headline's clause that says so when one may
 * make them wrong: ends the "Found" paragraph.
 */
static void write_caveats(FILE *out, const struct wperf_report *r)
{
	struct wperf_caveat c[WPERF_CAVEATS_MAX];
	size_t n = wperf_fmt_caveats(r, c);
	char wrong[1024];

	wperf_fmt_caveat_headline(wrong, sizeof wrong, c, n);
	if (wrong[0]) {
		fputs(" <b class=\"wrong\">", out);
		esc(out, wrong);
		fputs("</b>", out);
	}
	fputs("</p>\n", out);
	if (n == 0)
		return;
	fputs("<ul class=\"caveats\">\n", out);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "<li class=\"caveat\" data-kind=\"%s\"><b>", c[i].kind);
		esc(out, c[i].label);
		fputs("</b>: ", out);
		esc(out, c[i].text);
		fputs("</li>\n", out);
	}
	fputs("</ul>\n", out);
}

/* dot's SVG without its XML declaration and DOCTYPE, which have no place
 * inside HTML; NULL when svg has no <svg> element. */
static const char *svg_element(const char *svg)
{
	return svg ? strstr(svg, "<svg") : NULL;
}

/* The first finding and what touches it, before any text: what a reader
 * should see first (doc/wperf-report.7.md, PICTURES). */
static void write_first_picture(FILE *out, const struct wperf_report *r, const char *first_svg)
{
	const char *start = svg_element(first_svg);
	char title[64];

	if (!start || !r->knots || r->knots->n == 0)
		return;
	wperf_fmt_knot_title(title, sizeof title, r->knots, 0);
	fprintf(out, "<figure class=\"first\" id=\"first-picture\">\n<figcaption><b>%s</b>, "
		"the first finding, and what touches it: its own waits drawn heaviest. "
		"<a href=\"#knot-1\">Why</a> &middot; <a href=\"#picture\">the whole "
		"picture</a></figcaption>\n", title);
	fputs(start, out);
	fputs("</figure>\n", out);
}

static void write_header(FILE *out, const struct wperf_report *r, const char *first_svg)
{
	const struct wperf_graph *g = r->graph;
	char dur[32], b[64], e[64];
	size_t knots = wperf_fmt_count_kind(r->knots, WPERF_KNOT);
	size_t sinks = wperf_fmt_count_kind(r->knots, WPERF_SINK);
	size_t bg = wperf_fmt_count_kind(r->knots, WPERF_BACKGROUND);

	wperf_fmt_duration(dur, sizeof dur, wperf_graph_duration(g), 0);
	wperf_fmt_timestamp(b, sizeof b, g->begin_ns);
	wperf_fmt_timestamp(e, sizeof e, g->end_ns);
	fputs("<h1>wperf knot report</h1>\n", out);
	write_first_picture(out, r, first_svg);
	fputs("<p class=\"meta\">", out);
	fprintf(out, "Analysed <b>%s</b>, %s .. %s. ", dur, b, e);
	write_limit(out, "Refinement threshold", r->threshold_ns, r->threshold_spec);
	write_limit(out, ", noise floor", r->min_weight_ns, r->min_weight_spec);
	fprintf(out, ". %zu vertices, %zu edges.", g->n_vertices, g->n_edges);
	if (r->focus)
		fputs(" With a focus: only the knots and sinks it waits on are reported.", out);
	fprintf(out, "</p>\n<p>Found <b>%zu knot%s</b>, %zu sink%s", knots, knots == 1 ? "" : "s",
		sinks, sinks == 1 ? "" : "s");
	if (bg)
		fprintf(out, ", %zu background knot%s", bg, bg == 1 ? "" : "s");
	if (r->cpu && r->cpu->first)
		fputs("; first: <b>the CPUs</b>", out);
	fputs(".", out);
	write_caveats(out, r);
	fputs("<p class=\"weights\">Weight = own + cascaded. <b>Own</b> is the waiters' "
	      "own waiting, with its share of their time (at most 100%). <b>Cascaded</b> is the "
	      "waiting of others that was held up meanwhile, counted again on every edge it "
	      "passed through. A weight measures those waits; it does not bound what "
	      "shortening them could gain.</p>\n",
	      out);
}

static void write_edge_item(FILE *out, const struct wperf_graph *g, size_t i, int64_t weight)
{
	char w[32], s[160];
	const struct wperf_edge *e;

	if (i >= g->n_edges)
		return;
	e = &g->edges[i];
	wperf_fmt_duration(w, sizeof w, weight, 0);
	/* A cut edge is listed with the weight it had when cut; the split is
	 * the edge's own. */
	split_text(s, sizeof s, e->weight_ns, e->direct_ns, wperf_vertex_time(g, e->from),
		   "the waiter's");
	fputs("<li>", out);
	wperf_html_vertex_label(out, g, e->from);
	fputs(" &rarr; ", out);
	wperf_html_vertex_label(out, g, e->to);
	fprintf(out, ": %s = %s, %llu wait%s", w, s, (unsigned long long)e->count,
		e->count == 1 ? "" : "s");
	/* The text's (timer?) and its footnote, on the edge itself. */
	if (wperf_edge_may_be_timer(g, e))
		fputs(" <span class=\"timer\">" WPERF_FMT_TIMER_MARK " "
		      WPERF_FMT_TIMER_NOTE "</span>", out);
	wperf_html_edge_details(out, g, e);
	fputs("</li>", out);
}

/* What leaves a knot or a group: the share of its weight, and the edges. */
static void write_leaving(FILE *out, const struct wperf_graph *g, const char *what,
			  const size_t *edges, size_t n, int64_t leaving_ns, int64_t weight_ns)
{
	char w[32], pct[32];

	if (n == 0)
		return;
	wperf_fmt_duration(w, sizeof w, leaving_ns, 0);
	wperf_fmt_ppm_percent(pct, sizeof pct, wperf_ppm(leaving_ns, weight_ns));
	fprintf(out, "<p>%s: %s = %s of its weight:</p>\n<ul>", what, w, pct);
	for (size_t j = 0; j < n; j++)
		if (edges[j] < g->n_edges)
			write_edge_item(out, g, edges[j], g->edges[edges[j]].weight_ns);
	fputs("</ul>\n", out);
}

static void write_refinement(FILE *out, const struct wperf_graph *g, const struct wperf_knot *k)
{
	if (k->kind == WPERF_SINK)
		return;
	const char *why = k->stop_reason ? k->stop_reason : "?";

	if (k->n_removed == 0) {
		fprintf(out, "<p>Refinement: nothing cut (stopped: %s).</p>\n", why);
		return;
	}
	fprintf(out, "<p>Refinement cut %zu edge%s, lightest first (stopped: %s):</p>\n<ol>",
		k->n_removed, k->n_removed == 1 ? "" : "s", why);
	for (size_t j = 0; j < k->n_removed; j++)
		write_edge_item(out, g, k->removed[j].edge, k->removed[j].weight_ns);
	fputs("</ol>\n", out);
}

#define TOP_WAITERS 5

/* Insert edge i into top[] (heaviest first, at most TOP_WAITERS). */
static void keep_heaviest(const struct wperf_graph *g, size_t *top, size_t *n, size_t i)
{
	size_t at = *n < TOP_WAITERS ? (*n)++ : TOP_WAITERS;

	while (at > 0 && g->edges[top[at - 1]].weight_ns < g->edges[i].weight_ns) {
		if (at < TOP_WAITERS)
			top[at] = top[at - 1];
		at--;
	}
	if (at < TOP_WAITERS)
		top[at] = i;
}

/* A sink's heaviest waiters: who would gain from it going faster. */
static void write_waiters(FILE *out, const struct wperf_report *r, uint32_t sink)
{
	const struct wperf_graph *g = r->graph;
	size_t top[TOP_WAITERS], n = 0, total = 0;

	for (size_t i = 0; i < g->n_edges; i++)
		if (g->edges[i].to == sink && g->edges[i].from != sink &&
		    wperf_edge_is_dependency(g, &g->edges[i], r->min_weight_ns) &&
		    !(r->opaque && r->opaque[g->edges[i].from])) {
			keep_heaviest(g, top, &n, i);
			total++;
		}
	if (n == 0)
		return;
	fputs("<ul>", out);
	for (size_t j = 0; j < n; j++)
		write_edge_item(out, g, top[j], g->edges[top[j]].weight_ns);
	if (total > n)
		fprintf(out, "<li>and %zu lighter edges into it</li>", total - n);
	fputs("</ul>\n", out);
}

/* What kind of problem it looks like, with its evidence (wperf/classify.h). */
static void write_classification(FILE *out, const struct wperf_report *r,
				 const struct wperf_knot *k)
{
	const struct wperf_classification *c = wperf_report_class_of(r, k);
	char line[1024];

	if (!c)
		return;
	fprintf(out, "<p class=\"classification %s\">Looks like ", wperf_knot_class_name(c->cls));
	esc(out, wperf_classification_summary(c));
	fputs("</p>\n<ul class=\"evidence\">", out);
	for (size_t i = 0; i < c->n_evidence; i++) {
		wperf_evidence_describe(line, sizeof line, r->graph, &c->evidence[i]);
		fputs("<li>", out);
		esc(out, line);
		fputs("</li>", out);
	}
	fputs("</ul>\n", out);
}

/* A sink that mostly slept, or waited on what the trace does not show,
 * is not limited by its work (wperf_sink_limit()). */
static void write_sink_limit(FILE *out, const struct wperf_graph *g,
			     const struct wperf_knot *k)
{
	int64_t waited = 0;
	enum wperf_sink_limit limit = wperf_sink_limit(g, k, &waited);
	char part[32], seen[32];

	if (limit == WPERF_LIMIT_WORK)
		return;
	wperf_fmt_duration(part, sizeof part, waited, 0);
	wperf_fmt_duration(seen, sizeof seen, wperf_time_seen(&g->vertices[k->members[0]]), 0);
	if (limit == WPERF_LIMIT_TIMER)
		fprintf(out, "; it waits for nothing in the graph but timers, %s of its %s: "
			"time paces it", part, seen);
	else
		fprintf(out, "; it waits for nothing in the graph the trace shows: %s of its %s "
			"on <code>unknown</code> wakers", part, seen);
}

static void write_finding(FILE *out, const struct wperf_report *r, size_t i)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_knot *k = &r->knots->items[i];
	char title[64], w[32], s[160];

	wperf_fmt_knot_title(title, sizeof title, r->knots, i);
	wperf_fmt_duration(w, sizeof w, k->weight_ns, 0);
	split_text(s, sizeof s, k->weight_ns, k->own_ns, k->waiters_ns,
		   k->kind == WPERF_SINK ? "its waiters'" : "the members'");
	fprintf(out, "<div class=\"knot %s\" id=\"knot-%zu\">\n<h3>%s: ",
		wperf_knot_kind_name(k->kind), i + 1, title);
	wperf_html_members(out, g, k);
	fprintf(out, "</h3>\n<p>%s <b>%s</b> = %s",
		k->kind == WPERF_SINK ? "Waited on for" : "Weight", w, s);
	if (k->kind == WPERF_BACKGROUND) {
		char cpu[32];
		wperf_fmt_duration(cpu, sizeof cpu, k->cpu_ns, 0);
		fprintf(out, "; background: no device and its threads used %s of CPU, "
			"less than one CPU", cpu);
		if (wperf_ppm(k->cpu_ns, k->span_ns) >= WPERF_FMT_BACKGROUND_BUSY_PPM)
			fputs(". " WPERF_FMT_BACKGROUND_BUSY_NOTE, out);
	}
	write_sink_limit(out, g, k);
	fputs(".</p>\n", out);
	if (k->kind == WPERF_SINK) {
		/* What this kind of sink means, and what to do (Sink kinds). */
		char words[512];

		wperf_fmt_sink_kind_words(words, sizeof words, g, k);
		fprintf(out, "<p class=\"sink-kind %s\">",
			wperf_fmt_sink_kind_name(wperf_fmt_sink_kind(g, k)));
		esc(out, words);
		fputs("</p>\n", out);
	}
	if (wperf_knot_gap_waits(g, k) || wperf_knot_gap_ns(g, k) > 0) {
		char d[32];

		wperf_fmt_duration(d, sizeof d, wperf_knot_gap_ns(g, k) > 0 ?
				   wperf_knot_gap_ns(g, k) : 0, 0);
		fprintf(out, "<p class=\"gaps\">Overlaps gaps: %s of its members' time lies in "
			"gaps of the trace, and %llu waits on its edges crossed one; its "
			"weights are lower bounds.</p>\n", d,
			(unsigned long long)wperf_knot_gap_waits(g, k));
	}
	char missing[1024];

	wperf_fmt_knot_missing_cpu(missing, sizeof missing, g, k);
	if (missing[0]) {
		fputs("<p class=\"missing-cpu\">Missing CPU: ", out);
		esc(out, missing);
		fputs("</p>\n", out);
	}
	/* The first finding's timeline at a glance; the others' a click away. */
	if (i == 0) {
		wperf_html_timeline(out, r, i);
	} else {
		fputs("<details class=\"tl-details\"><summary>Timeline of its members</summary>\n",
		      out);
		wperf_html_timeline(out, r, i);
		fputs("</details>\n", out);
	}
	write_classification(out, r, k);
	if (k->n_edges) {
		fputs("<ul>", out);
		for (size_t j = 0; j < k->n_edges; j++)
			if (k->edges[j] < g->n_edges)
				write_edge_item(out, g, k->edges[j],
						g->edges[k->edges[j]].weight_ns);
		fputs("</ul>\n", out);
	}
	if (k->kind == WPERF_SINK && k->n_members == 1)
		write_waiters(out, r, k->members[0]);
	write_leaving(out, g, "Leaves the knot", k->leaving, k->n_leaving, k->leaving_ns,
		      k->weight_ns);
	write_refinement(out, g, k);
	fputs("</div>\n", out);
}

/* Heavy groups that the knot rule turned down (wperf/knots.h). */
static void write_groups(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	size_t n = r->knots ? r->knots->n_groups : 0;
	char w[32], s[160];

	if (n == 0)
		return;
	fprintf(out, "<h2 id=\"groups\">Not knots</h2>\n<p>%zu heavy group%s that wait%s too "
		"much outside %s (the knot rule: %s).</p>\n", n, n == 1 ? "" : "s",
		n == 1 ? "s" : "", n == 1 ? "itself" : "themselves",
		r->strict_rule || r->leave_ppm == 0 ? "strict" : "dominant");
	for (size_t i = 0; i < n; i++) {
		const struct wperf_group *gr = &r->knots->groups[i];
		struct wperf_knot as_knot = { .members = gr->members, .n_members = gr->n_members };

		wperf_fmt_duration(w, sizeof w, gr->weight_ns, 0);
		split_text(s, sizeof s, gr->weight_ns, gr->own_ns, gr->waiters_ns, "the members'");
		fputs("<div class=\"knot group\">\n<h3>Group: ", out);
		wperf_html_members(out, g, &as_knot);
		fprintf(out, "</h3>\n<p>Weight <b>%s</b> = %s: not a knot.</p>\n", w, s);
		write_leaving(out, g, "Leaves the group", gr->leaving, gr->n_leaving,
			      gr->leaving_ns, gr->weight_ns);
		fputs("</div>\n", out);
	}
}

/* The CPU finding first (wperf/cpu.h), in the text report's words
 * (report-cpu-words.c). */
static void write_cpu_first(FILE *out, const struct wperf_report *r)
{
	struct wperf_fmt_cpu_words w;

	if (!r->cpu || !r->cpu->first)
		return;
	wperf_fmt_cpu_words(&w, r);
	fputs("<div class=\"finding\"><h3>", out);
	esc(out, w.title);
	fputs("</h3>\n<p>", out);
	esc(out, w.summary);
	if (w.others[0]) {
		fputs(" ", out);
		esc(out, w.others);
	}
	fputs("</p>\n<p>", out);
	esc(out, w.advice);
	fputs("</p></div>\n", out);
}

static void write_findings(FILE *out, const struct wperf_report *r)
{
	fputs("<h2 id=\"findings\">Findings</h2>\n", out);
	write_cpu_first(out, r);
	if (!r->knots || r->knots->n == 0) {
		struct wperf_caveat c[WPERF_CAVEATS_MAX];
		char wrong[1024];

		wperf_fmt_caveat_headline(wrong, sizeof wrong, c, wperf_fmt_caveats(r, c));
		if (wrong[0]) {
			/* No advice that holds only for a complete trace. */
			fputs("<p class=\"nothing\">No knots and no sinks were found, but "
			      "the trace lacks part of what happened (above): the waits that "
			      "would make a knot or a sink may be in what it lacks. Record "
			      "again before concluding anything.</p>\n", out);
			return;
		}
		fputs("<p class=\"nothing\">No knots and no sinks were found: no thread waited "
		      "on another thread or device for longer than the noise floor (the text "
		      "report says why).</p>\n", out);
		return;
	}
	for (size_t i = 0; i < r->knots->n; i++)
		write_finding(out, r, i);
}

static void write_picture(FILE *out, const char *svg, const char *no_picture)
{
	const char *start = svg_element(svg);

	fputs("<h2 id=\"picture\">Wait-for graph</h2>\n", out);
	if (!start) {
		fputs("<p class=\"no-picture\">No picture: ", out);
		esc(out, no_picture ? no_picture : "Graphviz produced no SVG");
		fputs(". The tables below have the whole graph.</p>\n", out);
		return;
	}
	/* dot's XML declaration and DOCTYPE have no place inside HTML. */
	fputs("<figure>\n", out);
	fputs(start, out);
	fputs("</figure>\n", out);
}

static void write_quality(FILE *out, const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	const struct wperf_quality *q = &g->quality;
	char gap[32];

	fprintf(out, "<h2 id=\"quality\">Data quality</h2>\n<p>%llu events analysed "
		"(wakeups from %s); %llu events and %llu packets discarded; %llu wakeups "
		"matched no wait; %llu threads of unknown initial state; %llu waits still "
		"open at the end. Weights near a gap are lower bounds.</p>\n",
		(unsigned long long)q->events, q->has_waking ? "sched_waking" : "sched_wakeup",
		(unsigned long long)q->discarded_events, (unsigned long long)q->discarded_packets,
		(unsigned long long)q->unmatched_wakeups,
		(unsigned long long)q->unknown_initial_threads,
		(unsigned long long)q->waits_open_at_end);
	wperf_fmt_duration(gap, sizeof gap, q->gap_ns, 0);
	fprintf(out, "<p>Gaps cover %s of the analysed time and cut %llu waits and %llu "
		"runnable stretches short; %llu events came out of order; %llu cascades "
		"reached past the history kept per thread (their weights are lower "
		"bounds).</p>\n", gap, (unsigned long long)q->waits_cut_by_gaps,
		(unsigned long long)q->runnable_cut_by_gaps,
		(unsigned long long)q->events_out_of_order,
		(unsigned long long)q->cascades_truncated);
	if (r->stacks_note) {
		fprintf(out, "<p>Call stacks: %zu distinct wait stacks; ", g->n_stacks);
		esc(out, r->stacks_note);
		fputs(".</p>\n", out);
	}
}

static void write_page(FILE *out, const struct wperf_report *r, const char *svg,
		       const char *first_svg, const char *no_picture,
		       const struct wperf_fmt_knot_map *m,
		       const bool *reach)
{
	fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		"<title>wperf knot report</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
	write_header(out, r, first_svg);
	write_findings(out, r);
	write_groups(out, r);
	write_picture(out, svg, no_picture);
	wperf_html_knots_table(out, r);
	wperf_html_edges_table(out, r, m, reach);
	wperf_html_threads_table(out, r, m, reach);
	write_quality(out, r);
	fprintf(out, "<p id=\"wperf-status\">The tables sort when scripts run.</p>\n"
		"<p id=\"wperf-selftest\"></p>\n<script>\n%s</script>\n</body>\n</html>\n", script);
}

int wperf_report_write_html(const struct wperf_report *r, const char *svg,
			    const char *first_svg, const char *no_picture, FILE *out)
{
	struct wperf_fmt_knot_map m;
	bool *reach, oom;

	if (!r || !r->graph || !out) {
		errno = EINVAL;
		return -1;
	}
	if (wperf_fmt_knot_map_init(&m, r->graph, r->knots) < 0)
		return -1;
	/* With a focus, the tables show what it reaches (the picture too);
	 * out of memory, everything, as without a focus. */
	reach = wperf_fmt_focus_reach(r, &oom);
	errno = 0;
	write_page(out, r, svg, first_svg, no_picture, &m, reach);
	free(reach);
	wperf_fmt_knot_map_fini(&m);
	return wperf_fmt_finish(out, false);
}
