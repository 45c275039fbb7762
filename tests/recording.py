# SPDX-License-Identifier: MIT
"""What the tests that record for real share: how they run or refuse to.

A test that needs root, tracefs, perf or LTTng and cannot have them FAILS
under CI=true (a skip there would hide a broken CI machine) and otherwise
SKIPs with meson's exit status 77, saying why.
"""

import os
import shutil
import sys
import unittest

SKIP = 77

# `wperf record` runs the recorded command as the user who ran sudo
# (SUDO_USER). The tests' workloads write into root's temporary
# directories: under `sudo make check` they must run as root, as in CI.
os.environ.pop('SUDO_USER', None)
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


def main(why_not, what):
    """Run the calling module's unittest cases, or refuse: why_not() gives
    the reason recording cannot work here (None when it can); `what` names
    what the test records, for the message."""
    reason = why_not()
    if reason:
        if IN_CI:
            print('FAIL: cannot record %s under CI: %s' % (what, reason))
            sys.exit(1)
        print('SKIP: %s' % reason)
        sys.exit(SKIP)
    prog = unittest.main(verbosity=2, exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)


def source_root():
    """The source tree: $WPERF_SOURCE_ROOT, else this file's parent."""
    here = os.path.dirname(os.path.abspath(__file__))
    return os.environ.get('WPERF_SOURCE_ROOT', os.path.join(here, '..'))


def build_dir():
    """The build directory under test: $WPERF_BUILD_DIR, else build/ of
    the source tree."""
    return os.environ.get('WPERF_BUILD_DIR', os.path.join(source_root(), 'build'))


def wperf_path():
    """The `wperf` command of the build under test."""
    return os.path.join(build_dir(), 'tools', 'wperf')


def workload_path(name):
    """A workload of tests/workloads/, as built in the build under test."""
    return os.path.join(build_dir(), 'tests', 'workloads', name)


def main_wperf_record(what, *workloads, tools=()):
    """main() for a test that runs `wperf record` of these workloads of the
    build (names in tests/workloads/): it refuses when a program of
    `tools` is not on PATH, or when why_not_wperf_record() of the build's
    wperf and the workloads gives a reason."""
    def why_not():
        for prog in tools:
            if not shutil.which(prog):
                return '%s is not installed' % prog
        return why_not_wperf_record(wperf_path(), *[workload_path(w) for w in workloads])
    main(why_not, what)


def why_not_wperf_record(*programs):
    """The reason `wperf record` of these built programs cannot work here
    (root for kernel events, lttng-tools for the annotations), or None."""
    if os.geteuid() != 0:
        return 'recording kernel events needs root (running as uid %d)' % os.geteuid()
    if not shutil.which('lttng') or not shutil.which('lttng-sessiond'):
        return 'lttng-tools is not installed'
    for prog in programs:
        if not os.access(prog, os.X_OK):
            return '%s is not built' % prog
    return None


def writer_starved(js, writer_ids):
    """In a JSON report, the writer threads were runnable (ready, without
    a CPU) longer than they waited for the disk. On a machine whose CPUs
    other work keeps busy (stress-ng, parallel builds, a sanitized
    recorder) Figure 1's writer, even at nice -10, was runnable 45 to 91 %
    of its life: the CPUs pace it, not the disk, and the report rightly
    leads with them (wperf-analysis(7), "The CPUs"). Its delay for a CPU
    right after the disk woke it (woken_cpu_wait_ns) is the disk wait's
    cost, as the report counts it, and an idle CPU's latency is no wait
    for a CPU."""
    threads = [t for t in js['threads'] if t['id'] in writer_ids]
    return sum(t['runnable_ns'] - t['wake_latency_ns'] - t['woken_cpu_wait_ns']
               for t in threads) > \
        sum(t['waiting_ns'].get('disk', 0) + t['woken_cpu_wait_ns'] for t in threads)


def check_lost_events(tc, js, buffers):
    """A JSON report (merge="none") of a recording that lost events, made
    with small buffers (`buffers`, for the message) under a context-switch
    storm: it counts the loss, as gaps timed on a CPU inside the analysed
    range that cut waits short, and every thread's running, runnable and
    waiting times still add up to its lifetime."""
    q, tr = js['quality'], js['time_range']
    tc.assertGreater(q['discarded_events'], 0, 'no event lost with %s: %s' % (buffers, q))
    timed = [g for g in q['gaps'] if g['begin_ns'] >= 0 and g['end_ns'] >= 0]
    tc.assertTrue(timed, q['gaps'][:5])
    for g in timed:
        tc.assertGreaterEqual(g['cpu'], 0, g)
        tc.assertLessEqual(g['begin_ns'], g['end_ns'], g)
    tc.assertGreater(q['gap_ns'], 0)
    tc.assertLessEqual(q['gap_ns'], tr['duration_ns'])
    tc.assertGreater(q['waits_cut_by_gaps'], 0)
    for t in js['threads']:
        # Its life is tiled: what it did, and what the trace lost of it.
        tc.assertEqual(t['running_ns'] + t['runnable_ns'] + sum(t['waiting_ns'].values())
                       + t['unknown_ns'], t['last_ns'] - t['first_ns'], t)


def remove_recordings(tmp):
    """Remove a test's recording directory, unless WPERF_KEEP_TRACE=1 asks
    to keep it (then say where it is)."""
    if os.environ.get('WPERF_KEEP_TRACE'):
        print('recordings kept in %s (WPERF_KEEP_TRACE)' % tmp)
        return
    shutil.rmtree(tmp, ignore_errors=True)


class NotesFailures(unittest.TestCase):
    """A test class whose tearDownClass wants to know whether any of its
    tests failed (to print a guest's console, keep its output): `failed`
    is set on the class when one did."""
    failed = False

    def run(self, result=None):
        before = len(result.failures) + len(result.errors) if result else 0
        r = super().run(result)
        if result and len(result.failures) + len(result.errors) > before:
            type(self).failed = True
        return r


class WperfRecorded(unittest.TestCase):
    """A test case class whose setUpClass records COMMAND (argv, the
    workload built in this build directory) with `wperf record`, once for
    all its tests. Subclasses set COMMAND (a list; a relative first word is
    taken from <build>/tests/workloads/) and use report() to analyse the
    recording. WPERF_KEEP_TRACE=1 keeps the recording."""
    COMMAND = None
    RECORD_OPTIONS = []     # more `wperf record` options, e.g. ['--stacks']
    # The niceness `wperf record` runs at, and so the kernel recorder and
    # the workload: other work on the machine (both cores busy with
    # builds, the suite's other tests) must not starve them, so that the
    # recording shows the workload's own pattern and loses no events. A
    # test about a loaded machine sets 0 and makes its own load.
    NICE = -10
    maxDiff = None

    @staticmethod
    def build_dir():
        return build_dir()

    @classmethod
    def wperf(cls):
        return wperf_path()

    @classmethod
    def workload(cls):
        prog = cls.COMMAND[0]
        if os.path.isabs(prog):
            return prog
        return workload_path(prog)

    @classmethod
    def setUpClass(cls):
        import subprocess
        import tempfile
        cls.tmp = tempfile.mkdtemp(prefix='wperf-%s-' % os.path.basename(cls.workload()),
                                   dir='/var/tmp')
        cls.trace = os.path.join(cls.tmp, 'trace')
        rec = subprocess.run(['nice', '-n', str(cls.NICE), cls.wperf(), 'record', '-o', cls.trace]
                             + list(cls.RECORD_OPTIONS) + ['--', cls.workload()]
                             + list(cls.COMMAND[1:]),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300)
        cls.log = rec.stdout
        cls.ok = rec.returncode == 0
        cls.pid = None
        if cls.ok:
            with open(os.path.join(cls.trace, 'command.pid')) as f:
                cls.pid = int(f.read().strip())

    @classmethod
    def tearDownClass(cls):
        remove_recordings(cls.tmp)

    def report(self, *params, fmt='json', focus=True):
        """`wperf report` of the recording focused on the workload's pid,
        with sink parameters `params` ('merge="name"', ...): the parsed
        JSON report (fmt='json') or the text."""
        import json
        import subprocess
        self.assertTrue(self.ok, 'wperf record failed:\n' + self.log[-4000:])
        out = os.path.join(self.tmp, 'report-%d.%s' % (abs(hash(params)), fmt))
        plugin = os.environ.get('WPERF_PLUGIN_DIR',
                                os.path.join(self.build_dir(), 'plugin'))
        cmd = [self.wperf(), 'report', self.trace, '--plugin-path', plugin,
               '--format', fmt, '--output', out]
        if focus:
            cmd += ['--pids', str(self.pid)]
        if params:
            cmd += ['--params', ','.join(params)]   # one --params: the last one wins
        q = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertEqual(q.returncode, 0, '$ %s\n%s' % (' '.join(cmd), q.stdout[-3000:]))
        with open(out) as f:
            if fmt != 'json':
                return f.read()
            import report_invariants
            return report_invariants.check(json.load(f), ' '.join(cmd))

    def workload_output(self):
        """What the workload printed (its counters), from the recording log."""
        return self.log
