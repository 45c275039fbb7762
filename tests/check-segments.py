#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the output of filter.wperf.waits on a real trace.

Usage: /usr/bin/python3 tests/check-segments.py PLUGIN_DIR TRACE_DIR

Runs source.ctf.fs -> utils.muxer -> filter.wperf.waits -> (this sink) and
checks what the filter promises:
  - every message time is >= the previous one (the output never goes back);
  - the `wperf` stream is well formed: stream beginning, packet beginning,
    events (with packet changes), packet end, stream end;
  - every `wperf:segment` event is stamped at or after its segment's end;
  - each thread vertex's segments are contiguous: a segment starts where
    the previous one of the same vertex ended;
  - there is at least one segment of each state.
Prints a one-line summary; exits 1 with the first problems found.

Needs babeltrace2's Python bindings (Debian python3-bt2): run it with
/usr/bin/python3, not a virtualenv's python.
"""
import collections
import os
import sys

import bt2

MAX_REPORTED = 10


class Checker:
    def __init__(self):
        self.problems = []
        self.last_ns = None
        self.messages = 0
        self.segments = 0
        self.by_state = collections.Counter()
        self.vertex_end = {}        # vertex -> end of its last segment
        self.wperf_state = None     # where the `wperf` stream is in its life
        self.gaps = 0

    def problem(self, text):
        if len(self.problems) < MAX_REPORTED:
            self.problems.append(text)

    def check_time(self, msg):
        cs = message_snapshot(msg)
        if cs is None:
            return None
        ns = cs.ns_from_origin
        if self.last_ns is not None and ns < self.last_ns:
            self.problem("time goes back at message %d: %d < %d"
                         % (self.messages, ns, self.last_ns))
        self.last_ns = ns
        return ns

    def check_wperf_sequence(self, msg):
        """The stream's message order: SB PB (E | PE PB)* PE SE."""
        allowed = {
            None: (bt2._StreamBeginningMessageConst,),
            "stream": (bt2._PacketBeginningMessageConst,),
            "packet": (bt2._EventMessageConst, bt2._PacketEndMessageConst),
            "between": (bt2._PacketBeginningMessageConst,
                        bt2._StreamEndMessageConst),
            "ended": (),
        }
        if not isinstance(msg, allowed[self.wperf_state]):
            self.problem("`wperf` stream: %s after state %s"
                         % (type(msg).__name__, self.wperf_state))
        nxt = {
            bt2._StreamBeginningMessageConst: "stream",
            bt2._PacketBeginningMessageConst: "packet",
            bt2._EventMessageConst: "packet",
            bt2._PacketEndMessageConst: "between",
            bt2._StreamEndMessageConst: "ended",
        }
        for cls, state in nxt.items():
            if isinstance(msg, cls):
                self.wperf_state = state

    def check_segment(self, ev, ns):
        p = ev.payload_field
        state = str(p["state"])
        start, duration = int(p["start"]), int(p["duration"])
        end = start + duration
        vertex = int(p["vertex"])
        self.segments += 1
        self.by_state[state] += 1
        if duration < 0:
            self.problem("segment of vertex %d has a negative duration %d"
                         % (vertex, duration))
        if ns is not None and ns < end:
            self.problem("segment of vertex %d ending at %d is stamped "
                         "earlier, at %d" % (vertex, end, ns))
        waiting = state == "waiting"
        if waiting != (int(p["waker"]) >= 0) or \
                waiting != (str(p["waker_kind"]) != ""):
            self.problem("segment of vertex %d: state %s with waker %d (%s)"
                         % (vertex, state, int(p["waker"]),
                            str(p["waker_kind"])))
        prev_end = self.vertex_end.get(vertex)
        if prev_end is not None and prev_end != start:
            self.gaps += 1
            self.problem("vertex %d (tid %d, %s): segment starts at %d but "
                         "the previous one ended at %d"
                         % (vertex, int(p["tid"]), str(p["name"]), start,
                            prev_end))
        self.vertex_end[vertex] = end

    def consume(self, msg):
        self.messages += 1
        ns = self.check_time(msg)
        stream = message_stream(msg)
        if stream is None or stream.trace.name != "wperf":
            return
        self.check_wperf_sequence(msg)
        if isinstance(msg, bt2._EventMessageConst):
            if msg.event.name != "wperf:segment":
                self.problem("unexpected event %s in the `wperf` trace"
                             % msg.event.name)
            else:
                self.check_segment(msg.event, ns)

    def finish(self):
        if self.wperf_state != "ended":
            self.problem("`wperf` stream not ended (state %s)"
                         % self.wperf_state)
        for state in ("running", "runnable", "waiting"):
            if self.by_state[state] == 0:
                self.problem("no %s segment at all" % state)


def message_snapshot(msg):
    """The message's default clock snapshot, or None."""
    try:
        if isinstance(msg, (bt2._DiscardedEventsMessageConst,
                            bt2._DiscardedPacketsMessageConst)):
            return msg.beginning_default_clock_snapshot
        if isinstance(msg, bt2._MessageIteratorInactivityMessageConst):
            return msg.clock_snapshot
        if isinstance(msg, (bt2._StreamBeginningMessageConst,
                            bt2._StreamEndMessageConst)):
            cs = msg.default_clock_snapshot
            return cs if isinstance(cs, bt2._ClockSnapshotConst) else None
        return msg.default_clock_snapshot
    except (ValueError, bt2.NonexistentClockSnapshot):
        return None


def message_stream(msg):
    if isinstance(msg, bt2._EventMessageConst):
        return msg.event.stream
    if isinstance(msg, (bt2._PacketBeginningMessageConst,
                        bt2._PacketEndMessageConst)):
        return msg.packet.stream
    return getattr(msg, "stream", None)


class CheckSink(bt2._UserSinkComponent):
    def __init__(self, config, params, checker):
        self._checker = checker
        self._add_input_port("in")

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._input_ports["in"])

    def _user_consume(self):
        self._checker.consume(next(self._it))


def ctf_dirs(top):
    """The CTF traces under top (directories with a metadata file), as
    the babeltrace2 CLI finds them; source.ctf.fs wants them listed."""
    found = sorted(d for d, _, files in os.walk(top) if "metadata" in files)
    if not found:
        sys.exit("no CTF trace (no metadata file) under %s" % top)
    return found


def run(plugin_dir, trace_dir, checker):
    wperf = None
    # python3-bt2 2.0.4's first find_plugins_in_path() call in a process
    # can return None for a directory that loads fine: ask twice.
    plugins = bt2.find_plugins_in_path(plugin_dir) or \
        bt2.find_plugins_in_path(plugin_dir)
    for plugin in plugins or []:
        if plugin.name == "wperf":
            wperf = plugin
    if wperf is None:
        sys.exit("no wperf plugin in %s: build it first (ninja -C BUILD)"
                 % plugin_dir)
    ctf = bt2.find_plugin("ctf")
    utils = bt2.find_plugin("utils")

    graph = bt2.Graph()
    src = graph.add_component(ctf.source_component_classes["fs"], "src",
                              params={"inputs": ctf_dirs(trace_dir)})
    mux = graph.add_component(utils.filter_component_classes["muxer"], "mux")
    waits = graph.add_component(wperf.filter_component_classes["waits"],
                                "waits")
    sink = graph.add_component(CheckSink, "check", obj=checker)
    for port in src.output_ports.values():
        graph.connect_ports(port, mux.input_ports[
            "in%d" % (len(mux.input_ports) - 1)])
    graph.connect_ports(mux.output_ports["out"], waits.input_ports["in"])
    graph.connect_ports(waits.output_ports["out"], sink.input_ports["in"])
    graph.run()


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__.split("\n\n")[1])
    checker = Checker()
    run(sys.argv[1], sys.argv[2], checker)
    checker.finish()
    print("%s: %d messages, %d segments (%s), %d vertices, %d gaps"
          % (sys.argv[2], checker.messages, checker.segments,
             ", ".join("%s %d" % kv for kv in sorted(checker.by_state.items())),
             len(checker.vertex_end), checker.gaps))
    if checker.problems:
        for p in checker.problems:
            print("problem: " + p)
        sys.exit(1)


if __name__ == "__main__":
    main()
