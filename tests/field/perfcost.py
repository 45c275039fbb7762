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
second of the recorded run, and the spread of each side and of the pairs'
ratios, so that an effect can be told from noise. Needs root.

    --sysbench-test T   the mariadb case's sysbench test (default its own,
                        oltp_write_only; the benchmark runs oltp_read_write)
    --seconds S         load per run (WPERF_FIELD_SECONDS, default 4)
    --record-args ARGS  more `wperf record` options, e.g. "--buffer-size-kb 1024"
    --trace-dir DIR     write the traces under DIR (e.g. /dev/shm: no disk
                        writes beside the server's), not the case's directory
    --also WPERF        a second recorder to compare (another build's
                        tools/wperf): each round then runs plain, recorded
                        by this build's wperf and by WPERF, in a rotating
                        order, and the summary has a row for each
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


RECORD_ARGS = []
TRACE_DIR = [None]


def one(case, record, wperf=None):
    tmp = tempfile.mkdtemp(prefix='%s-cost-' % case.name, dir=fieldlib.field_root())
    p = None
    try:
        case.prepare(tmp)
        cmd = ['bash', case.driver(), tmp]
        if record:
            trace = os.path.join(TRACE_DIR[0] or tmp, os.path.basename(tmp) + '-trace')
            cmd = ([wperf or fieldlib.WPERF, 'record', '-o', trace] + RECORD_ARGS + ['--'] + cmd)
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
        if TRACE_DIR[0]:
            shutil.rmtree(os.path.join(TRACE_DIR[0], os.path.basename(tmp) + '-trace'),
                          ignore_errors=True)


def spread(xs):
    """min-max of xs, and that range as a share of their median."""
    m = statistics.median(xs)
    return '%.0f-%.0f (%.0f %%)' % (min(xs), max(xs), 100 * (max(xs) - min(xs)) / m)


def quartiles(xs):
    """The pairs' ratios: their median and interquartile range."""
    q = statistics.quantiles(xs, n=4, method='inclusive') if len(xs) > 1 else [xs[0]] * 3
    return '%.3f (IQR %.3f-%.3f)' % (q[1], q[0], q[2])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--pairs', type=int, default=5)
    ap.add_argument('--cases', default='nginx,mariadb')
    ap.add_argument('--sysbench-test')
    ap.add_argument('--seconds', type=int)
    ap.add_argument('--record-args', default='')
    ap.add_argument('--trace-dir')
    ap.add_argument('--also', metavar='WPERF')
    a = ap.parse_args()
    if os.geteuid() != 0:
        print('perfcost: recording needs root: skipped')
        sys.exit(77)
    for name in a.cases.split(','):
        missing = [n for n in cases.CASES[name].needs if not shutil.which(n)]
        if missing:
            print('perfcost: %s needs %s (Debian packages of `make deps`): skipped'
                  % (name, ', '.join(missing)))
            sys.exit(77)
    if a.sysbench_test:
        os.environ['FIELD_SB_TEST'] = a.sysbench_test
    if a.seconds:
        cases.SECS = a.seconds
    RECORD_ARGS.extend(a.record_args.split())
    TRACE_DIR[0] = a.trace_dir
    print('started %s UTC, load average %s; %d s of load per run%s%s' % (
        time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
        open('/proc/loadavg').read().split()[:3], cases.SECS,
        ', sysbench ' + a.sysbench_test if a.sysbench_test else '',
        ', wperf record ' + a.record_args if a.record_args else '') +
        (', traces under ' + a.trace_dir if a.trace_dir else ''), flush=True)
    rows = []
    sides = [('recorded', fieldlib.WPERF)] + ([('also', a.also)] if a.also else [])
    for name in a.cases.split(','):
        case = cases.CASES[name]
        runs = [None] + [w for _, w in sides]          # None: plain
        got_all = {i: [] for i in range(len(runs))}
        cpu = {i: [] for i in range(1, len(runs))}
        for i in range(a.pairs):
            shift = i % len(runs)
            got = {}
            for k in list(range(len(runs)))[shift:] + list(range(len(runs)))[:shift]:
                n0 = len(RECORDER)
                got[k] = one(case, k != 0, runs[k])
                got_all[k].append(got[k])
                if len(RECORDER) > n0:
                    cpu[k].append(RECORDER[-1])
            print('%s round %d: plain %.0f, %s ops/s' % (
                name, i + 1, got[0], ', '.join('%s %.0f (ratio %.3f)' % (
                    sides[k - 1][0], got[k], got[k] / got[0]) for k in range(1, len(runs)))),
                flush=True)
        for k in range(1, len(runs)):
            rows.append((name if k == 1 else '%s (%s)' % (name, runs[k]), got_all[0],
                         got_all[k], cpu[k]))
        RECORDER.clear()
    print('finished %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                open('/proc/loadavg').read().split()[:3]))
    print()
    print('| case | pairs | plain (median ops/s) | plain min-max | recorded (median) | '
          'recorded min-max | recorded / plain | pair ratios | recorder CPU (s per s of run) |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name, plain, rec, cost in rows:
        mp, mr = statistics.median(plain), statistics.median(rec)
        ratios = [r / p for p, r in zip(plain, rec)]
        print('| %s | %d | %.0f | %s | %.0f | %s | %.3f | %s: %s | %.2f |' % (
            name, len(plain), mp, spread(plain), mr, spread(rec), mr / mp, quartiles(ratios),
            ' '.join('%.2f' % x for x in ratios),
            statistics.median(c / w for c, w in cost)))


if __name__ == '__main__':
    main()
