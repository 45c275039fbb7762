/* SPDX-License-Identifier: MIT */
/*
 * report-json-values.c — the JSON strings, numbers and separators both
 * files of the JSON report are made of (report-json.h), in the layout
 * report-json.c describes. It calls neither of them: they depend on it,
 * not on each other. Its string writer is also public (wperf/report.h:
 * wperf_json_string), for the lines sink.wperf.knots writes around a
 * report, so every JSON string wperf writes is escaped alike.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "report-format.h"
#include "report-json.h"

/* ------------------------------------------------------------------ */
/* Strings                                                             */
/* ------------------------------------------------------------------ */

static void json_escape_ascii(FILE *out, unsigned char c)
{
	switch (c) {
	case '"':  fputs("\\\"", out); break;
	case '\\': fputs("\\\\", out); break;
	case '\b': fputs("\\b", out); break;
	case '\f': fputs("\\f", out); break;
	case '\n': fputs("\\n", out); break;
	case '\r': fputs("\\r", out); break;
	case '\t': fputs("\\t", out); break;
	default:
		if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
}

/* A JSON string; NULL becomes null. Bytes that are not UTF-8 become
 * U+FFFD: comm and device names come from the kernel and may hold
 * anything. The reads of s[1..3] stop at the terminating NUL because a
 * NUL is never a continuation byte. */
void json_string(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if (!s) {
		fputs("null", out);
		return;
	}
	fputc('"', out);
	while (*p) {
		size_t n = wperf_fmt_utf8_length(p);
		if (n == 0) {
			fputs("\\ufffd", out);
			p++;
		} else if (n == 1) {
			json_escape_ascii(out, *p++);
		} else {
			fwrite(p, 1, n, out);
			p += n;
		}
	}
	fputc('"', out);
}

void wperf_json_string(FILE *out, const char *s)
{
	json_string(out, s);
}

void json_i64(FILE *out, int64_t v)
{
	fprintf(out, "%lld", (long long)v);
}

void json_u64(FILE *out, uint64_t v)
{
	fprintf(out, "%llu", (unsigned long long)v);
}

/* `"key": ` with the separator before it when it is not the first. */
void json_key(FILE *out, const char *key, int first)
{
	fprintf(out, "%s\"%s\": ", first ? "" : ", ", key);
}

/* Separator and indentation of element i of a one-element-per-line array. */
void json_element(FILE *out, size_t i)
{
	fputs(i ? ",\n    " : "\n    ", out);
}

void json_array_end(FILE *out, size_t n)
{
	fputs(n ? "\n  ]" : "]", out);
}

void json_id_array(FILE *out, const uint32_t *ids, size_t n)
{
	fputc('[', out);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%s%lu", i ? ", " : "", (unsigned long)ids[i]);
	fputc(']', out);
}
