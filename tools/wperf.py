#!/usr/bin/python3
# wperf-py — the Python half of the `wperf` command, which records a
# program's kernel and LTTng-UST events and reports the knots of its
# wait-for graph (wPerf, OSDI'18). The manual is wperf(1) (doc/wperf.1.md).
#
# The command users run is bin/wperf, in C (tools/wperf/): it does `wperf
# report`, `wperf stop`, `wperf record`, `wperf snapshot` and `wperf top`
# itself and hands `wperf diff`, with its arguments unchanged, to this
# program, a private one (libexec/wperf/wperf-py; build/tools/wperf-py in
# a build tree). `wperf diff` stays in Python (tools/wperf_diff.py says
# why). Python standard library only, so it needs nothing outside Debian
# packages.
#
# meson (tools/meson.build) fills in the @...@ values: the copy in a build
# directory knows that build's plugin and UST provider; the installed copy
# knows the system directories.
import importlib
import os
import sys

VERSION = "@VERSION@"
LIBDIR = "@LIBDIR@"
DATADIR = "@DATADIR@"                 # share/: our Python modules are in DATADIR/wperf/python


class Fail(Exception):
    """An error for the user: printed as one line, exit status 1."""


def say(msg):
    print(f"wperf: {msg}", file=sys.stderr, flush=True)


USAGE = """\
wperf's Python half: bin/wperf runs it for the subcommands below (and does
`wperf report`, `wperf stop`, `wperf record`, `wperf snapshot` and
`wperf top` itself).

usage: wperf diff [--format text|json] [--fail-if-knot-grows PCT] [--min-change PCT]
                  [--absolute] [--top N] A.json B.json

Record a program's kernel and LTTng-UST events, and report the knots
(cycles of waiting) that bound its throughput (wPerf). See wperf(1).

commands:
  diff      compare two JSON reports (before/after): knots, edges, wait lengths

`wperf COMMAND --help` describes each command's options.
"""


def load_module(name):
    """One of wperf's Python modules (wperf_diff, wperf_babeltrace): beside
    this script (build tree), or installed in DATADIR/wperf/python."""
    here = os.path.dirname(os.path.realpath(__file__))
    installed = os.path.join(DATADIR, "wperf", "python")
    for d in (here, installed):
        if os.path.isfile(os.path.join(d, name + ".py")):
            if d not in sys.path:
                sys.path.insert(0, d)
            break
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Fail(f"{name}.py is missing (looked in {here} and {installed}): "
                   "reinstall wperf")


def load_diff():
    return load_module("wperf_diff")


def main(argv):
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"wperf {VERSION}")
        return 0
    if argv[0] == "diff":
        return load_diff().main(argv[1:])
    if argv[0] in ("report", "stop", "snapshot", "record", "_watch", "top"):
        raise Fail(f"wperf {argv[0]} is done by the wperf command itself (bin/wperf), "
                   f"not by its Python half: run wperf {argv[0]}")
    raise Fail(f"unknown command `{argv[0]}` (commands: record, snapshot, "
               "stop, top, report, diff; see wperf --help)")


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        say(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        say("interrupted")
        sys.exit(130)
