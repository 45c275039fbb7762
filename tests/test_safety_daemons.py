#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Attacks on wperf's waits and on many wperfs at once (meson suite
`safety`, doc/reliability.md).

Every test runs wperf against a session daemon of its own: in a private
mount namespace (unshare --mount), a directory of the test's is
bind-mounted over /run/lttng (LTTng's run directory: its sockets and pid
file), or over the whole of /run (then wperf's own lock, pid and users'
files are private too). The test starts, stops and ends only the daemons
of that directory; the machine's own lttng-sessiond is never touched.

- A stopped session daemon: `wperf record` says within a few seconds that
  it waits for lttng-sessiond (naming its pid), gives up with one line
  naming the pid and the command that frees it, discards its output
  directory, and another `wperf record` against the machine's daemon
  meanwhile is not held up (on a shared lock).
- SIGTERM during that wait ends wperf within a second, non-zero, its
  output directory discarded.
- The session-daemon lock held by another process: wperf says within a
  few seconds what it waits for and the holder's pid; SIGTERM ends it.
- `wperf stop` racing `wperf snapshot`: stop waits for the snapshot, then
  removes the ftrace instance; the instance is never left tracing.
- A flight recorder whose directory was removed without `wperf stop`:
  the next flight recorder removes its ftrace instance and its LTTng
  session, and no other; the last stop ends the session daemon.
- The session daemon killed and started again by someone else during a
  recording: wperf ends with a line that says so and a trace that
  `wperf report` reads (or one line that it is lost), never hangs.
- A trigger watcher killed by SIGKILL: the next wperf removes its
  trigger, not that of another flight recorder's live watcher.
- `wperf stop` of a flight recorder whose directory was renamed ends its
  watcher (found by the directory it holds), not another's; the next
  flight recorder's sweep finds a renamed one by its file handle and
  leaves its instance.
- A stale /run/wperf-sessiond-0.pid naming another user's own
  lttng-sessiond (the pid reused): no wperf sends it a signal.
- Many at once: three `wperf record`s (one as another user), a flight
  recorder taking snapshots and a `wperf top`, for about 30 s, stopped in
  a random order: each recording reports its command, nothing is left
  (ftrace instances, LTTng sessions, session daemon, temporary
  directories), and every non-zero exit said why.

After each test, every LTTng daemon left in one of its namespaces (found
by its mounts) is ended; the test fails if one would not end.

Needs root, tracefs, lttng-sessiond and unshare(1): without them the
tests FAIL under CI=true and are skipped (77) otherwise.
"""
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

os.environ.pop('SUDO_USER', None)

SKIP = 77
HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(HERE, '..', 'build'))
WPERF = os.environ.get('WPERF_COMMAND', os.path.join(BUILD, 'tools', 'wperf'))
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
TRACEFS = '/sys/kernel/tracing'


def why_not_here():
    if os.geteuid() != 0:
        return 'needs root (running as uid %d)' % os.geteuid()
    for prog in ('lttng-sessiond', 'lttng', 'unshare', 'babeltrace2'):
        if not shutil.which(prog):
            return '%s is not installed' % prog
    if not os.path.isdir(os.path.join(TRACEFS, 'instances')):
        return 'no tracefs at %s' % TRACEFS
    if not os.access(WPERF, os.X_OK):
        return 'wperf is not built (%s)' % WPERF
    return None


def in_namespace(bind_src, target, argv):
    """argv run in a private mount namespace where bind_src is mounted
    over target."""
    return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
            'mount --bind "$0" "$1" && shift && exec "$@"', bind_src, target] + argv


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid, errors='surrogateescape') as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def read_pid(path):
    try:
        with open(path) as f:
            return int(f.read().strip() or 0)
    except (OSError, ValueError):
        return 0


def end_daemon(pid):
    """End a session daemon this test started (it may be stopped)."""
    if not pid or not alive(pid):
        return
    for sig in (signal.SIGCONT, signal.SIGTERM):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
    for _ in range(100):
        if not alive(pid):
            return
        time.sleep(0.1)
    os.kill(pid, signal.SIGKILL)


def parent_of(pid):
    try:
        with open('/proc/%d/stat' % pid, errors='surrogateescape') as f:
            return int(f.read().rsplit(')', 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def namespace_daemons(tmp):
    """The LTTng daemons (lttng-sessiond, its consumers) running in a
    mount namespace of this test's: one where a directory below tmp is
    mounted. Their pid files cannot find them all: wperf names its own
    (--pidfile), and a test's run directory may be gone."""
    found = []
    for d in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/comm' % d, errors='surrogateescape') as f:
                if not f.read().startswith('lttng-'):
                    continue
            with open('/proc/%s/mountinfo' % d) as f:
                roots = [line.split()[3] for line in f]
        except (OSError, IndexError):
            continue
        if any(r == tmp or r.startswith(tmp + '/') for r in roots):
            found.append(int(d))
    return found


def end_namespace_daemons(tmp):
    """End every daemon of namespace_daemons(tmp); the pids that would not
    end."""
    pids = namespace_daemons(tmp)
    for pid in pids:
        end_daemon(pid)
    return [pid for pid in pids if alive(pid)]


def reading_instance(pid, timeout):
    """Wait until process pid has a flight recorder's buffer open."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            for fd in os.listdir('/proc/%d/fd' % pid):
                try:
                    target = os.readlink('/proc/%d/fd/%s' % (pid, fd))
                except OSError:
                    continue
                if '/instances/wperf-flight-' in target and 'trace_pipe_raw' in target:
                    return True
        except OSError:
            return False
        time.sleep(0.01)
    return False


def collect_children(procs, found, done):
    """Until done: the pids of the children of procs' processes (their
    kernel recorders, which name their ftrace instances after themselves)."""
    while not done.is_set():
        ours = {p.pid for p in list(procs)}
        for d in os.listdir('/proc'):
            try:
                with open('/proc/%s/stat' % d, errors='surrogateescape') as f:
                    if d.isdigit() and int(f.read().rsplit(')', 1)[1].split()[1]) in ours:
                        found.add(int(d))
            except (OSError, ValueError, IndexError):
                continue
        time.sleep(0.1)


class Stderr:
    """A process's standard error, line by line, each with its time."""

    def __init__(self, proc):
        self.lines = []
        self.proc = proc
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stderr:
            self.lines.append((time.monotonic(), line.rstrip('\n')))

    def wait_for(self, pattern, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            for t, line in list(self.lines):
                if re.search(pattern, line):
                    return t, line
            if self.proc.poll() is not None and not self.thread.is_alive():
                break
            time.sleep(0.05)
        return None, None

    def text(self):
        self.thread.join(timeout=5)
        return '\n'.join(line for _, line in self.lines)


def start(argv, **kw):
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


class PrivateDaemon(unittest.TestCase):
    """A stopped session daemon of the test's, in its own run directory."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='wperf-safety-daemons-')
        self.rundir = os.path.join(self.tmp, 'rundir')
        os.mkdir(self.rundir, 0o755)
        self.procs = []
        self.daemon = 0

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            for pipe in (p.stdout, p.stderr):
                if pipe:
                    pipe.close()
        end_daemon(self.daemon)
        left = end_namespace_daemons(self.tmp)
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.assertEqual(left, [], 'LTTng daemons of the test left running')

    def stopped_daemon(self):
        """Start lttng-sessiond in the private run directory (no kernel
        tracer: only one daemon may own it), and stop it."""
        subprocess.run(in_namespace(self.rundir, '/run/lttng',
                                    ['lttng-sessiond', '--daemonize', '--no-kernel']),
                       check=True, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.daemon = read_pid(os.path.join(self.rundir, 'lttng-sessiond.pid'))
        self.assertTrue(self.daemon and alive(self.daemon), 'no private lttng-sessiond')
        os.kill(self.daemon, signal.SIGSTOP)
        return self.daemon

    def wedged_record(self, out):
        p = start(in_namespace(self.rundir, '/run/lttng',
                               [WPERF, 'record', '-o', out, '--', 'sleep', '1']))
        self.procs.append(p)
        return p, Stderr(p)

    def test_stopped_daemon_said_given_up_and_blocks_no_one(self):
        pid = self.stopped_daemon()
        out = os.path.join(self.tmp, 'wedged')
        began = time.monotonic()
        p, err = self.wedged_record(out)
        t, line = err.wait_for(r'waiting for lttng-sessiond \(pid %d\)' % pid, 8)
        self.assertIsNotNone(t, 'no word within 8 s of what wperf waits for:\n' + err.text())
        self.assertLess(t - began, 6, line)
        # Meanwhile a recording against the machine's own daemon: not held
        # up by the wedged one (which must hold no shared lock).
        other = os.path.join(self.tmp, 'other')
        o = subprocess.run([WPERF, 'record', '-o', other, '--', 'sleep', '1'],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(o.returncode, 0, o.stderr)
        self.assertIsNone(p.poll(), 'the wedged wperf ended before its deadline')
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.fail('wperf record still waits 60 s on a stopped daemon:\n' + err.text())
        text = err.text()
        self.assertNotEqual(p.returncode, 0, text)
        errors = [l for l in text.splitlines() if l.startswith('wperf: error:')]
        self.assertEqual(len(errors), 1, text)
        self.assertIn('pid %d' % pid, errors[0])
        self.assertIn('kill -CONT %d' % pid, errors[0])
        self.assertFalse(os.path.exists(out), 'the output directory was left')

    def test_sigterm_during_the_wait_ends_it_within_a_second(self):
        pid = self.stopped_daemon()
        out = os.path.join(self.tmp, 'wedged')
        p, err = self.wedged_record(out)
        t, _ = err.wait_for(r'waiting for lttng-sessiond \(pid %d\)' % pid, 8)
        self.assertIsNotNone(t, 'no word of the wait:\n' + err.text())
        # The namespace's sh exec'd wperf: p.pid is wperf.
        sent = time.monotonic()
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.fail('SIGTERM did not end wperf record within 5 s:\n' + err.text())
        took = time.monotonic() - sent
        self.assertLess(took, 1.0, err.text())
        self.assertNotEqual(p.returncode, 0, err.text())
        self.assertFalse(os.path.exists(out), 'the output directory was left')


class PrivateRun(unittest.TestCase):
    """wperf with a private /run: its own lock files and session daemon."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='wperf-safety-daemons-')
        self.run_dir = os.path.join(self.tmp, 'run')
        os.makedirs(os.path.join(self.run_dir, 'lttng'), 0o755)
        self.procs = []
        self.wedged_daemon = 0

    def tearDown(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            for pipe in (p.stdout, p.stderr):
                if pipe:
                    pipe.close()
        end_daemon(self.wedged_daemon)
        left = end_namespace_daemons(self.tmp)
        self.remove_own_instances()
        shutil.rmtree(self.tmp, ignore_errors=True)
        self.assertEqual(left, [], 'LTTng daemons of the test left running')

    def wperfs_daemons(self):
        """The LTTng daemons of this test's /run that a wperf started (not
        the wedged one the test started, nor its consumers)."""
        return [p for p in namespace_daemons(self.tmp)
                if p != self.wedged_daemon and parent_of(p) != self.wedged_daemon]

    def remove_own_instances(self):
        """The ftrace instances of the flight recorders of this test that a
        failing wperf left tracing."""
        for name in os.listdir(self.tmp):
            try:
                with open(os.path.join(self.tmp, name, 'wperf.json')) as f:
                    inst = json.load(f).get('instance')
            except (OSError, ValueError):
                continue
            path = os.path.join(TRACEFS, 'instances', inst or '')
            if inst and os.path.isdir(path):
                with open(path + '/tracing_on', 'w') as f:
                    f.write('0')
                os.rmdir(path)

    def ns(self, argv):
        return in_namespace(self.run_dir, '/run', argv)

    def ns_wedged(self, rundir, argv):
        """argv with this test's /run, but another LTTng run directory."""
        return ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
                'mount --bind "$0" /run && mount --bind "$1" /run/lttng && shift && '
                'exec "$@"', self.run_dir, rundir] + argv

    def test_held_lock_is_said_with_its_holder_and_ends_on_sigterm(self):
        import fcntl
        lock = os.path.join(self.run_dir, 'wperf-sessiond-0.lock')
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, b'%d\n' % os.getpid())
            out = os.path.join(self.tmp, 'r')
            p = start(self.ns([WPERF, 'record', '-o', out, '--', 'true']))
            self.procs.append(p)
            err = Stderr(p)
            t, line = err.wait_for(r'waiting for /run/wperf-sessiond-0\.lock .*held by '
                                   r'pid %d' % os.getpid(), 8)
            self.assertIsNotNone(t, 'no word of the held lock:\n' + err.text())
            sent = time.monotonic()
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=5)
            self.assertLess(time.monotonic() - sent, 1.0, err.text())
            self.assertNotEqual(p.returncode, 0)
            self.assertFalse(os.path.exists(out), 'the output directory was left')
        finally:
            os.close(fd)

    def instances(self):
        return set(os.listdir(os.path.join(TRACEFS, 'instances')))

    def test_stale_pid_file_never_ends_another_users_daemon(self):
        """/run/wperf-sessiond-0.pid left by a daemon a wperf started and
        that died, its pid now another user's own lttng-sessiond: the next
        wperf, finding the (root) daemon unused at its end, sent that
        user's daemon SIGTERM (it only checked the process's name). It is
        left running, and the stale file removed."""
        os.chmod(self.tmp, 0o755)       # the user reaches its home
        home = os.path.join(self.tmp, 'nobody-home')
        os.mkdir(home, 0o755)
        os.chown(home, 65534, 65534)
        env = {'HOME': home, 'LTTNG_HOME': home, 'PATH': os.environ.get('PATH', '/usr/bin:/bin')}
        subprocess.run(['lttng-sessiond', '--daemonize'], user=65534, group=65534,
                       extra_groups=[], env=env, check=True, timeout=60,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        theirs = read_pid(os.path.join(home, '.lttng', 'lttng-sessiond.pid'))
        self.addCleanup(end_daemon, theirs)
        self.assertTrue(theirs and alive(theirs), 'the user\'s lttng-sessiond did not start')
        # Root's daemon of this /run runs, started by no wperf.
        subprocess.run(self.ns(['lttng-sessiond', '--daemonize', '--no-kernel']), check=True,
                       timeout=60, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        stale = os.path.join(self.run_dir, 'wperf-sessiond-0.pid')
        with open(stale, 'w') as f:
            f.write('%d\n' % theirs)
        out = os.path.join(self.tmp, 'r')
        p = subprocess.run(self.ns([WPERF, 'record', '-o', out, '--', 'true']),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        time.sleep(1)
        self.assertTrue(alive(theirs), 'wperf ended another user\'s lttng-sessiond:\n'
                        + p.stderr)
        self.assertFalse(os.path.exists(stale), p.stderr)

    def test_stop_racing_snapshot_leaves_no_instance(self):
        """`wperf stop` while a snapshot reads the instance's buffers (a
        `wperf snapshot`, and a reader of the test's holding cpu0's buffer
        open for 1.5 s as a snapshot of an older wperf would): the stop
        waits and retries, and leaves no instance."""
        f = os.path.join(self.tmp, 'f')
        r = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '-o', f]),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(f + '/wperf.json') as fp:
            inst = os.path.join(TRACEFS, 'instances', json.load(fp)['instance'])
        time.sleep(1)
        snap = start(self.ns([WPERF, 'snapshot', f]))
        self.procs.append(snap)
        reading_instance(snap.pid, 30)
        reader = os.open(inst + '/per_cpu/cpu0/trace_pipe_raw', os.O_RDONLY | os.O_NONBLOCK)
        closer = threading.Timer(1.5, os.close, [reader])
        closer.start()
        try:
            stop = subprocess.run(self.ns([WPERF, 'stop', f]), stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=120)
        finally:
            closer.join()
        _, snap_err = snap.communicate(timeout=120)
        self.assertEqual(stop.returncode, 0, stop.stderr)
        if snap.returncode != 0:
            self.assertRegex(snap_err, r'wperf: error: ', 'the snapshot failed silently')
        self.assertFalse(os.path.isdir(inst), 'wperf stop left the ftrace instance tracing: '
                         + stop.stderr)

    def test_sweep_removes_the_instance_of_a_gone_flight_recorder(self):
        """A flight recorder whose directory was removed without `wperf
        stop`: the next flight recorder removes its ftrace instance (and
        only that one)."""
        def flight(name):
            out = os.path.join(self.tmp, name)
            r = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '-o', out]),
                               stdin=subprocess.DEVNULL, capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(out + '/wperf.json') as f:
                return out, json.load(f)['instance'], r.stderr
        gone, gone_inst, _ = flight('gone')
        kept, kept_inst, _ = flight('kept')
        self.assertIn(gone_inst, self.instances())
        shutil.rmtree(gone)
        new, new_inst, err = flight('new')
        try:
            self.assertNotIn(gone_inst, self.instances(), 'the gone recorder\'s instance '
                             'still traces')
            self.assertIn('removing the ftrace instance %s' % gone_inst, err)
            self.assertIn(kept_inst, self.instances())
            self.assertIn(new_inst, self.instances())
        finally:
            if os.path.isdir(os.path.join(TRACEFS, 'instances', gone_inst)):
                with open(os.path.join(TRACEFS, 'instances', gone_inst, 'tracing_on'), 'w') as f:
                    f.write('0')
                os.rmdir(os.path.join(TRACEFS, 'instances', gone_inst))
        self.assertIn('destroyed its LTTng session wperf-gone-', err)
        for out in (kept, new):
            s = subprocess.run(self.ns([WPERF, 'stop', out]), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120)
            self.assertEqual(s.returncode, 0, s.stderr)
        self.assertFalse({kept_inst, new_inst} & self.instances())
        # The gone recorder's session went with its instance: the last stop
        # ends the session daemon a wperf started.
        self.assertEqual(self.wperfs_daemons(), [], 'the session daemon wperf started is '
                         'left running: ' + s.stderr)

    def trigger_flight(self, name):
        """A flight recorder with --trigger-on in this test's /run: its
        directory and wperf.json."""
        out = os.path.join(self.tmp, name)
        r = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '--buffer-size-kb', '256',
                                    '--ust-events', 'lttng_ust_tracef:*', '--trigger-on',
                                    'lttng_ust_tracef:event', '-o', out]),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(out + '/wperf.json') as f:
            return out, json.load(f)

    def triggers(self):
        r = subprocess.run(self.ns(['lttng', 'list-triggers']), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=60)
        if 'No session daemon' in r.stderr:
            return set()        # the last wperf stopped it: no trigger left
        self.assertEqual(r.returncode, 0, r.stderr)
        return set(re.findall(r'name: (\S+)', r.stdout))

    def stop_flight(self, out):
        s = subprocess.run(self.ns([WPERF, 'stop', out]), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(s.returncode, 0, s.stderr)
        return s

    def test_trigger_of_a_killed_watcher_is_removed_by_the_next_wperf(self):
        """A trigger watcher killed by SIGKILL leaves its trigger, whose
        snapshots name the dead watcher's /proc/PID/fd/N: the next wperf
        removes that trigger, and not the one of a live watcher."""
        killed, ks = self.trigger_flight('killed')
        live, ls = self.trigger_flight('live')
        dead = ks['watcher']
        self.assertEqual({ks['trigger']['name'], ls['trigger']['name']} - self.triggers(),
                         set())
        os.kill(dead, signal.SIGKILL)
        for _ in range(100):
            if not alive(dead):
                break
            time.sleep(0.05)
        r = subprocess.run(self.ns([WPERF, 'record', '-o', self.tmp + '/r', '--', 'true']),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn('removed LTTng trigger %s, left by a trigger watcher that was killed '
                      '(pid %d)' % (ks['trigger']['name'], dead), r.stderr)
        left = self.triggers()
        self.assertNotIn(ks['trigger']['name'], left, r.stderr)
        self.assertIn(ls['trigger']['name'], left, r.stderr)
        self.assertTrue(alive(ls['watcher']))
        self.stop_flight(killed)
        self.stop_flight(live)
        self.assertFalse(alive(ls['watcher']))
        self.assertEqual(self.triggers() & {ks['trigger']['name'], ls['trigger']['name']},
                         set())

    def test_stop_of_a_moved_flight_recorder_ends_its_watcher(self):
        """`wperf stop` of a flight recorder whose directory was renamed
        finds its watcher by the directory it holds (its command line
        names the old path) and ends it; another flight recorder's
        watcher goes on."""
        old, state = self.trigger_flight('before')
        other, other_state = self.trigger_flight('other')
        new = os.path.join(self.tmp, 'after')
        os.rename(old, new)
        s = self.stop_flight(new)
        self.assertIn('flight recorder of %s stopped' % new, s.stderr)
        self.assertFalse(alive(state['watcher']), 'the moved flight recorder\'s watcher '
                         'still runs after wperf stop:\n' + s.stderr)
        self.assertTrue(alive(other_state['watcher']))
        self.stop_flight(other)
        self.assertFalse(alive(other_state['watcher']))

    def test_moved_flight_recorder_is_not_taken_for_gone(self):
        """A flight recorder (no watcher) whose directory was renamed: the
        next flight recorder's sweep finds it by its file handle, where it
        was moved, and leaves its instance; `wperf snapshot` and `wperf
        stop` of the new name work."""
        old = os.path.join(self.tmp, 'old')
        r = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '--buffer-size-kb', '256',
                                    '-o', old]), stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=180)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(old + '/wperf.json') as f:
            inst = json.load(f)['instance']
        new = os.path.join(self.tmp, 'new')
        os.rename(old, new)
        other = os.path.join(self.tmp, 'other')
        o = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '--buffer-size-kb', '256',
                                    '-o', other]), stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=180)
        self.assertEqual(o.returncode, 0, o.stderr)
        self.assertNotIn(inst, o.stderr, 'the moved flight recorder was taken for gone')
        self.assertIn(inst, self.instances())
        snap = subprocess.run(self.ns([WPERF, 'snapshot', new]), stdin=subprocess.DEVNULL,
                              capture_output=True, text=True, timeout=180)
        self.assertEqual(snap.returncode, 0, snap.stderr)
        self.assertTrue(os.path.isfile(os.path.join(new, 'snapshot-1', 'kernel', 'metadata')),
                        snap.stderr)
        self.stop_flight(new)
        self.stop_flight(other)
        self.assertNotIn(inst, self.instances())

    def test_daemon_restarted_during_a_recording(self):
        """The session daemon killed and started again by someone else
        while `wperf record` records: wperf ends (no hang) with one line
        that says the daemon went away, and the trace it names is one
        `wperf report` reads (the kernel half), or it is said lost."""
        out = os.path.join(self.tmp, 'r')
        p = start(self.ns([WPERF, 'record', '-o', out, '--', 'sleep', '6']))
        self.procs.append(p)
        err = Stderr(p)
        t, _ = err.wait_for(r'command pid \d+', 120)
        daemon = read_pid(os.path.join(self.run_dir, 'wperf-sessiond-0.pid'))
        # (err.text() waits for wperf's end: only once the test failed.)
        if t is None or not (daemon and alive(daemon)):
            self.fail('the recording did not start with a daemon of its own:\n' + err.text())
        os.kill(daemon, signal.SIGKILL)
        for _ in range(100):
            if not alive(daemon):
                break
            time.sleep(0.05)
        subprocess.run(self.ns(['lttng-sessiond', '--daemonize', '--no-kernel']),
                       check=True, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        try:
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.fail('wperf record hangs after the daemon restarted:\n' + err.text())
        text = err.text()
        last = [ln for ln in text.splitlines() if ln.startswith('wperf:')][-1]
        self.assertRegex(text, r'lttng-sessiond .*(restarted|gone|went away)', text)
        m = re.match(r'wperf: trace in (.+): wperf report ', last)
        if m:
            self.assertEqual(p.returncode, 0, text)
            rep = subprocess.run([WPERF, 'report', m.group(1), '--format', 'json'],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(rep.returncode, 0, rep.stderr)
            pid = read_pid(out + '/command.pid')
            self.assertRegex(rep.stdout, r'"pid": ?%d\b' % pid)
        else:
            self.assertNotEqual(p.returncode, 0, text)
            self.assertRegex(last, r'^wperf: error: ', text)

    def test_many_at_once_stopped_in_any_order(self):
        random.seed(os.getpid())
        children = set()
        watching = threading.Event()
        threading.Thread(target=collect_children, args=(self.procs, children, watching),
                         daemon=True).start()
        tops_before = set(n for n in os.listdir('/tmp') if n.startswith('wperf-top-'))
        d = self.tmp
        # A wperf of the same machine (same /run) wedged on a stopped
        # daemon of its own: it must hold up none of the others.
        wedged_rundir = os.path.join(self.tmp, 'wedged-rundir')
        os.mkdir(wedged_rundir, 0o755)
        subprocess.run(self.ns_wedged(wedged_rundir, ['lttng-sessiond', '--daemonize',
                                                      '--no-kernel']),
                       check=True, timeout=60, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        self.wedged_daemon = read_pid(os.path.join(wedged_rundir, 'lttng-sessiond.pid'))
        os.kill(self.wedged_daemon, signal.SIGSTOP)
        wedged = start(self.ns_wedged(wedged_rundir, [WPERF, 'record', '-o', d + '/w', '--',
                                                      'true']))
        self.procs.append(wedged)
        wedged_err = Stderr(wedged)
        time.sleep(1)
        # Short recordings started together: the first starts the daemon,
        # none may stop it under another.
        shorts = []
        for i in range(4):
            shorts.append(start(self.ns([WPERF, 'record', '-o', d + '/s%d' % i, '--',
                                         'sleep', str(random.choice([0, 0.5, 1]))])))
            self.procs.append(shorts[-1])
            time.sleep(random.uniform(0, 0.7))
        for i, p in enumerate(shorts):
            try:
                _, err = p.communicate(timeout=120)
            except subprocess.TimeoutExpired:
                self.fail('short recording s%d held up for 120 s' % i)
            self.assertEqual(p.returncode, 0, 's%d: %s' % (i, err))
        runs = {
            'r1': [WPERF, 'record', '-o', d + '/r1', '--', 'sleep', '40'],
            'r2': [WPERF, 'record', '-o', d + '/r2', '--user', 'nobody', '--',
                   'sleep', '40'],
            'r3': [WPERF, 'record', '-o', d + '/r3', '--duration', '12', '--', 'sleep',
                   '30'],
            'top': [WPERF, 'top', '--every', '2s', '--output', d + '/top.txt'],
        }
        flight = d + '/waits-flight'
        procs = {}
        for name, argv in runs.items():
            procs[name] = start(self.ns(argv))
            self.procs.append(procs[name])
            time.sleep(random.uniform(0, 1))
        errs = {name: Stderr(p) for name, p in procs.items()}
        r = subprocess.run(self.ns([WPERF, 'record', '--snapshot', '-o', flight]),
                           stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=120)
        self.assertEqual(r.returncode, 0, r.stderr)
        snapshots = 0
        stops = ['r1', 'r2', 'top', 'flight']
        random.shuffle(stops)
        time.sleep(8)
        for what in stops:
            s = subprocess.run(self.ns([WPERF, 'snapshot', flight]), stdin=subprocess.DEVNULL,
                               capture_output=True, text=True, timeout=120)
            if 'flight' not in stops[:stops.index(what)]:
                self.assertEqual(s.returncode, 0, s.stderr)
                snapshots += 1
            if what == 'flight':
                s = subprocess.run(self.ns([WPERF, 'stop', flight]), stdin=subprocess.DEVNULL,
                                   capture_output=True, text=True, timeout=120)
                self.assertEqual(s.returncode, 0, s.stderr)
            else:
                procs[what].send_signal(random.choice([signal.SIGINT, signal.SIGTERM]))
            time.sleep(random.uniform(1, 5))
        for name, p in procs.items():
            try:
                p.wait(timeout=120)
            except subprocess.TimeoutExpired:
                self.fail('%s did not end:\n%s' % (name, errs[name].text()))
        wedged.wait(timeout=60)
        self.assertNotEqual(wedged.returncode, 0)
        self.assertRegex(wedged_err.text(), r'wperf: error: lttng-sessiond \(pid %d\) did not '
                         r'answer.*kill -CONT %d' % (self.wedged_daemon, self.wedged_daemon))
        for name, p in procs.items():
            text = errs[name].text()
            if p.returncode not in (0, 130, 143):
                self.assertRegex(text, r'wperf: error: ', '%s failed silently' % name)
            self.assertNotRegex(text, r'No session daemon|is gone|another watcher',
                                '%s was disturbed by another wperf' % name)
        # Nothing lost: every recording reports its command.
        for name in ('r1', 'r2', 'r3'):
            self.assertIn(procs[name].returncode, (0, 130, 143), errs[name].text())
            rep = subprocess.run([WPERF, 'report', d + '/' + name, '--format', 'json'],
                                 capture_output=True, text=True, timeout=300)
            self.assertEqual(rep.returncode, 0, '%s: %s' % (name, rep.stderr))
            pid = read_pid(d + '/' + name + '/command.pid')
            self.assertIn('"pid": %d' % pid, rep.stdout.replace('"pid":%d' % pid,
                                                               '"pid": %d' % pid), name)
        with open(flight + '/wperf.json') as f:
            state = json.load(f)
        self.assertGreaterEqual(state.get('snapshots', 0), snapshots)
        self.assertIs(state.get('running'), False)
        # Nothing left.
        watching.set()
        self.assertEqual(self.own_instances_left(children, flight), set())
        self.assertEqual({n for n in os.listdir('/tmp') if n.startswith('wperf-top-')}
                         - tops_before, set())
        self.assertEqual(self.wperfs_daemons(), [], 'the session daemon wperf started is left')

    def own_instances_left(self, children, flight):
        """Instances left of this test's wperfs: the flight recorder's, and
        those named after a child of one of them (its kernel recorder)."""
        with open(flight + '/wperf.json') as f:
            names = {json.load(f)['instance']}
        left = set()
        for n in self.instances():
            m = re.match(r'wperf-(\d+)(-\d+)?$', n)
            if n in names or (m and int(m.group(1)) in children):
                left.add(n)
        return left


if __name__ == '__main__':
    if os.environ.get('WPERF_SANITIZED') == '1':
        # By design, also under CI: these tests time wperf's deadlines
        # (a voice after 2 s, an end within 1 s of a signal, several
        # recorders ready at once) against daemons it does not own; the
        # sanitizer's threefold slowdown of every recorder breaks those
        # times, not the logic, which the normal run checks.
        print('SKIP: safety-daemons runs in the normal build only: it times deadlines '
              'that the sanitizer slows threefold')
        sys.exit(SKIP)
    why = why_not_here()
    if why:
        print('safety-daemons: %s' % why, file=sys.stderr)
        sys.exit(1 if IN_CI else SKIP)
    unittest.main(verbosity=2)
