#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""wperf-lami (suite `lami`): the LAMI 1.0 program Trace Compass runs as an
external analysis, compared with a working LAMI producer (Debian
python3-lttnganalyses, lttng-cputop-mi) on the same real kernel trace, and
checked against the JSON report of sink.wperf.knots.

Environment: WPERF_LAMI (the build's wperf-lami), WPERF_PLUGIN_DIR,
WPERF_SHARED_DIR (default <source>/../shared)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("WPERF_SHARED_DIR") or os.path.join(SOURCE, "..", "shared")
TRACE = os.path.join(SHARED, "traces", "lttng-kernel", "ref-basic-kernel-analysis", "kernel")
LAMI = os.environ.get("WPERF_LAMI") or os.path.join(SOURCE, "build", "tools", "wperf-lami")
PLUGIN_DIR = os.environ.get("WPERF_PLUGIN_DIR") or os.path.join(SOURCE, "build", "plugin")
CPUTOP = shutil.which("lttng-cputop-mi") or "/usr/bin/lttng-cputop-mi"

# LAMI column classes, and the data object class a cell of each must have.
COLUMN_CLASSES = {"string", "int", "number", "bool", "ratio", "timestamp", "time-range",
                  "duration", "size", "bitrate", "syscall", "process", "path", "fd",
                  "irq", "cpu", "disk", "part", "netif", "mixed"}
OBJECT_CLASSES = COLUMN_CLASSES - {"mixed"} | {"unknown"}


def run(args, **kw):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, timeout=300, **kw)


def lami(*args):
    return run([sys.executable, LAMI, f"--plugin-path={PLUGIN_DIR}", *args])


def reference_env():
    """lttng-cputop-mi is not the code under test: run it without the
    sanitizer preload of the ASan pass and without meson's MALLOC_PERTURB_
    (its babeltrace 1 bindings crash with it: exit 139, no output)."""
    env = dict(os.environ)
    for var in ("LD_PRELOAD", "MALLOC_PERTURB_"):
        env.pop(var, None)
    return env


class Reference:
    """lttng-cputop-mi's metadata and results on TRACE, computed once."""
    _cache = {}

    @classmethod
    def get(cls):
        if not cls._cache:
            if not os.path.exists(CPUTOP):
                raise AssertionError("lttng-cputop-mi is missing: apt-get install "
                                     "python3-lttnganalyses (it is in the Makefile's "
                                     "DEB_PACKAGES)")
            p = run([CPUTOP, "--metadata"], env=reference_env())
            assert p.returncode == 0, p.stderr
            cls._cache["metadata"] = json.loads(p.stdout)
            p = run([CPUTOP, "--mi-version"], env=reference_env())
            cls._cache["mi_version"] = p.stdout.strip()
            p = run([CPUTOP, "--no-intersection", "--limit", "3", TRACE], env=reference_env())
            assert p.returncode == 0, p.stdout + p.stderr
            cls._cache["results"] = json.loads(p.stdout)
        return cls._cache


class TestLami(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.isdir(TRACE):
            raise AssertionError(f"missing real trace {TRACE} (set WPERF_SHARED_DIR)")
        cls.ref = Reference.get()
        p = lami("--metadata")
        assert p.returncode == 0, p.stderr
        cls.meta = json.loads(p.stdout)
        p = lami(TRACE)
        assert p.returncode == 0, p.stdout + p.stderr
        cls.results = json.loads(p.stdout)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "r.json")
            # wperf-lami reports thread by thread (merge="none"): so here.
            p = run(["babeltrace2", f"--plugin-path={PLUGIN_DIR}", TRACE, "-c",
                     "sink.wperf.knots",
                     f'--params=format="json",path="{path}",merge="none"'])
            assert p.returncode == 0, p.stderr
            with open(path) as f:
                cls.report = json.load(f)

    def table(self, name):
        tables = [t for t in self.results["results"] if t["class"] == name]
        self.assertEqual(len(tables), 1, f"one `{name}` table")
        return tables[0]

    def columns(self, name):
        return self.meta["table-classes"][name]["column-descriptions"]

    # -- metadata and version, against lttng-cputop-mi

    def test_mi_version(self):
        p = lami("--mi-version")
        self.assertEqual(p.returncode, 0)
        self.assertEqual(p.stdout.strip(), self.ref["mi_version"])
        self.assertEqual(p.stdout.strip(), "1.0")

    def test_metadata_structure(self):
        ref = self.ref["metadata"]
        self.assertEqual(self.meta["mi-version"], ref["mi-version"])
        # Every top-level member the reference has, but its url (wperf has none).
        self.assertEqual(set(ref) - {"url"}, set(self.meta))
        for key in ("major", "minor", "patch", "extra"):
            self.assertIn(key, self.meta["version"])
        self.assertEqual(type(self.meta["authors"]), type(ref["authors"]))
        self.assertIn("linux-kernel", self.meta["tags"])
        self.assertEqual(set(self.meta["table-classes"]),
                         {"knots", "edges", "threads", "summary"})
        used = set()
        for name, tc in self.meta["table-classes"].items():
            self.assertEqual(set(tc), {"title", "column-descriptions"}, name)
            for col in tc["column-descriptions"]:
                self.assertLessEqual(set(col), {"title", "class", "unit"}, name)
                self.assertIn(col["class"], COLUMN_CLASSES, f"{name}: {col}")
                used.add(col["class"])
        self.assertLessEqual({"process", "duration", "ratio", "time-range"}, used)

    # -- results, against lttng-cputop-mi's shape and the wperf report

    def test_results_structure(self):
        ref = self.ref["results"]
        self.assertEqual(set(self.results), set(ref))          # {"results"}
        ref_table = ref["results"][0]
        ref_range = ref_table["time-range"]
        for t in self.results["results"]:
            self.assertEqual(set(t), set(ref_table), t["class"])
            self.assertIn(t["class"], self.meta["table-classes"])
            rng = t["time-range"]
            self.assertEqual(set(rng), set(ref_range))
            self.assertEqual(rng["class"], "time-range")
            for end in ("begin", "end"):
                self.assertEqual(set(rng[end]), set(ref_range[end]))
                self.assertEqual(rng[end]["class"], ref_range[end]["class"])
            self.assertLessEqual(rng["begin"]["value"], rng["end"]["value"])
            cols = self.columns(t["class"])
            self.assertGreater(len(t["data"]), 0, t["class"])
            for row in t["data"]:
                self.assertEqual(len(row), len(cols), t["class"])
                for cell, col in zip(row, cols):
                    self.assertIsInstance(cell, dict)
                    self.assertIn(cell["class"], OBJECT_CLASSES)
                    if col["class"] != "mixed" and cell["class"] != "unknown":
                        self.assertEqual(cell["class"], col["class"], (t["class"], col))
        # Same trace, same clock: both analyses cover the same seconds.
        ours = self.table("summary")["time-range"]
        self.assertAlmostEqual(ours["begin"]["value"] / 1e9, ref_range["begin"]["value"] / 1e9,
                               delta=1.0)
        self.assertAlmostEqual(ours["end"]["value"] / 1e9, ref_range["end"]["value"] / 1e9,
                               delta=1.0)

    def test_knots_match_report(self):
        knots = self.table("knots")["data"]
        self.assertEqual(len(knots), len(self.report["knots"]))
        for row, k in zip(knots, self.report["knots"]):
            self.assertEqual(row[1]["value"], k["kind"])
            self.assertEqual(row[3]["value"], k["weight_ns"])
            self.assertEqual(row[7]["value"], k["stop_reason"])
            # The analysis' classification of a knot, when the report has one.
            c = k.get("classification")
            self.assertEqual(row[8]["value"], c.get("summary", "") if isinstance(c, dict) else "")
            # Weight = own + cascaded, own a share of the waiters' time.
            self.assertEqual((row[9]["value"], row[11]["value"]),
                             (k["own_ns"], k["cascaded_ns"]))
            self.assertEqual(row[9]["value"] + row[11]["value"], k["weight_ns"])
            self.assertAlmostEqual(row[10]["value"], k["own_share"], places=6)
            self.assertLessEqual(row[10]["value"], 1.0)
        self.assertEqual(self.report["time_range"]["begin_ns"],
                         self.table("summary")["time-range"]["begin"]["value"])

    def test_edges_and_threads_match_report(self):
        edges = self.table("edges")["data"]
        self.assertEqual(len(edges), len(self.report["edges"]))
        self.assertEqual(sum(r[2]["value"] for r in edges),
                         sum(e["weight_ns"] for e in self.report["edges"]))
        weights = [r[2]["value"] for r in edges]
        self.assertEqual(weights, sorted(weights, reverse=True))
        # Each weight = direct + cascaded; own share at most 1.
        for r in edges:
            self.assertEqual(r[3]["value"] + r[7]["value"], r[2]["value"])
            self.assertLessEqual(r[8]["value"], 1.0)
        threads = self.table("threads")["data"]
        self.assertEqual(len(threads), len(self.report["threads"]))
        by_tid = {t["tid"]: t for t in self.report["threads"]}
        procs = 0
        for row in threads:
            rng = row[1]
            lifetime = rng["end"]["value"] - rng["begin"]["value"]
            accounted = sum(c["value"] for c in row[2:9])
            self.assertEqual(accounted, lifetime, row[0])
            if row[0]["class"] == "process":
                procs += 1
                t = by_tid[row[0]["tid"]]
                self.assertEqual(row[2]["value"], t["running_ns"])
                self.assertEqual(row[3]["value"], t["runnable_ns"])
        self.assertGreater(procs, 100)

    def test_limit_and_range(self):
        tr = self.report["time_range"]
        begin = tr["begin_ns"] + tr["duration_ns"] // 4
        end = tr["begin_ns"] + tr["duration_ns"] // 2
        p = lami(f"--begin={begin}", "--end", str(end), "--limit=2", TRACE)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        res = json.loads(p.stdout)
        for t in res["results"]:
            self.assertLessEqual(len(t["data"]), 2, t["class"])
            self.assertGreaterEqual(t["time-range"]["begin"]["value"], begin)
            self.assertLessEqual(t["time-range"]["end"]["value"], end)
        summary = [t for t in res["results"] if t["class"] == "summary"][0]["data"][0]
        full = self.table("summary")["data"][0]
        self.assertLess(summary[5]["value"], full[5]["value"], "fewer events in a quarter")

    def test_range_keeps_identities(self):
        # The second 18:39:24 UTC of the trace: its statedump, before the
        # selection, gave lttng-sessiond's thread 11924 its process and the
        # disk its name; a trimmer (babeltrace2's --begin/--end) lost both.
        begin, end = 1521484764 * 10**9, 1521484765 * 10**9
        p = lami(f"--begin={begin}", f"--end={end}", TRACE)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        res = json.loads(p.stdout)
        tables = {t["class"]: t for t in res["results"]}
        rows = {r[0].get("tid"): r for r in tables["threads"]["data"]}
        self.assertEqual(rows[11924][0].get("pid"), 11893, rows[11924])
        for r in tables["threads"]["data"]:
            self.assertGreaterEqual(r[1]["begin"]["value"], begin, r)
            self.assertLessEqual(r[1]["end"]["value"], end, r)
        disks = {c["name"] for r in tables["edges"]["data"] for c in r[:2]
                 if c["class"] == "disk"}
        self.assertIn("vda", disks)
        self.assertNotIn("253:0", disks)
        summary = tables["summary"]["data"][0]
        self.assertEqual((summary[0]["begin"]["value"], summary[0]["end"]["value"]),
                         (begin, end))

    def test_output_progress(self):
        p = lami("--output-progress", "--limit=1", TRACE)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        progress = lines[:-1]
        self.assertTrue(progress)
        for line in progress:
            value = line.split(" ", 1)[0]
            self.assertTrue(0 <= float(value) <= 1, line)
        self.assertIn("results", json.loads(lines[-1]))

    # -- errors: one line on stderr, a LAMI error object on stdout

    def test_missing_trace(self):
        p = lami("/nonexistent/trace")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("/nonexistent/trace", p.stderr)
        err = json.loads(p.stdout)
        self.assertIn("/nonexistent/trace", err["error-message"])

    def test_not_a_kernel_trace(self):
        with tempfile.TemporaryDirectory() as tmp:
            p = lami(tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("no CTF trace there", p.stderr)
        self.assertIn("error-message", json.loads(p.stdout))

    def test_bad_metadata(self):
        # babeltrace2 says why only in its log; the one line carries it.
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "metadata"), "w") as f:
                f.write("not CTF\n")
            p = lami(tmp)
        self.assertNotEqual(p.returncode, 0)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("CTF metadata cannot be read", p.stderr)

    def test_metadata_cut_inside_a_packet(self):
        # babeltrace2 2.0 spins forever on it: wperf-lami checks the
        # metadata packets first and names the file.
        with tempfile.TemporaryDirectory() as tmp:
            cut = os.path.join(tmp, "kernel")
            shutil.copytree(TRACE, cut)
            for root, dirs, files in os.walk(cut):
                for n in dirs + files:
                    os.chmod(os.path.join(root, n), 0o755 if n in dirs else 0o644)
            os.truncate(os.path.join(cut, "metadata"), 200000)
            p = lami(cut)
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
        self.assertIn("metadata is cut short inside metadata packet", p.stderr)
        self.assertIn("error-message", json.loads(p.stdout))

    def test_usage_errors(self):
        # wperf-lami(1), EXIT STATUS: 2 for usage, 1 when the analysis
        # cannot run.
        for args, status in ((["--begin=yesterday", TRACE], 2), (["--end=abc", TRACE], 2),
                             (["--limit=0", TRACE], 2), ([], 2), (["--no-such-option"], 2),
                             (["--begin=20", "--end=10", TRACE], 1)):
            p = lami(*args)
            self.assertEqual(p.returncode, status, (args, p.stderr))
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, (args, p.stderr))


if __name__ == "__main__":
    unittest.main(verbosity=2)
