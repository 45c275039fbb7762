/* TEMPORARY STUB */
#include "wperf/report.h"
int wperf_report_write_text(const struct wperf_report *r, FILE *out) { (void)r; (void)out; return 0; }
