#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number tests: hand-built kernel traces (tests/wperf_scenario.py)
through the real C plugin (sink.wperf.knots, filter.wperf.waits).

Every expected number is derived by hand from doc wperf-method(7) (§3 segments,
§4 cascade, §5 disks, §7 knots); the derivations are in the comments and in
tests/README.md. Times are written in a unit U (100 ms) where it keeps them
readable.

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bt2  # noqa: E402
from wperf_scenario import (MS, S, US, SOFTIRQ, EachMessage, Report,  # noqa: E402
                            Scenario, ScenarioSource, bt2_error_text, dev_t, hist_count,
                            log2_bucket, one_wait, run_knots, run_knots_text, run_segments,
                            wperf_plugin)

U = 100 * MS
TURN = 24 * MS   # WPERF_LOST_TURN_NS: a device wakeup's delay counted as the wait's
KINDS = ('thread', 'disk', 'nic', 'irq', 'softirq', 'timer', 'unknown', 'virtual')


def segments_of(out, tid):
    return [s for s in out['segments'] if s['tid'] == tid]


class Base(unittest.TestCase):
    maxDiff = None

    def knots(self, scn, **params):
        js = run_knots(scn, **params)
        r = Report(js)
        self.check_common(r, scn)
        return r

    def check_common(self, r, scn):
        """Invariants that hold for every scenario."""
        begin, end = scn.time_range()
        js = r.js
        self.assertIsInstance(js['format'], str)
        self.assertTrue(js['format'])
        self.assertEqual(js['time_range']['begin_ns'], begin, 'time_range.begin_ns')
        self.assertEqual(js['time_range']['end_ns'], end, 'time_range.end_ns')
        self.assertEqual(js['time_range']['duration_ns'], end - begin, 'time_range.duration_ns')
        for e in js['edges']:
            self.assertGreaterEqual(e['direct_ns'], 0, r.describe_edges())
            self.assertGreaterEqual(e['weight_ns'], e['direct_ns'], r.describe_edges())
            self.assertIn(e['from'], r.vertices)
            self.assertIn(e['to'], r.vertices)
        for t in js['threads']:
            w = sum(t['waiting_ns'][k] for k in KINDS)
            self.assertEqual(t['running_ns'] + t['runnable_ns'] + w + t['unknown_ns'],
                             t['last_ns'] - t['first_ns'],
                             'thread %s: running+runnable+waiting+unknown != lifetime' % t)
            # Unknown only where events were lost, or contradicted each other.
            if t['unknown_ns']:
                self.assertTrue(js['quality']['gaps'] or t['state_mismatches'], t)
        # No thread in a scenario ever appears in tid 0.
        for v in js['vertices']:
            if v['kind'] == 'thread':
                self.assertNotEqual(v['tid'], 0, 'swapper must not be a vertex')

    def assertEdge(self, r, frm, to, weight, direct=None, count=None):
        e = r.edge(frm, to)
        msg = 'edge %s -> %s; all edges: %s' % (r.vname(frm), r.vname(to), r.describe_edges())
        self.assertEqual(e['weight_ns'], weight, msg)
        if direct is not None:
            self.assertEqual(e['direct_ns'], direct, msg)
        if count is not None:
            self.assertEqual(e['count'], count, msg)
        return e

    def assertTiled(self, out, tid, first, last):
        segs = sorted(segments_of(out, tid), key=lambda s: s['start'])
        self.assertTrue(segs, 'no segments for tid %d' % tid)
        self.assertEqual(segs[0]['start'], first, 'first segment of %d' % tid)
        for a, b in zip(segs, segs[1:]):
            self.assertEqual(a['start'] + a['duration'], b['start'],
                             'segments of %d do not abut: %s / %s' % (tid, a, b))
        self.assertEqual(segs[-1]['start'] + segs[-1]['duration'], last,
                         'last segment of %d' % tid)
        for s in segs:
            self.assertGreaterEqual(s['duration'], 0, s)
        return segs

    def assertSegs(self, out, tid, expected):
        """expected: [(state, start, duration, waker_name or None, cascade or None)]
        zero-length segments are ignored on both sides."""
        segs = [s for s in sorted(segments_of(out, tid), key=lambda s: s['start'])
                if s['duration'] != 0]
        got = [(s['state'], s['start'], s['duration'],
                s['waker_name'] if s['state'] == 'waiting' else None,
                s['cascade'] if s['state'] == 'waiting' else None) for s in segs]
        self.assertEqual(got, expected, 'segments of tid %d' % tid)


# ---------------------------------------------------------------------------
def single_wait():
    """A (101, cpu0) sleeps at 1 s; B (102, cpu1, always running) wakes it
    at 3 s; A is switched in at 3.5 s. Trace [0, 4 s]."""
    return one_wait(runs_again=3500 * MS)


def nested():
    """wperf-method(7) §4, shifted by +0.1 s: A waits for B over [0.1, 0.4];
    B waits for C over [0.05, 0.3]. A cpu0, B cpu1, C cpu2. Trace [0, 0.5]."""
    s = Scenario(ncpus=3, end=500 * MS)
    A, B, C = s.threads(101, 'A', 'B', 'C')
    s.running(A, B, C)
    s.sleep(50 * MS, 1, B)
    s.sleep(100 * MS, 0, A)
    s.wake(300 * MS, 2, B)
    s.run(300 * MS, 1, B)
    s.wake(400 * MS, 1, A)
    s.run(400 * MS, 0, A)
    return s


def chain():
    """A waits B over [2,8]U, B waits C over [1,6]U, C waits D over [3,5]U;
    each on its own CPU; D never waits. Trace [0, 10]U."""
    s = Scenario(ncpus=4, end=10 * U)
    A, B, C, D = s.threads(101, 'A', 'B', 'C', 'D')
    s.running(A, B, C, D)
    s.sleep(1 * U, 1, B)
    s.sleep(2 * U, 0, A)
    s.sleep(3 * U, 2, C)
    s.wake(5 * U, 3, C)
    s.run(5 * U, 2, C)
    s.wake(6 * U, 2, B)
    s.run(6 * U, 1, B)
    s.wake(8 * U, 1, A)
    s.run(8 * U, 0, A)
    return s


def two_waiters():
    """A waits C over [1,5]U, B waits C over [2,6]U, C waits D over [3,4]U.
    Trace [0, 7]U."""
    s = Scenario(ncpus=4, end=7 * U)
    A, B, C, D = s.threads(101, 'A', 'B', 'C', 'D')
    s.running(A, B, C, D)
    s.sleep(1 * U, 0, A)
    s.sleep(2 * U, 1, B)
    s.sleep(3 * U, 2, C)
    s.wake(4 * U, 3, C)
    s.run(4 * U, 2, C)
    s.wake(5 * U, 2, A)
    s.run(5 * U, 0, A)
    s.wake(6 * U, 2, B)
    s.run(6 * U, 1, B)
    return s


def cycle_and_chain():
    """A and B wait on each other in turn (A:[1,2]U by B, B:[3,5]U by A,
    A:[6,7]U by B); C waits D over [1,4]U; D never waits. Trace [0, 8]U."""
    s = Scenario(ncpus=4, end=8 * U)
    A, B, C, D = s.threads(101, 'A', 'B', 'C', 'D')
    s.running(A, B, C, D)
    s.sleep(1 * U, 0, A)
    s.sleep(1 * U, 2, C)
    s.wake(2 * U, 1, A)
    s.run(2 * U, 0, A)
    s.sleep(3 * U, 1, B)
    s.wake(4 * U, 3, C)
    s.run(4 * U, 2, C)
    s.wake(5 * U, 0, B)
    s.run(5 * U, 1, B)
    s.sleep(6 * U, 0, A)
    s.wake(7 * U, 1, A)
    s.run(7 * U, 0, A)
    return s


# Refinement: sequential, non-overlapping waits (so no cascade: weight ==
# direct), one per edge: (waiter, waker, sleep at, woken at) in U.
REFINE_WAITS = [
    ('A', 'B', 1, 10),    # A -> B 900 ms
    ('B', 'A', 11, 19),   # B -> A 800 ms
    ('B', 'C', 20, 21),   # B -> C 100 ms   (lightest)
    ('C', 'D', 22, 28),   # C -> D 600 ms
    ('D', 'C', 29, 34),   # D -> C 500 ms
    ('D', 'A', 35, 37),   # D -> A 200 ms   (second lightest)
    ('A', 'C', 38, 41),   # A -> C 300 ms
]


def refine4():
    s = Scenario(ncpus=4, end=42 * U)
    tids = {'A': 101, 'B': 102, 'C': 103, 'D': 104}
    cpu = {'A': 0, 'B': 1, 'C': 2, 'D': 3}
    for n, t in tids.items():
        s.thread(t, n)
        s.run(0, cpu[n], t)
    for waiter, waker, t1, t2 in REFINE_WAITS:
        s.sleep(t1 * U, cpu[waiter], tids[waiter])
        s.wake(t2 * U, cpu[waker], tids[waiter])
        s.run(t2 * U, cpu[waiter], tids[waiter])
    return s


def hardirq():
    """X (201) runs on cpu0 all along. W (202, cpu1) sleeps at 1 s; at 2 s an
    interrupt (irq 24, "virtio0") on cpu0 wakes it at 2 s + 1 us; W runs at
    2 s + 3 us. V (203, cpu2) sleeps at 1 s and is woken at 2.5 s + 1 us from
    a TASKLET softirq on cpu0. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, W, V = s.thread(201, 'X'), s.thread(202, 'W'), s.thread(203, 'V')
    s.run(0, 0, X)
    s.run(0, 1, W)
    s.run(0, 2, V)
    s.sleep(1 * S, 1, W)
    s.sleep(1 * S, 2, V)
    s.irq_entry(2 * S, 0, 24, 'virtio0')
    s.wake(2 * S + 1 * US, 0, W, target_cpu=1)
    s.irq_exit(2 * S + 2 * US, 0, 24)
    s.run(2 * S + 3 * US, 1, W)
    s.softirq_entry(2500 * MS, 0, SOFTIRQ['TASKLET'])
    s.wake(2500 * MS + 1 * US, 0, V, target_cpu=2)
    s.softirq_exit(2500 * MS + 2 * US, 0, SOFTIRQ['TASKLET'])
    s.run(2500 * MS + 3 * US, 2, V)
    return s


def timers():
    """X (301) runs on cpu0 all along. T1 (302, cpu1), T2 (303, cpu2) and
    T3 (304, cpu3) sleep at 1 s. On cpu0: TIMER softirq wakes T1 at
    2 s + 1 us; an hrtimer expiry wakes T2 at 2.5 s + 1 us; an HRTIMER
    softirq wakes T3 at 2.7 s + 1 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=4, end=3 * S)
    X, T1, T2, T3 = s.threads(301, 'X', 'T1', 'T2', 'T3')
    s.running(X, T1, T2, T3)
    for cpu, t in ((1, T1), (2, T2), (3, T3)):
        s.sleep(1 * S, cpu, t)
    s.softirq_entry(2 * S, 0, SOFTIRQ['TIMER'])
    s.wake(2 * S + 1 * US, 0, T1, target_cpu=1)
    s.softirq_exit(2 * S + 2 * US, 0, SOFTIRQ['TIMER'])
    s.run(2 * S + 3 * US, 1, T1)
    s.hrtimer_entry(2500 * MS, 0)
    s.wake(2500 * MS + 1 * US, 0, T2, target_cpu=2)
    s.hrtimer_exit(2500 * MS + 2 * US, 0)
    s.run(2500 * MS + 3 * US, 2, T2)
    s.softirq_entry(2700 * MS, 0, SOFTIRQ['HRTIMER'])
    s.wake(2700 * MS + 1 * US, 0, T3, target_cpu=3)
    s.softirq_exit(2700 * MS + 2 * US, 0, SOFTIRQ['HRTIMER'])
    s.run(2700 * MS + 3 * US, 3, T3)
    return s


DISK = dev_t(8, 0)


def disk():
    """W (401, cpu0) issues a 4 KiB write to 8:0 at 1 s and sleeps (D). On
    cpu1, where X (402) runs, irq 25 ("virtio1") enters at 1.5 s, the request
    completes at 1.5 s + 1 us, W is woken at 1.5 s + 2 us, the handler exits
    at 1.5 s + 3 us; W runs at 1.5 s + 4 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=2, end=3 * S)
    W, X = s.thread(401, 'W'), s.thread(402, 'X')
    s.run(0, 0, W)
    s.run(0, 1, X)
    s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
    return s


# ---------------------------------------------------------------------------
class TestSingleWait(Base):
    def test_report(self):
        r = self.knots(single_wait())
        A, B = r.tid(101), r.tid(102)
        # A waits [1 s, 3 s] for B: 2 s, one wait, no cascade (B never waits).
        e = self.assertEdge(r, A, B, 2 * S, direct=2 * S, count=1)
        self.assertEqual(hist_count(e['hist'], log2_bucket(2 * S)), 1, 'hist bucket 30')
        self.assertEqual(len(r.js['edges']), 1, r.describe_edges())
        ta, tb = r.thread(101), r.thread(102)
        self.assertEqual(ta['waiting_ns']['thread'], 2 * S)
        for k in KINDS:
            if k != 'thread':
                self.assertEqual(ta['waiting_ns'][k], 0, k)
        self.assertEqual(ta['running_ns'], 1500 * MS)      # [0,1] + [3.5,4]
        self.assertEqual(ta['runnable_ns'], 500 * MS)      # [3,3.5]
        self.assertEqual(ta['waits'], 1)
        self.assertEqual((ta['first_ns'], ta['last_ns']), (0, 4 * S))
        self.assertEqual(tb['running_ns'], 4 * S)
        self.assertEqual(tb['waits'], 0)
        # B is a sink (A waits for it, it waits for nothing); no knot.
        self.assertEqual(r.knots('knot'), [], r.describe_knots())
        sinks = r.knots('sink')
        self.assertEqual([k['members'] for k in sinks], [[B]], r.describe_knots())
        self.assertEqual(sinks[0]['weight_ns'], 2 * S)
        q = r.js['quality']
        self.assertEqual(q['unmatched_wakeups'], 0)
        self.assertEqual(q['waits_open_at_end'], 0)
        self.assertEqual(q['discarded_events'], 0)
        self.assertTrue(q['has_waking'])

    def test_segments(self):
        out = run_segments(single_wait())
        r = Report(run_knots(single_wait()))
        self.assertTiled(out, 101, 0, 4 * S)
        self.assertTiled(out, 102, 0, 4 * S)
        self.assertSegs(out, 101, [('running', 0, 1 * S, None, None),
                                   ('waiting', 1 * S, 2 * S, 'B', 0),
                                   ('runnable', 3 * S, 500 * MS, None, None),
                                   ('running', 3500 * MS, 500 * MS, None, None)])
        self.assertSegs(out, 102, [('running', 0, 4 * S, None, None)])
        w = [s for s in segments_of(out, 101) if s['state'] == 'waiting'][0]
        self.assertEqual(w['waker'], r.tid(102))
        self.assertEqual(w['waker_kind'], 'thread')
        self.assertEqual(w['vertex'], r.tid(101))
        self.assertEqual(w['name'], 'A')
        # LTTng's sched_switch carries no pid: without statedump or fork
        # the pid is unknown, and the filter says what the report says.
        self.assertEqual(w['pid'], r.vertices[r.tid(101)]['pid'])
        for seg in out['segments']:
            if seg['state'] != 'waiting':
                self.assertEqual(seg['waker'], -1, seg)
        # The filter forwards the kernel events too.
        self.assertEqual(out['other_events'], len(single_wait().events))


class TestNested(Base):
    """wperf-method(7) §4: A -> B = 0.3 s; B -> C = 0.25 (own) + 0.2 (A's wait
    [0.1,0.4] overlaps B's [0.05,0.3] on [0.1,0.3]) = 0.45 s."""

    def test_report(self):
        r = self.knots(nested())
        A, B, C = r.tid(101), r.tid(102), r.tid(103)
        self.assertEdge(r, A, B, 300 * MS, direct=300 * MS, count=1)
        self.assertEdge(r, B, C, 450 * MS, direct=250 * MS, count=1)
        self.assertEqual(len(r.js['edges']), 2, r.describe_edges())
        self.assertEqual(r.knots('knot'), [], r.describe_knots())
        self.assertEqual([k['members'] for k in r.knots('sink')], [[C]], r.describe_knots())
        self.assertEqual(r.thread(102)['waiting_ns']['thread'], 250 * MS)

    def test_segments(self):
        out = run_segments(nested())
        for tid in (101, 102, 103):
            self.assertTiled(out, tid, 0, 500 * MS)
        self.assertSegs(out, 101, [('running', 0, 100 * MS, None, None),
                                   ('waiting', 100 * MS, 300 * MS, 'B', 200 * MS),
                                   ('running', 400 * MS, 100 * MS, None, None)])
        self.assertSegs(out, 102, [('running', 0, 50 * MS, None, None),
                                   ('waiting', 50 * MS, 250 * MS, 'C', 0),
                                   ('running', 300 * MS, 200 * MS, None, None)])


class TestWindow(Base):
    """begin/end (babeltrace2-sink.wperf.knots(7), "Time window"): the whole trace is
    read, only the window counts, segments and waits clipped to it.
    nested() in the window [0.2 s, 0.35 s]: A's wait [0.1, 0.4] counts
    [0.2, 0.35] = 0.15 s on A -> B; B's wait [0.05, 0.3] counts [0.2, 0.3]
    = 0.1 s on B -> C, plus A's windowed wait over it, [0.2, 0.3]: B -> C =
    0.2 s. B runs [0.3, 0.35]; C runs all of the window."""

    def test_clipped_weights(self):
        r = Report(run_knots(nested(), begin='0.2', end='0.35'))
        self.assertEqual(r.js['time_range'], {'begin_ns': 200 * MS, 'end_ns': 350 * MS,
                                              'duration_ns': 150 * MS, 'cpus': 3})
        A, B, C = r.tid(101), r.tid(102), r.tid(103)
        self.assertEdge(r, A, B, 150 * MS, direct=150 * MS, count=1)
        self.assertEdge(r, B, C, 200 * MS, direct=100 * MS, count=1)
        self.assertEqual(len(r.js['edges']), 2, r.describe_edges())
        ta, tb, tc = r.thread(101), r.thread(102), r.thread(103)
        self.assertEqual((ta['running_ns'], ta['waiting_ns']['thread']), (0, 150 * MS))
        self.assertEqual((tb['running_ns'], tb['waiting_ns']['thread']), (50 * MS, 100 * MS))
        self.assertEqual((tc['running_ns'], tc['waiting_ns']['thread']), (150 * MS, 0))
        for t in r.js['threads']:
            self.assertEqual((t['first_ns'], t['last_ns']), (200 * MS, 350 * MS), t)

    def test_same_forms_as_the_trimmer(self):
        """An integer is seconds, as for babeltrace2's trimmer; an open end
        is the trace's own."""
        r = Report(run_knots(nested(), begin=0, end='0.35'))
        self.assertEqual(r.js['time_range']['end_ns'], 350 * MS)
        self.assertEdge(r, r.tid(101), r.tid(102), 250 * MS, direct=250 * MS)
        r = Report(run_knots(nested(), begin='0.2'))
        self.assertEqual(r.js['time_range']['begin_ns'], 200 * MS)
        self.assertEqual(r.js['time_range']['end_ns'], 500 * MS)
        self.assertEdge(r, r.tid(101), r.tid(102), 200 * MS, direct=200 * MS)
        # The scenario's clock counts from the Unix epoch: a date and a
        # time of day (on the first message's date) name the same instant;
        # ".2" is 200 ms; gmt=true reads them as UTC.
        for begin in ('1970-01-01 00:00:00.2', '00:00:00.2', '1970-01-01 00:00'):
            r = Report(run_knots(nested(), begin=begin, end='00:00:00.35', gmt=True))
            want = 0 if begin.endswith('00:00') else 200 * MS
            self.assertEqual((r.js['time_range']['begin_ns'], r.js['time_range']['end_ns']),
                             (want, 350 * MS), begin)
        # Midnight, and negative seconds: before the trace, which then
        # begins the range.
        for begin in ('1970-01-01', '-1.5'):
            r = Report(run_knots(nested(), begin=begin, end='0.35', gmt=True))
            self.assertEqual(r.js['time_range']['begin_ns'], 0, begin)

    def test_identities_from_before_the_window(self):
        """Process ids from a statedump before the window stay known."""
        s = Scenario(ncpus=2, end=3 * S)
        A, B = s.thread(101, 'A', pid=100), s.thread(102, 'B', pid=100)
        s.statedump(0, 0, A, 6)
        s.statedump(0, 0, B, 6, on_cpu=1)
        s.run(1 * MS, 0, A)
        s.run(1 * MS, 1, B)
        s.sleep(1 * S, 0, A)
        s.wake(2 * S, 1, A, target_cpu=0)
        s.run(2 * S, 0, A)
        r = Report(run_knots(s, begin='1.5', end='2.5', pids='100'))
        self.assertEqual(r.vertices[r.tid(101)]['pid'], 100)
        self.assertEdge(r, r.tid(101), r.tid(102), 500 * MS, direct=500 * MS, count=1)

    def test_disk_busy_and_issuers_clipped(self):
        """disk() in [0.5 s, 1.25 s]: the request issued at 1 s is in
        flight for 0.25 s of the window, W waits for it 0.25 s; the disk
        is idle for the other 0.5 s, all of it W's (W issued in the window)."""
        r = Report(run_knots(disk(), begin='0.5', end='1.25'))
        W, d = r.tid(401), r.vid(kind='disk')
        self.assertEdge(r, W, d, 250 * MS, direct=250 * MS, count=1)
        self.assertEdge(r, d, W, 500 * MS, count=1)
        self.assertEqual(r.vertices[d]['busy_ns'], 250 * MS)
        self.assertEqual(r.thread(401)['running_ns'], 500 * MS)
        # From 1.25 s: the request was issued before the window: the disk
        # is busy [1.25 s, 1.5 s + 1 us] and nobody issued in the window.
        r = Report(run_knots(disk(), begin='1.25'))
        W, d = r.tid(401), r.vid(kind='disk')
        self.assertEdge(r, W, d, 250_002_000, direct=250_002_000, count=1)
        self.assertFalse(r.has_edge(d, W), r.describe_edges())
        self.assertEqual(r.vertices[d]['busy_ns'], 250_001_000)

    def test_bad_windows(self):
        for params, words in (({'begin': '12:3x'}, "parameter `begin`: \"12:3x\" is not a time"),
                              ({'end': 'soon'}, "parameter `end`: \"soon\" is not a time"),
                              ({'begin': '2', 'end': '1'},
                               "parameter `end`: \"1\" is before `begin` \"2\""),
                              ({'begin': '10:00', 'end': '09:59:59.5'},
                               "is before `begin`"),
                              ({'begin': [1]}, "parameter `begin`: expected a time"),
                              ({'begin': '10'}, "holds none of the trace")):
            with self.assertRaises(bt2._Error, msg=params) as ctx:
                run_knots(nested(), **params)
            self.assertIn(words, bt2_error_text(ctx.exception), params)


def run_knots_behind_filter(scn, filter_params, **params):
    """scenario -> filter.wperf.waits -> sink.wperf.knots format=json."""
    import json
    import tempfile
    plugin = wperf_plugin()
    with tempfile.TemporaryDirectory(prefix='wperf-scn-') as tmp:
        path = os.path.join(tmp, 'report.json')
        p = {'format': 'json', 'path': path}
        p.update(params)
        g = bt2.Graph()
        src = g.add_component(ScenarioSource, 'scenario', obj=scn)
        flt = g.add_component(plugin.filter_component_classes['waits'], 'waits',
                              params=filter_params)
        sink = g.add_component(plugin.sink_component_classes['knots'], 'knots', params=p)
        g.connect_ports(src.output_ports['out'], flt.input_ports['in'])
        g.connect_ports(flt.output_ports['out'], sink.input_ports['in'])
        g.run()
        with open(path) as f:
            return json.load(f)


class TestChain(Base):
    """A->B = 6U (own); B->C = 5U (own) + 4U (A's [2,8] on B's [2,6]) = 9U;
    C->D = 2U (own) + 2U (B's wait, [3,5]) + 2U (A's, through B) = 6U.
    Linear check: m_C = 2 on [3,5] -> C->D = 3*2U."""

    def test_report(self):
        r = self.knots(chain())
        A, B, C, D = (r.tid(t) for t in (101, 102, 103, 104))
        self.assertEdge(r, A, B, 6 * U, direct=6 * U, count=1)
        self.assertEdge(r, B, C, 9 * U, direct=5 * U, count=1)
        self.assertEdge(r, C, D, 6 * U, direct=2 * U, count=1)
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual([k['members'] for k in r.knots('sink')], [[D]], r.describe_knots())
        self.assertEqual(r.knots('knot'), [])
        # A: running [0,2]+[8,10], waiting 6U.
        ta = r.thread(101)
        self.assertEqual((ta['running_ns'], ta['runnable_ns'], ta['waiting_ns']['thread']),
                         (4 * U, 0, 6 * U))

    def test_segments(self):
        out = run_segments(chain())
        for tid in (101, 102, 103, 104):
            self.assertTiled(out, tid, 0, 10 * U)
        cascade = {s['tid']: s['cascade'] for s in out['segments'] if s['state'] == 'waiting'}
        # A's wait added 4U to B->C and 2U to C->D; B's added 2U to C->D.
        self.assertEqual(cascade, {101: 6 * U, 102: 2 * U, 103: 0})


class TestTwoWaiters(Base):
    """A->C = 4U, B->C = 4U; C->D = 1U (own) + 1U (A's) + 1U (B's) = 3U."""

    def test_report(self):
        r = self.knots(two_waiters())
        A, B, C, D = (r.tid(t) for t in (101, 102, 103, 104))
        self.assertEdge(r, A, C, 4 * U, direct=4 * U, count=1)
        self.assertEdge(r, B, C, 4 * U, direct=4 * U, count=1)
        self.assertEdge(r, C, D, 3 * U, direct=1 * U, count=1)
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual([k['members'] for k in r.knots('sink')], [[D]], r.describe_knots())

    def test_segments(self):
        out = run_segments(two_waiters())
        for tid in (101, 102, 103, 104):
            self.assertTiled(out, tid, 0, 7 * U)
        cascade = {s['tid']: s['cascade'] for s in out['segments'] if s['state'] == 'waiting'}
        self.assertEqual(cascade, {101: 1 * U, 102: 1 * U, 103: 0})


class TestCycleAndSink(Base):
    """A->B = 2U (2 waits), B->A = 2U, C->D = 3U. Knot {A,B} (weight 4U,
    simple cycle), sink D (weight 3U). threshold 100% (0.8 s) is above every
    edge weight, so only "simple cycle" can stop refinement."""

    def test_report(self):
        r = self.knots(cycle_and_chain(), threshold='100%')
        A, B, C, D = (r.tid(t) for t in (101, 102, 103, 104))
        self.assertEqual(r.js['threshold']['ns'], 8 * U)
        self.assertEqual(r.js['threshold']['spec'], '100%')
        e = self.assertEdge(r, A, B, 2 * U, direct=2 * U, count=2)
        self.assertEqual(hist_count(e['hist'], log2_bucket(1 * U)), 2)
        self.assertEdge(r, B, A, 2 * U, direct=2 * U, count=1)
        self.assertEdge(r, C, D, 3 * U, direct=3 * U, count=1)
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        knots = r.knots('knot')
        self.assertEqual(len(knots), 1, r.describe_knots())
        k = knots[0]
        self.assertEqual(k['members'], sorted([A, B]))
        self.assertEqual(k['weight_ns'], 4 * U)
        self.assertEqual(k['removed'], [])
        self.assertEqual(k['stop_reason'], 'simple cycle')
        self.assertEqual(k['component'], sorted([A, B]))
        members = set(k['members'])
        for e in r.js['edges']:
            if e['from'] in members:
                self.assertIn(e['to'], members, 'edge leaves the knot: ' + r.describe_edges())
        sinks = r.knots('sink')
        self.assertEqual([s['members'] for s in sinks], [[D]], r.describe_knots())
        self.assertEqual(sinks[0]['weight_ns'], 3 * U)
        # knots come first, then sinks
        self.assertEqual(r.js['knots'][0]['kind'], 'knot')
        # 4U of 8U, all the members' own waiting: no share of the analysed
        # time (a weight can exceed it), own's share of the members' time.
        self.assertNotIn('share', k)
        self.assertEqual((k['own_ns'], k['cascaded_ns']), (4 * U, 0))
        self.assertAlmostEqual(k['own_share'], 4 * U / k['waiters_ns'], places=6)


class TestRefinement(Base):
    """Edges (ms): A->B 900, B->A 800, B->C 100, C->D 600, D->C 500, D->A 200,
    A->C 300, one wait each, no overlap (weight == direct). The whole set is
    strongly connected. Refining removes B->C (still strongly connected via
    A->C), then D->A: {C,D} is then terminal (C<->D), a simple cycle."""

    def check_edges(self, r):
        n = {x: r.tid(t) for x, t in zip('ABCD', (101, 102, 103, 104))}
        for waiter, waker, t1, t2 in REFINE_WAITS:
            self.assertEdge(r, n[waiter], n[waker], (t2 - t1) * U, direct=(t2 - t1) * U,
                            count=1)
        self.assertEqual(len(r.js['edges']), len(REFINE_WAITS), r.describe_edges())
        return n

    def test_to_simple_cycle(self):
        r = self.knots(refine4(), threshold='550ms')
        n = self.check_edges(r)
        self.assertEqual(r.js['threshold'], {'ns': 550 * MS, 'spec': '550ms'})
        knots = r.knots('knot')
        self.assertEqual(len(knots), 1, r.describe_knots())
        k = knots[0]
        self.assertEqual([(x['from'], x['to'], x['weight_ns']) for x in k['removed']],
                         [(n['B'], n['C'], 100 * MS), (n['D'], n['A'], 200 * MS)],
                         r.describe_knots())
        self.assertEqual(k['members'], sorted([n['C'], n['D']]))
        self.assertEqual(k['component'], sorted(n.values()))
        self.assertEqual(k['stop_reason'], 'simple cycle')
        self.assertEqual(k['weight_ns'], 1100 * MS)
        self.assertEqual([(x['from'], x['to'], x['weight_ns']) for x in k['edges']],
                         [(n['C'], n['D'], 600 * MS), (n['D'], n['C'], 500 * MS)])
        self.assertEqual(r.knots('sink'), [], r.describe_knots())

    def test_default_threshold(self):
        # 20% of 4.2 s = 840 ms: same removals as with 550 ms.
        r = self.knots(refine4())
        n = self.check_edges(r)
        self.assertEqual(r.js['threshold'], {'ns': 840 * MS, 'spec': '20%'})
        k = r.knots('knot')[0]
        self.assertEqual([(x['from'], x['to']) for x in k['removed']],
                         [(n['B'], n['C']), (n['D'], n['A'])])
        self.assertEqual(k['members'], sorted([n['C'], n['D']]))

    def test_stopped_by_threshold(self):
        # 150 ms: B->C (100) is cut; then the lowest edge, D->A (200), reaches
        # the threshold while the four vertices are still strongly connected.
        r = self.knots(refine4(), threshold='150ms')
        n = self.check_edges(r)
        knots = r.knots('knot')
        self.assertEqual(len(knots), 1, r.describe_knots())
        k = knots[0]
        self.assertEqual([(x['from'], x['to'], x['weight_ns']) for x in k['removed']],
                         [(n['B'], n['C'], 100 * MS)], r.describe_knots())
        self.assertEqual(k['members'], sorted(n.values()))
        self.assertEqual(k['stop_reason'], 'threshold')
        ws = [x['weight_ns'] for x in k['edges']]
        self.assertEqual(ws, sorted(ws, reverse=True), 'knot edges heaviest first')


class TestHardIrq(Base):
    """W's wait [1 s, 2 s + 1 us] is woken inside irq 24's handler on cpu0:
    W -> irq:24:virtio0 = 1 000 001 000 ns, not W -> X. V's wait
    [1 s, 2.5 s + 1 us] is woken in a TASKLET softirq: V -> softirq vertex."""

    def test_report(self):
        r = self.knots(hardirq())
        X, W, V = r.tid(201), r.tid(202), r.tid(203)
        irq = r.vid(name='irq:24:virtio0')
        self.assertEqual(r.vertices[irq]['kind'], 'irq')
        self.assertEdge(r, W, irq, 1 * S + 1 * US, direct=1 * S + 1 * US, count=1)
        self.assertFalse(r.has_edge(W, X), 'W must not wait for the interrupted X: '
                         + r.describe_edges())
        self.assertEqual(r.thread(202)['waiting_ns']['irq'], 1 * S + 1 * US)
        self.assertEqual(r.thread(202)['waiting_ns']['thread'], 0)
        self.assertEqual(r.thread(202)['runnable_ns'], 2 * US)
        sw = [v for v in r.js['vertices'] if v['kind'] == 'softirq']
        self.assertEqual(len(sw), 1, r.describe_vertices())
        self.assertTrue(sw[0]['name'].lower().startswith('softirq:tasklet'), sw[0]['name'])
        self.assertEdge(r, V, sw[0]['id'], 1500 * MS + 1 * US, count=1)
        self.assertFalse(r.has_edge(V, X))
        self.assertEqual(r.thread(203)['waiting_ns']['softirq'], 1500 * MS + 1 * US)

    def test_segments(self):
        out = run_segments(hardirq())
        for tid in (201, 202, 203):
            self.assertTiled(out, tid, 0, 3 * S)
        w = [s for s in segments_of(out, 202) if s['state'] == 'waiting']
        self.assertEqual(len(w), 1)
        self.assertEqual((w[0]['waker_name'], w[0]['waker_kind'], w[0]['duration']),
                         ('irq:24:virtio0', 'irq', 1 * S + 1 * US))


class TestTimer(Base):
    """T1 -> timer 1 s + 1 us (TIMER softirq), T2 -> timer 1.5 s + 1 us
    (hrtimer expiry), T3 -> timer 1.7 s + 1 us (HRTIMER softirq); none waits
    for X; timer is a category: no knot or sink contains T1..T3 or timer."""

    def test_report(self):
        r = self.knots(timers())
        X, T1, T2, T3 = (r.tid(t) for t in (301, 302, 303, 304))
        timer = r.vid(kind='timer')
        self.assertEqual(r.vertices[timer]['name'], 'timer')
        self.assertEdge(r, T1, timer, 1 * S + 1 * US, direct=1 * S + 1 * US, count=1)
        self.assertEdge(r, T2, timer, 1500 * MS + 1 * US, direct=1500 * MS + 1 * US, count=1)
        self.assertEdge(r, T3, timer, 1700 * MS + 1 * US, direct=1700 * MS + 1 * US, count=1)
        for t in (T1, T2, T3):
            self.assertFalse(r.has_edge(t, X), r.describe_edges())
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual(r.thread(302)['waiting_ns']['timer'], 1 * S + 1 * US)
        self.assertEqual(r.thread(303)['waiting_ns']['timer'], 1500 * MS + 1 * US)
        for k in r.js['knots']:
            for m in (T1, T2, T3, timer):
                self.assertNotIn(m, k['members'], r.describe_knots())


def softirq_daemon():
    """cc1 (501) runs on cpu0 all along. ksoftirqd/0 (3) runs on cpu1 and
    sleeps at 0.5 s. At 1 s an RCU softirq on cpu0 raises itself again and
    exits; at 1 s + 3 us, past its softirq_exit (the tail of __do_softirq),
    ksoftirqd/0 is woken; it runs at 1 s + 4 us and sleeps at 1.5 s. At 2 s
    an RCU softirq runs (nothing stays pending) and ksoftirqd/0 is woken at
    2 s + 2 us, runs at 2 s + 3 us. W (502, cpu2) sleeps at 1 s; at 2.5 s
    irq 24 raises TIMER on cpu0, and W is woken there at 2.5 s + 3 us, after
    the handler, and runs at 2.5 s + 4 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, K, W = s.thread(501, 'cc1'), s.thread(3, 'ksoftirqd/0'), s.thread(502, 'W')
    s.running(X, K, W)
    s.sleep(500 * MS, 1, K)
    s.softirq_entry(1 * S, 0, SOFTIRQ['RCU'])
    s.softirq_raise(1 * S + 1 * US, 0, SOFTIRQ['RCU'])
    s.softirq_exit(1 * S + 2 * US, 0, SOFTIRQ['RCU'])
    s.wake(1 * S + 3 * US, 0, K, target_cpu=1)
    s.run(1 * S + 4 * US, 1, K)
    s.sleep(1500 * MS, 1, K)
    s.sleep(1 * S, 2, W)
    s.softirq_entry(2 * S, 0, SOFTIRQ['RCU'])
    s.softirq_exit(2 * S + 1 * US, 0, SOFTIRQ['RCU'])
    s.wake(2 * S + 2 * US, 0, K, target_cpu=1)
    s.run(2 * S + 3 * US, 1, K)
    s.irq_entry(2500 * MS, 0, 24, 'virtio0')
    s.softirq_raise(2500 * MS + 1 * US, 0, SOFTIRQ['TIMER'])
    s.irq_exit(2500 * MS + 2 * US, 0, 24)
    s.wake(2500 * MS + 3 * US, 0, W, target_cpu=2)
    s.run(2500 * MS + 4 * US, 2, W)
    return s


class TestSoftirqDaemonWaitsForSoftirqs(Base):
    """ksoftirqd/0's wait [0.5 s, 1 s + 3 us] ends when __do_softirq leaves
    RCU pending: ksoftirqd/0 -> softirq:RCU = 500 003 000 ns, not -> cc1,
    which it interrupted. Its wait [1.5 s, 2 s + 2 us], with nothing
    pending, keeps the method's rule: -> cc1 = 500 002 000 ns. Only
    ksoftirqd is woken for pending softirqs: W -> cc1 = 1 500 003 000 ns
    although TIMER is pending when W is woken."""

    def test_report(self):
        r = self.knots(softirq_daemon())
        X, K, W = r.tid(501), r.tid(3), r.tid(502)
        rcu = r.vid(name='softirq:RCU')
        self.assertEdge(r, K, rcu, 500 * MS + 3 * US, direct=500 * MS + 3 * US, count=1)
        self.assertEdge(r, K, X, 500 * MS + 2 * US, direct=500 * MS + 2 * US, count=1)
        self.assertEdge(r, W, X, 1500 * MS + 3 * US, direct=1500 * MS + 3 * US, count=1)
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual(r.thread(3)['waiting_ns']['softirq'], 500 * MS + 3 * US)

    def test_without_raise_events(self):
        # A trace without irq_softirq_raise: the running thread, as before.
        scn = softirq_daemon()
        scn.events = [e for e in scn.events if e[3] != 'irq_softirq_raise']
        r = self.knots(scn)
        X, K = r.tid(501), r.tid(3)
        self.assertEdge(r, K, X, 1 * S + 5 * US, direct=1 * S + 5 * US, count=2)
        self.assertFalse(any(v['name'] == 'softirq:RCU' for v in r.js['vertices']),
                         r.describe_vertices())


def loopback():
    """A client C (701, cpu0) and a server V (702, cpu1) over loopback,
    and a packet from a real NIC. V sleeps at 0. At 100 ms C sends on lo:
    it raises NET_RX, net_dev_xmit(lo), and the softirq runs at once in
    C's context (do_softirq from local_bh_enable), netif_receive_skb(lo),
    and wakes V. C sleeps at 150 ms; at 300 ms eth0's irq 30 raises NET_RX
    on cpu0, the softirq receives on eth0 and wakes C. V sleeps at 400 ms;
    at 500 ms C sends on lo again, is preempted by ksoftirqd/0 (3) at
    510 ms, which runs the softirq and wakes V at 520 ms. Trace [0, 1 s]."""
    s = Scenario(ncpus=2, end=1 * S)
    C, V, K = s.thread(701, 'client'), s.thread(702, 'server'), s.thread(3, 'ksoftirqd/0')
    s.run(0, 0, C)
    s.run(0, 1, V)
    s.sleep(0, 1, V)
    s.softirq_raise(100 * MS, 0, SOFTIRQ['NET_RX'])
    s.net_xmit(100 * MS + 1 * US, 0, 'lo', 1000)
    s.softirq_entry(100 * MS + 2 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(100 * MS + 3 * US, 0, 'lo', 1000)
    s.wake(100 * MS + 4 * US, 0, V, target_cpu=1)
    s.softirq_exit(100 * MS + 5 * US, 0, SOFTIRQ['NET_RX'])
    s.run(100 * MS + 10 * US, 1, V)
    s.sleep(150 * MS, 0, C)
    s.irq_entry(300 * MS, 0, 30, 'virtio0-input.0')
    s.softirq_raise(300 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.irq_exit(300 * MS + 2 * US, 0, 30)
    s.softirq_entry(300 * MS + 3 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(300 * MS + 4 * US, 0, 'eth0', 1500)
    s.wake(300 * MS + 5 * US, 0, C)
    s.softirq_exit(300 * MS + 6 * US, 0, SOFTIRQ['NET_RX'])
    s.run(300 * MS + 10 * US, 0, C)
    s.sleep(400 * MS, 1, V)
    s.softirq_raise(500 * MS, 0, SOFTIRQ['NET_RX'])
    s.net_xmit(500 * MS + 1 * US, 0, 'lo', 1000)
    s.preempt(510 * MS, 0, C, K)
    s.softirq_entry(510 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(510 * MS + 2 * US, 0, 'lo', 1000)
    s.wake(520 * MS, 0, V, target_cpu=1)
    s.softirq_exit(520 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.run(520 * MS + 10 * US, 1, V)
    return s


class TestLoopbackSender(Base):
    """Over loopback the sender wakes the receiver: the receive softirq
    runs right after loopback_xmit(), on the sender's CPU, in its context
    or ksoftirqd's (wperf-analysis(7), Network interfaces). V -> C =
    100 ms + 4 us + 120 ms, whichever context ran the softirq; nothing
    waits on nic:lo. A packet from eth0 (raised in its hard irq) stays the
    NIC's: C -> nic:eth0 = 150 ms + 5 us."""

    def test_report(self):
        r = self.knots(loopback())
        C, V = r.tid(701), r.tid(702)
        eth0 = r.vid(name='nic:eth0')
        self.assertEdge(r, V, C, 220 * MS + 4 * US, direct=220 * MS + 4 * US, count=2)
        self.assertEdge(r, C, eth0, 150 * MS + 5 * US, direct=150 * MS + 5 * US, count=1)
        lo = [v['id'] for v in r.js['vertices'] if v['name'] == 'nic:lo']
        self.assertFalse([e for e in r.js['edges'] if e['to'] in lo], r.describe_edges())

    def test_without_net_events(self):
        # Without net events the device is unknown: the softirq's `net`.
        scn = loopback()
        scn.events = [e for e in scn.events if e[3] not in ('net_dev_xmit',
                                                            'netif_receive_skb')]
        r = self.knots(scn)
        net = r.vid(name='net')
        self.assertEdge(r, r.tid(702), net, 220 * MS + 4 * US, count=2)


def nic_receive(s, t, cpu, dev, woken, irq=30):
    """A packet from dev, its hard irq raising NET_RX on cpu, whose softirq
    receives it and wakes `woken` 5 us after t."""
    s.irq_entry(t, cpu, irq, dev + '-input.0')
    s.softirq_raise(t + 1 * US, cpu, SOFTIRQ['NET_RX'])
    s.irq_exit(t + 2 * US, cpu, irq)
    s.softirq_entry(t + 3 * US, cpu, SOFTIRQ['NET_RX'])
    s.net_recv(t + 4 * US, cpu, dev, 1500)
    s.wake(t + 5 * US, cpu, woken)
    s.softirq_exit(t + 6 * US, cpu, SOFTIRQ['NET_RX'])


class TestSmallerWaitsRow(Base):
    """A downloader W (801) waits for eth0 [100 ms, 900 ms] and twice for
    eth1, 5 ms each ([950, 955] and [960, 965] ms), under the noise floor
    (1% of 2 s = 20 ms); a busy thread B (802) runs on cpu1. The sink
    nic:eth0's table shows W -> nic:eth0 800 ms + 5 us, and the row
    "W -> smaller nic waits" the 10 ms + 10 us of the two eth1 waits: the
    threads table's w:nic for W (810 ms) is their sum."""

    def scenario(self):
        s = Scenario(ncpus=2, end=2 * S)
        W, B = s.thread(801, 'downloader'), s.thread(802, 'busy')
        s.run(0, 0, W)
        s.run(0, 1, B)
        for begin, end, dev, irq in ((100 * MS, 900 * MS, 'eth0', 30),
                                     (950 * MS, 955 * MS, 'eth1', 31),
                                     (960 * MS, 965 * MS, 'eth1', 31)):
            s.sleep(begin, 0, W)
            nic_receive(s, end, 0, dev, W, irq=irq)
            s.run(end + 10 * US, 0, W)
        return s

    def test_rows_add_up(self):
        r = self.knots(self.scenario())
        w, eth0, eth1 = r.tid(801), r.vid(name='nic:eth0'), r.vid(name='nic:eth1')
        self.assertEdge(r, w, eth0, 800 * MS + 5 * US, direct=800 * MS + 5 * US, count=1)
        self.assertEdge(r, w, eth1, 10 * MS + 10 * US, direct=10 * MS + 10 * US, count=2)
        text = run_knots_text(self.scenario())
        self.assertRegex(text, r'\n  downloader \(801\) -> nic:eth0 +800 ms +800 ms +40\.0% +1 ')
        self.assertRegex(text, r'\n  downloader \(801\) -> smaller nic waits +10\.0 ms +10\.0 ms '
                         r'+0\.5% +2  1 edge below the noise floor\n')
        self.assertRegex(text, r'\n  downloader \(801\) .* 810ms +- +- +-\n')


def untraced_timers(timer_events=False):
    """A trace without timer expiry events (iscsid's timeouts in
    ref-basic-kernel-analysis). dd (801) runs on cpu0 all along. T (802,
    cpu1) sleeps at 0 and is woken at 1 s from cpu1's idle task (a timer
    the trace does not show: untraced-interrupt), runs, sleeps at 1.1 s and
    is woken at 2.1 s on cpu0, where dd runs: T -> dd 1 s, which may be the
    same timer firing on a busy CPU. U (803, cpu2) sleeps at 0 and is woken
    by dd at 0.5 s (a wakeup of dd's own; U is never woken by anything
    unseen). With timer_events, an hrtimer expiry elsewhere (cpu2, 2.5 s)
    says the trace records them. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, T, U = s.threads(801, 'dd', 'iscsid', 'U')
    s.running(X, T, U)
    s.sleep(0, 1, T)
    s.sleep(0, 2, U)
    s.wake(500 * MS, 0, U, target_cpu=2)
    s.run(500 * MS, 2, U)
    s.wake(1 * S, 1, T)
    s.run(1 * S, 1, T)
    s.sleep(1100 * MS, 1, T)
    s.wake(2100 * MS, 0, T, target_cpu=1)
    s.run(2100 * MS, 1, T)
    if timer_events:
        s.ev(2500 * MS, 2, 'timer_hrtimer_expire_entry', hrtimer=1, now=2500 * MS, function=2)
        s.ev(2500 * MS + 1 * US, 2, 'timer_hrtimer_expire_exit', hrtimer=1)
    return s


class TestUntracedTimers(Base):
    """Without timer expiry events, T -> dd (T is also woken by interrupts
    the trace does not show) may be a timer charged to the thread it hit:
    JSON may_be_timer, the text marks the row and says why under the table
    and in Data quality. U -> dd (U never woken unseen) is not marked. With
    timer events recorded nothing is marked (wperf-analysis(7), Untraced
    timers)."""

    def test_marked(self):
        r = self.knots(untraced_timers())
        X, T, U = r.tid(801), r.tid(802), r.tid(803)
        self.assertFalse(r.js['quality']['has_timer_events'])
        self.assertTrue(self.assertEdge(r, T, X, 1 * S)['may_be_timer'])
        self.assertFalse(self.assertEdge(r, U, X, 500 * MS)['may_be_timer'])
        text = run_knots_text(untraced_timers())
        row = [ln for ln in text.splitlines() if ln.strip().startswith('iscsid (802) -> dd')]
        self.assertTrue(row and row[0].endswith('(timer?)'), text)
        self.assertIn('(timer?) the trace has no timer expiry events', text)
        self.assertIn('no timer expiry events (hrtimer_expire, timer_expire)', text)
        self.assertIn('1 edge marked (timer?)', ' '.join(text.split()))
        # The page marks the edge too, with what it means.
        html = run_knots_text(untraced_timers(), format='html')
        self.assertIn('<span class="timer">(timer?) the trace has no timer expiry events',
                      html)

    def test_with_timer_events(self):
        r = self.knots(untraced_timers(timer_events=True))
        self.assertTrue(r.js['quality']['has_timer_events'])
        self.assertFalse([e for e in r.js['edges'] if e['may_be_timer']], r.describe_edges())
        self.assertNotIn('(timer?)', run_knots_text(untraced_timers(timer_events=True)))


def service_threads():
    """sleep (601, cpu0) waits for Y (602, cpu2) over [1 s, 2 s]; at 2.5 s
    it wakes migration/0 (9, cpu1), asleep since 0.5 s (an exec asking to
    migrate). Z (603, cpu3) waits for rcuop/0 (10, cpu4) over [1 s, 1.5 s]
    (a synchronize_rcu()). true (604, cpu5) runs all along and wakes
    rcu_sched (11, cpu6), asleep since 0.3 s, at 2.8 s (a call_rcu()).
    Trace [0, 3 s]."""
    s = Scenario(ncpus=7, end=3 * S)
    X, M, Y = s.thread(601, 'sleep'), s.thread(9, 'migration/0'), s.thread(602, 'Y')
    Z, R = s.thread(603, 'Z'), s.thread(10, 'rcuop/0')
    W, G = s.thread(604, 'true'), s.thread(11, 'rcu_sched')
    s.running(X, M, Y, Z, R, W, G)
    s.sleep(300 * MS, 6, G)
    s.sleep(500 * MS, 1, M)
    s.sleep(1 * S, 0, X)
    s.sleep(1 * S, 3, Z)
    s.wake(1500 * MS, 4, Z, target_cpu=3)
    s.run(1500 * MS, 3, Z)
    s.wake(2 * S, 2, X, target_cpu=0)
    s.run(2 * S, 0, X)
    s.wake(2500 * MS, 0, M, target_cpu=1)
    s.run(2500 * MS, 1, M)
    s.wake(2800 * MS, 5, G, target_cpu=6)
    s.run(2800 * MS, 6, G)
    return s


class TestServiceThreadsWaitForWork(Base):
    """migration/0's wait [0.5 s, 2.5 s] ends when sleep gives it work:
    the edge migration/0 -> sleep (2 s) is in the graph but is no
    dependency, so sleep is no sink (nor is true, for rcu_sched's 2.5 s),
    and the wait does not cascade
    (sleep -> Y stays 1 s: cascaded, the overlap [1 s, 2 s] would add
    1 s). Waits on a service thread count: Z -> rcuop/0 makes rcuop/0 a
    sink (0.5 s)."""

    def test_report(self):
        r = self.knots(service_threads())
        X, M, Y, Z, R = (r.tid(t) for t in (601, 9, 602, 603, 10))
        self.assertEdge(r, M, X, 2 * S, direct=2 * S, count=1)
        self.assertEdge(r, X, Y, 1 * S, direct=1 * S, count=1)
        self.assertEdge(r, Z, R, 500 * MS, direct=500 * MS, count=1)
        self.assertEdge(r, r.tid(11), r.tid(604), 2500 * MS, count=1)
        sinks = [(k['members'], k['weight_ns']) for k in r.knots('sink')]
        self.assertEqual(sinks, [([Y], 1 * S), ([R], 500 * MS)], r.describe_knots())
        self.assertEqual(r.knots('knot'), [], r.describe_knots())
        r = self.knots(service_threads(), pids='601')
        sinks = [(k['members'], k['weight_ns']) for k in r.knots('sink')]
        self.assertEqual(sinks, [([Y], 1 * S)], r.describe_knots())

    def test_text(self):
        text = run_knots_text(service_threads())
        self.assertNotIn('migration/0 (9) ->', text)
        self.assertIn('ignored for knots: timer, unseen, too light, kernel idle)', text)


class TestDisk(Base):
    """W -> disk = its wait [1 s, 1.5 s + 2 us] = 500 002 000 ns.
    The request is in flight [1 s, 1.5 s + 1 us] (500 001 000 ns); the disk
    is idle for the rest of [0, 3 s]: disk -> W = 2 499 999 000 ns (W issued
    all the bytes), count 1 request. Knot {W, disk}."""

    def test_report(self):
        r = self.knots(disk())
        W, X = r.tid(401), r.tid(402)
        d = r.vid(kind='disk')
        self.assertTrue(r.vertices[d]['name'].startswith('disk:'), r.vertices[d]['name'])
        if 'busy_ns' in r.vertices[d]:
            self.assertEqual(r.vertices[d]['busy_ns'], 500_001_000)
            self.assertEqual(r.vertices[d]['bytes'], 4096)
        self.assertEdge(r, W, d, 500_002_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_499_999_000, count=1)
        self.assertFalse(r.has_edge(W, X), r.describe_edges())
        self.assertFalse(any(v['kind'] == 'irq' and r.has_edge(W, v['id'])
                             for v in r.js['vertices']), r.describe_edges())
        self.assertEqual(r.thread(401)['waiting_ns']['disk'], 500_002_000)
        knots = r.knots('knot')
        self.assertEqual(len(knots), 1, r.describe_knots())
        self.assertEqual(knots[0]['members'], sorted([W, d]))
        self.assertEqual(knots[0]['weight_ns'], 500_002_000 + 2_499_999_000)
        self.assertEqual(r.js['quality']['unmatched_block_completions'], 0)

    def test_segments(self):
        out = run_segments(disk())
        self.assertTiled(out, 401, 0, 3 * S)
        w = [s for s in segments_of(out, 401) if s['state'] == 'waiting']
        self.assertEqual(len(w), 1)
        self.assertEqual((w[0]['waker_kind'], w[0]['start'], w[0]['duration']),
                         ('disk', 1 * S, 500_002_000))


def starved_writer(hog=True):
    """A writer starved of CPU, on 2 CPUs, trace [0, 10 s]: W (501)
    runs on cpu0 [0, 1 s], writes 4 KiB to 8:0 at 1 s and sleeps (D);
    H1 (502) takes cpu0 then. The request completes at 3 s + 1 us in irq 25
    on cpu1, where H2 (503) runs all along, and W is woken at 3 s + 2 us.
    With hog, H1 keeps cpu0 until W preempts it at 9 s: W is runnable
    [3 s + 2 us, 9 s]; without, H1 sleeps at 3 s + 3 us and W runs then."""
    s = Scenario(ncpus=2, end=10 * S)
    W, H1, H2 = s.thread(501, 'writer'), s.thread(502, 'hog'), s.thread(503, 'spinner')
    s.run(0, 0, W)
    s.run(0, 1, H2)
    s.block_issue(1 * S, 0, W, DISK, 0, 8)
    s.sleep(1 * S, 0, W, next_tid=H1, state=2)
    s.irq_entry(3 * S, 1, 25, 'virtio1')
    s.block_complete(3 * S + 1 * US, 1, DISK, 0, 8)
    s.wake(3 * S + 2 * US, 1, W, target_cpu=0)
    s.irq_exit(3 * S + 3 * US, 1, 25)
    if hog:
        s.preempt(9 * S, 0, H1, W)
    else:
        s.sleep(3 * S + 3 * US, 0, H1, next_tid=W)
    return s


class TestCpuFirst(Base):
    """A writer runnable most of its time is reported CPU
    first, not only as its disk (wperf-analysis(7), The CPUs)."""

    def test_report(self):
        r = self.knots(starved_writer(), pids='501')
        W, H1, H2 = r.tid(501), r.tid(502), r.tid(503)
        # W: running [0, 1] + [9, 10] = 2 s; on the disk [1 s, 3 s + 2 us];
        # runnable [3 s + 2 us, 9 s], woken by the disk: its first lost turn
        # (24 ms) is the disk wait's cost, the rest a wait for the CPU.
        t = r.thread(501)
        self.assertEqual((t['running_ns'], t['runnable_ns'], t['waiting_ns']['disk'],
                          t['woken_cpu_wait_ns']),
                         (2 * S, 6 * S - 2 * US, 2 * S + 2 * US, TURN))
        q = 6 * S - 2 * US - TURN
        cpu = r.js['cpu']
        self.assertEqual(cpu, {'first': True, 'threads': 1, 'runnable_ns': q,
                               'wake_latency_ns': 0,
                               'waiting_ns': 2 * S + 2 * US, 'waited_on_runnable_ns': 0,
                               # (r + q) / T of q and of d + the turn
                               'weighted_runnable_ns': (2 * S + q) * q // (10 * S),
                               'weighted_waiting_ns': (2 * S + q) * (2 * S + 2 * US + TURN)
                               // (10 * S),
                               'span_ns': 10 * S,
                               # the trace does not say W's process
                               'most_runnable_pid': -1,
                               'most_runnable_process_ns': q,
                               'most_runnable': [W],
                               # H2 ran [0, 10 s], H1 [1 s, 9 s]
                               'others_running_ns': 18 * S, 'own_running_ns': 2 * S, 'others': [H2, H1]},
                         r.describe_knots())
        # The disk is still what W waits on: its knot is still reported.
        self.assertTrue([k for k in r.knots() if r.vid(name='disk:8:0') in k['members']],
                        r.describe_knots())
        text = run_knots_text(starved_writer(), pids='501')
        first = text.index('First: the CPUs. Too few CPUs, or other load')
        self.assertLess(first, min(text.index(x) for x in ('Knot 1', 'Sink 1') if x in text))
        self.assertRegex(text, r'; first: the CPUs\n')
        words = ' '.join(text.split())
        self.assertIn('1 thread of the focus was runnable (ready, waiting for a CPU) 5.98 s in '
                      'all, 59.8% of the 10.0 s they existed, and waited 2.00 s on threads, '
                      'devices and interrupts, 0 ns of it on threads that were themselves '
                      'runnable. Each weighed by the share of its time it asked for a CPU, '
                      'waiting for a CPU (4.77 s) outweighs the other waits (1.61 s)', words)
        self.assertIn('Most runnable: writer (501) 5.98 s.', words)
        self.assertIn('Meanwhile other threads ran 18.0 s on the CPUs: spinner (503) 10.0 s, '
                      'hog (502) 8.00 s.', words)
        # The HTML page says all of it, in the same words (the trial found
        # its paragraph without the other threads and the advice).
        html = run_knots_text(starved_writer(), pids='501', format='html')
        para = html[html.index('<h3>First: the CPUs'):]
        para = ' '.join(para[:para.index('</div>')].split())
        for sentence in ('Most runnable: writer (501) 5.98 s.',
                         'Meanwhile other threads ran 18.0 s on the CPUs: spinner (503) 10.0 s, '
                         'hog (502) 8.00 s.',
                         'Give them CPUs or priority, or move the other load away; the knots and '
                         'sinks below are what they wait on once they run.'):
            self.assertIn(sentence, words)
            self.assertIn(sentence, para)

    def test_not_first_when_it_runs(self):
        # H1 gives the CPU back at once: W is runnable 1 us after its disk
        # woke it, the disk wait's cost, not a wait for a CPU.
        r = self.knots(starved_writer(hog=False), pids='501')
        cpu = r.js['cpu']
        self.assertEqual((cpu['first'], cpu['runnable_ns']), (False, 0))
        self.assertEqual(r.thread(501)['woken_cpu_wait_ns'], 1 * US)
        text = run_knots_text(starved_writer(hog=False), pids='501')
        self.assertNotIn('First: the CPUs', text)


class TestDiskZeroByteIssuer(Base):
    """The disk scenario plus K (403, cpu1 instead of X), which issues a
    0-byte flush at 2 s completed at 2.1 s (irq on cpu1, nobody woken) and
    never waits. In flight: [1 s, 1.5 s + 1 us] and [2 s, 2.1 s]; idle
    3 s - 500 001 000 - 100 000 000 = 2 399 999 000 ns, all of it W's (W
    issued all the bytes, K none: wperf-method(7) §5 distributes by bytes). K gets
    no edge from the disk (a 0 ns wait is no wait), so {W, disk} stays a
    knot."""

    def scenario(self):
        s = Scenario(ncpus=2, end=3 * S)
        W, K = s.thread(401, 'W'), s.thread(403, 'K')
        s.run(0, 0, W)
        s.run(0, 1, K)
        s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
        s.block_issue(2 * S, 1, K, DISK, 0, 0)
        s.irq_entry(2100 * MS, 1, 25, 'virtio1')
        s.block_complete(2100 * MS, 1, DISK, 0, 0)
        s.irq_exit(2100 * MS + 1 * US, 1, 25)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        W, K = r.tid(401), r.tid(403)
        d = r.vid(kind='disk')
        self.assertEdge(r, W, d, 500_002_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_399_999_000)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots], [sorted([W, d])],
                         'knots: %s; edges: %s' % (r.describe_knots(), r.describe_edges()))
        # K issued one request and no byte: either no edge disk -> K, or one
        # of weight 0 that counts K's request (graph.h: count = I/O requests
        # for disk -> thread).
        if r.has_edge(d, K):
            self.assertEdge(r, d, K, 0, direct=0, count=1)


class TestWaitOnADiskWaiter(Base):
    """The disk scenario plus a client C (403, cpu2) that sleeps at 0.5 s
    until W, back from its disk wait, wakes it at 2 s. C -> W = 1.5 s. W's
    disk wait [1 s, 1.5 s + 2 us] lies inside C's wait, so C waits on the
    disk through W (wperf-method(7) §4, §5 "with their cascade"): W -> disk =
    500 002 000 direct + 500 002 000 cascaded. Knot {W, disk}; C is not in
    it (nothing waits on C)."""

    def scenario(self):
        s = Scenario(ncpus=3, end=3 * S)
        W, X, C = s.thread(401, 'W'), s.thread(402, 'X'), s.thread(403, 'C')
        s.run(0, 0, W)
        s.run(0, 1, X)
        s.run(0, 2, C)
        s.sleep(500 * MS, 2, C)
        s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
        s.wake(2 * S, 0, C, target_cpu=2)
        s.run(2 * S + 1 * US, 2, C)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        W, C = r.tid(401), r.tid(403)
        d = r.vid(kind='disk')
        self.assertEdge(r, C, W, 1500 * MS, direct=1500 * MS, count=1)
        self.assertEdge(r, W, d, 1_000_004_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_499_999_000, count=1)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots], [sorted([W, d])], r.describe_knots())

    def test_segments(self):
        out = run_segments(self.scenario())
        self.assertTiled(out, 403, 0, 3 * S)
        self.assertSegs(out, 403, [('running', 0, 500 * MS, None, None),
                                   ('waiting', 500 * MS, 1500 * MS, 'W', 500_002_000),
                                   ('runnable', 2 * S, 1 * US, None, None),
                                   ('running', 2 * S + 1 * US, 1 * S - 1 * US, None, None)])


class TestExitThenSwitch(Base):
    """Real kernels switch a task out after sched_process_exit (preempted,
    then a last time with prev_state 16, dead) and free its tid later.
    A (101, cpu0) exits at 1 s, is preempted by B (102) at 1.1 s, runs again
    at 1.2 s and is switched out dead at 1.3 s; sched_process_free at 1.5 s.
    One vertex for tid 101, lifetime [0, 1.3 s]: running [0, 1.1] + [1.2, 1.3],
    runnable [1.1, 1.2]. Trace [0, 2 s]."""

    def scenario(self):
        s = Scenario(ncpus=2, end=2 * S)
        A, B = s.thread(101, 'A'), s.thread(102, 'B')
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.sleep(500 * MS, 1, B)          # B waits for A over [0.5, 0.6]
        s.wake(600 * MS, 0, B, target_cpu=1)
        s.run(600 * MS, 1, B)
        s.exit(1 * S, 0, A)
        s.sleep(1050 * MS, 1, B)
        s.preempt(1100 * MS, 0, A, 0)
        s.run(1200 * MS, 0, A)
        s.switch(1300 * MS, 0, A, 0, prev_state=16)
        s.ev(1500 * MS, 0, 'sched_process_free', comm='A', tid=A, prio=20)
        s.wake(1600 * MS, 0, B, target_cpu=1)   # from swapper: B's waker is... idle
        s.run(1600 * MS, 1, B)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        vs = [v for v in r.js['vertices'] if v['kind'] == 'thread' and v['tid'] == 101]
        self.assertEqual(len(vs), 1, 'tid 101 has %d vertices: %s' % (len(vs),
                                                                     r.describe_vertices()))
        t = r.thread(101)
        self.assertEqual((t['first_ns'], t['last_ns']), (0, 1300 * MS))
        self.assertEqual((t['running_ns'], t['runnable_ns']), (1200 * MS, 100 * MS))
        self.assertEdge(r, r.tid(102), r.tid(101), 100 * MS, direct=100 * MS, count=1)


class TestRawTaskDead(Base):
    """Kernels that report the raw task state say a task's last switch is
    TASK_DEAD: 64 before Linux 4.14 (ref-basic-kernel-analysis, 4.4, which
    has no sched_process_exit), 128 from 4.14 with lttng-modules
    (bt-lttng-tracefile-rotation, 4.15). A (101, cpu0) runs [0, 1 s] and
    leaves the CPU with that state; B (102, cpu1) runs but for a wait on A
    over [0.2, 0.3]. Trace
    [0, 2 s]. A dead thread's lifetime ends at 1 s; one not known dead
    waits, its wait open at the end."""

    def scenario(self, release, state, exits):
        s = Scenario(ncpus=2, end=2 * S, kernel_release=release)
        A, B = s.thread(101, 'A'), s.thread(102, 'B')
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.sleep(200 * MS, 1, B)          # B waits for A over [0.2, 0.3]
        s.wake(300 * MS, 0, B, target_cpu=1)
        s.run(300 * MS, 1, B)
        if exits:
            s.exit(900 * MS, 0, A)
        s.switch(1 * S, 0, A, 0, prev_state=state)
        return s

    def assertDead(self, r, dead):
        t = r.thread(101)
        self.assertEqual(t['running_ns'], 1 * S)
        if dead:
            self.assertEqual(t['last_ns'], 1 * S)
            self.assertEqual(t['waiting_ns']['unknown'], 0)
            self.assertEqual(r.js['quality']['waits_open_at_end'], 0)
        else:
            self.assertEqual(t['last_ns'], 2 * S)
            self.assertEqual(t['waiting_ns']['unknown'], 1 * S)
            self.assertEqual(r.js['quality']['waits_open_at_end'], 1)

    def test_64_before_4_14_without_exit(self):
        self.assertDead(self.knots(self.scenario('4.4.0-116-generic', 64, False)), True)

    def test_64_from_4_14_is_a_parked_thread(self):
        self.assertDead(self.knots(self.scenario('4.15.0-65-generic', 64, False)), False)

    def test_128_after_exit(self):
        self.assertDead(self.knots(self.scenario('4.15.0-65-generic', 128, True)), True)

    def test_128_without_exit_is_an_idle_thread(self):
        self.assertDead(self.knots(self.scenario('6.1.0-scenario', 128, False)), False)


class TestOpenWait(Base):
    """A wait still open at the end ends at the end with waker `unknown`:
    A (101) sleeps at 1 s and is never woken; trace [0, 2 s]. (C (103) waits
    [0.5 s, 0.7 s] for B so that the trace has wakeups at all.)"""

    def test_report(self):
        s = Scenario(ncpus=3, end=2 * S)
        A, B, C = s.thread(101, 'A'), s.thread(102, 'B'), s.thread(103, 'C')
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.run(0, 2, C)
        s.sleep(500 * MS, 2, C)
        s.wake(700 * MS, 1, C)
        s.run(700 * MS, 2, C)
        s.sleep(1 * S, 0, A)
        r = self.knots(s)
        unk = r.vid(kind='unknown')
        self.assertEdge(r, r.tid(101), unk, 1 * S, direct=1 * S, count=1)
        self.assertEdge(r, r.tid(103), r.tid(102), 200 * MS, direct=200 * MS, count=1)
        self.assertEqual(r.thread(101)['waiting_ns']['unknown'], 1 * S)
        self.assertEqual(r.thread(101)['last_ns'], 2 * S)
        self.assertEqual(r.js['quality']['waits_open_at_end'], 1)
        for k in r.js['knots']:
            self.assertNotIn(unk, k['members'])


def sink_limits():
    """Three threads that others wait on and that wait on nothing in the
    graph, each for its own reason. Trace [0, 2 s], one CPU each.
    - sleeper (201): sleeps at 0.2 s, an hrtimer expiry on its CPU wakes it
      at 1.2 s + 1 us; P1 (211) waits for it [0.1 s, 1.3 s].
    - hung (202): wakes P2 (212) at 0.15 s (P2 slept at 0.1 s), sleeps at
      0.2 s and is never woken: 1.8 s on `unknown`.
    - worker (203): runs all along; P3 (213) waits for it [0.5 s, 1.5 s]."""
    s = Scenario(ncpus=6, end=2 * S)
    L, H, W = s.thread(201, 'sleeper'), s.thread(202, 'hung'), s.thread(203, 'worker')
    P1, P2, P3 = s.thread(211, 'P1'), s.thread(212, 'P2'), s.thread(213, 'P3')
    s.running(L, H, W, P1, P2, P3)
    s.sleep(100 * MS, 3, P1)
    s.sleep(200 * MS, 0, L)
    s.hrtimer_entry(1200 * MS, 0)
    s.wake(1200 * MS + 1 * US, 0, L)
    s.hrtimer_exit(1200 * MS + 2 * US, 0)
    s.run(1200 * MS + 3 * US, 0, L)
    s.wake(1300 * MS, 0, P1, target_cpu=3)
    s.run(1300 * MS, 3, P1)
    s.sleep(100 * MS, 4, P2)
    s.wake(150 * MS, 1, P2, target_cpu=4)
    s.run(150 * MS, 4, P2)
    s.sleep(200 * MS, 1, H)
    s.sleep(500 * MS, 5, P3)
    s.wake(1500 * MS, 2, P3, target_cpu=5)
    s.run(1500 * MS, 5, P3)
    return s


class TestSinkLimits(Base):
    """A sink waits on nothing in the graph; the report says whether that
    is its work (it ran), time (it slept on timers) or what the trace does
    not show (it waited on `unknown`), from where at least half of its
    time went."""

    def test_limits(self):
        r = self.knots(sink_limits())
        sinks = {r.vname(k['members'][0]): k for k in r.knots('sink')}
        self.assertEqual(sinks['sleeper(201)']['limit'], 'timer', r.describe_knots())
        self.assertEqual(sinks['hung(202)']['limit'], 'unseen', r.describe_knots())
        self.assertEqual(sinks['worker(203)']['limit'], 'work', r.describe_knots())
        # And what kind of sink each is (wperf-report(7), Sink kinds).
        self.assertEqual([sinks[n]['sink_kind'] for n in ('sleeper(201)', 'hung(202)',
                                                          'worker(203)')],
                         ['timer', 'unseen', 'thread_work'])
        # sleeper: 1 s + 1 us on the timer of its 2 s; hung: 1.8 s of 2 s.
        self.assertEqual(r.thread(201)['waiting_ns']['timer'], 1 * S + 1 * US)
        self.assertEqual(r.thread(202)['waiting_ns']['unknown'], 1800 * MS)

    def test_text(self):
        text = ' '.join(run_knots_text(sink_limits()).split())
        self.assertIn('it waits for nothing in the graph but timers: 1.00 s of its 2.00 s '
                      'went to sleeps and timeouts, so time paces it, not another thread.',
                      text)
        self.assertIn('it waits for nothing in the graph the trace shows: 1.80 s of its '
                      '2.00 s it waited on `unknown` (a wait still open at the end of the '
                      'trace, or one whose end it did not show).', text)
        self.assertIn('it waits for nothing in the graph. A thread bounded by its own work: '
                      'of its', text)


def hand_over(timer_ms, rounds=10, beside=False):
    """A (301) and B (302) hand work back and forth on one CPU, 100 ms a
    round: A runs 30 ms and wakes B; B runs 30 ms, sleeps on a timer for
    `timer_ms` ms (at most 40), runs the rest of the round and wakes A.
    Between them they use (100 - timer_ms)% of one CPU. beside: C (303)
    and D (304) of the same process hand work back and forth on CPU 1,
    50 ms each, busy all along: other work, which does not wait on A or B."""
    s = Scenario(ncpus=2 if beside else 1, end=rounds * 100 * MS)
    A, B = s.thread(301, 'A'), s.thread(302, 'B')
    s.run(0, 0, B)
    s.sleep(0, 0, B, next_tid=A)
    if beside:
        C, D = s.thread(303, 'C', pid=301), s.thread(304, 'D', pid=301)
        s.run(0, 1, D)
        s.sleep(0, 1, D, next_tid=C)
        for h in range(2 * rounds - 1):
            t = (h + 1) * 50 * MS
            runs, waits = (C, D) if h % 2 == 0 else (D, C)
            s.wake(t, 1, waits)
            s.sleep(t, 1, runs, next_tid=waits)
    for r in range(rounds):
        t = r * 100 * MS
        s.wake(t + 30 * MS, 0, B)
        s.sleep(t + 30 * MS, 0, A, next_tid=B)
        s.sleep(t + 60 * MS, 0, B)
        s.hrtimer_entry(t + 60 * MS + timer_ms * MS, 0)
        s.wake(t + 60 * MS + timer_ms * MS + 1 * US, 0, B)
        s.hrtimer_exit(t + 60 * MS + timer_ms * MS + 2 * US, 0)
        s.run(t + 60 * MS + timer_ms * MS + 3 * US, 0, B)
        if r + 1 < rounds:
            s.wake(t + 100 * MS, 0, A)
            s.sleep(t + 100 * MS, 0, B, next_tid=A)
    return s


class TestBackgroundNearOneCpu(Base):
    """Two threads handing work back and forth use less than one CPU by
    construction. Beside other work that does not wait on them they are
    background (wperf-method(7) §7); just under one CPU, the report says
    they may be workers rather than heartbeats. Alone, they are the work
    there is: a knot, however little CPU it uses (wperf-analysis(7),
    "Background knots"), as a single-threaded server and its client are."""

    def test_pair_alone_is_the_work(self):
        for timer_ms in (5, 35):
            r = self.knots(hand_over(timer_ms))
            self.assertEqual(r.knots('background'), [], r.describe_knots())
            self.assertEqual([sorted(k['members']) for k in r.knots('knot')],
                             [sorted([r.tid(301), r.tid(302)])], r.describe_knots())
            focused = self.knots(hand_over(timer_ms), pids='301')
            self.assertEqual(focused.knots('background'), [], focused.describe_knots())

    def test_busy_pair(self):
        r = self.knots(hand_over(5, beside=True))
        bg = r.knots('background')
        self.assertEqual(len(bg), 1, r.describe_knots())
        self.assertEqual(sorted(bg[0]['members']), sorted([r.tid(301), r.tid(302)]))
        self.assertGreaterEqual(bg[0]['cpu_share'], 0.9, bg[0])
        text = ' '.join(run_knots_text(hand_over(5, beside=True)).split())
        self.assertIn('Only just under one CPU, though: threads that hand work back and '
                      'forth', text)
        html = ' '.join(run_knots_text(hand_over(5, beside=True), format='html').split())
        self.assertIn('Only just under one CPU, though: threads that hand work back and '
                      'forth', html)

    def test_idle_pair(self):
        r = self.knots(hand_over(35, beside=True))
        bg = r.knots('background')
        self.assertEqual(len(bg), 1, r.describe_knots())
        self.assertLess(bg[0]['cpu_share'], 0.9, bg[0])
        self.assertNotIn('Only just under one CPU',
                         run_knots_text(hand_over(35, beside=True)))
        self.assertNotIn('Only just under one CPU',
                         run_knots_text(hand_over(35, beside=True), format='html'))


class TestWorkFromADevice(Base):
    """A kworker's wait for work (TASK_IDLE, 128) is no dependency when a
    thread gives it the work, but it is when a disk's completion does:
    fio's fsync waited for the kworker that ran the disk's completion
    work, and the kworker, idle until the disk completed, is the disk's
    path, not a sink of its own. W (101) issues a write at 0.1 s and
    sleeps (D) until K (201, kworker/u8:3) wakes it at 0.5 s + 10 us; K
    sleeps idle from 0.05 s until the disk's completion interrupt at 0.5
    s wakes it; later K sleeps idle again and W wakes it (work queued by
    a thread) at 0.8 s. Trace [0, 1 s]."""

    def scenario(self):
        s = Scenario(ncpus=2, end=1 * S)
        W, K = s.thread(101, 'writer'), s.thread(201, 'kworker/u8:3')
        s.run(0, 0, W)
        s.run(0, 1, K)
        s.sleep(50 * MS, 1, K, state=128)
        s.block_issue(100 * MS, 0, W, DISK, 1000, 8)
        s.sleep(100 * MS, 0, W, state=2)     # D
        s.irq_entry(500 * MS, 1, 25, 'virtio1')
        s.block_complete(500 * MS + 1 * US, 1, DISK, 1000, 8)
        s.wake(500 * MS + 2 * US, 1, K, target_cpu=1)
        s.irq_exit(500 * MS + 3 * US, 1, 25)
        s.run(500 * MS + 4 * US, 1, K)
        s.wake(500 * MS + 10 * US, 1, W, target_cpu=0)
        s.run(500 * MS + 12 * US, 0, W)
        s.sleep(600 * MS, 1, K, state=128)
        s.wake(800 * MS, 0, K, target_cpu=1)
        s.run(800 * MS + 2 * US, 1, K)
        return s

    def test_device_work_is_a_dependency(self):
        r = self.knots(self.scenario())
        W, K, D = r.tid(101), r.tid(201), r.vid(name='disk:8:0')
        kd = r.edge(K, D)
        self.assertEqual((kd['direct_ns'], kd['idle_ns']), (450 * MS + 2 * US, 0))
        wk = r.edge(W, K)
        self.assertEqual(wk['direct_ns'], 400 * MS + 10 * US)
        # Work queued by the writer: a wait for work, kept apart.
        kw = r.edge(K, W)
        self.assertEqual((kw['weight_ns'], kw['idle_ns']), (0, 200 * MS))


class TestFocusNeverWaited(Base):
    """A focused program that never waits (CPU-bound) gets no knot or sink,
    and the report says why: nothing to analyse off-CPU, not "timers"."""

    def test_text(self):
        s = Scenario(ncpus=2, end=2 * S)
        busy, napper = s.thread(100, 'busy'), s.thread(101, 'napper')
        s.run(0, 0, busy)
        s.run(0, 1, napper)
        s.sleep(500 * MS, 1, napper)
        s.hrtimer_entry(1 * S, 1)
        s.wake(1 * S + 1 * US, 1, napper)
        s.hrtimer_exit(1 * S + 2 * US, 1)
        s.run(1 * S + 3 * US, 1, napper)
        text = ' '.join(run_knots_text(s, pids='100').split())
        self.assertIn('No knots and no sinks were found. The focus threads never waited: '
                      'they ran, or waited for a CPU, all along.', text)
        # The napper did wait, on a timer: that is the reason given.
        text = ' '.join(run_knots_text(s, pids='101').split())
        self.assertIn('The only edge ends at `timer` or `unknown`', text)
        self.assertNotIn('never waited', text)


class TestWakeupNewNames(Base):
    """sched_wakeup_new is the only event that names N (201, "newbie"):
    no fork, no statedump, and N is still runnable when the trace ends.
    A (101) runs on cpu0 throughout and wakes N at 0.5 s (target cpu1,
    which B (102) keeps busy); trace [0, 1 s]. (B waits [0.2 s, 0.3 s] for
    A so that the trace has wakeups at all.)"""

    def test_report(self):
        s = Scenario(ncpus=2, end=1 * S)
        A, B, N = s.thread(101, 'A'), s.thread(102, 'B'), s.thread(201, 'newbie')
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.sleep(200 * MS, 1, B)
        s.wake(300 * MS, 0, B, target_cpu=1)
        s.run(300 * MS, 1, B)
        s.wakeup_new(500 * MS, 0, N)
        r = self.knots(s)
        n = r.tid(201)
        self.assertEqual(r.vertices[n]['name'], 'newbie', r.describe_vertices())
        t = r.thread(201)
        self.assertEqual((t['first_ns'], t['last_ns'], t['runnable_ns']),
                         (500 * MS, 1 * S, 500 * MS))


class TestForkBeginsRunnable(Base):
    """P (101, cpu0) forks C (103) at 1 s; C first runs at 1.2 s on cpu1,
    where B (102) goes to sleep then; C wakes B at 1.6 s and B runs
    [1.6 s, 1.7 s] (B -> C 0.4 s). C is runnable from its fork: lifetime
    [1 s, 2 s], runnable 0.2 + 0.1 s, running 0.4 + 0.3 s, its origin
    known. The same with
    sched_wakeup_new 1 us after the fork, and without it (a trace that
    did not record it). Trace [0, 2 s]."""

    def scenario(self, wakeup_new):
        s = Scenario(ncpus=2, end=2 * S)
        P, B, C = s.thread(101, 'P'), s.thread(102, 'B'), s.thread(103, 'C')
        s.run(0, 0, P)
        s.run(0, 1, B)
        s.fork(1 * S, 0, P, C)
        if wakeup_new:
            s.wakeup_new(1 * S + 1 * US, 0, C)
        s.sleep(1200 * MS, 1, B, next_tid=C)
        s.wake(1600 * MS, 1, B)
        s.preempt(1600 * MS, 1, C, B)
        s.run(1700 * MS, 1, C, prev_tid=B)
        return s

    def check(self, wakeup_new):
        r = self.knots(self.scenario(wakeup_new))
        t = r.thread(103)
        self.assertEqual((t['first_ns'], t['last_ns']), (1 * S, 2 * S))
        self.assertEqual((t['runnable_ns'], t['running_ns']), (300 * MS, 700 * MS))
        # P and B were there before the trace; C's origin is its fork.
        self.assertEqual(r.js['quality']['unknown_initial_threads'], 2)
        self.assertEdge(r, r.tid(102), r.tid(103), 400 * MS, direct=400 * MS, count=1)

    def test_with_wakeup_new(self):
        self.check(True)

    def test_without_wakeup_new(self):
        self.check(False)


class TestStatedump(Base):
    """lttng_statedump_process_state at the trace's beginning (t = 0) says
    T (tid 502, pid 500, "T-name") is waiting (status 5); X (501, cpu0) wakes
    it at 1 s; T runs on cpu1 from 1 s to the end (2 s). The statedump gives
    T's pid and name, and the wait [0, 1 s] (it began no later than the
    statedump, which is the trace's first instant)."""

    def scenario(self):
        s = Scenario(ncpus=2, end=2 * S)
        X = s.thread(501, 'X')
        T = s.thread(502, 'T-name', pid=500)
        s.statedump(0, 0, T, 5)
        s.run(0, 0, X)
        s.wake(1 * S, 0, T, target_cpu=1)
        s.run(1 * S, 1, T)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        T, X = r.tid(502), r.tid(501)
        self.assertEqual(r.vertices[T]['pid'], 500)
        self.assertEqual(r.vertices[T]['comm'], 'T-name')
        self.assertEdge(r, T, X, 1 * S, direct=1 * S, count=1)
        t = r.thread(502)
        self.assertEqual((t['first_ns'], t['last_ns'], t['running_ns']), (0, 2 * S, 1 * S))
        self.assertEqual(r.js['quality']['unmatched_wakeups'], 0)


class TestCallStacks(Base):
    """LTTng's callstack-kernel and callstack-user contexts on sched_switch
    (prev's stacks, where its wait begins). worker-1 (101, cpu0) and
    worker-2 (102, cpu1) of process 100 each sleep in the same place,
    kernel frames K + user frame U; each wakes the other:
    worker-1 waits [1 s, 3 s] for worker-2, worker-2 waits [2 s, 3.5 s] for
    worker-1. Trace [0, 4 s]. The stacks are the contexts' frames, kernel
    first; the scenario's clock has no UUID, so they stay addresses and the
    report says why; merge="stack" makes one vertex of the two."""

    K = [0xffffffff81000100, 0xffffffff81000200]
    U = [0x7f0000401000]

    def test_report(self):
        s = Scenario(ncpus=2, end=4 * S)
        s.callstacks = True
        A, B = s.thread(101, 'worker-1', pid=100), s.thread(102, 'worker-2', pid=100)
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.sleep(1 * S, 0, A, _stack_kernel=self.K, _stack_user=self.U)
        s.sleep(2 * S, 1, B, 103, _stack_kernel=self.K, _stack_user=self.U)
        s.wake(3 * S, 1, A, target_cpu=0)     # C (103) runs on cpu1 in between...
        s.run(3 * S, 0, A)
        s.wake(3500 * MS, 0, B, target_cpu=1)   # ...and A wakes B
        s.preempt(3500 * MS, 1, 103, B)
        r = self.knots(s)
        a, b, c = r.tid(101), r.tid(102), r.tid(103)
        # + 1 s cascaded: worker-2 waited on worker-1 over [2 s, 3 s].
        self.assertEdge(r, a, c, 3 * S, direct=2 * S, count=1)
        self.assertEdge(r, b, a, 1500 * MS, direct=1500 * MS, count=1)
        js = r.js
        self.assertEqual(len(js['stacks']), 1)
        frames = js['stacks'][0]['frames']
        self.assertEqual([int(f['addr'], 16) for f in frames], self.K + self.U)
        self.assertEqual([f['symbol'] for f in frames], [None] * 3)
        self.assertIn('no UUID', js['stacks_note'])
        for frm, to, ns in ((a, c, 2 * S), (b, a, 1500 * MS)):
            e = r.edge(frm, to)
            self.assertEqual(e['stacks'], [{'stack': 0, 'count': 1, 'ns': ns}])

    def test_merge_by_stack(self):
        s = Scenario(ncpus=2, end=4 * S)
        s.callstacks = True
        A, B = s.thread(101, 'worker-1', pid=100), s.thread(102, 'worker-2', pid=100)
        s.statedump(0, 0, A, 6, on_cpu=0)     # says they are of process 100
        s.statedump(0, 0, B, 6, on_cpu=1)
        s.run(0, 0, A)
        s.run(0, 1, B)
        s.sleep(1 * S, 0, A, _stack_kernel=self.K, _stack_user=self.U)
        s.wake(2 * S, 1, A, target_cpu=0)     # B wakes A...
        s.run(2 * S, 0, A)
        s.sleep(2500 * MS, 1, B, _stack_kernel=self.K, _stack_user=self.U)
        s.wake(3500 * MS, 0, B, target_cpu=1)   # ...and A wakes B
        s.run(3500 * MS, 1, B)
        # Not self.knots: a merged vertex sums its members' times, so it
        # does not tile one lifetime (doc/wperf-analysis.7.md).
        r = Report(run_knots(s, merge='stack'))
        merged = [v for v in r.js['vertices'] if v['kind'] == 'virtual']
        self.assertEqual([v['name'] for v in merged], ['worker-* @ 0xffffffff81000100'])
        self.assertEqual(sorted(merged[0]['members']), [101, 102])
        m = merged[0]['id']
        self.assertEdge(r, m, m, 2 * S, direct=2 * S, count=2)
        self.assertEqual(r.edge(m, m)['stacks'], [{'stack': 0, 'count': 2, 'ns': 2 * S}])


def one_process_and_another():
    """worker-1 (101) and worker-2 (102) of process 100, other (103) of its
    own; the statedump says which. worker-1 sleeps [1 s, 2 s], woken by
    other; worker-2 sleeps [1.5 s, 2.5 s], woken by worker-1. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    A = s.thread(101, 'worker-1', pid=100)
    B = s.thread(102, 'worker-2', pid=100)
    C = s.thread(103, 'other')
    s.running(A, B, C, dumped=True)
    s.sleep(1 * S, 0, A)
    s.sleep(1500 * MS, 1, B)
    s.wake(2 * S, 2, A, target_cpu=0)
    s.run(2 * S, 0, A)
    s.wake(2500 * MS, 0, B, target_cpu=1)
    s.run(2500 * MS, 1, B)
    return s


class TestSegmentSelection(Base):
    """filter.wperf.waits' pids, comms and states choose which segment events go
    out, and nothing else: each chosen output is exactly the full output
    with the others left out, in the same order, with the same fields (the
    waker and cascade of a shown wait come from threads not shown)."""

    def chosen(self, scn, keep, **params):
        full = run_segments(scn)['segments']
        got = run_segments(scn, **params)['segments']
        self.assertEqual(got, [s for s in full if keep(s)], params)
        return got

    def test_by_tid(self):
        got = self.chosen(single_wait(), lambda s: s['tid'] == 101, pids=[101])
        self.assertSegs({'segments': got}, 101,
                        [('running', 0, 1 * S, None, None),
                         ('waiting', 1 * S, 2 * S, 'B', 0),
                         ('runnable', 3 * S, 500 * MS, None, None),
                         ('running', 3500 * MS, 500 * MS, None, None)])

    def test_by_state(self):
        got = self.chosen(single_wait(), lambda s: s['state'] == 'waiting',
                          states='waiting')
        self.assertEqual([(s['tid'], s['start'], s['duration'], s['waker_name'])
                          for s in got], [(101, 1 * S, 2 * S, 'B')])

    def test_by_pid(self):
        scn = one_process_and_another()
        got = self.chosen(scn, lambda s: s['pid'] == 100, pids='100')
        self.assertEqual({s['tid'] for s in got}, {101, 102})
        for tid in (101, 102):
            self.assertTiled({'segments': got}, tid, 0, 3 * S)
        waits = [(s['tid'], s['waker_name']) for s in got if s['state'] == 'waiting']
        self.assertEqual(waits, [(101, 'other'), (102, 'worker-1')])

    def test_pid_or_tid_and_states(self):
        scn = one_process_and_another()
        self.chosen(scn, lambda s: s['tid'] in (101, 103) and s['state'] != 'waiting',
                    pids=[101, 103], states=['running', 'runnable'])
        self.chosen(scn, lambda s: s['state'] in ('runnable', 'waiting'),
                    states='runnable,waiting')

    def test_by_name_or_id(self):
        scn = one_process_and_another()
        got = self.chosen(scn, lambda s: s['name'] == 'worker-2', comms='worker-2')
        self.assertEqual({s['tid'] for s in got}, {102})
        got = self.chosen(scn, lambda s: s['tid'] in (102, 103),
                          comms=['worker-2'], pids=[103])
        self.assertEqual({s['tid'] for s in got}, {102, 103})

    def test_choosing_nothing_is_an_empty_result(self):
        # Not an error: the kernel events may all be out by the end, where
        # the filter learns that nothing matched (a note on stderr says so).
        out = run_segments(single_wait(), pids=[999])
        self.assertEqual(out['segments'], [])
        self.assertEqual(out['other_events'], len(single_wait().events))
        out = run_segments(single_wait(), pids=[999], **{'segments-only': True})
        self.assertEqual((out['segments'], out['other_events']), ([], 0))

    def test_segments_only(self):
        """segments-only: the same segments, no upstream event."""
        full = run_segments(nested())
        only = run_segments(nested(), **{'segments-only': True})
        self.assertEqual(only['other_events'], 0)
        self.assertEqual(only['segments'], full['segments'])
        self.assertGreater(full['other_events'], 0)
        # A knots sink behind it reuses the filter's analysis: same report.
        self.assertEqual(run_knots(nested())['edges'], run_knots_behind_filter(
            nested(), {'segments-only': True})['edges'])

    def test_window(self):
        """begin/end: nested() in [0.2 s, 0.35 s] (TestWindow): segments
        clipped to the window, A's wait's cascade through B's clipped wait
        0.1 s."""
        out = run_segments(nested(), begin='0.2', end='0.35')
        self.assertSegs(out, 101, [('waiting', 200 * MS, 150 * MS, 'B', 100 * MS)])
        self.assertSegs(out, 102, [('waiting', 200 * MS, 100 * MS, 'C', 0),
                                   ('running', 300 * MS, 50 * MS, None, None)])
        self.assertSegs(out, 103, [('running', 200 * MS, 150 * MS, None, None)])
        # A knots sink behind it reuses its analysis only for the same
        # window: without one it reports the whole trace.
        win = {'begin': '0.2', 'end': '0.35'}
        whole = Report(run_knots_behind_filter(nested(), win))
        self.assertEdge(whole, whole.tid(101), whole.tid(102), 300 * MS)
        same = Report(run_knots_behind_filter(nested(), win, **win))
        self.assertEdge(same, same.tid(101), same.tid(102), 150 * MS)
        self.assertEdge(same, same.tid(102), same.tid(103), 200 * MS, direct=100 * MS)


class TestFocusSkipsTracerThreads(Base):
    """A pid focus does not follow waits into LTTng-UST's own threads.
    app (101) and app-worker (102) of process 100 wait on each other:
    101 waits [1 s, 2 s] for 102, 102 waits [2 s, 3 s] for 101. At start
    101 also waits [0.1 s, 0.6 s] for its listener app-ust (103, process
    100), which waits [0, 0.5 s] for lttng-sessiond (201, process 200).
    With pids=100 the knot is {app, app-worker}; following the listener
    would have made it non-terminal and reported lttng-sessiond instead.
    Trace [0, 4 s]."""

    def scenario(self):
        s = Scenario(ncpus=4, end=4 * S)
        A, B = s.thread(101, 'app', pid=100), s.thread(102, 'app-worker', pid=100)
        U, D = s.thread(103, 'app-ust', pid=100), s.thread(201, 'lttng-sessiond', pid=200)
        s.running(A, B, U, D, dumped=True)
        s.sleep(0, 2, U)
        s.sleep(100 * MS, 0, A)
        s.wake(500 * MS, 3, U, target_cpu=2)
        s.run(500 * MS, 2, U)
        s.wake(600 * MS, 2, A, target_cpu=0)
        s.run(600 * MS, 0, A)
        s.sleep(1 * S, 0, A)
        s.wake(2 * S, 1, A, target_cpu=0)    # B wakes A, then sleeps itself
        s.sleep(2 * S, 1, B)
        s.run(2 * S, 0, A)
        s.wake(3 * S, 0, B, target_cpu=1)
        s.run(3 * S, 1, B)
        return s

    def test_report(self):
        r = self.knots(self.scenario(), pids='100')
        a, b, u = r.tid(101), r.tid(102), r.tid(103)
        self.assertTrue(r.has_edge(a, u), r.describe_edges())
        knots = [k for k in r.js['knots'] if k['kind'] == 'knot']
        self.assertEqual([sorted(k['members']) for k in knots], [sorted([a, b])],
                         r.describe_knots())
        named = {r.vname(m) for k in r.js['knots'] for m in k['members']}
        self.assertNotIn('lttng-sessiond(201)', named, r.describe_knots())
        # Named in comms, the listener is the user's choice: followed.
        r = self.knots(self.scenario(), pids='100', comms='app-ust')
        self.assertFalse([k for k in r.js['knots'] if k['kind'] == 'knot'
                          and sorted(k['members']) == sorted([a, b])], r.describe_knots())


class TestTracerThreadsWaitOnNoOne(Base):
    """LTTng-UST's listener app-ust (103, process 100) sleeps [0.1 s, 3.9 s]
    until app (101) wakes it at exit, as a traced program's listeners do:
    an edge app-ust -> app of 3.8 s. With pids=100 that wait is the
    tracer's, not the program's: app must not become a sink "waited on"
    for 3.8 s (it was, 749% of the trace in a real recording), nor list
    the listener as its waiter. Named in comms, the listener counts."""

    def scenario(self):
        s = Scenario(ncpus=2, end=4 * S)
        A, U = s.thread(101, 'app', pid=100), s.thread(103, 'app-ust', pid=100)
        s.running(A, U, dumped=True)
        s.sleep(100 * MS, 1, U)
        s.wake(3900 * MS, 0, U, target_cpu=1)
        s.run(3900 * MS, 1, U)
        return s

    def test_report(self):
        r = self.knots(self.scenario(), pids='100')
        a, u = r.tid(101), r.tid(103)
        self.assertEqual(r.edge(u, a)['direct_ns'], 3800 * MS, r.describe_edges())
        self.assertEqual([k for k in r.js['knots'] if a in k['members']], [],
                         r.describe_knots())
        text = run_knots_text(self.scenario(), pids='100')
        self.assertNotIn('app-ust (103) -> app (101)', text)
        r = self.knots(self.scenario(), pids='100', comms='app-ust')
        sinks = [k for k in r.js['knots'] if k['kind'] == 'sink' and k['members'] == [a]]
        self.assertEqual([k['weight_ns'] for k in sinks], [3800 * MS], r.describe_knots())
        # Without a focus too: the listener's wait is no dependency.
        r = self.knots(self.scenario())
        self.assertEqual([k for k in r.js['knots'] if a in k['members']], [],
                         r.describe_knots())


class TestLttngDaemonsWaitOnNoOne(Base):
    """lttng-sessiond (300) has renamed threads: Rotation (302) waits
    [0.1 s, 3.1 s] for Timer (301), as in every real recording, where
    "Timer" became the first sink of the machine's report (311%). Every
    thread of a process with a thread named lttng-sessiond is the tracer's:
    its waits are no dependency, and a focus does not enter it, unless
    named in comms. app (101) waits
    [1 s, 2 s] on the disk-less worker (102): a sink. Trace [0, 4 s]."""

    def scenario(self):
        s = Scenario(ncpus=4, end=4 * S)
        d, t, rot = (s.thread(300, 'lttng-sessiond'), s.thread(301, 'Timer', pid=300),
                     s.thread(302, 'Rotation', pid=300))
        a, w = s.thread(101, 'app'), s.thread(102, 'worker', pid=101)
        for cpu, th in enumerate((t, rot, a, w)):
            s.statedump(0, 0, th, 6, on_cpu=cpu)
            s.run(0, cpu, th)
        s.statedump(0, 0, d, 5)
        s.sleep(100 * MS, 1, rot)
        s.wake(3100 * MS, 0, rot, target_cpu=1)
        s.run(3100 * MS, 1, rot)
        s.sleep(1 * S, 2, a)
        s.wake(2 * S, 3, a, target_cpu=2)
        s.run(2 * S, 2, a)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        t, rot, a, w = r.tid(301), r.tid(302), r.tid(101), r.tid(102)
        self.assertEdge(r, rot, t, 3 * S, direct=3 * S, count=1)
        sinks = [k['members'] for k in r.js['knots'] if k['kind'] == 'sink']
        self.assertEqual(sinks, [[w]], r.describe_knots())
        r = self.knots(self.scenario(), comms='Rotation,Timer')
        sinks = [k['members'] for k in r.js['knots'] if k['kind'] == 'sink']
        self.assertEqual(sinks, [[t]], r.describe_knots())


class TestFollowForks(Base):
    """sink.wperf.knots' follow-forks: a focus on a command takes in what
    it forked. sh (100) forks prog (200, process 200) at 0.1 s and waits
    for it until 3.5 s; prog forks its thread prog-worker (201) at 0.2 s
    and its LTTng-UST listener prog-ust (202) at 0.25 s. prog and
    prog-worker wait on each other ([1 s, 2 s], [2 s, 3 s]): a knot.
    other (900) runs throughout. Trace [0, 4 s]."""

    def scenario(self):
        s = Scenario(ncpus=4, end=4 * S)
        sh, other = s.thread(100, 'sh'), s.thread(900, 'other')
        prog, worker = s.thread(200, 'prog'), s.thread(201, 'prog-worker', pid=200)
        ust = s.thread(202, 'prog-ust', pid=200)
        for cpu, t in ((0, sh), (3, other)):
            s.statedump(0, 0, t, 6, on_cpu=cpu)
            s.run(0, cpu, t)
        s.fork(100 * MS, 0, sh, prog)
        s.wakeup_new(100 * MS, 0, prog)
        s.run(100 * MS, 1, prog)
        s.sleep(100 * MS, 0, sh)
        s.fork(200 * MS, 1, prog, worker, child_pid=200)
        s.wakeup_new(200 * MS, 1, worker)
        s.run(200 * MS, 2, worker)
        s.fork(250 * MS, 1, prog, ust, child_pid=200)
        s.wakeup_new(250 * MS, 1, ust)
        s.run(250 * MS, 0, ust)
        s.sleep(260 * MS, 0, ust)
        s.sleep(1 * S, 1, prog)
        s.wake(2 * S, 2, prog, target_cpu=1)
        s.sleep(2 * S, 2, worker)
        s.run(2 * S, 1, prog)
        s.wake(3 * S, 1, worker, target_cpu=2)
        s.run(3 * S, 2, worker)
        s.wake(3500 * MS, 1, sh, target_cpu=0)
        s.run(3500 * MS, 0, sh)
        return s

    def focus(self, **params):
        r = self.knots(self.scenario(), **params)
        return r, sorted(r.vertices[v]['tid'] for v in r.js['focus'])

    def test_focus_takes_in_the_forked(self):
        r, focus = self.focus(pids='100')
        self.assertEqual(focus, [100])
        r, focus = self.focus(pids='100', **{'follow-forks': True})
        self.assertEqual(focus, [100, 200, 201])
        knots = [sorted(k['members']) for k in r.js['knots'] if k['kind'] == 'knot']
        self.assertEqual(knots, [sorted([r.tid(200), r.tid(201)])], r.describe_knots())
        # The listener is the tracer's, unless named.
        r, focus = self.focus(pids='100', comms='prog-ust', **{'follow-forks': 'yes'})
        self.assertEqual(focus, [100, 200, 201, 202])
        r, focus = self.focus(pids='200', **{'follow-forks': False})
        self.assertEqual(focus, [200, 201])

    def test_comms_names_the_process_too(self):
        # A user names the program: comms="prog" takes in the threads of
        # the process whose main thread is prog (not its LTTng-UST
        # listener, the tracer's); a thread's own name still matches
        # that thread alone.
        r, focus = self.focus(comms='prog')
        self.assertEqual(focus, [200, 201])
        knots = [sorted(k['members']) for k in r.js['knots'] if k['kind'] == 'knot']
        self.assertEqual(knots, [sorted([r.tid(200), r.tid(201)])], r.describe_knots())
        r, focus = self.focus(comms='prog-worker')
        self.assertEqual(focus, [201])

    def test_the_tracer_forked_is_left_out(self):
        # sh also starts the `lttng` tool (300) at 3.6 s: LTTng's, not the
        # command's, unless named.
        s = self.scenario()
        sh, lttng = 100, s.thread(300, 'lttng')
        s.fork(3600 * MS, 0, sh, lttng)
        s.wakeup_new(3600 * MS, 0, lttng)
        s.run(3700 * MS, 0, lttng)
        for comms, want in ((None, [100, 200, 201]), ('lttng', [100, 200, 201, 300])):
            params = {'follow-forks': True}
            if comms:
                params['comms'] = comms
            r = self.knots(s, pids='100', **params)
            self.assertEqual(sorted(r.vertices[v]['tid'] for v in r.js['focus']), want)

    def test_filter_follows_forks_too(self):
        # filter.wperf.waits' follow-forks: the same lineage, on segments
        # (the listener prog-ust too: the filter shows a process's
        # tracer threads as `pids` does). Exactly the full output with
        # the others left out.
        scn = self.scenario()
        full = run_segments(scn)['segments']
        got = run_segments(scn, pids='100', **{'follow-forks': True})['segments']
        self.assertEqual(got, [x for x in full if x['tid'] in (100, 200, 201, 202)])
        self.assertEqual({x['tid'] for x in got}, {100, 200, 201, 202})
        got = run_segments(scn, pids='100')['segments']
        self.assertEqual({x['tid'] for x in got}, {100})
        with self.assertRaises(bt2._Error) as ctx:
            run_segments(scn, **{'follow-forks': True})
        self.assertIn("parameter `follow-forks`: there is no choice of threads to follow",
                      bt2_error_text(ctx.exception))

    def test_follow_forks_needs_a_focus(self):
        with self.assertRaises(bt2._Error) as ctx:
            run_knots(self.scenario(), **{'follow-forks': True})
        self.assertIn("parameter `follow-forks`: there is no focus to follow",
                      bt2_error_text(ctx.exception))
        with self.assertRaises(bt2._Error) as ctx:
            run_knots(self.scenario(), pids='100', **{'follow-forks': 'maybe'})
        self.assertIn("parameter `follow-forks`: expected a boolean",
                      bt2_error_text(ctx.exception))


class TestExitNotifiedByTheTracer(Base):
    """sh (50) waits [0.1 s, 1.001 s] for its child prog (process 100). prog
    (100) exits at 1 s; its LTTng-UST listener prog-ust (103, process 100),
    killed last, exits and wakes sh at 1.001 s: the exit notification. sh
    waited for the program, not for the tracer: the edge is sh -> prog,
    0.901 s. A live tracer thread that wakes sh (at 1.5 s, sh waiting
    again since 1.2 s) is still the waker: sh -> prog-ust 0.3 s. Trace
    [0, 2 s]."""

    def scenario(self, listener_exits=True):
        s = Scenario(ncpus=2, end=2 * S)
        sh, prog = s.thread(50, 'sh'), s.thread(100, 'prog')
        ust, other_ust = s.thread(103, 'prog-ust', pid=100), s.thread(203, 'srv-ust', pid=200)
        srv = s.thread(200, 'srv')
        for t, st, cpu in ((sh, 6, 0), (prog, 6, 1), (ust, 5, 0), (srv, 5, 0),
                           (other_ust, 5, 0)):
            s.statedump(0, 0, t, st, on_cpu=cpu)
        s.run(0, 0, sh)
        s.run(0, 1, prog)
        s.sleep(100 * MS, 0, sh)
        s.exit(1 * S, 1, prog)
        s.wake(1 * S, 1, ust, target_cpu=1)          # the group exit kills it
        s.switch(1 * S, 1, prog, ust, prev_state=128)
        if listener_exits:
            s.exit(1001 * MS, 1, ust)
        s.wake(1001 * MS, 1, sh, target_cpu=0)
        s.switch(1001 * MS, 1, ust, 0, prev_state=128)
        s.run(1001 * MS, 0, sh)
        s.sleep(1200 * MS, 0, sh)
        s.wake(1 * S + 500 * MS, 1, other_ust, target_cpu=1)
        s.run(1 * S + 500 * MS, 1, other_ust)
        s.wake(1 * S + 500 * MS, 1, sh, target_cpu=0)
        s.run(1 * S + 500 * MS, 0, sh)
        return s

    def test_parent_waits_for_the_program(self):
        r = self.knots(self.scenario())
        sh, prog, ust = r.tid(50), r.tid(100), r.tid(103)
        self.assertEdge(r, sh, prog, 901 * MS, direct=901 * MS, count=1)
        self.assertFalse(r.has_edge(sh, ust), r.describe_edges())
        self.assertEdge(r, sh, r.tid(203), 300 * MS, direct=300 * MS, count=1)

    def test_a_listener_not_exiting_is_the_waker(self):
        r = self.knots(self.scenario(listener_exits=False))
        sh, prog, ust = r.tid(50), r.tid(100), r.tid(103)
        self.assertEdge(r, sh, ust, 901 * MS, direct=901 * MS, count=1)
        self.assertFalse(r.has_edge(sh, prog), r.describe_edges())


class TestTracerThreadsDoNotCascade(Base):
    """app (101, process 100) waits for its worker W (102) over [1 s, 2 s].
    Its listener app-ust (103) sleeps [0.1 s, 3.9 s] until app wakes it at
    exit, and the session daemon's "UST application" thread (201, process
    200) sleeps [0.05 s, 3.95 s] until app-ust wakes it. Were tracer waits
    work, app -> W would weigh 1 s + 1 s (app-ust's cascade) + 1 s (through
    app-ust from the daemon's) and app-ust -> app 3.8 s + 3.8 s. A tracer
    thread's wait neither cascades nor is walked through: app -> W 1 s,
    app-ust -> app 3.8 s, UST application -> app-ust 3.9 s, all direct."""

    def scenario(self):
        s = Scenario(ncpus=4, end=4 * S)
        A, W = s.thread(101, 'app', pid=100), s.thread(102, 'W', pid=100)
        U, D = s.thread(103, 'app-ust', pid=100), s.thread(201, 'UST application', pid=200)
        s.running(A, W, U, D, dumped=True)
        s.sleep(50 * MS, 3, D)
        s.sleep(100 * MS, 2, U)
        s.sleep(1 * S, 0, A)
        s.wake(2 * S, 1, A, target_cpu=0)
        s.run(2 * S, 0, A)
        s.wake(3900 * MS, 0, U, target_cpu=2)
        s.run(3900 * MS, 2, U)
        s.wake(3950 * MS, 2, D, target_cpu=3)
        s.run(3950 * MS, 3, D)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        a, w, u, d = (r.tid(t) for t in (101, 102, 103, 201))
        self.assertEdge(r, a, w, 1 * S, direct=1 * S, count=1)
        self.assertEdge(r, u, a, 3800 * MS, direct=3800 * MS, count=1)
        self.assertEdge(r, d, u, 3900 * MS, direct=3900 * MS, count=1)


def far_packets():
    """Packets that begin 40 s before the first event and end 126 s after
    the last one, as an LTTng session's do when it started long before its
    workload (idle buffers) and stopped long after; the streams carry no
    times of their own, as source.ctf.fs's do. Events, from t0 = 40 s:
    the statedump says T (601) is waiting; X (600, cpu0) runs from t0,
    wakes T at t0+1 s and t0+3 s; T runs on cpu1 from t0+1 s, sleeps at
    t0+2 s, and runs again at t0+3 s, the trace's last event."""
    t0 = 40 * S
    s = Scenario(ncpus=2, begin=None, end=None, packets=(0, 169 * S))
    X, T = s.thread(600, 'X'), s.thread(601, 'T')
    s.statedump(t0, 0, T, 5)
    s.run(t0, 0, X)
    s.wake(t0 + 1 * S, 0, T, target_cpu=1)
    s.run(t0 + 1 * S, 1, T)
    s.sleep(t0 + 2 * S, 1, T)
    s.wake(t0 + 3 * S, 0, T, target_cpu=1)
    s.run(t0 + 3 * S, 1, T)
    return s


def lost_switch_out(discard):
    """One CPU, 1 s. A (701) is switched in at 0. Its switch-out is lost:
    with a discarded-events record at 0.1 s (discard), or unannounced. At
    0.5 s B (702), never seen before, leaves the CPU for C (703), which
    runs to the end; A is woken at 0.8 s on CPU 1 and runs there from
    0.9 s. Before, A counted as running all along: 1.5 s of running on 1 CPU
    in 1 s."""
    s = Scenario(ncpus=2, end=1 * S)
    A, B, C = s.thread(701, 'A'), s.thread(702, 'B'), s.thread(703, 'C')
    s.run(0, 0, A)
    s.run(0, 1, 0)
    if discard:
        s.discard(100 * MS, 100 * MS, 0, count=5)
    s.run(500 * MS, 0, C, prev_tid=B)
    s.wake(800 * MS, 1, A, target_cpu=1)
    s.run(900 * MS, 1, A)
    return s


def woken_to(busy):
    """One CPU, 300 ms. A (801) runs 1 ms, sleeps 1 ms, is woken and runs
    1 ms later, 100 times. busy=False: the CPU idles from A's sleep until it
    runs A again (each runnable ms is a wakeup's latency). busy=True: B
    (802), woken while A sleeps, runs in that ms, so A waits for a CPU
    B holds."""
    s = Scenario(ncpus=1, end=300 * MS)
    A, B = s.thread(801, 'A'), s.thread(802, 'B')
    s.run(0, 0, A)
    for i in range(100):
        t = i * 3 * MS
        s.sleep(t + 1 * MS, 0, A)
        if busy:
            s.wake(t + 1500 * US, 0, B)
        s.wake(t + 2 * MS, 0, A)
        if busy:
            s.run(t + 2 * MS, 0, B)
            s.sleep(t + 3 * MS, 0, B, next_tid=A)
        else:
            s.run(t + 3 * MS, 0, A)
    return s


class TestWakeLatencyIsNoCpuWait(Base):
    """Runnable time on a CPU that sat idle is a wakeup's latency, not a
    wait for a CPU another thread held (wperf-analysis(7), "The CPUs"): it
    is kept as wake_latency_ns, and runnable_share, runnable_bound and the
    CPU finding leave it out."""

    def test_idle_cpu(self):
        r = self.knots(woken_to(busy=False), pids='801')
        a = r.thread(801)
        self.assertEqual((a['runnable_ns'], a['wake_latency_ns']), (100 * MS, 100 * MS))
        self.assertEqual((a['runnable_share'], a['runnable_bound']), (0, False))
        self.assertEqual((r.js['cpu']['runnable_ns'], r.js['cpu']['wake_latency_ns']),
                         (0, 100 * MS))
        self.assertFalse(r.js['cpu']['first'])

    def test_busy_cpu(self):
        r = self.knots(woken_to(busy=True), pids='801')
        a = r.thread(801)
        self.assertEqual((a['runnable_ns'], a['wake_latency_ns']), (100 * MS, 0))
        self.assertTrue(a['runnable_bound'])
        self.assertEqual(r.js['cpu']['runnable_ns'], 100 * MS)


class TestFiguresARecordingCanHold(Base):
    """A CPU runs one thread at a time (wperf-analysis(7), "Figures a
    recording can hold"): a thread whose switch-out was lost is not running
    until it is seen again; from its last sure sight its state is unknown
    (unknown_ns), and every report's running time, summed, stays within
    CPUs x duration (tests/report_invariants.py checks every report)."""

    def test_lost_switch_out(self):
        for discard in (True, False):
            r = self.knots(lost_switch_out(discard))   # report_invariants.check
            self.assertEqual(r.js['time_range']['cpus'], 2)
            a, b, c = r.thread(701), r.thread(702), r.thread(703)
            # A: seen at 0, then unknown until woken at 0.8 s.
            self.assertEqual((a['first_ns'], a['last_ns']), (0, 1 * S))
            self.assertEqual((a['running_ns'], a['runnable_ns'], a['unknown_ns']),
                             (100 * MS, 100 * MS, 800 * MS), discard)
            self.assertEqual(c['running_ns'], 500 * MS)
            # B was never seen running: it ran from no time we know.
            self.assertEqual(b['running_ns'], 0)
            total = sum(t['running_ns'] for t in r.js['threads'])
            self.assertLessEqual(total, 2 * S)


class TestRangeIsTheEvents(Base):
    """The analysed range is the first to the last event, not the packets'
    bounds (doc/sink.wperf.knots.7.md): far_packets() is analysed over
    [40 s, 43 s], not [0, 169 s]. What is open at the end closes at the last
    event; a loss reported over the packets is clipped to the range."""

    T0 = 40 * S

    def test_report(self):
        scn = far_packets()
        self.assertEqual(scn.time_range(), (self.T0, self.T0 + 3 * S))
        r = self.knots(scn)           # check_common: time_range == first..last event
        X, T = r.tid(600), r.tid(601)
        self.assertEdge(r, T, X, 2 * S, direct=2 * S, count=2)
        x, t = r.thread(600), r.thread(601)
        # X still runs at the end: its running closes at the last event.
        self.assertEqual((x['first_ns'], x['last_ns'], x['running_ns']),
                         (self.T0, self.T0 + 3 * S, 3 * S))
        # T's state comes from the statedump, the first event.
        self.assertEqual((t['first_ns'], t['last_ns'], t['running_ns']),
                         (self.T0, self.T0 + 3 * S, 1 * S))

    def test_text_header(self):
        text = run_knots_text(far_packets())
        self.assertIn('Analysed   40.000000000 s .. 43.000000000 s (3.00 s)\n', text)

    def test_segments(self):
        out = run_segments(far_packets())
        self.assertTiled(out, 600, self.T0, self.T0 + 3 * S)
        self.assertTiled(out, 601, self.T0, self.T0 + 3 * S)

    def test_loss_over_the_packets_is_clipped(self):
        # CPU 1 lost 7 events somewhere in [5 s, 160 s]: the gap the
        # report gives is the part inside the analysed range.
        scn = far_packets()
        scn.discard(5 * S, 160 * S, 1, count=7)
        q = run_knots(scn)['quality']
        self.assertEqual(q['gaps'], [{'cpu': 1, 'begin_ns': self.T0, 'end_ns': self.T0 + 3 * S,
                                      'count': 7, 'packets': False}])
        self.assertEqual(q['gap_ns'], 3 * S)

    def test_trimmed_range(self):
        # babeltrace2 --begin/--end cut the trace where the user chose
        # (Scenario begin/end: the streams' beginnings and ends carry
        # them): the range is the cut, also where no event is.
        scn = far_packets()
        scn.begin, scn.end = self.T0 - 500 * MS, self.T0 + 4 * S
        r = self.knots(scn)
        self.assertEqual((r.js['time_range']['begin_ns'], r.js['time_range']['end_ns']),
                         (self.T0 - 500 * MS, self.T0 + 4 * S))
        self.assertEqual(r.thread(600)['running_ns'], 4 * S)


class TestRangeThroughCtf(Base):
    """far_packets() written as a CTF trace (sink.ctf.fs) and read back by
    the babeltrace2 command: the Analysed line and the JSON range are the
    first and last event; with --begin/--end inside the events, they are
    what the trimmer cut."""

    T0 = 40 * S

    @classmethod
    def setUpClass(cls):
        import tempfile
        from wperf_scenario import write_ctf
        cls._tmp = tempfile.TemporaryDirectory(prefix='wperf-range-')
        cls.trace = os.path.join(cls._tmp.name, 'trace')
        write_ctf(far_packets(), cls.trace)

    @classmethod
    def tearDownClass(cls):
        cls._tmp.cleanup()

    def cli(self, *args, params='format="json"'):
        import json
        import subprocess
        from wperf_scenario import plugin_dir
        out = os.path.join(self._tmp.name, 'report')
        cmd = (['babeltrace2', '--plugin-path=' + plugin_dir(), self.trace] + list(args) +
               ['-c', 'sink.wperf.knots', '--params=%s,path="%s"' % (params, out)])
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(out) as f:
            return f.read() if 'text' in params else json.load(f)

    def test_json(self):
        tr = self.cli()['time_range']
        self.assertEqual((tr['begin_ns'], tr['end_ns'], tr['duration_ns']),
                         (self.T0, self.T0 + 3 * S, 3 * S))

    def test_text(self):
        self.assertIn('Analysed   40.000000000 s .. 43.000000000 s (3.00 s)\n',
                      self.cli(params='format="text"'))

    def test_begin_end_inside(self):
        tr = self.cli('--begin=40.5', '--end=42.25')['time_range']
        self.assertEqual((tr['begin_ns'], tr['end_ns']),
                         (self.T0 + 500 * MS, self.T0 + 2250 * MS))

    def test_begin_end_outside(self):
        # A bound past the packets cuts nothing: the last event ends the
        # range. A bound inside a packet cuts there, before the first
        # event: the range begins where the user chose.
        tr = self.cli('--begin=1', '--end=500')['time_range']
        self.assertEqual((tr['begin_ns'], tr['end_ns']), (1 * S, self.T0 + 3 * S))


def late_child(fork_at, end, forked=True):
    """P (100, cpu0) runs from 0; it forks C (200) at fork_at, which runs
    on cpu1 at once, sleeps 10 ms later and is woken by P 20 ms after
    that. Without `forked`, the trace has no fork: C is first seen when
    switched in at fork_at. Trace [0, end]."""
    s = Scenario(ncpus=2, end=end)
    P, C = s.thread(100, 'P'), s.thread(200, 'C')
    s.run(0, 0, P)
    if forked:
        s.fork(fork_at, 0, P, C)
        s.wakeup_new(fork_at + 1 * US, 0, C)
    s.run(fork_at + 2 * US, 1, C)
    s.sleep(fork_at + 10 * MS, 1, C)
    s.wake(fork_at + 30 * MS, 0, C, target_cpu=1)
    s.run(fork_at + 30 * MS, 1, C)
    return s


class TestFocusStartedLate(Base):
    """Data quality says when the focus's first event comes more than
    0.5 s and more than a tenth of the analysed time after the range's
    beginning (doc/wperf-report.7.md), and whether the trace shows its
    fork. JSON: focus_start."""

    LINE = 'focus first seen'

    def check(self, at, end, late, forked=True):
        scn = late_child(at, end, forked)
        first = at if forked else at + 2 * US
        r = self.knots(scn, pids='200')
        self.assertEqual(r.js['focus_start'], {'first_ns': first, 'after_begin_ns': first,
                                               'forked': forked, 'late': late})
        text = run_knots_text(scn, pids='200')
        self.assertEqual(self.LINE in text, late, text)
        return ' '.join(text.split())

    def test_late_with_its_fork(self):
        # 1.5 s after the beginning of a 3 s range: 50 %.
        self.assertIn('focus first seen 1.50 s after the trace began (50.0% of the '
                      'analysed time): it began then (its fork is in the trace); its '
                      'shares are of the whole time', self.check(1500 * MS, 3 * S, True))

    def test_late_without_its_fork(self):
        self.assertIn('focus first seen 1.50 s after the trace began (50.0% of the '
                      'analysed time): its start may be missing (no fork in the trace); '
                      'its shares are of the whole time',
                      self.check(1500 * MS, 3 * S, True, forked=False))

    def test_under_a_tenth(self):
        # 600 ms > 0.5 s, but under a tenth of 10 s.
        self.check(600 * MS, 10 * S, False)

    def test_under_half_a_second(self):
        # 400 ms: 40 % of 1 s, but under 0.5 s.
        self.check(400 * MS, 1 * S, False)

    def test_on_both_sides(self):
        # Just over both: 501 ms of 1 s.
        self.check(501 * MS, 1 * S, True)

    def test_no_focus(self):
        r = self.knots(late_child(1500 * MS, 3 * S))
        self.assertIsNone(r.js['focus_start'])
        self.assertNotIn(self.LINE, run_knots_text(late_child(1500 * MS, 3 * S)))


class TestInvariantsOnAllScenarios(Base):
    """The real-trace invariants (tests/test_real_traces.py) on every
    scenario: report invariants, and filter.wperf.waits' segments tiling
    each thread's [first_ns, last_ns]."""

    def test_all(self):
        from test_real_traces import Checks
        scenarios = {'single_wait': single_wait, 'nested': nested, 'chain': chain,
                     'two_waiters': two_waiters, 'cycle_and_chain': cycle_and_chain,
                     'refine4': refine4, 'hardirq': hardirq, 'timers': timers, 'disk': disk,
                     'softirq_daemon': softirq_daemon, 'service_threads': service_threads,
                     'sink_limits': sink_limits, 'hand_over': lambda: hand_over(5),
                     'zero_byte': TestDiskZeroByteIssuer.scenario,
                     'exit_then_switch': TestExitThenSwitch.scenario,
                     'statedump': TestStatedump.scenario, 'far_packets': far_packets}
        for name, make in scenarios.items():
            with self.subTest(scenario=name):
                scn = make(self) if name in ('zero_byte', 'exit_then_switch',
                                             'statedump') else make()
                js = run_knots(scn)
                Checks.report_invariants(self, js, name)
                Checks.tiling(self, js, run_segments(scn), name)


class _ForeignIterator(bt2._UserMessageIterator):
    """One stream of a trace that is not the kernel's (domain "ust"), with
    an `app:tick` event at each time of the port's user data."""

    def __init__(self, config, port):
        comp = self._component
        tc = comp._create_trace_class()
        cc = comp._create_clock_class(frequency=1_000_000_000, name='monotonic',
                                      origin_is_unix_epoch=True)
        sc = tc.create_stream_class(default_clock_class=cc)
        ec = sc.create_event_class(name='app:tick')
        st = tc(environment={'domain': 'ust', 'tracer_name': 'lttng-ust'}).create_stream(sc)
        self._msgs = ([self._create_stream_beginning_message(st)] +
                      [self._create_event_message(ec, st, t) for t in port.user_data] +
                      [self._create_stream_end_message(st)])

    def __next__(self):
        if not self._msgs:
            raise StopIteration
        return self._msgs.pop(0)


class _ForeignSource(bt2._UserSourceComponent, message_iterator_class=_ForeignIterator):
    def __init__(self, config, params, obj):
        self._add_output_port('out', obj)


class _TimesSink(EachMessage, bt2._UserSinkComponent):
    """Every message's time, in output order, as (what, ns)."""

    def take(self, msg):
        if type(msg) is bt2._EventMessageConst:
            self._out.append((msg.event.name, msg.default_clock_snapshot.ns_from_origin))


class TestForeignStreamTimes(Base):
    """The filter's output never goes back in time, also past the last
    kernel event: here a non-kernel event (which the analysis skips) comes
    5 ms after the kernel trace's end, and the segments still open there
    close after it, stamped no earlier than it."""

    def test_segments_closed_at_the_end_follow_a_later_foreign_event(self):
        plugin = wperf_plugin()
        utils = bt2.find_plugin('utils')
        tick = 4 * S + 5 * MS                 # one_wait() ends at 4 s
        seen = []
        g = bt2.Graph()
        kernel = g.add_component(ScenarioSource, 'kernel', obj=one_wait())
        foreign = g.add_component(_ForeignSource, 'foreign', obj=[tick])
        mux = g.add_component(utils.filter_component_classes['muxer'], 'mux')
        flt = g.add_component(plugin.filter_component_classes['waits'], 'waits')
        sink = g.add_component(_TimesSink, 'times', obj=seen)
        g.connect_ports(kernel.output_ports['out'], mux.input_ports['in0'])
        g.connect_ports(foreign.output_ports['out'], mux.input_ports['in1'])
        g.connect_ports(mux.output_ports['out'], flt.input_ports['in'])
        g.connect_ports(flt.output_ports['out'], sink.input_ports['in'])
        g.run()
        names = [n for n, _ in seen]
        self.assertIn('app:tick', names)
        after = [(n, t) for n, t in seen[names.index('app:tick') + 1:]]
        self.assertTrue(after and all(n == 'wperf:segment' for n, _ in after), seen[-6:])
        self.assertTrue(all(t >= tick for _, t in after), after)
        times = [t for _, t in seen]
        self.assertEqual(times, sorted(times))


# ---------------------------------------------------------------------------
def cpu_gone(missing=True):
    """The trial's damaged trace, built by hand: F (601, the focus) runs on
    cpu0 all along. Y (602) runs on cpu1 and sleeps at 1 s, 1.5 s and 2 s;
    each time F wakes it 100 ms later to run on cpu1 (target_cpu 1), where it
    runs again. missing: cpu1's events are left out, as when its stream file
    is emptied (3 wakeups name it: cpus.h's least); else they are there.
    Trace [0, 3 s]."""
    s = Scenario(ncpus=2, end=3 * S)
    F, Y = s.thread(601, 'F'), s.thread(602, 'Y')
    s.run(0, 0, F)
    s.run(0, 1, Y)
    for t in (1 * S, 1500 * MS, 2 * S):
        s.sleep(t, 1, Y)
        s.wake(t + 100 * MS, 0, Y, target_cpu=1)
        s.run(t + 100 * MS + 2 * US, 1, Y)
    if missing:
        s.events = [e for e in s.events if e[2] != 1]
    return s


class TestCaveats(Base):
    """Data-quality problems that can change the findings are said above
    them, and a trace missing a CPU gets no advice as if it were complete
    (doc/wperf-report.7.md, Caveats)."""

    def test_missing_cpu_qualifies_the_headline(self):
        r = self.knots(cpu_gone(), pids='601')
        self.assertEqual(r.js['quality']['missing_cpus'], [{'cpu': 1, 'wakeups': 3}])
        self.assertTrue(r.js['findings_may_be_wrong'])
        self.assertEqual([c['kind'] for c in r.js['caveats']], ['missing_cpus'])
        self.assertTrue(r.js['caveats'][0]['may_be_wrong'])
        text = run_knots_text(cpu_gone(), pids='601')
        head, _, findings = text.partition('\nFound ')
        self.assertRegex(head, r'\nMissing +the trace has no events of CPU 1')
        self.assertIn('findings below may be wrong: the trace lacks the events of CPU 1',
                      ' '.join(findings.split()))
        self.assertNotIn('profile it', text)
        self.assertIn('Record again before concluding anything', ' '.join(text.split()))
        html = run_knots_text(cpu_gone(), pids='601', format='html')
        body = html[:html.index('id="findings"')]
        self.assertIn('findings below may be wrong: the trace lacks the events of CPU 1', body)
        self.assertIn('data-kind="missing_cpus"', body)

    def test_whole_trace_has_no_caveat(self):
        r = self.knots(cpu_gone(missing=False), pids='601')
        self.assertEqual(r.js['quality']['missing_cpus'], [])
        self.assertEqual(r.js['caveats'], [])
        self.assertFalse(r.js['findings_may_be_wrong'])
        text = run_knots_text(cpu_gone(missing=False), pids='601')
        self.assertNotIn('may be wrong', text)
        self.assertIn('profile it', text)

    def test_waits_without_wakeup_from_a_tenth(self):
        """One waiting thread switched in with no wakeup: 1 of its waits.
        Said above the findings from a tenth of all waits, not below."""
        def scn(n_woken):
            """A sleeps n_woken + 1 times, 100 ms each; B wakes it each time
            but the last, then switches to it."""
            s = Scenario(ncpus=1, end=10 * S)
            A, B = s.thread(701, 'A'), s.thread(702, 'B')
            s.run(0, 0, A)
            t = 0
            for i in range(n_woken + 1):
                s.sleep(t + 100 * MS, 0, A, next_tid=B)
                if i < n_woken:
                    s.wake(t + 200 * MS, 0, A)
                s.run(t + 200 * MS + 1 * US, 0, A, prev_tid=B)
                t += 300 * MS
            return s
        for n_woken, said in ((9, True), (10, False)):
            js = run_knots(scn(n_woken))
            self.assertEqual(js['quality']['waits_without_wakeup'], 1, n_woken)
            kinds = [c['kind'] for c in js['caveats']]
            self.assertEqual('waits_without_wakeup' in kinds, said, (n_woken, js['caveats']))


if __name__ == '__main__':
    unittest.main(verbosity=2)
