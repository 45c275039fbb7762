#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Call stacks of waits, recorded for real with `wperf record --stacks`
(source.wperf.tracefs stacks="kernel" on a kernel without lttng-modules,
ftrace's stacktrace trigger on sched_switch; LTTng's callstack-kernel and
callstack-user contexts where it has them, as in tests/guest): four threads "mutex-worker-0..3" contending on one pthread
mutex (tests/workloads/mutex-contention).

- the report says how the frames were named (this boot's /proc/kallsyms),
  every edge between two workers carries stacks, the heaviest one named
  and passing through the kernel's futex wait, and the stacks' counts and
  times add up to no more than the edge's own;
- merge="stack" makes one vertex "mutex-worker-* @ <futex frame>" of the
  four workers (and any helper of the process blocked in the same kernel
  path), with a self-loop: threads waiting in the same place;
- the text report shows the stack under the edge ("in futex_...").

Needs root and lttng-tools (wperf record). Without them: FAIL under
CI=true, else SKIP (exit 77). WPERF_KEEP_TRACE=1 keeps the recording.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
from test_real_traces import validate_schema  # noqa: E402

WORKERS = 4


class StacksRecorded(recording.WperfRecorded):
    COMMAND = ['mutex-contention', '--threads', str(WORKERS), '--seconds', '2']
    RECORD_OPTIONS = ['--stacks']

    def worker_ids(self, js):
        return {v['id'] for v in js['vertices'] if v['kind'] == 'thread'
                and v.get('pid') == self.pid
                and (v.get('comm') or '').startswith('mutex-worker-')}

    def test_edges_carry_named_stacks(self):
        # The workers' edges between each other, each worker on its own.
        js = self.report('merge="none"')
        validate_schema(self, js, 'mutex-contention --stacks')
        self.assertIn('/proc/kallsyms', js['stacks_note'] or '', js['stacks_note'])
        workers = self.worker_ids(js)
        self.assertEqual(len(workers), WORKERS)
        between = [e for e in js['edges'] if e['from'] in workers and e['to'] in workers]
        self.assertTrue(between, 'the workers never waited on each other')
        for e in between:
            self.assertIn('stacks', e, e)
            self.assertLessEqual(sum(s['count'] for s in e['stacks']), e['count'], e)
            self.assertLessEqual(sum(s['ns'] for s in e['stacks']), e['direct_ns'], e)
            self.assertEqual([s['ns'] for s in e['stacks']],
                             sorted((s['ns'] for s in e['stacks']), reverse=True))
        heaviest = max(between, key=lambda e: e['weight_ns'])
        frames = js['stacks'][heaviest['stacks'][0]['stack']]['frames']
        symbols = [f['symbol'] or '' for f in frames]
        self.assertTrue(any(s.startswith(('futex', '__futex', 'do_futex')) for s in symbols),
                        symbols)
        kernel = [int(f['addr'], 16) >= 0xffff800000000000 for f in frames]
        if self.recorded_with() == 'lttng':
            # LTTng's callstack-user context follows callstack-kernel: the
            # kernel frames, then user-space addresses, left unnamed.
            self.assertTrue(kernel[0], frames)
            self.assertEqual(kernel, sorted(kernel, reverse=True),
                             'kernel frames, then user frames: %s' % frames)
            self.assertTrue(all(f['symbol'] is None for f, k in zip(frames, kernel) if not k),
                            frames)
        else:
            self.assertTrue(all(kernel), 'kernel stacks only: %s' % frames)

    def recorded_with(self):
        """The kernel tracer `wperf record` chose: "lttng" or "tracefs"."""
        import json
        with open(os.path.join(self.trace, 'wperf.json')) as f:
            return json.load(f)['kernel']

    def test_merge_by_stack(self):
        js = self.report('merge="stack"')
        validate_schema(self, js, 'mutex-contention merge=stack')
        merged = [v for v in js['vertices'] if v['kind'] == 'virtual'
                  and v['name'].startswith('mutex-worker-* @ ')]
        self.assertEqual(len(merged), 1, sorted(v['name'] for v in js['vertices']
                                                if v['kind'] == 'virtual'))
        m = merged[0]
        self.assertIn('futex', m['name'])
        # Every worker; kernel-only stacks may also match a helper thread
        # of the process waiting on a futex (LTTng-UST's listener): the
        # vertex is named after the majority.
        workers = {v['tid'] for v in js['vertices'] if v['kind'] == 'thread'
                   and (v.get('comm') or '').startswith('mutex-worker-')}
        self.assertFalse(workers, 'workers left unmerged: %s' % workers)
        self.assertGreaterEqual(len(m['members']), WORKERS, m)
        self.assertLessEqual(len(m['members']), WORKERS + 2, m)
        loops = [e for e in js['edges'] if e['from'] == m['id'] and e['to'] == m['id']]
        self.assertEqual(len(loops), 1, 'no self-loop on the merged vertex')
        self.assertGreater(loops[0]['weight_ns'], 0)

    def test_text_shows_stacks(self):
        text = self.report(fmt='text')
        self.assertRegex(text, r'Stacks +\d+ distinct wait stacks; kernel frames named')
        self.assertRegex(text, r'\n +in _*(do_)?futex')


if __name__ == '__main__':
    recording.main_wperf_record('a mutex-contention workload with stacks', 'mutex-contention')
