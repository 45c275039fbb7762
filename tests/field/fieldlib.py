# SPDX-License-Identifier: MIT
"""The field suite's machinery: start a real server and its load under
`wperf record`, measure the truth from outside, stop everything.

Owns: the ground-truth sampler (per-thread /proc schedstat and state,
/proc/diskstats), the run of one case (record, report, judge), the
classification of a report's first finding into a verdict, and the cleanup
that leaves nothing running. The cases themselves are in cases.py; the rule
that turns the truth into an expected verdict is in README.md and
expected() below.

Why from outside: the truth must not come from wperf. /proc/PID/task/TID/
schedstat gives each thread's time on a CPU and time waiting on a run queue
(the kernel's own sched_info accounting); its lifetime minus both is its
off-CPU wait, split into disk-like (state D) and other (state S) by the
states sampled from /proc/PID/task/TID/stat. The disk's busy time is
/proc/diskstats' io_ticks.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get('WPERF_SOURCE_ROOT', os.path.join(HERE, '..', '..'))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(SOURCE_ROOT, 'build'))
WPERF = os.path.join(BUILD, 'tools', 'wperf')
CLK_TCK = os.sysconf('SC_CLK_TCK')

# The poll period of the sampler: fast enough to see the states of threads
# that live seconds, slow enough to cost little on two CPUs (one scan of
# the tracked threads takes ~1 ms).
POLL_S = 0.05
# New processes are looked for every DISCOVER_S (a scan of all of /proc).
DISCOVER_S = 0.2


# ---------------------------------------------------------------- /proc ----

def read(path):
    try:
        # Other users' processes may have any bytes in their names.
        with open(path, errors='surrogateescape') as f:
            return f.read()
    except OSError:
        return None


def stat_fields(text):
    """/proc/.../stat: (comm, [fields after comm]) or None. The comm is in
    parentheses and may hold spaces or parentheses itself."""
    if not text:
        return None
    lp, rp = text.find('('), text.rfind(')')
    return text[lp + 1:rp], text[rp + 2:].split()


def uptime_s():
    return float(read('/proc/uptime').split()[0])


def ppid_map():
    """{pid: ppid} of every process now."""
    m = {}
    for d in os.listdir('/proc'):
        if d.isdigit():
            st = stat_fields(read('/proc/%s/stat' % d))
            if st:
                m[int(d)] = int(st[1][1])
    return m


def descendants(root, pmap=None):
    """root and every process below it now."""
    pmap = pmap if pmap is not None else ppid_map()
    kids = {}
    for p, pp in pmap.items():
        kids.setdefault(pp, []).append(p)
    out, todo = [], [root]
    while todo:
        p = todo.pop()
        if p in pmap or p == root:
            out.append(p)
        todo.extend(kids.get(p, []))
    return out


def disk_of(path):
    """The whole-disk name (vda, sda, nvme0n1) holding path, from sysfs."""
    dev = os.stat(path).st_dev
    sys_path = os.path.realpath('/sys/dev/block/%d:%d' % (os.major(dev), os.minor(dev)))
    if os.path.exists(os.path.join(sys_path, 'partition')):
        sys_path = os.path.dirname(sys_path)
    return os.path.basename(sys_path)


def io_ticks_ms(disk):
    for line in read('/proc/diskstats').splitlines():
        f = line.split()
        if f[2] == disk:
            return int(f[12])
    return 0


def pid1_cpu_ns():
    """CPU time of PID 1's threads (this machine's init has busy
    tokio-rt-worker threads: part of what "quiet" means here)."""
    tot = 0
    try:
        tasks = os.listdir('/proc/1/task')
    except OSError:
        return 0
    for t in tasks:
        ss = read('/proc/1/task/%s/schedstat' % t)
        if ss:
            tot += int(ss.split()[0])
    return tot


def cpu_times():
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    f = [int(x) for x in read('/proc/stat').splitlines()[0].split()[1:]]
    idle = f[3] + f[4]
    return sum(f) - idle, sum(f)


def cpus_busy(seconds=3.0):
    """The share of all CPUs' time that was busy over the next `seconds`."""
    b0, t0 = cpu_times()
    time.sleep(seconds)
    b1, t1 = cpu_times()
    return (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0


# -------------------------------------------------------------- sampler ----

class ThreadTruth:
    """One thread as seen from outside."""
    __slots__ = ('pid', 'tid', 'comm', 'start_s', 'last_s', 'run_ns', 'rq_ns',
                 'states', 'pcomm')

    def __init__(self, pid, tid, comm, pcomm, start_s):
        self.pid, self.tid, self.comm, self.pcomm = pid, tid, comm, pcomm
        self.start_s = start_s
        self.last_s = start_s
        self.run_ns = self.rq_ns = 0
        self.states = {}

    @property
    def life_ns(self):
        return max(0, int((self.last_s - self.start_s) * 1e9))

    def split(self):
        """running, runnable, off-CPU in D, off-CPU otherwise (ns)."""
        off = max(0, self.life_ns - self.run_ns - self.rq_ns)
        waits = {s: n for s, n in self.states.items() if s not in 'R'}
        nw = sum(waits.values())
        d = off * waits.get('D', 0) / nw if nw else 0
        return self.run_ns, self.rq_ns, int(d), int(off - d)


class Sampler(threading.Thread):
    """Polls every thread of root_pid's process tree (root_pid read from
    pidfile once the driver writes it) until stop()."""

    def __init__(self, pidfile, disk):
        super().__init__(daemon=True)
        self.pidfile, self.disk = pidfile, disk
        self.threads = {}
        self.halt = threading.Event()
        self.t0 = self.t1 = None
        self.io0 = self.io1 = 0
        self.cpu0 = self.cpu1 = (0, 0)
        self.root = None
        self.init0 = self.init1 = 0

    def stop(self):
        self.halt.set()
        self.join(timeout=10)

    def run(self):
        while not self.halt.is_set() and self.root is None:
            txt = read(self.pidfile)
            if txt and txt.strip():
                self.root = int(txt.split()[0])
            else:
                time.sleep(0.01)
        if self.root is None:
            return
        self.t0, self.io0, self.cpu0 = uptime_s(), io_ticks_ms(self.disk), cpu_times()
        self.init0 = pid1_cpu_ns()
        procs, next_discover = [self.root], 0
        while not self.halt.is_set():
            now = time.monotonic()
            if now >= next_discover:
                procs = descendants(self.root)
                next_discover = now + DISCOVER_S
                if not procs:
                    break
            t = uptime_s()
            for pid in procs:
                self.poll_process(pid, t)
            self.halt.wait(POLL_S)
        self.t1, self.io1, self.cpu1 = uptime_s(), io_ticks_ms(self.disk), cpu_times()
        self.init1 = pid1_cpu_ns()

    def poll_process(self, pid, t):
        try:
            tids = os.listdir('/proc/%d/task' % pid)
        except OSError:
            return
        pst = stat_fields(read('/proc/%d/stat' % pid))
        pcomm = pst[0] if pst else '?'
        for tid in tids:
            base = '/proc/%d/task/%s/' % (pid, tid)
            st, ss = stat_fields(read(base + 'stat')), read(base + 'schedstat')
            if not st or not ss:
                continue
            tid = int(tid)
            th = self.threads.get(tid)
            if th is None:
                start = int(st[1][19]) / CLK_TCK      # starttime, s since boot
                th = self.threads[tid] = ThreadTruth(pid, tid, st[0], pcomm,
                                                     max(start, self.t0))
            run_ns, rq_ns = (int(x) for x in ss.split()[:2])
            th.run_ns, th.rq_ns, th.last_s, th.comm = run_ns, rq_ns, t, st[0]
            # The last name seen: a child of the driver first sampled
            # between its fork and its exec is the program it became.
            th.pcomm = pcomm
            state = st[1][0]
            th.states[state] = th.states.get(state, 0) + 1

    def summary(self):
        """The measured truth, as a dict (see README.md for each key)."""
        wall = max(1e-9, (self.t1 or uptime_s()) - (self.t0 or 0))
        busy = self.cpu1[0] - self.cpu0[0]
        total = max(1, self.cpu1[1] - self.cpu0[1])
        by_comm = {}
        for th in self.threads.values():
            r, q, d, s = th.split()
            c = by_comm.setdefault(th.pcomm, dict(threads=0, active=0, life=0, run=0, rq=0,
                                                 D=0, S=0))
            c['threads'] += 1
            # Active: asked for a CPU at least 2 % of the time it lived;
            # the others (idle helper threads) count in neither sum.
            if th.life_ns and (r + q) >= 0.02 * th.life_ns:
                c['active'] += 1
                for k, v in (('life', th.life_ns), ('run', r), ('rq', q), ('D', d), ('S', s)):
                    c[k] += v
        ncpu = os.cpu_count() or 1
        ours = sum(th.run_ns for th in self.threads.values())
        return dict(wall_s=wall, disk=self.disk, ncpu=ncpu,
                    pid1_cpu=(self.init1 - self.init0) / 1e9 / wall / ncpu,
                    focus_cpu=ours / 1e9 / wall / ncpu,
                    disk_busy=(self.io1 - self.io0) / 1000.0 / wall,
                    machine_cpu=busy / total, by_comm=by_comm)


# ----------------------------------------------------------- processes ----

def kill_tree(pids, sig=signal.SIGKILL):
    for p in pids:
        try:
            os.kill(p, sig)
        except OSError:
            pass


def kill_session(popen, extra_pids=(), grace=8):
    """End a process started with start_new_session=True, all of its
    process group, every process still below it, and extra_pids (servers
    that wrote a pid file); SIGTERM, then SIGKILL after `grace` seconds
    (time for `wperf record` to stop its tracing session cleanly)."""
    below = set(descendants(popen.pid)) if popen.poll() is None else set()
    below |= set(p for p in extra_pids if p)
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(popen.pid, sig)
        except OSError:
            pass
        kill_tree(below, sig)
        deadline = time.monotonic() + (grace if sig == signal.SIGTERM else 3)
        while time.monotonic() < deadline:
            alive = [p for p in below if os.path.exists('/proc/%d' % p)
                     and (stat_fields(read('/proc/%d/stat' % p)) or ('', ['Z']))[1][0] != 'Z']
            if popen.poll() is not None and not alive:
                return
            time.sleep(0.05)
    popen.wait(timeout=5)


def pidfile_pids(d):
    """Pids the drivers and servers wrote to d/*.pid that still name one of
    our processes: its command line holds d (a pid reused by another
    program is left alone)."""
    out = []
    for name in os.listdir(d) if os.path.isdir(d) else []:
        if name.endswith('.pid'):
            txt = read(os.path.join(d, name)) or ''
            for p in (int(x) for x in txt.split() if x.isdigit()):
                if d in (read('/proc/%d/cmdline' % p) or ''):
                    out.append(p)
    return out


def own_pids(d):
    """Every process whose command line holds d: what a case started and
    might have left (a server whose driver was killed)."""
    out = []
    for p in os.listdir('/proc'):
        if p.isdigit() and int(p) != os.getpid() and d in (read('/proc/%s/cmdline' % p) or ''):
            out.append(int(p))
    return out


class Hog:
    """stress-ng --cpu N in its own session, stopped on exit."""

    def __init__(self, n):
        self.n, self.p = n, None

    def __enter__(self):
        if self.n:
            self.p = subprocess.Popen(['stress-ng', '--cpu', str(self.n), '--quiet'],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                      start_new_session=True)
            time.sleep(0.5)     # its workers are forked and spinning
        return self

    def __exit__(self, *exc):
        if self.p:
            kill_session(self.p)


# ------------------------------------------------------------- verdicts ----

CPU_CLASSES = ('too_few_cpus', 'cpu', 'cpu_bound')
# The class of a knot with a disk or NIC member whose weight lies in its
# devices (wperf-analysis(7), Classification); any other class the report
# gives such a knot says its threads' waits on each other weigh more.
DEVICE_CLASSES = ('blocking_io',)


def first_finding(js):
    """The report's first finding, summarised: (verdict, kind, member
    names, member comms). verdict: 'disk' (a disk among its members),
    'cpu' (a cpu vertex among them, or classified as too few CPUs), 'nic',
    'work' (a thread sink bounded by its own work), 'timer', 'unseen',
    'threads' (a knot of threads only, or one whose class says its threads'
    waits on each other outweigh its devices'), or 'none': a device member
    names the device only when the report classifies the knot as the
    device's (DEVICE_CLASSES), so the verdict is what the report says, not
    who happens to be a member. When the report leads with the CPUs (JSON
    cpu.first, wperf-report(7)), that is the first finding: verdict 'cpu',
    kind 'cpu', its members the most runnable."""
    cpu = js.get('cpu') or {}
    if cpu.get('first'):
        byid = {v['id']: v for v in js['vertices']}
        mem = [byid[m] for m in cpu.get('most_runnable', [])]
        return dict(verdict='cpu', kind='cpu', cls='too_few_cpus',
                    names=[v['name'] for v in mem],
                    comms=sorted(set(v.get('comm', v['kind']) for v in mem)))
    if not js['knots']:
        return dict(verdict='none', kind=None, names=[], comms=[], cls=None)
    k = js['knots'][0]
    byid = {v['id']: v for v in js['vertices']}
    mem = [byid[m] for m in k['members']]
    kinds = set(v['kind'] for v in mem)
    cls = (k.get('classification') or {}).get('class')
    if 'cpu' in kinds or cls in CPU_CLASSES:
        verdict = 'cpu'
    elif kinds & {'disk', 'nic'} and cls and cls not in DEVICE_CLASSES:
        verdict = 'threads'
    elif 'disk' in kinds:
        verdict = 'disk'
    elif 'nic' in kinds:
        verdict = 'nic'
    elif k['kind'] == 'sink':
        verdict = k.get('limit', 'work')
    else:
        verdict = 'threads'
    return dict(verdict=verdict, kind=k['kind'], cls=cls,
                names=[v['name'] for v in mem],
                comms=sorted(set(v.get('comm', v['kind']) for v in mem)))


def path_to_first(js):
    """How the focus reaches the first finding: the widest path (the one
    whose lightest edge is heaviest) from a focus vertex to a member, as
    ["a -> b 1.23 s", ...]; [] when a focus vertex is a member. The edge
    that misled a wrong answer is on it."""
    import heapq
    if not js['knots'] or (js.get('cpu') or {}).get('first'):
        return []          # no knot, or the CPUs lead: no path to show
    byid = {v['id']: v['name'] for v in js['vertices']}
    members = set(js['knots'][0]['members'])
    out = {}
    for e in js['edges']:
        out.setdefault(e['from'], []).append(e)
    best, prev = {}, {}
    heap = [(-float('inf'), f) for f in js['focus']]
    for f in js['focus']:
        best[f] = float('inf')
    while heap:
        w, v = heapq.heappop(heap)
        w = -w
        if w < best.get(v, -1):
            continue
        if v in members:
            path = []
            while v in prev:
                e = prev[v]
                path.append('%s -> %s %.3f s' % (byid[e['from']], byid[e['to']],
                                                  e['weight_ns'] / 1e9))
                v = e['from']
            return path[::-1]
        for e in out.get(v, []):
            nw = min(w, e['weight_ns'])
            if nw > best.get(e['to'], -1):
                best[e['to']], prev[e['to']] = nw, e
                heapq.heappush(heap, (-nw, e['to']))
    return ['(no path from the focus)']


# ----------------------------------------------------------------- run ----

def field_root():
    """Where cases keep their data: under the build tree."""
    d = os.path.join(BUILD, 'field-data')
    os.makedirs(d, exist_ok=True)
    return d


def data_mount():
    """The filesystem and device the cases' files are on (findmnt): a
    verdict about the disk is read against it."""
    d = os.path.join(BUILD, 'field-data')
    try:
        q = subprocess.run(['findmnt', '-no', 'SOURCE,FSTYPE,OPTIONS', '-T', d],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=10)
        return q.stdout.strip()
    except (OSError, subprocess.SubprocessError) as e:
        return 'unknown (%s)' % e


def load_window(tmp):
    """The load's window, (begin, end) in ns of CLOCK_REALTIME: the driver
    writes "begin NS" and "end NS" (`date +%s%N`) to DIR/window around the
    load whose throughput the truth measures. The report is judged on that
    time, not on the server's start-up and the driver's setup and teardown
    (a large part of a two-second run). A driver that wrote no complete
    window is an error: judged over the whole recording, the setup's
    children lead some reports (tests/field/README.md)."""
    marks = {}
    for line in (read(os.path.join(tmp, 'window')) or '').splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            marks[parts[0]] = int(parts[1])
    if 'begin' not in marks or 'end' not in marks or marks['end'] <= marks['begin']:
        raise RuntimeError('%s/window: the driver wrote no complete load window '
                           '("begin NS" and "end NS", `date +%%s%%N`): write it around the load'
                           % tmp)
    return marks['begin'], marks['end']


def window_args(window):
    """`wperf report` options that count the load's window only."""
    return ['--begin', '%d.%09d' % divmod(window[0], 10**9),
            '--end', '%d.%09d' % divmod(window[1], 10**9)]


# How far the report's analysed range may lie from the window: the trace's
# clock is not CLOCK_REALTIME itself, but its offset to it (the trace's
# metadata), measured at the recording's start; NTP slewing moves them
# apart by microseconds.
WINDOW_SLACK_NS = 5 * 10**6


def check_window(js, window):
    """The report analysed the load's window, not the whole recording: its
    time_range must be the window (clipped to the trace)."""
    tr = js.get('time_range') or {}
    begin, end = tr.get('begin_ns'), tr.get('end_ns')
    if (begin is None or end is None or begin < window[0] - WINDOW_SLACK_NS
            or end > window[1] + WINDOW_SLACK_NS):
        raise RuntimeError('the report analysed %s to %s, not the load\'s window %d to %d'
                           % (begin, end, window[0], window[1]))


def run_case(case, hog=0, keep=False, log=print):
    """Prepare case, record its driver with `wperf record` while sampling
    from outside, stop everything, report with wperf's defaults. Returns a
    dict: truth, expected (verdict, members), found (first finding), right
    (bool), text (the report's first lines), stats (the load's own)."""
    tmp = tempfile.mkdtemp(prefix='%s-%s-' % (case.name, 'loaded' if hog else 'quiet'),
                           dir=field_root())
    rec = None
    try:
        case.prepare(tmp)
        trace = os.path.join(tmp, 'trace')
        pidfile = os.path.join(tmp, 'driver.pid')
        sampler = Sampler(pidfile, disk_of(tmp))
        with Hog(hog):
            sampler.start()
            rec = subprocess.Popen([WPERF, 'record', '-o', trace, '--', 'bash',
                                    case.driver(), tmp],
                                   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                   text=True, start_new_session=True)
            try:
                out, _ = rec.communicate(timeout=case.timeout)
            except subprocess.TimeoutExpired:
                kill_session(rec, pidfile_pids(tmp))
                out, _ = rec.communicate()
                raise RuntimeError('%s: timed out after %d s:\n%s'
                                   % (case.name, case.timeout, out[-3000:]))
            finally:
                sampler.stop()
        if rec.returncode != 0:
            raise RuntimeError('%s: wperf record failed (%d):\n%s'
                               % (case.name, rec.returncode, out[-3000:]))
        truth = sampler.summary()
        stats = case.stats(tmp, out)
        window = load_window(tmp)
        js_path, txt_path = os.path.join(tmp, 'r.json'), os.path.join(tmp, 'r.txt')
        for fmt, path in (('json', js_path), ('text', txt_path)):
            q = subprocess.run([WPERF, 'report', trace, '--format', fmt, '--output', path]
                               + window_args(window),
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=120)
            if q.returncode != 0:
                raise RuntimeError('wperf report failed:\n' + q.stdout[-3000:])
        with open(js_path) as f:
            js = json.load(f)
        check_window(js, window)
        with open(txt_path) as f:
            text = f.read()
        expected = case.expected(truth)
        found = first_finding(js)
        found['path'] = path_to_first(js)
        # What comes next: after the CPUs, the first two knots or sinks.
        skip = 0 if found['kind'] == 'cpu' else 1
        found['second'] = [first_finding(dict(js, knots=js['knots'][i:], cpu=None))['names'][:4]
                           for i in (skip, skip + 1) if len(js['knots']) > i]
        right, why = judge(expected, found)
        verdict_right = (None if expected['verdict'] is None
                         else found['verdict'] in expected['accept'])
        return dict(case=case.name, loaded=bool(hog), truth=truth, stats=stats,
                    expected=expected, found=found, right=right, why=why,
                    verdict_right=verdict_right,
                    text=text, dir=tmp)
    finally:
        if rec is not None and rec.poll() is None:
            kill_session(rec, pidfile_pids(tmp))
        kill_tree(set(pidfile_pids(tmp)) | set(own_pids(tmp)))
        case.cleanup(tmp)
        if not keep and not os.environ.get('WPERF_KEEP_TRACE'):
            shutil.rmtree(tmp, ignore_errors=True)
        elif keep or os.environ.get('WPERF_KEEP_TRACE'):
            log('kept %s' % tmp)


def holds(found, name):
    """Is a member of the finding the process `name` (or the disk, 'disk')?
    Its comm, or for a merged vertex its name ('mariadbd*', 'process
    mariadbd (123)', 'mariadbd-pool') starting with or naming it."""
    if name in found['comms']:
        return True
    return any(re.match(r'(process )?%s\b' % re.escape(name), n) for n in found['names'])


def judge(expected, found):
    """Does the first finding say what the truth says? (bool, why)"""
    if expected['verdict'] is None:
        return None, 'the truth is undecided: ' + expected['why']
    if found['verdict'] not in expected['accept']:
        return False, 'verdict %s (%s %s), expected %s (%s)' % (
            found['verdict'], found['kind'], found['names'][:6],
            '/'.join(expected['accept']), expected['why'])
    missing = [group for group in expected.get('need', [])
               if not any(holds(found, name) for name in group)]
    if missing:
        return False, 'verdict %s but none of %s among its members %s (%s)' % (
            found['verdict'], ' / '.join('|'.join(g) for g in missing), found['names'][:8],
            expected['why'])
    return True, 'verdict %s, members %s' % (found['verdict'], found['names'][:8])


def describe(res):
    t = res['truth']
    lines = ['%s %s: %s — %s' % (res['case'], 'loaded' if res['loaded'] else 'quiet',
                                 {True: 'RIGHT', False: 'WRONG', None: 'UNDECIDED'}[res['right']],
                                 res['why']),
             '  truth: wall %.2f s, disk %s busy %.0f%%, CPUs busy %.0f%% (focus %.0f%%, '
             'PID 1 %.1f%%), load: %s'
             % (t['wall_s'], t['disk'], 100 * t['disk_busy'], 100 * t['machine_cpu'],
                100 * t['focus_cpu'], 100 * t['pid1_cpu'], res['stats'])]
    for comm, c in sorted(t['by_comm'].items(), key=lambda kv: -kv[1]['life']):
        if c['life'] < 0.05e9:
            continue
        lines.append('  %-16s %3d thr (%2d active) active: life %6.2fs run %6.3fs rq %6.3fs D %6.3fs'
                     ' S %6.2fs' % (comm, c['threads'], c['active'], c['life'] / 1e9,
                                    c['run'] / 1e9, c['rq'] / 1e9, c['D'] / 1e9,
                                    c['S'] / 1e9))
    lines.append('  first finding: %s %s %s class=%s; reached by %s; next: %s' % (
        res['found']['verdict'], res['found']['kind'], res['found']['names'][:8],
        res['found']['cls'], ', '.join(res['found'].get('path', [])) or 'the focus itself',
        res['found'].get('second')))
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit('fieldlib is a module: run test_field.py or accuracy.py')
