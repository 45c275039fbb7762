/* SPDX-License-Identifier: MIT */
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
 * Plugins. A shared object dlopen()ed later (a plugin, a storage engine)
 * may hold the annotations while the program holds none. So this library
 * also defines dlopen(): the dynamic linker binds the program's and its
 * libraries' calls to this first definition, which calls the real one
 * (RTLD_NEXT) and then reads the objects loaded since the last look, each
 * once, until the provider is in the process. dlmopen() is not watched.
 *
 * Where the provider is: $WPERF_UST_PROVIDER (`wperf record` sets it), else
 * libwperf-ust.so beside this library.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TRACEPOINT_STRINGS_SECTION "lttng_ust_tracepoints_strings"
#define PROVIDER_NAME "wperf"
#define PROVIDER_FILE "libwperf-ust.so.0"    /* the provider's SONAME */
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

/*
 * The objects already read, by load address and name: each file is read
 * once, however many dlopen() calls follow. An object unloaded and another
 * loaded at its address has another name, or is the same file.
 */
struct seen_object {
	uintptr_t addr;
	uint64_t name_hash;
};

static struct seen_object *seen;
static size_t n_seen, cap_seen;
static bool provider_in_process;

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull;   /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Was this object read before? If not, remember it (when memory allows). */
static bool seen_before(uintptr_t addr, const char *name)
{
	uint64_t h = hash_name(name);

	for (size_t i = 0; i < n_seen; i++)
		if (seen[i].addr == addr && seen[i].name_hash == h)
			return true;
	if (n_seen == cap_seen) {
		size_t cap = cap_seen ? cap_seen * 2 : 64;
		struct seen_object *grown = realloc(seen, cap * sizeof *grown);

		if (!grown)
			return false;   /* read it again next time: only slower */
		seen = grown;
		cap_seen = cap;
	}
	seen[n_seen++] = (struct seen_object){ addr, h };
	return false;
}

static int check_object(struct dl_phdr_info *info, size_t size, void *data)
{
	bool *annotated = data;
	const char *path = info->dlpi_name;

	(void)size;
	/* The program itself comes first, with an empty name: read it once,
	 * and no other object without a name. The vDSO has no file
	 * ("linux-vdso.so.1"). */
	if (!path || !*path) {
		if (seen_before(UINTPTR_MAX, "/proc/self/exe"))
			return 0;
		path = "/proc/self/exe";
	} else if (seen_before(info->dlpi_addr, path)) {
		return 0;
	}
	if (*path == '/' && file_has_wperf_tracepoints(path)) {
		*annotated = true;
		return 1;       /* stop iterating */
	}
	return 0;
}

/* $WPERF_UST_PROVIDER, else libwperf-ust.so.0 in this library's directory. */
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

static void *(*real_dlopen)(const char *, int);

/* The dlopen() this library stands in front of (libc's, or the next
 * preloaded one's). */
static void *call_real_dlopen(const char *file, int mode)
{
	if (!real_dlopen)
		real_dlopen = (void *(*)(const char *, int))dlsym(RTLD_NEXT, "dlopen");
	return real_dlopen ? real_dlopen(file, mode) : NULL;
}

/* Read the objects loaded since the last look; load the provider when one
 * has the wperf tracepoints. */
static void load_provider_if_annotated(void)
{
	bool annotated = false;
	char buf[4096];
	const char *path;

	if (provider_in_process)
		return;
	/* Loaded by the program itself (wperf_annotate_load()) or by
	 * LD_PRELOAD: nothing more to look for. */
	if (dlsym(RTLD_DEFAULT, "wperf_ust_provider_loaded")) {
		provider_in_process = true;
		return;
	}
	dl_iterate_phdr(check_object, &annotated);
	if (!annotated)
		return;
	provider_in_process = true;   /* one attempt, whatever its outcome */
	path = provider_path(buf, sizeof buf);
	/* The events of this program would be missing from the recording:
	 * say so once, and run on (the macros stay off, harmlessly). */
	if (!call_real_dlopen(path, RTLD_NOW | RTLD_GLOBAL))
		fprintf(stderr, "wperf: annotations of this program are not recorded: "
			"cannot load %s (%s)\n", path, dlerror());
}

/*
 * One thread looks at a time. A thread that finds another looking does
 * not wait: it may hold the dynamic linker's lock (a dlopen() from a
 * library constructor), which the other needs to load the provider.
 * The objects it loaded are read at the next dlopen().
 */
static pthread_mutex_t looking = PTHREAD_MUTEX_INITIALIZER;
static __thread bool inside;   /* the provider's own dlopen()s come back here */

__attribute__((visibility("default"))) void *dlopen(const char *file, int mode)
{
	void *handle = call_real_dlopen(file, mode);

	if (handle && !provider_in_process && !inside &&
	    pthread_mutex_trylock(&looking) == 0) {
		inside = true;
		load_provider_if_annotated();
		inside = false;
		pthread_mutex_unlock(&looking);
	}
	return handle;
}

__attribute__((constructor)) static void look_at_start(void)
{
	pthread_mutex_lock(&looking);
	inside = true;
	load_provider_if_annotated();
	inside = false;
	pthread_mutex_unlock(&looking);
}
