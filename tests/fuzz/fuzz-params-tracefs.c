/* SPDX-License-Identifier: MIT */
/*
 * fuzz-params-tracefs.c — source.wperf.tracefs' parameter reader (static
 * in plugin/tracefs/tracefs-component.c, hence included), for the params
 * fuzz target.
 */
#include "../../plugin/tracefs/tracefs-component.c"

#include "fuzz-params.h"

int fuzz_tracefs_params(const bt_value *params, char *err, size_t errlen)
{
	struct tracefs_comp comp;
	int rc;

	memset(&comp, 0, sizeof comp);
	err[0] = '\0';
	rc = read_params(&comp, params, err, errlen);
	free(comp.ready_file);      /* what finalisation frees */
	return rc;
}
