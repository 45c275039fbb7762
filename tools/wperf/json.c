/*
 * tools/wperf/json.c — reading members of small JSON objects (json.h).
 */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *json_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Past a string at p (its opening quote); copies its content into out
 * (when given). NULL when it is not a string. */
static const char *json_string(const char *p, char *out, size_t outlen)
{
	size_t n = 0;

	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		char c = *p++;

		if ((unsigned char)c < 0x20)
			return NULL;
		if (c == '\\') {
			if (!*p)
				return NULL;
			c = *p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)*p++))
						return NULL;
				c = '?';
			} else if (!strchr("\"\\/bfnrt", c)) {
				return NULL;
			}
		}
		if (out && n + 1 < outlen)
			out[n++] = c;
	}
	if (out && outlen)
		out[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

/* Past the value at p; NULL when it is not JSON. */
static const char *json_value(const char *p, int depth)
{
	p = json_blank(p);
	if (depth > 64)
		return NULL;
	if (*p == '"')
		return json_string(p, NULL, 0);
	if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';

		p = json_blank(p + 1);
		if (*p == close)
			return p + 1;
		for (;;) {
			if (close == '}') {
				p = json_string(json_blank(p), NULL, 0);
				if (!p || *(p = json_blank(p)) != ':')
					return NULL;
				p++;
			}
			if (!(p = json_value(p, depth + 1)))
				return NULL;
			p = json_blank(p);
			if (*p == close)
				return p + 1;
			if (*p++ != ',')
				return NULL;
		}
	}
	for (const char *lit = "true\0false\0null\0"; *lit; lit += strlen(lit) + 1)
		if (!strncmp(p, lit, strlen(lit)))
			return p + strlen(lit);
	if (*p == '-' || isdigit((unsigned char)*p)) {
		char *end;

		strtod(p, &end);
		return end == p ? NULL : end;
	}
	return NULL;
}

bool wperf_json_members(const char *text, struct json_want *want, size_t nwant)
{
	const char *p = json_blank(text);
	char key[64];

	if (*p++ != '{')
		return false;
	p = json_blank(p);
	if (*p == '}')
		return !*json_blank(p + 1);
	for (;;) {
		const char *v;

		p = json_string(json_blank(p), key, sizeof(key));
		if (!p || *(p = json_blank(p)) != ':')
			return false;
		v = json_blank(p + 1);
		if (!(p = json_value(v, 1)))
			return false;
		for (size_t i = 0; i < nwant; i++) {
			if (strcmp(want[i].key, key))
				continue;
			want[i].found = true;
			want[i].is_string = *v == '"';
			want[i].value_begin = (size_t)(v - text);
			want[i].value_end = (size_t)(p - text);
			if (want[i].is_string) {
				json_string(v, want[i].out, want[i].outlen);
			} else {
				size_t n = (size_t)(p - v);

				n = n < want[i].outlen ? n : want[i].outlen - 1;
				memcpy(want[i].out, v, n);
				want[i].out[n] = '\0';
			}
		}
		p = json_blank(p);
		if (*p == '}')
			return !*json_blank(p + 1);
		if (*p++ != ',')
			return false;
	}
}


char *wperf_read_text(const char *path)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t len = 0;

	if (!f)
		return NULL;
	ssize_t n = getdelim(&text, &len, '\0', f);
	int saved = errno;

	fclose(f);
	if (n < 0) {
		free(text);
		if (!saved) {   /* an empty file */
			return strdup("");
		}
		errno = saved;
		return NULL;
	}
	return text;
}
