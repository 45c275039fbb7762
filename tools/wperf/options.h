/* SPDX-License-Identifier: MIT */
/*
 * tools/wperf/options.h — the command line of every `wperf` subcommand,
 * read by one table-driven parser (options.c), so that the same mistake
 * gets the same answer from each of them. The behaviour and the words are
 * those of Python's argparse, which the command was first written with:
 *
 *  - long options, "--name VALUE" or "--name=VALUE", and any unique prefix
 *    of a name ("--form" for --format); an ambiguous prefix names the
 *    options it could be;
 *  - short options where the table gives one ("-o DIR", "-oDIR"); -h and
 *    --help everywhere, which print the help at once;
 *  - a value may be "-" or a negative number, not another option;
 *  - "--" ends the options: what follows is positional (or, for
 *    `wperf record`, the command to run);
 *  - a usage error is one line, "wperf: error: wperf CMD: ... (see wperf
 *    CMD --help)", and exit status 1.
 *
 * Each subcommand keeps its help text and its positional arguments; the
 * parser hands it the options one at a time, by their index in its table.
 */
#ifndef WPERF_TOOL_OPTIONS_H
#define WPERF_TOOL_OPTIONS_H

#include <stdbool.h>

/* One option of a subcommand's table (which ends with a NULL name). */
struct wperf_option {
	const char *name;       /* long name, without "--" ("help": -h/--help) */
	char short_name;        /* 'o' for -o; 0: none */
	const char *metavar;    /* takes a value (its name in the help); NULL: a flag */
	const char *help;       /* for a help text made from the table; may be NULL */
};

/* The parser's state: where it is in argv. */
struct wperf_options {
	const char *cmd;                        /* "report": named in usage errors */
	const struct wperf_option *table;
	int argc;
	char **argv;
	int next;                               /* the next argument to read */
	bool positional_only;                   /* after "--" */
	bool stop_at_dashdash;                  /* "--" ends the parse (record) */
	int max_positional;                     /* more is a usage error; -1: any
						 * (wperf_options_init: 0) */
	int positional;                         /* how many were read */
};

/* What wperf_options_next() found, when not an option's index (>= 0). */
enum {
	WPERF_OPT_END = -1,             /* no more arguments */
	WPERF_OPT_ERROR = -2,           /* a usage error, said */
	WPERF_OPT_POSITIONAL = -3,      /* *value is a positional argument (one
					 * more than max_positional is an error) */
	WPERF_OPT_HELP = -4,            /* -h, --help (or a prefix): print the help */
	WPERF_OPT_DASHDASH = -5,        /* "--" with stop_at_dashdash: the rest is
					 * argv + p->next */
};

/* Read argv (argv[0] is the subcommand's name) against table. */
void wperf_options_init(struct wperf_options *p, const char *cmd,
			const struct wperf_option *table, int argc, char **argv);

/* The next argument: an option's index in the table, with *value its
 * value (NULL for a flag), or one of WPERF_OPT_*. */
int wperf_options_next(struct wperf_options *p, const char **value);

/* "wperf: error: wperf CMD: MSG (see wperf CMD --help)"; returns
 * WPERF_EXIT_FAIL. */
int wperf_usage_error(const struct wperf_options *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The checks of a value, as argparse's type= and choices= made them:
 * true, or false after the usage error ("argument --NAME: invalid float
 * value: 'X'"). A number is the whole text, blanks around allowed, in
 * decimal: a float is finite ("nan", "inf", "1e999" and hexadecimal are
 * invalid), an int too large for a long is clamped (the command's range
 * check then refuses it, as it refuses a float out of its range). */
bool wperf_option_float(const struct wperf_options *p, int o, const char *value, double *out);
bool wperf_option_int(const struct wperf_options *p, int o, const char *value, long *out);
bool wperf_option_choice(const struct wperf_options *p, int o, const char *value,
			 const char *const *choices);

/* The whole command line of a subcommand that takes one positional
 * argument and no option but -h/--help (`wperf stop DIR`, `wperf snapshot
 * DIR`): -1 with *arg set, or the exit status after the help (printed by
 * help()) or a usage error. name is the argument's name in the errors. */
int wperf_options_one_positional(const char *cmd, const char *name, void (*help)(void),
				 int argc, char **argv, const char **arg);

#endif /* WPERF_TOOL_OPTIONS_H */
