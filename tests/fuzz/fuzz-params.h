/* SPDX-License-Identifier: MIT */
/* tests/fuzz: the component parameter readers under test (0 accepted, -1
 * refused with a message). */
#ifndef WPERF_FUZZ_PARAMS_H
#define WPERF_FUZZ_PARAMS_H

#include <stddef.h>
#include <babeltrace2/babeltrace.h>

int fuzz_knots_params(const bt_value *params, const char **err);
int fuzz_tracefs_params(const bt_value *params, char *err, size_t errlen);

#endif
