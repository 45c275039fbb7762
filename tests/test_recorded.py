#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Recorded for real: the Figure-1 workload (producer "fig1-producer" hands
requests to writer "fig1-writer", which fsyncs) recorded with
source.wperf.tracefs by tests/workloads/record-fig1.sh, then analysed with
sink.wperf.knots pids=<workload pid> format=json.

Asserts: the first knot contains the writer thread and a disk vertex and
not the producer; the report's invariants hold (as for the real LTTng
traces); filter.wperf.waits' segments tile each thread's lifetime.

Needs root and tracefs. Without them: FAIL under CI=true (a skip would hide
a broken CI setup), else SKIP (exit 77 for meson) saying why.
WPERF_KEEP_TRACE=1 keeps the recording (its directory is printed).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

import wperf_scenario as ws  # noqa: E402
from test_real_traces import Checks, ctf_dirs, readable_view, validate_schema  # noqa: E402

BUILD = recording.build_dir()
RECORD = os.path.join(recording.source_root(), 'tests', 'workloads', 'record-fig1.sh')
SECONDS = os.environ.get('WPERF_FIG1_SECONDS', '3')


def why_not():
    """None when recording can work here, else the reason."""
    if os.geteuid() != 0:
        return 'recording kernel events needs root (running as uid %d)' % os.geteuid()
    if not any(os.path.exists(os.path.join(d, 'trace'))
               for d in ('/sys/kernel/tracing', '/sys/kernel/debug/tracing')):
        if not os.path.isdir('/sys/kernel/tracing'):
            return 'no tracefs on this kernel (/sys/kernel/tracing missing)'
        # record-fig1.sh mounts it as root; let it try.
    if not os.path.exists(RECORD):
        return '%s does not exist' % RECORD
    wl = recording.workload_path('fig1-pipeline')
    if not os.access(wl, os.X_OK):
        return 'the workload %s is not built' % wl
    return None


class Recorded(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-recorded-', dir='/var/tmp')
        cls.trace = os.path.join(cls.tmp, 'trace')
        env = dict(os.environ, WPERF_BUILD_DIR=BUILD)
        # Recorded with SIGINT ignored, as under nohup or `make demo &`:
        # record-fig1.sh must still stop the recorder when the workload
        # ends (test_recording_ends_with_the_workload).
        p = subprocess.run(['bash', RECORD, cls.trace, SECONDS], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=180,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
        cls.record_log = p.stdout
        cls.record_rc = p.returncode
        cls.pid = None
        cls.js = None
        cls.report_err = None
        if p.returncode != 0:
            return
        with open(os.path.join(cls.trace, 'workload.pid')) as f:
            cls.pid = int(f.read().strip())
        dirs = ctf_dirs(cls.trace)
        if len(dirs) != 1:
            cls.report_err = 'expected one CTF trace under %s, found %s' % (cls.trace, dirs)
            return
        cls.ctf = readable_view(dirs[0], 'fig1')
        cls.js, cls.report_err = ws.run_knots_cli(cls.ctf, ',pids="%d"' % cls.pid)

    @classmethod
    def tearDownClass(cls):
        recording.remove_recordings(cls.tmp)

    def setUp(self):
        self.assertEqual(self.record_rc, 0, 'record-fig1.sh failed:\n' + self.record_log[-4000:])
        self.assertIsNone(self.report_err, self.report_err)

    def names(self, ids):
        byid = {v['id']: v for v in self.js['vertices']}
        return ['%s[%s tid=%s pid=%s]' % (byid[i]['name'], byid[i]['kind'], byid[i].get('tid'),
                                         byid[i].get('pid')) for i in ids]

    def scc_diagnosis(self, vid):
        """Why vid is not in a knot: its strongly connected component in the
        graph knots are found in (edges >= min_weight, not to timer/unknown,
        restricted to what the focus reaches without following device idle
        edges) and the heaviest edges leaving it there."""
        js = self.js
        byid = {v['id']: v for v in js['vertices']}
        floor = (js.get('min_weight') or {}).get('ns') or 0
        act = [e for e in js['edges'] if e['weight_ns'] > 0 and e['weight_ns'] >= floor
               and byid[e['to']]['kind'] not in ('timer', 'unknown')]
        adj = {}
        for e in act:
            adj.setdefault(e['from'], set()).add(e['to'])
        reach = set(js.get('focus') or byid)
        todo = list(reach)
        while js.get('focus') and todo:
            v = todo.pop()
            if byid[v]['kind'] in ('disk', 'nic'):
                continue
            for w in adj.get(v, ()):
                if w not in reach:
                    reach.add(w)
                    todo.append(w)
        act = [e for e in act if e['from'] in reach and e['to'] in reach]
        fwd, bwd = {}, {}
        for e in act:
            fwd.setdefault(e['from'], set()).add(e['to'])
            bwd.setdefault(e['to'], set()).add(e['from'])

        def closure(start, g):
            seen, stack = {start}, [start]
            while stack:
                for w in g.get(stack.pop(), ()):
                    if w not in seen:
                        seen.add(w)
                        stack.append(w)
            return seen
        scc = closure(vid, fwd) & closure(vid, bwd)
        out = sorted((e for e in act if e['from'] in scc and e['to'] not in scc),
                     key=lambda e: -e['weight_ns'])
        return ('focused graph: %d vertices, min_weight %d ns; component of %s: %d vertices '
                '%s; %d edges leave it, heaviest: %s' % (
                    len(reach), floor, byid[vid]['name'], len(scc),
                    self.names(sorted(scc))[:12], len(out),
                    ', '.join('%s -> %s w=%d n=%d' % (self.names([e['from']])[0],
                                                      self.names([e['to']])[0],
                                                      e['weight_ns'], e['count'])
                              for e in out[:10])))

    def test_writer_disk_knot(self):
        js = self.js
        byid = {v['id']: v for v in js['vertices']}
        knots = [k for k in js['knots'] if k['kind'] == 'knot']
        summary = '; '.join('%s %s w=%s' % (k['kind'], self.names(k['members']), k['weight_ns'])
                            for k in js['knots'][:12])
        writer_ids = [v['id'] for v in js['vertices'] if v['kind'] == 'thread'
                      and v.get('pid') == self.pid and 'fig1-writer' in (v.get('comm') or
                                                                          v['name'])]
        self.assertTrue(writer_ids, 'no fig1-writer vertex of pid %d' % self.pid)
        if recording.writer_starved(js, writer_ids) and not (knots and set(writer_ids) &
                                                 set(knots[0]['members'])):
            # Other load kept the writer off the CPUs longer than it
            # waited for its disk: the report must lead with the CPUs and
            # name the writer; the writer-disk knot may or may not remain.
            self.assertTrue(js['cpu']['first'], 'writer starved, no CPU verdict: ' + summary)
            self.assertTrue(set(writer_ids) & set(js['cpu']['most_runnable']), js['cpu'])
            return
        if not knots or not set(writer_ids) & set(knots[0]['members']):
            summary += '\n' + self.scc_diagnosis(writer_ids[0])
        self.assertTrue(knots, 'no knot in the report: ' + summary)
        first = knots[0]
        members = [byid[m] for m in first['members']]
        writers = [v for v in members if v['kind'] == 'thread' and v['pid'] == self.pid
                   and 'fig1-writer' in (v.get('comm') or v['name'])]
        disks = [v for v in members if v['kind'] == 'disk']
        producers = [v for v in members if v['kind'] == 'thread'
                     and 'fig1-producer' in (v.get('comm') or v['name'])]
        self.assertTrue(writers, 'the first knot has no fig1-writer thread of pid %d: %s\nall: %s'
                        % (self.pid, self.names(first['members']), summary))
        self.assertTrue(disks, 'the first knot has no disk vertex: %s\nall: %s'
                        % (self.names(first['members']), summary))
        self.assertFalse(producers, 'the producer is in the first knot: %s'
                         % self.names(first['members']))
        # One verdict (wperf-analysis(7), Classification): blocking I/O,
        # the disk deciding, unless the members waited for a CPU longer
        # than inside the knot (a busy machine): then too few CPUs, and
        # the CPU comparison says so.
        c = first['classification']
        demand = [e for e in c['evidence'] if e['kind'] == 'cpu_demand']
        self.assertEqual(len(demand), 1, c)
        if demand[0]['a_ns'] > demand[0]['b_ns']:
            self.assertEqual(c['class'], 'too_few_cpus', c)
            self.assertTrue(demand[0]['decides'], c)
        else:
            self.assertEqual(c['class'], 'blocking_io', c)
            self.assertEqual(c['evidence'][0]['kind'], 'device', c)
            self.assertIn(c['evidence'][0]['vertex'], [d['id'] for d in disks])
        # The producer exists in the report (it waits for the writer).
        self.assertTrue(any(v['kind'] == 'thread' and 'fig1-producer' in (v.get('comm') or
                                                                         v['name'])
                            for v in js['vertices']), 'no fig1-producer vertex')

    def test_recording_ends_with_the_workload(self):
        """The analysed time is the workload's SECONDS plus record-fig1.sh's
        margins (a second or two), not the recorder's 60-second safety net."""
        span = self.js['time_range']['duration_ns']
        self.assertLess(span, (int(SECONDS) + 10) * 10**9,
                        'the recording lasted %.1f s for a %s s workload: the recorder '
                        'did not stop on SIGINT' % (span / 1e9, SECONDS))

    def test_wperf_report_of_the_recording_is_the_demos_report(self):
        """record-fig1.sh writes command.pid as `wperf record` does, so
        `wperf report TRACE` (what the demo prints and tells the user to run)
        is focused on the workload and finds the knots of pids=<workload>."""
        with open(os.path.join(self.trace, 'command.pid')) as f:
            self.assertEqual(int(f.read().strip()), self.pid)
        wperf = recording.wperf_path()
        if not os.access(wperf, os.X_OK):
            self.skipTest('%s is not built' % wperf)
        out = os.path.join(self.tmp, 'wperf-report.json')
        q = subprocess.run([wperf, 'report', '--format', 'json', '--output', out, self.trace],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=300)
        self.assertEqual(q.returncode, 0, q.stderr[-3000:])
        self.assertIn('focus: the recorded command (pid %d)' % self.pid, q.stderr)
        with open(out) as f:
            js = json.load(f)
        self.assertEqual(js['knots'], self.js['knots'])

    def test_invariants(self):
        validate_schema(self, self.js, 'fig1')
        Checks.report_invariants(self, self.js, 'fig1')

    def test_segments_tile(self):
        # Unfocused run of the same trace: the filter and the sink must agree
        # (thread by thread: merge="none", no pools).
        js, err = ws.run_knots_cli(self.ctf, ',merge="none"')
        self.assertIsNone(err, err)
        Checks.report_invariants(self, js, 'fig1 (all pids)')
        Checks.tiling(self, js, ws.run_segments_on_trace(self.ctf), 'fig1 (all pids)')


if __name__ == '__main__':
    recording.main(why_not, 'a real trace')
