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
ratios, so that an effect can be told from noise. A second table gives
what each operation cost in CPU time: everything below the run's first
process (the server, the load, and the recorder) between the begin and
the end of the load's window (DIR/window), over the operations done in
it; on a machine shared with other work that figure moves less than the
throughput, which follows the share of the CPUs the server gets. Both
sides are watched alike (two scans of /proc per run, at the window's
ends). Needs root.

    --sysbench-test T   the mariadb case's sysbench test (default its own,
                        oltp_write_only; the benchmark runs oltp_read_write)
    --seconds S         load per run (WPERF_FIELD_SECONDS, default 4)
    --record-args ARGS  more `wperf record` options, e.g. "--buffer-size-kb 1024"
    --trace-dir DIR     write the traces under DIR (e.g. /dev/shm: no disk
                        writes beside the server's), not the case's directory
    --also WPERF[,...]  more recorders to compare (another build's
                        tools/wperf, or any command taking `record -o DIR
                        ARGS -- CMD`): each round then runs plain, recorded
                        by this build's wperf and by each WPERF, in a
                        rotating order, and the summary has a row for each
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
WINDOW = []      # (CPU s per operation, recorder's CPU s in the window) of each run


def cpu_total(pid, children=True):
    """utime + stime of pid (all its threads, living and gone) and, with
    children, of the children it reaped (cutime + cstime), in seconds."""
    st = fieldlib.stat_fields(fieldlib.read('/proc/%d/stat' % pid))
    if not st:
        return None
    f = st[1]
    return sum(int(x) for x in f[11:15 if children else 13]) / fieldlib.CLK_TCK


def tree_cpu(root, driver_pid):
    """{pid: CPU seconds} below root (root too), and which of them are the
    recorder's (not the driver's tree). A reaped child's CPU is in its
    parent's: sysbench, which ends before the window does, is counted in
    the driver's shell."""
    pmap = fieldlib.ppid_map()
    theirs = set(fieldlib.descendants(driver_pid, pmap)) if driver_pid else set()
    cpu = {}
    for p in fieldlib.descendants(root, pmap):
        c = cpu_total(p)
        if c is not None:
            cpu[p] = c
    return cpu, set(cpu) - theirs


def watch_run(popen, tmp, halt, out):
    """Both sides alike: wait for the load's window (DIR/window, written by
    the driver), take the CPU time of everything below the run's first
    process at its begin and its end (two scans of /proc; a poller that
    scans all the time would take the CPUs it measures, on one side only),
    then follow the recorder's own processes (a few files) until they end,
    for its whole CPU (the conversion after the command included)."""
    begin = mine = None
    window = os.path.join(tmp, 'window')
    while not halt.is_set():
        text = fieldlib.read(window) or ''
        if begin is None and 'begin' in text:
            driver = fieldlib.read(os.path.join(tmp, 'driver.pid'))
            out['driver'] = int(driver) if driver and driver.strip() else 0
            begin = tree_cpu(popen.pid, out['driver'])[0]
        if begin is not None and 'end' in text:
            end, mine = tree_cpu(popen.pid, out['driver'])
            out['window_cpu'] = sum(c - begin.get(p, 0) for p, c in end.items())
            out['window_recorder'] = sum(end[p] - begin.get(p, 0) for p in mine)
            break
        halt.wait(0.05)
    while mine and not halt.is_set():
        for p in mine:
            c = cpu_total(p, children=False)
            if c is not None:
                out.setdefault('recorder', {})[p] = c
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
        halt, seen = threading.Event(), {}
        watcher = threading.Thread(target=watch_run, args=(p, tmp, halt, seen), daemon=True)
        watcher.start()
        try:
            out, _ = p.communicate(timeout=case.timeout)
        except subprocess.TimeoutExpired:
            fieldlib.kill_session(p, fieldlib.pidfile_pids(tmp))
            raise
        finally:
            halt.set()
            watcher.join()
        if record:
            RECORDER.append((sum(seen.get('recorder', {}).values()), time.monotonic() - t0))
        if p.returncode:
            raise RuntimeError('%s failed:\n%s' % (' '.join(cmd), out[-2000:]))
        ops = case.throughput(tmp)
        begin, end = fieldlib.load_window(tmp)
        if 'window_cpu' not in seen or not ops:
            raise RuntimeError('%s: no CPU time or throughput measured in the load window' % case.name)
        WINDOW.append((seen['window_cpu'] / (ops * (end - begin) / 1e9), seen['window_recorder']))
        return ops
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


def spread_ms(xs):
    """spread() of seconds, in milliseconds."""
    m = statistics.median(xs)
    return '%.3f-%.3f (%.0f %%)' % (1e3 * min(xs), 1e3 * max(xs), 100 * (max(xs) - min(xs)) / m)


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
    ap.add_argument('--also', metavar='WPERF[,WPERF...]')
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
    sides = [('recorded', fieldlib.WPERF)] + [('also', w) for w in (a.also or '').split(',') if w]
    for name in a.cases.split(','):
        case = cases.CASES[name]
        runs = [None] + [w for _, w in sides]          # None: plain
        got_all = {i: [] for i in range(len(runs))}
        cpu = {i: [] for i in range(1, len(runs))}
        per_op = {i: [] for i in range(len(runs))}
        for i in range(a.pairs):
            shift = i % len(runs)
            got = {}
            for k in list(range(len(runs)))[shift:] + list(range(len(runs)))[:shift]:
                n0 = len(RECORDER)
                got[k] = one(case, k != 0, runs[k])
                got_all[k].append(got[k])
                if len(RECORDER) > n0:
                    cpu[k].append(RECORDER[-1])
                per_op[k].append(WINDOW[-1])
            print('%s round %d: plain %.0f ops/s %.2f ms CPU/op, %s' % (
                name, i + 1, got[0], 1e3 * per_op[0][-1][0], ', '.join(
                    '%s %.0f (ratio %.3f) %.2f ms CPU/op (ratio %.3f, recorder %.2f s)' % (
                        sides[k - 1][0], got[k], got[k] / got[0], 1e3 * per_op[k][-1][0],
                        per_op[k][-1][0] / per_op[0][-1][0], per_op[k][-1][1])
                    for k in range(1, len(runs)))), flush=True)
        for k in range(1, len(runs)):
            rows.append((name if k == 1 else '%s (%s)' % (name, runs[k]), got_all[0],
                         got_all[k], cpu[k], per_op[0], per_op[k]))
        RECORDER.clear()
    print('finished %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                open('/proc/loadavg').read().split()[:3]))
    print()
    print('| case | pairs | plain (median ops/s) | plain min-max | recorded (median) | '
          'recorded min-max | recorded / plain | pair ratios | recorder CPU (s per s of run) |')
    print('|---|---|---|---|---|---|---|---|---|')
    for name, plain, rec, cost, _, _ in rows:
        mp, mr = statistics.median(plain), statistics.median(rec)
        ratios = [r / p for p, r in zip(plain, rec)]
        print('| %s | %d | %.0f | %s | %.0f | %s | %.3f | %s: %s | %.2f |' % (
            name, len(plain), mp, spread(plain), mr, spread(rec), mr / mp, quartiles(ratios),
            ' '.join('%.2f' % x for x in ratios),
            statistics.median(c / w for c, w in cost)))
    # What each operation cost in CPU: less moved by the machine's other
    # load than throughput, which follows the share of the CPUs the
    # server gets (doc/performance.md).
    print()
    print('| case | plain CPU ms/op (median, min-max) | recorded CPU ms/op | recorded / plain '
          '| pair ratios | recorder CPU in the window (s, median) |')
    print('|---|---|---|---|---|---|')
    for name, _, _, _, plain, rec in rows:
        ratios = [r[0] / p[0] for p, r in zip(plain, rec)]
        print('| %s | %.3f, %s | %.3f, %s | %.3f | %s: %s | %.2f |' % (
            name, 1e3 * statistics.median(x[0] for x in plain),
            spread_ms([x[0] for x in plain]), 1e3 * statistics.median(x[0] for x in rec),
            spread_ms([x[0] for x in rec]),
            statistics.median(x[0] for x in rec) / statistics.median(x[0] for x in plain),
            quartiles(ratios), ' '.join('%.3f' % x for x in ratios),
            statistics.median(x[1] for x in rec)))


if __name__ == '__main__':
    main()
