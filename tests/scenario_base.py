# SPDX-License-Identifier: MIT
"""What the scenario suites (tests/test_scenarios_*.py) share: the time
unit U, the disk they use, and Base, the TestCase whose knots() runs a
scenario through sink.wperf.knots and checks the invariants every report
holds, with the edge and segment assertions the suites use.

Every expected number is derived by hand from doc wperf-method(7) (§3 segments,
§4 cascade, §5 disks, §7 knots); the derivations are in the comments and in
tests/README.md. Times are written in a unit U (100 ms) where it keeps them
readable."""

import unittest

from wperf_scenario import MS, Report, dev_t, run_knots


U = 100 * MS
KINDS = ('thread', 'disk', 'nic', 'irq', 'softirq', 'timer', 'unknown', 'virtual')


DISK = dev_t(8, 0)


def segments_of(out, tid):
    return [s for s in out['segments'] if s['tid'] == tid]


class Base(unittest.TestCase):
    maxDiff = None

    def knots(self, scn, **params):
        js = run_knots(scn, **params)
        r = Report(js)
        self.check_common(r, scn)
        return r

    def check_common(self, r, scn):
        """Invariants that hold for every scenario."""
        begin, end = scn.time_range()
        js = r.js
        self.assertIsInstance(js['format'], str)
        self.assertTrue(js['format'])
        self.assertEqual(js['time_range']['begin_ns'], begin, 'time_range.begin_ns')
        self.assertEqual(js['time_range']['end_ns'], end, 'time_range.end_ns')
        self.assertEqual(js['time_range']['duration_ns'], end - begin, 'time_range.duration_ns')
        for e in js['edges']:
            self.assertGreaterEqual(e['direct_ns'], 0, r.describe_edges())
            self.assertGreaterEqual(e['weight_ns'], e['direct_ns'], r.describe_edges())
            self.assertIn(e['from'], r.vertices)
            self.assertIn(e['to'], r.vertices)
        for t in js['threads']:
            w = sum(t['waiting_ns'][k] for k in KINDS)
            self.assertEqual(t['running_ns'] + t['runnable_ns'] + w + t['unknown_ns'],
                             t['last_ns'] - t['first_ns'],
                             'thread %s: running+runnable+waiting+unknown != lifetime' % t)
            # Unknown only where events were lost, or contradicted each other.
            if t['unknown_ns']:
                self.assertTrue(js['quality']['gaps'] or t['state_mismatches'], t)
        # No thread in a scenario ever appears in tid 0.
        for v in js['vertices']:
            if v['kind'] == 'thread':
                self.assertNotEqual(v['tid'], 0, 'swapper must not be a vertex')

    def assertEdge(self, r, frm, to, weight, direct=None, count=None):
        e = r.edge(frm, to)
        msg = 'edge %s -> %s; all edges: %s' % (r.vname(frm), r.vname(to), r.describe_edges())
        self.assertEqual(e['weight_ns'], weight, msg)
        if direct is not None:
            self.assertEqual(e['direct_ns'], direct, msg)
        if count is not None:
            self.assertEqual(e['count'], count, msg)
        return e

    def assertTiled(self, out, tid, first, last):
        segs = sorted(segments_of(out, tid), key=lambda s: s['start'])
        self.assertTrue(segs, 'no segments for tid %d' % tid)
        self.assertEqual(segs[0]['start'], first, 'first segment of %d' % tid)
        for a, b in zip(segs, segs[1:]):
            self.assertEqual(a['start'] + a['duration'], b['start'],
                             'segments of %d do not abut: %s / %s' % (tid, a, b))
        self.assertEqual(segs[-1]['start'] + segs[-1]['duration'], last,
                         'last segment of %d' % tid)
        for s in segs:
            self.assertGreaterEqual(s['duration'], 0, s)
        return segs

    def assertSegs(self, out, tid, expected):
        """expected: [(state, start, duration, waker_name or None, cascade or None)]
        zero-length segments are ignored on both sides."""
        segs = [s for s in sorted(segments_of(out, tid), key=lambda s: s['start'])
                if s['duration'] != 0]
        got = [(s['state'], s['start'], s['duration'],
                s['waker_name'] if s['state'] == 'waiting' else None,
                s['cascade'] if s['state'] == 'waiting' else None) for s in segs]
        self.assertEqual(got, expected, 'segments of tid %d' % tid)
