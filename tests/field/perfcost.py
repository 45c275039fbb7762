#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What recording costs a real server: its throughput with and without
`wperf record`, alternating runs (doc/performance.md, "Recording cost on
real servers").

    tests/field/perfcost.py [--pairs 5] [--cases nginx,mariadb]

Each pair runs the case's driver (tests/field/CASE.sh) once plainly and
once under `wperf record` (in alternating order, so that a drift of the
machine's load hits both sides alike) and prints both throughputs; the
summary gives per case the median of each side and the ratio recorded /
plain of the medians, with the pairs' own ratios, and the CPU time that
`wperf record` and its helpers (not the driver's processes) used per
second of the recorded run. Needs root.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases  # noqa: E402
import fieldlib  # noqa: E402


RECORDER = []    # (recorder's CPU seconds, wall seconds) of each recorded run


def recorder_cpu(popen, tmp, halt, out):
    """Poll the CPU time (utime + stime) of `wperf record` and of every
    process below it that is not the driver's: the recorder's own cost."""
    tck = os.sysconf('SC_CLK_TCK')
    while not halt.is_set():
        pmap = fieldlib.ppid_map()
        driver = fieldlib.read(os.path.join(tmp, 'driver.pid'))
        theirs = set(fieldlib.descendants(int(driver), pmap)) if driver and driver.strip() else set()
        for p in fieldlib.descendants(popen.pid, pmap):
            if p in theirs:
                continue
            st = fieldlib.stat_fields(fieldlib.read('/proc/%d/stat' % p))
            if st:
                out[p] = (int(st[1][11]) + int(st[1][12])) / tck
        halt.wait(0.1)


def one(case, record):
    tmp = tempfile.mkdtemp(prefix='%s-cost-' % case.name, dir=fieldlib.field_root())
    p = None
    try:
        case.prepare(tmp)
        cmd = ['bash', case.driver(), tmp]
        if record:
            cmd = [fieldlib.WPERF, 'record', '-o', os.path.join(tmp, 'trace'), '--'] + cmd
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             start_new_session=True)
        halt, cpu = threading.Event(), {}
        poller = threading.Thread(target=recorder_cpu, args=(p, tmp, halt, cpu), daemon=True)
        if record:
            poller.start()
        try:
            out, _ = p.communicate(timeout=case.timeout)
        except subprocess.TimeoutExpired:
            fieldlib.kill_session(p, fieldlib.pidfile_pids(tmp))
            raise
        finally:
            halt.set()
            if record:
                poller.join()
        if record:
            RECORDER.append((sum(cpu.values()), time.monotonic() - t0))
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
        rows.append((name, plain, rec, list(RECORDER)))
        RECORDER.clear()
    print('finished %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                open('/proc/loadavg').read().split()[:3]))
    print()
    print('| case | pairs | plain (median ops/s) | recorded (median) | recorded / plain | '
          'pair ratios | recorder CPU (s per s of run) |')
    print('|---|---|---|---|---|---|---|')
    for name, plain, rec, cost in rows:
        mp, mr = statistics.median(plain), statistics.median(rec)
        print('| %s | %d | %.0f | %.0f | %.3f | %s | %.2f |' % (
            name, len(plain), mp, mr, mr / mp,
            ' '.join('%.2f' % (r / p) for p, r in zip(plain, rec)),
            statistics.median(c / w for c, w in cost)))


if __name__ == '__main__':
    main()
