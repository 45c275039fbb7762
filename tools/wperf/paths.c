/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/paths.c — where this copy of `wperf` finds its plugin, its
 * UST provider and `wperf diff`'s program. meson compiles this file twice
 * (tools/meson.build), once for the build tree's copy and once for the
 * installed one, with the paths as macros; everything else is compiled
 * once.
 */
#include "wperf.h"

#ifndef WPERF_VERSION
#error "meson defines WPERF_VERSION, WPERF_BUILD_DIR, WPERF_LIBDIR, WPERF_SYSTEM_PLUGIN_DIR, WPERF_DIFF_PROGRAM"
#endif

const struct wperf_paths wperf_paths = {
	.version = WPERF_VERSION,
	.build_dir = WPERF_BUILD_DIR,
	.libdir = WPERF_LIBDIR,
	.system_plugin_dir = WPERF_SYSTEM_PLUGIN_DIR,
	.diff_program = WPERF_DIFF_PROGRAM,
};
