#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Count how often the default report's first finding is right, per field
case, quiet and under a CPU hog (doc/accuracy.md).

    tests/field/accuracy.py [--runs 5] [--cases mariadb,nginx] [--modes quiet,loaded]
                            [--keep] [--json FILE] [--verbose]
    tests/field/accuracy.py --from-json FILE...

Runs every case --runs times in each mode, alternating quiet and loaded,
prints each run's truth and finding (--verbose) and a table: right, wrong,
undecided (the truth too close to a threshold, README.md) per case and
mode. Needs root (wperf record), the build tree's wperf
(WPERF_BUILD_DIR, default build/) and the case's programs.
"""

import argparse
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases  # noqa: E402
import fieldlib  # noqa: E402

HOG_CPUS = os.cpu_count() or 2


def count(rs, key):
    out = {}
    for r in rs:
        k = key(r)
        if k:
            out[k] = out.get(k, 0) + 1
    return ', '.join('%s ×%d' % kv for kv in sorted(out.items()))


def table(results, names, modes):
    """The markdown table of doc/accuracy.md."""
    print('| case | mode | right | wrong | (of which verdict right) | undecided | error | truth '
          '| first findings | CPUs busy (focus, PID 1) |')
    print('|---|---|---|---|---|---|---|---|---|---|')
    for n in names:
        for mode in modes:
            rs = [r for r in results if r['case'] == n and r['loaded'] == (mode == 'loaded')]
            cnt = {k: sum(1 for r in rs if r['right'] == k) for k in (True, False, None, 'error')}
            truths = [r['truth'] for r in rs if 'truth' in r]
            busy = ('%.0f%% (%.0f%%, %.1f%%)' % tuple(
                100 * sum(t[k] for t in truths) / len(truths)
                for k in ('machine_cpu', 'focus_cpu', 'pid1_cpu'))) if truths else '-'
            members_only = sum(1 for r in rs if r['right'] is False
                               and r.get('verdict_right', r.get('found', {}).get('verdict')
                                         in r.get('expected', {}).get('accept', [])))
            print('| %s | %s | %d | %d | %d | %d | %d | %s | %s | %s |' % (
                n, mode, cnt[True], cnt[False], members_only, cnt[None], cnt['error'],
                count(rs, lambda r: r.get('expected', {}).get('verdict')),
                count(rs, lambda r: 'found' in r and '%s %s' % (r['found']['verdict'],
                                                                r['found']['kind'])),
                busy))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--cases', default=','.join(cases.CASES))
    ap.add_argument('--modes', default='quiet,loaded')
    ap.add_argument('--keep', action='store_true', help='keep each run\'s directory')
    ap.add_argument('--json', help='write every run\'s result to this file')
    ap.add_argument('--verbose', action='store_true')
    ap.add_argument('--from-json', nargs='+', metavar='FILE',
                    help='print the table of earlier runs (--json files), judged again by '
                    'the current rule, and stop')
    a = ap.parse_args()
    if a.from_json:
        results = []
        for path in a.from_json:
            with open(path) as f:
                results += json.load(f)
        for r in results:     # judged again, by today's rule
            if 'truth' in r:
                r['expected'] = cases.CASES[r['case']].expected(r['truth'])
                r['right'], r['why'] = fieldlib.judge(r['expected'], r['found'])
                r['verdict_right'] = (None if r['expected']['verdict'] is None
                                      else r['found']['verdict'] in r['expected']['accept'])
        names = [n for n in cases.CASES if any(r['case'] == n for r in results)]
        table(results, names, ['quiet', 'loaded'])
        return
    names = a.cases.split(',')
    modes = a.modes.split(',')
    for n in names:
        if n not in cases.CASES:
            sys.exit('accuracy: no case %r (cases: %s)' % (n, ', '.join(cases.CASES)))
    results = []
    print('started %s UTC' % time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()), flush=True)
    for i in range(a.runs):
        for n in names:
            for mode in modes:
                try:
                    r = fieldlib.run_case(cases.CASES[n], hog=HOG_CPUS if mode == 'loaded' else 0,
                                          keep=a.keep)
                except Exception as e:     # a run that failed to run counts as an error
                    r = dict(case=n, loaded=mode == 'loaded', right='error', why=str(e)[-500:])
                    print('%s %s run %d: ERROR %s' % (n, mode, i + 1, r['why']), flush=True)
                    results.append(r)
                    continue
                r.pop('text', None)
                results.append(r)
                if a.verbose:
                    print(fieldlib.describe(r), flush=True)
                else:
                    print('%s %s run %d: %s' % (n, mode, i + 1, r['why']), flush=True)
    print('finished %s UTC' % time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()))
    print()
    table(results, names, modes)
    if a.json:
        with open(a.json, 'w') as f:
            json.dump(results, f, indent=1, default=str)


if __name__ == '__main__':
    main()
