#!/usr/bin/python3
"""NICs as pseudo-threads (METHOD.md §5), recorded for real: a client and
a server thread over loopback TCP (tests/workloads/tcp-pingpong), recorded
with `wperf record`, reported focused on its pid.

- without nic-capacity, the link's idle time is unknown: the client waits
  for nic:lo (its wakeups run in NET_RX softirq context), nic:lo gets no
  edge back to anyone, its JSON capacity_bps is null and the text report
  says to give the speed;
- with nic-capacity="lo=10Gbit", nic:lo waits for the threads that send
  through it while idle, and the first knot is the client and nic:lo.

Needs root and lttng-tools (wperf record). Without them: FAIL under
CI=true, else SKIP (exit 77).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
from test_real_traces import Checks, validate_schema  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get('WPERF_SOURCE_ROOT', os.path.join(HERE, '..'))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(SOURCE_ROOT, 'build'))
WPERF = os.path.join(BUILD, 'tools', 'wperf')
WORKLOAD = os.path.join(BUILD, 'tests', 'workloads', 'tcp-pingpong')


def why_not():
    return recording.why_not_wperf_record(WPERF, WORKLOAD)


class NicRecorded(recording.WperfRecorded):
    COMMAND = ['tcp-pingpong', '--seconds', '2']

    def report(self, fmt, *params):
        return super().report(*params, fmt=fmt)

    @staticmethod
    def ids(js):
        lo = [v['id'] for v in js['vertices'] if v['kind'] == 'nic' and v['name'] == 'nic:lo']
        client = [v['id'] for v in js['vertices']
                  if v['kind'] == 'thread' and v.get('comm') == 'tcp-client']
        return lo, client

    def test_speed_unknown(self):
        js = self.report('json')
        validate_schema(self, js, 'tcp-pingpong')
        Checks.report_invariants(self, js, 'tcp-pingpong')
        lo, client = self.ids(js)
        self.assertEqual(len(lo), 1, 'no nic:lo vertex')
        self.assertEqual(len(client), 1, 'no tcp-client thread')
        byid = {v['id']: v for v in js['vertices']}
        self.assertIsNone(byid[lo[0]]['capacity_bps'])
        self.assertGreater(byid[lo[0]]['bytes'], 0)
        waits = [e for e in js['edges'] if e['from'] == client[0] and e['to'] == lo[0]]
        self.assertTrue(waits and waits[0]['count'] > 100,
                        'the client does not wait for nic:lo: %s' % waits)
        self.assertFalse([e for e in js['edges'] if e['from'] == lo[0]],
                         'nic:lo has edges without a link speed')
        text = self.report('text')
        self.assertIn('nic:lo: idle time unknown', text)

    def test_knot_through_the_nic(self):
        js = self.report('json', 'nic-capacity="lo=10Gbit"')
        validate_schema(self, js, 'tcp-pingpong (10Gbit)')
        lo, client = self.ids(js)
        byid = {v['id']: v for v in js['vertices']}
        self.assertEqual(byid[lo[0]]['capacity_bps'], 10 ** 10)
        knots = [k for k in js['knots'] if k['kind'] == 'knot']
        self.assertTrue(knots, 'no knot: %s' % [(k['kind'], [byid[m]['name'] for m in
                                                             k['members']])
                                                for k in js['knots']])
        self.assertIn(lo[0], knots[0]['members'])
        self.assertIn(client[0], knots[0]['members'])


if __name__ == '__main__':
    recording.main(why_not, 'a loopback TCP workload')
