#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of the wait-for graph: a thread's segments, the
cascade of nested waits, knots and their refinement: hand-built kernel
traces (tests/wperf_scenario.py) through the real C plugin
(sink.wperf.knots, filter.wperf.waits), exact numbers derived by hand
(tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_waits.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenario_base import DISK, KINDS, U, Base, segments_of  # noqa: E402
from wperf_scenario import (MS, S, US, Report, Scenario, hist_count, log2_bucket,  # noqa: E402
                            one_wait, run_knots, run_segments)


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
    A->C), then D->A: {C,D} is then terminal (C<->D), a simple cycle, and
    the paper's knot (knot-rule="strict"). {A,B} waits on it through A->C,
    300 ms of its 1.7 s: under the default dominant rule (at most 20%
    leaves) it is a knot too, as it would be had D->A never joined them."""

    def check_edges(self, r):
        n = {x: r.tid(t) for x, t in zip('ABCD', (101, 102, 103, 104))}
        for waiter, waker, t1, t2 in REFINE_WAITS:
            self.assertEdge(r, n[waiter], n[waker], (t2 - t1) * U, direct=(t2 - t1) * U,
                            count=1)
        self.assertEqual(len(r.js['edges']), len(REFINE_WAITS), r.describe_edges())
        return n

    def test_to_simple_cycle(self):
        r = self.knots(refine4(), threshold='550ms', **{'knot-rule': 'strict'})
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

    def test_dominant_keeps_the_upstream_cycle(self):
        r = self.knots(refine4(), threshold='550ms')
        n = self.check_edges(r)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots],
                         [sorted([n['A'], n['B']]), sorted([n['C'], n['D']])],
                         r.describe_knots())
        up, down = knots
        self.assertEqual(up['weight_ns'], 1700 * MS)
        self.assertEqual(up['leaving_ns'], 300 * MS)
        self.assertEqual(down['leaving_ns'], 0)
        for k in knots:
            self.assertEqual(k['stop_reason'], 'simple cycle')
            self.assertEqual([(x['from'], x['to']) for x in k['removed']],
                             [(n['B'], n['C']), (n['D'], n['A'])])

    def test_default_threshold(self):
        # 20% of 4.2 s = 840 ms: same removals as with 550 ms.
        r = self.knots(refine4(), **{'knot-rule': 'strict'})
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


def driven_server():
    """A script D (601) starts a server S (602), waits on `timeout` T (603)
    for the run, then for S to exit; S fsyncs in a loop. Trace [0, 10 s] on
    2 CPUs. S waits for D's first request [1 us, 300 ms]; T sleeps on a
    timer [1 us, 9.7 s] and wakes D, which waited on it [300 ms, 9.7 s];
    D waits for S to exit [9.7 s + 20 us, 9.9 s]. S: 959 rounds from
    300.01 ms, 10 ms each: on the disk 8 ms + 4 us (irq on cpu0), running
    the rest. The group {D, S, disk} is strongly connected through S -> D
    and D -> S, and D -> T leaves it: it fails the knot rule."""
    s = Scenario(ncpus=2, end=10 * S)
    D, Sv, T = s.thread(601, 'driver'), s.thread(602, 'server'), s.thread(603, 'timeout')
    s.run(0, 0, T)
    s.sleep(1 * US, 0, T, next_tid=D)
    s.run(0, 1, Sv)
    s.sleep(1 * US, 1, Sv)
    s.wake(300 * MS, 0, Sv, target_cpu=1)
    s.run(300 * MS + 1 * US, 1, Sv)
    s.sleep(300 * MS + 2 * US, 0, D)
    for i in range(959):
        t0 = 300 * MS + 10 * US + i * 10 * MS
        s.disk_wait(t0, 1, Sv, DISK, t0 + 8 * MS, 0)
    s.hrtimer_entry(9700 * MS, 0)
    s.wake(9700 * MS + 1 * US, 0, T)
    s.hrtimer_exit(9700 * MS + 2 * US, 0)
    s.run(9700 * MS + 3 * US, 0, T)
    s.wake(9700 * MS + 10 * US, 0, D)
    s.sleep(9700 * MS + 11 * US, 0, T, next_tid=D)
    s.sleep(9700 * MS + 20 * US, 0, D)
    s.wake(9900 * MS, 1, D, target_cpu=0)
    s.exit(9900 * MS + 1 * US, 1, Sv)
    s.switch(9900 * MS + 2 * US, 1, Sv, 0, prev_state=128)
    s.run(9900 * MS + 3 * US, 0, D)
    return s


class TestKnotInsideGroup(Base):
    """A heavy group that fails the knot rule is split by refinement's cuts
    (wperf-analysis(7), Knots inside a heavy group): the server and its
    disk are a knot, though the driver's start and end tie them to its
    wait on `timeout`."""

    def test_server_disk_knot_first(self):
        r = self.knots(driven_server(), pids='601,602,603', merge='none')
        D, Sv, T, disk = r.tid(601), r.tid(602), r.tid(603), r.vid(kind='disk')
        self.assertEdge(r, Sv, D, 300 * MS - 1 * US, direct=300 * MS - 1 * US, count=1)
        self.assertEdge(r, D, Sv, 200 * MS - 20 * US, direct=200 * MS - 20 * US, count=1)
        group = r.js['groups']
        self.assertEqual([g['members'] for g in group], [sorted([D, Sv, disk])], r.describe_knots())
        first = r.js['knots'][0]
        self.assertEqual((first['kind'], first['members']), ('knot', sorted([Sv, disk])),
                         r.describe_knots())
        self.assertEqual(first['component'], sorted([D, Sv, disk]))
        # The split cut the lightest edge, D -> S (the wait for its exit);
        # S -> D then leaves the knot, 3% of its weight.
        self.assertEqual([(x['from'], x['to']) for x in first['removed']], [(D, Sv)])
        self.assertEqual(first['leaving_ns'], 300 * MS - 1 * US)
        self.assertEqual(first['stop_reason'], 'simple cycle')
        sinks = r.knots('sink')
        self.assertEqual([k['members'] for k in sinks], [[T]], r.describe_knots())


if __name__ == '__main__':
    unittest.main(verbosity=2)
