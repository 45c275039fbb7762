#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of what is analysed: the time window, the pid and
comm focus, forks followed, the tracer's own threads, filter.wperf.waits'
segment selection: hand-built kernel traces (tests/wperf_scenario.py)
through the real C plugin (sink.wperf.knots, filter.wperf.waits), exact
numbers derived by hand (tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_selection.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bt2  # noqa: E402
from scenario_base import Base  # noqa: E402
from wperf_scenario import (MS, S, US, Report, Scenario, ScenarioSource,  # noqa: E402
                            bt2_error_text, run_knots, run_knots_text, run_segments,
                            wperf_plugin)
from test_scenarios_devices import disk  # noqa: E402
from test_scenarios_waits import nested, single_wait  # noqa: E402


class TestWindow(Base):
    """begin/end (babeltrace2-sink.wperf.knots(7), "Time window"): the whole trace is
    read, only the window counts, segments and waits clipped to it.
    nested() in the window [0.2 s, 0.45 s]: A's wait [0.1, 0.4] counts
    [0.2, 0.4] = 0.2 s on A -> B; B's wait [0.05, 0.3] counts [0.2, 0.3]
    = 0.1 s on B -> C, plus A's windowed wait over it, [0.2, 0.3]: B -> C =
    0.2 s. In [0.2 s, 0.35 s], A's wait is still open at the window's
    end: it waits on `unknown`, as at a trace's end (B ends it only after
    the window), and nothing cascades onto B -> C."""

    def test_clipped_weights(self):
        r = Report(run_knots(nested(), begin='0.2', end='0.45'))
        self.assertEqual(r.js['time_range'], {'begin_ns': 200 * MS, 'end_ns': 450 * MS,
                                              'duration_ns': 250 * MS, 'cpus': 3})
        A, B, C = r.tid(101), r.tid(102), r.tid(103)
        self.assertEdge(r, A, B, 200 * MS, direct=200 * MS, count=1)
        self.assertEdge(r, B, C, 200 * MS, direct=100 * MS, count=1)
        self.assertEqual(len(r.js['edges']), 2, r.describe_edges())
        ta, tb, tc = r.thread(101), r.thread(102), r.thread(103)
        self.assertEqual((ta['running_ns'], ta['waiting_ns']['thread']), (50 * MS, 200 * MS))
        self.assertEqual((tb['running_ns'], tb['waiting_ns']['thread']), (150 * MS, 100 * MS))
        self.assertEqual((tc['running_ns'], tc['waiting_ns']['thread']), (250 * MS, 0))
        for t in r.js['threads']:
            self.assertEqual((t['first_ns'], t['last_ns']), (200 * MS, 450 * MS), t)

    def test_open_at_the_windows_end(self):
        r = Report(run_knots(nested(), begin='0.2', end='0.35'))
        self.assertEqual(r.js['time_range']['duration_ns'], 150 * MS)
        A, B, C = r.tid(101), r.tid(102), r.tid(103)
        unknown = r.vid(name='unknown')
        self.assertEdge(r, A, unknown, 150 * MS, direct=150 * MS, count=1)
        self.assertFalse(r.has_edge(A, B), r.describe_edges())
        self.assertEdge(r, B, C, 100 * MS, direct=100 * MS, count=1)
        self.assertEqual(r.js['quality']['waits_open_at_end'], 1)
        ta, tb, tc = r.thread(101), r.thread(102), r.thread(103)
        self.assertEqual((ta['running_ns'], ta['waiting_ns']['thread']), (0, 0))
        self.assertEqual((tb['running_ns'], tb['waiting_ns']['thread']), (50 * MS, 100 * MS))
        self.assertEqual((tc['running_ns'], tc['waiting_ns']['thread']), (150 * MS, 0))
        for t in r.js['threads']:
            self.assertEqual((t['first_ns'], t['last_ns']), (200 * MS, 350 * MS), t)
        # Open at the trace's end too: counted once.
        s = Scenario(ncpus=2, end=500 * MS)
        A, B = s.threads(101, 'A', 'B')
        s.running(A, B)
        s.sleep(100 * MS, 0, A)         # never woken
        s.sleep(150 * MS, 1, B)
        s.wake(200 * MS, 1, B)
        s.run(200 * MS, 1, B)
        r = Report(run_knots(s, begin='0', end='0.3'))
        self.assertEdge(r, r.tid(101), r.vid(name='unknown'), 200 * MS, direct=200 * MS)
        self.assertEqual(r.js['quality']['waits_open_at_end'], 1)

    def test_same_forms_as_the_trimmer(self):
        """An integer is seconds, as for babeltrace2's trimmer; an open end
        is the trace's own."""
        r = Report(run_knots(nested(), begin=0, end='0.45'))
        self.assertEqual(r.js['time_range']['end_ns'], 450 * MS)
        self.assertEdge(r, r.tid(101), r.tid(102), 300 * MS, direct=300 * MS)
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
        flight for 0.25 s of the window, W waits for it 0.25 s, still open
        at the window's end: on `unknown`, as at a trace's end; the disk
        is busy those 0.25 s and idle for the other 0.5 s, all of it W's
        (W issued in the window)."""
        r = Report(run_knots(disk(), begin='0.5', end='1.25'))
        W, d = r.tid(401), r.vid(kind='disk')
        self.assertEdge(r, W, r.vid(name='unknown'), 250 * MS, direct=250 * MS, count=1)
        self.assertFalse(r.has_edge(W, d), r.describe_edges())
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
        """begin/end: nested() in [0.2 s, 0.45 s] (TestWindow): segments
        clipped to the window, A's wait's cascade through B's clipped wait
        0.1 s."""
        out = run_segments(nested(), begin='0.2', end='0.45')
        self.assertSegs(out, 101, [('waiting', 200 * MS, 200 * MS, 'B', 100 * MS),
                                   ('running', 400 * MS, 50 * MS, None, None)])
        self.assertSegs(out, 102, [('waiting', 200 * MS, 100 * MS, 'C', 0),
                                   ('running', 300 * MS, 150 * MS, None, None)])
        self.assertSegs(out, 103, [('running', 200 * MS, 250 * MS, None, None)])
        # Open at the window's end, A's wait is on `unknown`.
        out = run_segments(nested(), begin='0.2', end='0.35')
        self.assertSegs(out, 101, [('waiting', 200 * MS, 150 * MS, 'unknown', 0)])
        # A knots sink behind it reuses its analysis only for the same
        # window: without one it reports the whole trace.
        win = {'begin': '0.2', 'end': '0.45'}
        whole = Report(run_knots_behind_filter(nested(), win))
        self.assertEdge(whole, whole.tid(101), whole.tid(102), 300 * MS)
        same = Report(run_knots_behind_filter(nested(), win, **win))
        self.assertEdge(same, same.tid(101), same.tid(102), 200 * MS)
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


if __name__ == '__main__':
    unittest.main(verbosity=2)
