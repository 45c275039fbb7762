/* SPDX-License-Identifier: MIT */
/*
 * plugin/knots/knots-sync.c — sink.wperf.knots' sync-hosts=: several
 * hosts' live sessions put on one time base as they are read, from the
 * TCP segments matched so far (a growing window), for `wperf top --relay
 * URL --hosts A,B`.
 *
 * Offline, `wperf report A B` reads the traces twice: the transforms
 * first (sink.wperf.netsync), then the analysis with each host's clock
 * moved (tools/wperf/report-hosts.c). A live session can be read once
 * only, from when the viewer attached, and the muxer merges the hosts on
 * their own clocks, which may be a second apart. So here every message
 * is held, in one queue per host (each host's messages stay in their
 * order), while the segments are matched (analysis/netmatch.c) and the
 * transforms computed (analysis/clocksync.c) on the host's raw times:
 *
 * - until every host has a transform to the reference (the first host by
 *   name) from segments matched both ways, nothing is analysed, and at
 *   each every= of the input's time one line says that it cannot
 *   synchronise yet and why (what matched so far);
 * - then the queues are released in the order of the hosts' times on the
 *   reference's clock, as far as every host has been read (the smallest
 *   of their latest times, on that clock: a live source's inactivity
 *   messages move it too), so the analysis reads the hosts merged as the
 *   offline path's muxer does, and a receive follows the send it pairs;
 * - the transforms are computed again at each second of the input's time
 *   with new matches (a growing window: the accuracy tightens as the
 *   span grows), and the decoder maps each host's later events with the
 *   latest (wperf_decoder_set_host_clock), so each report states the
 *   transform it used.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/message.h"
#include "common/tcp-key.h"
#include "wperf/clocksync.h"
#include "wperf/netmatch.h"
#include "wperf/report.h"
#include "knots-sink.h"

/* Messages held before the first transform, at most: about 1 KiB each. */
#define HOLD_MAX (1u << 21)
/* Input time between two computations once synchronised. */
#define RECOMPUTE_NS INT64_C(1000000000)
/* Before: input time between two attempts (each reads every match). */
#define ATTEMPT_NS INT64_C(100000000)

struct held {
	const bt_message *msg;
	int64_t raw;            /* on its host's clock */
};

struct sync_host {
	const char *name;       /* in the sync-hosts list */
	struct held *q;         /* the queue: q[head..n) */
	size_t head, n, cap;
	int64_t last;           /* the latest time read, raw */
	bool seen;
	struct wperf_clock_sync clock;   /* the reference's clock to this one */
	bool has_clock;
};

struct knots_sync {
	struct sync_host host[WPERF_HOSTS_MAX];
	unsigned n, ref;
	/* Clock classes of the hosts' streams, for inactivity messages. */
	const bt_clock_class *cc[64];
	unsigned cc_host[64], ncc;
	struct wperf_netmatch *match;
	bool synced;
	size_t held, computed_matches;
	int64_t computed_at, latest, next_notice;
	bool any_time;
	uint64_t notices;
	char state[768];        /* why it cannot synchronise yet */
};

/* ------------------------------------------------------------ hosts */

static int host_by_name(const struct knots_sync *y, const char *name)
{
	for (unsigned i = 0; i < y->n; i++)
		if (!strcmp(y->host[i].name, name))
			return (int)i;
	return -1;
}

/* The host of a stream: its trace's hostname (else its name); -1 with
 * the error appended when sync-hosts does not name it. */
static int stream_host(struct knots_sink *s, const bt_stream *stream)
{
	const bt_trace *t = bt_stream_borrow_trace_const(stream);
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, "hostname");
	const char *name = v && bt_value_is_string(v) ? bt_value_string_get(v)
						      : bt_trace_get_name(t);
	const bt_clock_class *cc = bt_stream_class_borrow_default_clock_class_const(
		bt_stream_borrow_class_const(stream));
	struct knots_sync *y = s->sync;
	int h = host_by_name(y, name ? name : "");

	if (h < 0) {
		sink_fail(s, "parameter `sync-hosts`: the input holds a trace of host %s, "
			  "which it does not name: name every host read (hostnames as the "
			  "traces give them)", name ? name : "(unnamed)");
		return -1;
	}
	if (cc) {
		unsigned k;

		for (k = 0; k < y->ncc && y->cc[k] != cc; k++)
			;
		if (k == y->ncc && k < sizeof(y->cc) / sizeof(y->cc[0])) {
			y->cc[k] = cc;
			y->cc_host[k] = (unsigned)h;
			y->ncc++;
		}
	}
	y->host[h].seen = true;
	return h;
}

/* Host h's raw time on the reference's clock (the decoder's mapping). */
static int64_t on_reference(const struct knots_sync *y, unsigned h, int64_t raw)
{
	const struct wperf_clock_sync *c = &y->host[h].clock;

	if (h == y->ref || !y->host[h].has_clock)
		return raw;
	return c->anchor_x + (int64_t)llroundl(((long double)raw - c->anchor_y) / c->alpha);
}

/* ------------------------------------------------------------ the transforms */

/* Reference ref and host h's matches as points; the transform into *c.
 * -1 when out of memory. */
static int pair_clock(const struct knots_sync *y, unsigned h, struct wperf_clock_sync *c)
{
	size_t n = wperf_netmatch_count(y->match), nab = 0, nba = 0;
	struct wperf_sync_point *ab = malloc((n ? n : 1) * sizeof(*ab));
	struct wperf_sync_point *ba = malloc((n ? n : 1) * sizeof(*ba));
	int rc = -1;

	if (ab && ba) {
		for (size_t i = 0; i < n; i++) {
			const struct wperf_net_match *m = wperf_netmatch_get(y->match, i);

			if (!wperf_netmatch_unique(y->match, i))
				continue;   /* a copy: maybe another copy's receive */
			if (m->send.host == y->ref && m->recv.host == h)
				ab[nab++] = (struct wperf_sync_point){ m->send.ns, m->recv.ns };
			else if (m->send.host == h && m->recv.host == y->ref)
				ba[nba++] = (struct wperf_sync_point){ m->recv.ns, m->send.ns };
		}
		rc = wperf_clock_sync_compute(ab, nab, ba, nba, c);
	}
	free(ab);
	free(ba);
	return rc;
}

static bool usable(const struct wperf_clock_sync *c)
{
	return c->quality == WPERF_SYNC_ACCURATE || c->quality == WPERF_SYNC_APPROXIMATE;
}

/* Hand host h's transform to the decoder: its time y is the reference's
 * anchor_x + (y - anchor_y) / alpha. -1 with the error appended. */
static int give_clock(struct knots_sink *s, unsigned h)
{
	const struct wperf_clock_sync *c = &s->sync->host[h].clock;
	char item[256], err[512];
	int n = snprintf(item, sizeof item, "%s:%.21Lg:%" PRId64 ":%" PRId64 ":%.3f:0",
			 s->sync->host[h].name, c->alpha, (int64_t)llroundl(c->anchor_y),
			 c->anchor_x, c->accuracy_ns);

	if (n < 0 || (size_t)n >= sizeof item) {
		sink_fail(s, "parameter `sync-hosts`: host %s's transform is too long to hold",
			  s->sync->host[h].name);
		return -1;
	}
	if (wperf_decoder_set_host_clock(s->decoder, item, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* Say in y->state why the hosts are not synchronised (yet). */
static void note_state(struct knots_sync *y, unsigned h, const struct wperf_clock_sync *c,
		       bool seen)
{
	const char *ref = y->host[y->ref].name, *other = y->host[h].name;

	if (!seen)
		snprintf(y->state, sizeof y->state, "nothing read from host %s yet", other);
	else
		snprintf(y->state, sizeof y->state, "%zu TCP segments matched %s -> %s and %zu "
			 "%s -> %s (synchronisation %s: %s)", c->n_ab, ref, other, c->n_ba, other,
			 ref, wperf_sync_quality_name(c->quality),
			 c->quality == WPERF_SYNC_FAIL ? "no transform keeps every segment "
			 "received after it was sent"
			 : "segments must match both ways");
}

/* Compute every host's transform from the matches so far; keep them
 * only when all are usable (a failing one keeps the last good one).
 * -1 with the error appended. */
static int compute(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;
	struct wperf_clock_sync c[WPERF_HOSTS_MAX];
	bool all = true;

	y->computed_matches = wperf_netmatch_count(y->match);
	y->computed_at = y->latest;
	for (unsigned h = 0; h < y->n; h++) {
		if (h == y->ref)
			continue;
		if (pair_clock(y, h, &c[h]) < 0) {
			sink_fail(s, "out of memory");
			return -1;
		}
		if (!y->host[h].seen || !usable(&c[h])) {
			if (all)
				note_state(y, h, &c[h], y->host[h].seen);
			all = false;
		}
	}
	if (!all)
		return 0;
	for (unsigned h = 0; h < y->n; h++) {
		if (h == y->ref)
			continue;
		y->host[h].clock = c[h];
		y->host[h].has_clock = true;
		if (give_clock(s, h) < 0)
			return -1;
	}
	y->synced = true;
	return 0;
}

/* Compute again when the input went on long enough with new matches. */
static int maybe_compute(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;
	int64_t every = y->synced ? RECOMPUTE_NS : ATTEMPT_NS;

	if (wperf_netmatch_count(y->match) == y->computed_matches ||
	    y->latest - y->computed_at < every)
		return 0;
	return compute(s);
}

/* ------------------------------------------------------------ the queues */

static int push(struct knots_sink *s, unsigned h, const bt_message *msg, int64_t raw)
{
	struct sync_host *x = &s->sync->host[h];

	if (x->head == x->n)
		x->head = x->n = 0;
	if (x->n == x->cap) {
		if (x->head > x->cap / 2) {
			/* Mostly released: slide the rest down. */
			memmove(x->q, x->q + x->head, (x->n - x->head) * sizeof(*x->q));
			x->n -= x->head;
			x->head = 0;
		} else {
			size_t cap = x->cap ? x->cap * 2 : 1024;
			struct held *q = realloc(x->q, cap * sizeof(*q));

			if (!q) {
				sink_fail(s, "out of memory");
				return -1;
			}
			x->q = q;
			x->cap = cap;
		}
	}
	x->q[x->n++] = (struct held){ msg, raw };
	s->sync->held++;
	return 0;
}

/* Decode the next message of host h's queue (the reference held it). */
static int release_one(struct knots_sink *s, unsigned h)
{
	struct sync_host *x = &s->sync->host[h];
	const bt_message *msg = x->q[x->head++].msg;
	char err[512];
	int rc = 0;

	s->sync->held--;
	if (wperf_decoder_feed_message(s->decoder, s->analysis, msg, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		rc = -1;
	}
	bt_message_put_ref(msg);
	return rc;
}

/* Release, in the order of their times on the reference's clock, the
 * messages no host can still precede: up to the smallest of the hosts'
 * latest times (all of them, at the end of the input). */
static int release(struct knots_sink *s, bool all)
{
	struct knots_sync *y = s->sync;
	int64_t upto = INT64_MAX;

	for (unsigned h = 0; !all && h < y->n; h++) {
		int64_t t = on_reference(y, h, y->host[h].last);

		if (!y->host[h].seen)
			return 0;
		if (t < upto)
			upto = t;
	}
	for (;;) {
		int best = -1;
		int64_t bt = 0;

		for (unsigned h = 0; h < y->n; h++) {
			struct sync_host *x = &y->host[h];
			int64_t t;

			if (x->head == x->n)
				continue;
			t = on_reference(y, h, x->q[x->head].raw);
			if (best < 0 || t < bt) {
				best = (int)h;
				bt = t;
			}
		}
		if (best < 0 || bt > upto)
			return 0;
		if (release_one(s, (unsigned)best) < 0)
			return -1;
	}
}

/* ------------------------------------------------------------ messages */

/* The message's time on its host's clock, when it has one. */
static bool message_time(const bt_message *msg, int64_t *ns)
{
	const bt_clock_snapshot *cs = wperf_message_time(msg);

	return cs && bt_clock_snapshot_get_ns_from_origin(cs, ns) ==
		BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK;
}

/* A TCP send or receive: to the matcher, on the host's raw clock. */
static int match_event(struct knots_sink *s, unsigned h, const bt_message *msg, int64_t raw)
{
	const bt_event *ev = bt_message_event_borrow_event_const(msg);
	int dir = wperf_tcp_direction(bt_event_class_get_name(bt_event_borrow_class_const(ev)));
	struct wperf_tcp_key key;
	struct wperf_net_side side = { h, raw, 0 };

	if (!dir || !wperf_tcp_key_of(bt_event_borrow_payload_field_const(ev), &key))
		return 0;
	if ((dir > 0 ? wperf_netmatch_send(s->sync->match, &key, &side)
		     : wperf_netmatch_receive(s->sync->match, &key, &side)) < 0) {
		sink_fail(s, "out of memory");
		return -1;
	}
	return 0;
}

/* One line in the stream of reports: not synchronised yet, and why. */
static void notice(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;
	FILE *out = s->every.out;
	char names[512] = "", why[sizeof names + sizeof y->state + 64];
	size_t len = 0;

	for (unsigned h = 0; h < y->n; h++)
		len += (size_t)snprintf(names + len, len < sizeof names ? sizeof names - len : 0,
					"%s%s", h == 0 ? "" : h + 1 == y->n ? " and " : ", ",
					y->host[h].name);
	snprintf(why, sizeof why, "cannot synchronise the clocks of %s yet: %s", names,
		 y->state);
	y->notices++;
	if (s->format == FORMAT_TEXT) {
		fprintf(out, "=== wperf: %s; %zu messages held until then ===\n", why, y->held);
	} else {
		fprintf(out, "{\"every\": {\"report\": \"sync\", \"final\": false, "
			"\"held\": %zu}, \"error\": ", y->held);
		wperf_json_string(out, why);
		fputs("}\n", out);
	}
	fflush(out);
}

/* Notices before the first transform, one per every= of input time,
 * each with the matches of that moment. -1 with the error appended. */
static int maybe_notice(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;

	if (y->synced || !s->every_ns || !s->every.out)
		return 0;
	if (!y->next_notice)
		y->next_notice = y->latest + s->every_ns;
	if (y->latest < y->next_notice)
		return 0;
	if (compute(s) < 0)
		return -1;
	if (y->synced)
		return 0;
	notice(s);
	while (y->next_notice <= y->latest)
		y->next_notice += s->every_ns;
	return 0;
}

/* Time read on host h up to raw. */
static void advance(struct knots_sync *y, unsigned h, int64_t raw)
{
	if (raw > y->host[h].last || !y->host[h].last)
		y->host[h].last = raw;
	if (!y->any_time || raw > y->latest)
		y->latest = raw;
	if (!y->any_time)
		y->computed_at = raw;
	y->any_time = true;
}

/* A live source's inactivity: its host's clock went on up to then. */
static void inactivity(struct knots_sync *y, const bt_message *msg)
{
	const bt_clock_snapshot *cs =
		bt_message_message_iterator_inactivity_borrow_clock_snapshot_const(msg);
	const bt_clock_class *cc = bt_clock_snapshot_borrow_clock_class_const(cs);
	int64_t ns;

	if (bt_clock_snapshot_get_ns_from_origin(cs, &ns) !=
	    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK)
		return;
	for (unsigned k = 0; k < y->ncc; k++)
		if (y->cc[k] == cc) {
			y->host[y->cc_host[k]].seen = true;
			advance(y, y->cc_host[k], ns);
		}
}

int sink_sync_take(struct knots_sink *s, const bt_message *msg)
{
	struct knots_sync *y = s->sync;
	const bt_stream *stream = wperf_message_stream(msg);
	int64_t raw;
	int h;

	if (!stream) {
		/* Inactivity: time, not a message to analyse. */
		if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_MESSAGE_ITERATOR_INACTIVITY)
			inactivity(y, msg);
		bt_message_put_ref(msg);
	} else {
		if ((h = stream_host(s, stream)) < 0) {
			bt_message_put_ref(msg);
			return -1;
		}
		if (message_time(msg, &raw))
			advance(y, (unsigned)h, raw);
		else
			raw = y->host[h].last;   /* right after what precedes it */
		if (bt_message_get_type(msg) == BT_MESSAGE_TYPE_EVENT &&
		    match_event(s, (unsigned)h, msg, raw) < 0) {
			bt_message_put_ref(msg);
			return -1;
		}
		if (push(s, (unsigned)h, msg, raw) < 0) {
			bt_message_put_ref(msg);
			return -1;
		}
	}
	if (maybe_compute(s) < 0)
		return -1;
	if (!y->synced) {
		if (y->held > HOLD_MAX) {
			sink_fail(s, "cannot synchronise the hosts' clocks within the first %u "
				  "messages: %s; the hosts must exchange TCP segments both ways, "
				  "and record net_dev_queue and net_if_receive_skb (wperf record "
				  "on LTTng's kernel tracer)", HOLD_MAX, y->state);
			return -1;
		}
		if (maybe_notice(s) < 0)
			return -1;
		if (!y->synced)
			return 0;
	}
	return release(s, false);
}

int sink_sync_end(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;

	if (!y->synced && compute(s) < 0)
		return -1;
	if (!y->synced) {
		sink_fail(s, "cannot synchronise the hosts' clocks: %s, so their waits cannot be "
			  "put on one time base: the hosts must exchange TCP segments both ways "
			  "while both are read; report each host alone", y->state);
		return -1;
	}
	/* The last transform for what is still held. */
	if (wperf_netmatch_count(y->match) != y->computed_matches && compute(s) < 0)
		return -1;
	return release(s, true);
}

int sink_sync_init(struct knots_sink *s)
{
	struct knots_sync *y;

	if (!s->sync_hosts.n)
		return 0;
	if (s->sync_hosts.n < 2 || s->sync_hosts.n > WPERF_HOSTS_MAX) {
		sink_fail(s, "parameter `sync-hosts`: name 2 to %d hosts (their hostnames, "
			  "comma-separated)", WPERF_HOSTS_MAX);
		return -1;
	}
	if (wperf_window_given(&s->window)) {
		sink_fail(s, "parameter `sync-hosts`: cannot be combined with begin/end");
		return -1;
	}
	if (!(y = s->sync = calloc(1, sizeof(*y))) || !(y->match = wperf_netmatch_create())) {
		sink_fail(s, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < s->sync_hosts.n; i++) {
		if (host_by_name(y, s->sync_hosts.items[i]) >= 0) {
			sink_fail(s, "parameter `sync-hosts`: host %s is named twice",
				  s->sync_hosts.items[i]);
			return -1;
		}
		y->host[y->n++].name = s->sync_hosts.items[i];
		/* The reference: the first by name, as wperf report's. */
		if (strcmp(y->host[y->n - 1].name, y->host[y->ref].name) < 0)
			y->ref = y->n - 1;
	}
	snprintf(y->state, sizeof y->state, "nothing read yet");
	return 0;
}

void sink_sync_destroy(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;

	if (!y)
		return;
	for (unsigned h = 0; h < y->n; h++) {
		for (size_t i = y->host[h].head; i < y->host[h].n; i++)
			bt_message_put_ref(y->host[h].q[i].msg);
		free(y->host[h].q);
	}
	wperf_netmatch_destroy(y->match);
	free(y);
	s->sync = NULL;
}
