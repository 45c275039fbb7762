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
 * - until every host is placed on the reference's time (the first host
 *   by name), directly or through a chain of host pairs synchronised by
 *   segments matched both ways (wperf_clock_tree: the chain whose
 *   accuracies add up least), nothing is analysed, and at each every= of
 *   the input's time one line says that it cannot synchronise yet and
 *   why (what matched so far);
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

#include "common/hosts.h"
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
	struct wperf_clock_place clock;   /* on the reference's clock */
	bool has_clock;
	char via[WPERF_HOSTS_MAX * 72];   /* the hosts it was placed through */
};

/* Host pairs (a < b), at most. */
#define PAIRS_MAX (WPERF_HOSTS_MAX * (WPERF_HOSTS_MAX - 1) / 2)

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
	char state[2048];       /* why it cannot synchronise yet */
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
	if (h == y->ref || !y->host[h].has_clock)
		return raw;
	return wperf_clock_place_invert(&y->host[h].clock, raw);
}

/* ------------------------------------------------------------ the transforms */

/* The unique matches between hosts a < b, as points on (a's clock, b's
 * clock), from one pass over the matches. */
struct pair_points {
	struct wperf_sync_point *ab, *ba;
	size_t nab, nba;
};

/* Every host pair's transform, pairs[k] = (a, b) with a < b and
 * sync[k] its transform; *np of them. -1 when out of memory. */
static int all_pairs(const struct knots_sync *y, struct wperf_clock_sync *sync,
		     struct wperf_clock_pair *pairs, size_t *np)
{
	size_t n = wperf_netmatch_count(y->match);
	struct pair_points pp[WPERF_HOSTS_MAX][WPERF_HOSTS_MAX];
	struct wperf_sync_point *buf = malloc((n ? n : 1) * sizeof(*buf)), *next = buf;
	int rc = 0;

	if (!buf)
		return -1;
	memset(pp, 0, sizeof(pp));
	/* Count, then lay each pair's points out in buf. */
	for (size_t i = 0; i < n; i++) {
		const struct wperf_net_match *m = wperf_netmatch_get(y->match, i);
		unsigned a = m->send.host, b = m->recv.host;

		if (!wperf_netmatch_unique(y->match, i))
			continue;   /* a copy: maybe another copy's receive */
		if (a < b)
			pp[a][b].nab++;
		else
			pp[b][a].nba++;
	}
	for (unsigned a = 0; a < y->n; a++)
		for (unsigned b = a + 1; b < y->n; b++) {
			pp[a][b].ab = next;
			next += pp[a][b].nab;
			pp[a][b].ba = next;
			next += pp[a][b].nba;
			pp[a][b].nab = pp[a][b].nba = 0;
		}
	for (size_t i = 0; i < n; i++) {
		const struct wperf_net_match *m = wperf_netmatch_get(y->match, i);
		unsigned a = m->send.host, b = m->recv.host;

		if (!wperf_netmatch_unique(y->match, i))
			continue;
		if (a < b)
			pp[a][b].ab[pp[a][b].nab++] = (struct wperf_sync_point){ m->send.ns,
										  m->recv.ns };
		else
			pp[b][a].ba[pp[b][a].nba++] = (struct wperf_sync_point){ m->recv.ns,
										  m->send.ns };
	}
	*np = 0;
	for (unsigned a = 0; !rc && a < y->n; a++)
		for (unsigned b = a + 1; !rc && b < y->n; b++) {
			rc = wperf_clock_sync_compute(pp[a][b].ab, pp[a][b].nab, pp[a][b].ba,
						      pp[a][b].nba, &sync[*np]);
			pairs[*np] = (struct wperf_clock_pair){ a, b, &sync[*np] };
			(*np)++;
		}
	free(buf);
	return rc;
}

/* Hand host h's transform to the decoder: its time y is the reference's
 * anchor_x + (y - anchor_y) / alpha. -1 with the error appended. */
static int give_clock(struct knots_sink *s, unsigned h)
{
	const struct sync_host *x = &s->sync->host[h];
	const struct wperf_clock_place *c = &x->clock;
	char item[256 + sizeof x->via], err[512];
	int n = snprintf(item, sizeof item, "%s:%.21Lg:%" PRId64 ":%" PRId64 ":%.3f:0%s%s",
			 x->name, c->alpha, (int64_t)llroundl(c->anchor_y), c->anchor_x,
			 c->accuracy_ns, x->via[0] ? ":via=" : "", x->via);

	if (n < 0 || (size_t)n >= sizeof item) {
		sink_fail(s, "parameter `sync-hosts`: host %s's transform is too long to hold",
			  x->name);
		return -1;
	}
	if (wperf_decoder_set_host_clock(s->decoder, item, err, sizeof err) < 0) {
		sink_fail(s, "%s", err);
		return -1;
	}
	return 0;
}

/* The hosts between the reference and h on h's chain, "B,C", into via. */
static void chain_via(const struct knots_sync *y, const struct wperf_clock_place *pl,
		      unsigned h, char *via, size_t len)
{
	unsigned chain[WPERF_HOSTS_MAX], n = 0;
	size_t used = 0;

	for (unsigned k = pl[h].prev; k != y->ref && n < WPERF_HOSTS_MAX; k = pl[k].prev)
		chain[n++] = k;
	via[0] = '\0';
	while (n-- > 0 && used < len)
		used += (size_t)snprintf(via + used, len - used, "%s%s", used ? "," : "",
					 y->host[chain[n]].name);
}

/* What matched between the hosts of pair p (the reference's side
 * first), and why that places neither. */
static size_t say_pair(char *buf, size_t len, const struct knots_sync *y,
		       const struct wperf_clock_pair *p, const struct wperf_clock_sync *c)
{
	bool flip = p->b == y->ref;
	unsigned a = flip ? p->b : p->a, b = flip ? p->a : p->b;
	size_t ab = flip ? c->n_ba : c->n_ab, ba = flip ? c->n_ab : c->n_ba;
	int k = snprintf(buf, len, "%zu TCP segments matched %s -> %s and %zu %s -> %s "
			 "(synchronisation %s: %s)", ab, y->host[a].name, y->host[b].name,
			 ba, y->host[b].name, y->host[a].name,
			 wperf_sync_quality_name(c->quality),
			 c->quality == WPERF_SYNC_FAIL ? "no transform keeps every segment "
			 "received after it was sent" : "segments must match both ways");

	return k < 0 ? 0 : (size_t)k;
}

/* The pair of host h that says most about why it is not placed: its
 * pair with the reference when that matched anything, else its pair
 * with the most matches (the reference's first of equals); np if none. */
static size_t telling_pair(const struct knots_sync *y, unsigned h,
			   const struct wperf_clock_sync *sync, const struct wperf_clock_pair *pairs,
			   size_t np)
{
	size_t best = np, best_m = 0;
	bool best_ref = false;

	for (size_t k = 0; k < np; k++) {
		size_t m = sync[k].n_ab + sync[k].n_ba;
		bool ref = pairs[k].a == y->ref || pairs[k].b == y->ref;

		if (pairs[k].a != h && pairs[k].b != h)
			continue;
		if (best == np || (ref && m > 0) ||
		    (!(best_ref && best_m > 0) && (m > best_m || (m == best_m && ref)))) {
			best = k;
			best_m = m;
			best_ref = ref;
		}
	}
	return best;
}

/* Host h is on the reference's time: read from, placed through a chain of
 * pairs, at a rate the decoder takes (wperf_host_clock_rate_ok). The first
 * matches of a live input, a few segments close together, can fit a line
 * of any slope (a negative one was seen, with the machine loaded): such a
 * placement is no synchronisation yet, and the last good one, if any,
 * stays. compute() and note_state() both ask this. */
static bool synchronised(const struct knots_sync *y, const struct wperf_clock_place *pl,
			 unsigned h)
{
	return h == y->ref ||
	       (y->host[h].seen && pl[h].placed && wperf_host_clock_rate_ok(pl[h].alpha));
}

/* Say in y->state why the hosts are not synchronised (yet): with two
 * hosts, what matched between them; with more, which hosts no chain of
 * synchronised pairs links to the reference, and what each matched.
 * Called when some host is not synchronised(), so bad[] has one at least;
 * all_pairs() lays out every pair of hosts, so each has a telling pair. */
static void note_state(struct knots_sync *y, const struct wperf_clock_place *pl,
		       const struct wperf_clock_sync *sync, const struct wperf_clock_pair *pairs,
		       size_t np)
{
	char *out = y->state;
	size_t len = sizeof y->state, used = 0, nbad = 0, k = 0;
	unsigned bad[WPERF_HOSTS_MAX];

	for (unsigned h = 0; h < y->n; h++)
		if (!synchronised(y, pl, h))
			bad[nbad++] = h;
	if (y->n == 2) {
		size_t p = telling_pair(y, bad[0], sync, pairs, np);

		if (!y->host[bad[0]].seen)
			snprintf(out, len, "nothing read from host %s yet", y->host[bad[0]].name);
		else
			say_pair(out, len, y, &pairs[p], &sync[p]);
		return;
	}
	used = (size_t)snprintf(out, len, "host%s ", nbad > 1 ? "s" : "");
	for (k = 0; k < nbad && used < len; k++)
		used += (size_t)snprintf(out + used, len - used, "%s%s",
					 k == 0 ? "" : k + 1 == nbad ? " and " : ", ",
					 y->host[bad[k]].name);
	if (used < len)
		used += (size_t)snprintf(out + used, len - used, " %s linked to %s by no chain "
					 "of synchronised host pairs (", nbad > 1 ? "are" : "is",
					 y->host[y->ref].name);
	for (k = 0; k < nbad && used < len; k++) {
		unsigned h = bad[k];
		size_t p = telling_pair(y, h, sync, pairs, np);

		used += (size_t)snprintf(out + used, len - used, "%s%s: ", k ? "; " : "",
					 y->host[h].name);
		if (used >= len)
			break;
		if (!y->host[h].seen)
			used += (size_t)snprintf(out + used, len - used, "nothing read yet");
		else if (p == np || sync[p].n_ab + sync[p].n_ba == 0)
			used += (size_t)snprintf(out + used, len - used, "no TCP segment matched "
						 "with any host");
		else
			used += say_pair(out + used, len - used, y, &pairs[p], &sync[p]);
	}
	if (used < len)
		snprintf(out + used, len - used, ")");
}

/* Compute every host pair's transform from the matches so far, and
 * place each host on the reference's time through its tightest chain;
 * keep the placements only when every host is placed (a failing pair
 * keeps the last good ones). -1 with the error appended. */
static int compute(struct knots_sink *s)
{
	struct knots_sync *y = s->sync;
	struct wperf_clock_sync sync[PAIRS_MAX];
	struct wperf_clock_pair pairs[PAIRS_MAX];
	struct wperf_clock_place pl[WPERF_HOSTS_MAX];
	size_t np = 0;
	bool all = true;

	y->computed_matches = wperf_netmatch_count(y->match);
	y->computed_at = y->latest;
	if (all_pairs(y, sync, pairs, &np) < 0 ||
	    wperf_clock_tree(pairs, np, y->n, y->ref, pl) < 0) {
		sink_fail(s, "out of memory");
		return -1;
	}
	for (unsigned h = 0; h < y->n; h++)
		all &= synchronised(y, pl, h);
	if (!all) {
		note_state(y, pl, sync, pairs, np);
		return 0;
	}
	for (unsigned h = 0; h < y->n; h++) {
		if (h == y->ref)
			continue;
		y->host[h].clock = pl[h];
		y->host[h].has_clock = true;
		chain_via(y, pl, h, y->host[h].via, sizeof y->host[h].via);
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
		/* Host names come from the traces' metadata: cleaned. */
		wperf_text_clean(why, sizeof why, why);
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
			wperf_text_clean(y->state, sizeof y->state, y->state);
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
		wperf_text_clean(y->state, sizeof y->state, y->state);    /* names from traces */
		sink_fail(s, "cannot synchronise the hosts' clocks: %s, so their waits cannot be "
			  "put on one time base: each host must exchange TCP segments both ways "
			  "with the first by name, or with a host linked to it, while they are "
			  "read; report the hosts apart", y->state);
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
