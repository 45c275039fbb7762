#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The field suite's judge on fixed numbers (no programs, no root): which
relief is the truth, when two tie, and which first findings are right
(causal.py). The samples are the matrix's own (doc/accuracy.md)."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import causal  # noqa: E402


def samples(**gains):
    return {k: [dict(gain=g) for g in v] for k, v in gains.items()}


class Judge(unittest.TestCase):
    def test_beats_needs_every_sample_above_with_three_rounds(self):
        self.assertTrue(causal.beats([1.49, 1.63, 1.63], [0.95, 0.98, 1.05]))
        self.assertTrue(causal.beats([1.41, 1.42, 1.50], [1.32, 1.35, 1.35]))
        # One sample of the other at or above one of the winner's: 2 of 20
        # splits are that extreme, more than ALPHA.
        self.assertFalse(causal.beats([1.64, 1.65, 1.87], [1.54, 1.70, 1.83]))
        self.assertFalse(causal.beats([1.0, 2.0, 3.0], [1.0, 2.0, 3.0]))

    def test_beats_with_more_rounds_allows_an_overlap(self):
        # 5 against 5: one overlapping pair (U = 1) is 2 of 252 splits.
        self.assertTrue(causal.beats([2.0, 2.1, 2.2, 2.3, 1.5], [1.0, 1.1, 1.2, 1.3, 1.6]))
        self.assertFalse(causal.beats([2.0, 2.1, 1.2, 1.1, 1.5], [1.0, 2.05, 1.25, 1.3, 1.6]))

    def test_postgres_quiet_is_a_tie_and_either_finding_is_right(self):
        s = samples(disk=[1.87, 1.64, 1.65], cpu=[1.83, 1.70, 1.54])
        truth, med = causal.truth_of(s)
        self.assertEqual(truth, 'cpu')
        self.assertEqual(causal.tied_with(s, truth, med), ['disk'])
        row = dict(truth=truth, tied=causal.tied_with(s, truth, med))
        self.assertEqual(causal.accepted(row), ['cpu', 'disk'])
        self.assertEqual(causal.truth_text(row), 'cpu = disk')

    def test_postgres_quiet_an_hour_later_is_a_tie_by_its_medians(self):
        # Every disk sample above every CPU sample, but the medians 1.74x
        # and 1.59x are closer than CLOSE.
        s = samples(disk=[1.74, 1.67, 1.74], cpu=[1.63, 1.59, 1.55])
        truth, med = causal.truth_of(s)
        self.assertTrue(causal.beats([1.74, 1.67, 1.74], [1.63, 1.59, 1.55]))
        self.assertEqual((truth, causal.tied_with(s, truth, med)), ('disk', ['cpu']))

    def test_a_separated_winner_stands_alone(self):
        s = samples(disk=[1.49, 1.63, 1.63], cpu=[0.95, 0.98, 1.05])
        truth, med = causal.truth_of(s)
        self.assertEqual((truth, causal.tied_with(s, truth, med)), ('disk', []))

    def test_a_relief_under_gain_never_ties(self):
        # memcached quiet: the lock relief overlaps nothing of the CPUs'
        # and its median is under GAIN anyway.
        s = samples(cpu=[1.13, 1.38, 1.42], lock=[1.03, 1.07, 1.12])
        truth, med = causal.truth_of(s)
        self.assertEqual((truth, causal.tied_with(s, truth, med)), ('cpu', []))

    def test_no_truth_accepts_nothing(self):
        self.assertEqual(causal.accepted(dict(truth='none', tied=[])), [])
        self.assertEqual(causal.accepted(dict(truth='unsure', tied=['cpu'])), [])


if __name__ == '__main__':
    unittest.main()
