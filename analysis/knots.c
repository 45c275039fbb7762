/* TEMPORARY STUB */
#include "wperf/report.h"
#include <string.h>
const char *wperf_knot_kind_name(enum wperf_knot_kind k) { return k == WPERF_KNOT ? "knot" : k == WPERF_SINK ? "sink" : "background"; }
int wperf_knots_find(const struct wperf_graph *g, const struct wperf_knot_options *o, struct wperf_knots *out) { (void)g; (void)o; memset(out, 0, sizeof *out); return 0; }
void wperf_knots_fini(struct wperf_knots *k) { (void)k; }
