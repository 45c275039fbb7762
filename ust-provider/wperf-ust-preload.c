/*
 * ust-provider/wperf-ust-preload.c — libwperf-ust-preload.so, what
 * `wperf record` preloads into the recorded command and every process it
 * starts. It loads the provider libwperf-ust.so, and with it LTTng-UST, only
 * into processes that have wperf annotations.
 *
 * Why not preload the provider itself: loading LTTng-UST registers the
 * process with the session daemon (two listener threads, a connection, a
 * wait until the session's events are enabled), a few milliseconds per
 * process. A shell script that runs /bin/true 300 times took 4.8 s instead
 * of 0.4 s under `wperf record`, and its report was about LTTng-UST's
 * start-up: the recording must not change what it measures.
 *
 * How a process is recognised: <wperf/annotate.h> defines the wperf
 * tracepoints in the program (or library) that uses the macros, and
 * LTTng-UST's tracepoint.h puts their provider and event names in an ELF
 * section of their own, lttng_ust_tracepoints_strings. The constructor
 * reads the section headers of every object loaded at start (the program
 * and its libraries, from their files: sections are not mapped) and loads
 * the provider when one of those sections holds the string "wperf". This
 * library needs nothing but libc: no LTTng.
 *
 * Where the provider is: $WPERF_UST_PROVIDER (`wperf record` sets it), else
 * libwperf-ust.so beside this library. A shared object dlopen()ed later
 * with annotations is not seen: such a program calls wperf_annotate_load(),
 * which reads the same variable.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACEPOINT_STRINGS_SECTION "lttng_ust_tracepoints_strings"
#define PROVIDER_NAME "wperf"
#define PROVIDER_FILE "libwperf-ust.so"
/* Bounds on what is read of a file: a string table or a tracepoint
 * string section larger than this is not one a compiler made. */
#define MAX_SECTION_BYTES (1u << 20)

static bool read_at(int fd, void *buf, size_t len, off_t off)
{
	return pread(fd, buf, len, off) == (ssize_t)len;
}

/* The contents of section i (malloc'ed, NUL-terminated), or NULL. */
static char *read_section(int fd, const ElfW(Shdr) *sh)
{
	char *buf;

	if (sh->sh_type == SHT_NOBITS || sh->sh_size == 0 || sh->sh_size > MAX_SECTION_BYTES)
		return NULL;
	buf = malloc(sh->sh_size + 1);
	if (!buf)
		return NULL;
	if (!read_at(fd, buf, sh->sh_size, (off_t)sh->sh_offset)) {
		free(buf);
		return NULL;
	}
	buf[sh->sh_size] = '\0';
	return buf;
}

/* Does the NUL-separated string table hold the whole string `s`? */
static bool strings_hold(const char *table, size_t len, const char *s)
{
	for (size_t i = 0; i < len; i += strlen(table + i) + 1)
		if (strcmp(table + i, s) == 0)
			return true;
	return false;
}

/* Does the ELF file at path define tracepoints of the wperf provider? */
static bool file_has_wperf_tracepoints(const char *path)
{
	ElfW(Ehdr) eh;
	ElfW(Shdr) *sh = NULL;
	char *names = NULL, *strings = NULL;
	bool found = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	if (!read_at(fd, &eh, sizeof eh, 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh.e_shentsize != sizeof *sh || eh.e_shnum == 0 || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = malloc((size_t)eh.e_shnum * sizeof *sh);
	if (!sh || !read_at(fd, sh, (size_t)eh.e_shnum * sizeof *sh, (off_t)eh.e_shoff))
		goto out;
	names = read_section(fd, &sh[eh.e_shstrndx]);
	if (!names)
		goto out;
	for (size_t i = 0; i < eh.e_shnum && !found; i++) {
		if (sh[i].sh_name >= sh[eh.e_shstrndx].sh_size ||
		    strcmp(names + sh[i].sh_name, TRACEPOINT_STRINGS_SECTION) != 0)
			continue;
		strings = read_section(fd, &sh[i]);
		found = strings && strings_hold(strings, sh[i].sh_size, PROVIDER_NAME);
		free(strings);
		strings = NULL;
	}
out:
	free(names);
	free(sh);
	close(fd);
	return found;
}

struct scan {
	bool seen_program;
	bool annotated;
};

static int check_object(struct dl_phdr_info *info, size_t size, void *data)
{
	struct scan *scan = data;
	const char *path = info->dlpi_name;

	(void)size;
	/* The program itself comes first, with an empty name; the vDSO has
	 * no file ("linux-vdso.so.1"). */
	if (!path || !*path) {
		if (scan->seen_program)
			return 0;
		scan->seen_program = true;
		path = "/proc/self/exe";
	}
	if (*path == '/' && file_has_wperf_tracepoints(path)) {
		scan->annotated = true;
		return 1;       /* stop iterating */
	}
	return 0;
}

/* $WPERF_UST_PROVIDER, else libwperf-ust.so in this library's directory. */
static const char *provider_path(char *buf, size_t len)
{
	const char *env = getenv("WPERF_UST_PROVIDER");
	Dl_info self;
	const char *slash;

	if (env && *env)
		return env;
	if (!dladdr((void *)provider_path, &self) || !self.dli_fname ||
	    !(slash = strrchr(self.dli_fname, '/')))
		return PROVIDER_FILE;           /* ld.so's search path */
	snprintf(buf, len, "%.*s/%s", (int)(slash - self.dli_fname), self.dli_fname,
		 PROVIDER_FILE);
	return buf;
}

__attribute__((constructor)) static void load_provider_if_annotated(void)
{
	struct scan scan = { false, false };
	char buf[4096];
	const char *path;

	dl_iterate_phdr(check_object, &scan);
	if (!scan.annotated)
		return;
	path = provider_path(buf, sizeof buf);
	/* The events of this program would be missing from the recording:
	 * say so once, and run on (the macros stay off, harmlessly). */
	if (!dlopen(path, RTLD_NOW | RTLD_GLOBAL))
		fprintf(stderr, "wperf: annotations of this program are not recorded: "
			"cannot load %s (%s)\n", path, dlerror());
}
