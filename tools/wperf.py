#!/usr/bin/python3
# wperf-py — the Python half of the `wperf` command, which records a
# program's kernel and LTTng-UST events and reports the knots of its
# wait-for graph (wPerf, OSDI'18). The manual is wperf(1) (doc/wperf.1.md).
#
# The command users run is bin/wperf, in C (tools/wperf/): it does `wperf
# report`, `wperf stop`, `wperf record` and `wperf snapshot` itself and
# hands top and diff, with their arguments unchanged, to this program, a
# private one
# (libexec/wperf/wperf-py; build/tools/wperf-py in a build tree). Those subcommands move to C on
# liblttng-ctl one at a time; `wperf diff` stays here (tools/wperf_diff.py
# says why).
#
# This script only drives other programs: lttng (the live session of
# `wperf top`) and babeltrace2 with the wperf plugin (source.wperf.tracefs
# where LTTng's kernel tracer is missing; sink.wperf.knots). Python
# standard library only, so it needs nothing outside Debian packages.
#
# meson (tools/meson.build) fills in the @...@ values: the copy in a build
# directory knows that build's plugin and UST provider; the installed copy
# knows the system directories.
import argparse
import fcntl
import importlib
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

VERSION = "@VERSION@"
BUILD_DIR = "@BUILD_DIR@"             # empty in the installed copy
SYSTEM_PLUGIN_DIR = "@BT2_PLUGIN_DIR@"
LIBDIR = "@LIBDIR@"
DATADIR = "@DATADIR@"                 # share/: our Python modules are in DATADIR/wperf/python

PRIVATE = ".wperf"        # logs and lock (babeltrace2 ignores them)

# Kernel events for LTTng's kernel tracer (lttng-modules), in its names
# (net_if_receive_skb, not the kernel's netif_receive_skb): the kernel
# events of the session profile sessions/wperf.lttng, which
# sessions/test-profiles.py keeps in step with this list. The first eight
# are required.
LTTNG_KERNEL_EVENTS = [
    "sched_switch", "sched_waking", "sched_wakeup", "sched_wakeup_new",
    "sched_process_fork", "sched_process_exec", "sched_process_exit",
    "sched_process_free", "irq_handler_entry", "irq_handler_exit",
    "irq_softirq_entry", "irq_softirq_exit", "irq_softirq_raise",
    "timer_hrtimer_expire_entry", "timer_hrtimer_expire_exit",
    "timer_expire_entry", "timer_expire_exit",
    "block_rq_insert", "block_rq_issue", "block_rq_complete",
    "net_dev_xmit", "net_if_receive_skb",
    "lttng_statedump_start", "lttng_statedump_end",
    "lttng_statedump_process_state", "lttng_statedump_process_pid_ns",
    "lttng_statedump_block_device", "lttng_statedump_interrupt",
    "lttng_statedump_network_interface", "lttng_statedump_cpu_topology",
]


class Fail(Exception):
    """An error for the user: printed as one line, exit status 1."""


def say(msg):
    print(f"wperf: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- helpers

def clean_env():
    """The environment for daemons: without the sanitizer or UST preloads
    of a test run (lttng-sessiond must not run under them)."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env


def run(cmd, check=True, env=None, quiet=False):
    """Run a command, capture its output; on failure raise Fail with the
    last line it printed, which is where lttng says what went wrong."""
    p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, env=env)
    if check and p.returncode != 0:
        lines = [l for l in p.stdout.splitlines() if l.strip()]
        why = lines[-1].strip() if lines else f"exit status {p.returncode}"
        raise Fail(f"`{' '.join(cmd[:3])} ...` failed: {why}")
    return p


def need_program(name, package):
    if not shutil.which(name):
        raise Fail(f"{name} is missing: install it (apt-get install {package})")


def tracefs_dir():
    """Where tracefs is mounted (mounting it if we may), else None."""
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 2 and parts[2] == "tracefs":
                return parts[1]
    if os.geteuid() == 0 and os.path.isdir("/sys/kernel/tracing"):
        if subprocess.run(["mount", "-t", "tracefs", "nodev",
                           "/sys/kernel/tracing"]).returncode == 0:
            return "/sys/kernel/tracing"
    return None


def shared():
    """tools/wperf_babeltrace.py (what wperf and wperf-lami share): beside
    this script (build tree), or installed in DATADIR/wperf/python."""
    return load_module("wperf_babeltrace")


def plugin_dir(option):
    """--plugin-path, $WPERF_PLUGIN_PATH, this build tree's plugin, or the
    system plugin directory (where babeltrace2 looks by itself)."""
    try:
        return shared().plugin_dir(option, BUILD_DIR, SYSTEM_PLUGIN_DIR)
    except shared().PluginMissing as e:
        raise Fail(str(e))


def create_private_file(path):
    """A new file the recorder writes (never through a link, never an
    existing file), as a text stream."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | os.O_CLOEXEC, 0o644)
    return os.fdopen(fd, "w")


def replace_private_file(path):
    """create_private_file() for a file that may exist from an earlier
    write: the old one is unlinked first (a link is removed, not followed)."""
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    return create_private_file(path)


def params_string(value):
    """A string value for babeltrace2's --params (quoted, escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


# ---------------------------------------------------------------- LTTng

def sessiond_running():
    return run(["lttng", "list"], check=False).returncode == 0


def sessiond_lock_path():
    lockdir = "/run/lock" if os.access("/run/lock", os.W_OK) else tempfile.gettempdir()
    return os.path.join(lockdir, f"wperf-sessiond-{os.getuid()}.lock")


def sessiond_lock():
    """A lock every wperf of this user takes around starting and stopping
    the session daemon: two recordings started together must not both
    start one (the second fails), nor one stop it under the other."""
    # The lock directory is shared by all users (/run/lock is mode 1777):
    # never follow a link planted there.
    fd = os.open(sessiond_lock_path(),
                 os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    f = os.fdopen(fd, "a+")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def wperf_sessiond_pidfile(lock):
    """Where the pid of a session daemon some wperf started is kept: the
    last wperf to finish stops it, whichever started it."""
    return sessiond_lock_path()[:-len(".lock")] + ".pid"


def ensure_sessiond(out):
    """Start lttng-sessiond if none answers; return its pid if we did."""
    need_program("lttng", "lttng-tools")
    with sessiond_lock() as lock:
        if sessiond_running():
            return None
        need_program("lttng-sessiond", "lttng-tools")
        pidfile = os.path.join(out, PRIVATE, "sessiond.pid")
        with replace_private_file(os.path.join(out, PRIVATE, "sessiond.log")) as log:
            p = subprocess.run(["lttng-sessiond", "--daemonize", f"--pidfile={pidfile}"],
                               stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                               env=clean_env())
        if p.returncode != 0 or not sessiond_running():
            with open(os.path.join(out, PRIVATE, "sessiond.log")) as log:
                lines = [l.strip() for l in log if l.strip()]
            why = lines[-1] if lines else f"exit status {p.returncode}"
            raise Fail(f"no lttng-sessiond is running and none could be started: {why}")
        with open(pidfile) as f:
            pid = int(f.read().strip())
        with replace_private_file(wperf_sessiond_pidfile(lock)) as f:
            f.write(f"{pid}\n")
        return pid


def stop_sessiond_if_ours(pid):
    """Stop the session daemon a wperf started (this one or another, as
    recordings may overlap), unless a session still uses it. A daemon the
    user started is left alone. `pid` is kept for the state file's sake."""
    del pid
    with sessiond_lock() as lock:
        shared = wperf_sessiond_pidfile(lock)
        try:
            fd = os.open(shared, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with os.fdopen(fd) as f:
                if os.fstat(f.fileno()).st_uid != os.geteuid():
                    raise ValueError("written by another user")
                pid = int(f.read().strip())
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "lttng-sessiond":
                    raise ValueError("not a session daemon")
        except (OSError, ValueError):
            if os.path.lexists(shared):
                os.unlink(shared)   # gone, or the pid taken by another process
            return
        listing = run(["lttng", "list"], check=False).stdout
        if re.search(r"^\s*\d+\) ", listing, re.M):
            say(f"leaving lttng-sessiond (pid {pid}) running: it has other sessions")
            return
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        for _ in range(100):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        os.unlink(shared)


def lttng_kernel_available():
    """lttng-modules loaded: `lttng list -k` answers (else the tracefs path)."""
    return run(["lttng", "list", "-k"], check=False).returncode == 0


def subbuf_args(buffer_kb):
    """Four sub-buffers per CPU of a power-of-two size adding up to at most
    buffer_kb (LTTng wants powers of two; four lets the consumer write
    one while the tracer fills the others)."""
    size = 4096
    while size * 2 * 4 <= buffer_kb * 1024:
        size *= 2
    return [f"--subbuf-size={size}", "--num-subbuf=4"]


def enable_lttng_channels(name, snapshot, kernel, ust_events, buffer_kb, stacks=False):
    """The channels, events and contexts of session `name` (the wperf
    profile's, sessions/wperf.lttng)."""
    mode = ["--overwrite"] if snapshot else []
    if kernel:
        run(["lttng", "enable-channel", "-k", "-s", name, "wperf-kernel"]
            + mode + subbuf_args(buffer_kb))
        # The scheduler events are required; the others may be missing
        # from an older lttng-modules, and are then left out.
        run(["lttng", "enable-event", "-k", "-s", name, "-c", "wperf-kernel",
             ",".join(LTTNG_KERNEL_EVENTS[:8])])
        for ev in LTTNG_KERNEL_EVENTS[8:]:
            run(["lttng", "enable-event", "-k", "-s", name, "-c", "wperf-kernel", ev],
                check=False)
        run(["lttng", "add-context", "-k", "-s", name, "-c", "wperf-kernel",
             "-t", "tid", "-t", "pid", "-t", "procname"])
        if stacks:
            # Where each wait began (sched_switch carries prev's stacks).
            run(["lttng", "add-context", "-k", "-s", name, "-c", "wperf-kernel",
                 "-t", "callstack-kernel", "-t", "callstack-user"])
    run(["lttng", "enable-channel", "-u", "-s", name, "wperf-ust"]
        + mode + subbuf_args(buffer_kb))
    run(["lttng", "enable-event", "-u", "-s", name, "-c", "wperf-ust", ust_events])
    run(["lttng", "add-context", "-u", "-s", name, "-c", "wperf-ust",
         "-t", "vtid", "-t", "vpid", "-t", "procname"])


def destroy_lttng_session(name):
    run(["lttng", "destroy", name], check=False)


# ------------------------------------------------------ tracefs

def check_kernel_permission(tracefs):
    if os.geteuid() != 0:
        raise Fail("recording kernel events needs root: run it with sudo "
                   "(sudo wperf record ...)")
    if not tracefs:
        raise Fail("tracefs is not mounted and could not be mounted "
                   "(mount -t tracefs nodev /sys/kernel/tracing)")


# ------------------------------------------------------------ stopping

class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP: ends a recording like Ctrl-C, and the command too."""


def on_sigterm(signum, frame):
    raise Terminated()


def ignore_stop_signals():
    """While tearing down: a second Ctrl-C, a `kill` or a closed terminal
    must not leave the kernel recorder, the session or the session daemon
    behind (the teardown is bounded: the recorder is killed after 120 s)."""
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, signal.SIG_IGN)


def start_relayd(work):
    """Our own lttng-relayd on the default ports (the live port is 5344),
    writing into work/relayd; None if one runs already (then it is used).
    Not daemonized: its pid is ours to stop."""
    need_program("lttng-relayd", "lttng-tools")
    for pid in os.listdir("/proc"):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if pid.isdigit() and f.read().strip() == "lttng-relayd":
                    say(f"using the running lttng-relayd (pid {pid})")
                    return None
        except OSError:
            pass
    log = open(os.path.join(work, "relayd.log"), "w")
    proc = subprocess.Popen(["lttng-relayd", "-o", os.path.join(work, "relayd")],
                            stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                            env=clean_env(), start_new_session=True)
    log.close()
    # Listening takes a moment; a relayd that cannot (ports taken) exits.
    for _ in range(20):
        if proc.poll() is not None:
            with open(os.path.join(work, "relayd.log")) as f:
                lines = [l.strip() for l in f if l.strip()]
            raise Fail("lttng-relayd could not start: "
                       + (lines[-1] if lines else f"exit status {proc.returncode}"))
        time.sleep(0.05)
    return proc


def stop_process(proc, timeout=10):
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def top_sink_params(args):
    params = [f"every={params_string(args.every)}"]
    for dest, param in (("format", "format"), ("output", "path"), ("pids", "pids"),
                        ("comms", "comms"), ("threshold", "threshold"),
                        ("min_weight", "min-weight")):
        if getattr(args, dest) is not None:
            params.append(f"{param}={params_string(getattr(args, dest))}")
    if args.params:
        params.append(args.params)
    return ",".join(params)


def wait_attached(name, bt, timeout=60):
    """Until the relay daemon lists a viewer of session `name` (True), or
    babeltrace2 ended or the timeout passed (False)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and bt.poll() is None:
        listing = run(["babeltrace2", "-i", "lttng-live", "net://127.0.0.1"],
                      check=False).stdout
        for line in listing.splitlines():
            if f"/{name} " in line and " 0 client(s)" not in line:
                return True
        time.sleep(0.5)
    return False


def wait_viewer(bt, deadline):
    """Until Ctrl-C (or SIGTERM), the deadline, or babeltrace2's end."""
    try:
        while deadline is None or time.monotonic() < deadline:
            if bt.poll() is not None:
                return
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass


def finish_viewer(bt, what):
    """babeltrace2 writes its final report once its input ended."""
    try:
        code = bt.wait(timeout=120)
    except subprocess.TimeoutExpired:
        bt.kill()
        bt.wait()
        raise Fail(f"babeltrace2 did not end within 120 s of {what}")
    if code != 0 and stdout_closed():
        return 0    # the reader went away (`wperf top | head`): say nothing
    if code != 0:
        raise Fail(f"babeltrace2 failed (exit status {code}): see its error above")
    return 0


def top_lttng(args, plugins, work, sessiond):
    """LTTng's way: a live session streamed to lttng-relayd, read by
    babeltrace2's lttng-live source; destroying the session ends it."""
    name = f"wperf-top-{os.getpid()}"
    relayd, bt, status = None, None, 0
    try:
        relayd = start_relayd(work)
        run(["lttng", "create", name, "--live"])
        # The profile's channels and events (as wperf record's sessions).
        enable_lttng_channels(name, False, True, "wperf:*", args.buffer_size_kb)
        run(["lttng", "start", name])
        # 127.0.0.1, not localhost: a minimal system may lack /etc/hosts.
        url = f"net://127.0.0.1/host/{os.uname().nodename}/{name}"
        # The live source ends when the session is gone, not waits for
        # another one of that name (babeltrace2-source.ctf.lttng-live(7)).
        cmd = ["babeltrace2", f"--plugin-path={plugins}", "-i", "lttng-live", url,
               "--params=session-not-found-action=end",
               "-c", "sink.wperf.knots", "--params=" + top_sink_params(args)]
        say(f"watching through LTTng live session {name} (kernel events: lttng), "
            f"a report every {args.every}; Ctrl-C for the final report")
        # Its own process group: Ctrl-C is ours, to end the session.
        bt = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = None if args.duration is None else time.monotonic() + args.duration
        if wait_attached(name, bt):
            # A viewer may begin after the statedump of `lttng start`:
            # every thread's name and state again, now that it reads.
            run(["lttng", "regenerate", "statedump", "-s", name], check=False)
        wait_viewer(bt, deadline)
    finally:
        ignore_stop_signals()
        destroy_lttng_session(name)
        try:
            if bt is not None:
                status = finish_viewer(bt, "the session's end")
        finally:
            stop_process(relayd)
            stop_sessiond_if_ours(sessiond)
    return status


def top_tracefs(args, plugins):
    """Without lttng-modules: source.wperf.tracefs reads ftrace's buffers
    as they fill; its `duration` ends it cleanly."""
    tracefs = tracefs_dir()
    check_kernel_permission(tracefs)
    src = []
    if args.duration is not None:
        src = [f"--params=duration={args.duration:g}"]
    cmd = (["babeltrace2", f"--plugin-path={plugins}", "-c", "source.wperf.tracefs"] + src
           + ["-c", "sink.wperf.knots", "--params=" + top_sink_params(args)])
    say("LTTng's kernel tracer is not available (lttng-modules not loaded): watching "
        "through ftrace (source.wperf.tracefs); "
        + ("the final report at the end of --duration" if args.duration is not None
           else "Ctrl-C ends it without a final report (give --duration for one)"))
    bt = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_viewer(bt, None)
    finally:
        ignore_stop_signals()
        if bt.poll() is None and args.duration is None:
            bt.send_signal(signal.SIGINT)   # babeltrace2 stops its graph: no final report
            bt.wait()
            return 130
    return finish_viewer(bt, "--duration")


# A duration as sink.wperf.knots reads it (plugin/params.c): a number, an
# optional unit, seconds without one.
DURATION = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*(ns|us|ms|s|m|min|h)?\s*")
DURATION_NS = {None: 1e9, "ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "min": 60e9,
               "h": 3600e9}


def check_every(text):
    """--every, checked before any daemon starts (the sink would refuse it
    only once the live session runs)."""
    m = DURATION.fullmatch(text)
    if not m or float(m.group(1)) * DURATION_NS[m.group(2)] < 1e6:
        raise Fail(f"--every {text!r}: expected a duration of at least 1 ms, a number "
                   "with ns, us, ms, s, m, min or h (seconds without), e.g. 5s")


def cmd_top(args):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, on_sigterm)
    signal.signal(signal.SIGHUP, on_sigterm)
    check_every(args.every)
    if args.duration is not None and args.duration <= 0:
        raise Fail("--duration must be greater than zero (seconds)")
    if not 4 <= args.buffer_size_kb <= 1048576:
        raise Fail("--buffer-size-kb must be between 4 and 1048576")
    need_program("babeltrace2", "babeltrace2")
    if os.geteuid() != 0:
        raise Fail("watching kernel events needs root: run it with sudo (sudo wperf top)")
    plugins = plugin_dir(args.plugin_path)
    work = tempfile.mkdtemp(prefix="wperf-top-")
    os.makedirs(os.path.join(work, PRIVATE))
    try:
        sessiond = None
        kernel = False
        if shutil.which("lttng") and shutil.which("lttng-relayd"):
            sessiond = ensure_sessiond(work)
            kernel = lttng_kernel_available()
            if not kernel:
                stop_sessiond_if_ours(sessiond)
        if kernel:
            return top_lttng(args, plugins, work, sessiond)
        return top_tracefs(args, plugins)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def stdout_closed():
    """Our standard output is a pipe whose reader has gone (POLLERR), as
    after `wperf report ... | head`: babeltrace2's failed write is no
    error to report."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(ev & (select.POLLERR | select.POLLHUP) for _, ev in poller.poll(0))
    except (OSError, ValueError):
        return False


USAGE = """\
wperf's Python half: bin/wperf runs it for the subcommands below (and does
`wperf report`, `wperf stop`, `wperf record` and `wperf snapshot` itself).

usage: wperf top [--every DURATION] [--duration SECONDS] [--format text|json]
                 [--output FILE] [--pids LIST | --comms LIST] [--params STR]
       wperf diff [--format text|json] [--fail-if-knot-grows PCT] [--min-change PCT]
                  [--absolute] [--top N] A.json B.json

Record a program's kernel and LTTng-UST events, and report the knots
(cycles of waiting) that bound its throughput (wPerf). See wperf(1).

commands:
  top       watch the running system: the knots of the last period and of the run so
            far, every --every (an LTTng live session; ftrace without lttng-modules)
  diff      compare two JSON reports (before/after): knots, edges, wait lengths

`wperf COMMAND --help` describes each command's options.
"""

class Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line."""

    def error(self, message):
        raise Fail(f"{self.prog}: {message} (see {self.prog} --help)")


def build_parsers():
    top = Parser(prog="wperf top", description=(
        "Watch the running system: an LTTng live session (lttng-relayd, "
        "`lttng create --live`, the wperf profile's events) read by babeltrace2's "
        "lttng-live source into sink.wperf.knots with every=: at each period, the "
        "knots of the period just ended and of the whole run so far. Ctrl-C (or "
        "--duration) destroys the session; the final report follows. Without "
        "lttng-modules, ftrace through source.wperf.tracefs."))
    top.add_argument("--every", default="5s", metavar="DURATION",
                     help='report period ("5s", "500ms", seconds; default 5s)')
    top.add_argument("--duration", type=float, metavar="SECONDS",
                     help="stop after SECONDS (default: until Ctrl-C)")
    top.add_argument("--format", choices=["text", "json"],
                     help="text (default) or json: one object per line")
    top.add_argument("--output", metavar="FILE",
                     help="write the reports to FILE as they come (default: standard output)")
    top.add_argument("--pids", metavar="LIST", help="focus: pids or tids, comma-separated")
    top.add_argument("--comms", metavar="LIST", help="focus: thread names, comma-separated")
    top.add_argument("--threshold", metavar="T", help='refinement threshold ("20%%", "250ms")')
    top.add_argument("--min-weight", metavar="W", help='noise floor ("1%%", "5ms")')
    top.add_argument("--params", metavar="STR",
                     help="more sink parameters, in babeltrace2's --params syntax")
    top.add_argument("--buffer-size-kb", type=int, default=4096, metavar="KB",
                     help="ring buffer size per CPU of each channel (default 4096)")
    top.add_argument("--plugin-path", metavar="DIR",
                     help="directory of babeltrace-plugin-wperf.so")
    return {"top": top}


def load_module(name):
    """One of wperf's Python modules (wperf_diff, wperf_babeltrace): beside
    this script (build tree), or installed in DATADIR/wperf/python."""
    here = os.path.dirname(os.path.realpath(__file__))
    installed = os.path.join(DATADIR, "wperf", "python")
    for d in (here, installed):
        if os.path.isfile(os.path.join(d, name + ".py")):
            if d not in sys.path:
                sys.path.insert(0, d)
            break
    try:
        return importlib.import_module(name)
    except ImportError:
        raise Fail(f"{name}.py is missing (looked in {here} and {installed}): "
                   "reinstall wperf")


def load_diff():
    return load_module("wperf_diff")


def main(argv):
    parsers = build_parsers()
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(USAGE, end="")
        return 0 if argv else 2
    if argv[0] == "--version":
        print(f"wperf {VERSION}")
        return 0
    if argv[0] == "diff":
        return load_diff().main(argv[1:])
    if argv[0] in ("report", "stop", "snapshot", "record", "_watch"):
        raise Fail(f"wperf {argv[0]} is done by the wperf command itself (bin/wperf), "
                   f"not by its Python half: run wperf {argv[0]}")
    sub = parsers.get(argv[0])
    if not sub:
        raise Fail(f"unknown command `{argv[0]}` (commands: record, snapshot, "
                   "stop, top, report, diff; see wperf --help)")
    args = sub.parse_args(argv[1:])
    return {"top": cmd_top}[argv[0]](args)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Fail as e:
        say(f"error: {e}")
        sys.exit(1)
    except KeyboardInterrupt:
        say("interrupted")
        sys.exit(130)
