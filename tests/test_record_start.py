#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`wperf record -- CMD` starts CMD only once the kernel recorder records.

A new ftrace instance reads tracing_on=1 before any event is enabled, and
recording really begins a second or more later: a command started on
tracing_on missed its start, or was missing from its trace altogether.
wperf record now waits for source.wperf.tracefs's ready-file (written once
an event recorded after tracing went on came back through the ring
buffer; doc/source.wperf.tracefs.7.md) or, with LTTng's kernel tracer,
for `lttng start` to return.

Records a short command (/bin/true) RUNS times (default 5) and asserts,
each time, that the trace holds the command's fork (sched_process_fork of
its pid), its exec of /bin/true and its exit; that the fork came after the
time the ready-file gives (tracefs); and that the report sees the fork and
does not say the focus started late (Data quality).

With the tracefs recorder, the trace is written after the command ends
(source.wperf.tracefs's defer-mib): a second of ctxswitch recorded, the
trace holds under a twentieth of its final size when the command ends,
and all of its switches after; on a 120 MiB tmpfs (too little room to
defer) it converts as it reads, over a twentieth of the trace written
by then. The pages it holds meanwhile sit in transparent huge pages
where the kernel gives them to madvise() (the recorder's smaps while the
command runs).

On tracefs, the recorder's start-up reads what it records and nothing
more (strace of `wperf record -- /bin/true`): the format of each event it
enables, once, and neither the other events' formats nor /proc/kallsyms.

Needs root, tracefs and lttng-tools, and strace for the start-up's reads.
Without them: FAIL under CI=true, else SKIP (exit 77 for meson) saying
why.
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

import recording  # noqa: E402

from test_real_traces import ctf_dirs  # noqa: E402

RUNS = int(os.environ.get('WPERF_RECORD_START_RUNS', '5'))
COMMAND = '/bin/true'


THP_ENABLED = '/sys/kernel/mm/transparent_hugepage/enabled'


def recording_thp():
    """The kernel's transparent huge page mode if madvise() gets them
    ("always" or "madvise"), else None."""
    try:
        with open(THP_ENABLED) as f:
            mode = re.search(r'\[(\w+)\]', f.read())
    except OSError:
        return None
    return mode.group(1) if mode and mode.group(1) in ('always', 'madvise') else None


def why_not():
    return recording.why_not_wperf_record(COMMAND)


def command_events(kernel_dir, pid):
    """The fork, exec and exit events of pid in the kernel trace: a list
    of (name, clock value, ns from origin, payload dict)."""
    import bt2
    out = []
    for msg in bt2.TraceCollectionMessageIterator(kernel_dir):
        if type(msg) is not bt2._EventMessageConst:
            continue
        name = msg.event.name
        if name not in ('sched_process_fork', 'sched_process_exec', 'sched_process_exit'):
            continue
        p = {k: (int(v) if isinstance(v, bt2._IntegerFieldConst) else str(v))
             for k, v in msg.event.payload_field.items()
             if not isinstance(v, bt2._ArrayFieldConst)}
        if pid in (p.get('child_tid'), p.get('tid')):
            cs = msg.default_clock_snapshot
            out.append((name, cs.value, cs.ns_from_origin, p))
    return out


class RecordStart(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-record-start-', dir='/var/tmp')
        cls.wperf = recording.wperf_path()

    @classmethod
    def tearDownClass(cls):
        recording.remove_recordings(cls.tmp)

    def record_once(self, n):
        out = os.path.join(self.tmp, 'run%d' % n)
        rec = subprocess.run([self.wperf, 'record', '-o', out, '--', COMMAND],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=120)
        self.assertEqual(rec.returncode, 0, rec.stdout[-3000:])
        with open(os.path.join(out, 'command.pid')) as f:
            pid = int(f.read())
        with open(os.path.join(out, 'wperf.json')) as f:
            kernel = json.load(f).get('kernel')
        return out, pid, kernel

    def test_command_start_is_recorded(self):
        for n in range(RUNS):
            with self.subTest(run=n):
                out, pid, kernel = self.record_once(n)
                dirs = [d for d in ctf_dirs(out) if '/ust' not in d]
                self.assertEqual(len(dirs), 1, dirs)
                evs = command_events(dirs[0], pid)
                names = [e[0] for e in evs]
                self.assertEqual(names, ['sched_process_fork', 'sched_process_exec',
                                         'sched_process_exit'], evs)
                self.assertEqual(evs[1][3]['filename'], COMMAND)
                if kernel == 'tracefs':
                    # The source's ready-file: the trace clock's raw value
                    # of the event that proved it records.
                    with open(os.path.join(out, '.wperf', 'kernel-ready')) as f:
                        ready = int(f.read())
                    self.assertGreaterEqual(evs[0][1], ready, 'forked before ready')
                # The report sees the command's fork, and no late start.
                js = self.report(out, pid)
                self.assertTrue(js['focus_start']['forked'], js['focus_start'])
                self.assertFalse(js['focus_start']['late'], js['focus_start'])

    def record_sizes(self, out, args=(), load=('--seconds', '1')):
        """Record ctxswitch (for a second, flat out); the size of the kernel trace
        right after it ended (still recording) and at the end. In the
        sanitizer run too: each of its two tests takes seconds there (9 s
        and 6 s on 2 loaded cores), not the minutes it once did."""
        during = os.path.join(self.tmp, os.path.basename(out) + '-during')
        script = ('"$1" %s >/dev/null && du -sb "$2/kernel" | cut -f1 > "$3"; '
                  'sleep 0.2' % ' '.join(load))
        rec = subprocess.run([self.wperf, 'record', '-o', out, *args, '--', 'sh', '-c', script, 'sh',
                              recording.workload_path('ctxswitch'), out, during],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300)
        self.assertEqual(rec.returncode, 0, rec.stdout[-3000:])
        with open(during) as f:
            in_run = int(f.read())
        at_end = int(subprocess.run(['du', '-sb', os.path.join(out, 'kernel')],
                                    stdout=subprocess.PIPE, text=True).stdout.split()[0])
        return in_run, at_end

    def switches(self, out):
        import bt2
        dirs = [d for d in ctf_dirs(out) if '/ust' not in d]
        return sum(1 for m in bt2.TraceCollectionMessageIterator(dirs[0])
                   if type(m) is bt2._EventMessageConst and m.event.name == 'sched_switch')

    def test_conversion_after_the_command(self):
        # While the command runs, the tracefs recorder only holds the ring
        # buffers' pages (source.wperf.tracefs's defer-mib): the trace is
        # written once the command has ended, whole (ctxswitch makes some
        # 100,000 switches a second).
        out = os.path.join(self.tmp, 'deferred')
        in_run, at_end = self.record_sizes(out, ('--min-free', '0'))
        if self.kernel_recorder(out) != 'tracefs':
            self.skipTest('the deferred conversion is the tracefs recorder\'s')
        self.assertGreater(at_end, 2 << 20)
        self.assertLess(in_run, at_end / 20, (in_run, at_end))
        self.assertGreater(self.switches(out), 20000)

    def test_deferred_pages_in_huge_pages(self):
        # The pages a deferral holds are slots of 2 MiB chunks that the
        # kernel maps as transparent huge pages (madvise): a first touch
        # of each 4 KiB page was most of the recorder's CPU while the
        # command ran (doc/performance.md). Read from the recorder's
        # smaps while the command still runs, after a second of
        # ctxswitch at 20,000 switches a second (megabytes of pages held).
        # pgrep runs without the sanitizer run's preload (tests/README.md):
        # under it procps' pgrep hangs, and with it the command, which
        # kept the recording going until the test's 300 s ran out (taken
        # for the sanitized recorder's slowness before).
        thp = recording_thp()
        if thp is None:
            self.skipTest('no transparent huge pages here (%s)' % THP_ENABLED)
        out = os.path.join(self.tmp, 'huge')
        seen = os.path.join(self.tmp, 'huge-smaps')
        script = ('"$1" --seconds 1 --rate 20000 >/dev/null && '
                  'grep AnonHugePages /proc/$(env -u LD_PRELOAD pgrep -P $PPID -x wperf-recorder)'
                  '/smaps_rollup > "$2"')
        rec = subprocess.run([self.wperf, 'record', '-o', out, '--min-free', '0', '--', 'sh', '-c',
                              script, 'sh', recording.workload_path('ctxswitch'), seen],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=300)
        self.assertEqual(rec.returncode, 0, rec.stdout[-3000:])
        if self.kernel_recorder(out) != 'tracefs':
            self.skipTest('the deferred conversion is the tracefs recorder\'s')
        with open(seen) as f:
            kib = int(f.read().split()[1])
        self.assertGreaterEqual(kib, 2048, 'the recorder held no page in a huge page (THP %s)' % thp)

    def test_no_deferral_without_room(self):
        # On a file system with less room than 128 MiB beyond twice what is
        # held (a 120 MiB tmpfs, wperf's own margin off), the recorder
        # converts as it reads: its trace grows while the command runs.
        small = tempfile.mkdtemp(prefix='wperf-room-', dir='/var/tmp')
        if subprocess.run(['mount', '-t', 'tmpfs', '-o', 'size=120M', 'tmpfs', small]).returncode:
            self.fail('cannot mount a tmpfs')
        self.addCleanup(os.rmdir, small)
        self.addCleanup(subprocess.run, ['umount', '-l', small])
        out = os.path.join(small, 'r')
        # 20,000 switches a second for 2 s: some 8 MB of trace. Flat out,
        # the converter wrote up to ~50 MB/s on the tmpfs, and wperf's
        # disk guard (2 s of the fastest rate seen, plus the buffers'
        # reserve) stopped the recording with 103 MiB still free.
        in_run, at_end = self.record_sizes(out, ('--min-free', '0'),
                                           ('--seconds', '2', '--rate', '20000'))
        if self.kernel_recorder(out) != 'tracefs':
            self.skipTest('the deferred conversion is the tracefs recorder\'s')
        self.assertGreater(at_end, 2 << 20)
        # How far behind the conversion lags depends on the machine's load
        # (a sixth of the trace written at one load 19, 262 KiB of 20 MiB at
        # another), while a deferred recorder has written only the metadata
        # and the statedump by then, 65 KiB whatever the trace's size: three
        # times that tells them apart at any load.
        self.assertGreater(in_run, 3 * 64 << 10, (in_run, at_end))

    @staticmethod
    def kernel_recorder(out):
        """tracefs or lttng: what `wperf record` recorded out's kernel events with."""
        with open(os.path.join(out, 'wperf.json')) as f:
            return json.load(f).get('kernel')

    def test_unwritable_ready_file(self):
        # The source cannot say it records: it fails, in one line naming
        # the parameter, rather than record while nobody waits for it.
        p = subprocess.run(['babeltrace2', '--plugin-path=' + self.plugin(),
                            '-c', 'source.wperf.tracefs',
                            '--params=duration=1,ready-file="/nonexistent-dir/ready"',
                            '-c', 'sink.utils.dummy'],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        self.assertNotEqual(p.returncode, 0)
        self.assertIn('parameter `ready-file`: cannot write /nonexistent-dir/ready: No such '
                      'file or', p.stderr)

    def test_start_up_reads_only_what_it_records(self):
        # Every format of seven systems and all of /proc/kallsyms were most
        # of the recorder's start-up (doc/performance.md): it parses the
        # format of each event it enables, once, and nothing names symbols
        # while recording (a report reads /proc/kallsyms itself).
        strace = shutil.which('strace')
        if not strace and recording.IN_CI:
            self.fail('strace is not installed (apt-get install strace)')
        if not strace:
            self.skipTest('strace is not installed')
        out, log = os.path.join(self.tmp, 'strace'), os.path.join(self.tmp, 'strace.log')
        rec = subprocess.run([strace, '-f', '-qq', '-e', 'trace=open,openat', '-o', log,
                              self.wperf, 'record', '-o', out, '--', COMMAND],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                             timeout=120)
        self.assertEqual(rec.returncode, 0, rec.stdout[-3000:])
        with open(os.path.join(out, 'wperf.json')) as f:
            if json.load(f).get('kernel') != 'tracefs':
                self.skipTest('the kernel was recorded by LTTng, not on tracefs')
        with open(log) as f:
            opened = re.findall(r'open(?:at)?\((?:[^,"]*, )?"([^"]*)"', f.read())
        self.assertNotIn('/proc/kallsyms', opened)

        def events(file):
            pattern = re.compile(r'/events/([^/]+/[^/]+)/%s$' % file)
            return sorted(m.group(1) for m in map(pattern.search, opened) if m)
        formats, enabled = events('format'), events('enable')
        self.assertIn('sched/sched_switch', enabled)
        self.assertEqual(formats, enabled)

    @staticmethod
    def plugin():
        return os.environ.get('WPERF_PLUGIN_DIR',
                              os.path.join(recording.WperfRecorded.build_dir(), 'plugin'))

    def report(self, out, pid):
        path = os.path.join(out, 'report.json')
        q = subprocess.run([self.wperf, 'report', out, '--plugin-path', self.plugin(),
                            '--format', 'json', '--output', path, '--pids', str(pid)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertEqual(q.returncode, 0, q.stdout[-3000:])
        with open(path) as f:
            return json.load(f)


if __name__ == '__main__':
    recording.main(why_not, COMMAND)
