#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Trace Compass side (suite `tracecompass`).

- tools/tracecompass/wperf-segments.xml validates against Trace Compass'
  xmlDefinition.xsd (xmllint --schema; and a broken copy does not);
- the segment trace written by `babeltrace2 TRACE -c filter.wperf.waits -c
  sink.ctf.fs` goes through wperf-tc-states, and the XML's state provider,
  executed here by a small interpreter of the elements it uses, paints
  every thread's row exactly with its segments: running, runnable, waiting
  on a thread / device / timer / interrupt / unknown. On a hand-built
  scenario with known times, and on a real LTTng kernel trace;
- the time graph view shows every value the provider sets, each with its
  own colour;
- wperf-tc-states' errors are one line, exit 1, nothing written.

Environment: WPERF_PLUGIN_DIR, WPERF_SHARED_DIR (default <source>/../shared)."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tests"))

import bt2  # noqa: E402
from wperf_scenario import MS, S, US, Scenario, dev_t, write_ctf  # noqa: E402

SHARED = os.environ.get("WPERF_SHARED_DIR") or os.path.join(SOURCE, "..", "shared")
XSD = os.path.join(SHARED, "schemas", "tracecompass", "xmlDefinition.xsd")
XML = os.path.join(SOURCE, "tools", "tracecompass", "wperf-segments.xml")
STATES = os.path.join(SOURCE, "tools", "tracecompass", "wperf-tc-states.py")
PLUGIN_DIR = os.environ.get("WPERF_PLUGIN_DIR") or os.path.join(SOURCE, "build", "plugin")
REAL = os.path.join(SHARED, "traces", "lttng-kernel", "ref-basic-kernel-analysis", "kernel")

CATEGORY = {"thread": "waiting-thread", "virtual": "waiting-thread", "disk": "waiting-device",
            "nic": "waiting-device", "irq": "waiting-irq", "softirq": "waiting-irq",
            "timer": "waiting-timer"}


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=300)


def segment_trace(kernel_trace, out, params=None):
    """The documented pipeline: kernel trace -> filter.wperf.waits -> sink.ctf.fs."""
    p = run(["babeltrace2", f"--plugin-path={PLUGIN_DIR}", kernel_trace,
             "-c", "filter.wperf.waits"] + ([f"--params={params}"] if params else [])
            + ["-c", "sink.ctf.fs", f'--params=path="{out}"'])
    assert p.returncode == 0, p.stderr
    return out


def read_events(trace, name_prefix):
    """(ns from origin, event name, payload dict) of a CTF trace."""
    out = []
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst and msg.event.name.startswith(name_prefix):
            payload = {k: (str(v) if isinstance(v, bt2._StringFieldConst) else int(v))
                       for k, v in msg.event.payload_field.items()}
            out.append((msg.default_clock_snapshot.ns_from_origin, msg.event.name, payload))
    return out


# ---------------------------------------------------------------------------
# A small interpreter of the Trace Compass XML state provider elements the
# file uses (anything else is refused, so the test cannot silently skip it).

class StateProvider:
    def __init__(self, root):
        (sp,) = root.findall("stateProvider")
        self.id = sp.get("id")
        self.defined = {d.get("name"): d.get("value") for d in sp.findall("definedValue")}
        self.handlers = {h.get("eventName"): h.findall("stateChange")
                         for h in sp.findall("eventHandler")}
        self.current = {}          # path -> (value, since)
        self.intervals = {}        # path -> [(begin, end, value)]
        self.values = set()        # every State value ever set

    def value(self, sv, ev):
        t = sv.get("type")
        if t == "null":
            return None
        if t in ("int", "long"):
            v = sv.get("value")
            return int(self.defined[v[1:]] if v.startswith("$") else v)
        if t == "string":
            return sv.get("value")
        if t == "eventField":
            v = ev[sv.get("value")]
            return int(v) if sv.get("forcedType") in ("int", "long") else v
        raise AssertionError(f"stateValue type {t} not interpreted")

    def condition(self, cond, ev):
        if cond.tag in ("if", "not"):
            (child,) = list(cond)
            r = self.condition(child, ev)
            return not r if cond.tag == "not" else r
        if cond.tag in ("and", "or"):
            rs = [self.condition(c, ev) for c in cond]
            return all(rs) if cond.tag == "and" else any(rs)
        assert cond.tag == "condition" and cond.get("operator", "eq") == "eq", cond.tag
        field = cond.find("field")
        assert field is not None, "only conditions on event fields are interpreted"
        return ev[field.get("name")] == self.value(cond.find("stateValue"), ev)

    def change(self, sc, ev, t):
        if sc.find("if") is not None:
            branch = sc.find("then") if self.condition(sc.find("if"), ev) else sc.find("else")
            if branch is not None:
                self.change(branch, ev, t)
            return
        assert sc.find("futureTime") is None
        path = []
        for a in sc.findall("stateAttribute"):
            kind = a.get("type")
            assert kind in ("constant", "eventField"), kind
            path.append(a.get("value") if kind == "constant" else str(ev[a.get("value")]))
        value = self.value(sc.find("stateValue"), ev)
        path = tuple(path)
        if path[-1] == "State" and value is not None:
            self.values.add(value)
        old = self.current.get(path)
        if old is not None:
            assert t >= old[1], f"state change back in time at {t}"
            if old[0] is not None and t > old[1]:
                self.intervals.setdefault(path, []).append((old[1], t, old[0]))
        self.current[path] = (value, t)

    def run(self, events):
        for t, name, ev in events:
            for sc in self.handlers.get(name, []):
                self.change(sc, ev, t)
        end = events[-1][0] if events else 0
        for path, (value, since) in self.current.items():
            if value is not None and end > since:
                self.intervals.setdefault(path, []).append((since, end, value))


def merged(rows):
    """(begin, end, value) rows, sorted, empty ones dropped, equal neighbours joined."""
    out = []
    for b, e, v in sorted(rows):
        if e <= b:
            continue
        if out and out[-1][2] == v and out[-1][1] == b:
            out[-1] = (out[-1][0], e, v)
        else:
            out.append((b, e, v))
    return out


def category(seg):
    if seg["state"] != "waiting":
        return seg["state"]
    return CATEGORY.get(seg["waker_kind"], "waiting-other")


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = ET.parse(XML).getroot()
        cls.tmp = tempfile.mkdtemp(prefix="wperf-tc-")
        view = cls.root.find("timeGraphView")
        cls.colours = {int(d.get("value")): (d.get("name"), d.get("color"))
                       for d in view.findall("definedValue")}
        sp = StateProvider(cls.root)
        cls.code = {name: int(v) for name, v in sp.defined.items()}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def states_of(self, kernel_trace, tag, params=None):
        seg = segment_trace(kernel_trace, os.path.join(self.tmp, tag + "-seg"), params)
        states = os.path.join(self.tmp, tag + "-states")
        p = run([sys.executable, STATES, seg, states])
        self.assertEqual(p.returncode, 0, p.stderr)
        segments = [ev for _, _, ev in read_events(os.path.join(seg, "wperf"), "wperf:segment")]
        sp = StateProvider(self.root)
        sp.run(read_events(states, "wperf:"))
        return segments, sp

    def check_tiling(self, segments, sp):
        """Every vertex's State row is exactly its segments, by category."""
        code = {"running": "RUNNING", "runnable": "RUNNABLE", "waiting-thread": "WAIT_THREAD",
                "waiting-device": "WAIT_DEVICE", "waiting-timer": "WAIT_TIMER",
                "waiting-irq": "WAIT_IRQ", "waiting-other": "WAIT_OTHER"}
        by_vertex = {}
        for s in segments:
            by_vertex.setdefault(str(s["vertex"]), []).append(
                (s["start"], s["start"] + s["duration"], self.code[code[category(s)]]))
        self.assertTrue(by_vertex)
        for vertex, rows in by_vertex.items():
            painted = merged(sp.intervals.get(("Threads", vertex, "State"), []))
            self.assertEqual(painted, merged(rows), f"vertex {vertex}")
        rows_without_segments = {p[1] for p in sp.intervals if p[2] == "State"} - set(by_vertex)
        self.assertEqual(rows_without_segments, set())
        return by_vertex


class TestSchema(Base):
    def test_validates(self):
        p = run(["xmllint", "--noout", "--schema", XSD, XML])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("validates", p.stderr)
        try:
            from lxml import etree
        except ImportError:
            return
        schema = etree.XMLSchema(etree.parse(XSD))
        self.assertTrue(schema.validate(etree.parse(XML)), schema.error_log)

    def test_broken_copy_does_not_validate(self):
        with open(XML) as f:
            text = f.read()
        for good, bad in (('type="eventField" value="vertex"', 'type="field" value="vertex"'),
                          ("<eventHandler eventName", "<eventhandler eventName")):
            broken = os.path.join(self.tmp, "broken.xml")
            with open(broken, "w") as f:
                f.write(text.replace(good, bad, 1).replace(
                    "</eventHandler>", "</eventhandler>", 1 if "eventhandler" in bad else 0))
            p = run(["xmllint", "--noout", "--schema", XSD, broken])
            self.assertNotEqual(p.returncode, 0, bad)

    def test_view_shows_every_state(self):
        view = self.root.find("timeGraphView")
        self.assertEqual(view.find("head/analysis").get("id"),
                         self.root.find("stateProvider").get("id"))
        entry = view.find("entry")
        self.assertEqual(entry.get("path"), "Threads/*")
        self.assertEqual(entry.find("display").get("value"), "State")
        self.assertEqual(entry.find("name").get("value"), "Name")
        self.assertEqual(set(self.colours), set(self.code.values()))
        colours = [c for _, c in self.colours.values()]
        self.assertEqual(len(set(colours)), len(colours), "one colour per state")
        names = " ".join(n for n, _ in self.colours.values()).lower()
        for word in ("running", "runnable", "thread", "device", "timer"):
            self.assertIn(word, names)


class TestScenario(Base):
    def scenario(self, tag):
        """W (cpu0) runs [0, 1] s; waits on X [1, 2] s; runnable until
        2.2 s; runs; issues a write to 8:0 at 3 s and sleeps until irq 25
        completes it and wakes W at 3.5 s + 2 us; switched in 2 us later;
        sleeps at 4 s until an hrtimer expiry wakes it at 4.5 s + 1 us; runs
        from 4.5 s + 3 us; sleeps at 5 s, never woken. The trace's last
        event, an interrupt on cpu1 at 6 s, ends the analysed range (not the
        packets' end)."""
        s = Scenario(ncpus=2, end=6 * S)
        W, X = s.thread(401, "W"), s.thread(402, "X")
        s.run(0, 0, W)
        s.run(0, 1, X)
        s.sleep(1 * S, 0, W)
        s.wake(2 * S, 1, W, target_cpu=0)
        s.run(2200 * MS, 0, W)
        disk = dev_t(8, 0)
        s.disk_wait(3 * S, 0, W, disk, done=3500 * MS, irq_cpu=1)
        s.sleep(4 * S, 0, W)
        s.hrtimer_entry(4500 * MS, 1)
        s.wake(4500 * MS + 1 * US, 1, W, target_cpu=0)
        s.hrtimer_exit(4500 * MS + 2 * US, 1)
        s.run(4500 * MS + 3 * US, 0, W)
        s.sleep(5 * S, 0, W)
        s.irq_entry(6 * S, 1, 25, "virtio1")
        s.irq_exit(6 * S, 1, 25)
        return write_ctf(s, os.path.join(self.tmp, tag + "-kernel"))

    def test_only_waits(self):
        """With the filter's states="waiting", W's row shows its waits and
        nothing between them: no wait stretched over the time it ran."""
        segments, sp = self.states_of(self.scenario("waits-only"), "waits-only",
                                      'states="waiting"')
        self.check_tiling(segments, sp)
        (w,) = {str(x["vertex"]) for x in segments if x["tid"] == 401}
        c = self.code
        self.assertEqual(merged(sp.intervals[("Threads", w, "State")]), [
            (1 * S, 2 * S, c["WAIT_THREAD"]),
            (3 * S, 3500 * MS + 2 * US, c["WAIT_DEVICE"]),
            (4 * S, 4500 * MS + 1 * US, c["WAIT_TIMER"]),
            (5 * S, 6 * S, c["WAIT_OTHER"]),
        ])

    def test_states(self):
        """Every segment of the scenario above, painted exactly."""
        segments, sp = self.states_of(self.scenario("scenario"), "scenario")
        by_vertex = self.check_tiling(segments, sp)
        (w,) = {str(x["vertex"]) for x in segments if x["tid"] == 401}
        c = self.code
        self.assertEqual(merged(sp.intervals[("Threads", w, "State")]), [
            (0, 1 * S, c["RUNNING"]),
            (1 * S, 2 * S, c["WAIT_THREAD"]),
            (2 * S, 2200 * MS, c["RUNNABLE"]),
            (2200 * MS, 3 * S, c["RUNNING"]),
            (3 * S, 3500 * MS + 2 * US, c["WAIT_DEVICE"]),
            (3500 * MS + 2 * US, 3500 * MS + 4 * US, c["RUNNABLE"]),
            (3500 * MS + 4 * US, 4 * S, c["RUNNING"]),
            (4 * S, 4500 * MS + 1 * US, c["WAIT_TIMER"]),
            (4500 * MS + 1 * US, 4500 * MS + 3 * US, c["RUNNABLE"]),
            (4500 * MS + 3 * US, 5 * S, c["RUNNING"]),
            (5 * S, 6 * S, c["WAIT_OTHER"]),
        ])
        self.assertEqual(sp.current[("Threads", w, "Name")][0], "W")
        self.assertEqual(sp.current[("Threads", w, "Tid")][0], 401)
        wakers = merged(sp.intervals[("Threads", w, "Waker")])
        self.assertEqual([v for _, _, v in wakers], ["X", "disk:8:0", "timer", "unknown"])
        self.assertEqual(wakers[0][:2], (1 * S, 2 * S))
        # The row ends with the thread's last segment (wperf:thread_end).
        self.assertIsNone(sp.current[("Threads", w, "State")][0])
        self.assertEqual(len(by_vertex), 2)


class TestRealTrace(Base):
    def test_real_trace(self):
        if not os.path.isdir(REAL):
            raise AssertionError(f"missing real trace {REAL} (set WPERF_SHARED_DIR)")
        segments, sp = self.states_of(REAL, "real")
        by_vertex = self.check_tiling(segments, sp)
        self.assertGreater(len(by_vertex), 100)
        seen = {v for path, rows in sp.intervals.items() if path[2] == "State"
                for _, _, v in rows}
        c = self.code
        # This trace (gcc, disk writes, timers) shows all the main colours.
        for name in ("RUNNING", "RUNNABLE", "WAIT_THREAD", "WAIT_DEVICE", "WAIT_TIMER"):
            self.assertIn(c[name], seen, name)


class TestConverterErrors(Base):
    def assertFails(self, args, *words):
        p = run([sys.executable, STATES, *args])
        self.assertEqual(p.returncode, 1 if len(args) == 2 else 2, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])

    def test_kernel_trace_is_not_a_segment_trace(self):
        out = os.path.join(self.tmp, "never")
        self.assertFails([REAL, out], "no trace with wperf:segment events", "filter.wperf.waits")
        self.assertFalse(os.path.exists(out))

    def test_output_exists(self):
        seg = segment_trace(REAL, os.path.join(self.tmp, "err-seg"))
        self.assertFails([seg, seg], "exists and is not an empty directory")

    def test_missing_and_usage(self):
        self.assertFails(["/nonexistent", os.path.join(self.tmp, "x")], "no trace directory")
        self.assertFails(["only-one"], "usage")


if __name__ == "__main__":
    unittest.main(verbosity=2)
