/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/options.c — the one option parser of the `wperf`
 * subcommands (options.h says the behaviour: argparse's, which the Python
 * command had). It owns how an argument is classified (option, value,
 * positional, "--"), the prefix matching of long names, and the words of
 * every usage error, so that no subcommand words them its own way.
 */
#include "wperf.h"
#include "options.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void wperf_options_init(struct wperf_options *p, const char *cmd,
			const struct wperf_option *table, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	p->cmd = cmd;
	p->table = table;
	p->argc = argc;
	p->argv = argv;
	p->next = 1;
}

int wperf_usage_error(const struct wperf_options *p, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* wperf_fail() says "wperf: error: " already: the subcommand only. */
	return wperf_fail("%s: %s (see wperf %s --help)", p->cmd, msg, p->cmd);
}

/* How argparse names option o in its errors: "-o/--output", "--format". */
static const char *display(const struct wperf_options *p, int o, char *buf, size_t len)
{
	const struct wperf_option *opt = &p->table[o];

	if (opt->short_name)
		snprintf(buf, len, "-%c/--%s", opt->short_name, opt->name);
	else
		snprintf(buf, len, "--%s", opt->name);
	return buf;
}

/* argparse takes "-1" for a number, not an option. */
static bool negative_number(const char *s)
{
	char *end;

	if (s[0] != '-')
		return false;
	strtod(s, &end);
	return end != s && !*end;
}

/* s is not an option: a positional argument, or an option's value. */
static bool not_an_option(const char *s)
{
	return s[0] != '-' || !s[1] || negative_number(s);
}

/* The option of "--name[=value]": exact, else the one whose name name
 * begins; -1 after the usage error (ambiguous: the names it could be). */
static int find_long(const struct wperf_options *p, const char *arg)
{
	const char *name = arg + 2;
	size_t len = strcspn(name, "=");
	int found = -1, matches = 0;

	for (int i = 0; p->table[i].name; i++) {
		if (strncmp(p->table[i].name, name, len))
			continue;
		if (!p->table[i].name[len])
			return i;
		found = i;
		matches++;
	}
	if (matches == 1)
		return found;
	if (!matches) {
		wperf_usage_error(p, "unrecognized arguments: %s", arg);
		return -1;
	}
	/* argparse's words: "--s could match --snapshot, --stacks, --stop" */
	char which[512] = "";
	size_t n = 0;

	for (int i = 0; p->table[i].name && n < sizeof(which); i++)
		if (!strncmp(p->table[i].name, name, len))
			n += (size_t)snprintf(which + n, sizeof(which) - n, "%s--%s",
					      n ? ", " : "", p->table[i].name);
	wperf_usage_error(p, "ambiguous option: %s could match %s", arg, which);
	return -1;
}

/* The option of "-X[value]"; -1 after the usage error. A flag takes
 * nothing after its letter (no "-hv" clusters). */
static int find_short(const struct wperf_options *p, const char *arg)
{
	for (int i = 0; p->table[i].name; i++)
		if (p->table[i].short_name == arg[1] && (p->table[i].metavar || !arg[2]))
			return i;
	wperf_usage_error(p, "unrecognized arguments: %s", arg);
	return -1;
}

int wperf_options_next(struct wperf_options *p, const char **value)
{
	const char *arg, *attached = NULL;
	char name[128];
	int o;

	*value = NULL;
	if (p->next >= p->argc)
		return WPERF_OPT_END;
	arg = p->argv[p->next++];
	if (p->positional_only || not_an_option(arg)) {
		if (p->max_positional >= 0 && p->positional++ >= p->max_positional) {
			wperf_usage_error(p, "unrecognized arguments: %s", arg);
			return WPERF_OPT_ERROR;
		}
		*value = arg;
		return WPERF_OPT_POSITIONAL;
	}
	if (!strcmp(arg, "--")) {
		if (p->stop_at_dashdash)
			return WPERF_OPT_DASHDASH;
		p->positional_only = true;
		return wperf_options_next(p, value);
	}
	if (!strcmp(arg, "-h"))
		return WPERF_OPT_HELP;
	if (arg[1] == '-') {
		if ((o = find_long(p, arg)) < 0)
			return WPERF_OPT_ERROR;
		if (strchr(arg, '='))
			attached = strchr(arg, '=') + 1;
	} else {
		if ((o = find_short(p, arg)) < 0)
			return WPERF_OPT_ERROR;
		if (arg[2])
			attached = arg + 2;
	}
	if (!p->table[o].metavar) {
		if (attached) {
			wperf_usage_error(p, "argument --%s: ignored explicit argument '%s'",
					  p->table[o].name, attached);
			return WPERF_OPT_ERROR;
		}
		return strcmp(p->table[o].name, "help") ? o : WPERF_OPT_HELP;
	}
	if (attached) {
		*value = attached;
	} else if (p->next < p->argc && not_an_option(p->argv[p->next])) {
		*value = p->argv[p->next++];
	} else {
		wperf_usage_error(p, "argument %s: expected one argument",
				  display(p, o, name, sizeof(name)));
		return WPERF_OPT_ERROR;
	}
	return o;
}

/* Python's int() and float() take blanks around the number. */
static bool only_blanks(const char *s)
{
	return !s[strspn(s, " \t\n\r\f\v")];
}

/* A decimal number and nothing else: [sign] digits [. digits] [e [sign]
 * digits], at least one digit before the exponent. strtod() also takes
 * "nan", "inf", "infinity" and hexadecimal ("0x1p9"), none of which is a
 * count of seconds or MiB. */
static bool decimal_syntax(const char *s)
{
	size_t whole, frac = 0;

	s += strspn(s, " \t\n\r\f\v");
	s += *s == '+' || *s == '-';
	whole = strspn(s, "0123456789");
	s += whole;
	if (*s == '.') {
		frac = strspn(s + 1, "0123456789");
		s += 1 + frac;
	}
	if (!whole && !frac)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		s += *s == '+' || *s == '-';
		if (!strspn(s, "0123456789"))
			return false;
		s += strspn(s, "0123456789");
	}
	return only_blanks(s);
}

bool wperf_option_float(const struct wperf_options *p, int o, const char *value, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(value, &end);
	/* Finite, and not beyond a double (ERANGE with HUGE_VAL: "1e999");
	 * a value too small to hold (ERANGE towards 0) is that 0. */
	if (end != value && only_blanks(end) && decimal_syntax(value) && isfinite(*out) &&
	    !(errno == ERANGE && fabs(*out) > 1))
		return true;
	wperf_usage_error(p, "argument --%s: invalid float value: '%s'", p->table[o].name, value);
	return false;
}

bool wperf_option_int(const struct wperf_options *p, int o, const char *value, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(value, &end, 10);
	if (end != value && only_blanks(end))
		return true;    /* ERANGE: LONG_MIN or LONG_MAX, out of any range */
	wperf_usage_error(p, "argument --%s: invalid int value: '%s'", p->table[o].name, value);
	return false;
}

bool wperf_option_choice(const struct wperf_options *p, int o, const char *value,
			 const char *const *choices)
{
	char list[512];
	int n = 0;

	for (const char *const *c = choices; *c; c++)
		if (!strcmp(*c, value))
			return true;
	/* The valid ones too, as argparse lists them. */
	for (const char *const *c = choices; *c && n >= 0 && (size_t)n < sizeof(list); c++)
		n += snprintf(list + n, sizeof(list) - (size_t)n, "%s'%s'",
			      c == choices ? "" : ", ", *c);
	wperf_usage_error(p, "argument --%s: invalid choice: '%s' (choose from %s)",
			  p->table[o].name, value, list);
	return false;
}

int wperf_options_one_positional(const char *cmd, const char *name, void (*help)(void),
				 int argc, char **argv, const char **arg)
{
	static const struct wperf_option only_help[] = {
		{ "help", 'h', NULL, NULL }, { NULL, 0, NULL, NULL },
	};
	struct wperf_options p;
	const char *value;
	int o;

	*arg = NULL;
	wperf_options_init(&p, cmd, only_help, argc, argv);
	p.max_positional = 1;
	while ((o = wperf_options_next(&p, &value)) != WPERF_OPT_END) {
		if (o == WPERF_OPT_ERROR)
			return WPERF_EXIT_FAIL;
		if (o == WPERF_OPT_HELP) {
			help();
			return WPERF_EXIT_OK;
		}
		*arg = value;   /* o is WPERF_OPT_POSITIONAL: the table has no other */
	}
	if (!*arg)
		return wperf_usage_error(&p, "the following arguments are required: %s", name);
	return -1;
}
