/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/relay-url.c — the check of `wperf record --relay URL`
 * (relay-url.h): the URL read left to right, scheme, host, ports, end,
 * each part against the narrowest form that lttng-relayd needs, and the
 * host name looked up as liblttng-ctl will look it up (its address
 * family, the system resolver), so that a typing mistake is said here in
 * one line rather than as LTTng's "Invalid parameter".
 */
#include "relay-url.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

/* lttng-relayd's default ports (lttng-relayd(8)). */
#define DEFAULT_CONTROL_PORT 5342
#define DEFAULT_DATA_PORT 5343
#define HOST_MAX 253    /* a domain name (RFC 1035), without the last dot */
#define LABEL_MAX 63

#define EXAMPLE "e.g. net://10.0.0.2 or net://relay.example:5342:5343"

struct relay_url {
	int family;             /* AF_INET (net://) or AF_INET6 (net6://) */
	char host[HOST_MAX + 1];
	long ports[2];          /* control, data; 0: the default */
};

static bool say(char *why, size_t whylen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool say(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return false;
}

/* c as it is shown in a message: itself when printable ASCII, else \xNN. */
static const char *shown_char(char c, char buf[8])
{
	unsigned char u = (unsigned char)c;

	if (u > 0x20 && u < 0x7f)
		snprintf(buf, 8, "%c", c);
	else
		snprintf(buf, 8, "\\x%02x", u);
	return buf;
}

/* The scheme: *p moved past it; false after saying why. */
static bool read_scheme(const char **p, struct relay_url *u, char *why, size_t whylen)
{
	if (!strncmp(*p, "net://", 6)) {
		u->family = AF_INET;
		*p += 6;
		return true;
	}
	if (!strncmp(*p, "net6://", 7)) {
		u->family = AF_INET6;
		*p += 7;
		return true;
	}
	if (!strncmp(*p, "file://", 7) || **p == '/')
		return say(why, whylen, "--relay takes a relay daemon's URL, not a path: the "
			   "trace goes to -o DIR without --relay (" EXAMPLE ")");
	return say(why, whylen, "--relay URL must begin with net:// (IPv4) or net6:// (IPv6), "
		   "the streams of one lttng-relayd (" EXAMPLE ")");
}

/* A host name of RFC 1123 labels (letters, digits, inner hyphens). */
static bool host_name_ok(const char *host, char *why, size_t whylen)
{
	size_t len = strlen(host);

	if (len > HOST_MAX)
		return say(why, whylen, "--relay: the host name is longer than %d bytes", HOST_MAX);
	for (const char *label = host; ; ) {
		size_t n = strcspn(label, ".");

		if (!n || n > LABEL_MAX || label[0] == '-' || label[n - 1] == '-')
			return say(why, whylen, "--relay: `%.253s` is not a host name: each part between "
				   "dots has 1 to 63 letters, digits or inner hyphens (" EXAMPLE ")",
				   host);
		if (!label[n])
			return true;
		label += n + 1;
	}
}

/* The host of net://, unbracketed: an IPv4 address or a host name. */
static bool read_plain_host(const char **p, struct relay_url *u, char *why, size_t whylen)
{
	static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				      "0123456789.-";
	size_t n = strspn(*p, allowed);
	unsigned char addr[sizeof(struct in6_addr)];
	char c[8];

	if (!n && **p == ':' && u->family == AF_INET6)
		return say(why, whylen, "--relay: write an IPv6 address in brackets, as "
			   "net6://[::1]");
	if (!**p || **p == ':' || **p == '/')
		return say(why, whylen, "--relay URL has no host after its scheme (" EXAMPLE ")");
	if ((*p)[n] && (*p)[n] != ':' && (*p)[n] != '/')
		return say(why, whylen, "--relay: `%s` is not allowed in a host name (letters, "
			   "digits, dots, hyphens; an IPv6 address in brackets after net6://)",
			   shown_char((*p)[n], c));
	if (n > HOST_MAX)
		return say(why, whylen, "--relay: the host name is longer than %d bytes", HOST_MAX);
	memcpy(u->host, *p, n);
	u->host[n] = '\0';
	*p += n;
	if (strspn(u->host, "0123456789.") == n) {       /* an address, not a name */
		if (inet_pton(AF_INET, u->host, addr) != 1)
			return say(why, whylen, "--relay: `%s` is not an IPv4 address", u->host);
		if (u->family == AF_INET6)
			return say(why, whylen, "--relay: %s is an IPv4 address: write net://%s",
				   u->host, u->host);
		return true;
	}
	return host_name_ok(u->host, why, whylen);
}

/* The host: [IPv6] (net6:// only) or plain. */
static bool read_host(const char **p, struct relay_url *u, char *why, size_t whylen)
{
	unsigned char addr[sizeof(struct in6_addr)];
	const char *end;
	size_t n;

	if (**p != '[')
		return read_plain_host(p, u, why, whylen);
	if (u->family != AF_INET6)
		return say(why, whylen, "--relay: an IPv6 address needs net6:// (net6://[::1])");
	end = strchr(*p, ']');
	n = end ? (size_t)(end - *p - 1) : 0;
	if (end && n < INET6_ADDRSTRLEN && n == strspn(*p + 1, "0123456789abcdefABCDEF:.")) {
		memcpy(u->host, *p + 1, n);
		u->host[n] = '\0';
	}
	if (!u->host[0] || inet_pton(AF_INET6, u->host, addr) != 1)
		return say(why, whylen, "--relay: what is in brackets is not an IPv6 address "
			   "(e.g. net6://[fd00::2])");
	*p = end + 1;
	return true;
}

/* :CONTROL[:DATA], each 1 to 65535 in decimal. */
static bool read_ports(const char **p, struct relay_url *u, char *why, size_t whylen)
{
	for (int i = 0; **p == ':'; i++) {
		size_t n = strspn(*p + 1, "0123456789");

		if (i == 2)
			return say(why, whylen, "--relay: at most two ports, the control port and "
				   "the data port (net://HOST:5342:5343)");
		if (!n || n > 5 || (u->ports[i] = strtol(*p + 1, NULL, 10)) < 1 ||
		    u->ports[i] > 65535)
			return say(why, whylen, "--relay: a port is a number from 1 to 65535 "
				   "(net://HOST:5342:5343)");
		*p += 1 + n;
	}
	return true;
}

/* What follows the ports: nothing. */
static bool read_end(const char *p, char *why, size_t whylen)
{
	char c[8];

	if (!*p)
		return true;
	if (*p == '/')
		return say(why, whylen, "--relay takes no path after the host: lttng-relayd "
			   "chooses where it writes (HOSTNAME/SESSION under its -o directory)");
	return say(why, whylen, "--relay: unexpected `%s` after the host (" EXAMPLE ")",
		   shown_char(*p, c));
}

/* The ports lttng-relayd is reached on, the defaults filled in, differ. */
static bool ports_differ(const struct relay_url *u, char *why, size_t whylen)
{
	long control = u->ports[0] ? u->ports[0] : DEFAULT_CONTROL_PORT;
	long data = u->ports[1] ? u->ports[1] : DEFAULT_DATA_PORT;

	if (control != data)
		return true;
	return say(why, whylen, "--relay: the control and data ports are both %ld: lttng-relayd "
		   "listens on two (net://HOST:%ld:%ld)", control, control, control + 1);
}

/* The host resolves to an address of the URL's family, as liblttng-ctl
 * will resolve it. */
static bool resolves(const struct relay_url *u, char *why, size_t whylen)
{
	struct addrinfo hints = { .ai_family = u->family, .ai_socktype = SOCK_STREAM };
	struct addrinfo *found = NULL;
	int rc = getaddrinfo(u->host, NULL, &hints, &found);

	freeaddrinfo(found);
	if (!rc)
		return true;
	return say(why, whylen, "--relay: host %s has no %s address (%s): give the relay "
		   "daemon's address, or a name this machine resolves", u->host,
		   u->family == AF_INET ? "IPv4" : "IPv6", gai_strerror(rc));
}

static bool parse(const char *url, struct relay_url *u, char *why, size_t whylen)
{
	const char *p = url;

	memset(u, 0, sizeof(*u));
	if (strlen(url) > WPERF_RELAY_URL_MAX)
		return say(why, whylen, "--relay URL is longer than %d bytes", WPERF_RELAY_URL_MAX);
	return read_scheme(&p, u, why, whylen) && read_host(&p, u, why, whylen) &&
	       read_ports(&p, u, why, whylen) && read_end(p, why, whylen);
}

bool wperf_relay_url_check(const char *url, char *why, size_t whylen)
{
	struct relay_url u;

	return parse(url, &u, why, whylen) && ports_differ(&u, why, whylen) &&
	       resolves(&u, why, whylen);
}

void wperf_relay_url_host(const char *url, char *host, size_t hostlen)
{
	struct relay_url u;
	char why[8];

	snprintf(host, hostlen, "%s", parse(url, &u, why, sizeof(why)) ? u.host : "");
}
