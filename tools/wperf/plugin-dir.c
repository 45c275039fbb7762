/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/plugin-dir.c — which babeltrace-plugin-wperf.so this copy of
 * wperf loads: --plugin-path, $WPERF_PLUGIN_PATH, the build tree's
 * plugin/ (the build copy only), or babeltrace2's system plugin directory.
 * The same rule as wperf-lami's find_plugin_dir() (tools/wperf-lami.py).
 */
#include "wperf.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define PLUGIN_FILE "babeltrace-plugin-wperf.so"

static bool has_plugin(const char *dir)
{
	char path[PATH_MAX];
	struct stat st;

	if (snprintf(path, sizeof(path), "%s/%s", dir, PLUGIN_FILE) >= (int)sizeof(path))
		return false;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

char *wperf_plugin_dir(const char *option)
{
	const char *named[2] = { option, getenv("WPERF_PLUGIN_PATH") };
	char build_plugins[PATH_MAX];

	/* A directory the user named must hold the plugin. */
	for (int i = 0; i < 2; i++) {
		if (!named[i] || !*named[i])
			continue;
		if (has_plugin(named[i]))
			return realpath(named[i], NULL);
		wperf_fail("no " PLUGIN_FILE " in %s (build it with `make build`, "
			   "or give the right --plugin-path)", named[i]);
		return NULL;
	}
	if (*wperf_paths.build_dir) {
		snprintf(build_plugins, sizeof(build_plugins), "%s/plugin", wperf_paths.build_dir);
		if (has_plugin(build_plugins))
			return realpath(build_plugins, NULL);
	}
	if (*wperf_paths.system_plugin_dir && has_plugin(wperf_paths.system_plugin_dir))
		return realpath(wperf_paths.system_plugin_dir, NULL);
	wperf_fail("the wperf babeltrace2 plugin is missing: install wperf "
		   "(make install) or pass --plugin-path=BUILD/plugin");
	return NULL;
}
