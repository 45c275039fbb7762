/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-html-labels.c — the vertex and member labels the
 * files of the HTML page share (report-html.h), escaped for HTML. Here,
 * below the page (report-html.c) and its tables (report-html-tables.c),
 * so that both call down to them and not each other.
 */
#include <stdio.h>

#include "report-format.h"
#include "report-html.h"

void wperf_html_vertex_label(FILE *out, const struct wperf_graph *g, uint32_t id)
{
	char label[256];

	wperf_fmt_vertex_label(label, sizeof label, g, id);
	wperf_fmt_xml_escaped(out, label);
}

void wperf_html_members(FILE *out, const struct wperf_graph *g, const struct wperf_knot *k)
{
	for (size_t j = 0; j < k->n_members; j++) {
		fputs(j ? ", " : "", out);
		wperf_html_vertex_label(out, g, k->members[j]);
	}
}
