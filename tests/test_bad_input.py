#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Bad input: the plugin must refuse clearly and leave nothing behind.

  - a kernel trace without sched_switch (a hand-built scenario with only
    interrupt events, written to CTF with sink.ctf.fs): non-zero exit, one
    error line naming the missing event(s) and the command that records
    them, and no report file;
  - an unknown parameter: an error naming it;
  - a bad value of format / threshold / pids: an error naming the parameter;
  - a report path in a directory that does not exist: an error, no file;
  - a report path naming a descriptor (/dev/fd/N): written through it;
  - as root, a report path that is another user's link: refused.

Both through the babeltrace2 CLI (exit status, stderr) and through a bt2
graph (the sink's own error cause, checked to be one line).
"""

import os
import json
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bt2  # noqa: E402

import wperf_scenario as ws  # noqa: E402
from wperf_scenario import MS, S, US, Scenario  # noqa: E402

BABELTRACE2 = os.environ.get('BABELTRACE2', 'babeltrace2')
RECORD_HINTS = ('lttng enable-event', 'source.wperf.tracefs', 'perf record')


def irq_only():
    """Two CPUs, interrupts and softirqs, no scheduler event at all."""
    s = Scenario(ncpus=2, end=1 * S)
    for i in range(5):
        t = (i + 1) * 100 * MS
        s.irq_entry(t, i % 2, 24, 'virtio0')
        s.irq_exit(t + 5 * US, i % 2, 24)
        s.softirq_entry(t + 6 * US, i % 2, 1)
        s.softirq_exit(t + 9 * US, i % 2, 1)
    return s


def sink_causes(scn, **params):
    """Run scenario -> sink.wperf.knots in a bt2 graph; return the error
    causes (list of (component class name, message)), or None on success."""
    plugin = ws.wperf_plugin()
    g = bt2.Graph()
    try:
        src = g.add_component(ws.ScenarioSource, 'scenario', obj=scn)
        sink = g.add_component(plugin.sink_component_classes['knots'], 'knots',
                               params=params)
        g.connect_ports(src.output_ports['out'], sink.input_ports['in'])
        g.run()
    except bt2._Error as e:
        causes = []
        for c in e:
            cls = getattr(c, 'component_class_name', None)
            causes.append((cls, c.message))
        return causes
    return None


class BadInput(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix='wperf-bad-')
        cls.noswitch = ws.write_ctf(irq_only(), os.path.join(cls.tmp, 'noswitch'))
        cls.good = ws.write_ctf(ws.one_wait(), os.path.join(cls.tmp, 'good'))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def outdir(self, name):
        d = os.path.join(self.tmp, 'out-' + name)
        os.makedirs(d)
        return d

    def cli(self, trace, comp='sink.wperf.knots', params=None):
        cmd = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), trace, '-c', comp]
        if params is not None:
            cmd.append('--params=' + params)
        if comp.startswith('filter.'):
            cmd += ['-c', 'sink.utils.dummy']
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        return cmd, p

    def assertFails(self, p, cmd, *needles):
        self.assertNotEqual(p.returncode, 0, '%s succeeded:\n%s' % (' '.join(cmd), p.stderr))
        for n in needles:
            self.assertIn(n, p.stderr, '%s: stderr does not mention %r:\n%s'
                          % (' '.join(cmd), n, p.stderr[-3000:]))

    # -- sanity: the good trace passes, so the failures below mean something --
    def test_good_trace_works(self):
        d = self.outdir('good')
        cmd, p = self.cli(self.good, params='format="json",path="%s/r.json"' % d)
        self.assertEqual(p.returncode, 0, p.stderr[-3000:])
        self.assertEqual(os.listdir(d), ['r.json'])

    # -- no sched_switch -------------------------------------------------------
    def test_no_sched_switch_cli(self):
        d = self.outdir('noswitch')
        cmd, p = self.cli(self.noswitch, params='format="json",path="%s/r.json"' % d)
        self.assertFails(p, cmd, 'sched_switch')
        self.assertTrue(any(h in p.stderr for h in RECORD_HINTS),
                        'the error does not say how to record the missing events (%s):\n%s'
                        % (' / '.join(RECORD_HINTS), p.stderr[-3000:]))
        self.assertEqual(os.listdir(d), [], 'a failed analysis left files behind')

    def test_no_sched_switch_text_to_stdout(self):
        cmd, p = self.cli(self.noswitch, params='format="text"')
        self.assertFails(p, cmd, 'sched_switch')

    def test_no_sched_switch_one_line(self):
        d = self.outdir('noswitch-graph')
        causes = sink_causes(irq_only(), format='json', path=os.path.join(d, 'r.json'))
        self.assertIsNotNone(causes, 'the sink accepted a trace without sched_switch')
        mine = [m for cls, m in causes if cls == 'knots']
        self.assertTrue(mine, 'no error cause from sink.wperf.knots: %r' % causes)
        hits = [m for m in mine if 'sched_switch' in m]
        self.assertTrue(hits, 'no cause of sink.wperf.knots names sched_switch: %r' % mine)
        msg = hits[0]
        self.assertNotIn('\n', msg.strip(), 'the error is not one line: %r' % msg)
        self.assertTrue(any(h in msg for h in RECORD_HINTS), msg)
        self.assertEqual(os.listdir(d), [])

    # -- parameters ---------------------------------------------------------------
    def test_unknown_parameter(self):
        d = self.outdir('unknown')
        cmd, p = self.cli(self.good, params='format="json",path="%s/r.json",frobnicate=3' % d)
        self.assertFails(p, cmd, 'frobnicate')
        self.assertEqual(os.listdir(d), [])

    def test_help_names_every_known_parameter(self):
        """`babeltrace2 help COMPONENT` describes every parameter the
        component accepts: the names its unknown-parameter error lists
        as known (sink.wperf.knots' help lacked host-clocks and
        sync-hosts)."""
        for comp in ('sink.wperf.knots', 'filter.wperf.waits', 'sink.wperf.netsync',
                     'source.wperf.tracefs'):
            with self.subTest(comp=comp):
                if comp.startswith('source.'):
                    cmd = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), '-c', comp,
                           '--params=frobnicate=3', '-c', 'sink.utils.dummy']
                    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, timeout=120)
                else:
                    cmd, p = self.cli(self.good, comp=comp, params='frobnicate=3')
                self.assertFails(p, cmd, '(known: ')
                known = ' '.join(p.stderr.split()).split('(known: ', 1)[1].split(')', 1)[0]
                names = [n.strip() for n in known.split(',')]
                self.assertGreater(len(names), 1, known)
                h = subprocess.run([BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), 'help',
                                    comp], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=60)
                self.assertEqual(h.returncode, 0, h.stderr)
                missing = [n for n in names if n + '=' not in h.stdout]
                self.assertEqual(missing, [], '%s help does not describe %s' % (comp, missing))

    def test_unknown_parameter_filter(self):
        cmd, p = self.cli(self.good, comp='filter.wperf.waits', params='frobnicate=3')
        self.assertFails(p, cmd, 'frobnicate')

    def test_bad_segment_selection(self):
        """filter.wperf.waits' pids and states: each malformed value is
        refused in one line that names the parameter."""
        for params, name in (('pids=""', 'pids'), ('pids="12x"', 'pids'),
                             ('pids=-3', 'pids'), ('pids=[1.5]', 'pids'),
                             ('comms=""', 'comms'), ('comms=[]', 'comms'),
                             ('states="sleeping"', 'states'), ('states=""', 'states'),
                             ('states=[3]', 'states')):
            cmd, p = self.cli(self.good, comp='filter.wperf.waits', params=params)
            self.assertFails(p, cmd, 'parameter `%s`' % name)

    def test_segment_selection_matching_nothing(self):
        """Choosing segments that the trace does not have is an empty
        result, said in one line on stderr, not an error after the whole
        trace was forwarded."""
        for params, words in (('pids=999', 'parameter `pids`: none of the trace\'s'),
                              ('pids=102,states="waiting"',
                               'parameters `pids` and `states`: none of the trace\'s'),
                              ('comms="nobody"', 'parameter `comms`: none of the trace\'s')):
            cmd, p = self.cli(self.good, comp='filter.wperf.waits', params=params)
            self.assertEqual(p.returncode, 0, p.stderr)
            notes = [ln for ln in p.stderr.splitlines() if ln.strip()]
            self.assertEqual(len(notes), 1, p.stderr)
            self.assertIn('filter.wperf.waits: note: ' + words, notes[0])
            self.assertIn('the output has no `wperf` trace', notes[0])
        # segments-only: nothing at all comes out.
        cmd = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), self.good, '-c',
               'filter.wperf.waits', '--params=pids=999,segments-only=yes']
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        self.assertEqual((p.returncode, p.stdout), (0, ''), p.stderr)

    def test_bad_window(self):
        for comp in ('sink.wperf.knots', 'filter.wperf.waits'):
            for params, words in (('begin="yesterday"', 'parameter `begin`: "yesterday" '
                                   'is not a time'),
                                  ('begin=5,end=4', 'parameter `end`: "4" is before `begin`'),
                                  ('begin="2018-13-01"', 'parameter `begin`'),
                                  ('gmt="utc"', 'parameter `gmt`'),
                                  ('segments-only=2', 'parameter `segments-only`')):
                if comp.startswith('sink') and 'segments-only' in params:
                    continue
                cmd, p = self.cli(self.good, comp=comp, params=params)
                self.assertFails(p, cmd, words)

    def test_window_outside_the_trace_says_where_the_trace_is(self):
        """A window that misses the trace gives the trace's range in
        seconds from the clock's origin and, for a clock counting from the
        Unix epoch (LTTng's), in UTC as babeltrace2 --clock-gmt
        --clock-date prints it and begin= takes it; a clock counting from
        boot (the scenario's) gets no date."""
        trace = os.path.join(ws.shared_dir(), 'traces', 'lttng-kernel',
                             'ref-basic-kernel-analysis')
        if not os.path.isdir(trace):
            self.skipTest('no %s (set WPERF_SHARED_DIR)' % trace)
        for tr, params, words in (
                (trace, 'begin=1000000000,end=1000000001',
                 "which runs from 1521484759.831423009 to 1521484766.800550668 (seconds "
                 "from the clock's origin; 2018-03-19 18:39:19.831423009 to 2018-03-19 "
                 "18:39:26.800550668 UTC)"),
                (self.good, 'begin=100,end=101',
                 "which runs from 0.000000000 to 3.000000000 (seconds from the clock's "
                 "origin)")):
            cmd, p = self.cli(tr, params=params)
            self.assertNotEqual(p.returncode, 0, p.stderr)
            # The CLI wraps the cause's lines.
            self.assertIn(words, ' '.join(p.stderr.split()), p.stderr[-2000:])

    def test_bad_format(self):
        d = self.outdir('format')
        cmd, p = self.cli(self.good, params='format="xml",path="%s/r.json"' % d)
        self.assertFails(p, cmd, 'format')
        self.assertEqual(os.listdir(d), [])

    def test_bad_every(self):
        # every=: a positive period, text or json, and not with begin/end.
        for params, needle in (('every="0s"', 'longer than 0'),
                               ('every="soon"', 'every'),
                               ('every="1s",format="dot"', 'text or json'),
                               ('every="1s",begin="0"', 'begin/end')):
            cmd, p = self.cli(self.good, params=params)
            self.assertFails(p, cmd, 'parameter `every`', needle)
            self.assertEqual(len([l for l in p.stderr.splitlines() if 'every' in l]), 1,
                             p.stderr)

    def test_bad_format_type(self):
        cmd, p = self.cli(self.good, params='format=42')
        self.assertFails(p, cmd, 'format')

    def test_bad_threshold(self):
        for bad in ('"abc"', '"-5ms"', '"12 parsecs"', '"%"'):
            d = self.outdir('threshold-%d' % abs(hash(bad)))
            cmd, p = self.cli(self.good, params='format="json",path="%s/r.json",threshold=%s'
                              % (d, bad))
            self.assertFails(p, cmd, 'threshold')
            self.assertEqual(os.listdir(d), [], bad)

    def test_bad_pids(self):
        cmd, p = self.cli(self.good, params='format="json",pids="abc"')
        self.assertFails(p, cmd, 'pids')

    def test_pids_list_items(self):
        """Every item of `pids` is one positive id, given once: "1,,2"
        used to be read as 1,2 (a pid lost in a typo), 0 and repeats
        passed. One line naming the item."""
        for params, said in (('pids="1,,2"', 'an empty item'),
                             ('pids="1,"', 'an empty item'),
                             ('pids=",1"', 'an empty item'),
                             ('pids="0"', '0 is not a process or thread id'),
                             ('pids=[0]', '0 is not a process or thread id'),
                             ('pids="x"', '"x" is not a process or thread id'),
                             ('pids="1,1"', '1 is given twice'),
                             ('pids=[2, "1,2"]', '2 is given twice')):
            cmd, p = self.cli(self.good, params='format="json",' + params)
            self.assertFails(p, cmd, 'parameter `pids`: ' + said)
            causes = [l for l in p.stderr.splitlines() if 'parameter `pids`' in l]
            self.assertTrue(causes, p.stderr)
        # The filter reads the same list the same way.
        cmd, p = self.cli(self.good, comp='filter.wperf.waits', params='pids="1,,2"')
        self.assertFails(p, cmd, 'parameter `pids`: an empty item')

    def test_empty_focus(self):
        """sink.wperf.knots' focus given but empty is refused, as the
        filter's choice is: focusing on nothing is not every thread."""
        for params, name in (('pids=[]', 'pids'), ('comms=[]', 'comms'),
                             ('comms=""', 'comms')):
            cmd, p = self.cli(self.good, params='format="json",' + params)
            self.assertFails(p, cmd, 'parameter `%s`: empty list' % name)

    def test_param_errors_one_line(self):
        for params, name in (({'frobnicate': 1}, 'frobnicate'),
                             ({'format': 'xml'}, 'format'),
                             ({'threshold': 'abc'}, 'threshold')):
            causes = sink_causes(ws.one_wait(), **params)
            self.assertIsNotNone(causes, '%s accepted' % params)
            mine = [m for cls, m in causes if cls == 'knots' and name in m]
            self.assertTrue(mine, '%s: no sink.wperf.knots cause names %r: %r'
                            % (params, name, causes))
            self.assertNotIn('\n', mine[0].strip(), mine[0])

    def test_bad_min_weight(self):
        for bad in ('"abc"', '"-1%"', '"150%"'):
            cmd, p = self.cli(self.good, params='format="json",min-weight=%s' % bad)
            self.assertFails(p, cmd, 'min-weight')

    # -- the recorder -----------------------------------------------------------------
    def tracefs(self, params, user=None):
        plugins = ws.plugin_dir()
        if user is not None:
            # The build tree may be in a private (0700) directory, closed to
            # that user: give it a copy of the plugin it can read.
            plugins = tempfile.mkdtemp(prefix='wperf-plugin-')
            self.addCleanup(shutil.rmtree, plugins, True)
            os.chmod(plugins, 0o755)
            so = os.path.join(plugins, 'babeltrace-plugin-wperf.so')
            shutil.copy(os.path.join(ws.plugin_dir(), 'babeltrace-plugin-wperf.so'), so)
            os.chmod(so, 0o755)
        cmd = [BABELTRACE2, '--plugin-path=' + plugins, '-c', 'source.wperf.tracefs',
               '--params=' + params, '-c', 'sink.utils.dummy']
        if user is not None:
            cmd = ['setpriv', '--reuid=%d' % user, '--regid=%d' % user, '--clear-groups'] + cmd
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=120)
        return cmd, p

    def test_tracefs_bad_parameters(self):
        for params, name in (('frobnicate=1', 'frobnicate'),
                             ('duration="soon"', 'duration'),
                             ('duration=-3', 'duration'),
                             ('buffer-size-kb=0', 'buffer-size-kb'),
                             ('buffer-size-kb="big"', 'buffer-size-kb')):
            cmd, p = self.tracefs(params)
            self.assertFails(p, cmd, name)

    def test_tracefs_without_permission(self):
        if os.geteuid() != 0 or not shutil.which('setpriv'):
            self.skipTest('needs root (to drop to an unprivileged user) and setpriv')
        cmd, p = self.tracefs('duration=1', user=65534)
        self.assertFails(p, cmd, 'permission', 'tracefs', 'root')

    # -- output path ----------------------------------------------------------------
    def test_path_to_a_fifo_is_written_in_place(self):
        # Atomic replacement must not rename a file over a device or FIFO
        # (it once replaced /dev/null with a regular file).
        d = self.outdir('fifo')
        fifo = os.path.join(d, 'report.fifo')
        os.mkfifo(fifo)
        reader = subprocess.Popen(['cat', fifo], stdout=subprocess.PIPE, text=True)
        cmd, p = self.cli(self.good, params='format="json",path="%s"' % fifo)
        out, _ = reader.communicate(timeout=60)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        self.assertTrue(stat.S_ISFIFO(os.stat(fifo).st_mode), 'the FIFO was replaced')
        self.assertEqual(json.loads(out)['format'], 'wperf-report')
        self.assertEqual(sorted(os.listdir(d)), ['report.fifo'], 'temporary files left')

    def test_path_naming_a_descriptor_is_written_through_it(self):
        """/dev/fd/N, /proc/self/fd/N: the report goes to that descriptor,
        where it is (a file opened for appending keeps what it held), as
        a shell's redirection would. It was taken for a regular file by
        that name and written through a temporary file beside it, in
        /proc (refused: a kernel file system), or, for /dev/stdout as
        root, renamed over the /dev/stdout link itself. `sudo wperf top
        --output` hands the sink the descriptor it opened as the user."""
        d = self.outdir('descriptor')
        for prefix in ('/dev/fd/', '/proc/self/fd/'):
            target = os.path.join(d, 'appended.json')
            with open(target, 'w') as f:
                f.write('before\n')
            fd = os.open(target, os.O_WRONLY | os.O_APPEND)
            path = prefix + str(fd)
            try:
                cmd = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), self.good, '-c',
                       'sink.wperf.knots', '--params=format="json",path="%s"' % path]
                p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, timeout=120, pass_fds=(fd,))
            finally:
                os.close(fd)
            with self.subTest(path=path):
                self.assertEqual(p.returncode, 0, p.stderr[-2000:])
                with open(target) as f:
                    head, body = f.read().split('\n', 1)
                self.assertEqual(head, 'before')
                self.assertEqual(json.loads(body)['format'], 'wperf-report')
                self.assertEqual(os.listdir(d), ['appended.json'], 'temporary files left')
        # A descriptor open for reading only, or not open: one line, no file.
        cmd, p = self.cli(self.good, params='format="json",path="/dev/fd/99"')
        self.assertFails(p, cmd, 'parameter `path`')
        causes = [m for c, m in sink_causes(ws.one_wait(), format='json', path='/dev/fd/99')
                  if c == 'knots']
        self.assertEqual(len(causes), 1, causes)
        self.assertIn('parameter `path`: cannot write `/dev/fd/99`: Bad file descriptor',
                      causes[0])
        self.assertEqual(causes[0].count('\n'), 0, causes[0])

    def test_root_follows_no_other_users_link(self):
        """As root, a report path that is another user's symbolic link (put
        where root writes the report: `sudo wperf report T --output
        ~/r.json`) is refused in one line, the link and what it leads to
        left as they were: root replaced the link with its own file, and a
        link to a device was followed and written in place (a disk, as
        root)."""
        if os.geteuid() != 0:
            self.skipTest('needs root (another user\'s link is only refused to root)')
        d = self.outdir('foreign-link')
        target = os.path.join(d, 'target')
        with open(target, 'w') as f:
            f.write('sentinel\n')
        link = os.path.join(d, 'report.json')
        os.symlink(target, link)
        os.lchown(link, 65534, 65534)
        cmd, p = self.cli(self.good, params='format="json",path="%s"' % link)
        self.assertFails(p, cmd, 'parameter `path`')
        causes = [m for c, m in sink_causes(ws.one_wait(), format='json', path=link)
                  if c == 'knots']
        self.assertEqual(len(causes), 1, causes)
        self.assertIn('cannot write `%s`: it is a symbolic link of uid 65534, and root '
                      'follows no other user\'s link' % link, causes[0])
        self.assertTrue(os.path.islink(link), 'the link was replaced')
        with open(target) as f:
            self.assertEqual(f.read(), 'sentinel\n')
        self.assertEqual(sorted(os.listdir(d)), ['report.json', 'target'])

    def test_longest_legal_report_name(self):
        # A 250-byte name is legal (NAME_MAX is 255): the temporary file
        # it is written through must not be longer than the name itself.
        d = self.outdir('longname')
        target = os.path.join(d, 'r' * 245 + '.json')
        cmd, p = self.cli(self.good, params='format="json",path="%s"' % target)
        self.assertEqual(p.returncode, 0, p.stderr[-2000:])
        with open(target) as f:
            self.assertEqual(json.load(f)['format'], 'wperf-report')
        self.assertEqual(os.listdir(d), [os.path.basename(target)], 'temporary files left')

    def test_path_in_a_kernel_file_system(self):
        """/proc and /sys take no new file, whatever the permissions say:
        the report's temporary file failed with ENOENT in /proc (a
        "No such file or directory" of /proc/version, which exists) and
        EACCES in /sys even for root. Refused before the trace is read,
        with the reason, and /proc/version untouched."""
        with open('/proc/version') as f:
            before = f.read()
        for path, fs in (('/proc/version', 'proc'), ('/sys/kernel/wperf-report.json', 'sysfs')):
            cmd, p = self.cli(self.good, params='format="json",path="%s"' % path)
            self.assertFails(p, cmd, 'parameter `path`')
            # The sink's own cause, unwrapped: one line.
            causes = [m for c, m in sink_causes(ws.one_wait(), format='json', path=path)
                      if c == 'knots']
            self.assertEqual(len(causes), 1, causes)
            self.assertEqual(causes[0].count('\n'), 0, causes[0])
            self.assertIn('parameter `path`: cannot write `%s`: `%s` is on %s, a kernel file '
                          'system that takes no report: give a file on a disk or tmpfs'
                          % (path, os.path.dirname(path), fs), causes[0])
        with open('/proc/version') as f:
            self.assertEqual(f.read(), before)

    def test_path_in_missing_directory(self):
        d = self.outdir('missingdir')
        target = os.path.join(d, 'no', 'such', 'dir', 'r.json')
        cmd, p = self.cli(self.good, params='format="json",path="%s"' % target)
        self.assertFails(p, cmd)
        self.assertFalse(os.path.exists(target))
        self.assertEqual(os.listdir(d), [], 'files left behind: %s' % os.listdir(d))
        self.assertTrue('path' in p.stderr or os.path.dirname(target) in p.stderr
                        or 'No such file' in p.stderr,
                        'the error does not say what is wrong with the path:\n'
                        + p.stderr[-2000:])


if __name__ == '__main__':
    unittest.main(verbosity=2)
