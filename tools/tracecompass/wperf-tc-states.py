#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# wperf-tc-states — rewrite the segment trace of filter.wperf.waits for
# Trace Compass: one `wperf:state` event per segment, stamped when the
# segment BEGAN, plus one `wperf:thread_end` event when a thread vertex's
# last segment ends, or one that the next does not follow at once (the
# filter's `states` parameter left segments out: the row shows nothing
# there rather than stretch the previous state over them). The
# data-driven analysis wperf-segments.xml (same directory) turns them
# into a time graph. Manual: wperf-tracecompass(7).
#
# Why: a `wperf:segment` event is stamped when its segment closes (that is
# when the analysis knows what ended a wait), and a Trace Compass XML state
# provider can only change states at or after the current event's time, so
# it cannot paint [start, end] from the closing event. Sorting the segments
# by their start needs the whole trace, which a streaming filter must not
# keep; this offline step does it.
#
# Usage: wperf-tc-states SEGMENT_TRACE OUT
#   SEGMENT_TRACE: the directory written by
#     babeltrace2 TRACE -c filter.wperf.waits -c sink.ctf.fs -p 'path="DIR"'
#   (DIR, or DIR/wperf); only `wperf:segment` events are read.
#   OUT: a new directory (must not exist or be empty): a CTF trace named
#   `wperf-states` on the same clock (name, offset, UUID) as the segments, so
#   it opens in one experiment with the kernel trace.
#
# Needs babeltrace2's Python bindings (Debian python3-bt2).
import os
import sys

CATEGORIES = {           # waker_kind of a waiting segment -> category
    "thread": "waiting-thread", "virtual": "waiting-thread",
    "disk": "waiting-device", "nic": "waiting-device",
    "irq": "waiting-irq", "softirq": "waiting-irq",
    "timer": "waiting-timer",
}

STATE_FIELDS = [("vertex", "u64"), ("tid", "s64"), ("pid", "s64"), ("name", "str"),
                ("state", "str"), ("category", "str"), ("duration", "s64"),
                ("waker_name", "str"), ("waker_kind", "str"), ("cascade", "s64")]
END_FIELDS = [("vertex", "u64"), ("tid", "s64"), ("name", "str")]


class Fail(Exception):
    pass


def category(seg):
    if seg["state"] != "waiting":
        return seg["state"]            # running, runnable
    return CATEGORIES.get(seg["waker_kind"], "waiting-other")


def read_segments(bt2, path):
    """All wperf:segment events of the traces under path (dicts), and the
    clock class of their stream."""
    ctf = bt2.find_plugin("ctf")
    utils = bt2.find_plugin("utils")
    if ctf is None or utils is None:
        raise Fail("babeltrace2's ctf/utils plugins are missing (apt-get install babeltrace2)")
    segs = []
    found = {}

    class Collect(bt2._UserSinkComponent):
        def __init__(self, config, params, obj):
            self._port = self._add_input_port("in")

        def _user_graph_is_configured(self):
            self._it = self._create_message_iterator(self._port)

        def _user_consume(self):
            msg = next(self._it)
            if type(msg) is not bt2._EventMessageConst:
                return
            ev = msg.event
            if ev.cls.name != "wperf:segment":
                return
            p = ev.payload_field
            segs.append({k: (str(v) if isinstance(v, bt2._StringFieldConst) else int(v))
                         for k, v in p.items()})
            if "clock" not in found:
                found["clock"] = msg.default_clock_snapshot.clock_class

    dirs = segment_trace_dirs(path)
    g = bt2.Graph()
    mux = g.add_component(utils.filter_component_classes["muxer"], "mux")
    ports = []
    for i, d in enumerate(dirs):
        try:
            src = g.add_component(ctf.source_component_classes["fs"], f"src{i}",
                                  params={"inputs": [d]})
        except bt2._Error as e:
            raise Fail(f"{d} is not a CTF trace ({first_cause(e)})")
        ports += list(src.output_ports.values())
    sink = g.add_component(Collect, "collect")
    for i, port in enumerate(ports):
        g.connect_ports(port, mux.input_ports[f"in{i}"])
    g.connect_ports(mux.output_ports["out"], sink.input_ports["in"])
    try:
        g.run()
    except bt2._Error as e:
        raise Fail(f"cannot read {path}: {first_cause(e)}")
    if not segs:
        raise Fail(f"{path} has no wperf:segment events: write them with "
                   "babeltrace2 TRACE -c filter.wperf.waits -c sink.ctf.fs -p 'path=\"DIR\"'")
    need = {name for name, _ in STATE_FIELDS if name != "category"} | {"start"}
    missing = need - set(segs[0])
    if missing:
        raise Fail(f"the wperf:segment events of {path} lack {', '.join(sorted(missing))}: "
                   "write them with this version of filter.wperf.waits")
    return segs, found["clock"]


def segment_trace_dirs(path):
    """The CTF traces under path whose metadata declares wperf:segment
    (sink.ctf.fs writes one directory per trace, metadata as text)."""
    found = []
    for root, dirs, files in os.walk(path):
        dirs.sort()
        if "metadata" in files:
            try:
                with open(os.path.join(root, "metadata"), "rb") as f:
                    if b"wperf:segment" in f.read():
                        found.append(root)
            except OSError:
                pass
            dirs[:] = []            # a trace's directory holds no other trace
    if not found:
        raise Fail(f"no trace with wperf:segment events under {path}: write them with "
                   "babeltrace2 TRACE -c filter.wperf.waits -c sink.ctf.fs -p 'path=\"DIR\"'")
    return found


def first_cause(exc):
    for cause in getattr(exc, "_causes", None) or []:
        msg = getattr(cause, "message", None)
        if msg:
            return msg.strip().splitlines()[0]
    text = str(exc).strip().splitlines()
    return text[-1] if text else "babeltrace2 error"


def to_cycles(ns, freq, off_s, off_c):
    """The clock value (cycles) at ns from origin, rounded down, >= 0."""
    rel = ns - off_s * 10**9
    cycles = rel * freq // 10**9 - off_c
    return max(cycles, 0)


def write_states(bt2, segs, clock, out):
    """The state trace: events sorted by segment start (then vertex)."""
    freq = clock.frequency
    off = clock.offset
    rows = []
    by_vertex = {}
    for s in segs:
        rows.append((s["start"], 1, s["vertex"], "wperf:state", s))
        by_vertex.setdefault(s["vertex"], []).append(s)
    for vertex, mine in by_vertex.items():
        mine.sort(key=lambda s: s["start"])
        for s, after in zip(mine, mine[1:] + [None]):
            end = s["start"] + s["duration"]
            if after is None or after["start"] > end:
                rows.append((end, 0, vertex, "wperf:thread_end", s))
    # At one time, thread ends first (a vertex never ends and restarts at once).
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    begin_ns, end_ns = rows[0][0], rows[-1][0]

    class It(bt2._UserMessageIterator):
        def __init__(self, config, port):
            comp = self._component
            tc = comp._create_trace_class()
            cc = comp._create_clock_class(
                frequency=freq, name=clock.name, description=clock.description,
                precision=clock.precision,
                offset=bt2.ClockClassOffset(off.seconds, off.cycles),
                origin_is_unix_epoch=clock.origin_is_unix_epoch, uuid=clock.uuid)
            sc = tc.create_stream_class(
                name="wperf-states", default_clock_class=cc, supports_packets=True,
                packets_have_beginning_default_clock_snapshot=True,
                packets_have_end_default_clock_snapshot=True)
            ecs = {}
            for name, fields in (("wperf:state", STATE_FIELDS), ("wperf:thread_end", END_FIELDS)):
                payload = tc.create_structure_field_class()
                for fname, kind in fields:
                    if kind == "str":
                        fc = tc.create_string_field_class()
                    elif kind == "u64":
                        fc = tc.create_unsigned_integer_field_class(64)
                    else:
                        fc = tc.create_signed_integer_field_class(64)
                    payload.append_member(fname, fc)
                ecs[name] = (sc.create_event_class(name=name, payload_field_class=payload),
                             fields)
            trace = tc(name="wperf-states", environment={"domain": "wperf"})
            stream = trace.create_stream(sc, name="states")
            pk = stream.create_packet()
            self._msgs = [self._create_stream_beginning_message(stream),
                          self._create_packet_beginning_message(
                              pk, to_cycles(begin_ns, freq, off.seconds, off.cycles))]
            self._rows = rows
            self._ecs = ecs
            self._pk = pk
            self._stream = stream
            self._tail = [self._create_packet_end_message(
                              pk, to_cycles(end_ns, freq, off.seconds, off.cycles)),
                          self._create_stream_end_message(stream)]
            self._pos = 0

        def __next__(self):
            if self._msgs:
                return self._msgs.pop(0)
            if self._pos < len(self._rows):
                t, _, _, name, s = self._rows[self._pos]
                self._pos += 1
                ec, fields = self._ecs[name]
                msg = self._create_event_message(
                    ec, self._pk, to_cycles(t, freq, off.seconds, off.cycles))
                p = msg.event.payload_field
                for fname, _kind in fields:
                    p[fname] = category(s) if fname == "category" else s[fname]
                return msg
            if self._tail:
                return self._tail.pop(0)
            raise StopIteration

    class Source(bt2._UserSourceComponent, message_iterator_class=It):
        def __init__(self, config, params, obj):
            self._add_output_port("out")

    ctf = bt2.find_plugin("ctf")
    g = bt2.Graph()
    src = g.add_component(Source, "states")
    sink = g.add_component(ctf.sink_component_classes["fs"], "ctf",
                           params={"path": out, "assume-single-trace": True})
    g.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    g.run()
    return len(segs), len(by_vertex)


def main(argv):
    if len(argv) == 1 and argv[0] in ("-h", "--help"):
        print("usage: wperf-tc-states SEGMENT_TRACE OUT\nRewrite the wperf:segment events of SEGMENT_TRACE as wperf:state events\nstamped at segment start, for wperf-segments.xml (wperf-tracecompass(7)).")
        return 0
    if len(argv) != 2:
        print("wperf-tc-states: error: usage: wperf-tc-states SEGMENT_TRACE OUT",
              file=sys.stderr)
        return 2
    src, out = argv
    try:
        if not os.path.isdir(src):
            raise Fail(f"no trace directory {src}")
        if os.path.exists(out) and (not os.path.isdir(out) or os.listdir(out)):
            raise Fail(f"{out} exists and is not an empty directory: choose a new one")
        try:
            import bt2
        except ImportError:
            raise Fail("babeltrace2's Python bindings are missing: apt-get install "
                       "python3-bt2, and run with /usr/bin/python3")
        segs, clock = read_segments(bt2, src)
        created = not os.path.exists(out)
        try:
            n, threads = write_states(bt2, segs, clock, out)
        except Exception:
            if created:
                import shutil
                shutil.rmtree(out, ignore_errors=True)
            raise
    except Fail as e:
        print(f"wperf-tc-states: error: {e}", file=sys.stderr)
        return 1
    print(f"wperf-tc-states: {n} segments of {threads} threads written to {out}",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
