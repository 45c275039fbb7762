#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The documentation states current facts: no issue numbers and no paths
outside the repository.

Every page of doc/ (the manual pages installed from it and the others) and
README.md is read; a line that cites an issue ("issue 7", "Issue 21's",
"issue-7") or names the shared material by a path outside the
checkout ("../shared") fails the test, with the file and line. A reader of
an installed man page has neither the issue tracker nor ../shared.

Usage: check-docs.py SOURCE_ROOT
"""

import glob
import os
import re
import sys

ISSUE = re.compile(r'\bissues?[ -]?#?\d+', re.I)
OUTSIDE = re.compile(r'\.\./shared\b')


def docs(root):
    pages = sorted(glob.glob(os.path.join(root, 'doc', '*.md')))
    return pages + [os.path.join(root, 'README.md')]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..')
    pages = docs(root)
    if len(pages) < 10:
        print('FAIL: only %d documentation pages under %s' % (len(pages), root))
        return 1
    bad = 0
    for page in pages:
        with open(page, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                for what, pattern in (('cites an issue', ISSUE),
                                      ('names a path outside the repository', OUTSIDE)):
                    m = pattern.search(line)
                    if m:
                        print('FAIL: %s:%d %s (%r): say the fact instead' %
                              (os.path.relpath(page, root), n, what, m.group(0)))
                        bad += 1
    print('%d pages read, %d line(s) to fix' % (len(pages), bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
