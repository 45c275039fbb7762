/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/shared-analysis.c — the registry of filter.wperf.waits analyses
 * that a directly connected sink.wperf.knots may reuse (see the header).
 *
 * The registry is a list: a process holds a handful of filter iterators
 * at most, and it is only searched once per sink, when the graph is
 * configured.
 */
#include <pthread.h>
#include <stdlib.h>

#include "shared-analysis.h"

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static struct wperf_shared_analysis *registry;   /* guarded by registry_lock */

static void free_shared(struct wperf_shared_analysis *s)
{
	wperf_graph_fini(&s->graph);
	wperf_analysis_destroy(s->analysis);
	wperf_decoder_destroy(s->decoder);
	free(s);
}

struct wperf_shared_analysis *wperf_shared_analysis_create(const bt_component *filter)
{
	struct wperf_shared_analysis *s = calloc(1, sizeof *s);

	if (!s)
		return NULL;
	s->decoder = wperf_decoder_create();
	s->analysis = wperf_analysis_create();
	if (!s->decoder || !s->analysis) {
		free_shared(s);
		return NULL;
	}
	s->refs = 1;
	s->filter = filter;
	pthread_mutex_lock(&registry_lock);
	s->next = registry;
	registry = s;
	pthread_mutex_unlock(&registry_lock);
	return s;
}

/* Called with registry_lock held. */
static void unlink_locked(struct wperf_shared_analysis *s)
{
	for (struct wperf_shared_analysis **p = &registry; *p; p = &(*p)->next) {
		if (*p == s) {
			*p = s->next;
			break;
		}
	}
	s->filter = NULL;
	s->next = NULL;
}

void wperf_shared_analysis_unregister(struct wperf_shared_analysis *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&registry_lock);
	if (s->filter)
		unlink_locked(s);
	pthread_mutex_unlock(&registry_lock);
}

void wperf_shared_analysis_put(struct wperf_shared_analysis *s)
{
	bool last;

	if (!s)
		return;
	pthread_mutex_lock(&registry_lock);
	last = --s->refs == 0;
	if (last && s->filter)
		unlink_locked(s);
	pthread_mutex_unlock(&registry_lock);
	if (last)
		free_shared(s);
}

struct wperf_shared_analysis *wperf_shared_analysis_claim(const bt_component *upstream,
							  const struct wperf_window *window)
{
	struct wperf_shared_analysis *found = NULL;
	unsigned matches = 0;

	if (!upstream)
		return NULL;
	pthread_mutex_lock(&registry_lock);
	for (struct wperf_shared_analysis *s = registry; s; s = s->next) {
		if (s->filter == upstream) {
			found = s;
			matches++;
		}
	}
	/* A second iterator on the filter, or a second claim: which events
	 * reach us would be a guess, so analyse on our own. */
	if (matches != 1 || found->claimed || found->messages_out != 0 ||
	    !wperf_window_equal(&found->window, window)) {
		found = NULL;
	} else {
		found->claimed = true;
		found->refs++;
	}
	pthread_mutex_unlock(&registry_lock);
	return found;
}
