#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of the trace as a whole: its range, the sink's
limits, lost events, call stacks, foreign streams, caveats, and the
invariants on every scenario: hand-built kernel traces
(tests/wperf_scenario.py) through the real C plugin (sink.wperf.knots,
filter.wperf.waits), exact numbers derived by hand (tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_trace.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bt2  # noqa: E402
from scenario_base import Base  # noqa: E402
from wperf_scenario import (MS, S, US, EachMessage, Report, Scenario,  # noqa: E402
                            ScenarioSource, one_wait, run_knots, run_knots_text,
                            run_segments, wperf_plugin)
import test_scenarios_devices as devices  # noqa: E402
import test_scenarios_threads as threads  # noqa: E402
from test_scenarios_cpu import hand_over  # noqa: E402
from test_scenarios_devices import (disk, hardirq, service_threads,  # noqa: E402
                                    softirq_daemon, timers)
from test_scenarios_waits import (chain, cycle_and_chain, nested, refine4,  # noqa: E402
                                  single_wait, two_waiters)


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
                     'zero_byte': devices.TestDiskZeroByteIssuer.scenario,
                     'exit_then_switch': threads.TestExitThenSwitch.scenario,
                     'statedump': threads.TestStatedump.scenario, 'far_packets': far_packets}
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
