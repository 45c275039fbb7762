/* SPDX-License-Identifier: MIT */
/*
 * fuzz-params-knots.c — sink.wperf.knots' own parameter readers, compiled
 * into the params fuzz target (tests/fuzz/fuzz-params.c).
 *
 * The readers are plugin/knots/knots-params.c's; their errors go through
 * sink_fail() of plugin/knots/knots-sink.c, which is included here with
 * its error cause macro replaced (there is no component to append to):
 * the message is kept to check that it is one line naming a parameter.
 */
#include <stdio.h>
#include <babeltrace2/babeltrace.h>

static char fuzz_knots_err[2048];

#undef BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT
#define BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self, ...) \
	((void)(self), snprintf(fuzz_knots_err, sizeof fuzz_knots_err, __VA_ARGS__))

#include "../../plugin/knots/knots-sink.c"

#include "fuzz-params.h"

int fuzz_knots_params(const bt_value *params, const char **err)
{
	struct knots_sink *s = calloc(1, sizeof *s);
	int rc;

	if (!s)
		return 0;
	fuzz_knots_err[0] = '\0';
	rc = sink_read_params(s, params);
	*err = fuzz_knots_err;
	sink_destroy(s);
	return rc;
}
