/* SPDX-License-Identifier: MIT */
/*
 * tools/tests/ust-sched-tp.h — the LTTng-UST provider `sched` of
 * ust-sched.c: scheduler events in perf's layout (`sched:sched_switch`
 * with prev_pid/next_pid, `sched:sched_waking` with pid and target_cpu),
 * which sink.wperf.knots reads as it reads `perf data convert --to-ctf`'s
 * (plugin/common/decode-layout.c). Only for the tests: they give a live
 * session on a machine without lttng-modules a wait-for graph to report.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER sched

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./ust-sched-tp.h"

#if !defined(UST_SCHED_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define UST_SCHED_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(sched, sched_switch,
	LTTNG_UST_TP_ARGS(const char *, prev_comm, int32_t, prev_pid, int64_t, prev_state,
			  const char *, next_comm, int32_t, next_pid),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(prev_comm, prev_comm)
		lttng_ust_field_integer(int32_t, prev_pid, prev_pid)
		lttng_ust_field_integer(int64_t, prev_state, prev_state)
		lttng_ust_field_string(next_comm, next_comm)
		lttng_ust_field_integer(int32_t, next_pid, next_pid)
	)
)

LTTNG_UST_TRACEPOINT_EVENT(sched, sched_waking,
	LTTNG_UST_TP_ARGS(const char *, comm, int32_t, pid, int32_t, target_cpu),
	LTTNG_UST_TP_FIELDS(
		lttng_ust_field_string(comm, comm)
		lttng_ust_field_integer(int32_t, pid, pid)
		lttng_ust_field_integer(int32_t, target_cpu, target_cpu)
	)
)

#endif /* UST_SCHED_TP_H */

#include <lttng/tracepoint-event.h>
