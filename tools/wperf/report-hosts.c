/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/report-hosts.c — `wperf report TRACE TRACE...`: several
 * hosts' traces put on one time base before they are analysed.
 *
 * Pass one runs sink.wperf.netsync over all of them: the TCP segments one
 * host sent and another received, and each host's clock transform to the
 * first host by name (the reference). Pass two, the report, reads every
 * other host's trace with its clocks moved by its offset to the
 * reference (source.ctf.fs clock-class-offset-ns, so the muxer merges
 * the hosts in order up to the drift), and gives sink.wperf.knots the
 * exact transform (host-clocks) that puts each of its events on the
 * reference's time. A host whose clock the matches cannot place is
 * refused in one line: its waits would be compared on clocks that
 * disagree.
 */
#include "report-hosts.h"
#include "bt-failure.h"
#include "wperf.h"

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

/* The `hostname` of the trace environment in dir's first metadata file
 * (the TSDL text, also inside LTTng's metadata packets); false when it
 * says none. */
static bool input_hostname(const char *dir, char *out, size_t len)
{
	static char buf[1 << 20];
	const char *key = "hostname = \"", *p, *end;
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
	end = memchr(p, '"', (size_t)(buf + n - p));
	if (!end || end == p || (size_t)(end - p) >= len)
		return false;
	snprintf(out, len, "%.*s", (int)(end - p), p);
	return true;
}

/* ------------------------------------------------------------ the pairs */

struct sync_pair {
	char reference[72], other[72], quality[16];
	long double alpha;
	int64_t anchor_x;
	long double anchor_y;
	double accuracy_ns;
};

/* The string value of "key" in the JSON object text obj, into out. */
static bool json_text(const char *obj, const char *key, char *out, size_t len)
{
	char k[64];
	const char *p, *end;

	snprintf(k, sizeof(k), "\"%s\": \"", key);
	if (!(p = strstr(obj, k)))
		return false;
	p += strlen(k);
	if (!(end = strchr(p, '"')) || (size_t)(end - p) >= len)
		return false;
	snprintf(out, len, "%.*s", (int)(end - p), p);
	return true;
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

/* One line of sink.wperf.netsync's JSON `pairs` (one object a line). */
static bool parse_pair(const char *line, struct sync_pair *p)
{
	const char *v;

	memset(p, 0, sizeof(*p));
	if (!json_text(line, "reference", p->reference, sizeof(p->reference)) ||
	    !json_text(line, "other", p->other, sizeof(p->other)) ||
	    !json_text(line, "quality", p->quality, sizeof(p->quality)))
		return false;
	if (strcmp(p->quality, "accurate") && strcmp(p->quality, "approximate"))
		return true;   /* no transform to read */
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

/* The pairs of the netsync report at path; -1 when it cannot be read. */
static int read_pairs(const char *path, struct sync_pair *pairs, size_t max, size_t *n)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	*n = 0;
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "    {\"reference\"", 16) && *n < max &&
		    !parse_pair(line, &pairs[(*n)++])) {
			fclose(f);
			return -1;
		}
	fclose(f);
	return 0;
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

/* Input i's offset and its host-clocks item, from the pair of the
 * reference and its host. 0, or the exit status after saying why. */
static int place_host(const struct sync_pair *pairs, size_t npairs, const char *input,
		      const char *host, int64_t *offset, char *item, size_t len)
{
	const struct sync_pair *p = NULL;

	for (size_t k = 0; k < npairs; k++)
		if (!strcmp(pairs[k].reference, pairs[0].reference) && !strcmp(pairs[k].other, host))
			p = &pairs[k];
	if (!p || (strcmp(p->quality, "accurate") && strcmp(p->quality, "approximate")))
		return wperf_fail("cannot report %s with %s's trace: no TCP segments were matched "
				  "both ways between %s and %s (synchronisation %s), so their "
				  "clocks cannot be put on one time base: record both hosts' "
				  "network events, or report each trace alone", input,
				  pairs[0].reference, pairs[0].reference, host,
				  p ? p->quality : "absent");
	/* The host's time y is the reference's anchor_x + (y - anchor_y) /
	 * alpha; moved by the offset, its anchor lands on anchor_x. */
	*offset = p->anchor_x - (int64_t)(p->anchor_y + 0.5L);   /* ns since 1970: > 0 */
	int n = snprintf(item, len, "%s:%.21Lg:%" PRId64 ":%" PRId64 ":%.3f:%" PRId64, host,
			 p->alpha, p->anchor_x, p->anchor_x, p->accuracy_ns, *offset);
	if (n < 0 || (size_t)n >= len)
		return wperf_fail("cannot report %s with %s's trace: the synchronisation of "
				  "their clocks gave figures too long to pass on (accuracy %.3f ns): "
				  "report each trace alone", input, pairs[0].reference,
				  p->accuracy_ns);
	return 0;
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

int wperf_report_sync_hosts(const struct wperf_bt *bt, const char *const *inputs, size_t n,
			    bt_value *params, int64_t *offsets)
{
	char dir[] = "/tmp/wperf-sync-XXXXXX", path[64], item[256];
	char host[WPERF_REPORT_HOSTS_MAX][72];
	struct sync_pair pairs[WPERF_REPORT_HOSTS_MAX * WPERF_REPORT_HOSTS_MAX];
	size_t npairs = 0;
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
		return rc;
	}
	if (!clocks || !mkdtemp(dir)) {
		bt_value_put_ref(clocks);
		return wperf_fail("cannot make a directory for the clocks' synchronisation: %s",
				  clocks ? strerror(errno) : "out of memory");
	}
	snprintf(path, sizeof(path), "%s/sync.json", dir);
	rc = run_netsync(bt, inputs, n, path);
	if (!rc && (read_pairs(path, pairs, sizeof(pairs) / sizeof(pairs[0]), &npairs) < 0 ||
		    npairs == 0))
		rc = wperf_fail("cannot report %s with the other traces: no TCP segments were "
				"matched between their hosts, so their clocks cannot be put on one "
				"time base: record the hosts' network events, or report each trace "
				"alone", inputs[0]);
	for (size_t i = 0; !rc && i < n; i++) {
		offsets[i] = 0;
		if (!host[i][0])
			rc = wperf_fail("cannot report %s with the other traces: its metadata "
					"names no hostname to synchronise its clock by", inputs[i]);
		else if (strcmp(host[i], pairs[0].reference) &&
			 !(rc = place_host(pairs, npairs, inputs[i], host[i], &offsets[i], item,
					   sizeof(item))) &&
			 bt_value_array_append_string_element(clocks, item))
			rc = wperf_fail("out of memory");
	}
	if (!rc && bt_value_map_insert_entry(params, "host-clocks", clocks))
		rc = wperf_fail("out of memory");
	bt_value_put_ref(clocks);
	unlink(path);
	rmdir(dir);
	return rc;
}
