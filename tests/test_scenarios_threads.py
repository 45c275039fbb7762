#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of thread lives: forks, exits, names, the statedump:
hand-built kernel traces (tests/wperf_scenario.py) through the real C plugin
(sink.wperf.knots, filter.wperf.waits), exact numbers derived by hand
(tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_threads.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenario_base import Base  # noqa: E402
from wperf_scenario import MS, S, US, Scenario  # noqa: E402


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


if __name__ == '__main__':
    unittest.main(verbosity=2)
