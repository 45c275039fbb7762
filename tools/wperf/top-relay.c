/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/top-relay.c — `wperf top --relay URL --hosts A,B`: watch
 * several machines at once, through the live sessions they stream to one
 * lttng-relayd (`wperf record --relay URL --live` on each). Nothing is
 * recorded here: the relay daemon's session list (source.ctf.lttng-live's
 * `sessions` query) names each host's live session, one lttng-live source
 * reads each, the muxer merges them, and sink.wperf.knots with every= and
 * sync-hosts= synchronises the hosts' clocks from the TCP segments matched
 * so far (plugin/knots/knots-sync.c) and writes the periodic reports of
 * one wait-for graph across the hosts. The graph runs in top-viewer.c's
 * child process; it ends with the final report when every host's session
 * has ended (session-not-found-action=end), or when Ctrl-C or --duration
 * end its input where the sessions are (bt-end.h): the final report is
 * then of what was read until that moment.
 */
#include "wperf.h"
#include "relay-url.h"
#include "stop-signals.h"
#include "top.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* lttng-relayd's default live port (lttng-relayd(8)). */
#define LIVE_PORT 5344

struct watched {
	char host[72], session[256];
};

/* ------------------------------------------------------------ the URL */

/* url is net://HOST[:LIVE_PORT] (or net6://[ADDR][:LIVE_PORT]); false
 * after saying why. */
static bool check_viewer_url(const char *url)
{
	char why[1024];
	const char *p = strstr(url, "://"), *ports;

	if (!wperf_relay_url_check(url, why, sizeof(why))) {
		/* The recorder's words name its two ports: here there is one. */
		return !wperf_fail("--relay '%s': %s (wperf top reads the relay daemon's live "
				   "port: net://HOST[:LIVE_PORT], default %d)", url, why, LIVE_PORT);
	}
	p = p ? p + 3 : url;
	if (*p == '[')
		p = strchr(p, ']');
	ports = p ? strchr(p, ':') : NULL;
	if (ports && strchr(ports + 1, ':'))
		return !wperf_fail("--relay '%s': one port only, the relay daemon's live port "
				   "(net://HOST[:LIVE_PORT], default %d), not its control and "
				   "data ports", url, LIVE_PORT);
	return true;
}

/* ------------------------------------------------------------ the hosts */

/* A hostname or session name as LTTng writes them: letters, digits, and
 * . _ - (a name of another form is no relay session of wperf's). */
static bool plain_name(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-",
			    s[i]) || !s[i])
			return false;
	return true;
}

/* --hosts HOST[/SESSION],...: into w; the count, or -1 after saying why. */
static int parse_hosts(const char *list, struct watched *w, size_t max)
{
	const char *p = list;
	size_t n = 0;

	for (;;) {
		size_t len = strcspn(p, ","), hl = strcspn(p, "/,");

		if (n == max)
			return wperf_fail("--hosts: at most %zu hosts", max), -1;
		if (!plain_name(p, hl) || hl >= sizeof(w[n].host) ||
		    (hl < len && (!plain_name(p + hl + 1, len - hl - 1) ||
				  len - hl - 1 >= sizeof(w[n].session))))
			return wperf_fail("--hosts '%s': expected HOST or HOST/SESSION, "
					  "comma-separated, each name of letters, digits, '.', '_' "
					  "and '-' (the hostnames as the relay daemon lists them, "
					  "e.g. web1,db1)", list), -1;
		snprintf(w[n].host, sizeof(w[n].host), "%.*s", (int)hl, p);
		w[n].session[0] = '\0';
		if (hl < len)
			snprintf(w[n].session, sizeof(w[n].session), "%.*s", (int)(len - hl - 1),
				 p + hl + 1);
		for (size_t k = 0; k < n; k++)
			if (!strcmp(w[k].host, w[n].host))
				return wperf_fail("--hosts: host %s is named twice", w[n].host), -1;
		n++;
		if (!p[len])
			return (int)n;
		p += len + 1;
	}
}

/* ------------------------------------------------------------ the sessions */

static const char *entry(const bt_value *map, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(map, key);

	return v && bt_value_is_string(v) ? bt_value_string_get(v) : NULL;
}

/* The relay daemon's live sessions: the `sessions` query's array, or
 * NULL after saying why. */
static const bt_value *relay_sessions(const struct wperf_bt *bt, const char *url)
{
	const bt_component_class *live = bt_component_class_source_as_component_class_const(
		bt_plugin_borrow_source_component_class_by_name_const(bt->ctf, "lttng-live"));
	bt_value *params = bt_value_map_create();
	const bt_value *list = NULL;
	bt_query_executor *q = NULL;

	if (live && params && !bt_value_map_insert_string_entry(params, "url", url) &&
	    (q = bt_query_executor_create(live, "sessions", params))) {
		/* The library logs the failure of a query on standard error
		 * whatever the executor's level: the line below says it. */
		int saved = dup(STDERR_FILENO), null = open("/dev/null", O_WRONLY | O_CLOEXEC);

		if (saved >= 0 && null >= 0)
			dup2(null, STDERR_FILENO);
		bt_query_executor_set_logging_level(q, BT_LOGGING_LEVEL_NONE);
		if (bt_query_executor_query(q, &list) != BT_QUERY_EXECUTOR_QUERY_STATUS_OK ||
		    !bt_value_is_array(list)) {
			bt_value_put_ref(list);
			list = NULL;
		}
		if (saved >= 0) {
			dup2(saved, STDERR_FILENO);
			close(saved);
		}
		if (null >= 0)
			close(null);
	}
	bt_current_thread_clear_error();
	bt_query_executor_put_ref(q);
	bt_value_put_ref(params);
	if (!list)
		wperf_fail("cannot list the live sessions of the lttng-relayd at %s: is it running, "
			   "and is its live port (%d by default) reachable from here? (lttng-relayd "
			   "listens for viewers on localhost only unless started with "
			   "--live-port tcp://0.0.0.0:%d)", url, LIVE_PORT, LIVE_PORT);
	return list;
}

/* "host/session, ..." of every session listed, into buf. */
static void list_sessions(const bt_value *list, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint64_t i = 0; i < bt_value_array_get_length(list) && at + 1 < len; i++) {
		const bt_value *s = bt_value_array_borrow_element_by_index_const(list, i);
		const char *h = entry(s, "target-hostname"), *n = entry(s, "session-name");
		int k = snprintf(buf + at, len - at, "%s%s/%s", i ? ", " : "", h ? h : "?",
				 n ? n : "?");

		if (k < 0)
			break;
		at += (size_t)k;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Each host's live session (its own, when --hosts named one); false
 * after saying why. */
static bool find_sessions(const struct wperf_bt *bt, const char *url, struct watched *w,
			  size_t n)
{
	const bt_value *list = relay_sessions(bt, url);
	char all[2048];
	bool ok = list != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		bool given = w[i].session[0] != '\0';
		unsigned found = 0;

		for (uint64_t k = 0; k < bt_value_array_get_length(list); k++) {
			const bt_value *s = bt_value_array_borrow_element_by_index_const(list, k);
			const char *h = entry(s, "target-hostname"), *name = entry(s, "session-name");

			if (!h || !name || strcmp(h, w[i].host) || (given && strcmp(name, w[i].session)))
				continue;
			if (!found++)
				snprintf(w[i].session, sizeof(w[i].session), "%s", name);
		}
		if (found == 1)
			continue;
		list_sessions(list, all, sizeof(all));
		if (!found)
			wperf_fail("the lttng-relayd at %s has no live session of host %s%s%s (its "
				   "sessions: %s): start `wperf record --relay URL --live` there "
				   "first", url, w[i].host, given ? " named " : "",
				   given ? w[i].session : "", all);
		else
			wperf_fail("the lttng-relayd at %s has %u live sessions of host %s (its "
				   "sessions: %s): name one, --hosts %s/SESSION", url, found,
				   w[i].host, all, w[i].host);
		ok = false;
	}
	bt_value_put_ref(list);
	return ok;
}

/* ------------------------------------------------------------ the graph */

/* One lttng-live source's parameters per host, as an array. */
static bt_value *sources(const char *url, const struct watched *w, size_t n)
{
	bt_value *all = bt_value_array_create();
	bool ok = all != NULL;

	for (size_t i = 0; ok && i < n; i++) {
		bt_value *params = bt_value_map_create(), *inputs = bt_value_array_create();
		char input[1024];
		int len = snprintf(input, sizeof(input), "%s/host/%s/%s", url, w[i].host,
				   w[i].session);

		/* The URL (checked: at most 280 bytes) and two names of at
		 * most 71 and 255: it fits; checked all the same. */
		ok = len > 0 && (size_t)len < sizeof(input) &&
		     params && inputs && !bt_value_array_append_string_element(inputs, input) &&
		     !bt_value_map_insert_entry(params, "inputs", inputs) &&
		     !bt_value_map_insert_string_entry(params, "session-not-found-action", "end") &&
		     !bt_value_array_append_element(all, params);
		bt_value_put_ref(inputs);
		bt_value_put_ref(params);
	}
	if (!ok) {
		bt_value_put_ref(all);
		return NULL;
	}
	return all;
}

/* The sink's parameters with sync-hosts= (several hosts). */
static bool add_sync_hosts(bt_value *sink, const struct watched *w, size_t n)
{
	char list[WPERF_BT_SOURCES_MAX * 80] = "";
	size_t at = 0;

	if (n < 2)
		return true;
	for (size_t i = 0; i < n; i++) {
		int k = snprintf(list + at, sizeof(list) - at, "%s%s", i ? "," : "", w[i].host);

		if (k < 0 || (size_t)k >= sizeof(list) - at)
			return false;   /* 8 names of at most 71 bytes: cannot happen */
		at += (size_t)k;
	}
	return !bt_value_map_insert_string_entry(sink, "sync-hosts", list);
}

int top_relay(const struct top_args *a, const struct wperf_bt *bt, bt_value *sink)
{
	struct watched w[WPERF_BT_SOURCES_MAX];
	struct top_viewer v = { .pid = -1 };
	double deadline = a->duration > 0 ? top_now() + a->duration : 0;
	bt_value *src;
	char names[WPERF_BT_SOURCES_MAX * 340];
	size_t at = 0;
	int n, rc;

	if (!check_viewer_url(a->relay) ||
	    (n = parse_hosts(a->hosts, w, WPERF_BT_SOURCES_MAX)) < 0 ||
	    !find_sessions(bt, a->relay, w, (size_t)n))
		return WPERF_EXIT_FAIL;
	if (!(src = sources(a->relay, w, (size_t)n)) || !add_sync_hosts(sink, w, (size_t)n)) {
		bt_value_put_ref(src);
		return wperf_fail("out of memory");
	}
	for (int i = 0; i < n && at < sizeof(names); i++) {
		int k = snprintf(names + at, sizeof(names) - at, "%s%s/%s", i ? ", " : "",
				 w[i].host, w[i].session);

		if (k < 0)
			break;
		at += (size_t)k;
	}
	wperf_say("watching the live sessions %s through the lttng-relayd at %s, a report every "
		  "%s%s; the final report when they end, or at Ctrl-C", names, a->relay, a->every,
		  n > 1 ? ", the hosts' clocks synchronised from the TCP segments matched so far"
			: "");
	top_viewer_ends_input = true;
	if (!top_viewer_start(&v, bt, bt->ctf, "lttng-live", src, sink)) {
		bt_value_put_ref(src);
		return WPERF_EXIT_FAIL;
	}
	bt_value_put_ref(src);
	if (!top_viewer_wait(&v, deadline) && top_viewer_ended(&v))
		return top_viewer_finish(&v, "the sessions' end");
	/* A stop signal or --duration: the sessions are not ours to end, so
	 * the viewer ends its sources' input where they are (bt-end.h), and
	 * the sink writes the last period and the final report of what was
	 * read until then, as `wperf top` does on one host. */
	wperf_stop_signals_ignore();
	kill(v.pid, SIGINT);
	rc = top_viewer_finish(&v, "the stop");
	if (rc == WPERF_EXIT_OK && a->duration <= 0)
		rc = wperf_interrupted_status();
	return rc;
}
