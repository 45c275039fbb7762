/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/wperf-ust.c — libwperf-ust.so, the LTTng-UST tracepoint
 * provider `wperf` (the probes behind the macros of <wperf/annotate.h>).
 *
 * Applications do not link with this library: they are built with the
 * tracepoint definitions only (WPERF_ANNOTATE_DEFINE), and this library is
 * loaded into them at run time, with LD_PRELOAD or wperf_annotate_load().
 * Loading it loads liblttng-ust (a NEEDED of this library), whose
 * constructor registers the process with the session daemon; the probes
 * generated here then register themselves for the wperf:* tracepoints.
 *
 * The events are described once, in <wperf/annotate-tp.h>; with
 * LTTNG_UST_TRACEPOINT_CREATE_PROBES that header expands to the probe
 * functions and event descriptions.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#include <wperf/annotate-tp.h>

/*
 * wperf_annotate_load() looks this symbol up to learn whether the provider
 * is already in the process (LD_PRELOAD), so that it does not load a second
 * copy from another path. Its value is the provider's interface version.
 */
extern const int wperf_ust_provider_loaded;
const int wperf_ust_provider_loaded = 1;
