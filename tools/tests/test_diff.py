#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""`wperf diff` (suite `diff`): two reports of the same program compared.

Reports come from hand-built scenarios run through sink.wperf.knots (real
babeltrace2 graphs, tests/wperf_scenario.py), and from hand-written JSON
for exact Earth Mover's Distances. Checks appeared / disappeared / changed
knots matched by member names (trailing digits and tids ignored), edge
weight changes, EMD numbers, the --fail-if-knot-grows exit status, and bad
input (one line, exit 2).

Environment: WPERF_COMMAND (the build's wperf), WPERF_PLUGIN_DIR."""
import copy
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(SOURCE, "tests"))
sys.path.insert(0, os.path.join(SOURCE, "tools"))

import wperf_diff  # noqa: E402
from wperf_scenario import MS, Scenario, run_knots  # noqa: E402

WPERF = os.environ.get("WPERF_COMMAND") or os.path.join(SOURCE, "build", "tools", "wperf")
U = 100 * MS


def pingpong(names, tids, waits, extra=None, end=8):
    """Two threads wait on each other in turn. waits: (waiter 0|1, sleep at,
    woken at) in U, non-overlapping. extra: a second pair, same layout, on
    cpus 2-3. Trace [0, end U]."""
    pairs = [(names, tids, waits)] + ([extra] if extra else [])
    s = Scenario(ncpus=2 * len(pairs), end=end * U)
    for p, (pn, pt, pw) in enumerate(pairs):
        th = [s.thread(pt[0], pn[0]), s.thread(pt[1], pn[1])]
        s.run(0, 2 * p, th[0])
        s.run(0, 2 * p + 1, th[1])
        for waiter, sleep, woken in pw:
            w = th[waiter]
            s.sleep(sleep * U, 2 * p + waiter, w)
            s.wake(woken * U, 2 * p + 1 - waiter, w)
            s.run(woken * U, 2 * p + waiter, w)
    return s


# Before: fig1-writer and flusher-3 wait on each other: writer [1,2]U and
# [6,7]U, flusher [3,5]U: knot weight 4U in 8U (rate 0.5).
BEFORE = pingpong(("fig1-writer", "flusher-3"), (101, 102), [(0, 1, 2), (1, 3, 5), (0, 6, 7)])
# After: the same program in another run (other tids, flusher-7): writer
# [1,3]U and [7,8]U, flusher [4,6]U: 5U in 8U (rate 0.625, +25%).
AFTER = pingpong(("fig1-writer", "flusher-7"), (201, 202), [(0, 1, 3), (1, 4, 6), (0, 7, 8)])
# After, plus a second knot: logger-1 and compactor wait [1,3]U / [4,6]U.
AFTER_NEW_KNOT = pingpong(("fig1-writer", "flusher-7"), (201, 202),
                          [(0, 1, 3), (1, 4, 6), (0, 7, 8)],
                          extra=(("logger-1", "compactor"), (301, 302), [(0, 1, 3), (1, 4, 6)]))


def wperf(*args):
    # The command is a program (C), which runs tools/wperf_diff.py for diff.
    return subprocess.run([WPERF, *args], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=120)


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="wperf-diff-")
        cls.paths = {}
        for name, scn, params in (("before", BEFORE, {}), ("after", AFTER, {}),
                                  ("new", AFTER_NEW_KNOT, {}),
                                  ("after-focused", AFTER, {"comms": "fig1-writer"}),
                                  ("new-focused", AFTER_NEW_KNOT, {"comms": "fig1-writer"})):
            path = os.path.join(cls.tmp.name, name + ".json")
            with open(path, "w") as f:
                json.dump(run_knots(scn, **params), f)
            cls.paths[name] = path

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def diff_json(self, a, b, *opts, status=0):
        p = wperf("diff", "--format=json", *opts, self.paths.get(a, a), self.paths.get(b, b))
        self.assertEqual(p.returncode, status, p.stderr)
        self.assertEqual(p.stderr, "")
        doc = json.loads(p.stdout)
        self.assertEqual(doc["format"], "wperf-diff")
        self.assertEqual(doc["exit_status"], status)
        return doc

    def knot(self, doc, members):
        found = [k for k in doc["knots"] if k["members"] == sorted(members)]
        self.assertEqual(len(found), 1, json.dumps(doc["knots"], indent=1))
        return found[0]

    def edge(self, doc, frm, to):
        found = [e for e in doc["edges"] if (e["from"], e["to"]) == (frm, to)]
        self.assertEqual(len(found), 1, json.dumps(doc["edges"], indent=1))
        return found[0]


class TestScenarioDiff(Base):
    def test_reports_are_what_the_scenarios_say(self):
        with open(self.paths["before"]) as f:
            r = json.load(f)
        knots = [k for k in r["knots"] if k["kind"] == "knot"]
        self.assertEqual(len(knots), 1)
        self.assertEqual(knots[0]["weight_ns"], 4 * U)

    def test_pool_keys(self):
        # A pool matches its threads across runs whatever their number,
        # merged or not (merge="pool" names it "worker-* ×4").
        key = wperf_diff.vertex_key
        self.assertEqual(key({"kind": "virtual", "name": "worker-* \u00d74"}),
                         key({"kind": "thread", "name": "worker-2", "comm": "worker-2"}))
        self.assertEqual(key({"kind": "virtual", "name": "fio \u00d74"}),
                         key({"kind": "virtual", "name": "fio \u00d75"}))
        self.assertEqual(key({"kind": "virtual", "name": "fio \u00d74"}), ("thread", "fio"))

    def test_same_report(self):
        doc = self.diff_json("before", "before", "--fail-if-knot-grows=0")
        self.assertTrue(doc["knots"])
        self.assertEqual({k["status"] for k in doc["knots"]}, {"unchanged"})
        for e in doc["edges"]:
            self.assertEqual(e["status"], "unchanged")
            if e["emd_buckets"] is not None:
                self.assertEqual(e["emd_buckets"], 0.0)

    def test_knot_grew(self):
        doc = self.diff_json("before", "after")
        k = self.knot(doc, ["fig1-writer", "flusher"])     # flusher-3 ~ flusher-7
        self.assertEqual(k["status"], "changed")
        self.assertEqual(k["kind"], "knot")
        self.assertEqual((k["weight_before_ns"], k["weight_after_ns"]), (4 * U, 5 * U))
        # Weight per second analysed: a rate, not a share (it may exceed 1).
        self.assertEqual((k["rate_before"], k["rate_after"]), (0.5, 0.625))
        self.assertFalse([key for key in k if "share" in key], k)
        self.assertEqual(k["growth_pct"], 25.0)
        # writer -> flusher: 2U -> 3U; waits 1U+1U -> 2U+1U (log2 buckets
        # 26, 26 -> 27, 26): EMD = |1 - 1/2| = 0.5 bucket.
        e = self.edge(doc, "fig1-writer", "flusher")
        self.assertEqual((e["weight_before_ns"], e["weight_after_ns"]), (2 * U, 3 * U))
        self.assertEqual(e["change_pct"], 50.0)
        self.assertEqual((e["count_before"], e["count_after"]), (2, 2))
        self.assertEqual(e["emd_buckets"], 0.5)
        # flusher -> writer: 2U -> 2U, one wait of 2U in bucket 27 both times.
        e = self.edge(doc, "flusher", "fig1-writer")
        self.assertEqual(e["status"], "unchanged")
        self.assertEqual(e["emd_buckets"], 0.0)
        # Weights with the waiters' own waiting in them, no share of the
        # analysed time (wperf-report(7), WEIGHTS): nothing cascades here.
        self.assertEqual((k["own_before_ns"], k["own_after_ns"]), (4 * U, 5 * U))
        text = wperf("diff", self.paths["before"], self.paths["after"]).stdout
        self.assertIn("  changed     knot       {fig1-writer, flusher}  400ms (own 400ms) -> "
                      "500ms (own 500ms)  +25.0%\n", text)

    def test_guard(self):
        doc = self.diff_json("before", "after", "--fail-if-knot-grows=20", status=1)
        self.assertEqual(doc["guard"]["violations"],
                         [{"members": ["fig1-writer", "flusher"], "growth_pct": 25.0}])
        self.diff_json("before", "after", "--fail-if-knot-grows=30%", status=0)
        # Getting better never fails.
        self.diff_json("after", "before", "--fail-if-knot-grows=0", status=0)
        p = wperf("diff", "--fail-if-knot-grows=20", self.paths["before"], self.paths["after"])
        self.assertEqual(p.returncode, 1)
        self.assertIn("FAIL: knot {fig1-writer, flusher} grew +25.0% (tolerance 20%)",
                      p.stdout)
        p = wperf("diff", "--fail-if-knot-grows=30", self.paths["before"], self.paths["after"])
        self.assertEqual(p.returncode, 0)
        self.assertIn("OK: no knot grew more than 30%", p.stdout)

    def test_guard_holds_when_the_reader_goes_away(self):
        # `wperf diff --fail-if-knot-grows ... | head -1` in a CI step: the
        # closed pipe must not turn a regression into success.
        for grows, status in (("20", 1), ("30", 0)):
            p = subprocess.Popen([WPERF, "diff", "--fail-if-knot-grows=" + grows,
                                  self.paths["before"], self.paths["after"]],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            p.stdout.close()            # the reader is gone before it writes
            err = p.stderr.read().decode()
            self.assertEqual(p.wait(timeout=120), status, err)
            self.assertEqual(err, "")

    def test_output_that_cannot_be_written(self):
        with open("/dev/full", "w") as full:
            p = subprocess.run([WPERF, "diff", self.paths["before"], self.paths["after"]],
                               stdout=full, stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.strip().splitlines(),
                         ["wperf: error: cannot write the diff: No space left on device"])

    def test_knot_appeared_and_disappeared(self):
        doc = self.diff_json("after", "new", "--fail-if-knot-grows=1000", status=1)
        k = self.knot(doc, ["compactor", "logger"])
        self.assertEqual(k["status"], "appeared")
        self.assertIsNone(k["growth_pct"])
        self.assertEqual((k["weight_before_ns"], k["weight_after_ns"]), (0, 4 * U))
        self.assertEqual(self.knot(doc, ["fig1-writer", "flusher"])["status"], "unchanged")
        self.assertEqual(self.edge(doc, "logger", "compactor")["status"], "appeared")
        self.assertEqual(doc["guard"]["violations"],
                         [{"members": ["compactor", "logger"], "growth_pct": None}])
        back = self.diff_json("new", "after", "--fail-if-knot-grows=0", status=0)
        self.assertEqual(self.knot(back, ["compactor", "logger"])["status"], "disappeared")
        self.assertEqual(self.edge(back, "compactor", "logger")["status"], "disappeared")
        text = wperf("diff", self.paths["after"], self.paths["new"]).stdout
        self.assertIn("1 appeared, 0 disappeared", text)
        self.assertRegex(text, r"appeared +knot +\{compactor, logger\}")

    def test_focus_carried_through(self):
        # Focused on fig1-writer, the new logger/compactor knot is another
        # program's: its two edges are left out of the comparison, and the
        # output says how many and how to compare them all.
        doc = self.diff_json("after-focused", "new-focused")
        self.assertEqual(doc["before"]["edges_left_out"], 0)
        self.assertEqual(doc["after"]["edges_left_out"], 2)
        self.assertEqual((doc["before"]["focused"], doc["after"]["focused"]), (True, True))
        self.assertEqual(sorted((e["from"], e["to"]) for e in doc["edges"]),
                         [("fig1-writer", "flusher"), ("flusher", "fig1-writer")])
        self.assertEqual({e["status"] for e in doc["edges"]}, {"unchanged"})
        text = wperf("diff", self.paths["after-focused"], self.paths["new-focused"]).stdout
        self.assertIn("  0 edges of %s and 2 of %s outside what their focus waits on were "
                      "left out; reports written without a focus (pids=, wperf report "
                      "--pids) compare them all\n"
                      % (self.paths["after-focused"], self.paths["new-focused"]), text)
        # Unfocused, every edge is compared and no such line is written.
        doc = self.diff_json("after", "new")
        self.assertEqual((doc["before"]["edges_left_out"], doc["after"]["edges_left_out"]),
                         (0, 0))
        self.assertEqual(self.edge(doc, "logger", "compactor")["status"], "appeared")
        self.assertNotIn("left out", wperf("diff", self.paths["after"], self.paths["new"]).stdout)

    def test_focused_against_unfocused_is_said_first(self):
        # One report focused, the other the whole machine: the comparison
        # is of the focus, not the program; the first line says so.
        text = wperf("diff", self.paths["after-focused"], self.paths["new"]).stdout
        first = text.splitlines()[0]
        self.assertEqual(first, "warning: %s is focused (fig1-writer) and %s is not (the whole "
                         "machine): report both the same way (wperf report --pids/--comms, "
                         "or --all) to compare the program"
                         % (self.paths["after-focused"], self.paths["new"]))
        doc = self.diff_json("new", "after-focused")
        self.assertEqual(len(doc["warnings"]), 1)
        # Alike reports: no warning.
        self.assertEqual(self.diff_json("after-focused", "new-focused")["warnings"], [])
        self.assertNotIn("warning", wperf("diff", self.paths["after"], self.paths["new"]).stdout)

    def test_different_parameters_are_said(self):
        with open(self.paths["after"]) as f:
            r = json.load(f)
        r["knot_rule"]["rule"] = "strict" if r["knot_rule"]["rule"] == "dominant" else "dominant"
        path = os.path.join(self.tmp.name, "other-rule.json")
        with open(path, "w") as f:
            json.dump(r, f)
        text = wperf("diff", self.paths["after"], path).stdout
        self.assertRegex(text.splitlines()[0], r"^warning: they were analysed with different "
                         r"parameters \(knot-rule (dominant and strict|strict and dominant)\)$")

    def test_absolute(self):
        # Same duration (8U) in both: rates and ns give the same growth.
        doc = self.diff_json("before", "after", "--absolute")
        self.assertEqual(doc["compared_by"], "weight_ns")
        self.assertEqual(self.knot(doc, ["fig1-writer", "flusher"])["growth_pct"], 25.0)


def report(edges, knots=(), duration=1000):
    """A minimal hand-written wperf report: vertices by name."""
    names = sorted({n for e in edges for n in e[:2]} | {n for k in knots for n in k[1]})
    vid = {n: i for i, n in enumerate(names)}
    return {
        "format": "wperf-report", "version": 1,
        "time_range": {"begin_ns": 0, "end_ns": duration, "duration_ns": duration},
        "vertices": [{"id": i, "kind": "disk" if n.startswith("disk:") else "thread",
                      "name": n, "comm": None if n.startswith("disk:") else n,
                      "tid": 100 + i, "pid": 100}
                     for n, i in vid.items()],
        "edges": [{"from": vid[f], "to": vid[t], "weight_ns": w, "direct_ns": w,
                   "count": sum(h.values()), "hist": {str(b): c for b, c in h.items()}}
                  for f, t, w, h in edges],
        "knots": [{"kind": kind, "members": sorted(vid[m] for m in members),
                   "weight_ns": w, "share": w / duration, "edges": [], "component": [],
                   "removed": [], "stop_reason": "simple cycle",
                   "classification": {"added": "by another engineer"}}
                  for kind, members, w in knots],
        "threads": [], "quality": {},
    }


class TestWords(Base):
    def test_class_in_the_reports_words(self):
        c = {"class": "blocking_io",
             "summary": "blocking I/O: threads wait for a device that waits for them"}
        self.assertEqual(wperf_diff.class_name(c), "blocking I/O")
        self.assertEqual(wperf_diff.class_name({"class": "lock_contention"}), "lock contention")

    def test_names_not_cut_mid_word(self):
        # qemu-system-x86's digits are part of its name: shown whole; names
        # that differ only there keep an ellipsis; worker-N stays "worker".
        a = report([("qemu-system-x86", "disk:vda", 400, {10: 1}),
                    ("thread1", "disk:vda", 100, {10: 1}),
                    ("worker-1", "disk:vda", 100, {10: 1})])
        b = report([("qemu-system-x86", "disk:vda", 400, {10: 1}),
                    ("thread2", "disk:vda", 100, {10: 1}),
                    ("worker-2", "disk:vda", 100, {10: 1})])
        paths = []
        for name, r in (("qa", a), ("qb", b)):
            paths.append(os.path.join(self.tmp.name, name + ".json"))
            with open(paths[-1], "w") as f:
                json.dump(r, f)
        doc = self.diff_json(*paths)
        self.assertEqual(sorted(e["from"] for e in doc["edges"]),
                         ["qemu-system-x86", "thread\u2026", "worker"])


class TestEmd(Base):
    def test_emd_function(self):
        emd = wperf_diff.emd
        self.assertEqual(emd({10: 4}, {12: 4}), 2.0)             # all mass 2 buckets up
        self.assertEqual(emd({10: 1, 11: 1}, {11: 2}), 0.5)
        self.assertEqual(emd({10: 3, 14: 1}, {10: 1, 14: 3}), 2.0)   # 0.5 over 4 buckets
        self.assertEqual(emd({20: 5}, {20: 50}), 0.0)            # normalised: same shape
        self.assertEqual(emd({12: 2}, {10: 1, 14: 1}), 2.0)      # symmetric spread
        self.assertIsNone(emd({}, {10: 1}))

    def test_emd_and_names_in_reports(self):
        a = report([("worker-1", "disk:vda", 400, {10: 3, 14: 1}),
                    ("kworker/0:1", "worker-1", 100, {20: 1})],
                   knots=[("knot", ["worker-1", "disk:vda"], 400)])
        b = report([("worker-12", "disk:vda", 500, {10: 1, 14: 3}),
                    ("kworker/1:2", "worker-12", 100, {20: 1})],
                   knots=[("knot", ["worker-12", "disk:vda"], 500)])
        paths = []
        for i, r in enumerate((a, b)):
            path = os.path.join(self.tmp.name, f"hand-{i}.json")
            with open(path, "w") as f:
                json.dump(r, f)
            paths.append(path)
        doc = self.diff_json(paths[0], paths[1], "--fail-if-knot-grows=25", status=0)
        e = self.edge(doc, "worker", "disk:vda")
        self.assertEqual(e["emd_buckets"], 2.0)
        self.assertEqual(e["change_pct"], 25.0)
        self.assertEqual(self.edge(doc, "kworker", "worker")["status"], "unchanged")
        k = self.knot(doc, ["disk:vda", "worker"])
        self.assertEqual(k["growth_pct"], 25.0)
        # Fields the analysis may add (here "classification") are carried along.
        self.assertEqual(k["classification_after"], {"added": "by another engineer"})
        self.diff_json(paths[0], paths[1], "--fail-if-knot-grows=24.9", status=1)
        text = wperf("diff", paths[0], paths[1]).stdout
        self.assertIn("worker -> disk:vda: 400ns -> 500ns (+25.0%), waits 4 -> 4  EMD 2.000 buckets",
                      text)
        self.assertIn("Wait lengths that moved by at least one log2 bucket", text)


class TestDifferentLengths(Base):
    def test_rates_said_and_edges_that_went(self):
        """A 4 s recording, then a 1 s one: the knot's weight falls from
        2000 to 800 ns but its rate grows from 500 to 800 ns a second,
        +60%: said per second, or "2000ns -> 800ns +60.0%" reads as a
        mistake. An edge of no weight that went is "disappeared", not
        "+0.0%", and the count line names it so."""
        a = report([("writer", "disk:vda", 2000, {10: 4}),
                    ("writer", "timer", 0, {})],
                   knots=[("knot", ["writer", "disk:vda"], 2000)], duration=4000)
        b = report([("writer", "disk:vda", 800, {10: 4})],
                   knots=[("knot", ["writer", "disk:vda"], 800)], duration=1000)
        paths = []
        for i, r in enumerate((a, b)):
            paths.append(os.path.join(self.tmp.name, f"len-{i}.json"))
            with open(paths[-1], "w") as f:
                json.dump(r, f)
        text = wperf("diff", "--fail-if-knot-grows=50", *paths).stdout
        self.assertIn("\nChanges are per second analysed, the two lengths differing "
                      "(--absolute compares the weights as they are)\n", text)
        self.assertIn("{disk:vda, writer}  2us -> 800ns  +60.0% per s\n", text)
        self.assertIn("\nEdges: 1 of 2 changed by at least the tolerance, 0 appeared, "
                      "1 disappeared\n", text)
        self.assertIn("  writer -> disk:vda: 2us -> 800ns (+60.0% per s), waits 4 -> 4  EMD 0.000 buckets\n", text)
        self.assertIn("  writer -> timer: 0ns -> 0ns (disappeared), waits 0 -> 0\n", text)
        self.assertIn("FAIL: knot {disk:vda, writer} grew +60.0% per s (tolerance 50%)", text)
        # --absolute: nanoseconds, no "per s".
        text = wperf("diff", "--absolute", *paths).stdout
        self.assertIn("{disk:vda, writer}  2us -> 800ns  -60.0%\n", text)
        self.assertNotIn("per s", text)


class TestHostileNames(Base):
    """Thread names come from the traced programs: ESC, CR, LF, DEL and C1
    controls in them must not reach the terminal (nor forge report lines)."""
    EVIL = "ev\x1b[2Jil\rx\ny\x7fz\x9b"

    def test_text_escapes_control_characters(self):
        a = report([(self.EVIL, "disk:vda", 400, {10: 4})],
                   knots=[("knot", [self.EVIL, "disk:vda"], 400)])
        b = report([(self.EVIL, "disk:vda", 800, {12: 4})],
                   knots=[("knot", [self.EVIL, "disk:vda"], 800)])
        paths = []
        for i, r in enumerate((a, b)):
            path = os.path.join(self.tmp.name, f"evil\x1b-{i}.json")
            with open(path, "w") as f:
                json.dump(r, f)
            paths.append(path)
        p = wperf("diff", "--fail-if-knot-grows=10", paths[0], paths[1])
        self.assertEqual(p.returncode, 1, p.stderr)
        for c in "\x1b\r\x7f\x9b":
            self.assertNotIn(c, p.stdout)
        self.assertIn("ev?[2Jil?x?y?z?", p.stdout)
        # Every line is one the diff wrote: the LF in the name forged none.
        self.assertFalse([ln for ln in p.stdout.splitlines() if ln.startswith("y")])
        self.assertIn("FAIL: knot {disk:vda, ev?[2Jil?x?y?z?}", p.stdout)


class TestBadInput(Base):
    def assertBad(self, a, b, *words, opts=()):
        p = wperf("diff", *opts, a, b)
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertEqual(p.stdout, "")
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        for w in words:
            self.assertIn(w, lines[0])

    def test_missing_file(self):
        self.assertBad(self.paths["before"], "/nonexistent/b.json",
                       "cannot read /nonexistent/b.json")

    def test_directory(self):
        self.assertBad(self.tmp.name, self.paths["before"], f"cannot read {self.tmp.name}")

    def test_not_json(self):
        path = os.path.join(self.tmp.name, "text.json")
        with open(path, "w") as f:
            f.write("Knot 1: writer, disk\n")
        self.assertBad(path, self.paths["before"], path, "not a wperf report", "not JSON",
                       "--format json")

    def test_wperf_top_stream(self):
        """wperf top --format json writes a report per line: said so, with
        how to take its whole run's report, for one line or several."""
        with open(self.paths["before"]) as f:
            r = json.load(f)
        lines = [{"every": {"report": "period", "index": 1, "final": False}, "report": r},
                 {"every": {"report": "run", "final": True}, "report": r}]
        for n in (2, 1):
            path = os.path.join(self.tmp.name, f"top-{n}.json")
            with open(path, "w") as f:
                f.write("".join(json.dumps(ln) + "\n" for ln in lines[-n:]))
            self.assertBad(path, self.paths["before"], path,
                           "is a wperf top --format json stream (a report per line), not one "
                           "report: its last line's \"report\" is the whole run's, e.g. "
                           "tail -n 1 FILE")

    def test_other_json(self):
        path = os.path.join(self.tmp.name, "lami.json")
        with open(path, "w") as f:
            json.dump({"results": []}, f)
        self.assertBad(self.paths["before"], path, path, "not a wperf report")

    def test_damaged_report(self):
        with open(self.paths["before"]) as f:
            r = json.load(f)
        r = copy.deepcopy(r)
        r["edges"][0]["to"] = 999
        path = os.path.join(self.tmp.name, "damaged.json")
        with open(path, "w") as f:
            json.dump(r, f)
        self.assertBad(self.paths["before"], path, "damaged", "unknown vertex")

    def test_bad_options(self):
        self.assertBad(self.paths["before"], self.paths["after"], "--fail-if-knot-grows",
                       opts=["--fail-if-knot-grows=lots"])
        p = wperf("diff", self.paths["before"])
        self.assertEqual(p.returncode, 2)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
