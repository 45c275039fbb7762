/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/json.c — reading members of small JSON objects (json.h).
 */
#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


static const char *json_blank(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* The four hex digits at p as a number; -1 when they are not. */
static long json_hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		if (!isxdigit((unsigned char)p[i]))
			return -1;
		v = v * 16 + (isdigit((unsigned char)p[i]) ? p[i] - '0' :
			      tolower((unsigned char)p[i]) - 'a' + 10);
	}
	return v;
}

/* The code point of the \uXXXX escape at p (past its "\u"), a pair of
 * them for one above U+FFFF (a high surrogate then a low one); *p moved
 * past what it used. A surrogate without its other half, and U+0000
 * (no C string holds it), read as U+FFFD, as wperf.json's writer writes
 * any byte that is not UTF-8. -1 when the digits are not hex. */
static long json_code_point(const char **p)
{
	long cp = json_hex4(*p), low;

	if (cp < 0)
		return -1;
	*p += 4;
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return 0xfffd;  /* a low surrogate alone */
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if ((*p)[0] != '\\' || (*p)[1] != 'u' || (low = json_hex4(*p + 2)) < 0xdc00 ||
		    low > 0xdfff)
			return 0xfffd;  /* a high surrogate alone: what follows is read on its own */
		*p += 6;
		return 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
	}
	return cp ? cp : 0xfffd;
}

/* cp as UTF-8 into u (4 bytes); its length. */
static size_t json_utf8(long cp, char *u)
{
	if (cp < 0x80) {
		u[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	u[0] = (char)(0xf0 | (cp >> 18));
	u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	u[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Past a string at p (its opening quote); copies its content, its
 * escapes decoded (\uXXXX to UTF-8), into out (when given), cut short
 * where it does not fit, never inside a character. NULL when it is not
 * a string. */
static const char *json_string(const char *p, char *out, size_t outlen)
{
	static const char plain[] = "\"\\/bfnrt", meant[] = "\"\\/\b\f\n\r\t";
	size_t n = 0, len;
	bool full = false;
	char u[4];

	if (*p++ != '"')
		return NULL;
	while (*p && *p != '"') {
		const char *esc;

		if ((unsigned char)*p < 0x20)
			return NULL;
		u[0] = *p++;
		len = 1;
		if (u[0] == '\\') {
			long cp;

			if (*p == 'u') {
				p++;
				if ((cp = json_code_point(&p)) < 0)
					return NULL;
				len = json_utf8(cp, u);
			} else if (*p && (esc = strchr(plain, *p))) {
				u[0] = meant[esc - plain];
				p++;
			} else {
				return NULL;
			}
		}
		full = full || !out || n + len >= outlen;
		if (!full) {
			memcpy(out + n, u, len);
			n += len;
		}
	}
	if (out && outlen)
		out[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

const char *wperf_json_string_at(const char *p, char *out, size_t outlen)
{
	return json_string(p, out, outlen);
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


/* The most wperf_read_text() reads: its files are a few KiB. */
#define TEXT_MAX (16 << 20)

char *wperf_read_text(const char *path)
{
	/* Not blocking at open: a FIFO planted as DIR/command.pid must not
	 * hang `wperf report DIR`, nor /dev/zero fill its memory. */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	char *text;
	ssize_t n;
	size_t len = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > TEXT_MAX) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		close(fd);
		return NULL;
	}
	if (!(text = malloc((size_t)st.st_size + 1))) {
		close(fd);
		return NULL;
	}
	/* Up to the size seen: a file that grows meanwhile is cut there. */
	while (len < (size_t)st.st_size &&
	       ((n = read(fd, text + len, (size_t)st.st_size - len)) > 0 || (n < 0 && errno == EINTR)))
		if (n > 0)
			len += (size_t)n;
	close(fd);
	text[len] = '\0';
	return text;
}
