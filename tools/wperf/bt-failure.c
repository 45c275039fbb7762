/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-failure.c — one line for a failed graph (bt-failure.h).
 *
 * The rule, from what users meet most:
 *  1. the message of a wperf component that stopped: it already names the
 *     cause and the fix (a parameter, a trace without scheduler events);
 *  2. no trace under the input: say what a trace directory looks like;
 *  3. the CTF metadata decoder's first complaint: babeltrace2 2.0 logs it
 *     (module PLUGIN/CTF/META/...) without making it an error cause, so it
 *     is read from the log the graph wrote (bt-graph.c keeps it);
 *  4. the first error babeltrace2 logged (where it began: a stream it
 *     cannot index, with the file's name);
 *  5. the oldest error cause; 6. the log's last line.
 * A stream that cannot be indexed also gets its fix (add_fix).
 * Library messages lose their trailing `: key=value, ...` dump.
 */
#include "bt-failure.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ causes */

static const char *type_name(bt_component_class_type type)
{
	switch (type) {
	case BT_COMPONENT_CLASS_TYPE_SOURCE: return "source";
	case BT_COMPONENT_CLASS_TYPE_FILTER: return "filter";
	case BT_COMPONENT_CLASS_TYPE_SINK: return "sink";
	default: return "(unknown)";
	}
}

/* The cause's actor as babeltrace2(1) writes it between brackets. */
static void actor(const bt_error_cause *c, char *out, size_t len)
{
	switch (bt_error_cause_get_actor_type(c)) {
	case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
		snprintf(out, len, "%s: '%s.%s.%s'",
			 bt_error_cause_component_actor_get_component_name(c),
			 type_name(bt_error_cause_component_actor_get_component_class_type(c)),
			 bt_error_cause_component_actor_get_plugin_name(c),
			 bt_error_cause_component_actor_get_component_class_name(c));
		break;
	case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT_CLASS:
		snprintf(out, len, "'%s.%s.%s'",
			 type_name(bt_error_cause_component_class_actor_get_component_class_type(c)),
			 bt_error_cause_component_class_actor_get_plugin_name(c),
			 bt_error_cause_component_class_actor_get_component_class_name(c));
		break;
	case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
		snprintf(out, len, "%s (%s): '%s.%s.%s'",
			 bt_error_cause_message_iterator_actor_get_component_name(c),
			 bt_error_cause_message_iterator_actor_get_component_output_port_name(c),
			 type_name(bt_error_cause_message_iterator_actor_get_component_class_type(c)),
			 bt_error_cause_message_iterator_actor_get_plugin_name(c),
			 bt_error_cause_message_iterator_actor_get_component_class_name(c));
		break;
	default:
		snprintf(out, len, "%s", bt_error_cause_get_module_name(c));
		break;
	}
}

/* The plugin of the cause's actor (NULL: not a component's). */
static const char *actor_plugin(const bt_error_cause *c)
{
	switch (bt_error_cause_get_actor_type(c)) {
	case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
		return bt_error_cause_component_actor_get_plugin_name(c);
	case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT_CLASS:
		return bt_error_cause_component_class_actor_get_plugin_name(c);
	case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
		return bt_error_cause_message_iterator_actor_get_plugin_name(c);
	default:
		return NULL;
	}
}

static uint64_t cause_count(const struct wperf_run *run)
{
	return run->error ? bt_error_get_cause_count(run->error) : 0;
}

/* Cause i, newest first (as printed). */
static const bt_error_cause *cause(const struct wperf_run *run, uint64_t i)
{
	return bt_error_borrow_cause_by_index(run->error, cause_count(run) - 1 - i);
}

/* msg with each run of blanks made one space, trimmed (as the folded,
 * printed message reads when its lines are joined). */
static void one_line(const char *msg, char *out, size_t len)
{
	size_t n = 0;
	bool blank = false;

	while (isspace((unsigned char)*msg))
		msg++;
	for (; *msg && n + 1 < len; msg++) {
		if (isspace((unsigned char)*msg)) {
			blank = true;
			continue;
		}
		if (blank && n + 2 < len)
			out[n++] = ' ';
		blank = false;
		out[n++] = *msg;
	}
	out[n] = '\0';
}

/* msg without its trailing `: key=value, ...` (or `, key=value ...`). */
static void without_fields(const char *msg, char *out, size_t len)
{
	snprintf(out, len, "%s", msg);
	for (char *p = out; *p; p++) {
		char *q = p + 1;

		if (*p != ':' && *p != ',')
			continue;
		if (!isspace((unsigned char)*q))
			continue;
		while (isspace((unsigned char)*q))
			q++;
		char *key = q;

		while (isalnum((unsigned char)*q) || *q == '_' || *q == '-')
			q++;
		if (q > key && q[0] == '=' && q[1] && !isspace((unsigned char)q[1])) {
			*p = '\0';
			break;
		}
	}
	/* strip */
	size_t n = strlen(out);

	while (n && isspace((unsigned char)out[n - 1]))
		out[--n] = '\0';
	if (isspace((unsigned char)out[0]))
		memmove(out, out + strspn(out, " \t\n"), strlen(out + strspn(out, " \t\n")) + 1);
}

/* ------------------------------------------------------------ the log */

/* One line of babeltrace2's log ("11-22 07:31:43.460 31878 31878 E
 * PLUGIN/CTF/META/DECODER func@file.c:257 [comp] message"): its level,
 * module and message; false for other lines. */
static bool log_line(const char *line, size_t len, char *level, char *module, size_t modlen,
		     const char **msg, size_t *msglen)
{
	const char *p = line, *end = line + len;

#define DIGIT(c) ((c) >= '0' && (c) <= '9')
	if (len < 6 || !DIGIT(p[0]) || !DIGIT(p[1]) || p[2] != '-' || !DIGIT(p[3]) ||
	    !DIGIT(p[4]) || p[5] != ' ')
		return false;
	p += 6;
	const char *t = p;

	while (p < end && (DIGIT(*p) || *p == ':' || *p == '.'))
		p++;
	if (p == t)
		return false;
	for (int field = 0; field < 2; field++) {   /* pid, tid */
		const char *s = p;

		while (p < end && *p == ' ')
			p++;
		if (p == s)
			return false;
		s = p;
		while (p < end && DIGIT(*p))
			p++;
		if (p == s)
			return false;
	}
#undef DIGIT
	if (end - p < 3 || p[0] != ' ' || !strchr("WEF", p[1]) || p[2] != ' ')
		return false;
	*level = p[1];
	p += 3;
	const char *m = p;

	while (p < end && *p != ' ')
		p++;
	if (p == m || p == end)
		return false;
	snprintf(module, modlen, "%.*s", (int)(p - m), m);
	p++;
	const char *f = p;      /* func@file:line */

	while (p < end && *p != ' ')
		p++;
	if (p == f || p == end)
		return false;
	p++;
	if (p < end && *p == '[') {
		const char *close = memchr(p, ']', (size_t)(end - p));

		if (close && close + 1 < end && close[1] == ' ')
			p = close + 2;
	}
	*msg = p;
	*msglen = (size_t)(end - p);
	return true;
}

/* The first log line of the given levels whose module contains
 * module_part (NULL: any), skipping messages that begin with skip. */
static bool first_log(const struct wperf_run *run, const char *levels, const char *module_part,
		      char *out, size_t outlen)
{
	const char *line = run->log;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char level, module[256];
		const char *msg;
		size_t msglen;

		if (log_line(line, len, &level, module, sizeof(module), &msg, &msglen) &&
		    strchr(levels, level) && (!module_part || strstr(module, module_part)) &&
		    !(msglen >= 18 && !strncmp(msg, "Command-line error", 18))) {
			char *copy = strndup(msg, msglen);

			if (copy) {
				without_fields(copy, out, outlen);
				free(copy);
				return true;
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	return false;
}

/* ------------------------------------------------------------ the fix */

/* After a message that says what failed, how to fix it, for the failures
 * whose fix is known: a stream file babeltrace2 cannot index is a
 * recording cut short (the recorder killed, the disk full) or damaged. */
static void add_fix(char *out, size_t outlen)
{
	size_t n = strlen(out);

	if (!strncmp(out, "Failed to index CTF stream file", 31))
		snprintf(out + n, outlen - n, " (the recording was cut or damaged there: "
			 "record it again, or move that stream file out of the trace "
			 "to report the rest)");
}

/* ------------------------------------------------------------ the rule */

void wperf_run_failure(const struct wperf_run *run, char *out, size_t outlen)
{
	char msg[4096];
	uint64_t n = cause_count(run);

	for (uint64_t i = 0; i < n; i++) {
		const bt_error_cause *c = cause(run, i);
		const char *plugin = actor_plugin(c);

		one_line(bt_error_cause_get_message(c), msg, sizeof(msg));
		if (plugin && !strcmp(plugin, "wperf") && msg[0]) {
			snprintf(out, outlen, "%s", msg);
			return;
		}
	}
	if (run->status == WPERF_RUN_NO_TRACE) {
		snprintf(out, outlen, "no CTF trace there (a trace directory has a `metadata` "
			 "file beside its stream files; record one with `wperf record`)");
		return;
	}
	if (first_log(run, "WEF", "/META", msg, sizeof(msg))) {
		snprintf(out, outlen, "its CTF metadata cannot be read (%s): not a CTF trace, "
			 "or a damaged one", msg);
		return;
	}
	if (first_log(run, "EF", NULL, out, outlen)) {
		add_fix(out, outlen);
		return;
	}
	if (n) {
		one_line(bt_error_cause_get_message(cause(run, n - 1)), msg, sizeof(msg));
		without_fields(msg, out, outlen);
		add_fix(out, outlen);
		return;
	}
	/* The log's last line. */
	const char *end = run->log ? run->log + run->loglen : NULL;

	while (end && end > run->log && isspace((unsigned char)end[-1]))
		end--;
	if (end && end > run->log) {
		const char *start = end;

		while (start > run->log && start[-1] != '\n')
			start--;
		snprintf(out, outlen, "%.*s", (int)(end - start), start);
		return;
	}
	snprintf(out, outlen, "babeltrace2 failed without saying why");
}

bool wperf_run_mentions(const struct wperf_run *run, const char *text)
{
	for (uint64_t i = 0; i < cause_count(run); i++)
		if (strstr(bt_error_cause_get_message(cause(run, i)), text))
			return true;
	return run->log && strstr(run->log, text);
}

/* ------------------------------------------------------------ --verbose */

/* msg folded at 80 columns, each line indented by two spaces. */
static void print_folded(const char *msg, FILE *f)
{
	size_t col = 0;

	while (*msg) {
		if (*msg == '\n') {
			fputc('\n', f);
			col = 0;
			msg++;
			continue;
		}
		if (*msg == ' ') {
			msg++;
			continue;
		}
		size_t word = strcspn(msg, " \n");

		if (col && col + 1 + word > 80) {
			fputc('\n', f);
			col = 0;
		}
		if (!col) {
			fputs("  ", f);
			col = 2;
		} else {
			fputc(' ', f);
			col++;
		}
		fwrite(msg, 1, word, f);
		col += word;
		msg += word;
	}
	fputc('\n', f);
}

void wperf_run_print_causes(const struct wperf_run *run, FILE *f)
{
	char who[512];
	uint64_t n = cause_count(run);

	if (!n)
		return;
	fputc('\n', f);
	for (uint64_t i = 0; i < n; i++) {
		const bt_error_cause *c = cause(run, i);

		actor(c, who, sizeof(who));
		fprintf(f, "%s[%s] (%s:%" PRIu64 ")\n", i == 0 ? "ERROR:    " : "CAUSED BY ",
			who, bt_error_cause_get_file_name(c), bt_error_cause_get_line_number(c));
		print_folded(bt_error_cause_get_message(c), f);
	}
}
