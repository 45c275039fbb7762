#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""sink.wperf.knots reusing filter.wperf.waits' analysis: same report.

When sink.wperf.knots is connected straight to filter.wperf.waits, it takes
over the filter's analysis instead of analysing the same kernel events
again (plugin/common/shared-analysis.h). That must never change a report. For
every input below, three graphs must write byte-identical JSON reports:

  standalone  TRACE -c sink.wperf.knots
  reused      TRACE -c filter.wperf.waits -c sink.wperf.knots
  separate    the same, with WPERF_SHARE_ANALYSIS=0 (the sink analyses alone)

and WPERF_DECODE_STATS=1 must show which path each took (so the
comparison is never between two runs of the same path).

Inputs: every real trace under $WPERF_SHARED_DIR/traces/lttng-kernel/
(tc-synctraces' hosts one at a time with `babeltrace2 run`), the bench's
synthetic traces (mix, chain, fan-in; small), and a hand-built scenario
with a NIC, analysed with nic-capacity (an option the sink applies to the
filter's analysis) and with a focus and merging (applied after it).

Fallback: a component between the filter and the sink that drops events
(a Python filter; filter.utils.trimmer cannot follow filter.wperf.waits,
which cannot seek): the sink is not connected to the filter, analyses on
its own, and reports what reached it, as without the filter. Also: a
trimmer before the filter, and two filters in a row (the sink reuses the
second).

Usage: WPERF_PLUGIN_DIR=build/plugin WPERF_BUILD_DIR=build
       /usr/bin/python3 tests/test_shared_analysis.py [--shared-dir-default DIR]
"""

import json
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import test_real_traces as rt  # noqa: E402  (parses --shared-dir-default)
import wperf_scenario as ws  # noqa: E402

import bt2  # noqa: E402

REUSED = 'by filter.wperf.waits, whose analysis is reused'
STATS = 'sink.wperf.knots: decoded events'
BUILD_DIR = os.environ.get('WPERF_BUILD_DIR',
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                                        'build'))
GEN_TRACE = os.path.join(BUILD_DIR, 'tests', 'bench', 'gen-trace')

_TMP = tempfile.mkdtemp(prefix='wperf-shared-')


def _env(share):
    env = dict(os.environ)
    env['WPERF_DECODE_STATS'] = '1'
    if share:
        env.pop('WPERF_SHARE_ANALYSIS', None)
    else:
        env['WPERF_SHARE_ANALYSIS'] = '0'
    return env


def _cli(trace, chain, out, params=''):
    """babeltrace2 TRACE CHAIN... -c sink.wperf.knots, JSON into out.
    chain: a list of (component, params or None) before the sink."""
    cmd = [rt.BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), trace]
    for comp, p in chain:
        cmd += ['-c', comp] + (['--params=' + p] if p else [])
    cmd += ['-c', 'sink.wperf.knots',
            '--params=format="json",path="%s"%s' % (out, params)]
    return cmd


def _run_graph(path, chain, out, params=''):
    """babeltrace2 run: source.ctf.fs straight into CHAIN then the sink (for
    traces the CLI's muxer rejects)."""
    cmd = [rt.BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), 'run',
           '--component=src:source.ctf.fs', '--params=inputs=["%s"]' % path]
    names = ['src']
    for i, (comp, p) in enumerate(chain):
        names.append('c%d' % i)
        cmd += ['--component=%s:%s' % (names[-1], comp)] + (['--params=' + p] if p else [])
    cmd += ['--component=knots:sink.wperf.knots',
            '--params=format="json",path="%s"%s' % (out, params)]
    names.append('knots')
    for a, b in zip(names, names[1:]):
        cmd.append('--connect=%s:%s' % (a, b))
    return cmd


class Shared(unittest.TestCase):
    def report(self, label, trace, chain, share=True, mode='cli', params=''):
        """(report text, stats line) of one graph; fails on a non-zero exit."""
        out = os.path.join(_TMP, '%s-%d-%d.json' % (label, len(chain), share))
        build = _cli if mode == 'cli' else _run_graph
        cmd = build(trace, chain, out, params)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           env=_env(share), timeout=900)
        self.assertEqual(p.returncode, 0, '%s: %s\n%s' % (label, ' '.join(cmd), p.stderr))
        stats = [ln for ln in p.stderr.splitlines() if ln.startswith(STATS)]
        self.assertEqual(len(stats), 1, '%s: %s' % (label, p.stderr))
        with open(out) as f:
            text = f.read()
        os.unlink(out)
        json.loads(text)
        return text, stats[0]

    def assert_same_three(self, label, trace, mode='cli', params=''):
        """standalone == reused == separate, and each took its path."""
        waits = [('filter.wperf.waits', None)]
        alone, st_alone = self.report(label, trace, [], mode=mode, params=params)
        reused, st_reused = self.report(label, trace, waits, mode=mode, params=params)
        separate, st_sep = self.report(label, trace, waits, share=False, mode=mode,
                                       params=params)
        self.assertNotIn(REUSED, st_alone, label)
        self.assertIn(REUSED, st_reused, '%s: the sink did not reuse the filter' % label)
        self.assertNotIn(REUSED, st_sep, label)
        # Same events decoded, whoever decoded them.
        self.assertEqual(st_reused.split(':', 2)[2], st_alone.split(':', 2)[2], label)
        self.assertEqual(reused, alone, '%s: reused report differs from standalone' % label)
        self.assertEqual(separate, alone, '%s: separate report differs' % label)
        return alone


class RealTraces(Shared):
    def test_present(self):
        self.assertGreaterEqual(len(rt.trace_units()), 5,
                                'no real traces under %s' % rt.TRACES)


def _make_real(label, path, mode):
    def test(self):
        self.assert_same_three(label, path, mode)
    return test


for _label, _path, _mode in rt.trace_units():
    setattr(RealTraces, 'test_' + _label.replace('-', '_').replace('.', '_'),
            _make_real(_label, _path, _mode))


class Synthetic(Shared):
    """The bench's generated traces, small."""

    def gen(self, *args):
        d = os.path.join(_TMP, 'gen-' + '-'.join(args))
        if not os.path.isdir(d):
            subprocess.run([GEN_TRACE, args[0], d] + list(args[1:]), check=True,
                           stdout=subprocess.DEVNULL)
        return d

    def test_mix(self):
        self.assert_same_three('mix', self.gen('mix', '30000'))

    def test_mix_long_waiter(self):
        self.assert_same_three('mix-long', self.gen('mix', '20000', '--long-waiter'))

    def test_chain(self):
        self.assert_same_three('chain', self.gen('chain', '20000', '16'))

    def test_fanin(self):
        self.assert_same_three('fanin', self.gen('fanin', '20000', '100'))


# net_dev_xmit / netif_receive_skb as lttng-modules 2.13 records them.
ws.LAYOUTS.setdefault('net_dev_xmit', [('skbaddr', 'u64'), ('rc', 's32'), ('len', 'u32'),
                                       ('name', 'str')])
ws.LAYOUTS.setdefault('netif_receive_skb', [('skbaddr', 'u64'), ('len', 'u32'),
                                            ('name', 'str')])

MS = 1000000
NET_RX = 3


def nic_scenario():
    """C sends on eth0 and sleeps; a NET_RX softirq wakes it (C waits for
    nic:eth0); S and T ping-pong meanwhile."""
    s = ws.Scenario(ncpus=2, end=40 * MS)
    s.thread(100, 'client')
    s.thread(200, 'srv-1', pid=200)
    s.thread(201, 'srv-2', pid=200)
    s.run(0, 0, 100)
    s.run(0, 1, 200)
    for i in range(3):
        t = (1 + 10 * i) * MS
        s.ev(t, 0, 'net_dev_xmit', skbaddr=1, rc=0, len=150000, name='eth0')
        s.sleep(t + MS, 0, 100)
        s.softirq_entry(t + 5 * MS, 0, NET_RX)
        s.ev(t + 5 * MS + 10, 0, 'netif_receive_skb', skbaddr=2, len=1500, name='eth0')
        s.wake(t + 5 * MS + 20, 0, 100)
        s.softirq_exit(t + 5 * MS + 30, 0, NET_RX)
        s.run(t + 5 * MS + 40, 0, 100)
        s.wake(t + 2 * MS, 1, 201)
        s.sleep(t + 2 * MS + 100, 1, 200, next_tid=201)
        s.wake(t + 4 * MS, 1, 200)
        s.sleep(t + 4 * MS + 100, 1, 201, next_tid=200)
    return s


class HandBuilt(Shared):
    @classmethod
    def setUpClass(cls):
        cls.trace = ws.write_ctf(nic_scenario(), os.path.join(_TMP, 'nic-scenario'))

    def test_nic_capacity(self):
        text = self.assert_same_three('nic', self.trace, params=',nic-capacity="eth0=1Gbit"')
        js = json.loads(text)
        nics = [v for v in js['vertices'] if v['kind'] == 'nic']
        self.assertEqual([v['name'] for v in nics], ['nic:eth0'], text[:2000])
        # The option reached the (shared) analysis before it finished.
        self.assertEqual(nics[0]['capacity_bps'], 1000000000)

    def test_without_nic_capacity(self):
        js = json.loads(self.assert_same_three('nic-none', self.trace))
        self.assertIsNone([v for v in js['vertices'] if v['kind'] == 'nic'][0]['capacity_bps'])

    def test_focus_and_merge(self):
        self.assert_same_three('focus', self.trace,
                               params=',pids="200",merge="process",threshold="1%"')

    def test_filter_chooses_segments_only(self):
        """The filter's pids and states choose its segment events, not what
        its analysis sees: the sink reusing that analysis reports every
        thread, as it does alone."""
        alone, _ = self.report('choose-alone', self.trace, [])
        chain = [('filter.wperf.waits', 'pids="200",states="waiting"')]
        reused, st = self.report('choose-reused', self.trace, chain)
        self.assertIn(REUSED, st)
        self.assertEqual(reused, alone)


class _DropIterator(bt2._UserMessageIterator):
    def __init__(self, config, self_output_port):
        self._up = self._create_message_iterator(
            self._component._input_ports['in'])
        self._after = self._component._after

    def __next__(self):
        while True:
            msg = next(self._up)
            if (type(msg) is not bt2._EventMessageConst or
                    msg.default_clock_snapshot.ns_from_origin <= self._after):
                return msg


class DropAfter(bt2._UserFilterComponent, message_iterator_class=_DropIterator):
    """Forwards every message but the events after ns `after`: a component
    between filter.wperf.waits and the sink that changes what reaches it."""

    def __init__(self, config, params, obj):
        self._add_input_port('in')
        self._add_output_port('out')
        self._after = obj


def _graph_report(trace, after, with_waits, out):
    """source.ctf.fs -> muxer [-> filter.wperf.waits] -> DropAfter ->
    sink.wperf.knots, in this process; the report's text."""
    plugin = ws.wperf_plugin()
    g = bt2.Graph()
    src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'], 'src',
                          params={'inputs': [trace]})
    mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
    chain = [mux]
    if with_waits:
        chain.append(g.add_component(plugin.filter_component_classes['waits'], 'waits'))
    chain.append(g.add_component(DropAfter, 'drop', obj=after))
    chain.append(g.add_component(plugin.sink_component_classes['knots'], 'knots',
                                 params={'format': 'json', 'path': out}))
    for i, port in enumerate(src.output_ports.values()):
        g.connect_ports(port, mux.input_ports['in%d' % i])
    for a, b in zip(chain, chain[1:]):
        g.connect_ports(a.output_ports['out'], b.input_ports['in'])
    g.run()
    with open(out) as f:
        text = f.read()
    os.unlink(out)
    return text


class Fallback(Shared):
    """Graphs where the sink must not reuse the filter's analysis, or
    reuses the last of two."""

    @classmethod
    def setUpClass(cls):
        units = {label: path for label, path, _mode in rt.trace_units()}
        cls.trace = units['ref-basic-kernel-analysis']

    def bounds(self):
        text = self.report('bounds', self.trace, [])[0]
        js = json.loads(text)
        b, e = js['time_range']['begin_ns'], js['time_range']['end_ns']
        return b + (e - b) // 4, b + (e - b) // 2, text

    def test_component_between(self):
        """A filter between that drops events: the sink analyses what
        reaches it, not what the filter saw."""
        _, middle, whole = self.bounds()
        out = os.path.join(_TMP, 'drop.json')
        behind = _graph_report(self.trace, middle, True, out)
        direct = _graph_report(self.trace, middle, False, out)
        self.assertEqual(behind, direct)
        self.assertNotEqual(behind, whole, 'nothing was dropped: the test proves nothing')
        # The range ends at the last event that reached the sink (the
        # packets' ends, which still pass, are no part of it); reusing the
        # filter's analysis would have given the whole trace's.
        js = json.loads(behind)
        self.assertLessEqual(js['time_range']['end_ns'], middle)
        self.assertLess(js['time_range']['end_ns'], json.loads(whole)['time_range']['end_ns'])
        self.assertLess(js['quality']['events'], json.loads(whole)['quality']['events'])

    def test_trimmer_before(self):
        begin, end, whole = self.bounds()
        trim = ('filter.utils.trimmer', 'begin="%d.%09d",end="%d.%09d"'
                % (divmod(begin, 10**9) + divmod(end, 10**9)))
        reused, st = self.report('trim-before', self.trace,
                                 [trim, ('filter.wperf.waits', None)])
        direct, _ = self.report('trim-only', self.trace, [trim])
        self.assertIn(REUSED, st)
        self.assertEqual(reused, direct)
        self.assertNotEqual(reused, whole, 'the trimmer trimmed nothing')

    def test_two_filters(self):
        waits = ('filter.wperf.waits', None)
        two, st = self.report('two', self.trace, [waits, waits])
        alone, _ = self.report('alone', self.trace, [])
        self.assertIn(REUSED, st)
        self.assertEqual(two, alone)


if __name__ == '__main__':
    try:
        unittest.main(verbosity=2)
    finally:
        import shutil
        shutil.rmtree(_TMP, True)
