#!/usr/bin/python3
"""What recording costs a real server: its throughput with and without
`wperf record`, alternating runs (doc/performance.md, "Recording cost on
real servers").

    tests/field/perfcost.py [--pairs 5] [--cases nginx,mariadb]

Each pair runs the case's driver (tests/field/CASE.sh) once plainly and
once under `wperf record` (in alternating order, so that a drift of the
machine's load hits both sides alike) and prints both throughputs; the
summary gives per case the median of each side and the ratio recorded /
plain of the medians, with the pairs' own ratios. Needs root.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases  # noqa: E402
import fieldlib  # noqa: E402


def one(case, record):
    tmp = tempfile.mkdtemp(prefix='%s-cost-' % case.name, dir=fieldlib.field_root())
    p = None
    try:
        case.prepare(tmp)
        cmd = ['bash', case.driver(), tmp]
        if record:
            cmd = [fieldlib.WPERF, 'record', '-o', os.path.join(tmp, 'trace'), '--'] + cmd
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        try:
            out, _ = p.communicate(timeout=case.timeout)
        except subprocess.TimeoutExpired:
            fieldlib.kill_session(p, fieldlib.pidfile_pids(tmp))
            raise
        if p.returncode:
            raise RuntimeError('%s failed:\n%s' % (' '.join(cmd), out[-2000:]))
        return case.throughput(tmp)
    finally:
        if p is not None and p.poll() is None:
            fieldlib.kill_session(p, fieldlib.pidfile_pids(tmp))
        fieldlib.kill_tree(set(fieldlib.pidfile_pids(tmp)) | set(fieldlib.own_pids(tmp)))
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--pairs', type=int, default=5)
    ap.add_argument('--cases', default='nginx,mariadb')
    a = ap.parse_args()
    print('started %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                               open('/proc/loadavg').read().split()[:3]))
    rows = []
    for name in a.cases.split(','):
        case = cases.CASES[name]
        plain, rec = [], []
        for i in range(a.pairs):
            order = (False, True) if i % 2 == 0 else (True, False)
            got = {}
            for r in order:
                got[r] = one(case, r)
            plain.append(got[False])
            rec.append(got[True])
            print('%s pair %d: plain %.0f, recorded %.0f ops/s (ratio %.3f)'
                  % (name, i + 1, got[False], got[True], got[True] / got[False]), flush=True)
        rows.append((name, plain, rec))
    print('finished %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                open('/proc/loadavg').read().split()[:3]))
    print()
    print('| case | pairs | plain (median ops/s) | recorded (median) | recorded / plain | '
          'pair ratios |')
    print('|---|---|---|---|---|---|')
    for name, plain, rec in rows:
        mp, mr = statistics.median(plain), statistics.median(rec)
        print('| %s | %d | %.0f | %.0f | %.3f | %s |' % (
            name, len(plain), mp, mr, mr / mp,
            ' '.join('%.2f' % (r / p) for p, r in zip(plain, rec))))


if __name__ == '__main__':
    main()
