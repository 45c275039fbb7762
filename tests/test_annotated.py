#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The annotation analysis (wperf-method(7) §6) on recordings made for real:
`wperf record` records kernel events and the wperf:* LTTng-UST annotations
of the bundled annotated workloads (ust-provider/workloads), and the
report must show what the annotations say:

- spin-lock (3 threads, one test-and-set lock): spinning is waiting on the
  thread that held the lock, so the spinners wait on each other (thread ->
  thread edges between spin-N threads), their spin time is waiting time,
  not running time, and every item the program counted is a progress
  point;
- cond-broadcast (one producer, three waiters, one wins each item, so two
  false wakeups per item): every false wakeup the program declared is
  accounted for (merged into the next wait, or counted as not merged), and
  progress points match.

Needs root, lttng-tools and the built workloads and wperf command. Without
them: FAIL under CI=true, else SKIP (exit 77) saying why.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

import bt2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

from test_real_traces import Checks, validate_schema  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get('WPERF_SOURCE_ROOT', os.path.join(HERE, '..'))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(SOURCE_ROOT, 'build'))
WPERF = os.path.join(BUILD, 'tools', 'wperf')
WORKLOADS = os.path.join(BUILD, 'ust-provider', 'workloads')
COND_WAITERS, COND_ITEMS = 3, 300


def why_not():
    return recording.why_not_wperf_record(
        WPERF, os.path.join(WORKLOADS, 'spin-lock'), os.path.join(WORKLOADS, 'cond-broadcast'))


def counters(output, prog):
    """The workload's own `PROG: KEY VALUE` lines."""
    out = {}
    for m in re.finditer(r'^%s: (\S+) (.+)$' % re.escape(prog), output, re.M):
        out.setdefault(m.group(1), []).append(m.group(2))
    return out


class Recording:
    """`wperf record` of one workload, and its JSON report focused on it,
    each thread its own vertex."""

    def __init__(self, tmp, prog, args):
        self.dir = os.path.join(tmp, prog)
        env = dict(os.environ)
        rec = subprocess.run([WPERF, 'record', '-o', self.dir, '--',
                              os.path.join(WORKLOADS, prog)] + args,
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300, env=env)
        self.log = rec.stdout
        self.rc = rec.returncode
        self.counts = counters(rec.stdout, prog)
        self.js = None
        if rec.returncode != 0:
            return
        with open(os.path.join(self.dir, 'command.pid')) as f:
            self.pid = int(f.read().strip())
        out = os.path.join(tmp, prog + '.json')
        # Thread by thread (merge="none", and short-lived="keep": the
        # spinners live a moment each): the checks are about which
        # spinner or waiter waited on which.
        rep = subprocess.run([WPERF, 'report', self.dir, '--format', 'json', '--output', out,
                              '--pids', str(self.pid), '--params',
                              'merge="none",short-lived="keep"'],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300)
        self.log += rep.stdout
        self.rc = rep.returncode
        if rep.returncode == 0:
            with open(out) as f:
                self.js = json.load(f)

    def count(self, key):
        return int(self.counts[key][-1])

    def recorded_events(self, name):
        """How many `name` events of the workload's process the UST trace
        holds (the provider's exactness against the program's counters is
        ust-provider's test; here the analysis must account for what was
        recorded)."""
        n = 0
        for msg in bt2.TraceCollectionMessageIterator(os.path.join(self.dir, 'ust')):
            if type(msg) is bt2._EventMessageConst and msg.event.name == name:
                ctx = msg.event.common_context_field
                if ctx is None or 'vpid' not in ctx or int(ctx['vpid']) == self.pid:
                    n += 1
        return n

    def threads(self, pattern):
        return {v['id']: v for v in self.js['vertices']
                if v['kind'] == 'thread' and v.get('pid') == self.pid
                and re.fullmatch(pattern, v.get('comm') or '')}

    def progress(self, name):
        return {p['name']: p['count'] for p in self.js['progress']}.get(name, 0)


class Annotated(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-annotated-', dir='/var/tmp')
        cls.spin = Recording(cls.tmp, 'spin-lock', ['--threads', '3', '--iterations', '20000'])
        cls.cond = Recording(cls.tmp, 'cond-broadcast',
                             ['--waiters', str(COND_WAITERS), '--items', str(COND_ITEMS)])

    @classmethod
    def tearDownClass(cls):
        recording.remove_recordings(cls.tmp)

    def recorded(self, r):
        self.assertEqual(r.rc, 0, 'wperf record/report failed:\n' + r.log[-4000:])
        self.assertIsNotNone(r.js)
        return r

    def test_spin_waits_are_waits_on_the_holder(self):
        r = self.recorded(self.spin)
        spinners = r.threads(r'spin-[0-9]+')
        self.assertEqual(len(spinners), 3, 'spin threads: %s' % spinners)
        between = [e for e in r.js['edges'] if e['from'] in spinners and e['to'] in spinners
                   and e['from'] != e['to']]
        self.assertTrue(between, 'no spinner waits for another spinner')
        waits = sum(e['count'] for e in between)
        # Every contended acquisition is a wait on the thread that held the
        # lock (uncontended ones hand it from a thread to itself: not an
        # edge); preemption can split one spin into several waits.
        self.assertGreater(waits, 0)
        self.assertGreaterEqual(waits, r.count('contended') // 2,
                                'the program counted %d contended acquisitions, the report '
                                '%d waits between spinners' % (r.count('contended'), waits))
        for v in spinners.values():
            t = next(t for t in r.js['threads'] if t['id'] == v['id'])
            self.assertGreater(t['waiting_ns']['thread'], 0,
                               '%s spent no time waiting for a thread' % v['comm'])
            life = t['last_ns'] - t['first_ns']
            total = t['running_ns'] + t['runnable_ns'] + sum(t['waiting_ns'].values())
            self.assertEqual(total, life, '%s: segments do not tile its life' % v['comm'])

    def test_spin_progress_points(self):
        r = self.recorded(self.spin)
        recorded = r.recorded_events('wperf:progress')
        self.assertGreaterEqual(recorded, r.count('items') * 9 // 10)
        self.assertEqual(r.progress('item'), recorded)

    def test_false_wakeups_are_accounted_for(self):
        r = self.recorded(self.cond)
        q = r.js['quality']
        declared = r.count('false_wakeups')
        recorded = r.recorded_events('wperf:false_wakeup')
        # The workload makes COND_WAITERS - 1 false wakeups per item, or
        # more (spurious wakeups), whatever the scheduler does.
        self.assertEqual(r.count('items'), COND_ITEMS)
        self.assertGreaterEqual(declared, COND_ITEMS * (COND_WAITERS - 1))
        # The tracer may miss a few events while it registers (slow under
        # sanitizers); what it recorded must all be accounted for.
        self.assertGreaterEqual(recorded, declared * 9 // 10,
                                '%d false wakeups declared, %d recorded' % (declared, recorded))
        self.assertEqual(q['false_wakeups_merged'] + q['false_wakeups_unmerged'], recorded)
        self.assertGreater(q['false_wakeups_merged'], 0)
        self.assertEqual(r.progress('item'), r.recorded_events('wperf:progress'))

    def test_reports_are_valid(self):
        for r in (self.spin, self.cond):
            r = self.recorded(r)
            validate_schema(self, r.js, r.dir)
            Checks.report_invariants(self, r.js, r.dir)


if __name__ == '__main__':
    recording.main(why_not, 'annotated workloads')
