#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""filter.wperf.repair: packet ends of old LTTng tracers, through the muxer.

lttng-modules 2.1 (the shared `tc-synctraces` pair) stamped some packet
ends after the next packet's beginning in the same stream, so
filter.utils.muxer stops the graph ("Youngest upstream message iterator
wrapper's timestamp is less than muxer's message iterator's last returned
timestamp"). filter.wperf.repair, one per source port before the muxer,
moves those ends back to the next beginning. Checked on each host of the
real pair:

  - without it the muxer fails (the reason it exists); with it the graph
    runs, and what comes out of the muxer never goes back in time;
  - it changes nothing but the moved packet ends: the same messages, in
    the same order, with the same times, as source.ctf.fs straight into a
    sink (no muxer); the moved ends are exactly the ones stamped after the
    next beginning, counted independently here, each now at that beginning;
  - on a trace without the bug, every message is as the source made it;
  - `wperf report HOST` (which inserts it) exits 0 and writes the same
    JSON report as source.ctf.fs straight into sink.wperf.knots, and says
    on stderr how many ends it moved;
  - a parameter is refused in one line.

Usage: WPERF_PLUGIN_DIR=build/plugin WPERF_BUILD_DIR=build
       /usr/bin/python3 tests/test_repair.py [--shared-dir-default DIR]
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wperf_scenario as ws  # noqa: E402

import bt2  # noqa: E402

SHARED = ws.shared_dir()
SYNC = os.path.join(SHARED, 'traces', 'lttng-kernel', 'tc-synctraces')
CLEAN = os.path.join(SHARED, 'traces', 'lttng-kernel', 'bt-lttng-tracefile-rotation', 'kernel')
BUILD_DIR = os.environ.get('WPERF_BUILD_DIR',
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
WPERF = os.path.join(BUILD_DIR, 'tools', 'wperf')
HOSTS = ('scp_src', 'scp_dest')


class Collect(ws.EachMessage, bt2._UserSinkComponent):
    """Every message as (kind, what, clock value or None)."""

    def take(self, msg):
        kind = type(msg).__name__
        what = msg.event.name if type(msg) is bt2._EventMessageConst else ''
        cs = getattr(msg, 'default_clock_snapshot', None) \
            if type(msg) is not bt2._StreamBeginningMessageConst \
            and type(msg) is not bt2._StreamEndMessageConst else None
        self._out.append((kind, what, cs.value if cs is not None else None))


def _ctf_fs():
    return bt2.find_plugin('ctf').source_component_classes['fs']


def read(path, repair, muxer):
    """The messages of one single-stream trace: source.ctf.fs [-> repair]
    [-> muxer] -> Collect."""
    out = []
    g = bt2.Graph()
    src = g.add_component(_ctf_fs(), 'src', params={'inputs': [path]})
    ports = list(src.output_ports.values())
    assert len(ports) == 1, path
    port = ports[0]
    if repair:
        rep = g.add_component(ws.wperf_plugin().filter_component_classes['repair'], 'repair')
        g.connect_ports(port, rep.input_ports['in'])
        port = rep.output_ports['out']
    if muxer:
        mux = g.add_component(bt2.find_plugin('utils').filter_component_classes['muxer'], 'mux')
        g.connect_ports(port, mux.input_ports['in0'])
        port = mux.output_ports['out']
    sink = g.add_component(Collect, 'sink', obj=out)
    g.connect_ports(port, sink.input_ports['in'])
    g.run()
    return out


def read_ports(path, repair):
    """{port name: its messages}: every port of source.ctf.fs into its own
    sink, each through its own filter.wperf.repair when repair is true."""
    outs = {}
    g = bt2.Graph()
    src = g.add_component(_ctf_fs(), 'src', params={'inputs': [path]})
    for i, port in enumerate(src.output_ports.values()):
        out = outs.setdefault(port.name, [])
        if repair:
            rep = g.add_component(ws.wperf_plugin().filter_component_classes['repair'],
                                  'repair%d' % i)
            g.connect_ports(port, rep.input_ports['in'])
            port = rep.output_ports['out']
        sink = g.add_component(Collect, 'sink%d' % i, obj=out)
        g.connect_ports(port, sink.input_ports['in'])
    g.run()
    return outs


def overlapping_ends(msgs):
    """Indexes of the packet ends whose time is after the next packet's
    beginning."""
    out = []
    for i, (kind, _w, ts) in enumerate(msgs):
        if kind != '_PacketEndMessageConst':
            continue
        nxt = msgs[i + 1] if i + 1 < len(msgs) else None
        if nxt and nxt[0] == '_PacketBeginningMessageConst' and nxt[2] < ts:
            out.append(i)
    return out


class Repair(unittest.TestCase):
    def setUp(self):
        if not os.path.isdir(SYNC):
            self.skipTest('no shared trace %s' % SYNC)

    def test_muxer_refuses_the_raw_hosts(self):
        for h in HOSTS:
            with self.subTest(host=h):
                with self.assertRaises(bt2._Error):
                    read(os.path.join(SYNC, h), repair=False, muxer=True)

    def test_only_overlapping_ends_move(self):
        for h in HOSTS:
            with self.subTest(host=h):
                raw = read(os.path.join(SYNC, h), repair=False, muxer=False)
                fixed = read(os.path.join(SYNC, h), repair=True, muxer=True)
                moved = overlapping_ends(raw)
                self.assertGreater(len(moved), 0, 'the trace no longer has the bug')
                self.assertEqual(len(raw), len(fixed))
                for i, (a, b) in enumerate(zip(raw, fixed)):
                    if i in moved:
                        self.assertEqual(a[:2], b[:2])
                        self.assertEqual(b[2], raw[i + 1][2], 'end %d not at the next beginning' % i)
                    else:
                        self.assertEqual(a, b, 'message %d changed' % i)
                times = [m[2] for m in fixed if m[2] is not None]
                self.assertEqual(times, sorted(times), 'the output goes back in time')

    def test_clean_trace_unchanged(self):
        if not os.path.isdir(CLEAN):
            self.skipTest('no shared trace %s' % CLEAN)
        raw, fixed = read_ports(CLEAN, repair=False), read_ports(CLEAN, repair=True)
        self.assertGreater(len(raw), 1)
        self.assertTrue(all(raw.values()))
        self.assertEqual(raw, fixed)

    def test_parameter_refused(self):
        g = bt2.Graph()
        with self.assertRaises(bt2._Error) as ctx:
            g.add_component(ws.wperf_plugin().filter_component_classes['repair'], 'repair',
                            params={'mode': 'x'})
        self.assertIn('mode', ws.bt2_error_text(ctx.exception))

    def test_wperf_report_one_host(self):
        if not os.access(WPERF, os.X_OK):
            self.skipTest('no %s' % WPERF)
        tmp = tempfile.mkdtemp(prefix='wperf-repair-')
        self.addCleanup(shutil.rmtree, tmp, True)
        for h in HOSTS:
            with self.subTest(host=h):
                path = os.path.join(SYNC, h)
                moved = len(overlapping_ends(read(path, repair=False, muxer=False)))
                ours = os.path.join(tmp, h + '-wperf.json')
                p = subprocess.run([WPERF, 'report', '--format', 'json', '--output', ours, path],
                                   capture_output=True, text=True, timeout=300)
                self.assertEqual(p.returncode, 0, p.stderr[-3000:])
                m = re.search(r'filter\.wperf\.repair: (\d+) packet ends? stamped after', p.stderr)
                self.assertTrue(m, p.stderr[-2000:])
                self.assertEqual(int(m.group(1)), moved)
                direct = os.path.join(tmp, h + '-direct.json')
                subprocess.run(['babeltrace2', '--plugin-path=' + ws.plugin_dir(), 'run',
                                '--component', 'src:source.ctf.fs',
                                '--params', 'inputs=["%s"]' % path,
                                '--component', 'k:sink.wperf.knots',
                                '--params', 'format="json",path="%s"' % direct,
                                '--connect', 'src:k'], check=True, timeout=300)
                with open(ours) as a, open(direct) as b:
                    ja, jb = json.load(a), json.load(b)
                self.assertGreater(len(ja['threads']), 10)
                self.assertEqual(ja, jb)


if __name__ == '__main__':
    unittest.main(verbosity=2)
