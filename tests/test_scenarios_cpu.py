#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of the CPUs: runnable time, the CPU finding, waits
for a CPU and wake-up latency: hand-built kernel traces
(tests/wperf_scenario.py) through the real C plugin (sink.wperf.knots,
filter.wperf.waits), exact numbers derived by hand (tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_cpu.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenario_base import DISK, Base  # noqa: E402
from wperf_scenario import MS, S, US, Scenario, run_knots_text  # noqa: E402

TURN = 24 * MS   # WPERF_LOST_TURN_NS: a device wakeup's delay counted as the wait's


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

    def test_others_over_the_analysed_range(self):
        # The writer exits at 10 s of a 20 s trace; the spinner runs on
        # all along (20 s) and the hog takes cpu0 back (18 s in all). A
        # vertex keeps one running sum, the analysed range's, so the text
        # says over what, not "meanwhile": 2 CPUs run at most 20 s in the
        # writer's 10 s.
        s = starved_writer()
        s.end = 20 * S
        s.exit(10 * S, 0, 501)
        s.sleep(10 * S, 0, 501, next_tid=502, state=128)     # TASK_DEAD
        words = ' '.join(run_knots_text(s, pids='501').split())
        self.assertIn('Over the whole 20.0 s analysed other threads ran 38.0 s on the CPUs: '
                      'spinner (503) 20.0 s, hog (502) 18.0 s.', words)
        self.assertNotIn('Meanwhile', words)

    def test_no_focus_has_no_program_of_its_own(self):
        # Without a focus every thread is the report's: the trace's
        # threads, not "its own", contend for the CPUs.
        words = ' '.join(run_knots_text(starved_writer()).split())
        self.assertIn('First: the CPUs. Contention among the traced threads', words)
        self.assertNotIn('its own', words)

    def test_waits_on_it_leave_out_the_disk_turn(self):
        # R (504) waits on W [0.5 s, 9.5 s] (W wakes it, running on cpu0):
        # of W's runnable [3 s + 2 us, 9 s] the first turn after its disk's
        # wakeup is the disk's cost, so R waited on a runnable W the rest.
        s = starved_writer()
        R = s.thread(504, 'reader')
        s.run(0, 1, R)
        s.sleep(S // 2, 1, R, next_tid=503)
        s.wake(9 * S + S // 2, 0, R, target_cpu=1)
        r = self.knots(s, pids='504', merge='none')
        self.assertEqual(r.thread(504)['waiting_ns']['thread'], 9 * S)
        self.assertEqual(r.js['cpu']['waited_on_runnable_ns'], 6 * S - 2 * US - TURN)

    def test_not_first_when_it_runs(self):
        # H1 gives the CPU back at once: W is runnable 1 us after its disk
        # woke it, the disk wait's cost, not a wait for a CPU.
        r = self.knots(starved_writer(hog=False), pids='501')
        cpu = r.js['cpu']
        self.assertEqual((cpu['first'], cpu['runnable_ns']), (False, 0))
        self.assertEqual(r.thread(501)['woken_cpu_wait_ns'], 1 * US)
        text = run_knots_text(starved_writer(hog=False), pids='501')
        self.assertNotIn('First: the CPUs', text)


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


if __name__ == '__main__':
    unittest.main(verbosity=2)
