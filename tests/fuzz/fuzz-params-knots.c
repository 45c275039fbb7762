/* SPDX-License-Identifier: MIT */
/*
 * fuzz-params-knots.c — sink.wperf.knots' own parameter readers, compiled
 * into the params fuzz target (tests/fuzz/fuzz-params.c).
 *
 * The readers are plugin/knots/knots-params.c's; their errors go through
 * sink_fail(), the knots sink's name for WPERF_COMP_ERROR of
 * plugin/common/comp-error.h. knots-params.c and knots-sink.c (its
 * sink_destroy) are included here with that macro replaced (there is no
 * component to append to): the
 * message, with its "sink.wperf.knots: " prefix, is kept to check that it
 * is one line naming a parameter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <babeltrace2/babeltrace.h>

#include "../../plugin/common/comp-error.h"

static char fuzz_knots_err[2048];

#undef WPERF_COMP_ERROR
#define WPERF_COMP_ERROR(self, prefix, ...) \
	((void)(self), fuzz_knots_cause((prefix), __VA_ARGS__))

static void fuzz_knots_cause(const char *prefix, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#include "../../plugin/knots/knots-sink.c"
#include "../../plugin/knots/knots-params.c"

/* What wperf_error_cause() would append, into fuzz_knots_err. */
static void fuzz_knots_cause(const char *prefix, const char *fmt, ...)
{
	char msg[WPERF_CAUSE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	snprintf(fuzz_knots_err, sizeof fuzz_knots_err, "%s: %s", prefix, msg);
}

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
