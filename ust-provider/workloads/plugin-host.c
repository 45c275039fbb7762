/* SPDX-License-Identifier: MIT */
/*
 * ust-provider/workloads/plugin-host.c — a program without annotations
 * that dlopen()s an annotated plugin (annotated-plugin.c) and runs it:
 * under libwperf-ust-preload.so, the provider must be loaded at the
 * dlopen(), since nothing in the process had annotations at the start.
 *
 * Usage: plugin-host PLUGIN.so [--spins N]   (default 1000)
 * Prints (one "plugin-host: KEY VALUE" per line): pid, provider (loaded
 * or not-loaded: is libwperf-ust.so in the process after the dlopen),
 * lock (the `lock` field of the plugin's events) and spins.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "workload.h"

#define PROG "plugin-host"

int main(int argc, char **argv)
{
	long spins = 1000;
	uintptr_t (*run)(long);
	uintptr_t lock;
	void *plugin;

	if (argc == 4 && strcmp(argv[2], "--spins") == 0)
		spins = parse_positive(PROG, "--spins", argv[3]);
	else if (argc != 2) {
		fprintf(stderr, "usage: %s PLUGIN.so [--spins N]\n", PROG);
		return 2;
	}
	plugin = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	if (!plugin) {
		fprintf(stderr, "%s: %s\n", PROG, dlerror());
		return 1;
	}
	*(void **)&run = dlsym(plugin, "annotated_plugin_run");
	if (!run) {
		fprintf(stderr, "%s: %s\n", PROG, dlerror());
		return 1;
	}
	lock = run(spins);
	printf("%s: pid %ld\n", PROG, (long)getpid());
	printf("%s: provider %s\n", PROG,
	       dlsym(RTLD_DEFAULT, "wperf_ust_provider_loaded") ? "loaded" : "not-loaded");
	printf("%s: lock %#llx\n", PROG, (unsigned long long)lock);
	printf("%s: spins %ld\n", PROG, spins);
	return 0;
}
