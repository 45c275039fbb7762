#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The analysis' cost against the floor cannot grow unnoticed.

The floor is babeltrace2 decoding a trace into sink.utils.dummy; wperf's
cost is the same CLI with `-c sink.wperf.knots` (knots) and with
`-c filter.wperf.waits -c sink.wperf.knots` (waits). On a MIX_EVENTS-event
`gen-trace mix`, the three commands run under cachegrind, which counts
instructions whatever else the machine runs, and the test fails when
knots or waits pass GUARD_X times dummy's instructions (run-bench.py's
GUARD_X; doc/performance.md has the figures they guard). It also
prints the ratios in CPU time (the fastest of CPU_RUNS runs of each,
interleaved), which load does change: printed, not judged.

Needs valgrind (Debian package valgrind). Not registered in the sanitizer
build: valgrind cannot run under the ASan preload, and the sanitizers
would change the count.

usage: test_bench_guard.py BUILD_DIR GEN_TRACE
"""
import importlib.util
import os
import shutil
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location('run_bench', os.path.join(HERE, 'run-bench.py'))
run_bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(run_bench)

BUILD = GEN_TRACE = None
# Long enough that wperf's fixed costs (loading, writing the report) do
# not swamp its cost per event, short enough for a few seconds of
# cachegrind per command.
MIX_EVENTS = 100_000
CPU_RUNS = 3


class BenchGuard(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.valgrind = shutil.which('valgrind')
        cls.bt = shutil.which('babeltrace2')
        if cls.valgrind is None:
            raise unittest.SkipTest('valgrind is not installed (Debian package valgrind)')
        cls.tmp = tempfile.mkdtemp(prefix='wperf-bench-guard-')
        cls.plugin = os.path.join(BUILD, 'plugin')
        cls.trace = run_bench.generate(GEN_TRACE, cls.tmp, 'mix', MIX_EVENTS)
        cls.ir = run_bench.count_instructions(cls.valgrind, cls.bt, cls.plugin,
                                              cls.trace, cls.tmp)
        cpu = run_bench.measure(cls.bt, cls.plugin, cls.trace, CPU_RUNS)
        cls.cpu = {name: m['cpu'] for name, m in cpu.items()}
        print(f'\nmix of {MIX_EVENTS:,} events, ratio to sink.utils.dummy:', file=sys.stderr)
        for name in ('knots', 'waits'):
            print(f'  {name}: {cls.ir[name] / cls.ir["floor"]:.3f}x in instructions '
                  f'(limit {run_bench.GUARD_X[name]}x), '
                  f'{cls.cpu[name] / cls.cpu["floor"]:.2f}x in CPU time '
                  f'(fastest of {CPU_RUNS}, not judged)', file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_counts_are_real(self):
        # 100,000 events decode in hundreds of millions of instructions: a
        # count read from the wrong line, or a command that failed early,
        # would not.
        for name, ir in self.ir.items():
            self.assertGreater(ir, 500 * MIX_EVENTS, name)
        self.assertGreater(self.ir['knots'], self.ir['floor'])
        self.assertGreater(self.ir['waits'], self.ir['knots'])

    def test_knots_within_guard(self):
        x = self.ir['knots'] / self.ir['floor']
        self.assertLessEqual(x, run_bench.GUARD_X['knots'],
                             f'sink.wperf.knots costs {x:.3f}x the instructions of '
                             f'sink.utils.dummy (doc/performance.md says where they go)')

    def test_waits_within_guard(self):
        x = self.ir['waits'] / self.ir['floor']
        self.assertLessEqual(x, run_bench.GUARD_X['waits'],
                             f'filter.wperf.waits + sink.wperf.knots cost {x:.3f}x the '
                             f'instructions of sink.utils.dummy '
                             f'(doc/performance.md says where they go)')


if __name__ == '__main__':
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    GEN_TRACE = sys.argv.pop(2)
    BUILD = sys.argv.pop(1)
    unittest.main(verbosity=2)
