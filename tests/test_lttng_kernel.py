#!/usr/bin/python3
"""The LTTng kernel tracer for real (suite `lttng-kernel`): recordings made
in a Debian 12 guest under QEMU with lttng-modules loaded
(tests/guest/wperf-guest; this machine's kernel cannot load modules), and
analysed here, on the host, with this build's plugin.

In ONE boot of the guest, tests/guest/lttng-kernel.sh records the Figure-1
workload (fig1-pipeline: a producer hands requests to fig1-writer, which
fsyncs) five ways: `lttng load wperf` (the project's profile) + start /
stop / destroy; `wperf record`; tests/workloads/record-fig1.sh
(source.wperf.tracefs); `lttng load wperf-snapshot` + `lttng regenerate
statedump` + `lttng snapshot record`; `wperf record --snapshot` + `wperf
snapshot` + `wperf stop`.

Asserts: each recording is an lttng-modules kernel trace (but the tracefs
one), whose report focused on the workload's pid has as first entry a knot
holding fig1-writer and a disk, not fig1-producer; `wperf record` says it
chose LTTng's kernel tracer; the LTTng and tracefs recordings of the same
workload in the same guest give the same first finding (members by kind
and name, kind, verdict); the snapshots keep the workload's thread names.

Needs root (the image is built with debootstrap and chroot) and QEMU. The
image is built on first use (minutes) and cached (tests/README.md, "The
LTTng guest"). Without root or QEMU: FAIL under CI=true, else SKIP (77).
On failure the guest's console log is printed; WPERF_KEEP_TRACE=1 keeps
the output directory.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.path.realpath(os.environ.get('WPERF_SOURCE_ROOT', os.path.join(HERE, '..')))
BUILD = os.path.realpath(os.environ.get('WPERF_BUILD_DIR', os.path.join(SOURCE_ROOT, 'build')))
GUEST = os.path.join(SOURCE_ROOT, 'tests', 'guest', 'wperf-guest')
GUEST_SCRIPT = os.path.join(SOURCE_ROOT, 'tests', 'guest', 'lttng-kernel.sh')
WPERF = os.path.join(BUILD, 'tools', 'wperf')
WORKLOAD = os.path.join(BUILD, 'tests', 'workloads', 'fig1-pipeline')
# The whole guest run, boot to power-off (the image build is not in it).
RUN_TIMEOUT = int(os.environ.get('WPERF_GUEST_TIMEOUT', '900'))


def why_not():
    """None when the guest can run here, else why not."""
    if os.geteuid() != 0:
        return 'building and booting the LTTng guest needs root (running as uid %d)' \
            % os.geteuid()
    if not shutil.which('qemu-system-x86_64'):
        return 'qemu-system-x86_64 is not installed (apt-get install qemu-system-x86)'
    try:
        q = subprocess.run(['qemu-system-x86_64', '-machine', 'none', '-nodefaults',
                            '-display', 'none', '-monitor', 'stdio'], input='quit\n',
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=60)
        if q.returncode != 0:
            return 'QEMU cannot start: %s' % (q.stdout.strip().splitlines() or ['?'])[-1]
    except subprocess.TimeoutExpired:
        return 'QEMU did not start within 60 s'
    for prog in (WPERF, WORKLOAD):
        if not os.access(prog, os.X_OK):
            return '%s is not built' % prog
    return None


def first_knot_summary(js, pid):
    """The report's first entry as (kind, verdict, sorted members), members
    as 'thread:<comm>' (threads of the workload's process) or
    '<kind>:<name>' (devices and other vertices)."""
    byid = {v['id']: v for v in js['vertices']}

    def member(i):
        v = byid[i]
        if v['kind'] == 'thread':
            mine = v.get('pid') == pid
            return 'thread:%s%s' % (v.get('comm'), '' if mine else ' (pid %s)' % v.get('pid'))
        return '%s:%s' % (v['kind'], v.get('name'))
    k = js['knots'][0]
    return (k['kind'], k.get('classification', {}).get('class'),
            sorted(member(m) for m in k['members']))


class LttngKernel(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix='wperf-lttng-kernel-', dir='/var/tmp')
        cls.failed = False
        cmd = [GUEST, 'run', '--source', SOURCE_ROOT, '--build', BUILD, '--out', cls.out,
               '--timeout', str(RUN_TIMEOUT), '--no-echo', '--', 'bash', GUEST_SCRIPT]
        print('$ ' + ' '.join(cmd), flush=True)
        t0 = time.monotonic()
        # The script's progress (image build steps and their times) goes
        # straight to this test's output.
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL)
        cls.rc = p.returncode
        print('guest: exit %d after %.1f s' % (cls.rc, time.monotonic() - t0), flush=True)
        cls.reports = {}

    @classmethod
    def tearDownClass(cls):
        if cls.failed or cls.rc != 0:
            cls.print_console()
            print('guest output kept in %s' % cls.out)
            return
        recording.remove_recordings(cls.out)

    @classmethod
    def print_console(cls):
        console = os.path.join(cls.out, 'console.log')
        try:
            with open(console, errors='replace') as f:
                lines = f.read().splitlines()
        except OSError:
            print('no console log (%s)' % console)
            return
        print('---- guest console (%s, last 300 lines) ----' % console)
        print('\n'.join(lines[-300:]))
        print('---- end of guest console ----')

    def run(self, result=None):
        # Note failures so that tearDownClass shows the console and keeps
        # the output.
        before = len(result.failures) + len(result.errors) if result else 0
        r = super().run(result)
        if result and len(result.failures) + len(result.errors) > before:
            type(self).failed = True
        return r

    # ---- helpers

    def part(self, name):
        """The directory of one recording, after checking it succeeded."""
        self.assertEqual(self.rc, 0, 'the guest run failed (exit %d)' % self.rc)
        log = self.log(name)
        try:
            with open(os.path.join(self.out, name + '.status')) as f:
                status = int(f.read())
        except OSError:
            self.fail('the guest did not run part %s' % name)
        self.assertEqual(status, 0, 'part %s failed in the guest:\n%s' % (name, log[-3000:]))
        return os.path.join(self.out, name)

    def log(self, name):
        try:
            with open(os.path.join(self.out, name + '.log'), errors='replace') as f:
                return f.read()
        except OSError:
            return ''

    def pid(self, name):
        with open(os.path.join(self.part(name), 'workload.pid')) as f:
            return int(f.read())

    def report(self, name, trace=None):
        """`wperf report` of a recording focused on the workload (JSON)."""
        if (name, trace) in self.reports:
            return self.reports[(name, trace)]
        trace = trace or os.path.join(self.part(name), 'trace')
        out = os.path.join(self.out, name + '-report.json')
        cmd = [WPERF, 'report', trace, '--plugin-path', os.path.join(BUILD, 'plugin'),
               '--format', 'json', '--output', out, '--pids', str(self.pid(name))]
        q = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertEqual(q.returncode, 0, '$ %s\n%s' % (' '.join(cmd), q.stdout[-3000:]))
        with open(out) as f:
            js = json.load(f)
        self.reports[(name, trace)] = js
        return js

    def tracer_names(self, trace):
        """The tracer_name of every CTF metadata file under trace."""
        names = set()
        for root, _, files in os.walk(trace):
            if 'metadata' in files:
                with open(os.path.join(root, 'metadata'), 'rb') as f:
                    text = f.read().decode('latin-1')
                for tracer in ('lttng-modules', 'lttng-ust'):
                    if 'tracer_name = "%s"' % tracer in text:
                        names.add(tracer)
        return names

    def assert_fig1_knot(self, name, trace=None):
        js = self.report(name, trace)
        pid = self.pid(name)
        kind, verdict, members = first_knot_summary(js, pid)
        what = '%s: first entry %s %s %s' % (name, kind, verdict, members)
        self.assertEqual(kind, 'knot', what)
        self.assertIn('thread:fig1-writer', members, what)
        self.assertNotIn('thread:fig1-producer', members, what)
        self.assertTrue([m for m in members if m.startswith('disk:')], what)
        return kind, verdict, members

    # ---- the tests

    def test_load_profile(self):
        """`lttng load wperf`: an lttng-modules trace whose first knot is
        the writer and the disk."""
        d = self.part('load')
        self.assertIn('lttng-modules', self.tracer_names(os.path.join(d, 'trace')))
        self.assert_fig1_knot('load')

    def test_record_picks_lttng(self):
        """`wperf record` chooses LTTng's kernel tracer, says so, and the
        trace gives the same knot."""
        d = self.part('record')
        self.assertIn('(kernel events: lttng)', self.log('record'))
        self.assertIn('lttng-modules', self.tracer_names(os.path.join(d, 'trace')))
        self.assert_fig1_knot('record')

    def test_tracefs_agrees(self):
        """source.wperf.tracefs in the same guest: the same first finding
        (kind, verdict, members by kind and name) as LTTng's tracer."""
        d = self.part('tracefs')
        self.assertNotIn('lttng-modules', self.tracer_names(os.path.join(d, 'trace')))
        lttng = self.assert_fig1_knot('record')
        tracefs = self.assert_fig1_knot('tracefs')
        self.assertEqual(lttng, tracefs)

    def test_snapshot_profile(self):
        """`lttng load wperf-snapshot` + `lttng regenerate statedump` +
        `lttng snapshot record`: a snapshot the sink reads, thread names
        intact, and the same knot."""
        self.part('snapshot')
        self.assert_fig1_knot('snapshot')

    def test_wperf_flight_recorder(self):
        """`wperf record --snapshot`, `wperf snapshot`, `wperf stop`, on
        LTTng's kernel tracer."""
        d = self.part('flight')
        self.assertIn('kernel events: lttng', self.log('flight') +
                      self.state_kernel(os.path.join(d, 'trace')))
        snap = os.path.join(d, 'trace', 'snapshot-1')
        self.assertTrue(os.path.isdir(snap), 'no snapshot-1:\n' + self.log('flight')[-3000:])
        self.assertIn('lttng-modules', self.tracer_names(snap))
        self.assert_fig1_knot('flight', snap)

    @staticmethod
    def state_kernel(trace):
        try:
            with open(os.path.join(trace, 'wperf.json')) as f:
                return 'kernel events: %s' % json.load(f).get('kernel')
        except (OSError, ValueError):
            return ''


if __name__ == '__main__':
    recording.main(why_not, 'in the LTTng guest')
