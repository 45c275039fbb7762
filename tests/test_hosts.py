#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Several hosts' kernel traces in one wait-for graph.

  - two hand-built hosts (`alpha`, `beta`: their own clock UUIDs, the same
    tid 100 and the same disk 8:0 on each), one source each, through
    filter.utils.muxer into sink.wperf.knots: each thread and each disk
    is its host's own vertex (JSON `host`, text `client (100)@alpha`),
    with the exact waits, the same as each host's trace reported alone
    (which names no host);
  - the same two traces written as CTF: `wperf report DIR1 DIR2` refuses
    them in one line (no TCP segment between them: no common time base);
  - two hand-built hosts whose clocks differ by a known 5.000123 s and
    100 ppm, with 20 TCP segments each way: `wperf report DIR1 DIR2` puts
    beta on alpha's time; the truth is within the stated accuracy at both
    ends of the matches, a 500 ms wait on beta is 500 ms on alpha's time
    within twice it (50 us longer on beta's clock), nothing is out of
    order, and Data quality states the transform;
  - a client on alpha and a disk-bound server on beta exchanging TCP
    segments: each thread woken by the receive of the other's segment
    waits for that thread on the other host (exact edges), the knot is
    {client@alpha, server@beta, disk@beta}, through the muxer and through
    `wperf report` with beta's clock 5.000123 s ahead; a receive whose
    segment no traced thread sent stays on nic:eth0@alpha;
  - three hosts in a chain, client@alpha -> front@beta -> db@gamma, gamma
    talking to beta only (beta 100 ppm and 5.000123 s from alpha, gamma
    200 ppm and 10.000456 s): `wperf report` places gamma on alpha's time
    through beta (JSON path, Data quality), the truth within the two
    pairs' accuracies added; the knot {client, front, db, disk@gamma}
    with every wait across the hosts exact on one clock, and when skewed
    the client's exact and the others within their hosts' accuracies; a direct alpha <-> gamma pair is taken when its bound is
    tighter than the chain's sum, not when looser; a fourth host whose
    segments go one way only is refused in one line; the same live
    (sync-hosts=alpha,beta,gamma);
  - the shared pair `tc-synctraces` (VM1, VM3) reported as one graph:
    both hosts' vertices, every vertex named with its host, threads of
    the same tid on both hosts kept apart, and the only waits across the
    hosts those of scp's ssh and sshd for each other.

Usage: WPERF_PLUGIN_DIR=build/plugin WPERF_BUILD_DIR=build \
       /usr/bin/python3 tests/test_hosts.py [--shared-dir-default DIR]
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wperf_scenario as ws  # noqa: E402
import bt2  # noqa: E402

SHARED = ws.shared_dir()
SYNC = os.path.join(SHARED, 'traces', 'lttng-kernel', 'tc-synctraces')
BUILD_DIR = os.environ.get('WPERF_BUILD_DIR',
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
WPERF = os.path.join(BUILD_DIR, 'tools', 'wperf')
MS, US = ws.MS, ws.US
DISK = ws.dev_t(8, 0)


def disk_host(name, done_ms, comm):
    """One host: `comm` (tid 100, CPU 0) writes to disk 8:0 at 1 ms and
    sleeps until the request completes at done_ms (woken 2 us later: a
    wait of done_ms - 1 ms + 2 us); trace [0, 10 ms]."""
    s = ws.Scenario(ncpus=2, end=10 * MS, hostname=name,
                    clock_uuid=uuid.uuid5(uuid.NAMESPACE_DNS, name + '.wperf.test'))
    t = s.thread(100, comm)
    s.run(0, 0, t)
    s.disk_wait(1 * MS, 0, t, DISK, done_ms * MS, 1)
    return s


def wait_edges(js):
    """{(from label, to label): direct_ns} of the report's edges."""
    def label(v):
        name = '%s (%d)' % (v['comm'], v['tid']) if v['kind'] == 'thread' else v['name']
        return name + ('@' + v['host'] if 'host' in v else '')
    vs = {v['id']: v for v in js['vertices']}
    return {(label(vs[e['from']]), label(vs[e['to']])): e['direct_ns'] for e in js['edges']}


class TwoHandBuiltHosts(unittest.TestCase):
    def setUp(self):
        self.alpha = disk_host('alpha', 5, 'client')
        self.beta = disk_host('beta', 3, 'server')

    def test_one_graph(self):
        js = ws.run_knots_hosts([self.alpha, self.beta])
        hosts = sorted((v['name'], v.get('tid'), v['host']) for v in js['vertices']
                       if v['kind'] in ('thread', 'disk'))
        self.assertEqual(hosts, [('client', 100, 'alpha'), ('disk:8:0', None, 'alpha'),
                                 ('disk:8:0', None, 'beta'), ('server', 100, 'beta')])
        self.assertTrue(all('host' in v for v in js['vertices']))
        self.assertTrue(all('host' in t for t in js['threads']))
        edges = wait_edges(js)
        self.assertEqual(edges[('client (100)@alpha', 'disk:8:0@alpha')], 4 * MS + 2 * US)
        self.assertEqual(edges[('server (100)@beta', 'disk:8:0@beta')], 2 * MS + 2 * US)
        # no wait crosses hosts without a network edge
        for (a, b) in edges:
            self.assertEqual(a.split('@')[1], b.split('@')[1], (a, b))

    def test_each_host_alone(self):
        both = wait_edges(ws.run_knots_hosts([self.alpha, self.beta]))
        for scn in (self.alpha, self.beta):
            alone = ws.run_knots(scn)
            self.assertFalse(any('host' in v for v in alone['vertices']))
            suffix = '@' + scn.hostname
            mine = {(a[:-len(suffix)], b[:-len(suffix)]): w for (a, b), w in both.items()
                    if a.endswith(suffix)}
            self.assertEqual(mine, wait_edges(alone))

    def test_focus_on_a_pid_of_every_host(self):
        """pids= names a host's own pid: tid 100 is alpha's client and
        beta's server alike."""
        js = ws.run_knots_hosts([self.alpha, self.beta], pids='100')
        focus = sorted((js['vertices'][i]['name'], js['vertices'][i]['host'])
                       for i in js['focus'])
        self.assertEqual(focus, [('client', 'alpha'), ('server', 'beta')])

    def test_text_names_hosts(self):
        self.beta.net_xmit(6 * MS, 1, 'eth0', 1500)
        text = ws.run_knots_hosts_text([self.alpha, self.beta])
        # the parameter names the device, the line its host
        self.assertIn('nic:eth0@beta: idle time unknown (give its link speed: '
                      '--params \'nic-capacity="eth0=1Gbit"\')', text)
        self.assertIn('client (100)@alpha -> disk:8:0@alpha', text)
        self.assertIn('server (100)@beta -> disk:8:0@beta', text)

    def test_nic_capacity_hint_is_a_valid_option(self):
        """The hint's option, as a shell would pass it to wperf report,
        is accepted and gives the NIC its speed (it once lacked --params
        and the shell quotes, and as typed was no string)."""
        self.beta.net_xmit(6 * MS, 1, 'eth0', 1500)
        text = ws.run_knots_hosts_text([self.alpha, self.beta])
        hint = re.search(r'nic:eth0@beta: idle time unknown \(give its link speed: (.*)\)$',
                         text, re.M)
        self.assertTrue(hint, text)
        args = shlex.split(hint.group(1))
        self.assertEqual(args[0], '--params')
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            # beta's trace alone (these two hosts exchange no packets)
            beta = ws.write_ctf(self.beta, os.path.join(tmp, 'beta'))
            p = wperf_report([beta], *args)
            self.assertEqual(p.returncode, 0, p.stderr)
            nic = [v for v in json.loads(p.stdout)['vertices'] if v['kind'] == 'nic']
            self.assertEqual([v['capacity_bps'] for v in nic], [10 ** 9])
        finally:
            shutil.rmtree(tmp)

    def test_wperf_report_refuses_one_host_twice(self):
        """The same trace twice, or two traces of one host: one line that
        says so, not that no packets matched."""
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            a = ws.write_ctf(self.alpha, os.path.join(tmp, 'a1'))
            a2 = ws.write_ctf(self.alpha, os.path.join(tmp, 'a2'))
            for dirs, words in (([a, a], '%s is given twice' % a),
                                ([a, a2], 'are both traces of host alpha')):
                p = wperf_report(dirs)
                self.assertEqual(p.returncode, 1, p.stderr)
                self.assertEqual(p.stdout, '')
                lines = p.stderr.strip().splitlines()
                self.assertEqual(len(lines), 1, p.stderr)
                self.assertIn(words, lines[0])
        finally:
            shutil.rmtree(tmp, True)

    def test_wperf_report_refuses_unsynchronised(self):
        """No TCP segment between them: their clocks cannot be put on one
        time base, and `wperf report` says so in one line."""
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            dirs = [ws.write_ctf(s, os.path.join(tmp, s.hostname)) for s in (self.alpha, self.beta)]
            p = wperf_report(dirs)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stdout, '')
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn('no TCP segments were matched between their hosts', lines[0])
        finally:
            shutil.rmtree(tmp, True)


def wperf_report(dirs, *args):
    return subprocess.run([WPERF, 'report', '--plugin-path', ws.plugin_dir(), '--format',
                           'json'] + list(args) + list(dirs),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)


# beta's clock reads ALPHA * t + BETA when alpha's reads t: 100 ppm fast,
# 5.000123 s ahead; a segment takes 5 us each way (the bound, about that,
# is ten times finer than the 50 us the drift adds to a 500 ms wait).
ALPHA = 1 + 100e-6
BETA = 5_000_123_000
DELAY = 5 * US
TCP = [('sk', 'u64'), ('seq', 'u32'), ('ack_seq', 'u32'), ('flags', 'u32')]


def on_beta(x):
    """beta's clock at alpha's time x."""
    return round(ALPHA * x + BETA)


def synced_hosts(both_ways=True):
    """alpha and beta exchange 20 TCP segments each way over 1 s
    (lttng-modules 2.1's inet_sock_local_out/in). On beta, `server` (tid
    100) waits from alpha's 200 ms to 700 ms for `waker` (101), which runs
    throughout. Events are placed on alpha's time, beta's written on its
    own clock. both_ways=False: only alpha's segments reach beta (beta's
    are never received)."""
    hosts = {}
    for name in ('alpha', 'beta'):
        s = ws.Scenario(ncpus=2, hostname=name, begin=None,
                        clock_uuid=uuid.uuid5(uuid.NAMESPACE_DNS, name + '.wperf.test'))
        s.layouts['inet_sock_local_out'] = TCP
        s.layouts['inet_sock_local_in'] = TCP
        hosts[name] = s
    a, b = hosts['alpha'], hosts['beta']
    for s, when in ((a, lambda x: x), (b, on_beta)):
        t1, t2 = s.thread(100, 'client' if s is a else 'server'), s.thread(101, 'waker')
        s.run(when(0), 0, t1)
        s.run(when(0), 1, t2)
    for i in range(20):
        x = 10 * MS + i * 40 * MS
        a.ev(x, 0, 'inet_sock_local_out', sk=1, seq=1000 + i, ack_seq=1, flags=0x18)
        b.ev(on_beta(x + DELAY), 0, 'inet_sock_local_in', sk=2, seq=1000 + i, ack_seq=1,
             flags=0x18)
        x += 20 * MS
        b.ev(on_beta(x), 1, 'inet_sock_local_out', sk=2, seq=5000 + i, ack_seq=1001 + i,
             flags=0x10)
        if both_ways:
            a.ev(x + DELAY, 1, 'inet_sock_local_in', sk=1, seq=5000 + i, ack_seq=1001 + i,
                 flags=0x10)
    b.sleep(on_beta(200 * MS), 0, 100)
    b.wake(on_beta(700 * MS), 1, 100, target_cpu=0)
    b.run(on_beta(700 * MS) + 1 * US, 0, 100)
    a.ev(1000 * MS, 0, 'inet_sock_local_out', sk=1, seq=9999, ack_seq=1, flags=0x11)
    b.ev(on_beta(1000 * MS), 0, 'inet_sock_local_out', sk=2, seq=9998, ack_seq=1, flags=0x11)
    return a, b


class OneWayOnly(unittest.TestCase):
    def test_refused(self):
        """Segments one way only bound the offset on one side: refused in
        one line that names the pair and the synchronisation's quality."""
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            dirs = [ws.write_ctf(s, os.path.join(tmp, s.hostname))
                    for s in synced_hosts(both_ways=False)]
            p = wperf_report(dirs)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertEqual(p.stdout, '')
            lines = p.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, p.stderr)
            self.assertIn("no chain of host pairs whose TCP segments were matched both ways "
                          "links beta to alpha (synchronisation alpha-beta incomplete), so its "
                          "clock cannot be put on alpha's time", lines[0])
        finally:
            shutil.rmtree(tmp, True)


class SynchronisedHosts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        cls.dirs = [ws.write_ctf(s, os.path.join(cls.tmp, s.hostname)) for s in synced_hosts()]
        p = wperf_report(cls.dirs)
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        cls.js = ws.report_invariants.check(json.loads(p.stdout), 'two synchronised hosts')
        cls.text = wperf_report(cls.dirs, '--format', 'text').stdout

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def clock(self):
        hosts = {h['name']: h['clock'] for h in self.js['hosts']}
        self.assertIsNone(hosts['alpha'])
        self.assertEqual(hosts['beta']['reference'], 'alpha')
        return hosts['beta']

    def test_transform_within_its_bound(self):
        c = self.clock()
        # every transform the matches allow is within accuracy_ns over
        # them: the truth too, at the first and the last match
        for x in (10 * MS, 790 * MS + DELAY):
            ours = c['anchor_ns'] + c['offset_ns'] + c['alpha'] * (x - c['anchor_ns'])
            self.assertLessEqual(abs(ours - (ALPHA * x + BETA)), c['accuracy_ns'] + 1, x)
        # the bound is about the segments' delay, not the 5 s offset
        self.assertLess(c['accuracy_ns'], 2 * DELAY)
        self.assertGreater(c['accuracy_ns'], 0)

    def test_waits_on_one_time_base(self):
        """server's 500 ms wait (500.05 ms on beta's fast clock) is 500 ms
        on alpha's, within twice the stated accuracy; both hosts' threads
        span alpha's time, not beta's 5 s ahead."""
        c = self.clock()
        edges = wait_edges(self.js)
        w = edges[('server (100)@beta', 'waker (101)@beta')]
        self.assertLessEqual(abs(w - 500 * MS), 2 * c['accuracy_ns'] + 2, w)
        self.assertEqual(self.js['quality']['events_out_of_order'], 0)
        firsts = {(t['host'], t['tid']): t['first_ns'] for t in self.js['threads']}
        self.assertEqual(firsts[('alpha', 100)], 0)
        self.assertLessEqual(abs(firsts[('beta', 100)]), c['accuracy_ns'] + 1)
        self.assertLess(self.js['time_range']['end_ns'] - self.js['time_range']['begin_ns'],
                        1001 * MS)

    def test_data_quality_states_the_transform(self):
        c = self.clock()
        line = [l for l in self.text.splitlines() if 'clock of beta' in l]
        self.assertEqual(len(line), 1, self.text[-3000:])
        self.assertIn("on alpha's time: offset +5.000", line[0])
        self.assertIn('drift %+.3f ppm' % ((c['alpha'] - 1) * 1e6), line[0])
        # the drift the matches allow: 100 ppm within the accuracy over 1 s
        self.assertLess(abs((c['alpha'] - ALPHA) * 1e9), 2 * c['accuracy_ns'])
        self.assertIn('accurate to +-%.0f ns' % c['accuracy_ns'], line[0])


def tcp_host(name, begin=None, end=None):
    s = ws.Scenario(ncpus=2, begin=begin, end=end, hostname=name,
                    clock_uuid=uuid.uuid5(uuid.NAMESPACE_DNS, name + '.wperf.test'))
    s.layouts['inet_sock_local_out'] = TCP
    s.layouts['inet_sock_local_in'] = TCP
    return s


def tcp_receive(s, t, cpu, woken, seq, ack):
    """eth0's irq on cpu raises NET_RX, whose softirq receives the segment
    (seq, ack) and wakes `woken` 6 us after t."""
    s.irq_entry(t, cpu, 30, 'eth0-input.0')
    s.softirq_raise(t + 1 * US, cpu, ws.SOFTIRQ['NET_RX'])
    s.irq_exit(t + 2 * US, cpu, 30)
    s.softirq_entry(t + 3 * US, cpu, ws.SOFTIRQ['NET_RX'])
    s.ev(t + 4 * US, cpu, 'netif_receive_skb', skbaddr=0xffff888000002000, len=1500,
         name='eth0')
    s.ev(t + 5 * US, cpu, 'inet_sock_local_in', sk=2, seq=seq, ack_seq=ack, flags=0x18)
    s.wake(t + 6 * US, cpu, woken)
    s.softirq_exit(t + 7 * US, cpu, ws.SOFTIRQ['NET_RX'])


def tcp_send(s, t, cpu, seq, ack):
    """The running thread of cpu sends the segment (seq, ack) on eth0."""
    s.ev(t, cpu, 'inet_sock_local_out', sk=1, seq=seq, ack_seq=ack, flags=0x18)
    s.ev(t + 1 * US, cpu, 'net_dev_xmit', skbaddr=0xffff888000003000, rc=0, len=1500,
         name='eth0')


def client_server(lost_reply=False):
    """`client` (tid 100) on alpha asks `server` (tid 100) on beta twice,
    at 1 ms and 5 ms (its segment received on beta 100 us later), and
    sleeps 10 us after; the server, asleep from 0.5 ms, is woken by it,
    writes to disk 8:0 (200 us in, done 2 ms in), replies 2.1 ms in and
    sleeps 10 us later; the reply is received on alpha 2.2 ms in and wakes
    the client. At 9 ms the client's last segment wakes the server, and
    both run to the end. client -> server = 2 x (2.2 ms + 6 us - 10 us);
    server -> client = (1.1 ms + 6 us - 0.5 ms) + 2 x (4.1 ms + 6 us -
    2.11 ms). Threads 101 on cpu1 exchange 20 segments each way
    within the 9 ms, which synchronise the clocks. lost_reply: the
    second reply received on alpha is one no traced thread sent."""
    a, b = tcp_host('alpha', begin=None, end=None), tcp_host('beta', begin=None, end=None)
    for s, comm in ((a, 'client'), (b, 'server')):
        s.run(0, 0, s.thread(100, comm))
        s.run(0, 1, s.thread(101, 'syncer'))
    b.sleep(500 * US, 0, 100)
    for i, t0 in enumerate((1 * MS, 5 * MS)):
        tcp_send(a, t0, 0, 1000 + i, 1 + i)
        a.sleep(t0 + 10 * US, 0, 100)
        tcp_receive(b, t0 + 100 * US, 1, 100, 1000 + i, 1 + i)
        b.run(t0 + 120 * US, 0, 100)
        b.disk_wait(t0 + 200 * US, 0, 100, DISK, t0 + 2 * MS, 1)
        tcp_send(b, t0 + 2100 * US, 0, 5000 + i, 1001 + i)
        b.sleep(t0 + 2110 * US, 0, 100)
        tcp_receive(a, t0 + 2200 * US, 1, 100, 7777 if lost_reply and i else 5000 + i,
                    1001 + i)
        a.run(t0 + 2220 * US, 0, 100)
    tcp_send(a, 9 * MS, 0, 1002, 3)
    tcp_receive(b, 9 * MS + 100 * US, 1, 100, 1002, 3)
    b.run(9 * MS + 120 * US, 0, 100)
    for i in range(20):
        x = 337 * US + i * 400 * US   # clear of the client and server
        a.ev(x, 1, 'inet_sock_local_out', sk=3, seq=20000 + i, ack_seq=1, flags=0x10)
        b.ev(x + DELAY, 1, 'inet_sock_local_in', sk=4, seq=20000 + i, ack_seq=1, flags=0x10)
        b.ev(x + 200 * US, 1, 'inet_sock_local_out', sk=4, seq=30000 + i, ack_seq=1,
             flags=0x10)
        a.ev(x + 200 * US + DELAY, 1, 'inet_sock_local_in', sk=3, seq=30000 + i, ack_seq=1,
             flags=0x10)
    return a, b


def knot_members(js):
    vs = {v['id']: v for v in js['vertices']}
    return [sorted((vs[m]['name'], vs[m]['host']) for m in k['members'])
            for k in js['knots'] if k['kind'] == 'knot']


class CrossHostWaits(unittest.TestCase):
    CLIENT, SERVER = 'client (100)@alpha', 'server (100)@beta'

    def test_exact_edges(self):
        edges = wait_edges(ws.run_knots_hosts(client_server()))
        self.assertEqual(edges[(self.CLIENT, self.SERVER)], 2 * (2200 - 4) * US)
        self.assertEqual(edges[(self.SERVER, self.CLIENT)], (606 + 2 * 1996) * US)
        self.assertEqual(edges[(self.SERVER, 'disk:8:0@beta')], 2 * (1800 + 2) * US)
        self.assertFalse([e for e in edges if e[1].startswith('nic:')], edges)

    def test_one_knot_across_hosts(self):
        self.assertEqual(knot_members(ws.run_knots_hosts(client_server())),
                         [[('client', 'alpha'), ('disk:8:0', 'beta'), ('server', 'beta')]])

    def test_unmatched_receive_stays_on_the_nic(self):
        edges = wait_edges(ws.run_knots_hosts(client_server(lost_reply=True)))
        self.assertEqual(edges[(self.CLIENT, self.SERVER)], (2200 - 4) * US)
        self.assertEqual(edges[(self.CLIENT, 'nic:eth0@alpha')], (2200 - 4) * US)

    def test_wperf_report_on_skewed_clocks(self):
        """beta's clock 5.000123 s ahead and 100 ppm fast, put on alpha's
        by the matched segments: the same knot, and the client's waits for
        the server as exact (ended by alpha's own receives)."""
        a, b = client_server()
        b.events = [(on_beta(e[0]),) + e[1:] for e in b.events]
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            dirs = [ws.write_ctf(s, os.path.join(tmp, s.hostname)) for s in (a, b)]
            p = wperf_report(dirs)
            self.assertEqual(p.returncode, 0, p.stderr)
            js = ws.report_invariants.check(json.loads(p.stdout), 'client and server')
        finally:
            shutil.rmtree(tmp, True)
        self.assertEqual(knot_members(js),
                         [[('client', 'alpha'), ('disk:8:0', 'beta'), ('server', 'beta')]])
        self.assertEqual(wait_edges(js)[(self.CLIENT, self.SERVER)], 2 * (2200 - 4) * US)


class SyncAsRead(unittest.TestCase):
    """sink.wperf.knots sync-hosts= (what `wperf top --relay --hosts`
    gives it): beta's clock 5.000123 s ahead and 100 ppm fast, nothing
    given; the muxer hands over all of alpha before any of beta, and the
    sink holds both until the segments matched so far place beta, then
    reads them in alpha's time: the same knot and the same exact client
    waits as the offline two passes, beta's transform stated."""
    CLIENT, SERVER = CrossHostWaits.CLIENT, CrossHostWaits.SERVER

    @classmethod
    def setUpClass(cls):
        cls.a, cls.b = client_server()
        cls.b.events = [(on_beta(e[0]),) + e[1:] for e in cls.b.events]

    def test_same_knot_and_edges(self):
        js = ws.run_knots_hosts([self.a, self.b], **{'sync-hosts': 'alpha,beta'})
        self.assertEqual(knot_members(js),
                         [[('client', 'alpha'), ('disk:8:0', 'beta'), ('server', 'beta')]])
        edges = wait_edges(js)
        self.assertEqual(edges[(self.CLIENT, self.SERVER)], 2 * (2200 - 4) * US)
        # Ended by beta's receives: on alpha's time within the transform's
        # accuracy (a few us) of the truth.
        self.assertAlmostEqual(edges[(self.SERVER, self.CLIENT)], (606 + 2 * 1996) * US,
                               delta=10 * US)
        self.assertFalse([e for e in edges if e[1].startswith('nic:')], edges)
        c = {h['name']: h['clock'] for h in js['hosts']}
        self.assertIsNone(c['alpha'])
        self.assertEqual(c['beta']['reference'], 'alpha')
        # The truth at the anchor, within the stated accuracy.
        truth = on_beta(c['beta']['anchor_ns']) - c['beta']['anchor_ns']
        self.assertLessEqual(abs(c['beta']['offset_ns'] - truth), c['beta']['accuracy_ns'])

    def test_periodic_reports_wait_for_the_transform(self):
        """every=2ms: one line per period of input time says it cannot
        synchronise yet, with what matched, until beta is read; then the
        periods from alpha's first event, each stating the transform."""
        lines = [json.loads(l) for l in ws.run_knots_hosts_text(
            [self.a, self.b], format='json', every='2ms',
            **{'sync-hosts': 'alpha,beta'}).splitlines()]
        kinds = [l['every']['report'] for l in lines]
        n = kinds.count('sync')
        self.assertGreaterEqual(n, 1, kinds)
        self.assertEqual(kinds, ['sync'] * n + ['period', 'run'] * 5, kinds)
        self.assertEqual(lines[0]['error'], 'cannot synchronise the clocks of alpha and beta '
                         'yet: 0 TCP segments matched alpha -> beta and 0 beta -> alpha '
                         '(synchronisation absent: segments must match both ways)')
        self.assertEqual([l['every']['begin_ns'] for l in lines[n::2]],
                         [0, 2 * MS, 4 * MS, 6 * MS, 8 * MS])
        for l in lines[n:]:
            self.assertEqual({h['name'] for h in l['report']['hosts'] if h['clock']}, {'beta'})
        self.assertEqual(knot_members(lines[-1]['report']),
                         [[('client', 'alpha'), ('disk:8:0', 'beta'), ('server', 'beta')]])

    def test_never_synchronised(self):
        """Segments one way only: the report is refused in one line that
        says what matched."""
        a, b = synced_hosts(both_ways=False)
        with self.assertRaises(bt2._Error) as e:
            ws.run_knots_hosts([a, b], **{'sync-hosts': 'alpha,beta'})
        self.assertIn('cannot synchronise the hosts\' clocks: 20 TCP segments matched '
                      'alpha -> beta and 0 beta -> alpha (synchronisation incomplete',
                      ' '.join(str(e.exception).split()))

    def test_unnamed_host_refused(self):
        with self.assertRaises(bt2._Error) as e:
            ws.run_knots_hosts([self.a, self.b], **{'sync-hosts': 'alpha,gamma'})
        self.assertIn('the input holds a trace of host beta, which it does not name',
                      ' '.join(str(e.exception).split()))


# gamma's clock: 200 ppm fast and 10.000456 s ahead of alpha's (so about
# 100 ppm and 5 s from beta's).
G_ALPHA = 1 + 200e-6
G_BETA = 10_000_456_000


def on_gamma(x):
    return round(G_ALPHA * x + G_BETA)


def syncers(s1, s2, first_us, seq, delay=DELAY):
    """20 TCP segments each way between s1's and s2's threads 101 on cpu1,
    every 400 us from first_us: s1 sends, s2 receives `delay` later; s2
    sends 200 us after, s1 receives `delay` later."""
    for i in range(20):
        x = first_us * US + i * 400 * US
        s1.ev(x, 1, 'inet_sock_local_out', sk=3, seq=seq + i, ack_seq=1, flags=0x10)
        s2.ev(x + delay, 1, 'inet_sock_local_in', sk=4, seq=seq + i, ack_seq=1, flags=0x10)
        s2.ev(x + 200 * US, 1, 'inet_sock_local_out', sk=4, seq=seq + 5000 + i, ack_seq=1,
              flags=0x10)
        s1.ev(x + 200 * US + delay, 1, 'inet_sock_local_in', sk=3, seq=seq + 5000 + i,
              ack_seq=1, flags=0x10)


def three_tiers(direct_delay=None, delta=False):
    """`client` (tid 100) on alpha asks `front` (tid 100) on beta at 1 ms
    and 5 ms; front asks `db` (tid 100) on gamma 200 us after it is woken
    (100 us after the client's send); db writes to disk 8:0 (400 us in,
    done 1.4 ms in) and replies 1.5 ms in; front replies 1.7 ms in; the
    client's reply arrives 1.8 ms in. At 9 ms the client's last segment
    wakes front, whose segment wakes db; all run to the end. Each receive
    wakes 6 us after it; each sender sleeps 10 us after sending. Exact
    waits: client -> front 2 x (1.8 ms + 6 us - 10 us); front -> client
    (1.1 ms + 6 us - 0.5 ms) + 2 x (4.1 ms + 6 us - 1.71 ms); front -> db
    2 x (1.6 ms + 6 us - 210 us); db -> front (1.3 ms + 6 us - 0.5 ms) + 2 x
    (4.3 ms + 6 us - 1.51 ms); db -> disk 2 x (1 ms + 2 us). Threads 101
    exchange 20 segments each way alpha <-> beta and beta <-> gamma only
    (5 us each way), direct_delay: alpha <-> gamma too, that fast. delta:
    a fourth host whose thread sends gamma 5 segments nothing answers.
    Events are on the true time: move beta's and gamma's to their clocks
    to skew them."""
    a, b, g = tcp_host('alpha'), tcp_host('beta'), tcp_host('gamma')
    for s, comm in ((a, 'client'), (b, 'front'), (g, 'db')):
        s.run(0, 0, s.thread(100, comm))
        s.run(0, 1, s.thread(101, 'syncer'))
    b.sleep(500 * US, 0, 100)
    g.sleep(500 * US, 0, 100)
    for i, t0 in enumerate((1 * MS, 5 * MS)):
        tcp_send(a, t0, 0, 1000 + i, 1 + i)
        a.sleep(t0 + 10 * US, 0, 100)
        tcp_receive(b, t0 + 100 * US, 1, 100, 1000 + i, 1 + i)
        b.run(t0 + 120 * US, 0, 100)
        tcp_send(b, t0 + 200 * US, 0, 2000 + i, 1 + i)
        b.sleep(t0 + 210 * US, 0, 100)
        tcp_receive(g, t0 + 300 * US, 1, 100, 2000 + i, 1 + i)
        g.run(t0 + 320 * US, 0, 100)
        g.disk_wait(t0 + 400 * US, 0, 100, DISK, t0 + 1400 * US, 1)
        tcp_send(g, t0 + 1500 * US, 0, 3000 + i, 2001 + i)
        g.sleep(t0 + 1510 * US, 0, 100)
        tcp_receive(b, t0 + 1600 * US, 1, 100, 3000 + i, 2001 + i)
        b.run(t0 + 1620 * US, 0, 100)
        tcp_send(b, t0 + 1700 * US, 0, 4000 + i, 1001 + i)
        b.sleep(t0 + 1710 * US, 0, 100)
        tcp_receive(a, t0 + 1800 * US, 1, 100, 4000 + i, 1001 + i)
        a.run(t0 + 1820 * US, 0, 100)
    tcp_send(a, 9 * MS, 0, 1002, 3)
    tcp_receive(b, 9 * MS + 100 * US, 1, 100, 1002, 3)
    b.run(9 * MS + 120 * US, 0, 100)
    tcp_send(b, 9 * MS + 200 * US, 0, 2002, 3)
    tcp_receive(g, 9 * MS + 300 * US, 1, 100, 2002, 3)
    g.run(9 * MS + 320 * US, 0, 100)
    syncers(a, b, 337, 20000)
    syncers(b, g, 237, 40000)
    if direct_delay is not None:
        syncers(a, g, 187, 60000, direct_delay)
    hosts = [a, b, g]
    if delta:
        d = tcp_host('delta')
        d.run(0, 0, d.thread(100, 'lonely'))
        for i in range(5):
            d.ev(2 * MS + i * 100 * US, 0, 'inet_sock_local_out', sk=5, seq=80000 + i,
                 ack_seq=1, flags=0x10)
            g.ev(2 * MS + i * 100 * US + 37 * US, 1, 'inet_sock_local_in', sk=6,
                 seq=80000 + i, ack_seq=1, flags=0x10)
        hosts.append(d)
    return hosts


def skew(hosts):
    """beta and gamma on their own clocks (delta's 7 s ahead)."""
    clocks = {'beta': on_beta, 'gamma': on_gamma, 'delta': lambda x: x + 7 * 1000 * MS}
    for s in hosts:
        if s.hostname in clocks:
            s.events = [(clocks[s.hostname](e[0]),) + e[1:] for e in s.events]
    return hosts


THREE_KNOT = [[('client', 'alpha'), ('db', 'gamma'), ('disk:8:0', 'gamma'), ('front', 'beta')]]
THREE_EDGES = {
    ('client (100)@alpha', 'front (100)@beta'): 2 * 1796 * US,
    ('front (100)@beta', 'client (100)@alpha'): (606 + 2 * 2396) * US,
    ('front (100)@beta', 'db (100)@gamma'): 2 * 1396 * US,
    ('db (100)@gamma', 'front (100)@beta'): (806 + 2 * 2796) * US,
    ('db (100)@gamma', 'disk:8:0@gamma'): 2 * 1002 * US,
}


def report_dirs(hosts, tmp, *args):
    dirs = [ws.write_ctf(s, os.path.join(tmp, s.hostname)) for s in hosts]
    return dirs, wperf_report(dirs, *args)


class ThreeHostsInAChain(unittest.TestCase):
    """client on alpha -> front on beta -> db on gamma, gamma talking to
    beta only: `wperf report alpha beta gamma` places gamma on alpha's
    time through beta (100 ppm and 5 s from beta, 200 ppm and 10 s from
    alpha), within the two pairs' accuracies added; the knot across the
    three hosts, with the edges of the muxer's run on one clock."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        dirs, p = report_dirs(skew(three_tiers()), cls.tmp)
        if p.returncode != 0:
            raise AssertionError(p.stderr)
        cls.dirs = dirs
        cls.js = ws.report_invariants.check(json.loads(p.stdout), 'three hosts in a chain')
        cls.text = wperf_report(dirs, '--format', 'text').stdout

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def clocks(self):
        return {h['name']: h['clock'] for h in self.js['hosts']}

    def test_exact_edges_on_one_clock(self):
        """The same hosts on one clock, through the muxer: every wait
        across the three hosts exact, and the one knot."""
        js = ws.run_knots_hosts(three_tiers())
        edges = wait_edges(js)
        for e, w in THREE_EDGES.items():
            self.assertEqual(edges[e], w, e)
        self.assertFalse([e for e in edges if e[1].startswith('nic:')], edges)
        self.assertEqual(knot_members(js), THREE_KNOT)

    def test_gamma_placed_through_beta(self):
        c = self.clocks()
        self.assertIsNone(c['alpha'])
        self.assertEqual(c['beta']['path'], ['alpha', 'beta'])
        self.assertEqual(c['gamma']['path'], ['alpha', 'beta', 'gamma'])
        self.assertEqual(c['gamma']['reference'], 'alpha')
        # the truth within the summed accuracy over the matches (337 us to
        # 8 ms of alpha's time), yet far finer than the 10 s offset
        g = c['gamma']
        for x in (337 * US, 4 * MS, 8137 * US + DELAY):
            ours = g['anchor_ns'] + g['offset_ns'] + g['alpha'] * (x - g['anchor_ns'])
            self.assertLessEqual(abs(ours - (G_ALPHA * x + G_BETA)), g['accuracy_ns'] + 1, x)
        # the two pairs' bounds added: alpha-beta's (beta's own) and
        # beta-gamma's (gamma's in a report of beta and gamma alone)
        p = wperf_report(self.dirs[1:])
        self.assertEqual(p.returncode, 0, p.stderr)
        bg = {h['name']: h['clock'] for h in json.loads(p.stdout)['hosts']}['gamma']
        self.assertEqual(bg['path'], ['beta', 'gamma'])
        self.assertAlmostEqual(g['accuracy_ns'], c['beta']['accuracy_ns'] + bg['accuracy_ns'],
                               delta=0.002)
        self.assertLess(g['accuracy_ns'], 4 * DELAY)

    def test_knot_across_three_hosts(self):
        self.assertEqual(knot_members(self.js), THREE_KNOT)
        edges = wait_edges(self.js)
        # the client's waits: alpha's own clock, exact
        self.assertEqual(edges[('client (100)@alpha', 'front (100)@beta')],
                         THREE_EDGES[('client (100)@alpha', 'front (100)@beta')])
        # beta's and gamma's waits: each end of each wait (3 at most per
        # edge) on alpha's time within its host's stated accuracy (the
        # slope is known to accuracy / span only: 8 ms of matches here)
        acc = {h['name']: h['clock']['accuracy_ns'] for h in self.js['hosts'] if h['clock']}
        for e, w in THREE_EDGES.items():
            host = e[0].split('@')[1]
            bound = 2 * 3 * acc[host] if host != 'alpha' else 0
            self.assertLessEqual(abs(edges[e] - w), bound, (e, edges[e], w))
        self.assertEqual(self.js['quality']['events_out_of_order'], 0)

    def test_data_quality_says_the_path(self):
        lines = self.text.splitlines()
        at = [i for i, l in enumerate(lines) if 'clock of gamma' in l]
        self.assertEqual(len(at), 1, self.text[-3000:])
        self.assertIn("on alpha's time: offset +10.000", lines[at[0]])
        self.assertIn('accurate to +-%.0f ns' % self.clocks()['gamma']['accuracy_ns'],
                      lines[at[0]])
        self.assertIn('(through beta: each pair', lines[at[0] + 1])
        beta = [i for i, l in enumerate(lines) if 'clock of beta' in l]
        self.assertNotIn('through', lines[beta[0] + 1])

    def test_fourth_host_unlinked_is_refused(self):
        """delta's segments reach gamma one way only: refused in one line
        that names it, its trace and why; nothing on standard output."""
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            dirs, p = report_dirs(skew(three_tiers(delta=True)), tmp)
        finally:
            shutil.rmtree(tmp, True)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stdout, '')
        self.assertEqual(p.stderr.strip().splitlines(), [
            "wperf: error: cannot report delta's trace (%s) with alpha's: no chain of host "
            "pairs whose TCP segments were matched both ways links delta to alpha "
            "(synchronisation delta-gamma incomplete), so its clock cannot be put on "
            "alpha's time: record the hosts' network events both ways, or report without "
            "that trace" % dirs[3]])

    def test_direct_pair_when_tighter(self):
        """alpha <-> gamma too: taken when its bound beats the chain's sum
        (1 us delays), the chain through beta when not (60 us)."""
        for delay, path in ((1 * US, ['alpha', 'gamma']), (60 * US, ['alpha', 'beta', 'gamma'])):
            tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
            try:
                dirs, p = report_dirs(skew(three_tiers(direct_delay=delay)), tmp)
            finally:
                shutil.rmtree(tmp, True)
            self.assertEqual(p.returncode, 0, p.stderr)
            g = {h['name']: h['clock'] for h in json.loads(p.stdout)['hosts']}['gamma']
            self.assertEqual(g['path'], path, delay)
            x = 4 * MS
            ours = g['anchor_ns'] + g['offset_ns'] + g['alpha'] * (x - g['anchor_ns'])
            self.assertLessEqual(abs(ours - (G_ALPHA * x + G_BETA)), g['accuracy_ns'] + 1)

    def test_live_sync_through_beta(self):
        """sync-hosts=alpha,beta,gamma (wperf top --relay --hosts): gamma
        placed through beta as the input is read; the same knot, the
        client's waits exact."""
        js = ws.run_knots_hosts(skew(three_tiers()), **{'sync-hosts': 'alpha,beta,gamma'})
        self.assertEqual(knot_members(js), THREE_KNOT)
        k = ('client (100)@alpha', 'front (100)@beta')
        self.assertEqual(wait_edges(js)[k], THREE_EDGES[k])
        c = {h['name']: h['clock'] for h in js['hosts']}
        self.assertEqual(c['gamma']['path'], ['alpha', 'beta', 'gamma'])
        truth = on_gamma(c['gamma']['anchor_ns']) - c['gamma']['anchor_ns']
        self.assertLessEqual(abs(c['gamma']['offset_ns'] - truth), c['gamma']['accuracy_ns'])

    def test_live_refuses_unlinked(self):
        with self.assertRaises(bt2._Error) as e:
            ws.run_knots_hosts(skew(three_tiers(delta=True)),
                               **{'sync-hosts': 'alpha,beta,delta,gamma'})
        self.assertIn("cannot synchronise the hosts' clocks: host delta is linked to alpha by "
                      "no chain of synchronised host pairs (delta: 5 TCP segments matched "
                      "delta -> gamma and 0 gamma -> delta (synchronisation incomplete: "
                      "segments must match both ways))", ' '.join(str(e.exception).split()))


def dot_clusters(dot):
    """{vertex label: [the clusters around it, outermost first]} of a DOT
    text, and {cluster: its label}."""
    inside, where, labels = [], {}, {}
    for line in dot.splitlines():
        line = line.strip()
        if line.startswith('subgraph '):
            inside.append(line.split()[1])
        elif line == '}' and inside:
            inside.pop()
        elif line.startswith('label=') and inside:
            labels[inside[-1]] = line[len('label="'):-2]
        elif line.startswith('v') and ' [label="' in line and '->' not in line:
            where[line.split(' [label="', 1)[1].split('"', 1)[0]] = list(inside)
    return where, labels


class HostsInPictures(unittest.TestCase):
    """A report of several hosts draws each host as a cluster (named
    "host NAME") around its vertices, each finding's members on a host in
    a cluster of the finding inside it (the knot across the hosts is two,
    one on each host, with one title); GraphML names each vertex's host."""

    def check_dot(self, dot):
        where, labels = dot_clusters(dot)
        self.assertEqual(where['client (100)@alpha'], ['cluster_host0', 'cluster_0_host0'], dot)
        self.assertEqual(where['server (100)@beta'], ['cluster_host1', 'cluster_0_host1'], dot)
        self.assertEqual(where['disk:8:0@beta'], ['cluster_host1', 'cluster_0_host1'], dot)
        self.assertEqual((labels['cluster_host0'], labels['cluster_host1']),
                         ('host alpha', 'host beta'), dot)
        self.assertEqual(labels['cluster_0_host0'], labels['cluster_0_host1'])
        self.assertTrue(labels['cluster_0_host0'].startswith('Knot 1: '), labels)

    def test_dot(self):
        self.check_dot(ws.run_knots_hosts_text(client_server(), format='dot'))
        alone = ws.run_knots_hosts_text(client_server()[:1], format='dot')
        self.assertNotIn('cluster_host', alone)     # one host: as ever
        self.assertNotIn('@alpha', alone)

    def test_svg(self):
        svg = ws.run_knots_hosts_text(client_server(), format='svg')
        titles = re.findall(r'<g id="clust\d+" class="cluster[^"]*">\s*<title>([^<]*)</title>',
                            svg)
        self.assertIn('cluster_host0', titles, svg[:3000])
        self.assertIn('cluster_host1', titles)
        self.assertIn('>host beta</text>', svg)

    def test_graphml_hosts(self):
        root = ET.fromstring(ws.run_knots_hosts_text(client_server(), format='graphml'))
        ns = {'g': 'http://graphml.graphdrawing.org/xmlns'}
        key = [k.get('id') for k in root.findall('g:key', ns) if k.get('attr.name') == 'host']
        self.assertEqual(key, ['v_host'])
        hosts = {}
        for node in root.iter('{%s}node' % ns['g']):
            data = {d.get('key'): d.text for d in node.findall('g:data', ns)}
            hosts[data['v_label']] = data.get('v_host')
        self.assertEqual(hosts['client (100)@alpha'], 'alpha')
        self.assertEqual(hosts['server (100)@beta'], 'beta')
        self.assertEqual(hosts['disk:8:0@beta'], 'beta')
        self.assertNotIn(None, hosts.values(), hosts)


class SyncTracesAsOneGraph(unittest.TestCase):
    def test_both_hosts(self):
        if not os.path.isdir(SYNC):
            self.fail('no shared trace %s' % SYNC)
        p = subprocess.run([WPERF, 'report', '--plugin-path', ws.plugin_dir(), '--format',
                            'json', os.path.join(SYNC, 'scp_src'), os.path.join(SYNC, 'scp_dest')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        js = ws.report_invariants.check(json.loads(p.stdout), 'tc-synctraces')
        hosts = {v['host'] for v in js['vertices']}
        self.assertEqual(hosts, {'VM1', 'VM3'})
        # VM3 on VM1's time (sink.wperf.netsync's transform: 0.081 s behind,
        # -51.4 ppm, +-171.5 us over the 46 matches)
        clocks = {h['name']: h['clock'] for h in js['hosts']}
        self.assertIsNone(clocks['VM1'])
        self.assertEqual(clocks['VM3']['reference'], 'VM1')
        self.assertAlmostEqual(clocks['VM3']['offset_ns'] / 1e9, -0.0806, places=3)
        self.assertAlmostEqual((clocks['VM3']['alpha'] - 1) * 1e6, -51.396, places=2)
        self.assertAlmostEqual(clocks['VM3']['accuracy_ns'], 171521, delta=1)
        threads = [(v['host'], v['tid']) for v in js['vertices'] if v['kind'] == 'thread']
        self.assertEqual(len(threads), len(set(threads)))
        # the same tid on both hosts: two threads, not one
        tids = {}
        for host, tid in threads:
            tids.setdefault(tid, set()).add(host)
        self.assertTrue(any(len(h) == 2 for h in tids.values()))
        # the scp between them: every wait across the hosts is ssh's on
        # VM1 for an sshd of VM3 or back, ended by a segment the other sent
        # (the tcpdumps and daemons woken in the same softirqs wait for no
        # host's thread), both ways
        vs = {v['id']: v for v in js['vertices']}
        across = {(vs[e['from']]['name'], vs[e['from']]['host'], vs[e['to']]['name'],
                   vs[e['to']]['host']) for e in js['edges']
                  if vs[e['from']]['host'] != vs[e['to']]['host']}
        self.assertEqual(across, {('ssh', 'VM1', 'sshd', 'VM3'), ('sshd', 'VM3', 'ssh', 'VM1')})



# A host name as a trace's metadata may say it: whoever made the trace
# chose it. Quotes and markup for JSON, DOT and XML; a terminal's escape
# sequence (red text), a bell, a line break and DEL for the text report.
HOSTILE = 'ev"il\'<b>&amp;\\\x1b[31mRED\x07\nx\x7f\u00e9'


def control_chars(text):
    """The control characters in text but for line ends and tabs."""
    return sorted({c for c in text if (c < ' ' and c not in '\n\t') or c == '\x7f'})


class HostileHostName(unittest.TestCase):
    """A host name reaches every report format escaped as that format
    needs, and no terminal control character reaches the text report."""

    def test_every_format_of_two_hosts(self):
        a = disk_host(HOSTILE, 5, 'client')
        b = disk_host('beta', 3, 'server')
        out = {fmt: ws.run_knots_hosts_text([a, b], format=fmt)
               for fmt in ('text', 'json', 'dot', 'svg', 'html', 'graphml')}
        js = json.loads(out['json'])
        self.assertEqual({v['host'] for v in js['vertices']}, {HOSTILE, 'beta'})
        self.assertIn('client (100)@ev"il\'<b>&amp;\\?[31mRED??x?\u00e9', out['text'])
        for fmt in ('text', 'dot', 'svg', 'html', 'graphml'):
            with self.subTest(fmt=fmt):
                self.assertEqual(control_chars(out[fmt]), [], out[fmt][-3000:])
        for fmt in ('svg', 'graphml'):
            with self.subTest(fmt=fmt):
                ET.fromstring(out[fmt].encode())        # well-formed XML
        # the DOT cluster of the host names it as the vertices do
        self.assertIn('label="host ev\\"il\'<b>&amp;\\\\?[31mRED??x?\u00e9"', out['dot'])

    def test_synchronised_hosts_text_and_json(self):
        """The same name read back from a CTF trace by wperf report (its
        metadata writes it with TSDL escapes, \\" and \\x1b) to put its
        clock on alpha's: the clock line of the text report cleaned, the
        JSON exact. wperf report used to cut the name at its first \\"
        and refuse the trace."""
        a, b = synced_hosts()
        b.hostname = HOSTILE
        with tempfile.TemporaryDirectory(prefix='wperf-hosts-') as tmp:
            dirs = [ws.write_ctf(s, os.path.join(tmp, 'h%d' % i)) for i, s in enumerate((a, b))]
            p = wperf_report(dirs)
            self.assertEqual(p.returncode, 0, p.stderr)
            js = json.loads(p.stdout)
            hosts = {h['name']: h['clock'] for h in js['hosts']}
            self.assertEqual(sorted(hosts), ['alpha', HOSTILE])
            self.assertEqual(hosts[HOSTILE]['path'], ['alpha', HOSTILE])
            q = wperf_report(dirs, '--format', 'text')
            self.assertEqual(q.returncode, 0, q.stderr)
            self.assertEqual(control_chars(q.stdout), [])
            line = [ln for ln in q.stdout.splitlines() if 'clock of' in ln]
            self.assertEqual(len(line), 1, q.stdout[-3000:])
            self.assertIn('clock of ev"il\'<b>&amp;\\?[31m ', line[0])     # 20 bytes

if __name__ == '__main__':
    unittest.main(verbosity=2)
