#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The UST annotations (<wperf/annotate.h>, libwperf-ust.so) for real.

Two groups, run as two meson tests of suite `annotations`:

Linkage: the annotated workloads have no NEEDED on any LTTng library (the
provider is loaded at run time); they run, with exact counters, when the
provider is absent or cannot be found; libwperf-ust-preload.so loads the
provider into spin-lock and not into cat (nor into the compiled-out build),
and says in one line when the provider is missing; built with -DWPERF_DISABLE, the
spin-lock workload references no tracepoint, no LTTng symbol and not even
dlopen (nm), and still runs. Needs nothing but the build.

Recorded: a private lttng-sessiond (see lttng_private.py: as root it runs
as user nobody), a session with `wperf:*` and the contexts vtid, vpid,
procname; the workloads run with the provider loaded by LD_PRELOAD
(spin-lock, annotate-cxx, spin-lock-disabled) or by wperf_annotate_load()
through WPERF_UST_PROVIDER (cond-broadcast); the trace is read back with
bt2. Asserted, per process: the count of each wperf event equals the
program's own counter exactly (spin-lock loads the provider through
libwperf-ust-preload.so, as under `wperf record`); the fields (`lock` = the address the program
printed, `name` = "item") and the contexts (vpid = the program's pid, vtid
= one of its threads' tids, procname = that thread's name); no discarded
event; nothing at all from the -DWPERF_DISABLE build. Needs lttng-tools:
without it, FAIL under CI=true, else SKIP (77) saying why.

Environment: WPERF_UST_BUILD_DIR (the build's ust-provider/ directory),
WPERF_UST_HAVE_CXX (1 when annotate-cxx was built), WPERF_KEEP_TRACE=1 to
keep the recording (its directory is printed).
By hand: WPERF_UST_BUILD_DIR=build/ust-provider WPERF_UST_HAVE_CXX=1 \\
    /usr/bin/python3 ust-provider/tests/test_annotations.py Recorded -v
"""

import os
import subprocess
import sys
import unittest
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lttng_private as lp  # noqa: E402

SKIP = 77
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
UST_BUILD = os.environ.get('WPERF_UST_BUILD_DIR', '')
HAVE_CXX = os.environ.get('WPERF_UST_HAVE_CXX', '0') == '1'
KEEP = os.environ.get('WPERF_KEEP_TRACE', '') == '1'

PROVIDER = os.path.join(UST_BUILD, 'libwperf-ust.so.0')
PRELOAD = os.path.join(UST_BUILD, 'libwperf-ust-preload.so')
WORKLOADS = os.path.join(UST_BUILD, 'workloads')
PLUGIN = os.path.join(WORKLOADS, 'libannotated-plugin.so')
SPIN_THREADS, SPIN_ITERATIONS = 4, 5000
PLUGIN_SPINS = 700
COND_WAITERS, COND_ITEMS = 3, 2000
CXX_COUNT = 7


def workload(name):
    return os.path.join(WORKLOADS, name)


def needed(path):
    """The NEEDED entries of an ELF file (readelf -d)."""
    out = subprocess.run(['readelf', '-d', path], stdout=subprocess.PIPE,
                         text=True, check=True).stdout
    return [line.split('[', 1)[1].rstrip(']') for line in out.splitlines()
            if '(NEEDED)' in line]


def run_plain(argv, extra_env=None):
    """Run a workload as we are, without the provider (unless extra_env
    brings it); the sanitizer preload, if any, is kept. meson test puts the
    provider's directory in LD_LIBRARY_PATH, where wperf_annotate_load()
    would find it: drop it."""
    env = dict(os.environ)
    env.pop('WPERF_UST_PROVIDER', None)
    env.pop('LD_LIBRARY_PATH', None)
    env.update(extra_env or {})
    # Out of reach of a root session daemon (lttng_private.py says why), and
    # LD_PRELOAD restored for the program itself by env(1).
    hide = lp.hide_root_sessiond()[0] or []
    if hide:
        argv = ['env', 'LD_PRELOAD=' + env.get('LD_PRELOAD', '')] + list(argv)
    return subprocess.run(hide + list(argv), env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)


class Linkage(unittest.TestCase):
    """No LTTng at link time; runs with or without the provider."""

    def test_no_lttng_in_needed(self):
        progs = ['spin-lock', 'cond-broadcast', 'spin-lock-disabled', 'plugin-host',
                 'libannotated-plugin.so']
        if HAVE_CXX:
            progs.append('annotate-cxx')
        for prog in progs:
            with self.subTest(prog=prog):
                deps = needed(workload(prog))
                self.assertIn('libc.so.6', deps)
                self.assertEqual([d for d in deps if 'lttng' in d], [], deps)
        # The provider is the one that brings LTTng-UST in.
        self.assertIn('liblttng-ust.so.1', needed(PROVIDER))

    def check_spin_run(self, p, provider):
        self.assertEqual(p.returncode, 0, p.stderr)
        c = lp.parse_counters(p.stdout, 'spin-lock')
        self.assertEqual(c['provider'], provider, p.stdout)
        self.assertEqual(int(c['items']), 2 * 300)
        self.assertEqual(int(c['spins']), 2 * 300)
        self.assertEqual(sorted(c['threads']), ['spin-0', 'spin-1'])

    def test_runs_without_provider(self):
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        self.check_spin_run(run_plain(argv), 'not-loaded')

    def test_runs_when_provider_is_missing(self):
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        p = run_plain(argv, {'WPERF_UST_PROVIDER': '/nonexistent/libwperf-ust.so'})
        self.check_spin_run(p, 'not-loaded')

    def test_runs_with_provider_and_no_session(self):
        # A session daemon may or may not run here: either way no session
        # records this process's wperf events, and it runs normally.
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        p = run_plain(argv, {'WPERF_UST_PROVIDER': PROVIDER,
                             'LTTNG_UST_REGISTER_TIMEOUT': '0'})
        self.check_spin_run(p, 'loaded')

    def test_runs_with_provider_found_by_soname(self):
        # wperf_annotate_load(NULL) without WPERF_UST_PROVIDER: ld.so's
        # search path, as for an installed libwperf-ust.so.
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        p = run_plain(argv, {'LD_LIBRARY_PATH': UST_BUILD,
                             'LTTNG_UST_REGISTER_TIMEOUT': '0'})
        self.check_spin_run(p, 'loaded')

    def test_disabled_build_has_no_tracepoint(self):
        syms = subprocess.run(['nm', workload('spin-lock-disabled')],
                              stdout=subprocess.PIPE, text=True, check=True).stdout
        bad = [s for s in syms.splitlines()
               if 'lttng' in s or 'tracepoint' in s or 'wperf' in s or 'dlopen' in s]
        self.assertEqual(bad, [])
        # ... whereas the annotated build has them (the check can fail).
        syms = subprocess.run(['nm', workload('spin-lock')],
                              stdout=subprocess.PIPE, text=True, check=True).stdout
        self.assertIn('lttng_ust_tracepoint_wperf___before_spin', syms)

    def test_disabled_build_runs(self):
        p = run_plain([workload('spin-lock-disabled'), '--threads', '2',
                       '--iterations', '300'], {'LD_PRELOAD': _with_provider()})
        self.check_spin_run(p, 'compiled-out')

    def test_preload_shim_loads_the_provider_into_annotated_programs(self):
        # libwperf-ust-preload.so (what `wperf record` preloads) sees the
        # wperf tracepoints in spin-lock and loads the provider it names.
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        p = run_plain(argv, {'LD_PRELOAD': _with(PRELOAD), 'WPERF_UST_PROVIDER': PROVIDER,
                             'LTTNG_UST_REGISTER_TIMEOUT': '0'})
        self.check_spin_run(p, 'loaded')
        self.assertEqual(p.stderr, '')
        # The compiled-out build has no tracepoint: nothing loaded.
        p = run_plain([workload('spin-lock-disabled'), '--threads', '2',
                       '--iterations', '300'],
                      {'LD_PRELOAD': _with(PRELOAD), 'WPERF_UST_PROVIDER': PROVIDER})
        self.check_spin_run(p, 'compiled-out')

    def test_preload_shim_sees_a_plugin_dlopened_later(self):
        # plugin-host has no annotations; the plugin it dlopen()s after
        # the start has. The shim loads the provider at that dlopen().
        argv = [workload('plugin-host'), PLUGIN, '--spins', '50']
        p = run_plain(argv, {'LD_PRELOAD': _with(PRELOAD), 'WPERF_UST_PROVIDER': PROVIDER,
                             'LTTNG_UST_REGISTER_TIMEOUT': '0'})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(lp.parse_counters(p.stdout, 'plugin-host')['provider'], 'loaded',
                         p.stdout)
        self.assertEqual(p.stderr, '')
        # Nothing else loads it: not the program, not the plugin.
        p = run_plain(argv)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(lp.parse_counters(p.stdout, 'plugin-host')['provider'],
                         'not-loaded', p.stdout)
        # A plugin without annotations (libm) loads nothing.
        p = run_plain(['/usr/bin/python3', '-c', 'import ctypes, sys; ctypes.CDLL("libm.so.6");'
                       'sys.stdout.write(open("/proc/self/maps").read())'],
                      {'LD_PRELOAD': _with(PRELOAD), 'WPERF_UST_PROVIDER': PROVIDER})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('libm.so.6', p.stdout)
        self.assertNotIn('libwperf-ust.so', p.stdout)

    def test_preload_shim_leaves_other_programs_alone(self):
        # Any other process (a script's cat) gets neither the provider nor
        # LTTng-UST, so it does not register with a session daemon.
        p = run_plain(['cat', '/proc/self/maps'],
                      {'LD_PRELOAD': _with(PRELOAD), 'WPERF_UST_PROVIDER': PROVIDER})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('libwperf-ust-preload.so', p.stdout)
        self.assertNotIn('lttng', p.stdout)
        self.assertNotIn('libwperf-ust.so', p.stdout)
        # It needs no LTTng library itself.
        self.assertEqual([d for d in needed(PRELOAD) if 'lttng' in d], [])

    def test_preload_shim_says_when_the_provider_is_missing(self):
        argv = [workload('spin-lock'), '--threads', '2', '--iterations', '300']
        p = run_plain(argv, {'LD_PRELOAD': _with(PRELOAD),
                             'WPERF_UST_PROVIDER': '/nonexistent/libwperf-ust.so'})
        self.check_spin_run(p, 'not-loaded')
        self.assertIn('wperf: annotations of this program are not recorded: cannot load '
                      '/nonexistent/libwperf-ust.so', p.stderr)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)

    def test_bad_options(self):
        for argv in (['spin-lock', '--threads', '0'], ['spin-lock', '--bogus'],
                     ['cond-broadcast', '--items', 'x']):
            with self.subTest(argv=argv):
                p = run_plain([workload(argv[0])] + argv[1:])
                self.assertEqual(p.returncode, 2, p.stdout + p.stderr)


def _with(lib):
    pre = lp.sanitizer_preload()
    return pre + ':' + lib if pre else lib


def _with_provider():
    return _with(PROVIDER)


class Recorded(unittest.TestCase):
    """Each workload recorded by a real LTTng session, counted exactly."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.lt = lp.PrivateLttng(keep=KEEP, prefix='wperf-annotations-')
        cls.lt.start()
        try:
            cls.record()
        except Exception:
            cls.lt.stop()
            print('\n'.join(cls.lt.log))
            raise

    @classmethod
    def record(cls):
        lt = cls.lt
        trace = os.path.join(lt.home, 'trace')
        provider = lt.install(PROVIDER)
        # Beside the provider's copy: the shim finds it there by itself.
        shim = lt.install(PRELOAD)
        bins = {n: lt.install(workload(n))
                for n in ('spin-lock', 'cond-broadcast', 'spin-lock-disabled', 'plugin-host')}
        plugin = lt.install(PLUGIN)
        if HAVE_CXX:
            bins['annotate-cxx'] = lt.install(workload('annotate-cxx'))
        lt.create_session('wperf-annotations', trace)
        lt.lttng('start')
        cls.runs = {}
        # spin-lock through the shim `wperf record` preloads, which
        # must load the provider before main() as LD_PRELOAD would.
        cls.runs['spin-lock'] = lt.run_traced(
            [bins['spin-lock'], '--threads', str(SPIN_THREADS),
             '--iterations', str(SPIN_ITERATIONS)], shim, 'preload')
        # An annotated plugin dlopen()ed by a program without annotations,
        # through the shim: loaded at the dlopen(), recorded from there.
        cls.runs['plugin-host'] = lt.run_traced(
            [bins['plugin-host'], plugin, '--spins', str(PLUGIN_SPINS)], shim, 'preload')
        cls.runs['cond-broadcast'] = lt.run_traced(
            [bins['cond-broadcast'], '--waiters', str(COND_WAITERS),
             '--items', str(COND_ITEMS)], provider, 'dlopen')
        cls.runs['spin-lock-disabled'] = lt.run_traced(
            [bins['spin-lock-disabled'], '--iterations', '500'], provider, 'preload')
        if HAVE_CXX:
            cls.runs['annotate-cxx'] = lt.run_traced(
                [bins['annotate-cxx'], '--count', str(CXX_COUNT)], provider, 'preload')
        lt.lttng('stop')
        lt.lttng('destroy')
        lt.stop()
        if KEEP:
            print('trace kept in %s' % trace)
        cls.events, cls.discarded = lp.read_ust_events(trace)

    @classmethod
    def tearDownClass(cls):
        cls.lt.__exit__(None, None, None)

    # -- helpers ---------------------------------------------------------------
    def counters(self, prog):
        c = lp.parse_counters(self.runs[prog].stdout, prog.replace('-disabled', ''))
        self.assertIn('pid', c, self.runs[prog].stdout)
        return c

    def events_of(self, prog):
        pid = int(self.counters(prog)['pid'])
        return [e for e in self.events if e['context'].get('vpid') == pid]

    def check_contexts(self, evs, threads):
        """vtid is one of the program's threads, procname that thread's name."""
        name_of = {tid: name for name, tid in threads.items()}
        for e in evs:
            ctx = e['context']
            self.assertIn(ctx['vtid'], name_of, e)
            self.assertEqual(ctx['procname'], name_of[ctx['vtid']], e)

    def check_payloads(self, evs, lock=None):
        for e in evs:
            if e['name'] in ('wperf:before_spin', 'wperf:after_spin'):
                self.assertEqual(list(e['payload']), ['lock'], e)
                self.assertEqual(e['payload']['lock'], lock, e)
            elif e['name'] == 'wperf:false_wakeup':
                self.assertEqual(e['payload'], {}, e)
            elif e['name'] == 'wperf:progress':
                self.assertEqual(e['payload'], {'name': 'item'}, e)
            else:
                self.fail('unexpected event %s' % e)

    # -- tests -------------------------------------------------------------------
    def test_nothing_discarded(self):
        self.assertEqual(self.discarded, 0)

    def test_only_our_processes(self):
        pids = {int(self.counters(p)['pid']) for p in self.runs}
        self.assertEqual({e['context']['vpid'] for e in self.events} - pids, set())

    def test_spin_lock(self):
        c = self.counters('spin-lock')
        self.assertEqual(c['provider'], 'loaded')
        evs = self.events_of('spin-lock')
        n = Counter(e['name'] for e in evs)
        spins, items = int(c['spins']), int(c['items'])
        self.assertEqual(spins, SPIN_THREADS * SPIN_ITERATIONS)
        self.assertEqual(items, SPIN_THREADS * SPIN_ITERATIONS)
        self.assertEqual(n['wperf:before_spin'], spins)
        self.assertEqual(n['wperf:after_spin'], spins)
        self.assertEqual(n['wperf:progress'], items)
        self.assertEqual(n['wperf:false_wakeup'], 0)
        self.check_payloads(evs, lock=int(c['lock'], 16))
        self.check_contexts(evs, c['threads'])
        # Every thread took the lock: each one's tid is in the trace.
        self.assertEqual({e['context']['vtid'] for e in evs},
                         set(c['threads'].values()))
        # before/after alternate per thread: a thread never spins twice at once.
        self.check_spin_pairs(evs)

    def test_plugin_dlopened_later(self):
        c = self.counters('plugin-host')
        self.assertEqual(c['provider'], 'loaded')
        evs = self.events_of('plugin-host')
        n = Counter(e['name'] for e in evs)
        self.assertEqual(int(c['spins']), PLUGIN_SPINS)
        self.assertEqual(n['wperf:before_spin'], PLUGIN_SPINS)
        self.assertEqual(n['wperf:after_spin'], PLUGIN_SPINS)
        self.assertEqual(n['wperf:progress'], PLUGIN_SPINS)
        self.check_payloads(evs, lock=int(c['lock'], 16))
        self.check_spin_pairs(evs)

    def check_spin_pairs(self, evs):
        spinning = {}
        for e in evs:
            tid = e['context']['vtid']
            if e['name'] == 'wperf:before_spin':
                self.assertFalse(spinning.get(tid), e)
                spinning[tid] = True
            elif e['name'] == 'wperf:after_spin':
                self.assertTrue(spinning.get(tid), e)
                spinning[tid] = False
        self.assertFalse(any(spinning.values()))

    def test_cond_broadcast(self):
        c = self.counters('cond-broadcast')
        self.assertEqual(c['provider'], 'loaded')   # by wperf_annotate_load()
        evs = self.events_of('cond-broadcast')
        n = Counter(e['name'] for e in evs)
        fw, items = int(c['false_wakeups']), int(c['items'])
        self.assertEqual(items, COND_ITEMS)
        # Each item wakes every waiter and one takes it (the workload waits
        # for all to wait again before the next): COND_WAITERS - 1 false
        # wakeups per item at least; a spurious wakeup adds one.
        self.assertGreaterEqual(fw, items * (COND_WAITERS - 1))
        self.assertEqual(n['wperf:false_wakeup'], fw)
        self.assertEqual(n['wperf:progress'], items)
        self.assertEqual(n['wperf:before_spin'] + n['wperf:after_spin'], 0)
        self.check_payloads(evs)
        waiters = {k: v for k, v in c['threads'].items() if k.startswith('cond-wait-')}
        self.assertEqual(len(waiters), COND_WAITERS)
        self.check_contexts(evs, waiters)   # the producer emits nothing

    def test_disabled_build_emits_nothing(self):
        c = self.counters('spin-lock-disabled')
        self.assertEqual(c['provider'], 'compiled-out')
        self.assertEqual(int(c['spins']), SPIN_THREADS * 500)
        self.assertEqual(self.events_of('spin-lock-disabled'), [])

    def test_cxx(self):
        if not HAVE_CXX:
            if IN_CI:
                self.fail('annotate-cxx was not built: no C++ compiler (Debian g++)')
            self.skipTest('no C++ compiler: annotate-cxx not built (Debian g++)')
        c = self.counters('annotate-cxx')
        self.assertEqual(c['provider'], 'loaded')
        evs = self.events_of('annotate-cxx')
        n = Counter(e['name'] for e in evs)
        self.assertEqual(int(c['count']), CXX_COUNT)
        for name in ('before_spin', 'after_spin', 'false_wakeup', 'progress'):
            self.assertEqual(n['wperf:' + name], CXX_COUNT, name)
        self.check_payloads(evs, lock=int(c['lock'], 16))
        self.check_contexts(evs, {'annotate-cxx': c['threads']['main']})


def main():
    names = [a for a in sys.argv[1:] if not a.startswith('-')]
    if not os.path.exists(PROVIDER):
        print('FAIL: %s does not exist (set WPERF_UST_BUILD_DIR)' % PROVIDER)
        sys.exit(1)
    if 'Recorded' in names or not names:
        reason = lp.why_not()
        if reason:
            if IN_CI:
                print('FAIL (CI=true): cannot record with LTTng-UST: %s' % reason)
                sys.exit(1)
            print('SKIP: cannot record with LTTng-UST: %s' % reason)
            sys.exit(SKIP)
    prog = unittest.main(verbosity=2, exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)


if __name__ == '__main__':
    main()
