#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# wperf diff — compare two knot reports of the same program (before and
# after a change), in the spirit of OSprof's differential analysis: what
# appeared, what went away, what got heavier, and whether the wait lengths
# behind an edge moved (Earth Mover's Distance between the log2 histograms).
# The manual is the DIFF section of wperf(1) (doc/wperf.1.md).
#
# A private program: bin/wperf (C, tools/wperf/) runs it for `wperf diff`
# with the arguments after `diff` (libexec/wperf/wperf-diff when installed,
# build/tools/wperf-diff beside the build tree's wperf); the tests also
# import it as a module. Python standard library only. Reports
# are the JSON of sink.wperf.knots (wperf-report(7)); members this module
# does not know are ignored.
#
# It is Python, unlike the rest of the command: it reads two JSON files and
# compares numbers, which needs neither libbabeltrace2 nor liblttng-ctl,
# and Python's json module reads what the sink writes with no parser of
# our own to keep in step with it.
import argparse
import json
import os
import re
import sys

EXIT_OK, EXIT_GREW, EXIT_BAD = 0, 1, 2


class BadInput(Exception):
    """Unusable input or usage: one line, exit status 2."""


# ------------------------------------------------------------ loading

def top_stream(text):
    """Is text wperf top's JSON output, one {"every": ..., "report": ...}
    object a line (sink.wperf.knots every=)?"""
    try:
        first = json.loads(text.split("\n", 1)[0])
    except ValueError:
        return False
    return isinstance(first, dict) and "every" in first


def load_report(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise BadInput(f"cannot read {path}: {e.strerror or e}")
    except UnicodeDecodeError:
        raise BadInput(f"{path} is not a wperf report (not UTF-8 text): write one with "
                       "wperf report --format json --output FILE")
    try:
        report = json.loads(text)
    except ValueError as e:
        report = e
    if top_stream(text):
        raise BadInput(f"{path} is a wperf top --format json stream (a report per line), "
                       "not one report: its last line's \"report\" is the whole run's, "
                       "e.g. tail -n 1 FILE | python3 -c 'import json,sys; json.dump("
                       "json.load(sys.stdin)[\"report\"], sys.stdout)' > run.json")
    if isinstance(report, ValueError):
        raise BadInput(f"{path} is not a wperf report (not JSON: {report}): write one with "
                       "wperf report --format json --output FILE")
    if not isinstance(report, dict) or report.get("format") != "wperf-report":
        raise BadInput(f"{path} is not a wperf report (no \"format\": \"wperf-report\"): "
                       "write one with wperf report --format json --output FILE")
    # Version 2 only dropped knots' and groups' "share", which diff never
    # read (it divides weight_ns by duration_ns itself).
    if report.get("version") not in (1, 2):
        raise BadInput(f"{path}: wperf report version {report.get('version')!r} is not "
                       "supported (this wperf reads versions 1 and 2)")
    try:
        check_report(report)
    except (KeyError, TypeError, ValueError) as e:
        raise BadInput(f"{path} is a damaged wperf report ({e})")
    return report


def check_report(r):
    """The members diff uses, with the right types (KeyError/TypeError/
    ValueError otherwise)."""
    int(r["time_range"]["duration_ns"])
    ids = set()
    for v in r["vertices"]:
        ids.add(int(v["id"]))
        str(v["kind"])
        str(v["name"])
    for e in r["edges"]:
        if e["from"] not in ids or e["to"] not in ids:
            raise ValueError(f"edge {e['from']} -> {e['to']} names an unknown vertex")
        int(e["weight_ns"])
        int(e["count"])
        dict(e.get("hist") or {})
    for k in r["knots"]:
        str(k["kind"])
        int(k["weight_ns"])
        for m in k["members"]:
            if m not in ids:
                raise ValueError(f"knot member {m} is an unknown vertex")


# ------------------------------------------------------------ matching

def base_name(name):
    """A thread's name without what differs between runs: trailing digits
    (worker-3, kworker/0:1) and the separators before them."""
    stripped = re.sub(r"[\d\-_/:.#]+$", "", name)
    return stripped or name


def vertex_key(v):
    """What identifies a vertex across two runs: threads and merged threads
    by their comm without trailing digits (tids never match), devices,
    interrupts, timer and unknown by name."""
    kind = v["kind"]
    if kind in ("thread", "virtual"):
        name = v.get("comm") if kind == "thread" else None
        name = name or v["name"]
        if kind == "virtual":
            # A pool ("fio ×4", "worker-* ×4", merge="pool") is its
            # threads' name whatever their number: one run's 4 workers
            # match another's 5, or the same workers unmerged.
            name = re.sub(" \u00d7[0-9]+$", "", name).rstrip("*")
        return ("thread", base_name(name))
    return (kind, v["name"])


def cut_mid_word(name):
    """True when base_name(name) cuts name inside a word (the digits of
    qemu-system-x86), not at a separator (worker-3, kworker/0:1)."""
    base = base_name(name)
    return base != name and base[-1:].isalnum() and name[len(base)].isdigit()


def key_labels(a, b):
    """Each key's label: its base name (worker for worker-1 and worker-12),
    but a name whose digits were cut inside a word is shown whole when both
    reports agree on it (qemu-system-x86), else with an ellipsis
    (thread…), never as a word cut short."""
    labels = {}
    for key in set(a.names) | set(b.names):
        names = a.names.get(key, set()) | b.names.get(key, set())
        label = key[1]
        if any(cut_mid_word(n) for n in names):
            label = next(iter(names)) if len(names) == 1 else label + "\u2026"
        labels[key] = label
    return labels


class Side:
    """One report, keyed for matching."""

    def __init__(self, path, report):
        self.path = path
        self.report = report
        self.duration = int(report["time_range"]["duration_ns"])
        self.key = {v["id"]: vertex_key(v) for v in report["vertices"]}
        # The names behind each key, for its label (key_labels).
        self.names = {}
        for v in report["vertices"]:
            name = (v.get("comm") if v["kind"] == "thread" else None) or v["name"]
            self.names.setdefault(self.key[v["id"]], set()).add(name)
        # A focused report is about what its focus reaches (focus_reach,
        # wperf-report(7)): only the edges whose waiter it reaches are
        # compared; the others are counted, and the output says so.
        # Without focus_reach (no focus, or an older report), every edge.
        reach = report.get("focus_reach")
        self.reach = set(reach) if isinstance(reach, list) else None
        self.left_out = 0
        # Edges folded by key pair: threads of one name are one vertex here.
        self.edges = {}
        for e in report["edges"]:
            if self.reach is not None and e["from"] not in self.reach:
                self.left_out += 1
                continue
            pair = (self.key[e["from"]], self.key[e["to"]])
            acc = self.edges.setdefault(pair, {"weight_ns": 0, "direct_ns": 0,
                                               "count": 0, "hist": {}})
            acc["weight_ns"] += int(e["weight_ns"])
            acc["direct_ns"] += int(e.get("direct_ns", e["weight_ns"]))
            acc["count"] += int(e["count"])
            for b, c in (e.get("hist") or {}).items():
                acc["hist"][int(b)] = acc["hist"].get(int(b), 0) + int(c)
        self.knots = []
        for k in report["knots"]:
            self.knots.append({
                "kind": k["kind"],
                "members": frozenset(self.key[m] for m in k["members"]),
                "weight_ns": int(k["weight_ns"]),
                # Its own waiting (wperf-report(7), WEIGHTS), None in
                # reports older than it.
                "own_ns": k.get("own_ns"),
                "classification": k.get("classification"),
            })

    def rate(self, ns):
        """A weight per second analysed, so that runs of different lengths
        compare. No share: it may exceed 1, a weight adding up the waiting
        of several threads, cascaded (wperf-report(7), WEIGHTS)."""
        return ns / self.duration if self.duration > 0 else 0.0


def jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 1.0


def match_knots(a, b):
    """Pairs (ka, kb) with None for a knot only one side has: same members
    first, then the most overlapping (at least half of the union)."""
    left = list(range(len(a.knots)))
    right = list(range(len(b.knots)))
    pairs = []
    for i in list(left):
        for j in right:
            if a.knots[i]["members"] == b.knots[j]["members"]:
                pairs.append((i, j))
                left.remove(i)
                right.remove(j)
                break
    candidates = sorted(((jaccard(a.knots[i]["members"], b.knots[j]["members"]), i, j)
                         for i in left for j in right), key=lambda t: (-t[0], t[1], t[2]))
    for score, i, j in candidates:
        if score >= 0.5 and i in left and j in right:
            pairs.append((i, j))
            left.remove(i)
            right.remove(j)
    pairs += [(i, None) for i in left] + [(None, j) for j in right]
    return pairs


# ------------------------------------------------------------ histograms

def emd(hist_a, hist_b):
    """Earth Mover's Distance between two wait-length histograms over log2
    buckets, each normalised to 1: the sum over buckets of the absolute
    difference of the two cumulative distributions. Its unit is one bucket
    (a factor of 2 in wait length). None when either histogram is empty."""
    ta, tb = sum(hist_a.values()), sum(hist_b.values())
    if ta <= 0 or tb <= 0:
        return None
    lo = min(min(hist_a), min(hist_b))
    hi = max(max(hist_a), max(hist_b))
    ca = cb = 0.0
    dist = 0.0
    for b in range(lo, hi):        # the last bucket's CDFs are both 1
        ca += hist_a.get(b, 0) / ta
        cb += hist_b.get(b, 0) / tb
        dist += abs(ca - cb)
    return round(dist, 6)


# ------------------------------------------------------------ the diff

def growth_pct(before, after):
    """Relative growth in percent; None (infinite) from zero."""
    if before == 0:
        return 0.0 if after == 0 else None
    return round((after - before) * 100.0 / before, 3)


def diff(a, b, min_change_pct, absolute):
    def measure(side, ns):
        return ns if absolute else side.rate(ns)

    labels = key_labels(a, b)

    def key_label(key):
        return labels.get(key, key[1])

    knots = []
    for i, j in match_knots(a, b):
        ka = a.knots[i] if i is not None else None
        kb = b.knots[j] if j is not None else None
        wa = ka["weight_ns"] if ka else 0
        wb = kb["weight_ns"] if kb else 0
        grow = growth_pct(measure(a, wa), measure(b, wb))
        if ka is None:
            status = "appeared"
        elif kb is None:
            status = "disappeared"
        elif (ka["members"] != kb["members"] or ka["kind"] != kb["kind"]
              or grow is None or abs(grow) >= min_change_pct):
            status = "changed"
        else:
            status = "unchanged"
        members = (kb or ka)["members"]
        entry = {
            "status": status,
            "kind": (kb or ka)["kind"],
            "members": sorted(key_label(m) for m in members),
            "kind_before": ka["kind"] if ka else None,
            "kind_after": kb["kind"] if kb else None,
            "members_before": sorted(key_label(m) for m in ka["members"]) if ka else None,
            "members_after": sorted(key_label(m) for m in kb["members"]) if kb else None,
            "weight_before_ns": wa, "weight_after_ns": wb,
            "rate_before": round(a.rate(wa), 6), "rate_after": round(b.rate(wb), 6),
            "growth_pct": grow,
            "own_before_ns": ka["own_ns"] if ka else None,
            "own_after_ns": kb["own_ns"] if kb else None,
        }
        if (ka and ka["classification"] is not None) or (kb and kb["classification"] is not None):
            entry["classification_before"] = ka["classification"] if ka else None
            entry["classification_after"] = kb["classification"] if kb else None
        knots.append(entry)
    order = {"appeared": 0, "changed": 1, "disappeared": 2, "unchanged": 3}
    knots.sort(key=lambda k: (order[k["status"]],
                              -max(k["weight_before_ns"], k["weight_after_ns"]),
                              k["members"]))

    edges = []
    for pair in sorted(set(a.edges) | set(b.edges)):
        ea, eb = a.edges.get(pair), b.edges.get(pair)
        wa = ea["weight_ns"] if ea else 0
        wb = eb["weight_ns"] if eb else 0
        change = growth_pct(measure(a, wa), measure(b, wb))
        status = ("appeared" if ea is None else "disappeared" if eb is None
                  else "changed" if change is None or abs(change) >= min_change_pct
                  else "unchanged")
        edges.append({
            "status": status,
            "from": key_label(pair[0]), "to": key_label(pair[1]),
            "weight_before_ns": wa, "weight_after_ns": wb,
            "rate_before": round(a.rate(wa), 6), "rate_after": round(b.rate(wb), 6),
            "change_pct": change,
            "count_before": ea["count"] if ea else 0, "count_after": eb["count"] if eb else 0,
            "emd_buckets": emd(ea["hist"], eb["hist"]) if ea and eb else None,
        })
    edges.sort(key=lambda e: (-abs(measure(b, e["weight_after_ns"])
                                   - measure(a, e["weight_before_ns"])), e["from"], e["to"]))
    return knots, edges


def guard(knots, limit_pct):
    """Knots (kind knot) that grew beyond limit_pct, or appeared."""
    if limit_pct is None:
        return []
    out = []
    for k in knots:
        if k["kind"] != "knot" or k["status"] == "disappeared":
            continue
        g = k["growth_pct"]
        if g is None or g > limit_pct:
            out.append(k)
    return out


# ------------------------------------------------------------ output

def fmt_ns(ns):
    ns = float(ns)
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if abs(ns) >= scale:
            return f"{ns / scale:.3g}{unit}"
    return f"{ns:.0f}ns"


def class_name(c):
    """A knot's classification (added to reports by the analysis) in the
    report's own words: its summary up to the colon ("blocking I/O: threads
    wait for ..." gives "blocking I/O"), else its class."""
    if isinstance(c, dict):
        summary = str(c.get("summary") or "")
        if ":" in summary:
            return summary.split(":", 1)[0]
        return str(c.get("class") or "").replace("_", " ")
    return "" if c is None else str(c)


def weight_words(weight_ns, own_ns):
    """"4.00ms (own 3.00ms)": a weight and the waiters' own waiting in it."""
    if own_ns is None:
        return fmt_ns(weight_ns)
    return f"{fmt_ns(weight_ns)} (own {fmt_ns(own_ns)})"


def fmt_growth(g):
    return "new" if g is None else f"{g:+.1f}%"


_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f]")


def printable(text):
    """text with every control character (C0, DEL, C1) replaced by '?', as
    the sink's text report does: thread names and paths come from the
    traced programs and must not move the reader's cursor or forge lines."""
    return _UNPRINTABLE.sub("?", str(text))


def names_of(members):
    return ", ".join(printable(m) for m in members)


def edge_change(e, per):
    """An edge's change in words: its growth (per second analysed when
    the lengths differ), or that it appeared or disappeared, which a
    growth of "+0.0%" (a weightless edge) or "-100.0%" would hide."""
    if e["status"] in ("appeared", "disappeared"):
        return e["status"]
    return fmt_growth(e["change_pct"]) + per


def text_output(a, b, knots, edges, violations, limit_pct, top, absolute, out):
    w = out.write
    warnings = mismatches(a, b)
    if warnings:
        w("warning: " + "; ".join(warnings) + "\n")
    w(f"wperf diff: {printable(a.path)} ({fmt_ns(a.duration)}) -> "
      f"{printable(b.path)} ({fmt_ns(b.duration)})\n")
    # Growth is of the rate (weight per second analysed) unless --absolute:
    # with lengths that differ, "4.8s -> 1.2s +58.7%" would read as a
    # mistake unless the percentages say what they compare.
    per = ""
    if not absolute and a.duration != b.duration:
        per = " per s"
        w("Changes are per second analysed, the two lengths differing "
          "(--absolute compares the weights as they are)\n")
    counts = {s: sum(1 for k in knots if k["status"] == s)
              for s in ("appeared", "disappeared", "changed", "unchanged")}
    w(f"Knots and sinks: {counts['appeared']} appeared, {counts['disappeared']} disappeared, "
      f"{counts['changed']} changed, {counts['unchanged']} unchanged\n")
    for k in knots:
        if k["status"] == "unchanged":
            continue
        names = "{" + names_of(k["members"]) + "}"
        # A weight and the own waiting in it (the rest cascaded): no share
        # of the analysed time, which a sum of edges can exceed.
        before = (weight_words(k["weight_before_ns"], k.get("own_before_ns"))
                  if k["status"] != "appeared" else "-")
        after = (weight_words(k["weight_after_ns"], k.get("own_after_ns"))
                 if k["status"] != "disappeared" else "-")
        w(f"  {k['status']:<11} {printable(k['kind']):<10} {names}  {before} -> {after}"
          f"  {fmt_growth(k['growth_pct']) + per if k['status'] in ('changed',) else ''}\n"
          .rstrip() + "\n")
        if k["status"] == "changed" and k["members_before"] != k["members_after"]:
            w(f"              members were {{{names_of(k['members_before'])}}}\n")
        if k["status"] == "changed" and k["kind_before"] != k["kind_after"]:
            w(f"              was a {printable(k['kind_before'])}\n")
        before, after = (class_name(k.get("classification_before")),
                         class_name(k.get("classification_after")))
        if (after and k["status"] != "disappeared"
                and (after != "unknown" or (before and before != after))):
            w(f"              looks like {printable(after)}"
              + (f" (was {printable(before)})" if before and before != after else "") + "\n")
    moved = [e for e in edges if e["status"] != "unchanged"]
    n = {s: sum(1 for e in moved if e["status"] == s)
         for s in ("changed", "appeared", "disappeared")}
    w(f"Edges: {n['changed']} of {len(edges)} changed by at least the tolerance, "
      f"{n['appeared']} appeared, {n['disappeared']} disappeared")
    if len(moved) > top:
        w(f" (the {top} largest changes; --format=json lists all)")
    w("\n")
    if a.left_out or b.left_out:
        w(f"  {left_out_words(a, b)}\n")
    for e in moved[:top]:
        emd_text = "" if e["emd_buckets"] is None else f"  EMD {e['emd_buckets']:.3f} buckets"
        w(f"  {printable(e['from'])} -> {printable(e['to'])}: {fmt_ns(e['weight_before_ns'])} -> "
          f"{fmt_ns(e['weight_after_ns'])} ({edge_change(e, per)}), waits "
          f"{e['count_before']} -> {e['count_after']}{emd_text}\n")
    shifted = [e for e in edges if e["emd_buckets"] is not None and e["emd_buckets"] >= 1.0]
    if shifted:
        w("Wait lengths that moved by at least one log2 bucket (EMD >= 1):\n")
        for e in sorted(shifted, key=lambda e: -e["emd_buckets"])[:top]:
            w(f"  {printable(e['from'])} -> {printable(e['to'])}: EMD {e['emd_buckets']:.3f}\n")
    if limit_pct is not None:
        if violations:
            for k in violations:
                what = ("appeared" if k["growth_pct"] is None
                        else f"grew {k['growth_pct']:+.1f}%{per}")
                w(f"FAIL: knot {{{names_of(k['members'])}}} {what} "
                  f"(tolerance {limit_pct:g}%)\n")
        else:
            w(f"OK: no knot grew more than {limit_pct:g}%\n")


def focus_words(side):
    """What a report is focused on: the names of its focus vertices, or
    None without a focus."""
    focus = side.report.get("focus")
    if not isinstance(focus, list):
        return None
    byid = {v["id"]: v for v in side.report["vertices"]}
    return ",".join(sorted({str(byid[i]["name"]) for i in focus if i in byid}))


def parameters(side):
    """The analysis parameters that change what a report finds."""
    r = side.report

    def given(obj):   # as given ("20%"): a share resolves to other ns in another run
        obj = obj or {}
        return obj.get("spec") if obj.get("spec") is not None else obj.get("ns")
    return {"threshold": given(r.get("threshold")),
            "min-weight": given(r.get("min_weight")),
            "knot-rule": (r.get("knot_rule") or {}).get("rule")}


def mismatches(a, b):
    """One sentence per way the two reports were not made alike (focus,
    parameters), which makes their comparison about that, not the program."""
    out = []
    fa, fb = focus_words(a), focus_words(b)
    if (fa is None) != (fb is None):
        focused, whole = (a, b) if fa is not None else (b, a)
        out.append(f"{printable(focused.path)} is focused ({printable(fa or fb)}) and "
                   f"{printable(whole.path)} is not (the whole machine): report both the same "
                   "way (wperf report --pids/--comms, or --all) to compare the program")
    elif fa is not None and fa != fb:
        out.append(f"the reports have different focuses ({printable(fa)} and {printable(fb)})")
    pa, pb = parameters(a), parameters(b)
    differ = [f"{k} {pa[k]} and {pb[k]}" for k in pa if pa[k] != pb[k]]
    if differ:
        out.append("they were analysed with different parameters (" + ", ".join(differ) + ")")
    return out


def left_out_words(a, b):
    """One line: how many edges the focus left out of each report, and how
    to compare them all."""
    return (f"{a.left_out} edges of {printable(a.path)} and {b.left_out} of "
            f"{printable(b.path)} outside what their focus waits on were left out; "
            "reports written without a focus (pids=, wperf report --pids) compare them all")


def parse_pct(text):
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*%?\s*", text)
    if not m:
        raise argparse.ArgumentTypeError(f"invalid percentage {text!r} (e.g. 10 or 10%)")
    return float(m.group(1))


class Parser(argparse.ArgumentParser):
    def error(self, message):
        raise BadInput(f"wperf diff: {message} (see wperf diff --help)")


def build_parser():
    p = Parser(prog="wperf diff", description=(
        "Compare two JSON knot reports of the same program (before and after): "
        "knots that appeared, disappeared or changed (matched by member names, "
        "trailing digits of thread names ignored), edges whose weight changed, "
        "and how each edge's wait-length histogram moved (Earth Mover's "
        "Distance in log2 buckets). Weights are compared per second of each "
        "report's analysed time unless --absolute. Exit status: 0, 1 when "
        "--fail-if-knot-grows is exceeded, 2 on bad input."))
    p.add_argument("before", metavar="A.json")
    p.add_argument("after", metavar="B.json")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.add_argument("--fail-if-knot-grows", type=parse_pct, metavar="PCT",
                   help="exit 1 when a knot (kind knot) grows by more than PCT "
                   "percent, or a new knot appears")
    p.add_argument("--min-change", type=parse_pct, default=10.0, metavar="PCT",
                   help="smallest relative change reported as changed (default 10%%)")
    p.add_argument("--absolute", action="store_true",
                   help="compare weights in ns, not per second analysed")
    p.add_argument("--top", type=int, default=20, metavar="N",
                   help="text output: at most N edges (default 20)")
    return p


def run(argv, out=sys.stdout):
    """wperf diff's main: returns the exit status; raises BadInput, and
    WriteFailed (with the status) when out cannot take the output."""
    args = build_parser().parse_args(argv)
    a = Side(args.before, load_report(args.before))
    b = Side(args.after, load_report(args.after))
    knots, edges = diff(a, b, args.min_change, args.absolute)
    violations = guard(knots, args.fail_if_knot_grows)
    status = EXIT_GREW if violations else EXIT_OK
    try:
        write_output(args, a, b, knots, edges, violations, status, out)
        out.flush()
    except OSError as e:
        raise WriteFailed(status, e) from e
    return status


class WriteFailed(Exception):
    """The output could not be written; status: what the comparison found."""

    def __init__(self, status, error):
        super().__init__(error)
        self.status, self.error = status, error


def write_output(args, a, b, knots, edges, violations, status, out):
    if args.format == "json":
        doc = {
            "format": "wperf-diff", "version": 2,
            "before": {"path": a.path, "duration_ns": a.duration,
                       "focused": a.reach is not None, "edges_left_out": a.left_out},
            "after": {"path": b.path, "duration_ns": b.duration,
                      "focused": b.reach is not None, "edges_left_out": b.left_out},
            "compared_by": "weight_ns" if args.absolute else "rate",
            "warnings": mismatches(a, b),
            "min_change_pct": args.min_change,
            "knots": knots, "edges": edges,
            "guard": {"fail_if_knot_grows_pct": args.fail_if_knot_grows,
                      "violations": [{"members": k["members"],
                                      "growth_pct": k["growth_pct"]} for k in violations]},
            "exit_status": status,
        }
        out.write(json.dumps(doc, indent=1, allow_nan=False) + "\n")
    else:
        text_output(a, b, knots, edges, violations, args.fail_if_knot_grows, args.top,
                    args.absolute, out)


def main(argv):
    try:
        return run(argv)
    except BadInput as e:
        print(f"wperf: error: {printable(e)}", file=sys.stderr)
        return EXIT_BAD
    except WriteFailed as e:
        # Python's advice, stdout to /dev/null, so that its final flush
        # does not fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        if isinstance(e.error, BrokenPipeError):
            # The reader went away (`| head`): what the comparison found
            # still decides, or `wperf diff --fail-if-knot-grows ... | head`
            # in a CI step would pass a regression.
            return e.status
        print(f"wperf: error: cannot write the diff: {printable(e.error.strerror or e.error)}",
              file=sys.stderr)
        return EXIT_BAD


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
