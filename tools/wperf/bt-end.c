/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/bt-end.c — a filter of wperf's own that ends its input on
 * demand (bt-end.h): put before a sink whose sources never end by
 * themselves (the live sessions `wperf top --relay` reads, which are
 * other machines' to end), so that the sink still sees the end of its
 * input, and writes what it writes there (sink.wperf.knots with every=:
 * the last period and the final report), instead of being interrupted
 * with nothing written.
 *
 * It forwards every message unchanged. Once wperf_bt_end_input() was
 * called (from a signal handler: it only sets a flag), its next call
 * returns END: what the sources delivered so far is the whole input.
 * The graph is not interrupted: babeltrace2 calls the sink again, which
 * finishes. A source blocked for long in a call that does not return
 * keeps it from that call, which the graph's interrupter (a second
 * SIGINT) still ends.
 */
#include "bt-end.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static volatile sig_atomic_t end_requested;

void wperf_bt_end_input(void)
{
	end_requested = 1;
}

/* The component: its input port, for the iterator to read from. */
struct end_filter {
	bt_self_component_port_input *in;
};

/* The iterator: upstream's, and the messages of a batch larger than the
 * caller's capacity, kept for its next call. */
struct end_iter {
	bt_message_iterator *up;
	const bt_message **held;
	uint64_t nheld, first;
};

static bt_component_class_initialize_method_status
filter_init(bt_self_component_filter *self, bt_self_component_filter_configuration *config,
	    const bt_value *params, void *data)
{
	struct end_filter *f = calloc(1, sizeof(*f));

	(void)config;
	(void)params;
	(void)data;
	if (!f)
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (bt_self_component_filter_add_input_port(self, "in", NULL, &f->in) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK ||
	    bt_self_component_filter_add_output_port(self, "out", NULL, NULL) !=
	    BT_SELF_COMPONENT_ADD_PORT_STATUS_OK) {
		free(f);
		return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_component_set_data(bt_self_component_filter_as_self_component(self), f);
	return BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void filter_fini(bt_self_component_filter *self)
{
	free(bt_self_component_get_data(bt_self_component_filter_as_self_component(self)));
}

static bt_message_iterator_class_initialize_method_status
iter_init(bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
	  bt_self_component_port_output *port)
{
	struct end_filter *f = bt_self_component_get_data(
		bt_self_message_iterator_borrow_component(self));
	struct end_iter *it = calloc(1, sizeof(*it));

	(void)config;
	(void)port;
	if (!it)
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
	if (bt_message_iterator_create_from_message_iterator(self, f->in, &it->up) !=
	    BT_MESSAGE_ITERATOR_CREATE_FROM_MESSAGE_ITERATOR_STATUS_OK) {
		free(it);
		return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
	}
	bt_self_message_iterator_set_data(self, it);
	return BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
}

static void iter_fini(bt_self_message_iterator *self)
{
	struct end_iter *it = bt_self_message_iterator_get_data(self);

	for (uint64_t i = it->first; i < it->nheld; i++)
		bt_message_put_ref(it->held[i]);
	free(it->held);
	bt_message_iterator_put_ref(it->up);
	free(it);
}

/* Give up to capacity held messages; their count. */
static uint64_t give_held(struct end_iter *it, bt_message_array_const msgs, uint64_t capacity)
{
	uint64_t n = 0;

	while (n < capacity && it->first < it->nheld)
		msgs[n++] = it->held[it->first++];
	if (it->first == it->nheld)
		it->first = it->nheld = 0;
	return n;
}

/* Upstream's batch into msgs, what does not fit held; false when out of
 * memory (the batch then released). */
static bool take_batch(struct end_iter *it, bt_message_array_const up, uint64_t n,
		       bt_message_array_const msgs, uint64_t capacity, uint64_t *count)
{
	uint64_t given = n < capacity ? n : capacity;

	memcpy((void *)msgs, up, given * sizeof(*up));
	*count = given;
	if (given == n)
		return true;
	free(it->held);
	if (!(it->held = malloc((n - given) * sizeof(*it->held)))) {
		for (uint64_t i = 0; i < n; i++)
			bt_message_put_ref(up[i]);
		*count = 0;
		return false;
	}
	memcpy((void *)it->held, up + given, (n - given) * sizeof(*up));
	it->first = 0;
	it->nheld = n - given;
	return true;
}

static bt_message_iterator_class_next_method_status
iter_next(bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
	  uint64_t *count)
{
	struct end_iter *it = bt_self_message_iterator_get_data(self);
	bt_message_array_const up;
	uint64_t n = 0;

	*count = 0;
	if (it->nheld) {
		*count = give_held(it, msgs, capacity);
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK;
	}
	if (end_requested)
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	switch (bt_message_iterator_next(it->up, &up, &n)) {
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_OK:
		return take_batch(it, up, n, msgs, capacity, count)
		       ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_OK
		       : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_AGAIN:
		/* Nothing new (a live source waiting for data): the end, if
		 * asked for meanwhile. */
		return end_requested ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END
				     : BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_AGAIN;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_END:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	case BT_MESSAGE_ITERATOR_NEXT_STATUS_MEMORY_ERROR:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_MEMORY_ERROR;
	default:
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR;
	}
}

const bt_component_class_filter *wperf_bt_end_class(void)
{
	static bt_component_class_filter *cls;
	bt_message_iterator_class *iter;

	if (cls)
		return cls;
	if (!(iter = bt_message_iterator_class_create(iter_next)))
		return NULL;
	if (bt_message_iterator_class_set_initialize_method(iter, iter_init) ||
	    bt_message_iterator_class_set_finalize_method(iter, iter_fini) ||
	    !(cls = bt_component_class_filter_create("wperf-end", iter))) {
		bt_message_iterator_class_put_ref(iter);
		return NULL;
	}
	bt_message_iterator_class_put_ref(iter);    /* the class holds it */
	if (bt_component_class_filter_set_initialize_method(cls, filter_init) ||
	    bt_component_class_filter_set_finalize_method(cls, filter_fini)) {
		bt_component_class_filter_put_ref(cls);
		cls = NULL;
	}
	return cls;
}
