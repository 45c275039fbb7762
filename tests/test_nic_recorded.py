#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""NICs as pseudo-threads (wperf-method(7) §5) and loopback, recorded for real:
a client and a server thread over loopback TCP
(tests/workloads/tcp-pingpong), recorded with `wperf record`, reported
focused on its pid.

- over loopback the receive softirq runs on the sender's CPU right after
  it sent (wperf-analysis(7), Network interfaces): the client waits for
  the server and the server for the client, nobody waits for nic:lo, and
  the first knot is {tcp-client, tcp-server} — when the server blocks
  waiting for the client (5 % of its life or more, by its own schedstat,
  which the workload prints). When it hardly ever blocks (under 2 %:
  other load or tracing slow it, so each request is there before it
  reads), the server bounds the pair, and the report must lead with it:
  the CPUs with the server most runnable, or the server as a sink;
- without nic-capacity, nic:lo still counts the bytes sent, gets no edge
  (its idle time is unknown), its JSON capacity_bps is null and the text
  report says to give the speed;
- with nic-capacity="lo=10Gbit", nic:lo waits for the threads that send
  through it while idle (edges from it), but nothing waits on it: the
  knot stays the two threads.

Needs root and lttng-tools (wperf record). Without them: FAIL under
CI=true, else SKIP (exit 77).
"""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
from test_real_traces import Checks, validate_schema  # noqa: E402


class NicRecorded(recording.WperfRecorded):
    COMMAND = ['tcp-pingpong', '--seconds', '2']

    def report(self, fmt, *params):
        return super().report(*params, fmt=fmt)

    @staticmethod
    def ids(js):
        lo = [v['id'] for v in js['vertices'] if v['kind'] == 'nic' and v['name'] == 'nic:lo']
        client = [v['id'] for v in js['vertices']
                  if v['kind'] == 'thread' and v.get('comm') == 'tcp-client']
        server = [v['id'] for v in js['vertices']
                  if v['kind'] == 'thread' and v.get('comm') == 'tcp-server']
        return lo, client, server

    def server_blocked_share(self):
        """The share of its life the server spent blocked, from its own
        /proc/thread-self/schedstat (printed by the workload)."""
        m = re.search(r'^tcp-server: running \d+ ns, runnable \d+ ns, blocked (\d+) ns, '
                      r'of (\d+) ns$', self.log, re.M)
        self.assertTrue(m, 'the workload did not print the server\'s time:\n' + self.log)
        return int(m.group(1)) / max(int(m.group(2)), 1)

    def assert_first_finding(self, js, client, server):
        """The knot of the two when the server blocks for the client; the
        server first (as a sink, or the CPUs with it most runnable) when
        it hardly blocks; either in between."""
        byid = {v['id']: v for v in js['vertices']}
        entries = [(k['kind'], [byid[m]['name'] for m in k['members']]) for k in js['knots']]
        share = self.server_blocked_share()
        knots = [k for k in js['knots'] if k['kind'] == 'knot']
        is_knot = bool(knots) and sorted(knots[0]['members']) == sorted(client + server)
        leads = (js['cpu']['first'] and set(server) & set(js['cpu']['most_runnable'])) or \
            (bool(js['knots']) and js['knots'][0]['kind'] == 'sink'
             and js['knots'][0]['members'] == server)
        what = 'server blocked %.1f%% of its life; findings %s; CPU %s' % (
            100 * share, entries, js['cpu'])
        if share >= 0.05:
            self.assertTrue(is_knot, what)
        elif share < 0.02:
            self.assertTrue(leads, what)
        else:
            self.assertTrue(is_knot or leads, what)

    def test_speed_unknown(self):
        js = self.report('json')
        validate_schema(self, js, 'tcp-pingpong')
        Checks.report_invariants(self, js, 'tcp-pingpong')
        lo, client, server = self.ids(js)
        self.assertEqual(len(lo), 1, 'no nic:lo vertex')
        self.assertEqual(len(client), 1, 'no tcp-client thread')
        self.assertEqual(len(server), 1, 'no tcp-server thread')
        byid = {v['id']: v for v in js['vertices']}
        self.assertIsNone(byid[lo[0]]['capacity_bps'])
        self.assertGreater(byid[lo[0]]['bytes'], 0)
        waits = [e for e in js['edges'] if e['from'] == client[0] and e['to'] == server[0]]
        self.assertTrue(waits and waits[0]['count'] > 100,
                        'the client does not wait for the server: %s' % waits)
        on_lo = [e for e in js['edges'] if e['to'] == lo[0]]
        self.assertFalse(on_lo, 'threads wait for nic:lo: %s' % on_lo)
        self.assertFalse([e for e in js['edges'] if e['from'] == lo[0]],
                         'nic:lo has edges without a link speed')
        self.assert_first_finding(js, client, server)
        text = self.report('text')
        self.assertIn('nic:lo: idle time unknown', text)

    def test_knot_with_a_speed(self):
        js = self.report('json', 'nic-capacity="lo=10Gbit"')
        validate_schema(self, js, 'tcp-pingpong (10Gbit)')
        lo, client, server = self.ids(js)
        byid = {v['id']: v for v in js['vertices']}
        self.assertEqual(byid[lo[0]]['capacity_bps'], 10 ** 10)
        self.assertTrue([e for e in js['edges'] if e['from'] == lo[0]],
                        'nic:lo has no idle edge with a link speed')
        self.assert_first_finding(js, client, server)

if __name__ == '__main__':
    recording.main_wperf_record('a loopback TCP workload', 'tcp-pingpong')
