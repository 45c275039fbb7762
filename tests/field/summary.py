#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Each field case's judgment, gathered from meson's test logs, so that a
`make check` log shows what the report said of every case and mode
(right, wrong, known wrong, skipped and why), not only that the suite
passed.

    tests/field/summary.py BUILD/meson-logs/testlog.json...

Reads the `field-judgment: CASE MODE OUTCOME` lines test_field.py prints
(one per test) from each test's output; prints them sorted, then the
counts. Prints nothing when no field test ran. Always exits 0: it
reports, the tests judge.
"""

import json
import sys

PREFIX = 'field-judgment: '


def judgments(paths):
    out = []
    for path in paths:
        try:
            with open(path, encoding='utf-8', errors='replace') as f:
                lines = f.readlines()
        except OSError:
            continue
        for line in lines:
            try:
                test = json.loads(line)
            except ValueError:
                continue
            for text in (test.get('stdout') or '').splitlines():
                if text.startswith(PREFIX):
                    out.append(text[len(PREFIX):])
    return sorted(set(out))


def main():
    found = judgments(sys.argv[1:])
    if not found:
        return 0
    counts = {}
    print('field: what the default report said of each case (tests/field/README.md)')
    for j in found:
        print('  ' + j)
        parts = j.split(' ', 2)
        outcome = parts[2].split(':')[0] if len(parts) == 3 else '?'
        counts[outcome] = counts.get(outcome, 0) + 1
    print('field: ' + ', '.join('%d %s' % (n, k) for k, n in sorted(counts.items())))
    return 0


if __name__ == '__main__':
    sys.exit(main())
