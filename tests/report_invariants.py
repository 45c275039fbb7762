# SPDX-License-Identifier: MIT
"""What every JSON report must say to be physically possible
(doc/wperf-analysis.7.md, "Figures a recording can hold").

`problems(doc)` yields one line per impossible figure; `check(doc, what)`
raises AssertionError with all of them. The test helpers that parse a
report (wperf_scenario.run_knots and run_knots_cli, recording.py,
tests/unit/validate-report.py, the real-trace suite) call it on every
report they read, so no test can pass on a report that cannot be true:

- the threads' running time, summed, is at most CPUs x the analysed
  duration (a CPU runs one thread at a time; the idle task is no thread);
- each thread's running + runnable + waiting + unknown time is at most
  the time it was observed (first_ns to last_ns; a merged vertex: its
  members' lives, each within the duration), and never negative;
- the CPU finding's others ran at most CPUs x duration, its runnable time
  is at most its threads' lifetimes;
- a device was busy at most the analysed duration (per device);
- a finding's evidence counts the members' delays after device wakeups
  (`woken_ns`) inside the side it adds them to (cpu_demand: `b_ns`;
  device_weight: `a_ns`), and a device_weight's waits through threads
  waiting on the device (`through_ns`) inside `a_ns` beside them;
- every share is in [0, 1] (validate-report.py checks them all by name).
"""

# A clock read on different CPUs: per-CPU streams may disagree by a few
# microseconds, and the first/last event of a thread are rounded to them.
SLACK_NS = 1000


def _threads(doc):
    for t in doc.get("threads", []):
        v = doc["vertices"][t["id"]]
        if v.get("kind") == "thread" and t.get("tid") == 0:
            continue            # the idle task: no thread, it never ran
        yield t


def _time_of(t):
    waiting = sum(max(0, w) for w in t["waiting_ns"].values())
    return t["running_ns"] + t["runnable_ns"] + waiting + t.get("unknown_ns", 0)


def problems(doc):
    tr = doc["time_range"]
    duration = tr["duration_ns"]
    cpus = tr.get("cpus")
    for t in _threads(doc):
        name = "%s (%s)" % (t.get("comm"), t.get("tid"))
        for key in ("running_ns", "runnable_ns", "unknown_ns"):
            if t[key] < 0:
                yield "thread %s: %s = %d is negative" % (name, key, t[key])
        # The runnable time's parts: an idle CPU's latency and the delays
        # after device wakeups are both inside it, and apart.
        parts = t.get("wake_latency_ns", 0) + t.get("woken_cpu_wait_ns", 0)
        if parts > t["runnable_ns"]:
            yield ("thread %s: wake_latency_ns + woken_cpu_wait_ns = %d, more than its "
                   "runnable_ns %d" % (name, parts, t["runnable_ns"]))
        members = len(doc["vertices"][t["id"]].get("members") or []) or 1
        seen = t["last_ns"] - t["first_ns"] if t["first_ns"] >= 0 else 0
        # A merged vertex sums its members' lives.
        limit = seen * members if members == 1 else duration * members
        if _time_of(t) > limit + SLACK_NS * members:
            yield ("thread %s: running + runnable + waiting + unknown = %d ns, more than the "
                   "%d ns it was observed" % (name, _time_of(t), limit))
    if cpus:
        running = sum(t["running_ns"] for t in _threads(doc))
        if running > cpus * duration + SLACK_NS * cpus:
            yield ("threads ran %d ns in all, more than %d CPUs x %d ns" %
                   (running, cpus, duration))
        cpu = doc.get("cpu")
        if cpu and cpu["others_running_ns"] > cpus * duration + SLACK_NS * cpus:
            yield ("cpu.others_running_ns = %d, more than %d CPUs x %d ns" %
                   (cpu["others_running_ns"], cpus, duration))
    for v in doc["vertices"]:
        if v.get("kind") in ("disk", "nic") and v.get("busy_ns", 0) > duration + SLACK_NS:
            yield "%s busy %d ns, more than the %d ns analysed" % (
                v.get("name"), v["busy_ns"], duration)


def _evidence(doc):
    for k in doc.get("knots", []):
        yield from (k.get("classification") or {}).get("evidence", [])


def evidence_problems(doc):
    side = {"cpu_demand": "b_ns", "device_weight": "a_ns"}
    for ev in _evidence(doc):
        w = ev.get("woken_ns", 0)
        if w and (ev["kind"] not in side or w > ev[side[ev["kind"]]]):
            yield ("%s evidence: woken_ns = %d, not part of its %s" %
                   (ev["kind"], w, side.get(ev["kind"], "figures")))
        t = ev.get("through_ns", 0)
        if t and (ev["kind"] != "device_weight" or w + t > ev["a_ns"]):
            yield ("%s evidence: through_ns = %d and woken_ns = %d, more than a_ns = %d" %
                   (ev["kind"], t, w, ev.get("a_ns", 0)))
        if ev.get("on_runnable_ns", 0) and ev["kind"] != "device_weight":
            yield "%s evidence: on_runnable_ns, which only device_weight has" % ev["kind"]


def check(doc, what="report"):
    found = list(problems(doc)) + list(evidence_problems(doc))
    if found:
        raise AssertionError("%s holds impossible figures:\n  %s" % (what, "\n  ".join(found)))
    return doc
