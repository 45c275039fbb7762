/* SPDX-License-Identifier: MIT */
/*
 * plugin/common/tcp-key.c — a network event's TCP key (see tcp-key.h).
 */
#include "tcp-key.h"

#include <stdint.h>
#include <string.h>

/* A member of a structure, seen through variants (their selected
 * option), or NULL. */
static const bt_field *member(const bt_field *f, const char *name)
{
	while (f && bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_VARIANT))
		f = bt_field_variant_borrow_selected_option_field_const(f);
	if (!f || bt_field_get_class_type(f) != BT_FIELD_CLASS_TYPE_STRUCTURE)
		return NULL;
	return bt_field_structure_borrow_member_field_by_name_const(f, name);
}

static bool unsigned_of(const bt_field *f, uint32_t *out)
{
	if (!f)
		return false;
	if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_UNSIGNED_INTEGER))
		*out = (uint32_t)bt_field_integer_unsigned_get_value(f);
	else if (bt_field_class_type_is(bt_field_get_class_type(f), BT_FIELD_CLASS_TYPE_SIGNED_INTEGER))
		*out = (uint32_t)bt_field_integer_signed_get_value(f);
	else
		return false;
	return true;
}

bool wperf_tcp_key_of(const bt_field *payload, struct wperf_tcp_key *k)
{
	const bt_field *tcp = payload;

	if (!payload)
		return false;
	if (!member(tcp, "seq")) {
		tcp = member(member(payload, "network_header"), "transport_header");
		if (!tcp || !member(tcp, "seq"))
			return false;
	}
	return unsigned_of(member(tcp, "seq"), &k->seq) &&
	       unsigned_of(member(tcp, "ack_seq"), &k->ack_seq) &&
	       unsigned_of(member(tcp, "flags"), &k->flags);
}

int wperf_tcp_direction(const char *name)
{
	if (!strcmp(name, "inet_sock_local_out") || !strcmp(name, "net_dev_queue"))
		return 1;
	if (!strcmp(name, "inet_sock_local_in") || !strcmp(name, "net_if_receive_skb"))
		return -1;
	return 0;
}
