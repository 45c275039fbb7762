#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Background knots (wperf-method(7) §7), recorded for real: tests/workloads/
heartbeat runs a heartbeat thread ("hb-heartbeat", a 10 ms timer, a mutex
now and then) that passes a token to a helper ("hb-helper"), beside a
writer ("hb-writer") that fsyncs. Recorded with `wperf record`, reported
focused on its pid.

Asserts: the heartbeat and the helper form a knot of kind "background",
with its cpu_share (below 1: their running and runnable times over the time
they existed), after
every knot and sink, and neither thread is in any knot of kind "knot";
the first entry of the report is the knot of the writer and the disk; the
JSON report validates and keeps its invariants; the text report presents
the background knot.

Needs root and lttng-tools (wperf record). Without them: FAIL under
CI=true, else SKIP (exit 77). WPERF_KEEP_TRACE=1 keeps the recording.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
from test_real_traces import Checks, validate_schema  # noqa: E402

SECONDS = os.environ.get('WPERF_HEARTBEAT_SECONDS', '3')


class BackgroundRecorded(recording.WperfRecorded):
    COMMAND = ['heartbeat', '--seconds', SECONDS]

    def report(self, fmt):
        return super().report(fmt=fmt)

    def thread(self, js, comm):
        ids = [v['id'] for v in js['vertices'] if v['kind'] == 'thread'
               and v.get('pid') == self.pid and v.get('comm') == comm]
        self.assertEqual(len(ids), 1, 'expected one %s thread of pid %d, found %s'
                         % (comm, self.pid, ids))
        return ids[0]

    @staticmethod
    def summary(js):
        byid = {v['id']: v for v in js['vertices']}
        return '; '.join('%s %s w=%d' % (k['kind'], [byid[m]['name'] for m in k['members']],
                                         k['weight_ns'])
                         for k in js['knots'][:12])

    def test_heartbeat_is_background(self):
        js = self.report('json')
        validate_schema(self, js, 'heartbeat')
        Checks.report_invariants(self, js, 'heartbeat')
        hb, helper = self.thread(js, 'hb-heartbeat'), self.thread(js, 'hb-helper')
        writer = self.thread(js, 'hb-writer')
        byid = {v['id']: v for v in js['vertices']}
        what = self.summary(js)

        background = [k for k in js['knots'] if k['kind'] == 'background'
                      and hb in k['members'] and helper in k['members']]
        self.assertEqual(len(background), 1, 'no background knot of the heartbeat and its '
                         'helper: ' + what)
        bg = background[0]
        self.assertEqual(bg['classification']['class'], 'background', bg)
        self.assertFalse([m for m in bg['members'] if byid[m]['kind'] in ('disk', 'nic')],
                         'a device in the background knot: ' + what)
        demand = {t['id']: t['running_ns'] + t['runnable_ns'] for t in js['threads']}
        self.assertEqual(bg['cpu_ns'], sum(demand[m] for m in bg['members']))
        # Utilisation over the time the two threads existed.
        lives = {t['id']: (t['first_ns'], t['last_ns']) for t in js['threads']}
        span = (max(lives[m][1] for m in bg['members']) -
                min(lives[m][0] for m in bg['members']))
        self.assertEqual(bg['span_ns'], span)
        self.assertLessEqual(bg['span_ns'], js['time_range']['duration_ns'])
        self.assertLess(bg['cpu_ns'], bg['span_ns'])
        self.assertAlmostEqual(bg['cpu_share'], bg['cpu_ns'] / bg['span_ns'], places=5)
        # The heartbeat is light: what it ran, not its demand (cpu_ns
        # holds runnable time too, which other load on the machine
        # inflates: 0.2008 once with both cores busy).
        ran = sum(t['running_ns'] for t in js['threads'] if t['id'] in bg['members'])
        self.assertLess(ran / bg['span_ns'], 0.2, 'the heartbeat used much CPU: ' + what)

        # Not the bottleneck: after every knot and sink, in no knot.
        pos = js['knots'].index(bg)
        self.assertFalse([k for k in js['knots'][pos:] if k['kind'] != 'background'],
                         'a knot or sink after the background knot: ' + what)
        self.assertFalse([k for k in js['knots'] if k['kind'] == 'knot'
                          and {hb, helper} & set(k['members'])],
                         'the heartbeat is in a knot: ' + what)

        first = js['knots'][0]
        self.assertEqual(first['kind'], 'knot', 'the first entry is not a knot: ' + what)
        self.assertIn(writer, first['members'], 'the writer is not in the first knot: ' + what)
        self.assertTrue([m for m in first['members'] if byid[m]['kind'] == 'disk'],
                        'no disk in the first knot: ' + what)

    def test_text_presents_background(self):
        text = self.report('text')
        self.assertRegex(text, r'Background knot \d+: .*hb-heartbeat|Background knot \d+: '
                         r'.*hb-helper')
        self.assertIn('less than one CPU', text)


if __name__ == '__main__':
    recording.main_wperf_record('a heartbeat workload', 'heartbeat')
