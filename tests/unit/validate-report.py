#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Validate real JSON reports against doc/wperf-report.schema.json.

usage: validate-report.py REPORT_DUMP SCHEMA

Runs `REPORT_DUMP --list`, then `REPORT_DUMP CASE` for every case, parses
the output strictly (no NaN/Infinity, no duplicate keys), validates it
against the JSON Schema, and checks what a schema cannot say: vertex ids
are their indexes, edges are sorted and reference existing vertices, knot
members are sorted, knots come before sinks and each group is ordered by
weight; every share or ratio is in [0, 1] and every weight splits into
own + cascaded. Prints TAP-like lines; exits 1 on any failure.
"""
import json
import re
import subprocess
import sys

import jsonschema

sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(
    __import__("os").path.abspath(__file__)), ".."))
import report_invariants  # noqa: E402


def strict_pairs(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key in %r" % keys)
    return dict(pairs)


def reject_constant(name):
    raise ValueError("non-JSON number %s" % name)


def cross_checks(doc):
    """Yield one message per inconsistency."""
    n = len(doc["vertices"])
    for i, v in enumerate(doc["vertices"]):
        if v["id"] != i:
            yield "vertex %d has id %d" % (i, v["id"])
    pairs = [(e["from"], e["to"]) for e in doc["edges"]]
    if pairs != sorted(pairs):
        yield "edges are not sorted by (from, to)"
    for f, t in pairs:
        if f >= n or t >= n:
            yield "edge %d -> %d names a missing vertex" % (f, t)
    tr = doc["time_range"]
    if tr["duration_ns"] != max(0, tr["end_ns"] - tr["begin_ns"]):
        yield "duration_ns is not end_ns - begin_ns"
    # Knots and sinks together by weight (a knot first at equal weight),
    # then background knots; rank is the position from 1.
    kind = {"knot": 0, "sink": 1, "background": 0}

    def tier(k):
        if k["kind"] == "background":
            return 2
        return 1 if k["kind"] == "sink" and k["limit"] != "work" else 0

    order = [(tier(k), -k["weight_ns"], kind[k["kind"]]) for k in doc["knots"]]
    if order != sorted(order):
        yield "knots are not in report order"
    if [k["rank"] for k in doc["knots"]] != list(range(1, len(doc["knots"]) + 1)):
        yield "knots' ranks are not 1, 2, ... in order"
    for k in doc["knots"]:
        for key in ("members", "component"):
            ids = k[key]
            if ids != sorted(ids) or any(i >= n for i in ids):
                yield "knot %s not sorted or out of range: %r" % (key, ids)
        if not set(k["members"]) <= set(k["component"]):
            yield "knot members outside its component"
        weights = [e["weight_ns"] for e in k["edges"]]
        if weights != sorted(weights, reverse=True):
            yield "knot edges not heaviest first"
        if k["kind"] != "sink" and sum(weights) != k["weight_ns"]:
            yield "knot weight is not the sum of its edges"
    for t in doc["threads"]:
        if doc["vertices"][t["id"]]["kind"] not in ("thread", "virtual"):
            yield "thread entry %d is not a thread vertex" % t["id"]
    yield from fraction_checks(doc)
    yield from report_invariants.problems(doc)


def fractions(node, path=""):
    """(path, value) of every number whose member name says it is a share
    or ratio, anywhere in the document."""
    if isinstance(node, dict):
        for k, v in node.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool) and \
                    re.search(r"(^|_)(share|ratio|tolerance)$", k):
                yield path + "/" + k, v
            yield from fractions(v, path + "/" + k)
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from fractions(v, "%s/%d" % (path, i))


def fraction_checks(doc):
    """Every share is a fraction of some time or count, in [0, 1]; a weight
    is never one, and comes split: own + cascaded = weight, own within the
    waiters' time (wperf-report(7), WEIGHTS)."""
    for path, v in fractions(doc):
        if not 0 <= v <= 1:
            yield "%s = %r is not a fraction in [0, 1]" % (path, v)
    for name in ("knots", "groups"):
        for i, k in enumerate(doc.get(name, [])):
            if k["own_ns"] + k["cascaded_ns"] != max(k["weight_ns"], k["own_ns"]):
                yield "%s/%d: own_ns + cascaded_ns != weight_ns" % (name, i)
            if k["own_ns"] > k["waiters_ns"]:
                yield "%s/%d: own_ns above waiters_ns" % (name, i)
    for e in doc["edges"]:
        if e["direct_ns"] + e["cascaded_ns"] != e["weight_ns"]:
            yield "edge %d -> %d: direct_ns + cascaded_ns != weight_ns" % (e["from"], e["to"])


def main():
    dump, schema_path = sys.argv[1], sys.argv[2]
    with open(schema_path) as f:
        schema = json.load(f)
    validator_class = jsonschema.validators.validator_for(schema)
    validator_class.check_schema(schema)
    validator = validator_class(schema)

    cases = subprocess.run([dump, "--list"], check=True, capture_output=True,
                           text=True).stdout.split()
    failures = 0
    for number, case in enumerate(cases, 1):
        problems = []
        out = subprocess.run([dump, case], capture_output=True)
        if out.returncode != 0:
            problems.append("report-dump exited %d: %s" % (out.returncode, out.stderr))
        else:
            try:
                text = out.stdout.decode("utf-8")   # strict: invalid UTF-8 fails
                doc = json.loads(text, object_pairs_hook=strict_pairs,
                                 parse_constant=reject_constant)
                problems += ["schema: %s at /%s" % (e.message, "/".join(map(str, e.path)))
                             for e in validator.iter_errors(doc)]
                if not problems:
                    problems += list(cross_checks(doc))
            except ValueError as e:
                problems.append("not strict JSON: %s" % e)
        for p in problems:
            print("# %s: %s" % (case, p))
        print("%s %d - %s" % ("not ok" if problems else "ok", number, case))
        failures += bool(problems)
    print("1..%d" % len(cases))
    print("FAIL" if failures or not cases else "PASS")
    return 1 if failures or not cases else 0


if __name__ == "__main__":
    sys.exit(main())
