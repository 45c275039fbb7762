/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/symbols.c — kernel symbols for wait stacks: see symbols.h.
 */
#include "symbols.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* x86-64 and arm64 kernels live in the top half of the address space. */
#define KERNEL_SPACE 0xffff800000000000ull

struct ksym {
	uint64_t addr;
	char *name;
};

struct ksyms {
	struct ksym *v;
	size_t n, cap;
	uint64_t text;       /* the address of _text, where the kernel is */
};

static void ksyms_free(struct ksyms *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->v[i].name);
	free(k->v);
}

static int by_addr(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Text symbols (t/T) of /proc/kallsyms, sorted. -1: unreadable or
 * hidden (addresses all zero without privilege); -2: out of memory. */
static int ksyms_load(struct ksyms *k)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512];

	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		char type, name[256];
		unsigned long long addr;

		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T') || addr == 0)
			continue;
		if (strcmp(name, "_text") == 0)
			k->text = addr;
		if (k->n == k->cap) {
			size_t cap = k->cap ? 2 * k->cap : 65536;
			struct ksym *v = realloc(k->v, cap * sizeof *v);
			if (!v)
				goto nomem;
			k->v = v;
			k->cap = cap;
		}
		k->v[k->n].addr = addr;
		k->v[k->n].name = strdup(name);
		if (!k->v[k->n].name)
			goto nomem;
		k->n++;
	}
	fclose(f);
	if (k->n == 0)
		return -1;
	qsort(k->v, k->n, sizeof *k->v, by_addr);
	return 0;
nomem:
	fclose(f);
	return -2;
}

/* The symbol at or below addr, or NULL. */
static const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr)
{
	size_t lo = 0, hi = k->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (k->v[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &k->v[lo - 1] : NULL;
}

/* Is the trace's clock this boot's? (LTTng and source.wperf.tracefs give
 * the kernel clock the boot id as its UUID.) */
static int same_boot(const uint8_t *uuid, char *note, size_t len)
{
	char text[64];
	unsigned int b[16];
	FILE *f;

	if (!uuid) {
		snprintf(note, len, "kernel frames not named: the trace's clock has no UUID, "
			 "so nothing says it is of this boot (KASLR moves the kernel)");
		return 0;
	}
	f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (!f || !fgets(text, sizeof text, f)) {
		if (f)
			fclose(f);
		snprintf(note, len, "kernel frames not named: this boot's id is unreadable");
		return 0;
	}
	fclose(f);
	if (sscanf(text, "%2x%2x%2x%2x-%2x%2x-%2x%2x-%2x%2x-%2x%2x%2x%2x%2x%2x",
		   &b[0], &b[1], &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9],
		   &b[10], &b[11], &b[12], &b[13], &b[14], &b[15]) != 16)
		return 0;
	for (int i = 0; i < 16; i++)
		if (uuid[i] != (uint8_t)b[i]) {
			snprintf(note, len, "kernel frames not named: the trace's clock UUID is "
				 "not this boot's id, so it may be of another boot (KASLR moves "
				 "the kernel at every boot; perf's CTF clocks never carry the "
				 "boot id)");
			return 0;
		}
	return 1;
}

static int name_frames(struct wperf_stack *s, const struct ksyms *k, size_t *named)
{
	s->symbols = calloc(s->n, sizeof *s->symbols);
	if (!s->symbols)
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		const struct ksym *sym;
		char buf[320];

		if (s->ips[i] < KERNEL_SPACE || !(sym = ksyms_find(k, s->ips[i])))
			continue;
		snprintf(buf, sizeof buf, "%s+0x%" PRIx64, sym->name, s->ips[i] - sym->addr);
		s->symbols[i] = strdup(buf);
		if (!s->symbols[i])
			return -1;
		(*named)++;
	}
	return 0;
}

int wperf_symbolize_stacks(struct wperf_graph *g, const uint8_t *clock_uuid,
			   uint64_t kernel_text, char *note, size_t note_len)
{
	struct ksyms k = { 0 };
	size_t named = 0;
	bool by_text = false;
	int rc;

	note[0] = '\0';
	if (g->n_stacks == 0)
		return 0;
	if (!same_boot(clock_uuid, note, note_len)) {
		if (!kernel_text)
			return 0;
		by_text = true;   /* a perf trace: compare where the kernel was */
	}
	rc = ksyms_load(&k);
	if (rc == -2) {
		ksyms_free(&k);
		return -1;
	}
	if (rc < 0) {
		snprintf(note, note_len, "kernel frames not named: /proc/kallsyms is unreadable "
			 "or hidden (run as root, or lower kernel.kptr_restrict)");
		ksyms_free(&k);
		return 0;
	}
	if (by_text && k.text != kernel_text) {
		snprintf(note, note_len, "kernel frames not named: the trace's kernel text "
			 "was at 0x%" PRIx64 ", this kernel's is at 0x%" PRIx64 " (another "
			 "kernel or boot)", kernel_text, k.text);
		ksyms_free(&k);
		return 0;
	}
	for (size_t i = 0; i < g->n_stacks && rc == 0; i++)
		rc = name_frames(&g->stacks[i], &k, &named);
	ksyms_free(&k);
	snprintf(note, note_len, "kernel frames named from /proc/kallsyms of %s (%zu frames)",
		 by_text ? "this kernel (the trace's kernel text address is its _text)"
			 : "this boot", named);
	return rc;
}
