/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-params.c — babeltrace2's `--params` syntax (bt-params.h).
 *
 * The grammar of babeltrace2 2.0's CLI (src/param-parse/param-parse.c, a
 * GScanner configured as below):
 *
 *   params  := [ key '=' value { ',' key '=' value } ]
 *   key     := identifier                  [a-zA-Z_][a-zA-Z0-9_.:-]*
 *   value   := null | nul | NULL           null
 *            | true | TRUE | yes | YES     true; false, FALSE, no, NO: false
 *            | identifier                  a string, unquoted
 *            | "string"                    with C escapes (\" \\ \n \t \NNN ...)
 *            | integer                     signed 64-bit: 17, 0x11, 021
 *            | '+' integer                 unsigned 64-bit
 *            | '-' integer | ['-'] real    1.5, -2e3
 *            | '[' [ value { ',' value } ] [','] ']'
 *            | '{' [ key '=' value { ',' key '=' value } ] [','] '}'
 *
 * Blanks (space, tab, newline) and C comments separate tokens.
 */
#include "bt-params.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum token_kind { TOK_EOF, TOK_CHAR, TOK_IDENT, TOK_STRING, TOK_INT, TOK_REAL, TOK_BAD };

struct scanner {
	const char *text;
	const char *pos;
	/* The current token. */
	enum token_kind kind;
	const char *start;      /* where it began, for messages */
	char ch;                /* TOK_CHAR */
	char *str;              /* TOK_IDENT, TOK_STRING (owned) */
	uint64_t u;             /* TOK_INT */
	double real;            /* TOK_REAL */
	char *why;
	size_t whylen;
	bool failed;
};

/*
 * Said where a value or a `,` after one was expected: the usual cause is
 * a value written bare that only a quoted string may hold
 * (nic-capacity=lo=1Gbit, begin=12:30:05, path=/tmp/r.json), which the
 * shell's own quotes do not make one.
 */
static const char QUOTE_HINT[] =
	"; a value holding `/`, `=`, `,`, `:` or blanks is a string in double quotes, "
	"e.g. --params 'nic-capacity=\"lo=1Gbit\",begin=\"12:30:05\"'";

static void fail(struct scanner *s, const char *expecting)
{
	bool bare = !strcmp(expecting, "`,`") || !strcmp(expecting, "a value");

	if (s->failed)
		return;
	s->failed = true;
	if (s->kind == TOK_EOF)
		snprintf(s->why, s->whylen, "expecting %s at the end of `%s`%s", expecting,
			 s->text, bare ? QUOTE_HINT : "");
	else
		snprintf(s->why, s->whylen, "expecting %s at character %td of `%s`%s", expecting,
			 s->start - s->text + 1, s->text, bare ? QUOTE_HINT : "");
}

static bool ident_first(int c) { return isalpha(c) || c == '_'; }
static bool ident_nth(int c) { return isalnum(c) || (c && strchr("_-.:", c)); }

static void skip_blanks(struct scanner *s)
{
	for (;;) {
		while (*s->pos == ' ' || *s->pos == '\t' || *s->pos == '\n')
			s->pos++;
		if (s->pos[0] != '/' || s->pos[1] != '*')
			return;
		const char *end = strstr(s->pos + 2, "*/");

		s->pos = end ? end + 2 : s->pos + strlen(s->pos);
	}
}

/* A double-quoted string; s->pos is past the opening quote. */
static void scan_string(struct scanner *s)
{
	size_t cap = strlen(s->pos) + 1, n = 0;
	char *out = malloc(cap);

	if (!out) {
		s->kind = TOK_BAD;
		return;
	}
	while (*s->pos && *s->pos != '"') {
		char c = *s->pos++;

		if (c == '\\' && *s->pos) {
			char e = *s->pos++;
			const char *map = strchr("n\nt\tr\rb\bf\f\\\\\"\"", e);

			if (e >= '0' && e <= '7') {
				int v = e - '0';

				for (int k = 0; k < 2 && *s->pos >= '0' && *s->pos <= '7'; k++)
					v = v * 8 + (*s->pos++ - '0');
				c = (char)v;
			} else if (map && (map - "n\nt\tr\rb\bf\f\\\\\"\"") % 2 == 0) {
				c = map[1];
			} else {
				out[n++] = '\\';   /* unknown escape: kept as written */
				c = e;
			}
		}
		out[n++] = c;
	}
	out[n] = '\0';
	if (*s->pos != '"') {
		free(out);
		s->kind = TOK_BAD;
		return;
	}
	s->pos++;
	s->kind = TOK_STRING;
	s->str = out;
}

/* A number: decimal, 0x hex or 0 octal integers; reals with '.' or an
 * exponent. */
static void scan_number(struct scanner *s)
{
	const char *p = s->pos;
	bool real = false;
	char *end;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		errno = 0;
		s->u = strtoull(p + 2, &end, 16);
	} else {
		for (const char *q = p; isdigit((unsigned char)*q) || *q == '.' ||
		     *q == 'e' || *q == 'E'; q++)
			if (*q == '.' || *q == 'e' || *q == 'E')
				real = true;
		errno = 0;
		if (real)
			s->real = strtod(p, &end);
		else
			s->u = strtoull(p, &end, p[0] == '0' ? 8 : 10);
	}
	if (end == p || errno == ERANGE || ident_nth((unsigned char)*end)) {
		s->kind = TOK_BAD;
		return;
	}
	s->pos = end;
	s->kind = real ? TOK_REAL : TOK_INT;
}

static void next(struct scanner *s)
{
	free(s->str);
	s->str = NULL;
	skip_blanks(s);
	s->start = s->pos;
	if (!*s->pos) {
		s->kind = TOK_EOF;
	} else if (ident_first((unsigned char)*s->pos)) {
		const char *b = s->pos;

		while (ident_nth((unsigned char)*s->pos))
			s->pos++;
		s->str = strndup(b, (size_t)(s->pos - b));
		s->kind = s->str ? TOK_IDENT : TOK_BAD;
	} else if (*s->pos == '"') {
		s->pos++;
		scan_string(s);
	} else if (isdigit((unsigned char)*s->pos) ||
		   (*s->pos == '.' && isdigit((unsigned char)s->pos[1]))) {
		scan_number(s);
	} else {
		s->kind = TOK_CHAR;
		s->ch = *s->pos++;
	}
}

static bool is_char(const struct scanner *s, char c)
{
	return s->kind == TOK_CHAR && s->ch == c;
}

static bt_value *parse_value(struct scanner *s);

/* key '=' value pairs up to `close` ('\0': the end of the text). */
static int parse_entries(struct scanner *s, bt_value *map, char close)
{
	while (!(close ? is_char(s, close) : s->kind == TOK_EOF)) {
		char *key;
		bt_value *value;

		if (s->kind != TOK_IDENT) {
			fail(s, "an unquoted map key");
			return -1;
		}
		key = s->str;
		s->str = NULL;
		next(s);
		if (!is_char(s, '=')) {
			free(key);
			fail(s, "`=`");
			return -1;
		}
		next(s);
		value = parse_value(s);
		if (!value) {
			free(key);
			return -1;
		}
		int rc = bt_value_map_insert_entry(map, key, value);

		bt_value_put_ref(value);
		free(key);
		if (rc) {
			fail(s, "memory");
			return -1;
		}
		next(s);
		if (is_char(s, ',')) {
			next(s);
			if (!close && s->kind == TOK_EOF) {
				fail(s, "an unquoted map key");
				return -1;
			}
		} else if (!(close ? is_char(s, close) : s->kind == TOK_EOF)) {
			fail(s, close == '}' ? "`,` or `}`" : "`,`");
			return -1;
		}
	}
	return 0;
}

static bt_value *parse_array(struct scanner *s)
{
	bt_value *array = bt_value_array_create();

	next(s);
	while (array && !is_char(s, ']')) {
		bt_value *item = parse_value(s);

		if (!item || bt_value_array_append_element(array, item)) {
			bt_value_put_ref(item);
			goto error;
		}
		bt_value_put_ref(item);
		next(s);
		if (is_char(s, ','))
			next(s);
		else if (!is_char(s, ']')) {
			fail(s, "`,` or `]`");
			goto error;
		}
	}
	return array;
error:
	bt_value_put_ref(array);
	return NULL;
}

static bt_value *parse_identifier(const char *id)
{
	if (!strcmp(id, "null") || !strcmp(id, "NULL") || !strcmp(id, "nul")) {
		bt_value_get_ref(bt_value_null);
		return bt_value_null;
	}
	if (!strcmp(id, "true") || !strcmp(id, "TRUE") || !strcmp(id, "yes") ||
	    !strcmp(id, "YES"))
		return bt_value_bool_create_init(BT_TRUE);
	if (!strcmp(id, "false") || !strcmp(id, "FALSE") || !strcmp(id, "no") ||
	    !strcmp(id, "NO"))
		return bt_value_bool_create_init(BT_FALSE);
	return bt_value_string_create_init(id);
}

/* The value that starts at the current token (which it ends on). */
static bt_value *parse_value(struct scanner *s)
{
	bt_value *map;

	switch (s->kind) {
	case TOK_IDENT:
		return parse_identifier(s->str);
	case TOK_STRING:
		return bt_value_string_create_init(s->str);
	case TOK_REAL:
		return bt_value_real_create_init(s->real);
	case TOK_INT:
		if (s->u > INT64_MAX) {
			fail(s, "an integer within the range of a 64-bit signed integer");
			return NULL;
		}
		return bt_value_integer_signed_create_init((int64_t)s->u);
	case TOK_CHAR:
		if (s->ch == '-') {
			next(s);
			if (s->kind == TOK_REAL)
				return bt_value_real_create_init(-s->real);
			if (s->kind == TOK_INT && s->u <= (uint64_t)INT64_MAX + 1)
				return bt_value_integer_signed_create_init(
					(int64_t)(0 - s->u));
			fail(s, "a number within the range of a 64-bit signed integer");
			return NULL;
		}
		if (s->ch == '+') {
			next(s);
			if (s->kind == TOK_INT)
				return bt_value_integer_unsigned_create_init(s->u);
			fail(s, "an integer value");
			return NULL;
		}
		if (s->ch == '[')
			return parse_array(s);
		if (s->ch == '{') {
			map = bt_value_map_create();
			next(s);
			if (map && parse_entries(s, map, '}') == 0)
				return map;
			bt_value_put_ref(map);
			return NULL;
		}
		break;
	default:
		break;
	}
	fail(s, "a value");
	return NULL;
}

int wperf_params_parse(const char *text, bt_value *params, char *why, size_t whylen)
{
	struct scanner s = { .text = text, .pos = text, .why = why, .whylen = whylen };
	int rc;

	next(&s);
	if (s.kind == TOK_EOF) {
		fail(&s, "an unquoted map key");
		rc = -1;
	} else {
		rc = parse_entries(&s, params, '\0');
	}
	free(s.str);
	if (rc && !s.failed)
		snprintf(why, whylen, "cannot parse `%s`", text);
	return rc;
}
