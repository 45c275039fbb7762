#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The dependency picture of wperf's C code, from the objects' symbols.

Which source file calls which: for every object file of the analysis
library, the plugin and the `wperf` command (found through the build
directory's compile_commands.json), `nm` lists the symbols it defines and
the ones it uses; file A depends on file B when A uses a symbol B defines.
Includes are not looked at: a header shared by two files is no arrow, a
call is. Static functions and macros are invisible, which is the point:
what crosses a file is what ties files together.

The layers, lowest first (a file may depend on its own layer or a lower one):

    analysis          analysis/*.c: events in, the wait-for graph and its knots out
    analysis/report   analysis/report/: the report writers
    plugin/common     what the components share (decoding, parameters, output)
    plugin/COMPONENT  plugin/tracefs, plugin/waits, plugin/knots, plugin/repair,
                      plugin/netsync: one each, none depending on another
    plugin            plugin/plugin.c: babeltrace2's descriptor
    tools/wperf       the `wperf` command (its own program)

Usage:
    tools/dev/deps.py [--build DIR]          the picture as text: each file's
                                             arrows, then the cycles
    tools/dev/deps.py --dot [--dirs]         Graphviz (files, or directories)
    tools/dev/deps.py --check                exit 1 on a cycle or an upward
                                             (or sideways) arrow not in KNOWN
                                             below, 0 otherwise

The `layers` test runs --check, so a new cycle or upward arrow fails it.
The tree has none; KNOWN below can name an exception, with its reason.
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))

# The product's code; tests, workloads and the UST provider are left out.
CODE_DIRS = ('analysis/', 'plugin/', 'tools/wperf/')

LAYERS = ['analysis', 'analysis/report', 'plugin/common', 'plugin/COMPONENT', 'plugin',
          'tools/wperf']

# Exceptions the check lets pass: cycles as the set of their files (a cycle
# inside one of these sets passes), arrows as (from, to) files. The tree
# has none; a change that cannot avoid one names it here, with why.
KNOWN_CYCLES = []
KNOWN_ARROWS = []


def layer_of(path):
    """(rank, name) of a source file, by its directory."""
    d = os.path.dirname(path)
    if d == 'analysis':
        return 0, 'analysis'
    if d == 'analysis/report':
        return 1, 'analysis/report'
    if d == 'plugin/common':
        return 2, 'plugin/common'
    if d.startswith('plugin/') and d.count('/') == 1:
        return 3, d
    if d == 'plugin':
        return 4, 'plugin'
    if d == 'tools/wperf':
        return 5, 'tools/wperf'
    raise SystemExit('deps.py: %s is in no layer: add its directory to layer_of()' % path)


def objects(build):
    """{source path relative to the root: object path}, one object per source."""
    with open(os.path.join(build, 'compile_commands.json')) as f:
        commands = json.load(f)
    found = {}
    for c in commands:
        src = os.path.relpath(os.path.normpath(os.path.join(c['directory'], c['file'])), ROOT)
        out = os.path.join(c['directory'], c['output'])
        if src.startswith(CODE_DIRS) and src not in found:
            found[src] = out
    if not found:
        raise SystemExit('deps.py: %s/compile_commands.json names no wperf source' % build)
    return found


def symbols(objs):
    """{object: (symbols it defines, symbols it uses)}, from one `nm -A`
    over them all (one process: nm reads LTO objects through its plugin,
    which is slow to start)."""
    p = subprocess.run(['nm', '-A'] + sorted(objs), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit('deps.py: nm: %s (build first: ninja -C BUILD)' % p.stderr.strip())
    found = {obj: (set(), set()) for obj in objs}
    for line in p.stdout.splitlines():
        # "OBJECT:ADDR TYPE NAME" or "OBJECT:         U NAME" (C names have no ':').
        obj, _, rest = line.rpartition(':')
        parts = rest.split()
        if obj not in found or len(parts) < 2:
            continue
        kind, name = parts[-2], parts[-1]
        if kind == 'U':
            found[obj][1].add(name)
        elif kind in 'TDBRVWG':      # global definitions (upper-case types)
            found[obj][0].add(name)
    return found


def program_of(path):
    """What a file is linked into: the plugin (with the analysis library) or
    the `wperf` command, two programs that may define the same name."""
    return 'wperf' if path.startswith('tools/') else 'plugin'


def graph(build):
    """{file: {file it depends on: [symbols]}} of every source file."""
    objs = objects(build)
    syms = symbols(objs.values())
    definer = {}
    for src, obj in sorted(objs.items()):
        for s in syms[obj][0]:
            definer.setdefault((program_of(src), s), src)
    deps = {src: {} for src in objs}
    for src, obj in objs.items():
        for s in sorted(syms[obj][1]):
            to = definer.get((program_of(src), s))
            if to and to != src:
                deps[src].setdefault(to, []).append(s)
    return deps


def cycles(deps):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(deps):
        if v not in index:
            visit(v)
    return sorted(out)


def bad_arrows(deps):
    """Arrows to a higher layer, or from one plugin component to another."""
    bad = []
    for a in sorted(deps):
        ra, la = layer_of(a)
        for b in sorted(deps[a]):
            rb, lb = layer_of(b)
            if rb > ra or (rb == ra and la != lb):
                bad.append((a, b))
    return bad


def print_text(deps):
    for a in sorted(deps):
        print('%s  [%s]' % (a, layer_of(a)[1]))
        for b, syms in sorted(deps[a].items()):
            print('    -> %s: %s' % (b, ', '.join(syms)))
    found = cycles(deps)
    print('\n%d cycle(s)' % len(found))
    for c in found:
        print('    ' + ' '.join(c))
    bad = bad_arrows(deps)
    print('%d arrow(s) up or across layers' % len(bad))
    for a, b in bad:
        print('    %s -> %s: %s' % (a, b, ', '.join(deps[a][b])))


def print_dot(deps, dirs):
    node = (lambda f: os.path.dirname(f)) if dirs else (lambda f: f[:-2])
    edges = {}
    for a in deps:
        for b, syms in deps[a].items():
            if node(a) != node(b):
                edges[(node(a), node(b))] = edges.get((node(a), node(b)), 0) + len(syms)
    print('digraph wperf {\n  rankdir=BT;\n  node [shape=box, fontsize=10];')
    for (a, b), n in sorted(edges.items()):
        print('  "%s" -> "%s" [label="%d"];' % (a, b, n))
    print('}')


def check(deps):
    failed = 0
    if not any(deps.values()):
        print('deps: no file calls another: nm found no symbols (is nm broken?)')
        return 1
    for c in cycles(deps):
        if not any(set(c) <= set(k) for k in KNOWN_CYCLES):
            print('deps: a new cycle: %s' % ' -> '.join(c))
            failed += 1
    bad = bad_arrows(deps)
    for a, b in bad:
        if (a, b) not in KNOWN_ARROWS:
            print('deps: %s (%s) calls up or across into %s (%s): %s' %
                  (a, layer_of(a)[1], b, layer_of(b)[1], ', '.join(deps[a][b])))
            failed += 1
    for k in KNOWN_CYCLES:
        if not any(set(c) & set(k) for c in cycles(deps)):
            print('note: the known cycle %s is gone: remove it from KNOWN_CYCLES' % ' '.join(k))
    for k in KNOWN_ARROWS:
        if k not in bad:
            print('note: the known arrow %s -> %s is gone: remove it from KNOWN_ARROWS' % k)
    print('%d files, %d arrows, %d cycle(s), %d arrow(s) up or across; %d not known' %
          (len(deps), sum(len(v) for v in deps.values()), len(cycles(deps)), len(bad), failed))
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description='The dependency picture of the C code, from nm.')
    ap.add_argument('--build', default=os.path.join(ROOT, 'build'),
                    help='the meson build directory (default: build/)')
    ap.add_argument('--dot', action='store_true', help='Graphviz instead of text')
    ap.add_argument('--dirs', action='store_true', help='with --dot: one node per directory')
    ap.add_argument('--check', action='store_true',
                    help='fail on a cycle or an arrow up or across not in KNOWN_*')
    args = ap.parse_args()
    deps = graph(args.build)
    if args.check:
        return check(deps)
    if args.dot:
        print_dot(deps, args.dirs)
    else:
        print_text(deps)
    return 0


if __name__ == '__main__':
    sys.exit(main())
