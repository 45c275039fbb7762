/* SPDX-License-Identifier: MIT */
/*
 * plugin/netsync/netsync-sink.c — sink.wperf.netsync: the kernel network
 * events of several hosts in, each TCP segment sent on one host matched
 * to its receive on another (analysis/netmatch.c), and each host pair's
 * clock transform from those matches (analysis/clocksync.c) out, as text
 * or JSON, with each host placed on the reference's time through a chain
 * of synchronised pairs (wperf_clock_tree).
 *
 * Events read (lttng-modules): inet_sock_local_out (send) and
 * inet_sock_local_in (receive), with seq, ack_seq and flags in their
 * payload (lttng-modules 2.1 to 2.5); net_dev_queue (send) and
 * net_if_receive_skb (receive) with the TCP header under
 * network_header/transport_header (lttng-modules 2.9 and later). A host
 * is its trace's `hostname` (the trace's name when it has none).
 */
#include <babeltrace2/babeltrace.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/comp-error.h"
#include "common/output.h"
#include "common/params.h"
#include "common/tcp-key.h"
#include "components.h"
#include "wperf/clocksync.h"
#include "wperf/netmatch.h"
#include "wperf/report.h"

#define COMP_NAME "sink.wperf.netsync"
#define MAX_HOSTS 64

const char wperf_netsync_description[] =
	"Match TCP segments sent on one host to their receives on another and "
	"synchronise the hosts' clocks from the matches (convex hull).";

const char wperf_netsync_help[] =
	"Feed it the traces of several hosts (one source.ctf.fs each, through\n"
	"filter.wperf.repair and filter.utils.muxer). It matches each TCP segment\n"
	"sent on one host to its receive on another by (seq, ack_seq, flags) and\n"
	"prints, for each pair of hosts with matches, the transform from the\n"
	"first host's clock (by name) to the other's, t' = alpha*t + beta, with\n"
	"its quality and accuracy; then each host placed on the first host by name\n"
	"(the reference) through the chain of synchronised pairs whose accuracies\n"
	"add up least (a host that talked only to a third is placed through it).\n"
	"Parameters: format=\"text\"|\"json\" (default text), path=FILE (default\n"
	"standard output).\n";

struct host {
	char *name;     /* as the trace says: a trace's metadata, anyone's */
	char *shown;    /* as written: quoted and escaped for JSON, cleaned for text */
	uint64_t sends, receives;
};

struct netsync {
	bt_self_component *self;
	bt_self_component_port_input *port;
	bt_message_iterator *iter;
	struct wperf_netmatch *match;
	struct host hosts[MAX_HOSTS];
	unsigned nhosts;
	bool json;
	char *path;
};

/* One error line, "sink.wperf.netsync: ...", as the cause of the ERROR
 * status about to be returned (plugin/common/comp-error.h). */
#define fail(s, msg) WPERF_COMP_ERROR((s)->self, COMP_NAME, "%s", (msg))

bt_component_class_initialize_method_status wperf_netsync_init(
	bt_self_component_sink *self, bt_self_component_sink_configuration *config,
	const bt_value *params, void *init_data)
{
	static const char *const known[] = { "format", "path", NULL };
	struct netsync *s = calloc(1, sizeof(*s));
	const char *format = "text", *path = NULL;
	char err[256];

	(void)config;
	(void)init_data;
	if (!s || !(s->match = wperf_netmatch_create())) {
		free(s);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	}
	s->self = bt_self_component_sink_as_self_component(self);
	bt_self_component_set_data(s->self, s);
	if (wperf_params_check_known(params, known, err, sizeof(err)) < 0 ||
	    wperf_params_get_string(params, "format", &format, err, sizeof(err)) < 0 ||
	    wperf_params_get_string(params, "path", &path, err, sizeof(err)) < 0) {
		fail(s, err);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	if (strcmp(format, "text") != 0 && strcmp(format, "json") != 0) {
		fail(s, "parameter `format`: must be \"text\" or \"json\"");
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	s->json = strcmp(format, "json") == 0;
	if (path && !(s->path = strdup(path)))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (bt_self_component_sink_add_input_port(self, "in", NULL, &s->port))
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

void wperf_netsync_finalize(bt_self_component_sink *self)
{
	struct netsync *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (!s)
		return;
	for (unsigned i = 0; i < s->nhosts; i++) {
		free(s->hosts[i].name);
		free(s->hosts[i].shown);
	}
	wperf_netmatch_destroy(s->match);
	bt_message_iterator_put_ref(s->iter);
	free(s->path);
	free(s);
}

bt_component_class_sink_graph_is_configured_method_status
wperf_netsync_graph_is_configured(bt_self_component_sink *self)
{
	struct netsync *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));

	if (bt_message_iterator_create_from_sink_component(self, s->port, &s->iter) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_SINK_COMPONENT_STATUS_OK) {
		fail(s, "cannot create the input message iterator");
		return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_ERROR;
	}
	return BT_COMPONENT_CLASS_SINK_GRAPH_IS_CONFIGURED_METHOD_STATUS_OK;
}

/* ------------------------------------------------------------ decoding */

/* A host name as the results show it (caller frees; NULL when out of
 * memory): the trace's metadata says it and may hold anything, quotes
 * and terminal control sequences too. JSON: a JSON string, quotes
 * included, escaped as every JSON string wperf writes; text: control
 * characters and bytes that are not UTF-8 as '?', as the knot report
 * shows names. */
static char *shown_name(const char *name, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!json) {
		len = strlen(name) + 1;
		if ((buf = malloc(len)))
			wperf_text_clean(buf, len, name);
		return buf;
	}
	if (!(f = open_memstream(&buf, &len)))
		return NULL;
	wperf_json_string(f, name);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The host of an event's trace, by name: its index, or -1 (too many
 * hosts, or out of memory: why set). */
static int host_of(struct netsync *s, const bt_event *ev, const char **why)
{
	const bt_trace *t = bt_stream_borrow_trace_const(bt_event_borrow_stream_const(ev));
	const bt_value *v = bt_trace_borrow_environment_entry_value_by_name_const(t, "hostname");
	const char *name = v && bt_value_is_string(v) ? bt_value_string_get(v) : bt_trace_get_name(t);

	if (!name)
		name = "(unnamed host)";
	for (unsigned i = 0; i < s->nhosts; i++)
		if (strcmp(s->hosts[i].name, name) == 0)
			return (int)i;
	if (s->nhosts == MAX_HOSTS) {
		*why = "more than 64 hosts";
		return -1;
	}
	if (!(s->hosts[s->nhosts].name = strdup(name)) ||
	    !(s->hosts[s->nhosts].shown = shown_name(name, s->json))) {
		free(s->hosts[s->nhosts].name);
		*why = "out of memory";
		return -1;
	}
	return (int)s->nhosts++;
}

static int take_event(struct netsync *s, const bt_message *m)
{
	const bt_event *ev = bt_message_event_borrow_event_const(m);
	int dir = wperf_tcp_direction(bt_event_class_get_name(bt_event_borrow_class_const(ev)));
	struct wperf_tcp_key key;
	struct wperf_net_side side = { 0 };
	const char *why = NULL;
	int64_t ns;
	int host;

	if (!dir || !wperf_tcp_key_of(bt_event_borrow_payload_field_const(ev), &key))
		return 0;
	if (!bt_stream_class_borrow_default_clock_class_const(
		    bt_stream_borrow_class_const(bt_event_borrow_stream_const(ev))))
		return 0;   /* no time: cannot synchronise with it */
	if (bt_clock_snapshot_get_ns_from_origin(
		    bt_message_event_borrow_default_clock_snapshot_const(m), &ns) !=
		    BT_CLOCK_SNAPSHOT_GET_NS_FROM_ORIGIN_STATUS_OK) {
		fail(s, "a network event's time overflows 64 bits of nanoseconds");
		return -1;
	}
	if ((host = host_of(s, ev, &why)) < 0) {
		fail(s, why);
		return -1;
	}
	side = (struct wperf_net_side){ (unsigned)host, ns, 0 };
	if (dir > 0)
		s->hosts[host].sends++;
	else
		s->hosts[host].receives++;
	if ((dir > 0 ? wperf_netmatch_send(s->match, &key, &side)
		     : wperf_netmatch_receive(s->match, &key, &side)) < 0) {
		fail(s, "out of memory");
		return -1;
	}
	return 0;
}

/* ------------------------------------------------------------ results */

/* One host pair's matches as points on (a's clock, b's clock); the
 * transform into *out. 0, or -1 when out of memory. */
static int pair_sync(const struct netsync *s, unsigned a, unsigned b, struct wperf_clock_sync *out)
{
	size_t n = wperf_netmatch_count(s->match), nab = 0, nba = 0;
	struct wperf_sync_point *ab = malloc((n ? n : 1) * sizeof(*ab));
	struct wperf_sync_point *ba = malloc((n ? n : 1) * sizeof(*ba));
	int rc = -1;

	if (ab && ba) {
		for (size_t i = 0; i < n; i++) {
			const struct wperf_net_match *m = wperf_netmatch_get(s->match, i);

			if (!wperf_netmatch_unique(s->match, i))
				continue;   /* a copy: maybe another copy's receive */
			if (m->send.host == a && m->recv.host == b)
				ab[nab++] = (struct wperf_sync_point){ m->send.ns, m->recv.ns };
			else if (m->send.host == b && m->recv.host == a)
				ba[nba++] = (struct wperf_sync_point){ m->recv.ns, m->send.ns };
		}
		rc = wperf_clock_sync_compute(ab, nab, ba, nba, out);
	}
	free(ab);
	free(ba);
	return rc;
}

/* Host indexes in name order. */
static void by_name(const struct netsync *s, unsigned *order)
{
	for (unsigned i = 0; i < s->nhosts; i++)
		order[i] = i;
	for (unsigned i = 1; i < s->nhosts; i++)
		for (unsigned j = i; j > 0 && strcmp(s->hosts[order[j - 1]].name,
						     s->hosts[order[j]].name) > 0; j--) {
			unsigned t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

static void text_pair(FILE *f, const struct netsync *s, unsigned a, unsigned b,
		      const struct wperf_clock_sync *c)
{
	fprintf(f, "\n%s -> %s: %zu segments matched, %s -> %s: %zu\n", s->hosts[a].shown,
		s->hosts[b].shown, c->n_ab, s->hosts[b].shown, s->hosts[a].shown, c->n_ba);
	fprintf(f, "Quality    %s\n", wperf_sync_quality_name(c->quality));
	if (c->quality != WPERF_SYNC_ACCURATE && c->quality != WPERF_SYNC_APPROXIMATE)
		return;
	fprintf(f, "Transform  t(%s) = alpha * t(%s) + beta, times in ns since the Unix epoch\n",
		s->hosts[b].shown, s->hosts[a].shown);
	fprintf(f, "           alpha = %.16Lf (drift %+.3Lf ppm; feasible %.16Lf .. %.16Lf)\n",
		c->alpha, (c->alpha - 1) * 1e6L, c->alpha_min, c->alpha_max);
	fprintf(f, "           beta  = %.3Lf ns\n", c->beta);
	fprintf(f, "           offset %+.3Lf s at %s's first match\n",
		(c->anchor_y - (long double)c->anchor_x) / 1e9L, s->hosts[a].shown);
	fprintf(f, "Accuracy   +-%.0f ns: every transform the matches allow is this close over the "
		"matches' span (%.3f s; hull points %zu and %zu)\n", c->accuracy_ns,
		(double)(c->last_x - c->first_x) / 1e9, c->hull_ab, c->hull_ba);
}

static void json_pair(FILE *f, const struct netsync *s, unsigned a, unsigned b,
		      const struct wperf_clock_sync *c, bool first)
{
	bool has = c->quality == WPERF_SYNC_ACCURATE || c->quality == WPERF_SYNC_APPROXIMATE;

	fprintf(f, "%s\n    {\"reference\": %s, \"other\": %s, \"matches_to_other\": %zu, "
		"\"matches_to_reference\": %zu, \"quality\": \"%s\"", first ? "" : ",",
		s->hosts[a].shown, s->hosts[b].shown, c->n_ab, c->n_ba,
		wperf_sync_quality_name(c->quality));
	if (has)
		fprintf(f, ", \"alpha\": %.17Lg, \"beta\": %.6Lf, \"alpha_min\": %.17Lg, "
			"\"alpha_max\": %.17Lg, \"accuracy_ns\": %.3f, \"first_ns\": %" PRId64
			", \"last_ns\": %" PRId64 ", \"hull_points\": [%zu, %zu], "
			"\"anchor\": [%" PRId64 ", %.3Lf]",
			c->alpha, c->beta, c->alpha_min, c->alpha_max, c->accuracy_ns,
			c->first_x, c->last_x, c->hull_ab, c->hull_ba, c->anchor_x, c->anchor_y);
	fprintf(f, "}");
}

static void head(FILE *f, const struct netsync *s, const unsigned *order,
		 const struct wperf_netmatch_stats *st)
{
	if (s->json) {
		fprintf(f, "{\n  \"hosts\": [");
		for (unsigned i = 0; i < s->nhosts; i++)
			fprintf(f, "%s{\"name\": %s, \"sends\": %" PRIu64 ", \"receives\": %"
				PRIu64 "}", i ? ", " : "", s->hosts[order[i]].shown,
				s->hosts[order[i]].sends, s->hosts[order[i]].receives);
		fprintf(f, "],\n  \"matched\": %" PRIu64 ", \"unmatched_sends\": %" PRIu64
			", \"unmatched_receives\": %" PRIu64 ", \"repeated\": %" PRIu64
			", \"ambiguous\": %" PRIu64 ",\n  \"pairs\": [", st->matched,
			st->unmatched_sends, st->unmatched_receives, st->repeated, st->ambiguous);
		return;
	}
	fprintf(f, "wPerf network matching and clock synchronisation\n");
	for (unsigned i = 0; i < s->nhosts; i++)
		fprintf(f, "Host       %s: %" PRIu64 " TCP sends, %" PRIu64 " receives\n",
			s->hosts[order[i]].shown, s->hosts[order[i]].sends,
			s->hosts[order[i]].receives);
	fprintf(f, "Matched    %" PRIu64 " segments (by seq, ack_seq, flags); unmatched: %" PRIu64
		" sends, %" PRIu64 " receives; %" PRIu64 " repeated copies (paired in order); %"
		PRIu64 " matches of a repeated key left out of the transforms\n",
		st->matched, st->unmatched_sends, st->unmatched_receives, st->repeated,
		st->ambiguous);
}

/* The path of host k (a position in name order) from the reference, as
 * "A -> B -> C". */
static void path_text(const struct netsync *s, const unsigned *order,
		      const struct wperf_clock_place *pl, unsigned k, char *buf, size_t len)
{
	unsigned chain[MAX_HOSTS], n = 0;
	size_t used = 0;

	for (unsigned h = k; n < MAX_HOSTS; h = pl[h].prev) {
		chain[n++] = h;
		if (pl[h].hops == 0)
			break;
	}
	buf[0] = '\0';
	while (n-- > 0 && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? " -> " : "",
					 s->hosts[order[chain[n]]].shown);
}

/* JSON: ["A", "B", "C"], the same path. */
static void path_json(FILE *f, const struct netsync *s, const unsigned *order,
		      const struct wperf_clock_place *pl, unsigned k)
{
	unsigned chain[MAX_HOSTS], n = 0;

	for (unsigned h = k; n < MAX_HOSTS; h = pl[h].prev) {
		chain[n++] = h;
		if (pl[h].hops == 0)
			break;
	}
	fputc('[', f);
	for (unsigned i = n; i-- > 0;)
		fprintf(f, "%s%s", s->hosts[order[chain[i]]].shown, i ? ", " : "");
	fputc(']', f);
}

/* Each host on the reference's (position 0's) time through its chain of
 * synchronised pairs. */
static void write_placements(FILE *f, const struct netsync *s, const unsigned *order,
			     const struct wperf_clock_place *pl)
{
	const char *ref = s->hosts[order[0]].shown;
	char path[MAX_HOSTS * 72];

	if (s->json)
		fprintf(f, "\n  ],\n  \"placements\": [");
	else if (s->nhosts > 1)
		fprintf(f, "\nOn %s's time (each host through the chain of synchronised pairs whose "
			"accuracies add up least)\n", ref);
	for (unsigned k = 1; k < s->nhosts; k++) {
		const struct wperf_clock_place *p = &pl[k];
		const char *name = s->hosts[order[k]].shown;

		if (s->json) {
			fprintf(f, "%s\n    {\"host\": %s, \"reference\": %s, \"path\": ",
				k > 1 ? "," : "", name, ref);
			if (!p->placed) {
				fprintf(f, "null}");
				continue;
			}
			path_json(f, s, order, pl, k);
			fprintf(f, ", \"alpha\": %.17Lg, \"beta\": %.6Lf, \"accuracy_ns\": %.3f, "
				"\"anchor\": [%" PRId64 ", %.3Lf]}", p->alpha,
				p->anchor_y - p->alpha * (long double)p->anchor_x, p->accuracy_ns,
				p->anchor_x, p->anchor_y);
			continue;
		}
		if (!p->placed) {
			fprintf(f, "Unplaced   %s: no chain of synchronised pairs links it to %s\n",
				name, ref);
			continue;
		}
		path_text(s, order, pl, k, path, sizeof(path));
		fprintf(f, "Placed     %s via %s: alpha = %.16Lf (drift %+.3Lf ppm), offset %+.3Lf s "
			"at %s's %" PRId64 " ns, accuracy +-%.0f ns (%u pair%s added)\n", name, path,
			p->alpha, (p->alpha - 1) * 1e6L,
			(p->anchor_y - (long double)p->anchor_x) / 1e9L, ref, p->anchor_x,
			p->accuracy_ns, p->hops, p->hops == 1 ? "" : "s");
	}
}

/* Every pair's transform (positions i < j in name order), then each
 * host's placement; -1 when out of memory. */
static int compute_all(const struct netsync *s, const unsigned *order,
		       struct wperf_clock_sync *sync, struct wperf_clock_pair *pairs, size_t *np,
		       struct wperf_clock_place *pl)
{
	*np = 0;
	for (unsigned i = 0; i < s->nhosts; i++)
		for (unsigned j = i + 1; j < s->nhosts; j++) {
			if (pair_sync(s, order[i], order[j], &sync[*np]) < 0)
				return -1;
			pairs[*np] = (struct wperf_clock_pair){ i, j, &sync[*np] };
			(*np)++;
		}
	return s->nhosts ? wperf_clock_tree(pairs, *np, s->nhosts, 0, pl) : 0;
}

/* Write the results; 0, or -1 (error appended). */
static int write_results(struct netsync *s)
{
	struct wperf_output out;
	struct wperf_netmatch_stats st;
	unsigned order[MAX_HOSTS];
	size_t max = (size_t)s->nhosts * s->nhosts / 2 + 1, np = 0;
	struct wperf_clock_sync *sync = malloc(max * sizeof(*sync));
	struct wperf_clock_pair *pairs = malloc(max * sizeof(*pairs));
	struct wperf_clock_place pl[MAX_HOSTS];
	char err[512];
	int rc = -1;

	by_name(s, order);
	wperf_netmatch_stats(s->match, &st);
	if (!sync || !pairs || compute_all(s, order, sync, pairs, &np, pl) < 0) {
		fail(s, "out of memory");
		goto done;
	}
	if (wperf_output_open(&out, s->path, err, sizeof(err)) < 0) {
		fail(s, err);
		goto done;
	}
	head(out.f, s, order, &st);
	for (size_t k = 0; k < np; k++) {
		if (s->json)
			json_pair(out.f, s, order[pairs[k].a], order[pairs[k].b], &sync[k], k == 0);
		else
			text_pair(out.f, s, order[pairs[k].a], order[pairs[k].b], &sync[k]);
	}
	write_placements(out.f, s, order, pl);
	if (s->json)
		fprintf(out.f, "\n  ]\n}\n");
	else if (s->nhosts < 2)
		fprintf(out.f, "\nOnly %u host in the input: nothing to synchronise.\n", s->nhosts);
	if (wperf_output_commit(&out, err, sizeof(err)) < 0) {
		fail(s, err);
		goto done;
	}
	rc = 0;
done:
	free(sync);
	free(pairs);
	return rc;
}

bt_component_class_sink_consume_method_status
wperf_netsync_consume(bt_self_component_sink *self)
{
	struct netsync *s = bt_self_component_get_data(bt_self_component_sink_as_self_component(self));
	bt_message_array_const msgs;
	uint64_t n = 0;
	int rc = 0;

	switch (bt_message_iterator_next(s->iter, &msgs, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		break;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return write_results(s) < 0 ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR
					    : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR;
	}
	for (uint64_t i = 0; i < n; i++) {
		if (rc == 0 && bt_message_get_type(msgs[i]) == BT_MESSAGE_TYPE_EVENT)
			rc = take_event(s, msgs[i]);
		bt_message_put_ref(msgs[i]);
	}
	return rc < 0 ? BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_ERROR
		      : BT_COMPONENT_CLASS_SINK_CONSUME_METHOD_STATUS_OK;
}
