/* SPDX-License-Identifier: MIT */
/*
 * fuzz-params.c — libFuzzer target: component parameters (--params).
 *
 * The input is a list of lines `KEY=VALUE`, turned into the bt_value map
 * babeltrace2 hands a component. VALUE is typed by its first byte:
 *   i-123   signed integer      u123   unsigned integer
 *   btrue   boolean             r1.5   real
 *   a1,x,2  array (items: integer when they parse as one, else string)
 *   m       empty map           n      null
 *   anything else: the string itself.
 * The map goes through sink.wperf.knots' readers (plugin/knots/knots-params.c),
 * source.wperf.tracefs' (plugin/tracefs/tracefs-component.c), filter.wperf.waits'
 * (plugin/waits/waits-select.c), and plugin/common/params.c's
 * getters and parsers directly. Each must accept or refuse without
 * crashing, and a refusal is one line naming a parameter.
 *
 * Build and run: tests/fuzz/run.sh params (doc/reliability.md).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <babeltrace2/babeltrace.h>

#include "fuzz-params.h"
#include "common/params.h"
#include "waits/waits-select.h"

static void insert_array(bt_value *map, const char *key, const char *items)
{
	bt_value *arr = NULL;

	if (bt_value_map_insert_empty_array_entry(map, key, &arr) != 0)
		return;
	for (const char *p = items; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char *item = strndup(p, len);
		char *end;
		long long v;

		if (!item)
			return;
		v = strtoll(item, &end, 10);
		if (*item && *end == '\0')
			bt_value_array_append_signed_integer_element(arr, v);
		else
			bt_value_array_append_string_element(arr, item);
		free(item);
		p += len + (comma != NULL);
	}
}

static void insert(bt_value *map, const char *key, const char *v)
{
	switch (v[0]) {
	case 'i':
		bt_value_map_insert_signed_integer_entry(map, key, strtoll(v + 1, NULL, 10));
		break;
	case 'u':
		bt_value_map_insert_unsigned_integer_entry(map, key, strtoull(v + 1, NULL, 10));
		break;
	case 'b':
		bt_value_map_insert_bool_entry(map, key, strcmp(v + 1, "true") == 0);
		break;
	case 'r':
		bt_value_map_insert_real_entry(map, key, strtod(v + 1, NULL));
		break;
	case 'a':
		insert_array(map, key, v + 1);
		break;
	case 'm':
		bt_value_map_insert_empty_map_entry(map, key, NULL);
		break;
	case 'n':
		bt_value_map_insert_entry(map, key, bt_value_null);
		break;
	default:
		bt_value_map_insert_string_entry(map, key, v);
		break;
	}
}

static bt_value *parse_map(const uint8_t *data, size_t size)
{
	bt_value *map = bt_value_map_create();
	char *text = malloc(size + 1);
	char *save = NULL;

	if (!map || !text) {
		free(text);
		bt_value_put_ref(map);
		return NULL;
	}
	memcpy(text, data, size);
	text[size] = '\0';   /* an embedded NUL simply ends the input */
	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *eq = strchr(line, '=');

		if (!eq)
			continue;
		*eq = '\0';
		insert(map, line, eq + 1);
	}
	free(text);
	return map;
}

/* A refusal is one line that names a parameter. */
static void check_message(int rc, const char *err)
{
	if (rc >= 0)
		return;
	if (!err[0] || strchr(err, '\n') || !strstr(err, "parameter `")) {
		fprintf(stderr, "bad error message: \"%s\"\n", err);
		abort();
	}
}

/* plugin/common/params.c's getters on every key of the map, as each type. */
static bt_value_map_foreach_entry_const_func_status
try_getters(const char *key, const bt_value *value, void *data)
{
	const bt_value *params = data;
	char err[512];
	const char *s;
	bool b;
	int64_t i;
	struct wperf_string_list l = { NULL, 0 };

	(void)value;
	check_message(wperf_params_get_string(params, key, &s, err, sizeof err), err);
	check_message(wperf_params_get_bool(params, key, &b, err, sizeof err), err);
	check_message(wperf_params_get_int(params, key, -5, 1048576, &i, err, sizeof err), err);
	check_message(wperf_params_get_duration_ns(params, key, &i, err, sizeof err), err);
	check_message(wperf_params_get_string_list(params, key, &l, err, sizeof err), err);
	wperf_string_list_free(&l);
	{
		int64_t *ids = NULL;
		size_t n = 0;

		check_message(wperf_params_get_id_list(params, key, &ids, &n, err, sizeof err),
			      err);
		free(ids);
	}
	if (bt_value_is_string(value)) {
		uint64_t bps;

		wperf_parse_rate_bps(bt_value_string_get(value), &bps);
		wperf_parse_duration_ns(bt_value_string_get(value), &i);
	}
	return BT_VALUE_MAP_FOREACH_ENTRY_CONST_FUNC_STATUS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	bt_value *map = parse_map(data, size);
	const char *kerr = "";
	char err[512];

	if (!map)
		return 0;
	check_message(fuzz_knots_params(map, &kerr), kerr);
	check_message(fuzz_tracefs_params(map, err, sizeof err), err);
	{
		struct waits_selection sel;

		check_message(waits_selection_read(&sel, map, err, sizeof err), err);
		waits_selection_fini(&sel);
	}
	bt_value_map_foreach_entry_const(map, try_getters, map);
	bt_value_put_ref(map);
	return 0;
}
