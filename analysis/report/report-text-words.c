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
/* Output gathered in a buffer and written in large pieces: a paragraph
 * is many words, and each fwrite() cost as much as a word's wrapping. */
struct text_buffer {
	FILE *out;
	size_t n;
	char s[1024];
};

static void tb_flush(struct text_buffer *b)
{
	fwrite(b->s, 1, b->n, b->out);
	b->n = 0;
}

static void tb_put(struct text_buffer *b, const char *p, size_t len)
{
	if (b->n + len > sizeof b->s)
		tb_flush(b);
	if (len > sizeof b->s) {
		fwrite(p, 1, len, b->out);
		return;
	}
	memcpy(b->s + b->n, p, len);
	b->n += len;
}

static void tb_spaces(struct text_buffer *b, size_t count)
{
	static const char spaces[] = "                                ";

	for (size_t k; count; count -= k) {
		k = count < sizeof spaces - 1 ? count : sizeof spaces - 1;
		tb_put(b, spaces, k);
	}
}

void text_put_wrapped(FILE *out, const char *first, const char *text, size_t indent)
{
	struct text_buffer b = { .out = out, .n = 0 };
	size_t col = strlen(first);
	const char *p = text;

	tb_put(&b, first, col);
	while (*p) {
		const char *space = strchr(p, ' ');
		size_t len = space ? (size_t)(space - p) : strlen(p);

		if (p != text && col + 1 + len > PAGE_WIDTH) {
			tb_put(&b, "\n", 1);
			tb_spaces(&b, indent);
			col = indent;
		} else if (p != text) {
			tb_put(&b, " ", 1);
			col++;
		}
		tb_put(&b, p, len);
		col += len;
		p += len;
		while (*p == ' ')
			p++;
	}
	tb_put(&b, "\n", 1);
	tb_flush(&b);
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
