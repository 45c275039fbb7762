#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The figures `make bench` reads from cachegrind are the ones cachegrind
computed.

run-bench.py reads instructions, L1 and last-level misses and branch
mispredictions from the summary cachegrind writes to its log, and derives
KCachegrind's cycle estimate from them (doc/performance.md). Here the
bench's own generator (gen-trace, 20,000 events) runs under the same
cachegrind invocation, and every count read from the log must equal the
sum of the matching event columns of the `summary:` line in cachegrind's
profile file, a second output written by the same run; the estimate is
checked on numbers worked by hand.

Needs valgrind (Debian package valgrind). Not registered in the sanitizer
build: valgrind cannot run under the ASan preload.

usage: test_bench_counts.py GEN_TRACE
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

GEN_TRACE = None

# The log's figures as sums of the profile's event columns (cachegrind
# 3.19, --cache-sim=yes --branch-sim=yes).
FROM_PROFILE = {
    'ir': ['Ir'],
    'i1': ['I1mr'],
    'd1': ['D1mr', 'D1mw'],
    'll': ['ILmr', 'DLmr', 'DLmw'],
    'bm': ['Bcm', 'Bim'],
}


def profile_summary(path):
    """The `summary:` line of a cachegrind profile, by event name."""
    events = summary = None
    with open(path) as f:
        for line in f:
            if line.startswith('events:'):
                events = line.split()[1:]
            elif line.startswith('summary:'):
                summary = [int(v) for v in line.split()[1:]]
    if events is None or summary is None or len(events) != len(summary):
        raise AssertionError('no events/summary lines in ' + path)
    return dict(zip(events, summary))


class BenchCounts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        valgrind = shutil.which('valgrind')
        if valgrind is None:
            raise unittest.SkipTest('valgrind is not installed (Debian package valgrind)')
        cls.tmp = tempfile.mkdtemp(prefix='wperf-bench-counts-')
        cls.log = os.path.join(cls.tmp, 'cachegrind.log')
        cls.profile = os.path.join(cls.tmp, 'cachegrind.out')
        cls.status, cls.counts = run_bench.cachegrind(
            valgrind, [GEN_TRACE, 'mix', os.path.join(cls.tmp, 'trace'), '20000'],
            cls.log, cls.profile)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_the_log_has_every_count(self):
        self.assertEqual(self.status, 0)
        self.assertEqual(set(self.counts), set(run_bench.CACHEGRIND_COUNTS.values()))

    def test_the_log_agrees_with_the_profile(self):
        summary = profile_summary(self.profile)
        for name, columns in FROM_PROFILE.items():
            self.assertEqual(self.counts[name], sum(summary[c] for c in columns), name)
        # A run that writes 20,000 events does real work: counts in the
        # millions, not a log read from the wrong line.
        self.assertGreater(self.counts['ir'], 1_000_000)
        self.assertGreater(self.counts['bm'], 0)

    def test_a_log_without_a_count_lacks_it(self):
        # count_costs() refuses a log that lacks a count; the reader must
        # not make one up.
        cut = os.path.join(self.tmp, 'cut.log')
        with open(self.log) as src, open(cut, 'w') as dst:
            dst.writelines(line for line in src if 'Mispredicts' not in line)
        counts = run_bench.read_cachegrind_log(cut)
        self.assertNotIn('bm', counts)
        self.assertEqual({k: v for k, v in self.counts.items() if k != 'bm'}, counts)

    def test_cycle_estimate(self):
        # Ir + 10 x (I1 + D1 misses + mispredictions) + 100 x LL misses
        self.assertEqual(run_bench.cycle_estimate(
            {'ir': 1000, 'i1': 2, 'd1': 3, 'bm': 4, 'll': 5}), 1000 + 90 + 500)


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    GEN_TRACE = sys.argv.pop(1)
    unittest.main(verbosity=2)
