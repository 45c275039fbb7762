/* SPDX-License-Identifier: MIT */
/*
 * analysis/report/report-json.h — what the files of the JSON report
 * share: the writers of JSON values (report-json-values.c, which both
 * others call) and the findings' sections (report-json-findings.c, which
 * report-json.c calls). The layout, one top-level member and one array
 * element per line, is described at the top of report-json.c.
 */
#ifndef WPERF_REPORT_JSON_H
#define WPERF_REPORT_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "wperf/report.h"

/* report-json-values.c: JSON values */

/* A JSON string; NULL becomes null; bytes that are not UTF-8, U+FFFD. */
void json_string(FILE *out, const char *s);
void json_i64(FILE *out, int64_t v);
void json_u64(FILE *out, uint64_t v);

/* `"key": ` with the separator before it when it is not the first. */
void json_key(FILE *out, const char *key, int first);

/* Separator and indentation of element i of a one-element-per-line array,
 * and the end of such an array of n elements. */
void json_element(FILE *out, size_t i);
void json_array_end(FILE *out, size_t n);

/* [1, 2, 3]: vertex ids on one line. */
void json_id_array(FILE *out, const uint32_t *ids, size_t n);

/* report-json-findings.c: the findings, each a top-level member */

/* "cpu": the CPU finding (wperf/cpu.h), or null when not computed. */
void json_write_cpu(const struct wperf_report *r, FILE *out);

/* "knots": every finding in rank order. */
void json_write_knots(const struct wperf_report *r, FILE *out);

/* "groups": heavy groups that the knot rule turned down. */
void json_write_groups(const struct wperf_report *r, FILE *out);

#endif /* WPERF_REPORT_JSON_H */
