#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`wperf top --relay URL --hosts HOST/SESSION` stopped by Ctrl-C (suite
`wperf-command`, test `top-relay`): like `wperf top` on one host, it ends
with the last period's report and the final report of the run so far,
and exits 130; the host's live session is left recording (it is not
wperf top's).

What it reads is real: a live LTTng session (`lttng create --live`)
streaming to an `lttng-relayd` of the test's own, read through
source.ctf.lttng-live. Its events come from tools/tests/ust-sched.c, a
program that emits, through LTTng-UST, the scheduler events of two
made-up threads taking turns on CPU 0 (`fake-client` and `fake-server`,
each waking the other and sleeping: a knot of two), in perf's layout,
which sink.wperf.knots reads: a wait-for graph without lttng-modules
(which this machine may lack; with it, `wperf record --relay --live`
records the kernel, suite `lttng-hosts`).

The session daemon is the test's own: as root, the test re-runs itself
in a private mount namespace with fresh /var/run/lttng and /dev/shm, as
sessions/test-lttng.py does, so the machine's session daemon is neither
seen nor disturbed. The relay daemon listens on free ports of 127.0.0.1.
Both are ended at the end; nothing else is.

Needs root, lttng-tools (lttng-sessiond, lttng-relayd, lttng), unshare
and the built ust-sched (lttng-ust): without them FAIL under CI=true,
else SKIP (77), saying why.
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import bt2

SKIP = 77
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(HERE, '..', '..', 'build'))
WPERF = os.environ.get('WPERF_COMMAND', os.path.join(BUILD, 'tools', 'wperf'))
UST_SCHED = os.environ.get('WPERF_UST_SCHED', os.path.join(BUILD, 'tools', 'tests', 'ust-sched'))
IN_NAMESPACE = 'WPERF_TOP_RELAY_NAMESPACE'
SESSION = 'wperf-top-relay-test'
PERIODS_BEFORE_STOP = 2


class Failed(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failed(what)


def why_not():
    if os.geteuid() != 0:
        return 'a private root session daemon needs root (running as uid %d)' % os.geteuid()
    for tool in ('lttng', 'lttng-sessiond', 'lttng-relayd', 'unshare'):
        if shutil.which(tool) is None:
            return '%s is not installed' % tool
    if not os.access(UST_SCHED, os.X_OK):
        return 'ust-sched is not built (%s; lttng-ust missing?)' % UST_SCHED
    if not os.environ.get(IN_NAMESPACE):
        p = subprocess.run(['unshare', '--mount', '--propagation', 'private', 'true'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            return 'cannot make a private mount namespace: %s' % p.stdout.strip()
    return None


def privatise_mounts(tmp):
    """In our namespace: an empty /var/run/lttng and /dev/shm, so that our
    root session daemon and the traced program see only each other."""
    run = os.path.join(tmp, 'run')
    os.makedirs(run)
    os.makedirs('/var/run/lttng', exist_ok=True)
    for argv in (['mount', '--bind', run, '/var/run/lttng'],
                 ['mount', '-t', 'tmpfs', '-o', 'mode=1777', 'tmpfs', '/dev/shm']):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        expect(p.returncode == 0, '%s: %s' % (' '.join(argv), p.stdout.strip()))


def free_ports(n):
    """n TCP ports of 127.0.0.1 free now."""
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(('127.0.0.1', 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def end_process(pid):
    """SIGTERM to a daemon we started, then SIGKILL after 10 s."""
    try:
        os.kill(pid, signal.SIGTERM)
        for _ in range(100):
            if not os.path.exists('/proc/%d' % pid):
                return
            time.sleep(0.1)
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def relay_sessions(url):
    """(hostname, session name) of each live session the relay daemon at
    url lists, through source.ctf.lttng-live's `sessions` query."""
    cls = bt2.find_plugin('ctf').source_component_classes['lttng-live']
    try:
        found = bt2.QueryExecutor(cls, 'sessions', {'url': url}).query()
    except bt2._Error:
        return []
    return [(str(s['target-hostname']), str(s['session-name'])) for s in found]


def wait_for(what, cond, proc=None, seconds=300):
    """Until cond() holds: the condition is the point, the bound only
    keeps a broken run from hanging (it fails, saying what it waited for)."""
    end = time.monotonic() + seconds
    while not cond():
        expect(proc is None or proc.poll() is None,
               'gave up waiting for %s: the process ended (%s)' % (what, proc.args))
        expect(time.monotonic() < end, 'gave up waiting for %s after %d s' % (what, seconds))
        time.sleep(0.05)


class Run:
    def __init__(self, tmp):
        self.tmp = tmp
        # The LTTng daemons and programs without the sanitizer run's
        # preloads (tests/README.md): only wperf is under test.
        self.env = {k: v for k, v in os.environ.items() if k != 'LD_PRELOAD'}
        self.env.update(LTTNG_HOME=tmp, HOME=tmp)
        self.pids = []           # daemons to end
        self.procs = []          # programs to end

    def lttng(self, *args):
        p = subprocess.run(['lttng'] + list(args), env=self.env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=120)
        print('$ lttng %s -> %d' % (' '.join(args), p.returncode))
        expect(p.returncode == 0, 'lttng %s: %s' % (' '.join(args), p.stdout.strip()))
        return p

    def start_daemons(self):
        pidfile = os.path.join(self.tmp, 'sessiond.pid')
        p = subprocess.run(['lttng-sessiond', '--daemonize', '--pidfile=' + pidfile],
                           env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=120)
        expect(p.returncode == 0, 'lttng-sessiond: %s' % p.stdout)
        with open(pidfile) as f:
            self.pids.append(int(f.read()))
        ctrl, data, live = free_ports(3)
        log = open(os.path.join(self.tmp, 'relayd.log'), 'w')
        relayd = subprocess.Popen(['lttng-relayd', '-o', os.path.join(self.tmp, 'relayd'),
                                   '-C', 'tcp://127.0.0.1:%d' % ctrl,
                                   '-D', 'tcp://127.0.0.1:%d' % data,
                                   '-L', 'tcp://127.0.0.1:%d' % live],
                                  env=self.env, stdout=log, stderr=log, start_new_session=True)
        self.pids.append(relayd.pid)
        self.relayd = relayd
        self.live_url = 'net://127.0.0.1:%d' % live
        # Listening takes a moment: the session's creation connects to it.
        wait_for('lttng-relayd to listen', lambda: self.listens(ctrl), relayd)
        return ctrl, data

    @staticmethod
    def listens(port):
        with socket.socket() as s:
            return s.connect_ex(('127.0.0.1', port)) == 0

    def end(self):
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()
        for pid in reversed(self.pids):
            end_process(pid)
        if getattr(self, 'relayd', None):
            self.relayd.wait()


def test(run):
    ctrl, data = run.start_daemons()
    run.lttng('create', SESSION, '--live', '--set-url=net://127.0.0.1:%d:%d' % (ctrl, data))
    run.lttng('enable-event', '--userspace', 'sched:*', '--session', SESSION)
    run.lttng('start', SESSION)
    sched = subprocess.Popen([UST_SCHED, '600'], env=run.env, stdout=subprocess.PIPE, text=True)
    run.procs.append(sched)
    print('ust-sched: pid %d' % sched.pid, flush=True)
    host = os.uname().nodename
    wait_for('the relay daemon to list %s' % SESSION,
             lambda: (host, SESSION) in relay_sessions(run.live_url), sched)
    print('the relay daemon at %s lists %s/%s' % (run.live_url, host, SESSION), flush=True)

    # Its standard error into a file: read only at the end, a pipe could
    # fill meanwhile.
    errpath = os.path.join(run.tmp, 'top.err')
    errfile = open(errpath, 'w')
    top = subprocess.Popen([WPERF, 'top', '--relay', run.live_url, '--hosts',
                            '%s/%s' % (host, SESSION), '--every', '1s', '--format', 'json'],
                           stdout=subprocess.PIPE, stderr=errfile, text=True,
                           start_new_session=True)
    errfile.close()
    run.procs.append(top)

    def stderr():
        with open(errpath) as f:
            return f.read()[-3000:]

    lines = []

    def runs_so_far():
        return [json.loads(l) for l in lines if '"report": "run"' in l]

    # Ctrl-C once the periodic reports flow (the graph reads the session).
    os.set_blocking(top.stdout.fileno(), True)
    while len([r for r in runs_so_far() if 'report' in r]) < PERIODS_BEFORE_STOP:
        line = top.stdout.readline()
        expect(line, 'wperf top ended before %d periodic reports: %s; stderr: %s'
               % (PERIODS_BEFORE_STOP, lines, stderr()))
        lines.append(line)
    top.send_signal(signal.SIGINT)
    try:
        rest, _ = top.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        top.kill()
        top.communicate()
        raise Failed('wperf top --relay still ran 300 s after Ctrl-C: %s' % stderr())
    err = stderr()
    print('wperf top: exit %d; stderr: %s' % (top.returncode, err.strip()))
    lines += rest.splitlines(keepends=True)
    reports = [json.loads(l) for l in lines]
    expect(top.returncode == 130, 'exit %d, not 130: %s' % (top.returncode, err))

    # The stream ends as on one host: the last period, then the final
    # report of the whole run until the stop.
    last, final = reports[-2], reports[-1]
    expect(final['every']['report'] == 'run' and final['every']['final'] is True,
           'the last line is not the final report: %s' % lines[-1][:300])
    expect('report' in final, 'the final report is an error: %s' % final.get('error'))
    expect(last['every']['report'] == 'period' and last['every']['final'] is True,
           'no last period before the final report: %s' % lines[-2][:300])
    before = [r for r in reports[:-1] if r['every']['report'] == 'run']
    expect(len(before) >= PERIODS_BEFORE_STOP, 'fewer than %d periodic reports: %d'
           % (PERIODS_BEFORE_STOP, len(before)))
    expect(all(r['every']['final'] is False for r in before), 'a final report before the end')
    expect(final['every']['begin_ns'] == before[0]['every']['begin_ns'],
           'the final report does not begin where the run began')
    expect(final['every']['end_ns'] >= before[-1]['every']['end_ns'],
           'the final report ends before the last periodic one')
    # What it found: the two threads, each waiting for the other, one knot.
    report = final['report']
    names = {v['id']: v['name'] for v in report['vertices']}
    knots = [sorted(names[m] for m in k['members']) for k in report['knots']
             if k['kind'] == 'knot']
    print('final report: %s to %s, knots %s'
          % (final['every']['begin_ns'], final['every']['end_ns'], knots))
    expect(any(any(n.startswith('fake-client') for n in k) and
               any(n.startswith('fake-server') for n in k) for k in knots),
           'no knot of fake-client and fake-server in the final report: %s' % knots)

    # The session was not wperf top's to end: it still records, and the
    # relay daemon still serves it.
    expect(sched.poll() is None, 'ust-sched ended early')
    p = run.lttng('list', SESSION)
    expect('[active]' in p.stdout, 'the session is not recording any more: %s' % p.stdout)
    expect((host, SESSION) in relay_sessions(run.live_url),
           'the relay daemon no longer lists %s' % SESSION)


def on_sigterm(sig, frame):
    """meson's timeout: end what we started before we go."""
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    raise Failed('ended by signal %d (a timeout?)' % sig)


def main():
    signal.signal(signal.SIGTERM, on_sigterm)
    why = why_not()
    if why:
        print(('FAIL: ' if IN_CI else 'SKIP: ') + why)
        return 1 if IN_CI else SKIP
    if not os.environ.get(IN_NAMESPACE):
        sys.stdout.flush()
        os.execvpe('unshare', ['unshare', '--mount', '--propagation', 'private',
                               sys.executable] + sys.argv,
                   dict(os.environ, **{IN_NAMESPACE: '1'}))
    tmp = tempfile.mkdtemp(prefix='wperf-top-relay-', dir='/var/tmp')
    run = Run(tmp)
    try:
        privatise_mounts(tmp)
        test(run)
    except Failed as e:
        print('FAIL: %s' % e)
        return 1
    finally:
        run.end()
        if os.environ.get('WPERF_KEEP_TRACE'):
            print('kept %s (WPERF_KEEP_TRACE)' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print('PASS: wperf top --relay ended with the final report at Ctrl-C')
    return 0


if __name__ == '__main__':
    sys.exit(main())
