/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/symbols.h — names for the kernel frames of wait stacks.
 *
 * Kernel addresses are turned into "function+0x1a" with /proc/kallsyms,
 * and only when the trace was recorded during this very boot: the kernel
 * trace's clock UUID must be this boot's id (LTTng and source.wperf.tracefs
 * both use the boot id), since KASLR moves the kernel at every boot.
 * User-space frames stay addresses.
 */
#ifndef WPERF_PLUGIN_SYMBOLS_H
#define WPERF_PLUGIN_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "wperf/graph.h"

/*
 * Symbolise g's stacks when clock_uuid (the kernel trace's clock UUID, 16
 * bytes, or NULL) says the trace is of this boot, or when kernel_text (the
 * kernel text address a perf trace recorded, 0 if none) is this kernel's
 * `_text`: the same kernel, at the same place. Writes in note what was done or
 * why not, for the report ("kernel frames named from /proc/kallsyms",
 * "not named: the trace is of another boot", ...). Returns 0, or -1 on
 * allocation failure (g keeps what was named).
 */
int wperf_symbolize_stacks(struct wperf_graph *g, const uint8_t *clock_uuid,
			   uint64_t kernel_text, char *note, size_t note_len);

#endif /* WPERF_PLUGIN_SYMBOLS_H */
