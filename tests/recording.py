"""What the tests that record for real share: how they run or refuse to.

A test that needs root, tracefs, perf or LTTng and cannot have them FAILS
under CI=true (a skip there would hide a broken CI machine) and otherwise
SKIPs with meson's exit status 77, saying why.
"""

import os
import shutil
import sys
import unittest

SKIP = 77
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')


def main(why_not, what):
    """Run the calling module's unittest cases, or refuse: why_not() gives
    the reason recording cannot work here (None when it can); `what` names
    what the test records, for the message."""
    reason = why_not()
    if reason:
        if IN_CI:
            print('FAIL: cannot record %s under CI: %s' % (what, reason))
            sys.exit(1)
        print('SKIP: %s' % reason)
        sys.exit(SKIP)
    prog = unittest.main(verbosity=2, exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)


def why_not_wperf_record(*programs):
    """The reason `wperf record` of these built programs cannot work here
    (root for kernel events, lttng-tools for the annotations), or None."""
    if os.geteuid() != 0:
        return 'recording kernel events needs root (running as uid %d)' % os.geteuid()
    if not shutil.which('lttng') or not shutil.which('lttng-sessiond'):
        return 'lttng-tools is not installed'
    for prog in programs:
        if not os.access(prog, os.X_OK):
            return '%s is not built' % prog
    return None
