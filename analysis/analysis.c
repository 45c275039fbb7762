/* TEMPORARY STUB: replaced by the real streaming analysis. */
#include <stdlib.h>
#include "wperf/analysis.h"
struct wperf_analysis { int dummy; };
const char *wperf_vertex_kind_name(enum wperf_vertex_kind k)
{
	static const char *const n[] = {"thread","disk","nic","irq","softirq","timer","unknown","virtual"};
	return (unsigned)k < WPERF_V_KIND_COUNT ? n[k] : "?";
}
const char *wperf_segment_state_name(enum wperf_segment_state s)
{
	static const char *const n[] = {"running","runnable","waiting"};
	return n[s];
}
void wperf_graph_fini(struct wperf_graph *g) { (void)g; }
struct wperf_analysis *wperf_analysis_create(void) { return calloc(1, sizeof(struct wperf_analysis)); }
void wperf_analysis_destroy(struct wperf_analysis *a) { free(a); }
void wperf_analysis_on_segment(struct wperf_analysis *a, wperf_segment_cb cb, void *d) { (void)a; (void)cb; (void)d; }
void wperf_analysis_feed(struct wperf_analysis *a, const struct wperf_event *ev) { (void)a; (void)ev; }
void wperf_analysis_discarded(struct wperf_analysis *a, int cpu, bool p, uint64_t c, int64_t b, int64_t e) { (void)a; (void)cpu; (void)p; (void)c; (void)b; (void)e; }
void wperf_analysis_observe_time(struct wperf_analysis *a, int64_t ts) { (void)a; (void)ts; }
int wperf_analysis_finish(struct wperf_analysis *a, struct wperf_graph *out) { (void)a; (void)out; return -1; }
const char *wperf_analysis_error(const struct wperf_analysis *a) { (void)a; return "analysis not implemented yet"; }
