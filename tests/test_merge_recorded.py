#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Merging similar threads (wperf-method(7) §9), recorded for real: four threads
"mutex-worker-0..3" contending on one pthread mutex
(tests/workloads/mutex-contention), recorded with `wperf record`, reported
focused on its pid.

- merge="name": one virtual vertex "mutex-worker-*" whose members are the
  four workers' tids, with a self-loop of positive weight (the workers'
  waits on each other), and the first knot it belongs to is that vertex
  alone; the report validates against the schema;
- by default (merge="pool"): the four workers are one pool vertex
  "mutex-worker-* ×4" (same name base, threads of one process, none the
  main thread), the main thread stays apart, and the text report says
  which threads the pool stands for and how to see them apart;
- merge="none": the four workers appear as four thread vertices and no
  merged vertex exists;
- merge="stack" is refused with one line saying the trace has no call
  stacks and how to record them (tests/test_stacks_recorded.py merges by
  stack a recording that has them).

The merged vertex is the first knot (kind "knot"): the workers want more
than one CPU between them (running + runnable), so it is not background
(wperf-method(7) §7), even though the mutex lets only one of them run at a time.

Needs root and lttng-tools (wperf record). Without them: FAIL under
CI=true, else SKIP (exit 77). WPERF_KEEP_TRACE=1 keeps the recording.
"""

import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
import wperf_scenario as ws  # noqa: E402
from test_real_traces import validate_schema  # noqa: E402

BABELTRACE2 = os.environ.get('BABELTRACE2', 'babeltrace2')
WORKERS = 4


class MergeRecorded(recording.WperfRecorded):
    COMMAND = ['mutex-contention', '--threads', str(WORKERS), '--seconds', '2']

    def workers(self, js):
        return [v for v in js['vertices'] if v['kind'] == 'thread'
                and v.get('pid') == self.pid
                and (v.get('comm') or '').startswith('mutex-worker-')]

    def test_merged_by_name(self):
        js = self.report('merge="name"')
        validate_schema(self, js, 'mutex-contention merge=name')
        byid = {v['id']: v for v in js['vertices']}
        merged = [v for v in js['vertices'] if v['name'] == 'mutex-worker-*']
        self.assertEqual(len(merged), 1, 'no single "mutex-worker-*" vertex: %s'
                         % sorted(v['name'] for v in js['vertices']))
        m = merged[0]
        self.assertEqual(m['kind'], 'virtual')
        self.assertEqual(len(m['members']), WORKERS, m)
        self.assertEqual(self.workers(js), [], 'workers left unmerged')
        loops = [e for e in js['edges'] if e['from'] == m['id'] and e['to'] == m['id']]
        self.assertEqual(len(loops), 1, 'no self-loop on the merged vertex')
        self.assertGreater(loops[0]['weight_ns'], 0)
        self.assertGreater(loops[0]['count'], 0)
        self.assertIn(m['id'], js['focus'])
        found = [(k['kind'], [byid[i]['name'] for i in k['members']]) for k in js['knots']]
        mine = [k for k in js['knots'] if m['id'] in k['members']]
        self.assertTrue(mine, 'the merged vertex is in no knot: %s' % found)
        k = mine[0]
        self.assertEqual(k['kind'], 'knot', found)
        self.assertIs(js['knots'][0], k, 'not the first knot: %s' % found)
        self.assertEqual(k['members'], [m['id']], found)
        # Classified as lock contention: threads of one process waiting
        # on each other (the self-loop), briefly.
        c = k['classification']
        kinds = [ev['kind'] for ev in c['evidence']]
        if c['class'] == 'too_few_cpus':
            # Four workers on two CPUs may wait longer for a CPU than
            # for the mutex on a loaded machine: the rules say so first.
            demand = c['evidence'][kinds.index('cpu_demand')]
            self.assertGreater(demand['a_ns'], demand['b_ns'], c)
        else:
            self.assertEqual(c['class'], 'lock_contention', c)
        self.assertIn('self_loop', kinds, c)
        self.assertIn('one_process', kinds, c)
        self.assertEqual(c['evidence'][kinds.index('one_process')]['count'], WORKERS, c)

    def test_pool_by_default(self):
        js = self.report()
        validate_schema(self, js, 'mutex-contention (default merge)')
        byid = {v['id']: v for v in js['vertices']}
        pools = [v for v in js['vertices'] if v.get('merged_by') == 'pool'
                 and v.get('pid') == self.pid]
        self.assertEqual([v['name'] for v in pools], ['mutex-worker-* \u00d7%d' % WORKERS],
                         sorted(v['name'] for v in js['vertices']))
        pool = pools[0]
        self.assertEqual(len(pool['members']), WORKERS)
        self.assertNotIn(self.pid, pool['members'], 'the main thread joined its workers')
        self.assertEqual(self.workers(js), [], 'workers left unmerged')
        main = [v for v in js['vertices'] if v['kind'] == 'thread' and v['tid'] == self.pid]
        self.assertEqual(len(main), 1, 'the main thread is not its own vertex')
        # The focus (the recorded command's pid) follows the threads into
        # the pool; the first knot is the pool's self-loop.
        self.assertIn(pool['id'], js['focus'])
        found = [(k['kind'], [byid[i]['name'] for i in k['members']]) for k in js['knots']]
        self.assertTrue(js['knots'], found)
        self.assertEqual(js['knots'][0]['kind'], 'knot', found)
        self.assertEqual(js['knots'][0]['members'], [pool['id']], found)
        text = ' '.join(self.report(fmt='text').split())
        self.assertIn('Pools mutex-worker-* \u00d7%d = threads %s of process %d'
                      % (WORKERS, ', '.join(str(t) for t in pool['members']), self.pid), text)
        self.assertIn('merge="none" shows them apart', text)

    def test_separate_without_merge(self):
        # Short-lived children merge by default with a focus: keep them too.
        js = self.report('merge="none"', 'short-lived="keep"')
        validate_schema(self, js, 'mutex-contention')
        names = sorted(v['comm'] for v in self.workers(js))
        self.assertEqual(names, ['mutex-worker-%d' % i for i in range(WORKERS)])
        self.assertFalse([v for v in js['vertices'] if v['kind'] == 'virtual'
                          and 'members' in v], 'a merged vertex without merge')

    def test_lock_queue_without_merge(self):
        """Unmerged, the workers hand the mutex along a queue: each waits
        on the one queued before it many times in a row, which alone would
        read as phases (load imbalance). Nearly every such wait began while
        its waker was queued itself, so the knot is lock contention."""
        js = self.report('merge="none"')
        ids = {v['id'] for v in self.workers(js)}
        chained = sum(e['chained'] for e in js['edges'] if e['from'] in ids and e['to'] in ids)
        waits = sum(e['count'] for e in js['edges'] if e['from'] in ids and e['to'] in ids)
        self.assertGreater(2 * chained, waits, (chained, waits))
        mine = [k for k in js['knots'] if k['kind'] == 'knot' and ids & set(k['members'])]
        if not mine and js['cpu']['first']:
            # A machine so loaded that the workers waited for CPUs far
            # longer than on the mutex: the report leads with the CPUs,
            # and refinement cuts the light lock edges of the unmerged
            # workers down to one (merged, they stay one pool: above).
            return
        if not mine:
            # Refinement may cut the queue's knot down to single workers:
            # unmerged, their lock edges differ by far more than the tie
            # tolerance (98 to 217 ms in one recording), so alike workers
            # go one by one (merged, they stay one pool: above). What is
            # left are worker sinks whose refinement cut worker -> worker
            # lock edges: the queue's evidence is then the edges' own
            # (chained, asserted above).
            sinks = [k for k in js['knots'] if k['kind'] == 'sink' and set(k['members']) <= ids]
            self.assertTrue(sinks, [(k['kind'], k['members']) for k in js['knots']])
            cut = [(r['from'], r['to']) for k in sinks for r in k.get('removed', [])]
            self.assertTrue([1 for f, t in cut if f in ids and t in ids], (sinks, cut))
            return
        c = mine[0]['classification']
        kinds = [ev['kind'] for ev in c['evidence']]
        if 'turns' in kinds:
            # A pair of workers that wait on each other both ways: how
            # their waits began says queue, not phases.
            self.assertIn('queue', kinds, c)
            queue = c['evidence'][kinds.index('queue')]
            self.assertGreater(queue['total'], 0, queue)
            self.assertGreater(2 * queue['count'], queue['total'], queue)
            self.assertEqual({queue['vertex'], queue['vertex2']} - ids, set(), queue)
        else:
            # A ring the lock went round one way (each worker waited on
            # the one queued before it, never back): no pair to weigh,
            # and nothing reads as phases either.
            self.assertNotIn('queue', kinds, c)
        demand = c['evidence'][kinds.index('cpu_demand')]
        if demand['a_ns'] > demand['b_ns']:
            self.assertEqual(c['class'], 'too_few_cpus', c)   # a loaded machine
        else:
            self.assertEqual(c['class'], 'lock_contention', c)

    def test_stack_refused(self):
        self.assertTrue(self.ok, 'wperf record failed:\n' + self.log[-4000:])
        cmd = [self.wperf(), 'report', self.trace, '--plugin-path', ws.plugin_dir(),
               '--params', 'merge="stack"']
        q = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertNotEqual(q.returncode, 0)
        words = ' '.join(q.stdout.split())   # babeltrace2 wraps the cause
        self.assertIn('needs call stacks and the trace has none', words)
        self.assertIn('wperf record --stacks', words)


if __name__ == '__main__':
    recording.main_wperf_record('a mutex-contention workload', 'mutex-contention')
