/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/json.h — the few members `wperf` reads from the small JSON
 * objects `wperf record` writes (wperf.json, .wperf/recording), and the
 * one it changes in place. A full JSON library would be a dependency for
 * a handful of values; this reader checks that the whole text is JSON and
 * hands back members as written.
 */
#ifndef WPERF_TOOL_JSON_H
#define WPERF_TOOL_JSON_H

#include <stdbool.h>
#include <stddef.h>

/* One top-level member wanted: its text, as written (a string's content
 * without its quotes, its escapes decoded: \uXXXX, and a surrogate pair,
 * to UTF-8, a lone surrogate and \u0000 to U+FFFD (as the writer writes
 * bytes that are not UTF-8); cut short where out ends, never inside a
 * character; a number's digits; an object's or array's whole text). */
struct json_want {
	const char *key;
	char *out;
	size_t outlen;
	bool found, is_string;
	size_t value_begin, value_end;  /* the value's span in the text */
};

/* Read the wanted top-level members of the JSON object in text. false
 * when text is not one JSON object. */
bool wperf_json_members(const char *text, struct json_want *want, size_t nwant);

/* Past the JSON string at p (its opening quote), its content decoded
 * into out as a json_want's; NULL when p holds no JSON string. */
const char *wperf_json_string_at(const char *p, char *out, size_t outlen);

/* The whole of a small file, malloc'ed and NUL-terminated; NULL with errno. */
char *wperf_read_text(const char *path);

#endif /* WPERF_TOOL_JSON_H */
