/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/report-hosts.c — `wperf report TRACE TRACE...`: several
 * hosts' traces put on one time base before they are analysed.
 *
 * Pass one runs sink.wperf.netsync over all of them: the TCP segments one
 * host sent and another received, each host pair's clock transform, and
 * each host placed on the first host by name (the reference) through the
 * chain of synchronised pairs whose accuracies add up least (a database
 * that talks only to the front end is placed through it). Pass two, the
 * report, reads every other host's trace with its clocks moved by its
 * offset to the reference (source.ctf.fs clock-class-offset-ns, so the
 * muxer merges the hosts in order up to the drift), and gives
 * sink.wperf.knots the exact transform (host-clocks, with the hosts it
 * went through) that puts each of its events on the reference's time.
 * Hosts that no chain of synchronised pairs reaches are refused in one
 * line: their waits would be compared on clocks that disagree.
 */
#include "report-hosts.h"
#include "bt-failure.h"
#include "json.h"
#include "wperf.h"

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------ hostnames */

static char found_metadata[4096];

static int first_metadata(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	if (type != FTW_F || strcmp(path + ftw->base, "metadata"))
		return 0;
	snprintf(found_metadata, sizeof(found_metadata), "%s", path);
	return 1;
}

/* The TSDL string literal's content from p (past its opening quote) to
 * its closing quote before end, its escapes decoded as C's (sink.ctf.fs
 * writes a quote as \", a control character as \xHH: a host name is
 * whatever the traced machine, or whoever made the trace, said), into
 * out. false when it does not end before end, or does not fit, or holds
 * a NUL. */
static bool tsdl_string(const char *p, const char *end, char *out, size_t len)
{
	static const char plain[] = "abfnrtv\\'\"?", meant[] = "\a\b\f\n\r\t\v\\'\"?";
	size_t n = 0;

	for (; p < end && *p != '"'; n++) {
		unsigned long c = (unsigned char)*p++;
		const char *e;

		if (c == '\\' && p < end) {
			if (*p == 'x' || (*p >= '0' && *p <= '7')) {
				/* \xHH (two hex digits at most), \NNN (three octal) */
				bool hex = *p == 'x';
				const char *digits = hex ? "0123456789abcdefABCDEF" : "01234567";
				int most = hex ? 2 : 3, k = 0;

				for (c = 0, p += hex; k < most && p < end && *p &&
				     strchr(digits, *p); k++, p++)
					c = c * (hex ? 16 : 8) + (unsigned long)(isdigit((unsigned char)*p) ?
						*p - '0' : tolower((unsigned char)*p) - 'a' + 10);
				if (k == 0 || c == 0 || c > 0xff)
					return false;
			} else if ((e = strchr(plain, *p)) && *p) {
				c = (unsigned char)meant[e - plain];
				p++;
			} else {
				return false;
			}
		}
		if (n + 1 >= len)
			return false;
		out[n] = (char)c;
	}
	out[n < len ? n : 0] = '\0';
	return p < end;
}

/* The `hostname` of the trace environment in dir's first metadata file
 * (the TSDL text, also inside LTTng's metadata packets); false when it
 * says none. */
static bool input_hostname(const char *dir, char *out, size_t len)
{
	static char buf[1 << 20];
	const char *key = "hostname = \"", *p;
	size_t n;
	FILE *f;

	found_metadata[0] = '\0';
	nftw(dir, first_metadata, 16, FTW_PHYS);
	if (!found_metadata[0] || !(f = fopen(found_metadata, "rb")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = memmem(buf, n, key, strlen(key));
	if (!p)
		return false;
	p += strlen(key);
	return tsdl_string(p, buf + n, out, len) && out[0];
}

/* ------------------------------------------------------------ the pairs */

/* A host pair's synchronisation (sink.wperf.netsync's JSON `pairs`). */
struct sync_pair {
	char reference[72], other[72], quality[16];
};

/* A host on the reference's time (its JSON `placements`). */
struct placement {
	char host[72], reference[72];
	bool placed;
	char via[WPERF_REPORT_HOSTS_MAX * 72];   /* the hosts between, "B,C"; "" direct */
	long double alpha;
	int64_t anchor_x;
	long double anchor_y;
	double accuracy_ns;
};

/* Whether a string decoded into out (len bytes) may have been cut
 * short: it is cut only where a character (at most 4 bytes) no longer
 * fits, so one shorter than that is whole. */
static bool cut(const char *out, size_t len)
{
	return strlen(out) + 4 >= len;
}

/* The string value of "key" in the JSON object text obj, into out. */
static bool json_text(const char *obj, const char *key, char *out, size_t len)
{
	char k[64];
	const char *p, *end;

	snprintf(k, sizeof(k), "\"%s\": \"", key);
	if (!(p = strstr(obj, k)))
		return false;
	p += strlen(k) - 1;
	/* Escapes decoded: a host name is a trace's, and may hold anything. */
	out[0] = '\0';
	return (end = wperf_json_string_at(p, out, len)) && !cut(out, len);
}

/* The text right after "key": in obj, or NULL. */
static const char *json_after(const char *obj, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(obj, k);
	return p ? p + strlen(k) : NULL;
}

/* One line of the JSON `pairs` (one object a line). */
static bool parse_pair(const char *line, struct sync_pair *p)
{
	memset(p, 0, sizeof(*p));
	return json_text(line, "reference", p->reference, sizeof(p->reference)) &&
	       json_text(line, "other", p->other, sizeof(p->other)) &&
	       json_text(line, "quality", p->quality, sizeof(p->quality));
}

/* The hosts between the first and the last of a JSON path ["A", "B",
 * "C"] at v, comma-separated, into via. */
static bool parse_via(const char *v, char *via, size_t len)
{
	char name[WPERF_REPORT_HOSTS_MAX + 1][72];
	size_t n = 0, used = 0;

	if (*v++ != '[')
		return false;
	while (*v == '"' && n <= WPERF_REPORT_HOSTS_MAX) {
		const char *end = wperf_json_string_at(v, name[n], sizeof(name[n]));

		if (!end || cut(name[n], sizeof(name[n])))
			return false;
		n++;
		v = end;
		if (*v == ']')
			break;
		if (strncmp(v, ", ", 2))
			return false;
		v += 2;
	}
	if (*v != ']' || n < 2)
		return false;
	via[0] = '\0';
	for (size_t i = 1; i + 1 < n; i++) {
		int k = snprintf(via + used, len - used, "%s%s", i > 1 ? "," : "", name[i]);

		if (k < 0 || (size_t)k >= len - used)
			return false;
		used += (size_t)k;
	}
	return true;
}

/* One line of the JSON `placements`. */
static bool parse_placement(const char *line, struct placement *p)
{
	const char *v;

	memset(p, 0, sizeof(*p));
	if (!json_text(line, "host", p->host, sizeof(p->host)) ||
	    !json_text(line, "reference", p->reference, sizeof(p->reference)) ||
	    !(v = json_after(line, "path")))
		return false;
	if (!strncmp(v, "null", 4))
		return true;   /* no chain reaches it */
	if (!parse_via(v, p->via, sizeof(p->via)))
		return false;
	p->placed = true;
	if (!(v = json_after(line, "alpha")))
		return false;
	p->alpha = strtold(v, NULL);
	if (!(v = json_after(line, "accuracy_ns")))
		return false;
	p->accuracy_ns = strtod(v, NULL);
	if (!(v = json_after(line, "anchor")) || *v != '[')
		return false;
	p->anchor_x = strtoll(v + 1, (char **)&v, 10);
	if (*v != ',')
		return false;
	p->anchor_y = strtold(v + 1, NULL);
	return p->alpha > 0.5L && p->alpha < 2.0L;
}

/* What sink.wperf.netsync found. */
struct sync_report {
	struct sync_pair pairs[WPERF_REPORT_HOSTS_MAX * WPERF_REPORT_HOSTS_MAX];
	size_t npairs;
	struct placement placed[WPERF_REPORT_HOSTS_MAX];
	size_t nplaced;
};

/* The netsync report at path; -1 when it cannot be read. */
static int read_sync(const char *path, struct sync_report *r)
{
	char line[4096];
	FILE *f = fopen(path, "r");
	bool ok = true;

	r->npairs = r->nplaced = 0;
	if (!f)
		return -1;
	while (ok && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "    {\"reference\"", 16) &&
		    r->npairs < sizeof(r->pairs) / sizeof(r->pairs[0]))
			ok = parse_pair(line, &r->pairs[r->npairs++]);
		else if (!strncmp(line, "    {\"host\"", 11) && r->nplaced < WPERF_REPORT_HOSTS_MAX)
			ok = parse_placement(line, &r->placed[r->nplaced++]);
	}
	fclose(f);
	return ok ? 0 : -1;
}

/* ------------------------------------------------------------ pass one */

/* Run sink.wperf.netsync over the inputs into dir/sync.json. 0, or the
 * exit status after saying why. */
static int run_netsync(const struct wperf_bt *bt, const char *const *inputs, size_t n,
		       const char *path)
{
	bt_value *params = bt_value_map_create();
	struct wperf_run run;
	char why[4096];
	int rc = 0;

	if (!params || bt_value_map_insert_string_entry(params, "format", "json") ||
	    bt_value_map_insert_string_entry(params, "path", path)) {
		bt_value_put_ref(params);
		return wperf_fail("out of memory");
	}
	if (wperf_bt_run(bt, inputs, n, bt->wperf, "netsync", params, &run) != WPERF_RUN_OK) {
		wperf_run_failure(&run, why, sizeof(why));
		rc = wperf_fail("cannot synchronise the hosts' clocks of %s and the others: %s",
				inputs[0], why);
	}
	wperf_run_fini(&run);
	bt_value_put_ref(params);
	return rc;
}

/* host's placement, or NULL when netsync placed it nowhere (it is the
 * reference, or no chain reaches it, or it sent or received no TCP
 * segment at all). */
static const struct placement *placement_of(const struct sync_report *r, const char *host)
{
	for (size_t k = 0; k < r->nplaced; k++)
		if (!strcmp(r->placed[k].host, host) && r->placed[k].placed)
			return &r->placed[k];
	return NULL;
}

/* Input i's offset and its host-clocks item, from its placement. 0, or
 * the exit status after saying why. */
static int place_host(const struct placement *p, const char *input, const char *reference,
		      int64_t *offset, char *item, size_t len)
{
	/* The host's time y is the reference's anchor_x + (y - anchor_y) /
	 * alpha; moved by the offset, its anchor lands on anchor_x. */
	*offset = p->anchor_x - (int64_t)(p->anchor_y + 0.5L);   /* ns since 1970: > 0 */
	int n = snprintf(item, len, "%s:%.21Lg:%" PRId64 ":%" PRId64 ":%.3f:%" PRId64 "%s%s",
			 p->host, p->alpha, p->anchor_x, p->anchor_x, p->accuracy_ns, *offset,
			 p->via[0] ? ":via=" : "", p->via);
	if (n < 0 || (size_t)n >= len)
		return wperf_fail("cannot report %s with %s's trace: the synchronisation of "
				  "their clocks gave figures too long to pass on (accuracy %.3f ns): "
				  "report each trace alone", input, reference, p->accuracy_ns);
	return 0;
}

/* Why host is linked to no synchronised host: the synchronisation of
 * its pairs with matches ("synchronisation A-B incomplete, B-D fail"; a
 * pair with another unlinked host may be accurate), or that it has none. */
static void why_unlinked(const struct sync_report *r, const char *host, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < r->npairs && used < len; k++) {
		const struct sync_pair *p = &r->pairs[k];

		if ((strcmp(p->reference, host) && strcmp(p->other, host)) ||
		    !strcmp(p->quality, "absent"))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s-%s %s",
					 used ? ", " : "synchronisation ", p->reference, p->other,
					 p->quality);
	}
	if (!buf[0])
		snprintf(buf, len, "%s matched no TCP segment with any host", host);
}

/* The one line refusing the hosts of the inputs bad[0..nbad), which no
 * chain of synchronised pairs links to the reference; the exit status. */
static int refuse_unlinked(const struct sync_report *r, const char *reference,
			   const char *const *inputs, char (*host)[72], const size_t *bad,
			   size_t nbad)
{
	char who[2048] = "", hosts[1024] = "", why[4096] = "", one[1024];
	size_t lw = 0, lh = 0, ly = 0;

	for (size_t k = 0; k < nbad; k++) {
		const char *sep = k == 0 ? "" : k + 1 == nbad ? " and " : ", ";

		why_unlinked(r, host[bad[k]], one, sizeof(one));
		if (lw < sizeof(who))
			lw += (size_t)snprintf(who + lw, sizeof(who) - lw, "%s%s's trace (%s)", sep,
					       host[bad[k]], inputs[bad[k]]);
		if (lh < sizeof(hosts))
			lh += (size_t)snprintf(hosts + lh, sizeof(hosts) - lh, "%s%s", sep,
					       host[bad[k]]);
		if (ly < sizeof(why))
			ly += (size_t)snprintf(why + ly, sizeof(why) - ly, "%s%s", k ? "; " : "",
					       one);
	}
	return wperf_fail("cannot report %s with %s's: no chain of host pairs whose TCP segments "
			  "were matched both ways links %s to %s (%s), so %s "
			  "cannot be put on %s's time: record the hosts' network events both "
			  "ways, or report without %s", who, reference, hosts, reference, why,
			  nbad == 1 ? "its clock" : "their clocks", reference,
			  nbad == 1 ? "that trace" : "those traces");
}

/* Several traces are one graph only as several machines': the same
 * directory twice, or two recordings of one host, have no packets
 * between them to synchronise by. host[i]: input i's hostname, "" when its
 * metadata names none. 0, or the exit status after saying so. */
static int distinct_hosts(const char *const *inputs, char (*host)[72], size_t n)
{
	char ri[PATH_MAX], rj[PATH_MAX];

	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			if (realpath(inputs[i], ri) && realpath(inputs[j], rj) && !strcmp(ri, rj))
				return wperf_fail("%s is given twice: give each trace once",
						  inputs[i]);
			if (host[i][0] && !strcmp(host[i], host[j]))
				return wperf_fail("%s and %s are both traces of host %s: several "
						  "traces are reported as one graph only when they "
						  "come from different machines; report each alone",
						  inputs[i], inputs[j], host[i]);
		}
	return 0;
}

/* Every input's offset and host-clocks item from the netsync report r;
 * the hosts no chain reaches refused together. 0, or the exit status. */
static int place_all(const struct sync_report *r, const char *const *inputs,
		     char (*host)[72], size_t n, int64_t *offsets, bt_value *clocks)
{
	const char *reference = r->pairs[0].reference;
	size_t bad[WPERF_REPORT_HOSTS_MAX], nbad = 0;
	char item[sizeof(r->placed[0].via) + 256];
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		offsets[i] = 0;
		if (!host[i][0])
			return wperf_fail("cannot report %s with the other traces: its metadata "
					  "names no hostname to synchronise its clock by", inputs[i]);
		if (strcmp(host[i], reference) && !placement_of(r, host[i]))
			bad[nbad++] = i;
	}
	if (nbad)
		return refuse_unlinked(r, reference, inputs, host, bad, nbad);
	for (size_t i = 0; !rc && i < n; i++) {
		if (!strcmp(host[i], reference))
			continue;
		rc = place_host(placement_of(r, host[i]), inputs[i], reference, &offsets[i], item,
				sizeof(item));
		if (!rc && bt_value_array_append_string_element(clocks, item))
			rc = wperf_fail("out of memory");
	}
	return rc;
}

int wperf_report_sync_hosts(const struct wperf_bt *bt, const char *const *inputs, size_t n,
			    bt_value *params, int64_t *offsets)
{
	char dir[] = "/tmp/wperf-sync-XXXXXX", path[64];
	char host[WPERF_REPORT_HOSTS_MAX][72];
	struct sync_report *r = calloc(1, sizeof(*r));
	bt_value *clocks = bt_value_array_create();
	int rc = 0;

	if (n > WPERF_REPORT_HOSTS_MAX)
		rc = wperf_fail("at most %d traces are reported as one graph",
				WPERF_REPORT_HOSTS_MAX);
	/* Each input's hostname once: finding it walks the input's tree. */
	for (size_t i = 0; !rc && i < n; i++)
		if (!input_hostname(inputs[i], host[i], sizeof(host[i])))
			host[i][0] = '\0';
	if (!rc)
		rc = distinct_hosts(inputs, host, n);
	if (rc) {
		bt_value_put_ref(clocks);
		free(r);
		return rc;
	}
	if (!clocks || !r || !mkdtemp(dir)) {
		bt_value_put_ref(clocks);
		free(r);
		return wperf_fail("cannot make a directory for the clocks' synchronisation: %s",
				  clocks && r ? strerror(errno) : "out of memory");
	}
	snprintf(path, sizeof(path), "%s/sync.json", dir);
	rc = run_netsync(bt, inputs, n, path);
	if (!rc && (read_sync(path, r) < 0 || r->npairs == 0))
		rc = wperf_fail("cannot report %s with the other traces: no TCP segments were "
				"matched between their hosts, so their clocks cannot be put on one "
				"time base: record the hosts' network events, or report each trace "
				"alone", inputs[0]);
	if (!rc)
		rc = place_all(r, inputs, host, n, offsets, clocks);
	if (!rc && bt_value_map_insert_entry(params, "host-clocks", clocks))
		rc = wperf_fail("out of memory");
	bt_value_put_ref(clocks);
	free(r);
	unlink(path);
	rmdir(dir);
	return rc;
}
