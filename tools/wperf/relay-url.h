/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/relay-url.h — the URL of `wperf record --relay URL`: the
 * lttng-relayd a recording streams its trace to. `wperf record` runs as
 * root and hands the URL to liblttng-ctl, which parses it loosely (any
 * trailing path becomes a directory on the relay daemon's side, a port is
 * read with atoi()); so the URL is checked here first, strictly, and only
 * the forms a relay daemon needs pass: no path, no user, no options.
 */
#ifndef WPERF_TOOL_RELAY_URL_H
#define WPERF_TOOL_RELAY_URL_H

#include <stdbool.h>
#include <stddef.h>

/* The longest URL taken: a host name of 253 bytes in net6://[...]:P:P. */
#define WPERF_RELAY_URL_MAX 280

/* url is net://HOST[:CONTROL_PORT[:DATA_PORT]] (HOST an IPv4 address or
 * a host name that resolves to one) or net6://[IPV6][:CONTROL_PORT
 * [:DATA_PORT]] (or net6://HOST resolving to an IPv6 address), ports 1 to
 * 65535 in decimal and different from each other. true; or false with
 * why holding one line: what is wrong and what to write instead. The
 * name lookup is the only thing it does outside memory. */
bool wperf_relay_url_check(const char *url, char *why, size_t whylen);

/* The host part of a checked url (without brackets), into host. */
void wperf_relay_url_host(const char *url, char *host, size_t hostlen);

#endif /* WPERF_TOOL_RELAY_URL_H */
