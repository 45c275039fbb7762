#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A thread woken by a packet another network namespace's thread sent
waits for that thread, recorded for real: a client and a server that
fsyncs each request (tests/workloads/netns-fsync.py), in two network
namespaces this test makes (joined by a veth pair whose ends are named
apart), recorded with `wperf record`, reported with the launcher's pid
and the processes it started (follow-forks).

- the client waits for the server and the server for the client
  (wperf-analysis(7), Network interfaces: the sender's edge, by skb), and
  neither waits for a `nic:` vertex of the veth pair;
- the client pauses 2 ms before each request: the server's waits for
  the next request, ended by the client's packet, are the client's, at
  least one for every other round trip and 1.5 ms each.

Needs root, tracefs (or lttng-modules) and `ip netns`. Without them: FAIL
under CI=true, else SKIP (exit 77).
"""

import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'workloads',
                      'netns-fsync.py')
TAG = os.urandom(4).hex()
NS = ('wpxhs' + TAG, 'wpxhc' + TAG)     # this test's own namespaces
OCTET = 1 + int(TAG[:2], 16) % 250
ADDR = '10.232.%d.1' % OCTET


def make_namespaces():
    s, c = NS
    for cmd in (['ip', 'netns', 'add', s], ['ip', 'netns', 'add', c],
                ['ip', '-n', s, 'link', 'add', 'xh-s', 'type', 'veth',
                 'peer', 'name', 'xh-c', 'netns', c],
                ['ip', '-n', s, 'addr', 'add', ADDR + '/30', 'dev', 'xh-s'],
                ['ip', '-n', c, 'addr', 'add', '10.232.%d.2/30' % OCTET, 'dev', 'xh-c'],
                ['ip', '-n', s, 'link', 'set', 'xh-s', 'up'],
                ['ip', '-n', c, 'link', 'set', 'xh-c', 'up'],
                ['ip', '-n', s, 'link', 'set', 'lo', 'up'],
                ['ip', '-n', c, 'link', 'set', 'lo', 'up']):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            remove_namespaces()
            raise RuntimeError('%s: %s' % (' '.join(cmd), p.stdout.strip()))


def remove_namespaces():
    for ns in NS:
        subprocess.run(['ip', 'netns', 'del', ns], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


class NetnsRecorded(recording.WperfRecorded):
    COMMAND = [SCRIPT, 'run', NS[0], NS[1], ADDR, '2', '/var/tmp']

    @classmethod
    def setUpClass(cls):
        make_namespaces()
        try:
            super().setUpClass()
        finally:
            remove_namespaces()

    def ids(self, js):
        def find(comm):
            found = [v['id'] for v in js['vertices']
                     if v['kind'] == 'thread' and v.get('comm') == comm]
            self.assertEqual(len(found), 1, '%s: %s' % (comm, found))
            return found[0]
        return find('xh-client'), find('xh-server')

    def test_sender_edges(self):
        js = self.report('follow-forks=true')
        self.assertIn('round trips', self.log)
        client, server = self.ids(js)
        edges = {(e['from'], e['to']): e for e in js['edges']}
        self.assertIn((client, server), edges, 'the client does not wait for the server')
        self.assertGreater(edges[(client, server)]['count'], 20)
        self.assertIn((server, client), edges, 'the server does not wait for the client')
        veth = {v['id'] for v in js['vertices'] if v['name'] in ('nic:xh-s', 'nic:xh-c')}
        on_veth = [e for e in js['edges'] if e['to'] in veth and e['from'] in (client, server)]
        self.assertFalse(on_veth, 'waits for the veth pair: %s' % on_veth)

    def test_server_waits_out_the_client_pause(self):
        """The client pauses 2 ms before each request: each wait of the
        server for the next request, which the client's packet ends, is
        at least that long, and it is the client's (not the veth's)."""
        js = self.report('follow-forks=true')
        m = re.search(r'^xh-client: (\d+) round trips$', self.log, re.M)
        self.assertTrue(m, self.log[-2000:])
        trips = int(m.group(1))
        client, server = self.ids(js)
        e = [e for e in js['edges'] if e['from'] == server and e['to'] == client]
        self.assertTrue(e, 'the server does not wait for the client')
        self.assertGreaterEqual(e[0]['count'], trips // 2, e[0])
        self.assertGreaterEqual(e[0]['direct_ns'], e[0]['count'] * 1_500_000, e[0])


if __name__ == '__main__':
    recording.main_wperf_record('a client and a server in two network namespaces',
                                tools=('ip',))
