#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`sudo wperf` never acts as root through a path another user controls.

`sudo wperf record -o ~/trace -- ./prog` is the documented use: DIR's
parent is the user's home, and the recorded command runs as that user.
Each test here creates a real unprivileged user (useradd, a home in a
temporary directory, removed at the end), and has that user's own program
attack root while it records, shares the trace or stops a flight
recorder:

- the no-race swap: the command renames DIR away and puts a link in its
  place to a directory whose .wperf and kernel are links to root-only
  directories (root deleted and overwrote files there);
- a racing swapper (tests/safety_swapper.py): DIR replaced by the user's
  own directory in which subdirectories and links to a root-only
  directory are exchanged in a loop (renameat2(RENAME_EXCHANGE)) while
  root shares the trace (root made a root-only 0600 file world-writable);
- the same against `wperf stop` of a flight recorder made with --user;
- `sudo wperf top --output ~/FILE` where FILE, or a directory on the
  way, is the user's link to a root-only file or directory (root
  truncated the file and wrote its reports into it);
- `sudo wperf report T --output ~/sub/FILE`, sub the user's link to a
  root-only directory or to one of root's the user cannot write (root
  made its report there); the report it writes to ~/FILE is the
  user's, who may remove it (it was root's);
- the child that opens a file as the user, waiting on a file system
  that never answers (a FUSE mount of the test's), killed: one line;
- a flight recorder with --trigger-on: after `wperf record --snapshot`
  returned, the user renames DIR away and puts a link in its place to a
  directory whose .wperf is a link to a root-only directory, then the
  trigger fires (tools/tests/ust-ticker): LTTng's session daemon wrote
  the triggered snapshot through DIR's path into the root-only directory.

Each asserts that the root-only directories and their sentinel files are
untouched (names, content, mode, owner, group), that nothing of root's
appeared outside the recording's own directory, and that the outcome is
one clear line: a trace where the user can read it (named truly), or a
refusal.

Needs root, tracefs, lttng-tools and useradd. Without them: FAIL under
CI=true, else SKIP (exit 77 for meson) saying why.
"""

import ctypes
import grp
import json
import os
import pwd
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

# The ASan run preloads the sanitizer runtimes into every test process:
# not into the system tools run here (pkill hung in it).
SANITIZER_VARS = ('LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS')
PLAIN_ENV = {k: v for k, v in os.environ.items() if k not in SANITIZER_VARS}

SWAPPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'safety_swapper.py')
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


def ticker_path():
    return os.environ.get('WPERF_UST_TICKER') or os.path.join(
        recording.build_dir(), 'tools', 'tests', 'ust-ticker')


def why_not():
    for prog in ('useradd', 'userdel'):
        if not shutil.which(prog):
            return '%s is missing (apt-get install passwd)' % prog
    return recording.why_not_wperf_record(recording.wperf_path())


def fingerprint(top):
    """Everything about the tree top that an attack could change: each
    entry's type, mode, owner, group and (files) content."""
    out = {}
    for root, dirs, files in os.walk(top):
        for name in [root] + [os.path.join(root, n) for n in dirs + files]:
            st = os.lstat(name)
            data = None
            if os.path.isfile(name) and not os.path.islink(name):
                with open(name, 'rb') as f:
                    data = f.read()
            out[os.path.relpath(name, top)] = (st.st_mode, st.st_uid, st.st_gid, data)
    return out


def kill_processes_of(uid):
    """SIGKILL every process whose real uid is uid (a swapper left
    racing)."""
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/status' % pid, errors='surrogateescape') as f:
                uids = [ln.split()[1] for ln in f if ln.startswith('Uid:')]
            if uids and int(uids[0]) == uid:
                os.kill(int(pid), 9)
        except (OSError, ValueError):
            pass



def procs_of(uid):
    """The pids whose real uid is uid."""
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/status' % pid, errors='surrogateescape') as f:
                uids = [ln.split()[1] for ln in f if ln.startswith('Uid:')]
        except OSError:
            continue
        if uids and int(uids[0]) == uid:
            found.append(int(pid))
    return found


def parent_of(pid):
    try:
        with open('/proc/%d/stat' % pid, errors='surrogateescape') as f:
            return int(f.read().rsplit(')', 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return None


class Safety(unittest.TestCase):
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.wperf = recording.wperf_path()
        cls.tmp = tempfile.mkdtemp(prefix='wperf-safety-', dir='/var/tmp')
        os.chmod(cls.tmp, 0o755)            # the user reaches its home
        # Unique per run: parallel runs must not share a user.
        cls.user = 'wps%d%s' % (os.getpid() % 100000, os.urandom(3).hex())
        # The attacker runs as the user, who may not reach the checkout (a
        # clone in a 0700 directory): a root-owned copy beside its home.
        cls.swapper = os.path.join(cls.tmp, 'safety_swapper.py')
        shutil.copyfile(SWAPPER, cls.swapper)
        os.chmod(cls.swapper, 0o644)
        cls.home = os.path.join(cls.tmp, 'home')
        subprocess.run(['useradd', '-M', '-U', '-d', cls.home, '-s', '/bin/sh', cls.user],
                       check=True, env=PLAIN_ENV)
        pw = pwd.getpwnam(cls.user)
        cls.uid, cls.gid = pw.pw_uid, pw.pw_gid
        os.mkdir(cls.home, 0o755)
        os.chown(cls.home, cls.uid, cls.gid)

    @classmethod
    def tearDownClass(cls):
        kill_processes_of(cls.uid)
        subprocess.run(['userdel', cls.user], stderr=subprocess.DEVNULL, env=PLAIN_ENV)
        try:
            grp.getgrnam(cls.user)
            subprocess.run(['groupdel', cls.user], stderr=subprocess.DEVNULL, env=PLAIN_ENV)
        except KeyError:
            pass
        recording.remove_recordings(cls.tmp)

    def setUp(self):
        self.case = tempfile.mkdtemp(prefix=self._testMethodName + '-', dir=self.home)
        os.chmod(self.case, 0o755)
        os.chown(self.case, self.uid, self.gid)
        # The swapper's stop file and its answer: outside the case, where
        # root writes nothing else.
        self.ctl = os.path.join(self.tmp, 'ctl-' + self._testMethodName)
        os.mkdir(self.ctl, 0o755)
        os.chown(self.ctl, self.uid, self.gid)
        self.stop = os.path.join(self.ctl, 'stop')
        self.victims = os.path.join(self.tmp, 'victims-' + self._testMethodName)
        os.mkdir(self.victims, 0o700)
        self.v = {}
        for name, files in (('v1', ('recording', 'sessiond.log', 'wperf.json.tmp')),
                            ('v2', ('metadata', 'channel0_0')),
                            ('v3', ('secret', 'metadata'))):
            d = os.path.join(self.victims, name)
            os.mkdir(d, 0o700)
            os.mkdir(os.path.join(d, 'inner'), 0o700)
            for f in files:
                p = os.path.join(d, f)
                with open(p, 'w') as fh:
                    fh.write('sentinel %s/%s\n' % (name, f))
                os.chmod(p, 0o600)
            self.v[name] = d
        self.before = fingerprint(self.victims)

    def tearDown(self):
        open(self.stop, 'w').close()     # no swapper left racing

    def run_wperf(self, *args, env_user=None, timeout=300):
        env = dict(os.environ)
        env.pop('SUDO_USER', None)
        if env_user:
            env['SUDO_USER'] = env_user
        return subprocess.run([self.wperf] + list(args), stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, env=env,
                              timeout=timeout)

    def as_user(self, *argv):
        return subprocess.run(list(argv), user=self.uid, group=self.gid, extra_groups=[],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=120, env=PLAIN_ENV)

    def stop_swapper(self, stopfile):
        open(stopfile, 'w').close()
        if not os.path.exists(stopfile + '.armed'):
            return      # never started (the command was not run)
        for _ in range(600):
            if os.path.exists(stopfile + '.done'):
                return
            time.sleep(0.05)
        self.fail('the swapper did not stop')

    def assert_victims_untouched(self, log):
        self.assertEqual(fingerprint(self.victims), self.before,
                         'root changed a root-only directory for the user:\n' + log[-3000:])

    def assert_root_wrote_nothing_outside(self, dirs, log):
        """Nothing below the case directory is root's but the recording's
        own directory (dirs: where it may be, as made or where the
        attacker moved it; a directory, not a link) and what is in it."""
        own = [d for d in dirs if os.path.isdir(d) and not os.path.islink(d)
               and os.lstat(d).st_uid == 0]
        for root, subdirs, files in os.walk(self.case):
            for name in [os.path.join(root, n) for n in subdirs + files]:
                inside = any(name == d or name.startswith(d + '/') for d in own)
                if os.lstat(name).st_uid == 0 and not inside:
                    self.fail('root made %s outside the recording (%s):\n%s'
                              % (name, own, log[-3000:]))

    def assert_clear_outcome(self, p):
        """The last line is a trace the user can read, at the path it
        names, or a refusal; the trace's path (None after a refusal)."""
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith('wperf:')]
        self.assertTrue(lines, p.stdout)
        last = lines[-1]
        m = re.match(r'wperf: trace in (.+): wperf report ', last)
        if not m:
            self.assertNotEqual(p.returncode, 0, p.stdout[-3000:])
            self.assertRegex(last, r'^wperf: error: ', p.stdout[-3000:])
            return None
        trace = m.group(1)
        st = os.lstat(trace)
        self.assertFalse(os.path.islink(trace), 'the trace named is a link:\n' + p.stdout)
        self.assertEqual(os.path.realpath(trace), trace, p.stdout)
        self.assertEqual(st.st_uid, 0, p.stdout)
        meta = os.path.join(trace, 'kernel', 'metadata')
        self.assertTrue(os.path.isfile(meta), 'no trace in %s:\n%s' % (trace, p.stdout))
        # The user reads it, as the trace was shared with them.
        r = self.as_user('head', '-c', '4', meta)
        self.assertEqual(r.returncode, 0, r.stdout)
        self.assertEqual(os.lstat(meta).st_gid, self.gid)
        return trace

    def test_no_race_swap_of_dir_and_its_parts(self):
        t = os.path.join(self.case, 't')
        evil = os.path.join(self.case, 'evil')
        script = ('mv {t} {t}.real && mkdir {evil} && ln -s {v1} {evil}/.wperf && '
                  'ln -s {v2} {evil}/kernel && ln -s {evil} {t}').format(
                      t=t, evil=evil, v1=self.v['v1'], v2=self.v['v2'])
        p = self.run_wperf('record', '-o', t, '--', '/bin/sh', '-c', script,
                           env_user=self.user)
        self.assert_victims_untouched(p.stdout)
        trace = self.assert_clear_outcome(p)
        self.assert_root_wrote_nothing_outside((t, t + '.real'), p.stdout)
        self.assertIn(trace, (None, t + '.real'), 'said the trace is behind the user\'s link')

    def test_racing_swapper_while_root_shares(self):
        t = os.path.join(self.case, 't')
        stop = self.stop
        # The command swaps DIR for the racing directory and ends, its
        # racer running on while root closes and shares the trace.
        p = self.run_wperf('record', '-o', t, '--', '/usr/bin/python3', self.swapper,
                           'now', t, self.v['v3'], stop, env_user=self.user)
        self.stop_swapper(stop)
        self.assert_victims_untouched(p.stdout)
        trace = self.assert_clear_outcome(p)
        self.assert_root_wrote_nothing_outside((t, t + '.real'), p.stdout)
        self.assertIn(trace, (None, t + '.real'), 'said the trace is in the user\'s directory')

    def test_flight_recorder_stop_against_a_racing_swapper(self):
        f = os.path.join(self.case, 'f')
        stop = self.stop
        # With a command: the flight recorder then shares with its user.
        p = self.run_wperf('record', '--snapshot', '--buffer-size-kb', '256', '--user',
                           self.user, '-o', f, '--', '/bin/true')
        real = f + '.real'
        try:
            self.assertEqual(p.returncode, 0, p.stdout)
            s = self.run_wperf('snapshot', f)
            self.assertEqual(s.returncode, 0, s.stdout)
            a = self.as_user('/usr/bin/python3', self.swapper, 'after-stop', f, self.v['v3'], stop)
            self.assertEqual(a.returncode, 0, a.stdout)
            q = self.run_wperf('stop', f)
            self.stop_swapper(stop)
        finally:
            for d in (f, real):     # whichever still runs
                if os.path.exists(os.path.join(d, 'wperf.json')):
                    self.run_wperf('stop', d)
        self.assert_victims_untouched(q.stdout)
        self.assertEqual(q.returncode, 0, q.stdout)
        self.assertRegex(q.stdout, r'wperf: flight recorder of .* stopped')
        self.assert_root_wrote_nothing_outside((real,), q.stdout)
        # The flight recorder's directory (now f.real) is the user's to read.
        snap = os.path.join(real, 'snapshot-1', 'kernel', 'metadata')
        self.assertEqual(os.lstat(snap).st_gid, self.gid)
        self.assertEqual(os.lstat(real).st_gid, self.gid, q.stdout)

    def test_missing_parents_are_made_as_the_sudo_user(self):
        """-o ~/a/b/trace where a and b do not exist: they are the user's
        (as their mkdir -p would make them), the trace root's inside."""
        a = os.path.join(self.case, 'a')
        t = os.path.join(a, 'b', 'trace')
        p = self.run_wperf('record', '-o', t, '--', 'true', env_user=self.user)
        trace = self.assert_clear_outcome(p)
        self.assertEqual(trace, t, p.stdout)
        for d in (a, os.path.dirname(t)):
            st = os.lstat(d)
            self.assertTrue(os.path.isdir(d) and not os.path.islink(d), d)
            self.assertEqual((st.st_uid, st.st_gid), (self.uid, self.gid),
                             '%s is not the user\'s:\n%s' % (d, p.stdout))
            self.assertEqual(st.st_mode & 0o022, 0, '%s: mode %o' % (d, st.st_mode))
        # The user removes what their mkdir -p would have made, but not the
        # trace of root inside it.
        r = self.as_user('rmdir', os.path.dirname(t))
        self.assertNotEqual(r.returncode, 0)
        self.assertIn('not empty', r.stdout)

    def test_missing_parents_not_made_through_a_planted_link(self):
        """~/a is the user's link to a root-only directory: root does not
        make ~/a/b (there) for the user; one line says why and how to go
        on."""
        a = os.path.join(self.case, 'a')
        r = self.as_user('ln', '-s', self.v['v1'], a)
        self.assertEqual(r.returncode, 0, r.stdout)
        t = os.path.join(a, 'b', 'trace')
        p = self.run_wperf('record', '-o', t, '--', 'true', env_user=self.user)
        self.assert_victims_untouched(p.stdout)
        self.assertIsNone(self.assert_clear_outcome(p), p.stdout)
        errors = [ln for ln in p.stdout.splitlines() if ln.startswith('wperf: error:')]
        self.assertEqual(len(errors), 1, p.stdout)
        self.assertRegex(errors[0], r'cannot create .*/b as %s: Permission denied.*'
                         r'--user root' % self.user)

    def test_missing_parents_against_a_racing_link(self):
        """While wperf makes ~/x/y/z, the user's program keeps replacing
        ~/x and ~/x/y by links to a root-only directory: root never makes
        anything there; a trace made is below the user's own directories,
        or one line refuses."""
        x = os.path.join(self.case, 'x')
        racer = ('import os, time, sys\n'
                 'x, v, stop = sys.argv[1:4]\n'
                 'end = time.monotonic() + 60\n'
                 'while not os.path.exists(stop) and time.monotonic() < end:\n'
                 '    for d in (x, x + "/y"):\n'
                 '        try:\n'
                 '            os.rename(d, d + ".%d" % time.monotonic_ns())\n'
                 '            os.symlink(v, d)\n'
                 '        except OSError:\n'
                 '            pass\n')
        script = os.path.join(self.ctl, 'racer.py')
        with open(script, 'w') as f:
            f.write(racer)
        os.chmod(script, 0o644)
        racing = subprocess.Popen(['/usr/bin/python3', script, x, self.v['v2'], self.stop],
                                  user=self.uid, group=self.gid, extra_groups=[],
                                  env=PLAIN_ENV)
        try:
            outcomes = []
            for i in range(3):
                t = os.path.join(x, 'y', 'z', 't%d' % i)
                p = self.run_wperf('record', '-o', t, '--', 'true', env_user=self.user)
                self.assert_victims_untouched(p.stdout)
                outcomes.append(self.assert_clear_outcome(p))
        finally:
            open(self.stop, 'w').close()
            racing.wait(timeout=120)
        self.assert_victims_untouched(p.stdout)
        for trace in filter(None, outcomes):
            parent = os.path.dirname(trace)
            while parent != self.case:
                self.assertEqual(os.lstat(parent).st_uid, self.uid, trace)
                parent = os.path.dirname(parent)

    def test_top_output_through_a_planted_link(self):
        """`sudo wperf top --output ~/FILE`, FILE the user's link to a
        root-only file, or a directory on the way the user's link to a
        root-only directory: root writes nothing there (the sink, as
        root, truncated the file and wrote its reports into it, or made
        the file there); one line says why. Without a link the reports
        are written, into a file of the user's, as `sudo wperf top >
        FILE` would make it."""
        link = os.path.join(self.case, 'top.txt')
        sub = os.path.join(self.case, 'sub')
        for argv in (['ln', '-s', os.path.join(self.v['v3'], 'secret'), link],
                     ['ln', '-s', self.v['v3'], sub]):
            r = self.as_user(*argv)
            self.assertEqual(r.returncode, 0, r.stdout)
        for out in (link, os.path.join(sub, 'top.txt')):
            with self.subTest(out=out):
                p = self.run_wperf('top', '--duration', '1', '--every', '1s', '--output', out,
                                   env_user=self.user)
                self.assert_victims_untouched(p.stdout)
                self.assertEqual(p.returncode, 1, p.stdout)
                errors = [ln for ln in p.stdout.splitlines() if ln.startswith('wperf: error:')]
                self.assertEqual(len(errors), 1, p.stdout)
                self.assertIn('--output %s: cannot write it as %s' % (out, self.user), errors[0])
                self.assertIn('Permission denied', errors[0])
        good = os.path.join(self.case, 'top-good.txt')
        p = self.run_wperf('top', '--duration', '1', '--every', '1s', '--output', good,
                           env_user=self.user)
        self.assertEqual(p.returncode, 0, p.stdout)
        st = os.lstat(good)
        self.assertEqual((st.st_uid, st.st_gid), (self.uid, self.gid), p.stdout)
        with open(good) as f:
            text = f.read()
        self.assertTrue(text.startswith('=== wperf: period 1,'), text[:200])
        self.assertIn('=== wperf: whole run, final report', text, p.stdout)
        self.assert_victims_untouched(p.stdout)

    def report_trace(self):
        """A trace of root's to report on (recorded once for the class)."""
        trace = os.path.join(self.tmp, 'report-trace')
        if not os.path.isdir(trace):
            p = self.run_wperf('record', '-o', trace, '--', 'true')
            self.assertEqual(p.returncode, 0, p.stdout)
        return trace

    def hanging_mount(self):
        """A directory of the case on which every look-up waits for ever:
        a FUSE mount whose server (this test) never answers, not even
        FUSE_INIT, open to every user (allow_other). Unmounted, and its
        waiters freed, at the end of the test."""
        mnt = os.path.join(self.case, 'hang')
        os.mkdir(mnt, 0o755)
        fd = os.open('/dev/fuse', os.O_RDWR | os.O_CLOEXEC)
        libc = ctypes.CDLL(None, use_errno=True)
        opts = 'fd=%d,rootmode=40000,user_id=0,group_id=0,allow_other' % fd
        if libc.mount(b'wperf-test', mnt.encode(), b'fuse', 0, opts.encode()) != 0:
            os.close(fd)
            self.fail('cannot mount FUSE on %s: %s' % (mnt, os.strerror(ctypes.get_errno())))
        # MNT_DETACH, then closing /dev/fuse ends the connection.
        self.addCleanup(os.close, fd)
        self.addCleanup(libc.umount2, mnt.encode(), 2)
        return mnt

    def test_killed_as_user_child_is_one_line(self):
        """The child that opens --output as the user (wperf top) or the
        report's directory (wperf report) waits on a file system that
        never answers, and is killed: wperf says so in one line and
        exits 1 at once, instead of waiting on (or, before, saying only
        "Input/output error")."""
        mnt = self.hanging_mount()
        trace = self.report_trace()
        for cmd in (['top', '--duration', '1', '--every', '1s', '--output', mnt + '/top.txt'],
                    ['report', trace, '--all', '--output', mnt + '/r.txt']):
            with self.subTest(cmd=cmd[0]):
                env = dict(os.environ, SUDO_USER=self.user)
                p = subprocess.Popen([self.wperf] + cmd, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True, env=env)
                self.addCleanup(lambda p=p: p.poll() is None and (p.kill(), p.communicate()))
                child = None
                for _ in range(300):
                    child = next((pid for pid in procs_of(self.uid)
                                  if parent_of(pid) == p.pid), None)
                    if child or p.poll() is not None:
                        break
                    time.sleep(0.1)
                self.assertIsNotNone(child, 'no child of wperf runs as the user')
                time.sleep(0.5)     # in its look-up on the mount by now
                os.kill(child, signal.SIGKILL)
                out, _ = p.communicate(timeout=20)
                errors = [ln for ln in out.splitlines() if ln.startswith('wperf: error:')]
                self.assertEqual(p.returncode, 1, out)
                self.assertEqual(len(errors), 1, out)
                self.assertIn('cannot write it as %s' % self.user, errors[0])
                self.assertIn('the process opening it as that user ended without an answer',
                              errors[0])

    def test_report_output_through_a_planted_directory_link(self):
        """`sudo wperf report T --output ~/sub/r.json`, sub the user's
        link to a root-only directory (or to root's directory the user
        may read but not write): root writes no report there (the sink,
        as root, followed the link, made its temporary file there and
        renamed it into place); one line says why. Without a link, and
        to /dev/null, the report is written."""
        trace = self.report_trace()
        readable = os.path.join(self.victims, 'readable')
        os.mkdir(readable, 0o755)
        os.chmod(self.victims, 0o711)       # the user reaches readable/, not v1..v3
        self.before = fingerprint(self.victims)
        try:
            for target, link in ((self.v['v3'], 'sub'), (readable, 'sub2')):
                r = self.as_user('ln', '-s', target, os.path.join(self.case, link))
                self.assertEqual(r.returncode, 0, r.stdout)
                out = os.path.join(self.case, link, 'r.json')
                with self.subTest(out=out):
                    p = self.run_wperf('report', trace, '--all', '--format', 'json',
                                       '--output', out, env_user=self.user)
                    self.assert_victims_untouched(p.stdout)
                    self.assertEqual(p.returncode, 1, p.stdout)
                    errors = [ln for ln in p.stdout.splitlines()
                              if ln.startswith('wperf: error:')]
                    self.assertEqual(len(errors), 1, p.stdout)
                    self.assertIn('--output %s: cannot write it as %s' % (out, self.user),
                                  errors[0])
                    self.assertIn('Permission denied', errors[0])
            for out in (os.path.join(self.case, 'r.json'), '/dev/null'):
                with self.subTest(out=out):
                    p = self.run_wperf('report', trace, '--all', '--format', 'json',
                                       '--output', out, env_user=self.user)
                    self.assertEqual(p.returncode, 0, p.stdout)
                    self.assertNotIn('/proc/self/fd', p.stdout)
            self.assert_victims_untouched(p.stdout)
        finally:
            os.chmod(self.victims, 0o700)
        with open(os.path.join(self.case, 'r.json')) as f:
            self.assertEqual(json.load(f)['format'], 'wperf-report')

    def test_report_output_is_the_users(self):
        """`sudo wperf report T --output ~/r.json`: the report is the
        user's, as `> ~/r.json` would make it (mode 0666 less the umask),
        so the user can remove or overwrite the report they asked for;
        it replaces a root-owned one an older wperf left there. A report
        that fails leaves nothing in the directory, and neither does one
        that succeeds but for its file (no hidden temporary file)."""
        trace = self.report_trace()
        out = os.path.join(self.case, 'r.json')
        with open(out, 'w') as f:
            f.write('an old report of root\n')
        os.chmod(out, 0o644)
        mask = os.umask(0)
        os.umask(mask)
        p = self.run_wperf('report', trace, '--all', '--format', 'json', '--output', out,
                           env_user=self.user)
        self.assertEqual(p.returncode, 0, p.stdout)
        st = os.lstat(out)
        self.assertEqual((st.st_uid, st.st_gid), (self.uid, self.gid), p.stdout)
        self.assertEqual(st.st_mode & 0o7777, 0o666 & ~mask)
        with open(out) as f:
            self.assertEqual(json.load(f)['format'], 'wperf-report')
        self.assertEqual(os.listdir(self.case), ['r.json'])
        r = self.as_user('rm', out)
        self.assertEqual(r.returncode, 0, r.stdout)
        # A report that fails (no thread matches the focus): one line,
        # nothing made.
        p = self.run_wperf('report', trace, '--pids', '999999999', '--output', out,
                           env_user=self.user)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertEqual([ln for ln in p.stdout.splitlines() if ln.startswith('wperf:')][-1:],
                         [ln for ln in p.stdout.splitlines() if ln.startswith('wperf: error:')],
                         p.stdout)
        self.assertEqual(os.listdir(self.case), [])

    def test_triggered_snapshot_after_dir_is_swapped(self):
        ticker = ticker_path()
        if not os.access(ticker, os.X_OK):
            if IN_CI:
                self.fail('%s was not built (lttng-ust missing)' % ticker)
            self.skipTest('%s was not built (lttng-ust missing)' % ticker)
        f = os.path.join(self.case, 'f')
        real, evil = f + '.real', os.path.join(self.case, 'evil')
        p = self.run_wperf('record', '--snapshot', '--buffer-size-kb', '256',
                           '--ust-events', 'lttng_ust_tracef:*',
                           '--trigger-on', 'lttng_ust_tracef:event',
                           '--trigger-filter', 'msg == "tick 5"', '-o', f)
        q = None
        try:
            self.assertEqual(p.returncode, 0, p.stdout)
            # wperf record has returned: only LTTng and the watcher are left.
            a = self.as_user('/bin/sh', '-c', 'mv {f} {r} && mkdir {e} && ln -s {v1} {e}/.wperf '
                             '&& ln -s {e} {f}'.format(f=f, r=real, e=evil, v1=self.v['v1']))
            self.assertEqual(a.returncode, 0, a.stdout)
            t = subprocess.run([ticker, '10'], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            self.assertEqual(t.returncode, 0, t.stdout)
            snap = os.path.join(real, 'snapshot-1', 'wperf.json')
            # The watcher saves it within seconds when idle, tens of
            # seconds on a loaded machine; an attack that worked shows in
            # the victim at once.
            for _ in range(600):
                if os.path.isfile(snap) or fingerprint(self.victims) != self.before:
                    break
                time.sleep(0.1)
            time.sleep(1)       # what LTTng still writes lands too
            q = self.run_wperf('stop', real)
        finally:
            for d in (real, f):     # whichever still runs
                if os.path.exists(os.path.join(d, 'wperf.json')):
                    self.run_wperf('stop', d)
        log = p.stdout + (q.stdout if q else '')
        self.assert_victims_untouched(log)
        self.assert_root_wrote_nothing_outside((real,), log)
        self.assertEqual(q.returncode, 0, log)
        self.assertIn('stopped (1 snapshot)', q.stdout)
        self.assertTrue(os.path.isfile(os.path.join(real, 'snapshot-1', 'kernel', 'metadata')),
                        'the triggered snapshot is not in the flight recorder\'s directory:\n'
                        + log)


if __name__ == '__main__':
    recording.main(why_not, 'attacks on a root wperf')
