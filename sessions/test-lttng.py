#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The session profiles loaded into a real lttng-sessiond, recording a real
annotated program, read back with babeltrace2 (python3-bt2).

1. `lttng load wperf` (found by name in $LTTNG_HOME/.lttng/sessions/),
   `lttng start`, the annotated workload ust-provider/workloads/spin-lock
   (3 threads), `lttng stop`: the trace holds exactly the wperf:* events the
   workload counted, each with vtid, vpid and procname, in the profile's
   channel, nothing discarded.
2. `lttng load --input-path=wperf-snapshot.lttng wperf-snapshot
   --override-name --override-url`, `lttng start`, the workload,
   `lttng regenerate statedump`, `lttng snapshot record`: one snapshot
   directory, readable, with the same exact counts.
After each load, `lttng list` (machine interface) must show the profile's
channels as written in the file: buffer sizes, overwrite mode, events
enabled, session not started.

The kernel half. Where lttng-modules is loaded (/proc/lttng exists once a
root session daemon started), the full profiles are loaded and the kernel
trace is checked too (sched_switch with tid/pid/procname, the statedump).
Elsewhere `lttng load` of the full profile fails at the kernel channel; the
test prints "kernel channel not loadable here: lttng-modules unavailable"
with LTTng's own words and goes on with a copy of the profile that it
derives from the real file by removing the KERNEL domain (and validates
against the schema, when xmllint is there).

The private session daemon. A root lttng-sessiond is system-wide: its
sockets are in /var/run/lttng whatever LTTNG_HOME says. So as root the test
re-runs itself in a private mount namespace (unshare(1)) in which
/var/run/lttng and /dev/shm are fresh directories: its sessiond, its lttng
commands and the traced program see only each other, and a session daemon
already running on the machine is neither seen nor disturbed. The daemon
stays root, so it can use the kernel tracer where there is one. As another
user, LTTNG_HOME in a temporary directory is private already (no kernel
tracer then). The daemon is stopped at the end (SIGTERM, then SIGKILL).

Needs lttng-tools, babeltrace2's python3-bt2 and the built workload and
provider. Without them: FAIL under CI=true, else SKIP (77), saying why.
WPERF_KEEP_TRACE=1 keeps the temporary directory (printed).
"""

import importlib.util
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

SKIP = 77
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get('WPERF_SOURCE_ROOT', os.path.join(HERE, '..'))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(SOURCE_ROOT, 'build'))
PROFILES = os.path.join(SOURCE_ROOT, 'sessions')
WORKLOAD = os.path.join(BUILD, 'ust-provider', 'workloads', 'spin-lock')
PROVIDER = os.path.join(BUILD, 'ust-provider', 'libwperf-ust.so.0')
DEBIAN_XSD = '/usr/share/xml/lttng/session.xsd'
MI_NS = {'mi': 'https://lttng.org/xml/ns/lttng-mi'}
IN_NAMESPACE = 'WPERF_SESSIONS_NAMESPACE'
THREADS, ITERATIONS = 3, 2000


class Failed(Exception):
    """A check failed: the message says which, with what was seen."""


def expect(cond, what):
    if not cond:
        raise Failed(what)


def why_not():
    """None when the test can run here, else the reason."""
    for tool in ('lttng', 'lttng-sessiond'):
        if shutil.which(tool) is None:
            return '%s is not installed (Debian package lttng-tools)' % tool
    if os.geteuid() == 0 and not os.environ.get(IN_NAMESPACE):
        if shutil.which('unshare') is None:
            return 'unshare (util-linux) is missing: needed for a private root session daemon'
        p = subprocess.run(['unshare', '--mount', '--propagation', 'private', 'true'],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            return 'cannot make a private mount namespace for our root session daemon: %s' \
                % p.stdout.strip()
    if importlib.util.find_spec('bt2') is None:
        return 'python3-bt2 is not installed (run with /usr/bin/python3)'
    for path, what in ((WORKLOAD, 'the annotated workload'), (PROVIDER, 'the UST provider')):
        if not os.path.isfile(path):
            return '%s %s is not built' % (what, path)
    return None


# ---- the private session daemon ----------------------------------------------

def enter_private_namespace():
    """As root, re-run this script in a new mount namespace (see the top)."""
    if os.geteuid() != 0 or os.environ.get(IN_NAMESPACE):
        return
    env = dict(os.environ, **{IN_NAMESPACE: '1'})
    argv = ['unshare', '--mount', '--propagation', 'private', sys.executable] + sys.argv
    sys.stdout.flush()
    os.execvpe('unshare', argv, env)


def privatise_mounts(tmp):
    """In our namespace: empty /var/run/lttng (the root sessiond's sockets,
    lock and consumers) and /dev/shm (its wait-for-sessiond shared memory)."""
    run = os.path.join(tmp, 'run')
    os.makedirs(run)
    os.makedirs('/var/run/lttng', exist_ok=True)
    for argv in (['mount', '--bind', run, '/var/run/lttng'],
                 ['mount', '-t', 'tmpfs', '-o', 'mode=1777', 'tmpfs', '/dev/shm']):
        p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        expect(p.returncode == 0, '%s: %s' % (' '.join(argv), p.stdout.strip()))


class Lttng:
    """A session daemon of our own and the lttng command talking to it."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.home = os.path.join(tmp, 'home')
        os.makedirs(os.path.join(self.home, '.lttng', 'sessions'))
        self.env = dict(os.environ, LTTNG_HOME=self.home, HOME=self.home)
        self.pidfile = os.path.join(tmp, 'sessiond.pid')
        self.pid = None

    def start(self):
        p = subprocess.run(['lttng-sessiond', '--daemonize', '--pidfile=' + self.pidfile],
                           env=self.env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        expect(p.returncode == 0, 'lttng-sessiond --daemonize: exit %d: %s' % (p.returncode, p.stdout))
        with open(self.pidfile) as f:
            self.pid = int(f.read().strip())
        # --daemonize returns once the daemon is ready; check that it answers.
        p = self.run('list')
        expect(p.returncode == 0, 'lttng list does not reach our sessiond: %s' % p.stdout)
        print('our lttng-sessiond: pid %d, LTTNG_HOME=%s' % (self.pid, self.home))

    def stop(self):
        if self.pid is None:
            return
        try:
            os.kill(self.pid, signal.SIGTERM)
            for _ in range(100):          # up to 10 s, consumer daemons included
                if not os.path.exists('/proc/%d' % self.pid):
                    break
                time.sleep(0.1)
            else:
                os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.pid = None

    def run(self, *args):
        """lttng ARGS; the result has .returncode and .stdout (with stderr)."""
        p = subprocess.run(['lttng'] + list(args), env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=120)
        print('$ lttng %s  -> exit %d' % (' '.join(args), p.returncode))
        for line in p.stdout.strip().splitlines():
            print('  ' + line)
        return p

    def must(self, *args):
        p = self.run(*args)
        expect(p.returncode == 0, 'lttng %s failed (exit %d)' % (' '.join(args), p.returncode))
        return p

    def mi_session(self, name):
        """The <session> of `lttng --mi xml list NAME`."""
        p = subprocess.run(['lttng', '--mi', 'xml', 'list', name], env=self.env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        expect(p.returncode == 0, 'lttng --mi xml list %s: %s' % (name, p.stderr))
        s = ET.fromstring(p.stdout).find('.//mi:sessions/mi:session', MI_NS)
        expect(s is not None, 'lttng --mi xml list %s shows no session' % name)
        return s


# ---- the profiles ---------------------------------------------------------------

def without_kernel(src, dst):
    """Write `src` minus its KERNEL domain to `dst`: the profile a machine
    without lttng-modules can load. Derived, never written by hand."""
    tree = ET.parse(src)
    domains = tree.getroot().find('./session/domains')
    kernel = [d for d in domains if d.findtext('type') == 'KERNEL']
    expect(len(kernel) == 1, '%s: expected one KERNEL domain' % src)
    domains.remove(kernel[0])
    tree.write(dst, encoding='UTF-8', xml_declaration=True)
    if shutil.which('xmllint') and os.path.isfile(DEBIAN_XSD):
        p = subprocess.run(['xmllint', '--noout', '--schema', DEBIAN_XSD, dst],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        expect(p.returncode == 0, 'the UST-only copy %s is not valid: %s' % (dst, p.stdout))
    print('derived %s from %s: KERNEL domain removed' % (dst, src))


def kernel_tracer_loaded():
    return os.path.isdir('/proc/lttng')


def load(lt, profile, name, load_args, ust_only_path):
    """Load `profile` (full), or else its UST-only copy written at
    `ust_only_path`, with `lttng load LOAD_ARGS`. Returns True when the
    kernel half is loaded."""
    shutil.copy(profile, ust_only_path)        # the real file first
    p = lt.run('load', *load_args)
    if loaded(lt, name, p):
        print('full profile %s loaded: the kernel channel is tested too' % name)
        return True
    expect(not kernel_tracer_loaded(),
           'lttng-modules is loaded (/proc/lttng) but the full profile %s did not load' % name)
    say_why_no_kernel(p)
    # A failed load may leave the session half made: remove it.
    if session_listed(lt, name):
        lt.must('destroy', name)
    without_kernel(profile, ust_only_path)
    p = lt.run('load', *load_args)
    expect(loaded(lt, name, p), 'the UST-only copy of %s did not load' % name)
    return False


def say_why_no_kernel(p):
    """Say, rather than skip silently, why the kernel half is not tested;
    with LTTng's own words from the failed `lttng load` (result p)."""
    said = [line for line in p.stdout.splitlines() if line.startswith('Error:')]
    status = 'killed by SIGPIPE' if p.returncode in (-13, 141) else 'exit %d' % p.returncode
    if os.geteuid() != 0:
        why = 'not root: a session daemon of uid %d has no kernel tracer' % os.geteuid()
    else:
        why = 'lttng-modules unavailable: no /proc/lttng after the root sessiond started'
    print('kernel channel not loadable here: %s (lttng load: %s%s)'
          % (why, status, ', ' + said[0] if said else ''))


def session_listed(lt, name):
    return subprocess.run(['lttng', 'list', name], env=lt.env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode == 0


def loaded(lt, name, p):
    """Did `lttng load` (result p) work? Not its exit status alone: lttng
    2.13 exits 0 from `lttng load NAME` after "Error: Failed to load session"
    (the name is looked up in several directories), and is killed by SIGPIPE
    (141) when the session daemon drops the connection on a kernel channel
    it cannot make. So: exit 0, no "Error:" line, and the session listed."""
    return (p.returncode == 0 and not re.search(r'^Error:', p.stdout, re.M)
            and session_listed(lt, name))


def profile_channels(profile, with_kernel):
    """{channel name: its <channel> element} of a profile file."""
    out = {}
    for dom in ET.parse(profile).getroot().findall('./session/domains/domain'):
        if dom.findtext('type') == 'KERNEL' and not with_kernel:
            continue
        for ch in dom.findall('./channels/channel'):
            out[ch.findtext('name')] = ch
    return out


def mi(element, tag):
    """The text of child `tag` of an element of lttng's MI output."""
    return element.findtext('mi:' + tag, namespaces=MI_NS)


def check_loaded(lt, name, profile, with_kernel, snapshot):
    """What sessiond holds is what the file says (lttng list, MI)."""
    s = lt.mi_session(name)
    expect(mi(s, 'enabled') == 'false', '%s is started right after load' % name)
    expect(mi(s, 'snapshot_mode') == ('1' if snapshot else '0'),
           '%s: snapshot_mode %s' % (name, mi(s, 'snapshot_mode')))
    want = profile_channels(profile, with_kernel)
    got = {mi(c, 'name'): c for c in s.findall('.//mi:channel', MI_NS)}
    expect(set(got) == set(want), '%s: channels %s, profile has %s' % (name, sorted(got), sorted(want)))
    for cname, ch in want.items():
        attrs = got[cname].find('mi:attributes', MI_NS)
        for tag in ('overwrite_mode', 'subbuffer_size', 'subbuffer_count'):
            expect(mi(attrs, tag) == ch.findtext(tag), '%s/%s: %s is %s, the profile says %s'
                   % (name, cname, tag, mi(attrs, tag), ch.findtext(tag)))
        events = {mi(e, 'name'): mi(e, 'enabled') for e in got[cname].findall('.//mi:event', MI_NS)}
        wanted = {e.findtext('name') for e in ch.findall('./events/event')}
        expect(set(events) == wanted, '%s/%s: events %s, the profile has %s'
               % (name, cname, sorted(events), sorted(wanted)))
        expect(set(events.values()) == {'true'}, '%s/%s: disabled events: %s' % (
            name, cname, sorted(k for k, v in events.items() if v != 'true')))
    print('%s as loaded matches %s: channels %s, sizes, modes, events enabled, not started'
          % (name, os.path.basename(profile), ', '.join(sorted(want))))


# ---- the workload and its trace ------------------------------------------------

def run_workload(lt):
    """Run spin-lock with the provider; its own counters (pid, lock, threads,
    spins, items)."""
    env = dict(lt.env, WPERF_UST_PROVIDER=PROVIDER, LTTNG_UST_REGISTER_TIMEOUT='30000')
    argv = [WORKLOAD, '--threads', str(THREADS), '--iterations', str(ITERATIONS)]
    p = subprocess.run(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, timeout=300)
    print('$ %s  -> exit %d' % (' '.join(argv), p.returncode))
    expect(p.returncode == 0, 'the workload failed: %s' % p.stdout)
    counters = {'threads': {}}
    for line in p.stdout.splitlines():
        words = line.split()
        if len(words) == 4 and words[:2] == ['spin-lock:', 'thread']:
            counters['threads'][int(words[3])] = words[2]
        elif len(words) == 3 and words[0] == 'spin-lock:':
            counters[words[1]] = words[2]
    expect(counters.get('provider') == 'loaded', 'the provider is not loaded: %s' % p.stdout)
    expect(len(counters['threads']) == THREADS, 'expected %d threads: %s' % (THREADS, p.stdout))
    print('workload: pid %s, lock %s, threads %s, spins %s, items %s' % (
        counters['pid'], counters['lock'], counters['threads'], counters['spins'], counters['items']))
    return counters


def plain_fields(struct):
    """A bt2 structure field as a dict of Python ints and strs."""
    import bt2

    out = {}
    for k, v in (struct.items() if struct is not None else []):
        if isinstance(v, bt2._StringFieldConst):
            v = str(v)
        elif isinstance(v, bt2._IntegerFieldConst):
            v = int(v)
        out[str(k)] = v
    return out


def read_trace(path):
    """(events, discarded) of every CTF trace under `path`; an event is
    (name, payload dict, common context dict)."""
    import bt2

    events, discarded = [], 0
    for msg in bt2.TraceCollectionMessageIterator(path):
        if isinstance(msg, bt2._DiscardedEventsMessageConst):
            discarded += msg.count or 1
        elif isinstance(msg, bt2._EventMessageConst):
            ev = msg.event
            events.append((ev.name, plain_fields(ev.payload_field),
                           plain_fields(ev.common_context_field)))
    return events, discarded


def check_ust_trace(trace, counters):
    """The wperf:* events of the trace are exactly the workload's."""
    uid_dir = os.path.join(trace, 'ust', 'uid', str(os.geteuid()), '64-bit')
    streams = sorted(f for f in os.listdir(uid_dir) if re.fullmatch(r'wperf_ust_\d+', f)) \
        if os.path.isdir(uid_dir) else []
    expect(streams, 'no wperf_ust_<cpu> stream files in %s' % uid_dir)
    events, discarded = read_trace(uid_dir)
    expect(discarded == 0, '%d UST events discarded' % discarded)
    pid, lock = int(counters['pid']), int(counters['lock'], 16)
    mine = [e for e in events if e[2].get('vpid') == pid]
    names = {}
    for name, payload, ctx in mine:
        names[name] = names.get(name, 0) + 1
        expect({'vtid', 'vpid', 'procname'} <= set(ctx), '%s has contexts %s' % (name, sorted(ctx)))
        expect(ctx['vtid'] in counters['threads'], '%s from vtid %d, not a worker' % (name, ctx['vtid']))
        expect(ctx['procname'] == counters['threads'][ctx['vtid']], '%s: procname %r for vtid %d (%s)'
               % (name, ctx['procname'], ctx['vtid'], counters['threads'][ctx['vtid']]))
        if name in ('wperf:before_spin', 'wperf:after_spin'):
            expect(payload.get('lock') == lock, '%s: lock %s, expected %#x' % (name, payload.get('lock'), lock))
    spins, items = int(counters['spins']), int(counters['items'])
    expect(names == {'wperf:before_spin': spins, 'wperf:after_spin': spins, 'wperf:progress': items},
           'events of pid %d: %s; the workload counted %d spins, %d items' % (pid, names, spins, items))
    vtids = {ctx['vtid'] for _, _, ctx in mine}
    expect(vtids == set(counters['threads']), 'vtids %s, threads %s' % (sorted(vtids), counters['threads']))
    print('UST trace %s (streams %s): %s, every one with vtid/vpid/procname of its thread, '
          '0 discarded' % (uid_dir, ', '.join(streams), names))


def check_kernel_trace(trace):
    """Where the kernel channel loaded: scheduler events with our contexts
    and the statedump."""
    events, _ = read_trace(os.path.join(trace, 'kernel'))
    switches = [e for e in events if e[0] == 'sched_switch']
    expect(switches, 'no sched_switch in the kernel trace')
    expect({'tid', 'pid', 'procname'} <= set(switches[0][2]),
           'sched_switch contexts: %s' % sorted(switches[0][2]))
    for name in ('lttng_statedump_start', 'lttng_statedump_process_state', 'lttng_statedump_end'):
        expect(any(e[0] == name for e in events), 'no %s in the kernel trace' % name)
    print('kernel trace: %d events, %d sched_switch with tid/pid/procname, statedump present'
          % (len(events), len(switches)))


# ---- the two scenarios ----------------------------------------------------------

def test_wperf(lt, tmp):
    """lttng load wperf (by name), start, workload, stop, read."""
    profile = os.path.join(PROFILES, 'wperf.lttng')
    trace = os.path.join(tmp, 'trace')
    installed = os.path.join(lt.home, '.lttng', 'sessions', 'wperf.lttng')
    kernel = load(lt, profile, 'wperf', ['wperf', '--override-url=file://' + trace], installed)
    check_loaded(lt, 'wperf', profile, kernel, snapshot=False)
    lt.must('start', 'wperf')
    counters = run_workload(lt)
    lt.must('stop', 'wperf')
    lt.must('destroy', 'wperf')
    check_ust_trace(trace, counters)
    if kernel:
        check_kernel_trace(trace)


def test_snapshot(lt, tmp):
    """lttng load wperf-snapshot (file, new name), start, workload,
    regenerate statedump, snapshot record, read."""
    profile = os.path.join(PROFILES, 'wperf-snapshot.lttng')
    out = os.path.join(tmp, 'snapshots')
    copy = os.path.join(tmp, 'wperf-snapshot.lttng')
    name = 'wperf-flight'
    args = ['--input-path=' + copy, 'wperf-snapshot', '--override-name=' + name,
            '--override-url=file://' + out]
    kernel = load(lt, profile, name, args, copy)
    check_loaded(lt, name, profile, kernel, snapshot=True)
    outputs = lt.must('snapshot', 'list-output', '--session=' + name).stdout
    expect(out in outputs, 'the snapshot output is not %s: %s' % (out, outputs))
    lt.must('start', name)
    counters = run_workload(lt)
    lt.must('regenerate', 'statedump', '--session=' + name)
    lt.must('snapshot', 'record', '--session=' + name)
    lt.must('stop', name)
    lt.must('destroy', name)
    snaps = sorted(os.listdir(out)) if os.path.isdir(out) else []
    expect(len(snaps) == 1 and snaps[0].startswith('snapshot-1-'),
           'expected one snapshot-1-* directory in %s: %s' % (out, snaps))
    check_ust_trace(os.path.join(out, snaps[0]), counters)
    if kernel:
        check_kernel_trace(os.path.join(out, snaps[0]))


def main():
    reason = why_not()
    if reason:
        print('%s: %s' % ('FAIL' if IN_CI else 'SKIP', reason))
        return 1 if IN_CI else SKIP
    enter_private_namespace()
    # meson's timeout sends SIGTERM: still stop our daemon (finally below).
    signal.signal(signal.SIGTERM, lambda *_: sys.exit('FAIL: terminated'))
    tmp = tempfile.mkdtemp(prefix='wperf-sessions-', dir='/var/tmp')
    keep = os.environ.get('WPERF_KEEP_TRACE') == '1'
    lt = Lttng(tmp)
    try:
        if os.geteuid() == 0:
            privatise_mounts(tmp)
        lt.start()
        test_wperf(lt, tmp)
        test_snapshot(lt, tmp)
    except (Failed, subprocess.TimeoutExpired) as e:
        print('FAIL: %s' % e)
        return 1
    finally:
        lt.stop()
        if keep:
            print('kept %s' % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print('OK: wperf and wperf-snapshot load, record and read back')
    return 0


if __name__ == '__main__':
    sys.exit(main())
