#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Several hosts' kernel traces in one wait-for graph.

  - two hand-built hosts (`alpha`, `beta`: their own clock UUIDs, the same
    tid 100 and the same disk 8:0 on each), one source each, through
    filter.utils.muxer into sink.wperf.knots: each thread and each disk
    is its host's own vertex (JSON `host`, text `client (100)@alpha`),
    with the exact waits, the same as each host's trace reported alone
    (which names no host);
  - the same two traces written as CTF and given to `wperf report DIR1
    DIR2`;
  - the shared pair `tc-synctraces` (VM1, VM3) reported as one graph:
    both hosts' vertices, every vertex named with its host, threads of
    the same tid on both hosts kept apart.

Usage: WPERF_PLUGIN_DIR=build/plugin WPERF_BUILD_DIR=build \
       /usr/bin/python3 tests/test_hosts.py [--shared-dir-default DIR]
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import wperf_scenario as ws  # noqa: E402

SHARED = ws.shared_dir()
SYNC = os.path.join(SHARED, 'traces', 'lttng-kernel', 'tc-synctraces')
BUILD_DIR = os.environ.get('WPERF_BUILD_DIR',
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'build'))
WPERF = os.path.join(BUILD_DIR, 'tools', 'wperf')
MS, US = ws.MS, ws.US
DISK = ws.dev_t(8, 0)


def disk_host(name, done_ms, comm):
    """One host: `comm` (tid 100, CPU 0) writes to disk 8:0 at 1 ms and
    sleeps until the request completes at done_ms (woken 2 us later: a
    wait of done_ms - 1 ms + 2 us); trace [0, 10 ms]."""
    s = ws.Scenario(ncpus=2, end=10 * MS, hostname=name,
                    clock_uuid=uuid.uuid5(uuid.NAMESPACE_DNS, name + '.wperf.test'))
    t = s.thread(100, comm)
    s.run(0, 0, t)
    s.disk_wait(1 * MS, 0, t, DISK, done_ms * MS, 1)
    return s


def wait_edges(js):
    """{(from label, to label): direct_ns} of the report's edges."""
    def label(v):
        name = '%s (%d)' % (v['comm'], v['tid']) if v['kind'] == 'thread' else v['name']
        return name + ('@' + v['host'] if 'host' in v else '')
    vs = {v['id']: v for v in js['vertices']}
    return {(label(vs[e['from']]), label(vs[e['to']])): e['direct_ns'] for e in js['edges']}


class TwoHandBuiltHosts(unittest.TestCase):
    def setUp(self):
        self.alpha = disk_host('alpha', 5, 'client')
        self.beta = disk_host('beta', 3, 'server')

    def test_one_graph(self):
        js = ws.run_knots_hosts([self.alpha, self.beta])
        hosts = sorted((v['name'], v.get('tid'), v['host']) for v in js['vertices']
                       if v['kind'] in ('thread', 'disk'))
        self.assertEqual(hosts, [('client', 100, 'alpha'), ('disk:8:0', None, 'alpha'),
                                 ('disk:8:0', None, 'beta'), ('server', 100, 'beta')])
        self.assertTrue(all('host' in v for v in js['vertices']))
        self.assertTrue(all('host' in t for t in js['threads']))
        edges = wait_edges(js)
        self.assertEqual(edges[('client (100)@alpha', 'disk:8:0@alpha')], 4 * MS + 2 * US)
        self.assertEqual(edges[('server (100)@beta', 'disk:8:0@beta')], 2 * MS + 2 * US)
        # no wait crosses hosts without a network edge
        for (a, b) in edges:
            self.assertEqual(a.split('@')[1], b.split('@')[1], (a, b))

    def test_each_host_alone(self):
        both = wait_edges(ws.run_knots_hosts([self.alpha, self.beta]))
        for scn in (self.alpha, self.beta):
            alone = ws.run_knots(scn)
            self.assertFalse(any('host' in v for v in alone['vertices']))
            suffix = '@' + scn.hostname
            mine = {(a[:-len(suffix)], b[:-len(suffix)]): w for (a, b), w in both.items()
                    if a.endswith(suffix)}
            self.assertEqual(mine, wait_edges(alone))

    def test_text_names_hosts(self):
        text = ws.run_knots_hosts_text([self.alpha, self.beta])
        self.assertIn('client (100)@alpha -> disk:8:0@alpha', text)
        self.assertIn('server (100)@beta -> disk:8:0@beta', text)

    def test_wperf_report_two_dirs(self):
        tmp = tempfile.mkdtemp(prefix='wperf-hosts-')
        try:
            dirs = [ws.write_ctf(s, os.path.join(tmp, s.hostname)) for s in (self.alpha, self.beta)]
            p = subprocess.run([WPERF, 'report', '--plugin-path', ws.plugin_dir(),
                                '--format', 'json'] + dirs,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=300)
            self.assertEqual(p.returncode, 0, p.stderr)
            edges = wait_edges(json.loads(p.stdout))
            self.assertEqual(edges[('client (100)@alpha', 'disk:8:0@alpha')], 4 * MS + 2 * US)
            self.assertEqual(edges[('server (100)@beta', 'disk:8:0@beta')], 2 * MS + 2 * US)
        finally:
            shutil.rmtree(tmp, True)


class SyncTracesAsOneGraph(unittest.TestCase):
    def test_both_hosts(self):
        if not os.path.isdir(SYNC):
            self.fail('no shared trace %s' % SYNC)
        p = subprocess.run([WPERF, 'report', '--plugin-path', ws.plugin_dir(), '--format',
                            'json', os.path.join(SYNC, 'scp_src'), os.path.join(SYNC, 'scp_dest')],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=600)
        self.assertEqual(p.returncode, 0, p.stderr)
        js = ws.report_invariants.check(json.loads(p.stdout), 'tc-synctraces')
        hosts = {v['host'] for v in js['vertices']}
        self.assertEqual(hosts, {'VM1', 'VM3'})
        threads = [(v['host'], v['tid']) for v in js['vertices'] if v['kind'] == 'thread']
        self.assertEqual(len(threads), len(set(threads)))
        # the same tid on both hosts: two threads, not one
        tids = {}
        for host, tid in threads:
            tids.setdefault(tid, set()).add(host)
        self.assertTrue(any(len(h) == 2 for h in tids.values()))


if __name__ == '__main__':
    unittest.main(verbosity=2)
