#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sink.wperf.netsync on the shared two-host pair `tc-synctraces`.

The two hosts (VM1: scp_src, VM3: scp_dest; lttng-modules 2.1,
inet_sock_local_out/in with seq, ack_seq, flags) go through one
filter.wperf.repair each and filter.utils.muxer into the sink. Checked:

  - the counts: each host's TCP sends and receives, and 46 matched
    segments: the count Trace Compass's MatchAndSyncTest asserts for this
    pair, and the count of an independent matcher here (Python, each host
    read alone, keys (seq, ack_seq, flags) sent on one host and received on
    the other); 24 VM1 -> VM3 and 22 VM3 -> VM1;
  - the transform t(VM3) = alpha * t(VM1) + beta: quality accurate; every
    matched segment, put on VM3's clock, is received after it is sent; the
    transform Trace Compass's ExperimentSyncTest asserts for this pair
    (slope 0.99994137837..., offset 79796507913179.33 ns) is within the
    stated accuracy of ours at both ends of the matches' span;
  - the text report says the same numbers; one host alone has nothing to
    synchronise; a bad parameter is refused in one line;
  - four hand-built hosts in the lttng-modules 2.9+ layout, a <-> b and
    b <-> c only (b 100 ppm and 5.000123 s from a, c 200 ppm and
    10.000456 s), d one way to c: c placed on a's time through b (the
    pairs' transforms composed, the truth within their accuracies
    added), d placed nowhere, a direct a <-> c pair taken when its bound
    is tighter than the chain's sum.

Usage: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_netsync.py
       [--shared-dir-default DIR]
"""

import json
import os
import re
import shutil
import sys
import tempfile
import unittest
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wperf_scenario as ws  # noqa: E402

import bt2  # noqa: E402

SHARED = ws.shared_dir()
SYNC = os.path.join(SHARED, 'traces', 'lttng-kernel', 'tc-synctraces')
HOSTS = {'VM1': 'scp_src', 'VM3': 'scp_dest'}
# Trace Compass, ExperimentSyncTest.testExperimentSync: VM1's transform.
TC_ALPHA = Fraction('0.9999413783703139011056845831168394')
TC_BETA = Fraction('79796507913179.33347660124688298171')


def netsync(dirs, params):
    """source.ctf.fs -> filter.wperf.repair per host, muxer, the sink."""
    g = bt2.Graph()
    wperf = ws.wperf_plugin()
    mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
    n = 0
    for i, d in enumerate(dirs):
        src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'],
                              'src%d' % i, params={'inputs': [d]})
        for port in src.output_ports.values():
            rep = g.add_component(wperf.filter_component_classes['repair'], 'rep%d' % n)
            g.connect_ports(port, rep.input_ports['in'])
            g.connect_ports(rep.output_ports['out'], mux.input_ports['in%d' % n])
            n += 1
    sink = g.add_component(wperf.sink_component_classes['netsync'], 'sink', params=params)
    g.connect_ports(mux.output_ports['out'], sink.input_ports['in'])
    g.run()


class Collect(ws.EachMessage, bt2._UserSinkComponent):
    """(name, (seq, ack_seq, flags), ns) of inet_sock_local_out/in."""

    def take(self, msg):
        if type(msg) is not bt2._EventMessageConst:
            return
        name = msg.event.name
        if name in ('inet_sock_local_out', 'inet_sock_local_in'):
            p = msg.event.payload_field
            key = (int(p['seq']), int(p['ack_seq']), int(p['flags']))
            self._out.append((name, key, msg.default_clock_snapshot.ns_from_origin))


def tcp_events(path):
    out = []
    g = bt2.Graph()
    src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'], 'src',
                          params={'inputs': [path]})
    for i, port in enumerate(src.output_ports.values()):
        sink = g.add_component(Collect, 'sink%d' % i, obj=out)
        g.connect_ports(port, sink.input_ports['in'])
    g.run()
    return out


def independent_matches():
    """{(sender, receiver): [(send ns, receive ns)]} by key, each host read
    alone."""
    ev = {h: tcp_events(os.path.join(SYNC, d)) for h, d in HOSTS.items()}
    out = {}
    for snd, rcv in (('VM1', 'VM3'), ('VM3', 'VM1')):
        sends = {k: ns for name, k, ns in ev[snd] if name == 'inet_sock_local_out'}
        recvs = {k: ns for name, k, ns in ev[rcv] if name == 'inet_sock_local_in'}
        out[(snd, rcv)] = [(sends[k], recvs[k]) for k in sends if k in recvs]
    return ev, out


# ---------------------------------------------------------------------------
# Two synthetic hosts in the lttng-modules 2.9+ layout: net_dev_queue and
# net_if_receive_skb with the TCP header under network_header (a variant
# on network_header_type) / transport_header (a variant on
# transport_header_type). Host b's clock reads truth(t) = t + t/10000 +
# 5.000123 s when a's reads t (100 ppm fast).

T0 = 1361214078000000000
BETA = 5000123000


def truth(t):
    return t + t // 10000 + BETA


def _layout(tc):
    u = tc.create_unsigned_integer_field_class
    tcp = tc.create_structure_field_class()
    for name, bits in (('source_port', 16), ('dest_port', 16), ('seq', 32), ('ack_seq', 32),
                       ('flags', 8), ('window_size', 16)):
        tcp.append_member(name, u(bits))

    def variant(selector_name, option, fc, owner):
        sel = tc.create_unsigned_enumeration_field_class(8)
        for i, n in enumerate(('_unknown', option)):
            sel.add_mapping(n, bt2.UnsignedIntegerRangeSet([(i, i)]))
        owner.append_member(selector_name + '_type', sel)
        var = tc.create_variant_field_class(selector_fc=sel)
        var.append_option('_unknown', tc.create_structure_field_class(),
                          bt2.UnsignedIntegerRangeSet([(0, 0)]))
        var.append_option(option, fc, bt2.UnsignedIntegerRangeSet([(1, 1)]))
        owner.append_member(selector_name, var)

    ipv4 = tc.create_structure_field_class()
    ipv4.append_member('protocol', u(8))
    variant('transport_header', '_tcp', tcp, ipv4)
    payload = tc.create_structure_field_class()
    payload.append_member('skbaddr', u(64))
    payload.append_member('len', u(32))
    payload.append_member('name', tc.create_string_field_class())
    variant('network_header', '_ipv4', ipv4, payload)
    return payload


class _HostIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        host = port.user_data
        self._todo = [self._create_stream_beginning_message(host['stream'])]
        for ns, name, key in sorted(host['events']):
            msg = self._create_event_message(host['classes'][name], host['stream'],
                                             default_clock_snapshot=ns)
            p = msg.event.payload_field
            p['skbaddr'], p['len'], p['name'] = 0xffff0000, 100, 'eth0'
            p['network_header_type'] = 1
            p['network_header'].selected_option_index = 1
            ip = p['network_header'].selected_option
            ip['protocol'] = 6
            ip['transport_header_type'] = 1
            ip['transport_header'].selected_option_index = 1
            tcp = ip['transport_header'].selected_option
            tcp['source_port'], tcp['dest_port'], tcp['window_size'] = 22, 40000, 1000
            tcp['seq'], tcp['ack_seq'], tcp['flags'] = key
            self._todo.append(msg)
        self._todo.append(self._create_stream_end_message(host['stream']))
        self._todo.reverse()

    def __next__(self):
        if not self._todo:
            raise StopIteration
        return self._todo.pop()


class TwoHosts(bt2._UserSourceComponent, message_iterator_class=_HostIter):
    """obj: {hostname: [(clock ns, event name, (seq, ack_seq, flags))]}."""

    def __init__(self, config, params, obj):
        for hostname, events in sorted(obj.items()):
            tc = self._create_trace_class()
            cc = self._create_clock_class(frequency=1000000000, origin_is_unix_epoch=True)
            sc = tc.create_stream_class(default_clock_class=cc)
            classes = {n: sc.create_event_class(name=n, payload_field_class=_layout(tc))
                       for n in ('net_dev_queue', 'net_if_receive_skb')}
            stream = tc(environment={'hostname': hostname}).create_stream(sc)
            self._add_output_port(hostname, {'stream': stream, 'classes': classes,
                                             'events': events})


def two_host_events(n):
    """n segments each way every 10 ms, one-way delays of 20 us (every
    fifth) to 60 us, and one segment a sent that b never received."""
    ev = {'a': [], 'b': []}
    for i in range(n):
        t = T0 + i * 10000000
        d = 20000 + 10000 * (0 if i % 5 == 0 else 1 + (i * 7) % 4)
        ev['a'].append((t, 'net_dev_queue', (i, 1, 0x18)))
        ev['b'].append((truth(t + d), 'net_if_receive_skb', (i, 1, 0x18)))
        ev['b'].append((truth(t + 5000000), 'net_dev_queue', (i, 2, 0x10)))
        ev['a'].append((t + 5000000 + d, 'net_if_receive_skb', (i, 2, 0x10)))
    ev['a'].append((T0 + n * 10000000, 'net_dev_queue', (999999, 1, 0x18)))
    return ev


class NewLayout(unittest.TestCase):
    def test_known_offset_and_drift(self):
        n = 201
        tmp = tempfile.mkdtemp(prefix='wperf-netsync-')
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'sync.json')
        g = bt2.Graph()
        src = g.add_component(TwoHosts, 'src', obj=two_host_events(n))
        mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
        for i, port in enumerate(src.output_ports.values()):
            g.connect_ports(port, mux.input_ports['in%d' % i])
        sink = g.add_component(ws.wperf_plugin().sink_component_classes['netsync'], 'sink',
                               params={'format': 'json', 'path': path})
        g.connect_ports(mux.output_ports['out'], sink.input_ports['in'])
        g.run()
        with open(path) as f:
            js = json.load(f)
        self.assertEqual(js['hosts'], [{'name': 'a', 'sends': n + 1, 'receives': n},
                                       {'name': 'b', 'sends': n, 'receives': n}])
        self.assertEqual((js['matched'], js['unmatched_sends'], js['unmatched_receives']),
                         (2 * n, 1, 0))
        p = js['pairs'][0]
        self.assertEqual((p['matches_to_other'], p['matches_to_reference']), (n, n))
        self.assertEqual(p['quality'], 'accurate')
        self.assertLess(p['alpha_min'], 1.0001)
        self.assertLess(1.0001, p['alpha_max'])
        alpha, beta = Fraction(p['alpha']), Fraction(p['beta'])
        for x in (p['first_ns'], p['last_ns']):
            self.assertLessEqual(abs(float(alpha * x + beta) - truth(x)), p['accuracy_ns'])
        # the B->A segments leave b 5 ms after the A->B ones: the bound
        # is about one minimum delay, far below the 5 ms between them
        self.assertLess(p['accuracy_ns'], 100000)


class HostileHostName(unittest.TestCase):
    def test_escaped_in_json_and_text(self):
        """A host name is a trace's metadata, whoever made the trace:
        quotes, a backslash and control characters in it. The JSON
        results are valid JSON that name it exactly (it was written
        between quotes as it was, so a quote ended the string), the
        text results hold no control character (an escape sequence
        reached the terminal)."""
        evil = 'b"\\\x1b[2J\x07\n\x7f<\u00e9'
        ev = two_host_events(21)
        ev[evil] = ev.pop('b')
        tmp = tempfile.mkdtemp(prefix='wperf-netsync-')
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'sync.json')
        run_hosts(ev, {'format': 'json', 'path': path})
        with open(path) as f:
            js = json.load(f)
        self.assertEqual([h['name'] for h in js['hosts']], ['a', evil])
        self.assertEqual((js['pairs'][0]['reference'], js['pairs'][0]['other']), ('a', evil))
        self.assertEqual(js['placements'][0]['host'], evil)
        self.assertEqual(js['placements'][0]['path'], ['a', evil])
        path = os.path.join(tmp, 'sync.txt')
        run_hosts(ev, {'path': path})
        with open(path) as f:
            text = f.read()
        self.assertEqual(sorted({c for c in text if (c < ' ' and c != '\n') or c == '\x7f'}),
                         [])
        self.assertIn('Host       b"\\?[2J???<\u00e9: 21 TCP sends', text)


# A third host c, on the true time t: t + t/5000 + 10.000456 s (200 ppm
# fast; about 100 ppm and 5 s from b).
C_BETA = 10000456000


def truth_c(t):
    return t + t // 5000 + C_BETA


CLOCKS = {'a': lambda t: t, 'b': truth, 'c': truth_c, 'd': lambda t: t + 7000000000}


def pair_events(ev, h1, h2, n, seq, min_delay=20000):
    """n segments each way between h1 and h2 every 10 ms (h2's 5 ms
    after h1's), one-way delays min_delay (every fifth) to min_delay + 40
    us, on each host's clock (CLOCKS, of the true time)."""
    c1, c2 = CLOCKS[h1], CLOCKS[h2]
    for i in range(n):
        t = T0 + i * 10000000
        d = min_delay + 10000 * (0 if i % 5 == 0 else 1 + (i * 7) % 4)
        ev[h1].append((c1(t), 'net_dev_queue', (seq + i, 1, 0x18)))
        ev[h2].append((c2(t + d), 'net_if_receive_skb', (seq + i, 1, 0x18)))
        ev[h2].append((c2(t + 5000000), 'net_dev_queue', (seq + i, 2, 0x10)))
        ev[h1].append((c1(t + 5000000 + d), 'net_if_receive_skb', (seq + i, 2, 0x10)))


def chain_events(direct=None):
    """a <-> b and b <-> c, 101 segments each way over 1 s; d sends c 5
    segments nothing answers; direct: a <-> c too, with that minimum
    delay."""
    ev = {h: [] for h in 'abcd'}
    pair_events(ev, 'a', 'b', 101, 0)
    pair_events(ev, 'b', 'c', 101, 100000)
    if direct is not None:
        pair_events(ev, 'a', 'c', 101, 200000, direct)
    for i in range(5):
        t = T0 + i * 1000000
        ev['d'].append((CLOCKS['d'](t), 'net_dev_queue', (300000 + i, 1, 0x18)))
        ev['c'].append((truth_c(t + 30000), 'net_if_receive_skb', (300000 + i, 1, 0x18)))
    return ev


def run_hosts(ev, params):
    """The TwoHosts source (one port per host) -> muxer -> netsync."""
    g = bt2.Graph()
    src = g.add_component(TwoHosts, 'src', obj=ev)
    mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
    for i, port in enumerate(src.output_ports.values()):
        g.connect_ports(port, mux.input_ports['in%d' % i])
    sink = g.add_component(ws.wperf_plugin().sink_component_classes['netsync'], 'sink',
                           params=params)
    g.connect_ports(mux.output_ports['out'], sink.input_ports['in'])
    g.run()


def on_line(p, x):
    """A pair's or placement's line at x, from its anchor."""
    ax, ay = p['anchor']
    return ay + p['alpha'] * (x - ax)


class ChainOfHosts(unittest.TestCase):
    """a <-> b <-> c, and d one way to c: c is placed on a's time through
    b, its transform the two pairs' composed (c per a = b per a times c
    per b), the truth within their accuracies added; d is placed nowhere;
    a direct a <-> c pair is taken when tighter than that sum."""

    def sync(self, ev, fmt='json'):
        tmp = tempfile.mkdtemp(prefix='wperf-netsync-')
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, 'sync.' + fmt)
        run_hosts(ev, {'format': fmt, 'path': path})
        with open(path) as f:
            # exact decimals: a double holds 1.36e18 ns to 256 ns only
            return json.load(f, parse_float=Fraction) if fmt == 'json' else f.read()

    def test_placed_through_b(self):
        js = self.sync(chain_events())
        pairs = {(p['reference'], p['other']): p for p in js['pairs']}
        self.assertEqual(sorted(pairs), [('a', 'b'), ('a', 'c'), ('a', 'd'), ('b', 'c'),
                                         ('b', 'd'), ('c', 'd')])
        self.assertEqual(pairs[('a', 'c')]['quality'], 'absent')
        self.assertEqual(pairs[('c', 'd')]['quality'], 'incomplete')
        ab, bc = pairs[('a', 'b')], pairs[('b', 'c')]
        pl = {p['host']: p for p in js['placements']}
        self.assertEqual(sorted(pl), ['b', 'c', 'd'])
        self.assertTrue(all(p['reference'] == 'a' for p in pl.values()))
        self.assertEqual(pl['b']['path'], ['a', 'b'])
        self.assertEqual(pl['c']['path'], ['a', 'b', 'c'])
        self.assertIsNone(pl['d']['path'])
        c = pl['c']
        self.assertAlmostEqual(c['accuracy_ns'], ab['accuracy_ns'] + bc['accuracy_ns'], delta=0.002)
        self.assertAlmostEqual(c['alpha'], ab['alpha'] * bc['alpha'], delta=1e-15)
        # composed exactly: b's time by a-b's line, then c's by b-c's
        # (each applied from its anchor, as the sink prints alpha to 17
        # digits: 14 ns at 1.36e18 ns, 1e-8 ns over the span)
        for x in (ab['first_ns'], (ab['first_ns'] + ab['last_ns']) // 2, ab['last_ns']):
            via_b = on_line(bc, on_line(ab, x))
            ours = on_line(c, x)
            # to the long double's 0.125 ns at 1.36e18 ns
            self.assertLessEqual(abs(ours - via_b), 1, x)
            self.assertLessEqual(abs(ours - truth_c(x)), c['accuracy_ns'], x)
            # alpha and beta say the same line, to their digits
            self.assertLessEqual(abs(c['alpha'] * x + c['beta'] - ours), 100, x)
        self.assertLess(c['accuracy_ns'], 200000)

    def test_text(self):
        text = self.sync(chain_events(), 'text')
        js = self.sync(chain_events())
        c = {p['host']: p for p in js['placements']}['c']
        self.assertIn("On a's time (each host through the chain of synchronised pairs", text)
        self.assertIn('Placed     b via a -> b: ', text)
        line = [l for l in text.splitlines() if l.startswith('Placed     c ')]
        self.assertEqual(len(line), 1, text)
        self.assertIn('Placed     c via a -> b -> c: alpha = ', line[0])
        self.assertIn('accuracy +-%.0f ns (2 pairs added)' % c['accuracy_ns'], line[0])
        self.assertIn('Unplaced   d: no chain of synchronised pairs links it to a', text)

    def test_direct_when_tighter(self):
        """a <-> c with 2 us minimum delays: its bound beats the chain's
        sum; with 200 us it does not."""
        for delay, path in ((2000, ['a', 'c']), (200000, ['a', 'b', 'c'])):
            js = self.sync(chain_events(direct=delay))
            pairs = {(p['reference'], p['other']): p for p in js['pairs']}
            c = {p['host']: p for p in js['placements']}['c']
            self.assertEqual(c['path'], path, delay)
            chain = pairs[('a', 'b')]['accuracy_ns'] + pairs[('b', 'c')]['accuracy_ns']
            direct = pairs[('a', 'c')]['accuracy_ns']
            self.assertAlmostEqual(c['accuracy_ns'], min(chain, direct), delta=0.002)
            x = pairs[('a', 'b')]['first_ns']
            self.assertLessEqual(abs(on_line(c, x) - truth_c(x)), c['accuracy_ns'], x)


class NetSync(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(SYNC):
            raise unittest.SkipTest('no shared trace %s' % SYNC)
        cls.tmp = tempfile.mkdtemp(prefix='wperf-netsync-')
        dirs = [os.path.join(SYNC, d) for d in HOSTS.values()]
        cls.json_path = os.path.join(cls.tmp, 'sync.json')
        netsync(dirs, {'format': 'json', 'path': cls.json_path})
        with open(cls.json_path) as f:
            cls.js = json.load(f)
        cls.text_path = os.path.join(cls.tmp, 'sync.txt')
        netsync(dirs, {'path': cls.text_path})
        with open(cls.text_path) as f:
            cls.text = f.read()
        cls.events, cls.matches = independent_matches()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_counts(self):
        js = self.js
        hosts = {h['name']: h for h in js['hosts']}
        self.assertEqual(sorted(hosts), ['VM1', 'VM3'])
        for h in HOSTS:
            self.assertEqual(hosts[h]['sends'],
                             sum(1 for e in self.events[h] if e[0] == 'inet_sock_local_out'))
            self.assertEqual(hosts[h]['receives'],
                             sum(1 for e in self.events[h] if e[0] == 'inet_sock_local_in'))
        self.assertEqual(js['matched'], 46)   # Trace Compass's count
        self.assertEqual(js['matched'], sum(len(v) for v in self.matches.values()))
        pair = js['pairs'][0]
        self.assertEqual((pair['reference'], pair['other']), ('VM1', 'VM3'))
        self.assertEqual(pair['matches_to_other'], len(self.matches[('VM1', 'VM3')]))
        self.assertEqual(pair['matches_to_reference'], len(self.matches[('VM3', 'VM1')]))
        self.assertEqual((pair['matches_to_other'], pair['matches_to_reference']), (24, 22))
        sends = sum(h['sends'] for h in js['hosts'])
        recvs = sum(h['receives'] for h in js['hosts'])
        self.assertEqual(js['unmatched_sends'], sends - 46)
        self.assertEqual(js['unmatched_receives'], recvs - 46)

    def test_transform(self):
        p = self.js['pairs'][0]
        self.assertEqual(p['quality'], 'accurate')
        alpha, beta = Fraction(p['alpha']), Fraction(p['beta'])
        self.assertLessEqual(p['alpha_min'], p['alpha'])
        self.assertLessEqual(p['alpha'], p['alpha_max'])
        # every matched segment is received after it is sent, on VM3's clock
        for send, recv in self.matches[('VM1', 'VM3')]:
            self.assertLessEqual(alpha * send + beta, recv + 1)
        for send, recv in self.matches[('VM3', 'VM1')]:
            self.assertGreaterEqual(alpha * recv + beta, send - 1)
        self.assertGreater(p['accuracy_ns'], 0)
        for x in (p['first_ns'], p['last_ns']):
            ours, tc = alpha * x + beta, TC_ALPHA * x + TC_BETA
            self.assertLessEqual(abs(float(ours - tc)), p['accuracy_ns'],
                                 'Trace Compass is off ours by more than the accuracy at %d' % x)

    def test_text(self):
        p = self.js['pairs'][0]
        self.assertIn('Host       VM1: 26 TCP sends, 25 receives', self.text)
        self.assertIn('Matched    46 segments', self.text)
        self.assertIn('VM1 -> VM3: 24 segments matched, VM3 -> VM1: 22', self.text)
        self.assertIn('Quality    accurate', self.text)
        m = re.search(r'alpha = ([0-9.]+) ', self.text)
        self.assertTrue(m, self.text)
        self.assertAlmostEqual(float(m.group(1)), p['alpha'], places=15)
        self.assertIn('Accuracy   +-%.0f ns' % p['accuracy_ns'], self.text)

    def test_one_host(self):
        path = os.path.join(self.tmp, 'one.json')
        netsync([os.path.join(SYNC, 'scp_src')], {'format': 'json', 'path': path})
        with open(path) as f:
            js = json.load(f)
        self.assertEqual(js['pairs'], [])
        self.assertEqual(js['matched'], 0)
        self.assertEqual([h['name'] for h in js['hosts']], ['VM1'])

    def test_bad_parameter(self):
        for params, word in (({'format': 'xml'}, 'format'), ({'colour': 'red'}, 'colour')):
            with self.subTest(params=params):
                with self.assertRaises(bt2._Error) as ctx:
                    netsync([os.path.join(SYNC, 'scp_src')], params)
                self.assertIn(word, ws.bt2_error_text(ctx.exception))


if __name__ == '__main__':
    unittest.main(verbosity=2)
