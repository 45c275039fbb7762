/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/say.c — how every part of the `wperf` command speaks to
 * the user (say.h): one line on standard error, "wperf: ..." or
 * "wperf: error: ...". The lines echo what the user gave (arguments,
 * paths, user and session names) and what a file or another program
 * said: every control character in them is escaped here, once for all
 * callers, so that none of it can split the line, forge another one, or
 * reach the terminal as an escape sequence.
 */
#include "say.h"
#include "dir-names.h"
#include "wperf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

/* One byte sequence of s as the terminal may show it: its length, or 0
 * when it is to be escaped (a control character, C0 or C1, DEL, or a
 * byte that does not begin a whole UTF-8 character). */
static size_t showable(const unsigned char *s)
{
	size_t n = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2 :
		   s[0] >= 0xe0 && s[0] <= 0xef ? 3 : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;

	if (s[0] < 0x20 || s[0] == 0x7f || (s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f))
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void wperf_put_escaped(FILE *f, const char *text)
{
	static const char names[] = { ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't' };
	const unsigned char *s = (const unsigned char *)text;

	while (*s) {
		size_t n = showable(s);

		if (n) {
			fwrite(s, 1, n, f);
			s += n;
		} else if (*s < sizeof(names) && names[*s]) {
			fprintf(f, "\\%c", names[*s++]);
		} else {
			fprintf(f, "\\x%02x", *s++);
		}
	}
}

/* "wperf: " PREFIX MSG on standard error, a held directory's /proc name
 * written as its path (dir-names.h), every control character escaped. */
static void speak(const char *prefix, const char *fmt, va_list ap)
{
	char msg[8192], shown[8192];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	wperf_dir_names_shown(msg, shown, sizeof(shown));
	fprintf(stderr, "wperf: %s", prefix);
	wperf_put_escaped(stderr, shown);
	fputc('\n', stderr);
	fflush(stderr);
}

void wperf_say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	speak("", fmt, ap);
	va_end(ap);
}

int wperf_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	speak("error: ", fmt, ap);
	va_end(ap);
	return WPERF_EXIT_FAIL;
}
