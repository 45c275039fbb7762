/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-text-words.c — the small writers every section
 * of the text report uses (report-text.h): a vertex's label, lists and
 * paragraphs wrapped at the page width, the members of a finding, the
 * count of dependencies. It calls no section: the sections depend on it,
 * not on each other's helpers.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report-format.h"
#include "wperf/knots.h"
#include "wperf/report.h"
#include "report-text.h"

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

void text_label(char *buf, const struct wperf_graph *g, uint32_t id)
{
	wperf_fmt_vertex_label(buf, LABEL_LEN, g, id);
}

/* Print words separated by ", ", wrapping at the page width and
 * indenting continuation lines; `col` is where the cursor is now. */
size_t text_put_listed(FILE *out, const char *word, int first, size_t col,
		       size_t indent)
{
	size_t len = strlen(word);

	if (!first) {
		fputc(',', out);
		col++;
		if (col + 1 + len > PAGE_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else {
			fputc(' ', out);
			col++;
		}
	}
	fputs(word, out);
	return col + len;
}

/* Print text as lines of at most PAGE_WIDTH columns, broken at spaces
 * (a word longer than a line is left whole): the first line after
 * `first`, the others indented by `indent` spaces. */
void text_put_wrapped(FILE *out, const char *first, const char *text, size_t indent)
{
	size_t col = strlen(first);
	const char *p = text;

	fputs(first, out);
	while (*p) {
		const char *space = strchr(p, ' ');
		size_t len = space ? (size_t)(space - p) : strlen(p);

		if (p != text && col + 1 + len > PAGE_WIDTH) {
			fprintf(out, "\n%*s", (int)indent, "");
			col = indent;
		} else if (p != text) {
			fputc(' ', out);
			col++;
		}
		fwrite(p, 1, len, out);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	fputc('\n', out);
}

/* "a (1), b (2), disk:vda" with at most MAX_LISTED_MEMBERS names. */
void text_put_members(FILE *out, const struct wperf_graph *g,
		      const uint32_t *ids, size_t n, size_t col, size_t indent)
{
	char name[LABEL_LEN], more[64];
	size_t shown = n < MAX_LISTED_MEMBERS ? n : MAX_LISTED_MEMBERS;

	for (size_t i = 0; i < shown; i++) {
		text_label(name, g, ids[i]);
		col = text_put_listed(out, name, i == 0, col, indent);
	}
	if (shown < n) {
		snprintf(more, sizeof more, "and %zu more", n - shown);
		text_put_listed(out, more, 0, col, indent);
	}
	fputc('\n', out);
}

/* How many edges count as dependencies in the report's graph. */
size_t text_count_dependencies(const struct wperf_report *r)
{
	const struct wperf_graph *g = r->graph;
	size_t n = 0;
	for (size_t i = 0; i < g->n_edges; i++)
		n += wperf_edge_is_dependency(g, &g->edges[i], r->min_weight_ns);
	return n;
}
