/* SPDX-License-Identifier: MIT */
/*
 * report-dump.c — write the JSON report of one case of report-cases.c to
 * stdout (`report-dump NAME`), its text report (`report-dump --text
 * NAME`, to read a case while writing a test), or list the case names
 * (`report-dump --list`). Used by validate-report.py.
 */
#include <stdio.h>
#include <string.h>

#include "report-cases.h"

int main(int argc, char **argv)
{
	struct report_case c;
	int text = argc == 3 && !strcmp(argv[1], "--text");

	if (text) {
		argv++;
		argc--;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: report-dump --list | [--text] CASE\n");
		return 2;
	}
	if (!strcmp(argv[1], "--list")) {
		for (int i = 0; report_case_names[i]; i++)
			puts(report_case_names[i]);
		return 0;
	}
	if (report_case_build(argv[1], &c)) {
		fprintf(stderr, "report-dump: cannot build case %s\n", argv[1]);
		report_case_free(&c);
		return 2;
	}
	int rc = text ? wperf_report_write_text(&c.r, stdout)
		      : wperf_report_write_json(&c.r, stdout);
	report_case_free(&c);
	if (rc) {
		perror("report-dump: writing the report");
		return 1;
	}
	return 0;
}
