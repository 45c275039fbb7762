#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# wperf-lami — the wperf knot analysis as a LAMI 1.0 program (LTTng
# analyses machine interface), so Trace Compass can run it as an external
# analysis and show its tables: knots and sinks, wait-for edges, and the
# per-thread breakdown. The manual is wperf-lami(1) (doc/wperf-lami.1.md).
#
# It runs `babeltrace2 TRACE... -c sink.wperf.knots` (JSON report to a
# temporary file; --begin/--end become the sink's begin/end, which read the
# whole trace for thread names, processes and disk names and count only the
# selection, where babeltrace2's own --begin/--end would drop what the trace
# said before it) and converts the report (wperf-report(7)) to LAMI result
# tables. Python standard library only.
#
# It stays Python: LAMI producers conventionally are (LTTng's own
# lttng-analyses, which Trace Compass runs the same way), its work is
# turning one JSON document into another, and it runs babeltrace2 once per
# request, where the CLI's start-up is no cost worth a C rewrite.
#
# meson (tools/meson.build) fills in the @...@ values like for wperf(1):
# the copy in a build directory uses that build's plugin.
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

VERSION = "@VERSION@"
BUILD_DIR = "@BUILD_DIR@"             # empty in the installed copy
SYSTEM_PLUGIN_DIR = "@BT2_PLUGIN_DIR@"

MI_VERSION = {"major": 1, "minor": 0}

# What ended a wait (the JSON report's waiting_ns keys), grouped as columns.
WAIT_GROUPS = [
    ("Waiting on threads", ("thread",)),
    ("Waiting on devices", ("disk", "nic")),
    ("Waiting on interrupts", ("irq", "softirq")),
    ("Waiting on timers", ("timer",)),
    ("Waiting, other", ("unknown", "virtual")),
]


def col(title, cls, unit=None):
    c = {"title": title, "class": cls}
    if unit:
        c["unit"] = unit
    return c


TABLE_CLASSES = {
    "knots": {
        "title": "Knots and sinks of the wait-for graph (heaviest first)",
        "column-descriptions": [
            col("Rank", "number", "knot"),
            col("Kind", "string"),
            col("Members", "string"),
            col("Weight", "duration"),
            col("Heaviest edge", "string"),
            col("Internal edges", "number", "edges"),
            col("Edges cut by refinement", "number", "edges"),
            col("Refinement stopped", "string"),
            col("Looks like", "string"),
            # Weight = own + cascaded (wperf-report(7), WEIGHTS): only own
            # is a share of anyone's time, the waiters'. A weight is no
            # share of the analysed time: it can exceed it.
            col("Own waiting", "duration"),
            col("Own share of the waiters' time", "ratio"),
            col("Cascaded", "duration"),
        ],
    },
    "edges": {
        "title": "Wait-for edges (heaviest first)",
        "column-descriptions": [
            col("Waiter", "mixed"),
            col("Waited for", "mixed"),
            col("Weight", "duration"),
            col("Direct wait time", "duration"),
            col("Waits", "number", "waits"),
            col("Median wait (log2 bucket)", "duration"),
            col("In a knot", "bool"),
            col("Cascaded", "duration"),
            col("Own share of the waiter's time", "ratio"),
        ],
    },
    "threads": {
        "title": "Per-thread breakdown: running, runnable, waiting",
        "column-descriptions": (
            [col("Process", "process"),
             col("Seen", "time-range"),
             col("Running", "duration"),
             col("Runnable", "duration")]
            + [col(title, "duration") for title, _ in WAIT_GROUPS]
            + [col("Running share", "ratio"),
               col("Waits", "number", "waits")]),
    },
    "summary": {
        "title": "wperf summary",
        "column-descriptions": [
            col("Time range", "time-range"),
            col("Knots", "number", "knots"),
            col("Sinks", "number", "sinks"),
            col("Threads", "number", "threads"),
            col("Edges", "number", "edges"),
            col("Events", "number", "events"),
            col("Discarded events", "number", "events"),
            col("Threshold", "duration"),
        ],
    },
}


class Fail(Exception):
    """An error for the user: one line, and a LAMI error object."""


def version_object():
    m = re.match(r"(\d+)(?:\.(\d+))?(?:\.(\d+))?(.*)", VERSION)
    if not m:
        return {"major": 0, "minor": 0, "patch": 0, "extra": VERSION}
    return {"major": int(m.group(1)), "minor": int(m.group(2) or 0),
            "patch": int(m.group(3) or 0), "extra": m.group(4).lstrip("-+.")}


def metadata():
    return {
        "mi-version": MI_VERSION,
        "version": version_object(),
        "title": "wperf: bottleneck waits (wait-for graph knots)",
        "description": ("wPerf off-CPU analysis (OSDI'18): per-thread running, "
                        "runnable and waiting time, the wait-for graph with "
                        "cascaded redistribution of nested waits, and its knots "
                        "(groups of threads and devices that only wait on each "
                        "other: at least one wait inside each must get shorter "
                        "for throughput to rise)."),
        "authors": ["wperf"],
        "tags": ["linux-kernel", "wperf", "off-cpu", "wait-for-graph", "knots"],
        "table-classes": TABLE_CLASSES,
    }


# ------------------------------------------------------------ data objects

def ts(ns):
    return {"class": "timestamp", "value": int(ns)}


def time_range(begin, end):
    return {"class": "time-range", "begin": ts(begin), "end": ts(max(begin, end))}


def duration(ns):
    return {"class": "duration", "value": int(ns)}


def ratio(value):
    return {"class": "ratio", "value": float(value)}


def number(value):
    return {"class": "number", "value": value}


def string(value):
    return {"class": "string", "value": value}


def boolean(value):
    return {"class": "bool", "value": bool(value)}


def vertex_object(v):
    """A vertex as the LAMI object of its class: threads are processes,
    disks and NICs are disks and network interfaces, interrupts are IRQs."""
    kind, name = v.get("kind"), v.get("name", "?")
    if kind == "thread":
        obj = {"class": "process", "name": v.get("comm") or name}
        if isinstance(v.get("tid"), int):
            obj["tid"] = v["tid"]
        if isinstance(v.get("pid"), int) and v["pid"] >= 0:
            obj["pid"] = v["pid"]
        return obj
    if kind == "disk":
        return {"class": "disk", "name": name.split(":", 1)[-1]}
    if kind == "nic":
        return {"class": "netif", "name": name.split(":", 1)[-1]}
    if kind == "irq":
        m = re.fullmatch(r"irq:(\d+)(?::(.*))?", name)
        if m:
            obj = {"class": "irq", "hard": True, "nr": int(m.group(1))}
            if m.group(2):
                obj["name"] = m.group(2)
            return obj
    if kind == "softirq":
        softirqs = ["HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL",
                    "TASKLET", "SCHED", "HRTIMER", "RCU"]
        vec = name.split(":", 1)[-1]
        if vec in softirqs:
            return {"class": "irq", "hard": False, "nr": softirqs.index(vec), "name": vec}
    return string(name)


def vertex_label(v):
    if v.get("kind") == "thread":
        return f"{v.get('comm') or v.get('name')} ({v.get('tid')})"
    return v.get("name", "?")


def looks_like(knot):
    """The report's classification of a knot (a summary line), if it has one."""
    c = knot.get("classification")
    if isinstance(c, dict):
        return str(c.get("summary") or c.get("class") or "")
    return "" if c is None else str(c)


def median_low_ns(hist):
    """Lower bound of the range holding the median wait (the report's
    wperf_hist_median_range): the middle wait's log2 bucket, or for an
    even count the mean of the two middle waits' buckets' lower bounds
    (bucket b holds [2^b, 2^(b+1)) ns, bucket 0 also 0 ns)."""
    if not isinstance(hist, dict) or not hist:
        return None
    buckets = sorted((int(b), int(c)) for b, c in hist.items())
    total = sum(c for _, c in buckets)
    if total <= 0:
        return None

    def bucket_of_rank(k):
        seen = 0
        for b, c in buckets:
            seen += c
            if seen >= k:
                return b
        return buckets[-1][0]

    low = [0 if b == 0 else 1 << b
           for b in (bucket_of_rank((total + 1) // 2), bucket_of_rank(total // 2 + 1))]
    return (low[0] + low[1]) // 2


# ------------------------------------------------------------ conversion

def convert(report, limit):
    """The wperf JSON report → a LAMI analysis results object."""
    if not isinstance(report, dict) or report.get("format") != "wperf-report":
        raise Fail("babeltrace2 did not write a wperf report")
    tr = report["time_range"]
    begin, end = tr["begin_ns"], tr["end_ns"]
    vertices = {v["id"]: v for v in report["vertices"]}

    def cut(rows):
        return rows if limit is None else rows[:limit]

    knots = []
    in_knot = set()
    for rank, k in enumerate(report["knots"], 1):
        members = [vertices[m] for m in k["members"]]
        if k["kind"] != "sink":
            for e in k["edges"]:
                in_knot.add((e["from"], e["to"]))
        heaviest = ""
        if k["edges"]:
            e = k["edges"][0]
            heaviest = f"{vertex_label(vertices[e['from']])} -> {vertex_label(vertices[e['to']])}"
        knots.append([
            number(rank), string(k["kind"]),
            string(", ".join(vertex_label(v) for v in members)),
            duration(k["weight_ns"]), string(heaviest), number(len(k["edges"])), number(len(k["removed"])),
            string(k["stop_reason"]), string(looks_like(k)),
            duration(k.get("own_ns", k["weight_ns"])), ratio(k.get("own_share", 0.0)),
            duration(k.get("cascaded_ns", 0)),
        ])

    edges = []
    for e in sorted(report["edges"], key=lambda e: (-e["weight_ns"], e["from"], e["to"])):
        med = median_low_ns(e.get("hist"))
        edges.append([
            vertex_object(vertices[e["from"]]), vertex_object(vertices[e["to"]]),
            duration(e["weight_ns"]), duration(e["direct_ns"]), number(e["count"]), duration(med) if med is not None else {"class": "unknown"},
            boolean((e["from"], e["to"]) in in_knot),
            duration(e.get("cascaded_ns", e["weight_ns"] - e["direct_ns"])),
            ratio(e.get("own_share", 0.0)),
        ])

    threads = []
    rows = sorted(report["threads"],
                  key=lambda t: (-(t["running_ns"] + t["runnable_ns"]
                                   + sum(t["waiting_ns"].values())), t["id"]))
    for t in rows:
        if t["first_ns"] < 0:
            continue   # lived only outside the selection (the sink's begin/end)
        v = dict(vertices.get(t["id"], {}))
        v.setdefault("kind", "thread")
        v.update({"tid": t["tid"], "pid": t["pid"], "comm": t["comm"]})
        lifetime = t["last_ns"] - t["first_ns"]
        waiting = t["waiting_ns"]
        threads.append(
            [vertex_object(v) if v["kind"] == "thread" else string(v.get("name", "?")),
             time_range(t["first_ns"], t["last_ns"]),
             duration(t["running_ns"]), duration(t["runnable_ns"])]
            + [duration(sum(waiting.get(k, 0) for k in kinds)) for _, kinds in WAIT_GROUPS]
            + [ratio(t["running_ns"] / lifetime if lifetime > 0 else 0.0),
               number(t["waits"])])

    q = report.get("quality", {})
    summary = [[
        time_range(begin, end),
        number(sum(1 for k in report["knots"] if k["kind"] != "sink")),
        number(sum(1 for k in report["knots"] if k["kind"] == "sink")),
        number(len(report["threads"])), number(len(report["edges"])),
        number(q.get("events", 0)), number(q.get("discarded_events", 0)),
        duration(report["threshold"]["ns"]),
    ]]

    results = []
    for cls, data in (("knots", knots), ("edges", edges), ("threads", threads),
                      ("summary", summary)):
        if cls == "knots" and not data:
            # LAMI wants at least one row: say there is nothing to report.
            data = [[number(0), string("none"), string("no knots and no sinks were found"),
                     duration(0), string(""), number(0), number(0), string(""),
                     string(""), duration(0), ratio(0.0), duration(0)]]
        if not data:
            continue
        results.append({"time-range": time_range(begin, end), "class": cls,
                        "data": cut(data)})
    return {"results": results}


# ------------------------------------------------------------ babeltrace2

PLUGIN_FILE = "babeltrace-plugin-wperf.so"


def configured(value):
    """A value meson substituted into a command, or None where it was not
    (the source tree's copy still holds the placeholder), or is empty."""
    return value if value and not value.startswith("@") else None


def find_plugin_dir(option, build_dir, system_dir):
    """The directory of the wperf plugin: --plugin-path, $WPERF_PLUGIN_PATH,
    the command's build tree's plugin/, or babeltrace2's system plugin
    directory (where babeltrace2 looks by itself). A directory the user
    named must hold the plugin."""
    named = [d for d in (option, os.environ.get("WPERF_PLUGIN_PATH")) if d]
    candidates = list(named)
    if configured(build_dir):
        candidates.append(os.path.join(build_dir, "plugin"))
    if configured(system_dir):
        candidates.append(system_dir)
    for d in candidates:
        if os.path.isfile(os.path.join(d, PLUGIN_FILE)):
            # babeltrace2 does not load plugins through a symlinked dir.
            return os.path.realpath(d)
        if d in named:
            raise Fail(f"no {PLUGIN_FILE} in {d} (build it with `make build`, "
                                "or give the right --plugin-path)")
    raise Fail("the wperf babeltrace2 plugin is missing: install wperf "
                        "(make install) or pass --plugin-path=BUILD/plugin")


# A packetized CTF 1.8 metadata stream is a sequence of packets, each with
# a 37-byte header: magic 0x75D11D57, uuid[16], checksum, content_size and
# packet_size (in bits, uint32 each), then five one-byte fields. babeltrace2
# 2.0 spins forever on a metadata file cut inside a packet, so every packet
# is checked before the trace is handed over (the C command does the same,
# tools/wperf/ctf-metadata.c).
METADATA_MAGIC = 0x75D11D57
METADATA_HEADER = 37


def metadata_problem(path):
    """Why the metadata file PATH cannot be read whole, in one line, or
    None. Plain-text metadata (not packetized) is not checked here."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        return f"cannot read {path}: {e.strerror}"
    if len(data) < 4:
        return None if not data.strip() else f"{path} is cut short ({len(data)} bytes)"
    for order in "<>":
        if struct.unpack(order + "I", data[:4])[0] == METADATA_MAGIC:
            break
    else:
        return None     # text metadata: babeltrace2 reports its own errors
    offset, n = 0, 0
    while offset < len(data):
        n += 1
        head = data[offset:offset + METADATA_HEADER]
        if len(head) < METADATA_HEADER:
            return (f"{path} is cut short inside the header of metadata packet {n} "
                    f"(at byte {offset} of {len(data)}): the trace was not closed "
                    "properly or not copied whole")
        magic, content_bits, packet_bits = (struct.unpack(order + "I", head[:4])[0],
                                            *struct.unpack(order + "II", head[24:32]))
        if magic != METADATA_MAGIC:
            return (f"{path}: metadata packet {n} (at byte {offset}) has no packet "
                    "magic: the file is damaged")
        size = packet_bits // 8
        if packet_bits % 8 or size < METADATA_HEADER or content_bits > packet_bits:
            return (f"{path}: metadata packet {n} (at byte {offset}) has an impossible "
                    f"size ({packet_bits} bits, content {content_bits} bits): the file "
                    "is damaged")
        if offset + size > len(data):
            return (f"{path} is cut short inside metadata packet {n} (it needs bytes "
                    f"{offset} to {offset + size}, the file has {len(data)}): the trace "
                    "was not closed properly or not copied whole")
        offset += size
    return None


def check_metadata(paths):
    """metadata_problem() of every `metadata` file under the trace paths
    (directories are searched, links not followed): the first problem
    found, or None."""
    for top in paths:
        if os.path.isfile(top):
            found = [top] if os.path.basename(top) == "metadata" else []
        else:
            found = [os.path.join(root, "metadata") for root, _, files in os.walk(top)
                     if "metadata" in files]
        for path in sorted(found):
            problem = metadata_problem(path)
            if problem:
                return problem
    return None


# babeltrace2's CLI writes log lines ("11-22 07:31:43.460 31878 31878 E
# PLUGIN/CTF/META/DECODER func@file.c:257 [comp] message") and then the
# error's causes, newest first ("ERROR:    [actor] (file.c:line)", then
# "CAUSED BY [actor] (file.c:line)", each followed by its message wrapped
# on indented lines).
LOG_LINE = re.compile(r"^\d\d-\d\d [\d:.]+ +\d+ +\d+ ([WEF]) (\S+) \S+ (?:\[[^]]*\] )?(.*)$")
CAUSE = re.compile(r"^(?:ERROR: +|CAUSED BY )\[([^]]*)\]")


def causes(stderr):
    """[(actor, message)] of babeltrace2's error, newest first."""
    found = []
    for line in stderr.splitlines():
        m = CAUSE.match(line)
        if m:
            found.append([m.group(1), ""])
        elif found and line.startswith("  "):
            found[-1][1] = (found[-1][1] + " " + line.strip()).strip()
        elif found and line.strip():
            break   # past the error block
    return [tuple(c) for c in found]


def without_fields(msg):
    """A library message without its trailing `: key=value, ...` dump."""
    return re.sub(r"[:,]\s+[\w-]+=\S.*$", "", msg).strip()


def failure(stderr):
    """Why babeltrace2 failed, in one line: the wperf component's own
    message when one of them stopped (it already names the cause and the
    fix), else the first error babeltrace2 logged (where it began), else
    the oldest cause; with a hint for the failures users meet most."""
    for actor, msg in causes(stderr):
        if "wperf" in actor and msg:
            return msg
    logs = [m for m in map(LOG_LINE.match, stderr.splitlines()) if m]
    errors = [m.group(3) for m in logs if m.group(1) in "EF"
              and not m.group(3).startswith("Command-line error")]
    warnings = [m.group(3) for m in logs if m.group(1) == "W"]
    if any("No trace was found based on input" in w for w in warnings + errors) or \
            any(msg.startswith("No source component") for _, msg in causes(stderr)):
        return ("no CTF trace there (a trace directory has a `metadata` file "
                "beside its stream files; record one with `wperf record`)")
    # The CTF metadata decoder logs as PLUGIN/CTF/META/...
    metadata = [m.group(3) for m in logs if "/META" in m.group(2)]
    if metadata:
        return (f"its CTF metadata cannot be read ({without_fields(metadata[0])}): "
                "not a CTF trace, or a damaged one")
    if errors:
        return without_fields(errors[0])
    found = causes(stderr)
    if found:
        return without_fields(found[-1][1])
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else "babeltrace2 failed without saying why"


def plugin_dir(option):
    return find_plugin_dir(option, BUILD_DIR, SYSTEM_PLUGIN_DIR)


def parse_ts(text, option):
    """A LAMI timestamp: integer nanoseconds (Trace Compass passes these);
    SEC.NSEC is accepted too. Returned as babeltrace2's `SEC.NSEC` (the
    sink's begin/end take the trimmer's forms)."""
    m = re.fullmatch(r"\s*(-?)(\d+)(?:\.(\d{1,9}))?\s*", text or "")
    if not m:   # a bad option value: a usage error (exit 2), as for --limit
        raise UsageError(f"{option}={text}: expected a timestamp in nanoseconds (e.g. "
                   f"{option}=1521484760000000000)")
    neg, whole, frac = m.groups()
    if frac is None:
        ns = int(whole)
    else:
        ns = int(whole) * 10**9 + int(frac.ljust(9, "0"))
    sec, nsec = divmod(ns, 10**9)
    return ns * (-1 if neg else 1), f"{neg}{sec}.{nsec:09d}"


def quoted(value):
    """A string value for babeltrace2's --params (quoted, escaped)."""
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def analyse(args):
    window = []   # the sink's begin/end: the whole trace read, the selection counted
    begin = end = None
    if args.begin is not None:
        begin, text = parse_ts(args.begin, "--begin")
        window.append(f"begin={quoted(text)}")
    if args.end is not None:
        end, text = parse_ts(args.end, "--end")
        window.append(f"end={quoted(text)}")
    if begin is not None and end is not None and end < begin:
        raise Fail(f"--end={args.end} is before --begin={args.begin}")
    for t in args.traces:
        if not os.path.exists(t):
            raise Fail(f"no trace at {t}: give the path of a trace directory")
    plugins = plugin_dir(args.plugin_path)
    cmd = ["babeltrace2", f"--plugin-path={plugins}"]
    progress(args, 0, "running babeltrace2 with sink.wperf.knots")
    with tempfile.TemporaryDirectory(prefix="wperf-lami-") as tmp:
        out = os.path.join(tmp, "report.json")
        # LAMI's tables are per thread (tid and process columns): pools
        # are not merged here.
        params = ['format="json"', f"path={quoted(out)}", 'merge="none"'] + window
        if args.pids:
            params.append(f"pids={quoted(args.pids)}")
        if args.threshold:
            params.append(f"threshold={quoted(args.threshold)}")
        cmd += list(args.traces) + ["-c", "sink.wperf.knots", "--params=" + ",".join(params)]
        # babeltrace2 2.0 spins forever on a metadata file cut inside a packet.
        problem = check_metadata(args.traces)
        if problem:
            raise Fail(f"cannot analyse {' '.join(args.traces)}: {problem}")
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, errors="replace",
                               timeout=args.timeout or None)
        except FileNotFoundError:
            raise Fail("babeltrace2 is missing: install it (apt-get install babeltrace2)")
        except subprocess.TimeoutExpired:
            raise Fail(f"babeltrace2 did not finish within {args.timeout:g} s "
                       "(--timeout SECONDS, 0 for no limit)")
        if p.returncode != 0:
            raise Fail(f"babeltrace2 cannot analyse {' '.join(args.traces)}: "
                       f"{failure(p.stderr)}")
        progress(args, 0.9, "converting the report")
        try:
            with open(out, encoding="utf-8") as f:
                report = json.load(f)
        except (OSError, ValueError) as e:
            raise Fail(f"babeltrace2 wrote no readable report ({e})")
    return convert(report, args.limit)


def progress(args, value, message):
    if args.output_progress:
        print(f"{value} {message}", flush=True)


# ------------------------------------------------------------ CLI

class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise UsageError(f"{message} (see wperf-lami --help)")


class UsageError(Exception):
    pass


def build_parser():
    p = Parser(prog="wperf-lami", description=(
        "The wperf knot analysis as a LAMI 1.0 program: Trace Compass runs it "
        "as an external analysis. --metadata prints the table classes; with "
        "a TRACE, prints the knots, edges and per-thread tables as JSON."))
    p.add_argument("traces", nargs="*", metavar="TRACE")
    p.add_argument("--metadata", action="store_true", help="print the LAMI metadata object")
    p.add_argument("--mi-version", action="store_true",
                   help="print the LAMI version this program speaks (1.0)")
    p.add_argument("--version", action="store_true", help="print wperf-lami's version")
    p.add_argument("--begin", metavar="TS", help="analyse from TS (ns since the clock's origin)")
    p.add_argument("--end", metavar="TS", help="analyse up to TS (ns)")
    p.add_argument("--limit", metavar="N", default="unlimited",
                   help="at most N rows per table (default: unlimited)")
    p.add_argument("--output-progress", action="store_true",
                   help="print LAMI progress lines before the results")
    p.add_argument("--plugin-path", metavar="DIR",
                   help="directory of babeltrace-plugin-wperf.so")
    p.add_argument("--pids", metavar="LIST", help="focus: pids or tids (sink parameter pids)")
    p.add_argument("--threshold", metavar="T", help='refinement threshold ("20%%", "250ms")')
    p.add_argument("--timeout", type=float, default=3600, metavar="SECONDS",
                   help="stop babeltrace2 after SECONDS (default 3600; 0: no limit)")
    return p


def main(argv):
    args = build_parser().parse_args(argv)
    if args.mi_version:
        print(f"{MI_VERSION['major']}.{MI_VERSION['minor']}")
        return 0
    if args.version:
        print(f"wperf-lami {VERSION}")
        return 0
    if args.metadata:
        print(json.dumps(metadata()))
        return 0
    if not args.traces:
        raise UsageError("a TRACE is required (or --metadata / --mi-version)")
    if args.limit == "unlimited":
        args.limit = None
    elif re.fullmatch(r"\d+", args.limit) and int(args.limit) > 0:
        args.limit = int(args.limit)
    else:
        raise UsageError(f"--limit={args.limit}: expected a positive count or `unlimited`")
    results = analyse(args)
    progress(args, 1, "done")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except UsageError as e:
        print(f"wperf-lami: error: {e}", file=sys.stderr)
        sys.exit(2)
    except Fail as e:
        print(json.dumps({"error-message": str(e)}))
        print(f"wperf-lami: error: {e}", file=sys.stderr)
        sys.exit(1)
    except BrokenPipeError:
        # The reader went away (`| head`): Python's advice, stdout to /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)
    except KeyboardInterrupt:
        sys.exit(130)
