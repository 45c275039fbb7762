# SPDX-License-Identifier: MIT
"""A private LTTng session daemon for recording UST events in tests and
benchmarks, and a reader of what it recorded.

Why the daemon runs as another user when we are root: a root
lttng-sessiond is system-wide (its sockets are in /var/run/lttng, whatever
LTTNG_HOME says), so it would clash with any other root session daemon on
the machine (another test, the user's own). A non-root session daemon is
private: it lives in $LTTNG_HOME/.lttng. So as root, the daemon, the lttng
commands and the traced program all run as user `nobody` (uid/gid 65534,
through setpriv(1)) with LTTNG_HOME in a fresh temporary directory; as any
other user they run as that user. The programs to trace are copied into
that directory first, since the build tree may not be readable by nobody
(e.g. a checkout under /root).

A traced program registers with every session daemon it can reach: ours,
and the root one if it runs (its socket is /var/run/lttng/lttng-ust-sock-8,
open to all). Then a root session enabling wperf:* (another test, another
user) would record our programs too, and slow them down in a benchmark.
So, as root, a traced program runs in a private mount namespace
(unshare(1)) where a small empty tmpfs hides /var/run: it only sees our
daemon. Where unshare is not allowed (some containers) it runs without, and
says so in the log.

Used by ust-provider/tests/test_annotations.py and
ust-provider/bench/bench_annotations.py. Run with Debian's /usr/bin/python3
(python3-bt2).
"""

import os
import shutil
import signal
import subprocess
import tempfile
import time

NOBODY = 65534

# Enough for the workloads' default runs without losing one event: per CPU,
# 8 x 4 MiB. The channel also blocks the program instead of discarding when
# full (--blocking-timeout=inf, honoured only when the program runs with
# LTTNG_UST_ALLOW_BLOCKING=1), since the tests compare counts exactly.
CHANNEL = 'wperf'
SUBBUF_SIZE = '4M'
NUM_SUBBUF = '8'


def why_not():
    """None when LTTng-UST recording can work here, else the reason."""
    for tool in ('lttng', 'lttng-sessiond'):
        if shutil.which(tool) is None:
            return '%s is not installed (Debian package lttng-tools)' % tool
    if os.geteuid() == 0 and shutil.which('setpriv') is None:
        return 'setpriv (util-linux) is missing: needed to run LTTng as nobody'
    return None


def sanitizer_preload():
    """The sanitizer runtimes make check preloads into every test process
    (tests/README.md), to keep first in any LD_PRELOAD we set."""
    return os.environ.get('LD_PRELOAD', '')


class PrivateLttng:
    """lttng-sessiond of our own; `with PrivateLttng() as lt:` kills it at
    the end. lt.home is a temporary directory (kept when keep=True)."""

    def __init__(self, keep=False, prefix='wperf-ust-'):
        self.keep = keep
        self.home = tempfile.mkdtemp(prefix=prefix, dir='/var/tmp')
        self.as_nobody = os.geteuid() == 0
        if self.as_nobody:
            os.chown(self.home, NOBODY, NOBODY)
        self.pid = None
        self.log = []

    # -- running things as the daemon's user ------------------------------
    def prefix(self):
        if self.as_nobody:
            return ['setpriv', '--reuid=%d' % NOBODY, '--regid=%d' % NOBODY,
                    '--clear-groups', '--']
        return []

    def env(self, extra=None):
        env = dict(os.environ, LTTNG_HOME=self.home, HOME=self.home)
        # meson test points LD_LIBRARY_PATH at the provider's build
        # directory; a traced program gets the provider only as asked.
        env.pop('LD_LIBRARY_PATH', None)
        env.pop('WPERF_UST_PROVIDER', None)
        env.update(extra or {})
        return env

    def run(self, argv, extra_env=None, check=True, timeout=120):
        """Run argv as the daemon's user; the result has .stdout (text)."""
        p = subprocess.run(self.prefix() + list(argv), env=self.env(extra_env),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=timeout, cwd=self.home)
        self.log.append('$ %s\n%s%s' % (' '.join(argv), p.stdout, p.stderr))
        if check and p.returncode != 0:
            raise RuntimeError('%s: exit %d\n%s%s' % (' '.join(argv), p.returncode,
                                                      p.stdout, p.stderr))
        return p

    def lttng(self, *args, **kw):
        return self.run(['lttng'] + list(args), **kw)

    def install(self, path):
        """Copy a file (a program, the provider) where the daemon's user can
        read it; returns the copy's path."""
        bindir = os.path.join(self.home, 'bin')
        os.makedirs(bindir, exist_ok=True)
        if self.as_nobody:
            os.chown(bindir, NOBODY, NOBODY)
        dst = os.path.join(bindir, os.path.basename(path))
        shutil.copy2(path, dst)
        os.chmod(dst, 0o755)
        return dst

    # -- the daemon ------------------------------------------------------------
    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        if not self.keep:
            shutil.rmtree(self.home, ignore_errors=True)
        return False

    def start(self):
        # Under make check's sanitizer pass the daemon gets the ASan/UBSan
        # preload like every other process (it runs fine with it).
        # --daemonize returns once the daemon is ready for commands.
        self.run(['lttng-sessiond', '--daemonize'], timeout=60)
        pidfile = os.path.join(self.home, '.lttng', 'lttng-sessiond.pid')
        with open(pidfile) as f:
            self.pid = int(f.read().strip())

    def stop(self):
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGTERM)
        except ProcessLookupError:
            self.pid = None
            return
        for _ in range(100):            # up to 10 s for it and its consumers
            if not os.path.exists('/proc/%d' % self.pid):
                break
            time.sleep(0.1)
        else:
            os.kill(self.pid, signal.SIGKILL)
        self.pid = None

    # -- a session -------------------------------------------------------------
    def create_session(self, name, output, contexts=('vtid', 'vpid', 'procname'),
                       blocking=True):
        """A session recording wperf:* into `output` (created by LTTng)."""
        self.lttng('create', name, '--output=' + output)
        chan = ['enable-channel', '-u', '--subbuf-size=' + SUBBUF_SIZE,
                '--num-subbuf=' + NUM_SUBBUF]
        if blocking:
            chan.append('--blocking-timeout=inf')
        self.lttng(*chan, CHANNEL)
        self.lttng('enable-event', '-u', '-c', CHANNEL, 'wperf:*')
        args = ['add-context', '-u', '-c', CHANNEL]
        for c in contexts:
            args += ['-t', c]
        self.lttng(*args)

    def traced_env(self, provider=None, how='preload', blocking=True):
        """The environment of a traced program: the provider loaded by
        LD_PRELOAD (how='preload') or by wperf_annotate_load() through
        WPERF_UST_PROVIDER (how='dlopen'), or not at all (provider=None)."""
        env = {'LTTNG_UST_REGISTER_TIMEOUT': '30000'}
        if blocking:
            env['LTTNG_UST_ALLOW_BLOCKING'] = '1'
        preload = sanitizer_preload()
        if provider is not None and how == 'preload':
            preload = preload + ':' + provider if preload else provider
        env['LD_PRELOAD'] = preload
        if provider is not None and how == 'dlopen':
            env['WPERF_UST_PROVIDER'] = provider
        return env

    def run_traced(self, argv, provider=None, how='preload', blocking=True,
                   timeout=300):
        """Run a program (as the daemon's user), hidden from a root session
        daemon when we can. LD_PRELOAD is set through env(1) after setpriv,
        so that it reaches the program and not setpriv: LTTng-UST loaded
        into setpriv makes it abort when it changes user."""
        env = self.traced_env(provider, how, blocking)
        sets = ['%s=%s' % kv for kv in sorted(env.items())]
        cmd = self.prefix() + ['env'] + sets + list(argv)
        hide, note = hide_root_sessiond()
        if note is not None and note not in self.log:
            self.log.append(note)
        if hide is not None:
            cmd = hide + cmd
        p = subprocess.run(cmd, env=self.env(), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, timeout=timeout,
                           cwd=self.home)
        self.log.append('$ %s\n%s%s' % (' '.join(cmd), p.stdout, p.stderr))
        if p.returncode != 0:
            raise RuntimeError('%s: exit %d\n%s%s' % (' '.join(argv), p.returncode,
                                                      p.stdout, p.stderr))
        return p


# A root session daemon's directory: the only thing the tmpfs hides.
RUN_DIR = os.path.realpath('/var/run')
_hide = None


def hide_root_sessiond():
    """(prefix, note): a command prefix that runs a program in a private
    mount namespace with an empty tmpfs on /var/run, so that it cannot
    register with a root session daemon; (None, why) when that is not
    possible (not root, no unshare, not allowed). The sanitizer preload is
    kept away from unshare, sh and mount (env LD_PRELOAD=): only the final
    program gets what its own command sets. Tried once."""
    global _hide
    if _hide is None:
        script = ('mount -t tmpfs -o mode=0755,size=64k wperf-no-root-lttng %s'
                  ' && exec "$@"' % RUN_DIR)
        prefix = ['env', 'LD_PRELOAD=', 'unshare', '--mount', '--propagation',
                  'private', '--', 'sh', '-c', script, 'sh']
        if os.geteuid() != 0 or shutil.which('unshare') is None:
            _hide = (None, 'note: not root or no unshare: traced programs can '
                     'also register with a root session daemon')
        else:
            p = subprocess.run(prefix + ['true'], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            _hide = (prefix, None) if p.returncode == 0 else (
                None, 'note: cannot hide a root session daemon from traced '
                'programs: %s' % p.stdout.strip())
    return _hide


def parse_counters(text, prog):
    """The "PROG: KEY VALUE" lines of a workload: {key: value} (str), with
    'thread' lines gathered in {'threads': {name: tid}}."""
    out = {'threads': {}}
    for line in text.splitlines():
        if not line.startswith(prog + ': '):
            continue
        words = line[len(prog) + 2:].split()
        if words[0] == 'thread' and len(words) == 3:
            out['threads'][words[1]] = int(words[2])
        elif len(words) == 2:
            out[words[0]] = words[1]
    return out


def read_ust_events(trace_dir):
    """Every event of a CTF trace as a dict (name, payload fields, context
    fields), plus the number of events LTTng says it discarded."""
    import bt2

    events, discarded = [], 0
    for msg in bt2.TraceCollectionMessageIterator(trace_dir):
        if isinstance(msg, bt2._DiscardedEventsMessageConst):
            discarded += msg.count or 1
            continue
        if not isinstance(msg, bt2._EventMessageConst):
            continue
        ev = msg.event
        rec = {'name': ev.name, 'payload': {}, 'context': {}}
        if ev.payload_field is not None:
            for k, v in ev.payload_field.items():
                rec['payload'][str(k)] = _plain(v)
        if ev.common_context_field is not None:
            for k, v in ev.common_context_field.items():
                rec['context'][str(k)] = _plain(v)
        events.append(rec)
    return events, discarded


def _plain(v):
    import bt2
    if isinstance(v, bt2._IntegerFieldConst):
        return int(v)
    if isinstance(v, bt2._StringFieldConst):
        return str(v)
    return v
