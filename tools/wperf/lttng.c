/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/lttng.c — LTTng's session daemon through liblttng-ctl
 * (lttng.h): the wperf profile's sessions (sessions/wperf.lttng) made as
 * `lttng create`, `enable-channel`, `enable-event`, `add-context` would
 * make them, started and stopped, snapshots recorded, the flight
 * recorder's trigger registered and its notifications heard, and what
 * `lttng list` would print asked for directly. Every failure is the daemon's own
 * error code, said through lttng_strerror(). Every call into liblttng-ctl
 * is watched (waits.h): one the daemon does not answer says so after two
 * seconds and is cut at its deadline or on a stop signal, and then fails
 * with the line naming the wedged daemon.
 *
 * The kernel events are wperf/kernel-events.h's, against which
 * sessions/test-profiles.py checks sessions/wperf.lttng and
 * sessions/wperf-snapshot.lttng.
 */
#include "lttng.h"
#include "waits.h"
#include "wperf/kernel-events.h"

#include <lttng/lttng.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Kernel events for LTTng's kernel tracer (lttng-modules), in its names
 * (net_if_receive_skb, not the kernel's netif_receive_skb): those of
 * wperf/kernel-events.h, the tracepoints, then LTTng's own (net_dev_queue,
 * whose TCP header pairs a send with its receive on another host), then
 * the state dump. The required ones (the scheduler's) must be enabled;
 * the others may be missing from an older lttng-modules, and are then
 * left out. */
struct lttng_kernel_event {
	const char *name;
	bool required;
};
#define LTTNG_TRACEPOINT(id, system, event, name, lttng_name, flags) \
	{ lttng_name, WPERF_KEV_REQUIRED_BY_LTTNG(flags) },
#define LTTNG_ONLY(name, flags) { name, WPERF_KEV_REQUIRED_BY_LTTNG(flags) },
#define LTTNG_STATEDUMP(name, flags) { name, false },
static const struct lttng_kernel_event lttng_kernel_events[] = {
	WPERF_KERNEL_TRACEPOINTS(LTTNG_TRACEPOINT)
	WPERF_LTTNG_ONLY_TRACEPOINTS(LTTNG_ONLY)
	WPERF_LTTNG_STATEDUMP_EVENTS(LTTNG_STATEDUMP)
};

#define KERNEL_CHANNEL "wperf-kernel"
#define UST_CHANNEL "wperf-ust"
/* `lttng create --live` without a value: LTTng's default live timer. */
#define LIVE_TIMER_US 1000000

/* A negative lttng_error_code, whichever sign the call returned it with
 * (lttng_create_session_ext and the trigger calls return it positive,
 * LTTNG_OK meaning success). */
static int negative(int code)
{
	if (code == LTTNG_OK || code == 0)
		return 0;
	return code < 0 ? code : -code;
}

/* Fill why with "LTTng: <lttng_strerror> (<what>)"; returns ret. */
static int say_why(int ret, char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say_why(int ret, char *why, size_t whylen, const char *fmt, ...)
{
	char what[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (why && whylen)
		snprintf(why, whylen, "LTTng: %s (%s)", lttng_strerror(ret), what);
	return ret;
}

/* ------------------------------------------------------------ teardown */

/* The error code of a call that was not made or was cut (waits.h). */
#define CUT (-LTTNG_ERR_NO_SESSIOND)

/* A watched call's what, with a name in it. */
static const char *doing(char *buf, size_t len, const char *what, const char *name)
{
	snprintf(buf, len, "%s %.100s", what, name);
	return buf;
}

static int destroy_session(const char *name)
{
	struct lttng_destruction_handle *handle = NULL;
	enum lttng_error_code ret = lttng_destroy_session_ext(name, &handle);

	if (ret != LTTNG_OK)
		return -(int)ret;
	/* As `lttng destroy`: until the session daemon has written it out. */
	if (lttng_destruction_handle_wait_for_completion(handle, -1) ==
	    LTTNG_DESTRUCTION_HANDLE_STATUS_COMPLETED &&
	    lttng_destruction_handle_get_result(handle, &ret) ==
	    LTTNG_DESTRUCTION_HANDLE_STATUS_OK && ret != LTTNG_OK) {
		lttng_destruction_handle_destroy(handle);
		return -(int)ret;
	}
	lttng_destruction_handle_destroy(handle);
	return 0;
}

int wperf_lttng_destroy_session(const char *name)
{
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "destroying session", name),
			     WPERF_CTL_DO_S, NULL, 0))
		return CUT;
	ret = destroy_session(name);
	return wperf_ctl_end(NULL, 0) ? CUT : ret;
}

static int remove_trigger(const char *name)
{
	struct lttng_triggers *triggers = NULL;
	unsigned int count = 0;
	enum lttng_error_code ret = lttng_list_triggers(&triggers);
	int rc = 0;

	if (ret != LTTNG_OK)
		return -(int)ret;
	if (lttng_triggers_get_count(triggers, &count) != LTTNG_TRIGGER_STATUS_OK)
		count = 0;
	for (unsigned int i = 0; i < count; i++) {
		const struct lttng_trigger *t = lttng_triggers_get_at_index(triggers, i);
		const char *tname = NULL;

		if (t && lttng_trigger_get_name(t, &tname) == LTTNG_TRIGGER_STATUS_OK &&
		    tname && !strcmp(tname, name)) {
			rc = lttng_unregister_trigger(t);
			break;
		}
	}
	lttng_triggers_destroy(triggers);
	return rc < 0 ? rc : 0;
}

int wperf_lttng_remove_trigger(const char *name)
{
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "removing trigger", name),
			     WPERF_CTL_DO_S, NULL, 0))
		return CUT;
	ret = remove_trigger(name);
	return wperf_ctl_end(NULL, 0) ? CUT : ret;
}

/* The sessions (`lttng list`): their count, negative when none answers
 * or the call was cut. */
static int list_sessions(struct lttng_session **sessions)
{
	int n;

	*sessions = NULL;
	if (!wperf_ctl_begin("listing sessions", WPERF_CTL_ASK_S, NULL, 0))
		return CUT;
	n = lttng_list_sessions(sessions);
	if (wperf_ctl_end(NULL, 0)) {
		free(*sessions);
		*sessions = NULL;
		return CUT;
	}
	return n;
}

int wperf_lttng_session_count(void)
{
	struct lttng_session *sessions = NULL;
	int n = list_sessions(&sessions);

	free(sessions);
	return n;
}

bool wperf_lttng_session_exists(const char *name)
{
	struct lttng_session *sessions = NULL;
	int n = list_sessions(&sessions);
	bool found = false;

	for (int i = 0; i < n && !found; i++)
		found = !strcmp(sessions[i].name, name);
	free(sessions);
	return found;
}

/* ------------------------------------------------------------ sessions */

bool wperf_lttng_kernel_available(void)
{
	/* `lttng list -k`: the kernel tracer lists its tracepoints, or fails
	 * without lttng-modules. */
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_KERNEL };
	struct lttng_event *events = NULL;
	struct lttng_handle *handle = lttng_create_handle(NULL, &dom);
	int n;

	if (!handle)
		return false;
	if (!wperf_ctl_begin("listing kernel tracepoints", WPERF_CTL_ASK_S, NULL, 0)) {
		lttng_destroy_handle(handle);
		return false;
	}
	n = lttng_list_tracepoints(handle, &events);
	if (wperf_ctl_end(NULL, 0))
		n = CUT;
	free(events);
	lttng_destroy_handle(handle);
	return n >= 0;
}

/* The session itself, as `lttng create NAME --output=WHERE` (record),
 * `--snapshot --output=WHERE` (snapshot), `--set-url=WHERE` (relay) or
 * `--live --set-url=WHERE` (live; the local relay daemon without
 * WHERE). */
static int create_bare(const char *name, enum wperf_session_kind kind, const char *where,
		       char *why, size_t whylen)
{
	struct lttng_session_descriptor *desc = NULL;
	int ret;

	switch (kind) {
	case WPERF_SESSION_RECORD:
		desc = lttng_session_descriptor_local_create(name, where);
		break;
	case WPERF_SESSION_SNAPSHOT:
		/* No output: each snapshot names its own (a path held by
		 * descriptor, never DIR's path, which its user may swap). */
		desc = where ? lttng_session_descriptor_snapshot_local_create(name, where) :
		       lttng_session_descriptor_snapshot_create(name);
		break;
	case WPERF_SESSION_RELAY:
		desc = lttng_session_descriptor_network_create(name, where, NULL);
		break;
	case WPERF_SESSION_LIVE:
		desc = lttng_session_descriptor_live_network_create(
			name, where ? where : "net://127.0.0.1", NULL, LIVE_TIMER_US);
		break;
	}
	if (!desc)
		return say_why(-LTTNG_ERR_INVALID, why, whylen, "creating session %s", name);
	ret = negative(lttng_create_session_ext(desc));
	lttng_session_descriptor_destroy(desc);
	if (ret)
		return say_why(ret, why, whylen, "creating session %s", name);
	return 0;
}

/* The domain of a channel: the kernel's global buffers, or UST's per-user
 * ones (lttng enable-channel's defaults). */
static struct lttng_domain domain_of(bool kernel)
{
	struct lttng_domain dom;

	memset(&dom, 0, sizeof(dom));
	dom.type = kernel ? LTTNG_DOMAIN_KERNEL : LTTNG_DOMAIN_UST;
	dom.buf_type = kernel ? LTTNG_BUFFER_GLOBAL : LTTNG_BUFFER_PER_UID;
	return dom;
}

/* Four sub-buffers per CPU of a power-of-two size adding up to at most
 * buffer_kb (LTTng wants powers of two; four lets the consumer write one
 * while the tracer fills the others). */
static unsigned long long subbuf_size(unsigned buffer_kb)
{
	unsigned long long size = 4096;

	while (size * 2 * 4 <= (unsigned long long)buffer_kb * 1024)
		size *= 2;
	return size;
}

/* `lttng enable-channel [-k|-u] NAME [--overwrite] --subbuf-size=S
 * --num-subbuf=4`, through handle. */
static int enable_channel(struct lttng_handle *handle, struct lttng_domain *dom,
			  const char *channel, bool overwrite, unsigned buffer_kb,
			  char *why, size_t whylen)
{
	struct lttng_channel *chan = lttng_channel_create(dom);
	int ret;

	if (!chan)
		return say_why(-LTTNG_ERR_NOMEM, why, whylen, "creating channel %s", channel);
	snprintf(chan->name, sizeof(chan->name), "%s", channel);
	chan->enabled = 1;
	if (overwrite)
		chan->attr.overwrite = 1;
	chan->attr.subbuf_size = subbuf_size(buffer_kb);
	chan->attr.num_subbuf = 4;
	ret = negative(lttng_enable_channel(handle, chan));
	lttng_channel_destroy(chan);
	if (ret)
		return say_why(ret, why, whylen, "enabling channel %s", channel);
	return 0;
}

/* `lttng enable-event [-k|-u] -c CHANNEL NAME`: a tracepoint (a name
 * pattern for UST), every log level. */
static int enable_event(struct lttng_handle *handle, const char *channel, const char *name)
{
	struct lttng_event *ev = lttng_event_create();
	int ret;

	if (!ev)
		return -LTTNG_ERR_NOMEM;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->type = LTTNG_EVENT_TRACEPOINT;
	ev->loglevel_type = LTTNG_EVENT_LOGLEVEL_ALL;
	ev->loglevel = -1;
	ret = negative(lttng_enable_event_with_exclusions(handle, ev, channel, NULL, 0, NULL));
	lttng_event_destroy(ev);
	return ret;
}

/* `lttng add-context -c CHANNEL -t ...` for each type of types. */
static int add_contexts(struct lttng_handle *handle, const char *channel,
			const enum lttng_event_context_type *types, size_t ntypes,
			char *why, size_t whylen)
{
	for (size_t i = 0; i < ntypes; i++) {
		struct lttng_event_context ctx;
		int ret;

		memset(&ctx, 0, sizeof(ctx));
		ctx.ctx = types[i];
		ret = negative(lttng_add_context(handle, &ctx, NULL, channel));
		if (ret)
			return say_why(ret, why, whylen, "adding a context to channel %s", channel);
	}
	return 0;
}

/* The kernel channel: the required events, the others when this
 * lttng-modules has them, the contexts. */
static int kernel_channel(const char *name, bool overwrite, unsigned buffer_kb, bool stacks,
			  char *why, size_t whylen)
{
	static const enum lttng_event_context_type contexts[] = {
		LTTNG_EVENT_CONTEXT_TID, LTTNG_EVENT_CONTEXT_PID, LTTNG_EVENT_CONTEXT_PROCNAME,
	};
	/* Where each wait began (sched_switch carries prev's stacks). */
	static const enum lttng_event_context_type stack_contexts[] = {
		LTTNG_EVENT_CONTEXT_CALLSTACK_KERNEL, LTTNG_EVENT_CONTEXT_CALLSTACK_USER,
	};
	struct lttng_domain dom = domain_of(true);
	struct lttng_handle *handle = lttng_create_handle(name, &dom);
	size_t nevents = sizeof(lttng_kernel_events) / sizeof(lttng_kernel_events[0]);
	int ret;

	if (!handle)
		return say_why(-LTTNG_ERR_NOMEM, why, whylen, "session %s", name);
	ret = enable_channel(handle, &dom, KERNEL_CHANNEL, overwrite, buffer_kb, why, whylen);
	for (size_t i = 0; !ret && i < nevents; i++) {
		const struct lttng_kernel_event *ev = &lttng_kernel_events[i];
		int r;

		if (!ev->name)          /* an ftrace-only tracepoint */
			continue;
		r = enable_event(handle, KERNEL_CHANNEL, ev->name);
		if (r && ev->required)
			ret = say_why(r, why, whylen, "enabling kernel event %s", ev->name);
	}
	if (!ret)
		ret = add_contexts(handle, KERNEL_CHANNEL, contexts, 3, why, whylen);
	if (!ret && stacks)
		ret = add_contexts(handle, KERNEL_CHANNEL, stack_contexts, 2, why, whylen);
	lttng_destroy_handle(handle);
	return ret;
}

/* The UST channel: the events of the comma-separated list, the
 * contexts. */
static int ust_channel(const char *name, bool overwrite, const char *ust_events,
		       unsigned buffer_kb, char *why, size_t whylen)
{
	static const enum lttng_event_context_type contexts[] = {
		LTTNG_EVENT_CONTEXT_VTID, LTTNG_EVENT_CONTEXT_VPID, LTTNG_EVENT_CONTEXT_PROCNAME,
	};
	struct lttng_domain dom = domain_of(false);
	struct lttng_handle *handle = lttng_create_handle(name, &dom);
	char *list = strdup(ust_events), *save = NULL;
	int ret;

	if (!handle || !list) {
		lttng_destroy_handle(handle);
		free(list);
		return say_why(-LTTNG_ERR_NOMEM, why, whylen, "session %s", name);
	}
	ret = enable_channel(handle, &dom, UST_CHANNEL, overwrite, buffer_kb, why, whylen);
	for (char *ev = strtok_r(list, ",", &save); !ret && ev; ev = strtok_r(NULL, ",", &save)) {
		int r = enable_event(handle, UST_CHANNEL, ev);

		if (r)
			ret = say_why(r, why, whylen, "enabling UST event %s", ev);
	}
	if (!ret)
		ret = add_contexts(handle, UST_CHANNEL, contexts, 3, why, whylen);
	free(list);
	lttng_destroy_handle(handle);
	return ret;
}

int wperf_lttng_create_session(const char *name, enum wperf_session_kind kind,
			       const char *where, bool kernel, const char *ust_events,
			       unsigned buffer_kb, bool stacks, char *why, size_t whylen)
{
	bool overwrite = kind == WPERF_SESSION_SNAPSHOT;
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "creating session", name),
			     WPERF_CTL_DO_S, why, whylen))
		return CUT;

	bool made = !(ret = create_bare(name, kind, where, why, whylen));

	if (!ret && kernel)
		ret = kernel_channel(name, overwrite, buffer_kb, stacks, why, whylen);
	if (!ret)
		ret = ust_channel(name, overwrite, ust_events, buffer_kb, why, whylen);
	if (wperf_ctl_end(why, whylen))
		return CUT;     /* what was made stays: the daemon does not answer */
	if (ret && made)
		wperf_lttng_destroy_session(name);
	return ret;
}

/* ------------------------------------------------------------ control */

int wperf_lttng_start(const char *name, char *why, size_t whylen)
{
	/* Returns once the kernel session is started and every CPU sees it
	 * (lttng-sessiond's cmd_start_trace: kernel_start_session, then
	 * kernel_wait_quiescent). */
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "starting session", name),
			     WPERF_CTL_DO_S, why, whylen))
		return CUT;
	ret = negative(lttng_start_tracing(name));
	if (wperf_ctl_end(why, whylen))
		return CUT;
	return ret ? say_why(ret, why, whylen, "starting session %s", name) : 0;
}

int wperf_lttng_stop(const char *name, char *why, size_t whylen)
{
	/* Waits until the data is available to read, as `lttng stop`. */
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "stopping session", name),
			     WPERF_CTL_DO_S, why, whylen))
		return CUT;
	ret = negative(lttng_stop_tracing(name));
	if (wperf_ctl_end(why, whylen))
		return CUT;
	return ret ? say_why(ret, why, whylen, "stopping session %s", name) : 0;
}

int wperf_lttng_regenerate_statedump(const char *name, char *why, size_t whylen)
{
	char what[160];
	int ret;

	if (!wperf_ctl_begin(doing(what, sizeof(what), "regenerating the statedump of", name),
			     WPERF_CTL_DO_S, why, whylen))
		return CUT;
	ret = negative(lttng_regenerate_statedump(name));
	if (wperf_ctl_end(why, whylen))
		return CUT;
	return ret ? say_why(ret, why, whylen, "regenerating the statedump of session %s",
			     name) : 0;
}

int wperf_lttng_snapshot_record(const char *name, const char *path, char *why,
				size_t whylen)
{
	struct lttng_snapshot_output *output = lttng_snapshot_output_create();
	char what[160];
	int ret;

	if (!output)
		return say_why(-LTTNG_ERR_NOMEM, why, whylen, "snapshot of session %s", name);
	ret = negative(lttng_snapshot_output_set_local_path(path, output));
	if (!ret && !wperf_ctl_begin(doing(what, sizeof(what), "a snapshot of session", name),
				     WPERF_CTL_DO_S, why, whylen))
		ret = CUT;
	else if (!ret) {
		ret = negative(lttng_snapshot_record(name, output, 1));
		if (wperf_ctl_end(why, whylen)) {
			lttng_snapshot_output_destroy(output);
			return CUT;
		}
	}
	lttng_snapshot_output_destroy(output);
	if (ret == CUT)
		return CUT;
	return ret ? say_why(ret, why, whylen, "recording a snapshot of session %s into %s",
			     name, path) : 0;
}

/* ------------------------------------------------------------ triggers */

/* The condition: UST event `event` (a name pattern) emitted, its fields
 * matching filter (when not NULL). NULL when a part is refused. */
static struct lttng_condition *event_condition(const char *event, const char *filter)
{
	struct lttng_event_rule *rule = lttng_event_rule_user_tracepoint_create();
	struct lttng_condition *cond = NULL;

	if (rule &&
	    lttng_event_rule_user_tracepoint_set_name_pattern(rule, event) ==
	    LTTNG_EVENT_RULE_STATUS_OK &&
	    (!filter || lttng_event_rule_user_tracepoint_set_filter(rule, filter) ==
	     LTTNG_EVENT_RULE_STATUS_OK))
		cond = lttng_condition_event_rule_matches_create(rule);
	lttng_event_rule_destroy(rule);
	return cond;
}

/* The trigger's snapshot action, into the directory `into` (resolved by
 * the session daemon at each snapshot); NULL when a part is refused. */
static struct lttng_action *snapshot_action(const char *name, const char *into)
{
	struct lttng_action *action = lttng_action_snapshot_session_create();
	struct lttng_snapshot_output *output = lttng_snapshot_output_create();

	if (!action || !output ||
	    lttng_action_snapshot_session_set_session_name(action, name) !=
	    LTTNG_ACTION_STATUS_OK ||
	    lttng_snapshot_output_set_local_path(into, output) < 0) {
		lttng_snapshot_output_destroy(output);
		lttng_action_destroy(action);
		return NULL;
	}
	/* It takes the output (it refuses only a NULL one). */
	if (lttng_action_snapshot_session_set_output(action, output) != LTTNG_ACTION_STATUS_OK) {
		lttng_action_destroy(action);
		return NULL;
	}
	return action;
}

int wperf_lttng_add_snapshot_trigger(const char *trigger, const char *name, const char *into,
				     const char *event, const char *filter, char *why,
				     size_t whylen)
{
	struct lttng_condition *cond = event_condition(event, filter);
	struct lttng_action *action = snapshot_action(name, into);
	struct lttng_action *notify = lttng_action_notify_create();
	/* The session daemon's action executor runs a list's actions in
	 * order, the snapshot to its end (cmd_snapshot_record), so the
	 * notification says that the snapshot is whole. */
	struct lttng_action *list = lttng_action_list_create();
	struct lttng_trigger *t = NULL;
	int ret = -LTTNG_ERR_INVALID;

	if (cond && action && notify && list &&
	    lttng_action_list_add_action(list, action) == LTTNG_ACTION_STATUS_OK &&
	    lttng_action_list_add_action(list, notify) == LTTNG_ACTION_STATUS_OK &&
	    (t = lttng_trigger_create(cond, list))) {
		if (!wperf_ctl_begin("registering a trigger", WPERF_CTL_DO_S, why, whylen))
			ret = CUT;
		else {
			ret = negative(lttng_register_trigger_with_name(t, trigger));
			if (wperf_ctl_end(why, whylen))
				ret = CUT;
		}
	}
	lttng_trigger_destroy(t);
	lttng_action_destroy(list);
	lttng_action_destroy(notify);
	lttng_action_destroy(action);
	lttng_condition_destroy(cond);
	if (ret == CUT)
		return CUT;     /* why says it */
	if (ret)
		return say_why(ret, why, whylen, "adding trigger %s on UST event %s%s%s",
			       trigger, event, filter ? " with filter " : "", filter ? filter : "");
	return 0;
}

/* ------------------------------------------------------------ notifications */

struct wperf_lttng_watch {
	struct lttng_notification_channel *channel;
	struct lttng_condition *condition;
	char trigger[256];
};

struct wperf_lttng_watch *wperf_lttng_watch_trigger(const char *trigger, const char *event,
						   const char *filter, char *why,
						   size_t whylen)
{
	struct wperf_lttng_watch *w = calloc(1, sizeof(*w));
	enum lttng_notification_channel_status st = LTTNG_NOTIFICATION_CHANNEL_STATUS_ERROR;

	if (!wperf_ctl_begin("subscribing to notifications", WPERF_CTL_ASK_S, why, whylen)) {
		free(w);
		return NULL;
	}
	if (w) {
		snprintf(w->trigger, sizeof(w->trigger), "%s", trigger);
		w->condition = event_condition(event, filter);
		w->channel = lttng_notification_channel_create(
			lttng_session_daemon_notification_endpoint);
	}
	if (w && w->condition && w->channel)
		st = lttng_notification_channel_subscribe(w->channel, w->condition);
	if (wperf_ctl_end(why, whylen)) {
		wperf_lttng_watch_end(w);
		return NULL;
	}
	if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK)
		return w;
	if (why && whylen)
		snprintf(why, whylen, "LTTng: cannot subscribe to the notifications of trigger "
			 "%s (status %d)", trigger, (int)st);
	wperf_lttng_watch_end(w);
	return NULL;
}

/* Whether notification n is of our trigger (another flight recorder's
 * may have the same condition). */
static bool ours(const struct wperf_lttng_watch *w, struct lttng_notification *n)
{
	const struct lttng_trigger *t = lttng_notification_get_trigger(n);
	const char *name = NULL;

	return t && lttng_trigger_get_name(t, &name) == LTTNG_TRIGGER_STATUS_OK && name &&
	       !strcmp(name, w->trigger);
}

int wperf_lttng_watch_wait(struct wperf_lttng_watch *w, int timeout_ms)
{
	int count = 0;

	/* The channel has no descriptor to poll: look every 20 ms. */
	for (int waited = 0; ; waited += 20) {
		bool pending = false;

		if (!wperf_ctl_begin("reading notifications", WPERF_CTL_ASK_S, NULL, 0))
			return -2;
		while (lttng_notification_channel_has_pending_notification(w->channel, &pending) ==
		       LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && pending) {
			struct lttng_notification *n = NULL;
			enum lttng_notification_channel_status st =
				lttng_notification_channel_get_next_notification(w->channel, &n);

			if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_NOTIFICATIONS_DROPPED) {
				lttng_notification_destroy(n);
				wperf_ctl_end(NULL, 0);
				return -1;
			}
			if (st == LTTNG_NOTIFICATION_CHANNEL_STATUS_OK && n && ours(w, n))
				count++;
			lttng_notification_destroy(n);
			if (st != LTTNG_NOTIFICATION_CHANNEL_STATUS_OK)
				break;
		}
		if (wperf_ctl_end(NULL, 0))
			return -2;
		if (count || waited >= timeout_ms)
			return count;
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
}

void wperf_lttng_watch_end(struct wperf_lttng_watch *w)
{
	if (!w)
		return;
	if (w->channel)
		lttng_notification_channel_destroy(w->channel);
	lttng_condition_destroy(w->condition);
	free(w);
}
