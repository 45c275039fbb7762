#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""bench-annotations: what the wperf annotations cost, measured.

    ninja -C build bench-annotations          (or: make bench-annotations)
    WPERF_UST_BUILD_DIR=build/ust-provider /usr/bin/python3 \\
        ust-provider/bench/bench_annotations.py [--seconds S] [--repeat R]

Prints:
  1. ns per call of each macro (median of 5 runs of 16 million calls;
     recording: of 5 runs of 20 000 calls, so that every event fits in the
     buffers and nothing is discarded):
       (a) compiled out (-DWPERF_DISABLE)
       (b) provider loaded, no session recording
       (c) provider not loaded
       (d) provider loaded, recording (wperf:* with vtid, vpid, procname)
  2. the throughput of the spin-lock workload (4 threads, items/s, median,
     min and max of R runs of S seconds, default 5 runs of 2 s) compiled out, provider not loaded, loaded
     without a session, recording in discard mode (LTTng's default: events
     that do not fit are dropped and counted) and recording in blocking mode
     (nothing dropped: the program waits for the consumer).
Recording uses a private lttng-sessiond (ust-provider/tests/lttng_private.py;
as root, the daemon and the programs run as user nobody). Not a test: it
asserts nothing but that every run worked; it prints figures.
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', 'tests'))

import lttng_private as lp  # noqa: E402

UST_BUILD = os.environ.get('WPERF_UST_BUILD_DIR', '')
MACROS = ('before_spin', 'after_spin', 'false_wakeup', 'progress')


def machine():
    model = '?'
    with open('/proc/cpuinfo') as f:
        for line in f:
            if line.startswith('model name'):
                model = line.split(':', 1)[1].strip()
                break
    lttng = subprocess.run(['lttng', '--version'], stdout=subprocess.PIPE,
                           text=True).stdout.strip()
    return ['nproc: %d' % os.cpu_count(), 'cpu: %s' % model,
            'kernel: %s' % platform.release(), 'lttng: %s' % lttng,
            'load average at start: %s' % loadavg()]


def loadavg():
    """Other work on the machine skews every figure: say how much there was."""
    with open('/proc/loadavg') as f:
        return ' '.join(f.read().split()[:3])


def bench_figures(stdout):
    c = lp.parse_counters(stdout, 'annotate-bench')
    return c, {m: float(c['ns_per_call.' + m]) for m in ('empty_loop',) + MACROS}


def run_bench(lt, binary, args, provider=None, how='dlopen'):
    p = lt.run_traced([binary] + args, provider, how, blocking=True)
    return bench_figures(p.stdout)


def spin_throughput(lt, binary, seconds, repeat, provider=None):
    """(median, min, max) items/s of `repeat` runs."""
    rates = []
    for _ in range(repeat):
        p = lt.run_traced([binary, '--seconds', str(seconds)], provider, 'dlopen',
                          blocking=lt.blocking)
        c = lp.parse_counters(p.stdout, 'spin-lock')
        rates.append(float(c['items_per_second']))
        lt.items += int(c['items'])
    return statistics.median(rates), min(rates), max(rates)


def session(lt, name, blocking):
    trace = os.path.join(lt.home, name)
    lt.create_session(name, trace, blocking=blocking)
    lt.lttng('start')
    return trace


def end_session(lt, name, trace, count=True):
    """Stop and destroy; returns (events in the trace or None, events LTTng
    discarded). Counting decodes the whole trace (babeltrace2's counter
    sink), too slow for the multi-second spin-lock recordings, whose event
    count is known anyway (3 per item); the trace is then removed."""
    lt.lttng('stop')
    listing = lt.lttng('list', name).stdout
    lost = sum(int(line.split(':')[1]) for line in listing.splitlines()
               if line.strip().startswith('Discarded events:'))
    lt.lttng('destroy', name)
    events = None
    if count:
        out = subprocess.run(['babeltrace2', trace, '-c', 'sink.utils.counter'],
                             stdout=subprocess.PIPE, text=True, check=True).stdout
        # The counter prints running totals every 10 000 events: the last
        # "N Event messages" line is the total.
        events = [int(line.split()[0]) for line in out.splitlines()
                  if line.strip().endswith(('Event messages', 'Event message'))][-1]
    shutil.rmtree(trace, ignore_errors=True)
    return events, lost


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seconds', type=int, default=2, help='per spin-lock run')
    ap.add_argument('--repeat', type=int, default=5, help='spin-lock runs per case')
    opt = ap.parse_args()
    reason = lp.why_not()
    if reason:
        sys.exit('bench-annotations: cannot record with LTTng-UST: %s' % reason)

    print('== machine')
    for line in machine():
        print('   ' + line)

    with lp.PrivateLttng(prefix='wperf-bench-') as lt:
        prov = lt.install(os.path.join(UST_BUILD, 'libwperf-ust.so.0'))
        bench = lt.install(os.path.join(UST_BUILD, 'bench', 'annotate-bench'))
        bench_off = lt.install(os.path.join(UST_BUILD, 'bench', 'annotate-bench-disabled'))
        spin = lt.install(os.path.join(UST_BUILD, 'workloads', 'spin-lock'))
        spin_off = lt.install(os.path.join(UST_BUILD, 'workloads', 'spin-lock-disabled'))

        cols = {}
        _, cols['(a) compiled out'] = run_bench(lt, bench_off, ['--no-load'])
        c, cols['(b) loaded, no session'] = run_bench(lt, bench, [], prov)
        assert c['provider'] == 'loaded', c
        c, cols['(c) not loaded'] = run_bench(lt, bench, ['--no-load'])
        assert c['provider'] == 'not-loaded', c
        trace = session(lt, 'bench-macros', blocking=True)
        rec_args = ['--calls', '2500']
        c, cols['(d) recording'] = run_bench(lt, bench, rec_args, prov)
        n, lost = end_session(lt, 'bench-macros', trace)
        expected = sum(int(c['calls.' + m]) for m in MACROS)

        print('\n== ns per call (median of 5 runs; the empty loop is the floor)')
        print('   %-14s' % 'macro' + ''.join('%24s' % k for k in cols))
        for m in ('empty_loop',) + MACROS:
            print('   %-14s' % m + ''.join('%24.2f' % cols[k][m] for k in cols))
        print('   (d) recorded %d events of %d calls, %d discarded' % (n, expected, lost))

        print('\n== spin-lock, 4 threads: items/s (median of %d runs of %d s)'
              % (opt.repeat, opt.seconds))
        lt.blocking, lt.items = False, 0
        rows = [('compiled out (-DWPERF_DISABLE)',
                 spin_throughput(lt, spin_off, opt.seconds, opt.repeat), ''),
                ('provider not loaded',
                 spin_throughput(lt, spin, opt.seconds, opt.repeat), ''),
                ('provider loaded, no session',
                 spin_throughput(lt, spin, opt.seconds, opt.repeat, prov), '')]
        for blocking in (False, True):
            lt.blocking, lt.items = blocking, 0
            name = 'bench-spin-%d' % blocking
            trace = session(lt, name, blocking)
            rate = spin_throughput(lt, spin, opt.seconds, opt.repeat, prov)
            _, lost = end_session(lt, name, trace, count=False)
            note = '%d events emitted, %d discarded' % (3 * lt.items, lost)
            rows.append(('recording, %s mode' % ('blocking' if blocking else 'discard'),
                         rate, note))
        base = rows[0][1][0]
        print('   %-34s %10s %7s  %-23s' % ('', 'median', '', 'min - max'))
        for name, (med, lo, hi), note in rows:
            print('   %-34s %10.0f %6.1f%%  %10.0f - %-10.0f  %s'
                  % (name, med, 100.0 * med / base, lo, hi, note))
    print('\n== load average at end: %s' % loadavg())


if __name__ == '__main__':
    main()
