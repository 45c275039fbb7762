/* SPDX-License-Identifier: MIT */
/*
 * wperf/annotate-tp.h — the LTTng-UST tracepoint provider `wperf`.
 *
 * This is the LTTng half of <wperf/annotate.h>: applications include
 * <wperf/annotate.h>, never this file. It is read three ways:
 *   - by every application file that uses the WPERF_* macros: it declares
 *     the tracepoints (the `state` word the macros test);
 *   - by the one application file that defines WPERF_ANNOTATE_DEFINE (which
 *     sets LTTNG_UST_TRACEPOINT_DEFINE and
 *     LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE): it defines the
 *     tracepoints and a constructor that registers them if LTTng-UST is on
 *     the machine, found with dlopen(): no link-time dependency;
 *   - by ust-provider/wperf-ust.c, with LTTNG_UST_TRACEPOINT_CREATE_PROBES:
 *     it generates the probes and event descriptions of libwperf-ust.so.
 *
 * The event and field names are an interface: the babeltrace2 plugin
 * (plugin/common/decode.c) reads exactly wperf:before_spin / after_spin (integer
 * field `lock`), wperf:false_wakeup (no field) and wperf:progress (string
 * field `name`). Changing one breaks every recorded trace.
 *
 * Like every LTTng-UST provider header, the event part is outside the
 * include guard: <lttng/tracepoint-event.h> re-reads this file several times
 * with different definitions of the LTTNG_UST_TRACEPOINT_EVENT macro.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER wperf

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE <wperf/annotate-tp.h>

#if !defined(WPERF_ANNOTATE_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define WPERF_ANNOTATE_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

/*
 * The thread is about to busy-wait for `lock` (its address in the process).
 * Until after_spin on the same lock, the thread is waiting, not running.
 */
LTTNG_UST_TRACEPOINT_EVENT(wperf, before_spin,
	LTTNG_UST_TP_ARGS(uint64_t, lock),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, lock)
	)
)

/*
 * The thread holds `lock`. The analysis makes the last thread to emit this
 * on a lock its holder: the thread the next spinner waits for.
 */
LTTNG_UST_TRACEPOINT_EVENT(wperf, after_spin,
	LTTNG_UST_TP_ARGS(uint64_t, lock),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_integer_hex(uint64_t, lock, lock)
	)
)

/* The thread's latest wakeup did not let it proceed (it waits again). */
LTTNG_UST_TRACEPOINT_EVENT(wperf, false_wakeup,
	LTTNG_UST_TP_ARGS(),
	LTTNG_UST_TP_FIELDS()
)

/* A unit of work named `name` is done (a Coz-style progress point). */
LTTNG_UST_TRACEPOINT_EVENT(wperf, progress,
	LTTNG_UST_TP_ARGS(const char *, name),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(name, name)
	)
)

#endif /* WPERF_ANNOTATE_TP_H */

#include <lttng/tracepoint-event.h>
