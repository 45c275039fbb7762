/* SPDX-License-Identifier: MIT */
/*
 * wperf/annotate.h — annotate the waits the kernel cannot see.
 *
 * The kernel sees a thread that sleeps; it does not see a thread that spins
 * on a lock, nor a thread that was woken for nothing and sleeps again. These
 * macros tell wperf about them, through the LTTng-UST tracepoint provider
 * `wperf` (events wperf:before_spin, wperf:after_spin, wperf:false_wakeup,
 * wperf:progress). The manual is doc/wperf-annotate.3.md; in short:
 *
 *   WPERF_BEFORE_SPIN(lock)  the thread starts busy-waiting for `lock`
 *   WPERF_AFTER_SPIN(lock)   the thread now holds `lock` (emit it on every
 *                            acquisition: the analysis takes the last thread
 *                            to emit it as the holder the spinners wait for)
 *   WPERF_FALSE_WAKEUP()     the thread was woken but cannot proceed, and is
 *                            about to wait again
 *   WPERF_PROGRESS(name)     a unit of work `name` (a string) is done
 *
 * `lock` is any pointer or integer identifying the lock (its address).
 *
 * Exactly one source file of each executable or shared object that uses the
 * macros must define WPERF_ANNOTATE_DEFINE before including this header:
 * that file holds the tracepoint definitions. Nothing else is needed at link
 * time (no -llttng-ust; -ldl only with a glibc older than 2.34). At run
 * time the tracepoints stay off until the provider library libwperf-ust.so
 * is loaded, with LD_PRELOAD=libwperf-ust.so or with wperf_annotate_load();
 * then `lttng enable-event -u 'wperf:*'` records them.
 *
 * Costs (doc/performance-annotations.md has the figures): with
 * WPERF_DISABLE defined the macros are empty and their arguments are not
 * evaluated; otherwise, while no tracing session records the event, each
 * macro is one load and one branch predicted not taken (its arguments are
 * not evaluated either); recording costs what an LTTng-UST event costs.
 *
 * The header works in C (C99 and later, GNU extensions allowed: the LTTng
 * headers use them) and in C++11 and later.
 */
#ifndef WPERF_ANNOTATE_H
#define WPERF_ANNOTATE_H

/* Where wperf_annotate_load(NULL) looks for the provider, in this order. */
#define WPERF_UST_PROVIDER_ENV    "WPERF_UST_PROVIDER"  /* a path */
#define WPERF_UST_PROVIDER_SONAME "libwperf-ust.so.0"   /* ld.so's search path */

#ifdef WPERF_DISABLE

/*
 * Compiled out: no code, no symbol, arguments not evaluated. The argument
 * sits in a branch that never runs, so that a variable that only appears
 * in annotations is still "used" and draws no warning: neither gcc's
 * unused-variable nor clang's unneeded-internal-declaration (which an
 * argument under sizeof draws: a reference that is never evaluated). The
 * compiler drops the branch.
 */
#define WPERF_BEFORE_SPIN(lock)  do { if (0) (void)(lock); } while (0)
#define WPERF_AFTER_SPIN(lock)   do { if (0) (void)(lock); } while (0)
#define WPERF_FALSE_WAKEUP()     do { } while (0)
#define WPERF_PROGRESS(name)     do { if (0) (void)(name); } while (0)

static inline int wperf_annotate_load(const char *path)
{
	(void)path;
	return -1;      /* there is nothing to load the provider for */
}

#else /* !WPERF_DISABLE */

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

/*
 * The one file that defines WPERF_ANNOTATE_DEFINE defines the tracepoints.
 * PROBE_DYNAMIC_LINKAGE is what spares the application a link with
 * liblttng-ust: the tracepoints do not reference the probes, and a
 * constructor dlopen()s LTTng-UST's small liblttng-ust-tracepoint.so.1 to
 * register them (silently nothing if LTTng-UST is not installed).
 */
#ifdef WPERF_ANNOTATE_DEFINE
# ifndef LTTNG_UST_TRACEPOINT_DEFINE
#  define LTTNG_UST_TRACEPOINT_DEFINE
# endif
# ifndef LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#  define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
# endif
#endif

#include <wperf/annotate-tp.h>

/*
 * lttng_ust_tracepoint() tests the tracepoint's `state` word (set by
 * LTTng-UST only while a session has the event enabled) with
 * caa_unlikely(), and evaluates its arguments only behind that test.
 */
#define WPERF_BEFORE_SPIN(lock) \
	lttng_ust_tracepoint(wperf, before_spin, (uint64_t)(uintptr_t)(lock))
#define WPERF_AFTER_SPIN(lock) \
	lttng_ust_tracepoint(wperf, after_spin, (uint64_t)(uintptr_t)(lock))
#define WPERF_FALSE_WAKEUP() \
	lttng_ust_tracepoint(wperf, false_wakeup)
#define WPERF_PROGRESS(name) \
	lttng_ust_tracepoint(wperf, progress, (name))

/*
 * Load the provider libwperf-ust.so at run time, so a program can turn its
 * annotations on without LD_PRELOAD. `path` is the library to load; NULL
 * means $WPERF_UST_PROVIDER if set, else "libwperf-ust.so.0" (its SONAME)
 * from ld.so's search path (meson install puts it in libdir).
 *
 * Returns 0 if the provider is loaded (now, or before: by LD_PRELOAD or an
 * earlier call), -1 if not (dlerror() says why; the macros then stay off,
 * which is harmless). Call it early in main(), before the threads start:
 * when LTTng-UST loads, it waits up to LTTNG_UST_REGISTER_TIMEOUT (3 s by
 * default) for the session daemon to enable the events, so events are
 * recorded from the first macro after the call on. The library is never
 * unloaded (LTTng-UST cannot unload a provider in use).
 */
static inline int wperf_annotate_load(const char *path)
{
	void *self = dlopen(NULL, RTLD_NOW);
	/* libwperf-ust.so exports this symbol: it is our way to ask "loaded?". */
	int loaded = self != NULL && dlsym(self, "wperf_ust_provider_loaded") != NULL;

	if (self != NULL)
		dlclose(self);
	if (loaded)
		return 0;
	if (path == NULL || *path == '\0')
		path = getenv(WPERF_UST_PROVIDER_ENV);
	if (path == NULL || *path == '\0')
		path = WPERF_UST_PROVIDER_SONAME;
	return dlopen(path, RTLD_NOW | RTLD_GLOBAL) != NULL ? 0 : -1;
}

#endif /* !WPERF_DISABLE */

#endif /* WPERF_ANNOTATE_H */
