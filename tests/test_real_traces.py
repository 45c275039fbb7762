#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Real LTTng kernel traces through the real plugin.

For every trace under $WPERF_SHARED_DIR/traces/lttng-kernel/ (read-only,
never copied into the project):

  1. `babeltrace2 --plugin-path=PLUGIN_DIR TRACE -c sink.wperf.knots
     --params=format=json,path=...` exits 0 and writes a report (traces the
     CLI muxer rejects, tc-synctraces' two hosts, go one host at a time
     through `babeltrace2 run` with source.ctf.fs connected straight to the
     sink);
  2. the report validates against doc/wperf-report.schema.json;
  3. invariants: weights >= 0, weight >= direct; every thread's
     running + runnable + waiting == last - first; per thread, the direct
     time of its out-edges == its waiting time over all waker kinds; no edge
     leaves a knot (edges to timer/unknown, edges of weight 0 or below the
     report's min_weight noise floor, edges out of the focused graph when
     the report has a focus, the edges refinement removed and the leaving
     edges the dominant knot rule admits, listed with the knot, excepted;
     those weigh at most the rule's ratio of an unrefined knot's weight);
     ids and members consistent;
  4. filter.wperf.waits + a Python sink: each thread vertex's segments tile
     [first_ns, last_ns] of that vertex in the report, durations >= 0.

A directory that holds other files beside the CTF metadata (a recording's
workload.pid), which source.ctf.fs would take for stream files, is read
through a temporary directory of symbolic links to the CTF files.

Usage: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_real_traces.py
       [--shared-dir-default DIR] [unittest args]
"""

import atexit
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import report_invariants  # noqa: E402
import wperf_scenario as ws  # noqa: E402

KINDS = ('thread', 'disk', 'nic', 'irq', 'softirq', 'timer', 'unknown', 'virtual')
CATEGORY_KINDS = ('timer', 'unknown')
# The processes whose threads are all the tracer's (graph.c,
# wperf_graph_mark_tracer_threads).
TRACER_PROCESS_NAMES = ('lttng-sessiond', 'lttng-consumerd', 'lttng-relayd', 'lttng-runas',
                        'lttng', 'wperf')


SHARED = ws.shared_dir()   # also takes meson's --shared-dir-default off argv
TRACES = os.path.join(SHARED, 'traces', 'lttng-kernel')
SOURCE_ROOT = os.environ.get('WPERF_SOURCE_ROOT',
                             os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
SCHEMA = os.path.join(SOURCE_ROOT, 'doc', 'wperf-report.schema.json')
BABELTRACE2 = os.environ.get('BABELTRACE2', 'babeltrace2')
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')

_TMP = tempfile.mkdtemp(prefix='wperf-real-')
atexit.register(shutil.rmtree, _TMP, True)


def ctf_dirs(root):
    """Directories under root that hold a CTF `metadata` file."""
    out = []
    for d, _subdirs, files in os.walk(root):
        if 'metadata' in files:
            out.append(d)
    return sorted(out)


CTF_MAGICS = (b'\xc1\x1f\xfc\xc1', b'\xc1\xfc\x1f\xc1')


def _is_ctf_file(path):
    if os.path.basename(path) == 'metadata':
        return True
    try:
        with open(path, 'rb') as f:
            return f.read(4) in CTF_MAGICS
    except OSError:
        return False


def readable_view(ctf_dir, label):
    """ctf_dir itself, or a temp dir of symlinks to its CTF files when it
    also holds files source.ctf.fs would misread (a recording's workload.pid,
    logs: anything that is not metadata, a CTF stream or the index/)."""
    names = os.listdir(ctf_dir)
    extra = [n for n in names if os.path.isfile(os.path.join(ctf_dir, n))
             and not _is_ctf_file(os.path.join(ctf_dir, n))]
    if not extra:
        return ctf_dir
    view = os.path.join(_TMP, 'view-' + label)
    os.makedirs(view, exist_ok=True)
    for n in names:
        if n in extra:
            continue
        dst = os.path.join(view, n)
        if not os.path.lexists(dst):
            os.symlink(os.path.join(ctf_dir, n), dst)
    return view


def trace_units():
    """(label, path, mode): mode 'cli' = babeltrace2 convert with its muxer,
    'run' = source.ctf.fs straight to the sink (one trace of a multi-host
    set that the muxer rejects)."""
    units = []
    if not os.path.isdir(TRACES):
        return units
    for entry in sorted(os.listdir(TRACES)):
        top = os.path.join(TRACES, entry)
        if not os.path.isdir(top):
            continue
        dirs = ctf_dirs(top)
        if len(dirs) == 1:
            units.append((entry, readable_view(dirs[0], entry), 'cli'))
        else:
            for d in dirs:
                label = entry + '-' + os.path.relpath(d, top).replace(os.sep, '-')
                units.append((label, readable_view(d, label), 'run'))
    return units


def run_sink(path, mode, out_json, extra_params=''):
    plugin_dir = ws.plugin_dir()
    params = 'format="json",path="%s"%s' % (out_json, extra_params)
    if mode == 'cli':
        cmd = [BABELTRACE2, '--plugin-path=' + plugin_dir, path,
               '-c', 'sink.wperf.knots', '--params=' + params]
    else:
        cmd = [BABELTRACE2, '--plugin-path=' + plugin_dir, 'run',
               '--component=src:source.ctf.fs', '--params=inputs=["%s"]' % path,
               '--component=knots:sink.wperf.knots', '--params=' + params,
               '--connect=src:knots']
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=600)
    return cmd, p


def segments_direct(path):
    """source.ctf.fs -> filter.wperf.waits -> Python sink, no muxer (for the
    'run' mode traces: one stream each)."""
    plugin = ws.wperf_plugin()
    out = {'segments': [], 'other_events': 0, 'other_traces': set()}
    import bt2
    g = bt2.Graph()
    src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'], 'src',
                          params={'inputs': [path]})
    ports = list(src.output_ports.values())
    if len(ports) != 1:
        raise AssertionError('%s: expected one stream, got %d ports' % (path, len(ports)))
    flt = g.add_component(plugin.filter_component_classes['waits'], 'waits')
    sink = g.add_component(ws._SegmentSink, 'collect', obj=out)
    g.connect_ports(ports[0], flt.input_ports['in'])
    g.connect_ports(flt.output_ports['out'], sink.input_ports['in'])
    g.run()
    return out


class Checks:
    """Report invariants, shared with test_recorded.py."""

    @staticmethod
    def report_invariants(tc, js, label):
        verts = js['vertices']
        ids = [v['id'] for v in verts]
        tc.assertEqual(len(set(ids)), len(ids), '%s: duplicate vertex ids' % label)
        byid = {v['id']: v for v in verts}
        tr = js['time_range']
        tc.assertEqual(tr['duration_ns'], tr['end_ns'] - tr['begin_ns'], label)
        tc.assertGreaterEqual(tr['duration_ns'], 0, label)
        problems = list(report_invariants.problems(js))
        out_direct = {}
        for e in js['edges']:
            if e['from'] not in byid or e['to'] not in byid:
                problems.append('edge with unknown endpoint %s' % e)
                continue
            if e['direct_ns'] < 0 or e['weight_ns'] < 0:
                problems.append('negative weight %s' % {k: e[k] for k in
                                                        ('from', 'to', 'weight_ns', 'direct_ns')})
            if e['weight_ns'] < e['direct_ns']:
                problems.append('weight < direct: %s' % {k: e[k] for k in
                                                         ('from', 'to', 'weight_ns', 'direct_ns')})
            if byid[e['from']]['kind'] in ('thread', 'virtual'):
                # A thread's waits for work (idle_ns) are kept apart from
                # the edge's weight, not from its waiting time.
                out_direct[e['from']] = (out_direct.get(e['from'], 0) + e['direct_ns']
                                         + e['idle_ns'])
        # Weights split as wperf-report(7), WEIGHTS, says: weight = own +
        # cascaded, own never more than the waiters' time.
        for e in js['edges']:
            if e['direct_ns'] + e['cascaded_ns'] != e['weight_ns']:
                problems.append('edge %d -> %d: direct + cascaded != weight'
                                % (e['from'], e['to']))
        for k in js['knots'] + js['groups']:
            if k['own_ns'] + k['cascaded_ns'] != k['weight_ns'] or k['own_ns'] > k['waiters_ns']:
                problems.append('finding %s: own %d + cascaded %d != weight %d, or own > '
                                'waiters %d' % (k['members'][:5], k['own_ns'], k['cascaded_ns'],
                                                k['weight_ns'], k['waiters_ns']))
        for t in js['threads']:
            v = byid.get(t['id'])
            if v is None or v['kind'] not in ('thread', 'virtual'):
                problems.append('threads[] entry %s is not a thread vertex' % t['id'])
                continue
            waiting = sum(t['waiting_ns'].get(k, 0) for k in KINDS)
            if v['kind'] == 'virtual':
                # Merged threads (merge=pool by default): their times and
                # waits are sums over members that may overlap in time, so
                # only the edges' sum is exact.
                if out_direct.get(t['id'], 0) != waiting:
                    problems.append('merged %s: sum of out-edge direct_ns %d != waiting %d'
                                    % (v['name'], out_direct.get(t['id'], 0), waiting))
                continue
            if t['first_ns'] == -1 and t['last_ns'] == -1:
                # Named (statedump) but never observed: no time at all.
                if t['running_ns'] or t['runnable_ns'] or waiting or t['waits'] \
                        or out_direct.get(t['id'], 0):
                    problems.append('thread %s never observed (first/last -1) but has time: %s'
                                    % (t['id'], t))
                continue
            for k in KINDS:
                if t['waiting_ns'].get(k, 0) < 0:
                    problems.append('thread %s: negative waiting_ns.%s' % (t['id'], k))
            if t['running_ns'] < 0 or t['runnable_ns'] < 0:
                problems.append('thread %s: negative running/runnable' % t['id'])
            life = t['last_ns'] - t['first_ns']
            if t['running_ns'] + t['runnable_ns'] + waiting + t['unknown_ns'] != life:
                problems.append('thread %s (tid %s %s): running %d + runnable %d + waiting %d '
                                '+ unknown %d != last-first %d'
                                % (t['id'], t['tid'], t['comm'], t['running_ns'],
                                   t['runnable_ns'], waiting, t['unknown_ns'], life))
            # A state goes unseen only when its end was lost with events.
            if t['unknown_ns'] and not (js['quality']['gaps'] or t['state_mismatches']
                                        or t['waits_without_wakeup']):
                problems.append('thread %s (tid %s %s): unknown %d ns with no event lost'
                                % (t['id'], t['tid'], t['comm'], t['unknown_ns']))
            if out_direct.get(t['id'], 0) != waiting:
                problems.append('thread %s (tid %s %s): sum of out-edge direct + idle %d != '
                                'waiting %d' % (t['id'], t['tid'], t['comm'],
                                                out_direct.get(t['id'], 0), waiting))
            if t['first_ns'] < tr['begin_ns'] or t['last_ns'] > tr['end_ns']:
                problems.append('thread %s lifetime [%d,%d] outside the time range'
                                % (t['id'], t['first_ns'], t['last_ns']))
        # Edges lighter than the report's noise floor take no part in knot
        # finding (doc/wperf-report.schema.json, min_weight).
        min_weight = (js.get('min_weight') or {}).get('ns') or 0

        # The tracer's own threads take no part in knots: LTTng-UST's
        # listeners ("<comm>-ust") and every thread of a process with a
        # thread named after LTTng's daemons or tool, or wperf, unless
        # focused (plugin/knots/knots-report.c, build_opaque;
        # wperf_graph_mark_tracer_threads).
        focus = set(js.get('focus') or ())
        tracer_pids = {v['pid'] for v in js['vertices'] if v['kind'] == 'thread'
                       and v['pid'] > 0 and v['comm'] in TRACER_PROCESS_NAMES}

        def tracer(v):
            name = byid[v].get('comm') or byid[v]['name']
            return (byid[v]['kind'] in ('thread', 'virtual') and v not in focus
                    and ((len(name) > 4 and name.endswith('-ust'))
                         or (byid[v]['kind'] == 'thread' and name in TRACER_PROCESS_NAMES)
                         or byid[v].get('pid', -1) in tracer_pids))

        def active(e):
            return (e['weight_ns'] > 0 and e['weight_ns'] >= min_weight
                    and byid[e['to']]['kind'] not in CATEGORY_KINDS
                    and not ws.waits_only_for_work(byid[e['from']])
                    and not tracer(e['from']) and not tracer(e['to']))
        # With a focus, knots are found in the focused graph: the vertices
        # the focus waits for transitively along active edges, a device's
        # idle edges (disk -> issuer) not followed (analysis/knots.c,
        # reachable_from).
        reach = None
        if js.get('focus'):
            adj = {}
            for e in js['edges']:
                if e['from'] in byid and e['to'] in byid and active(e):
                    adj.setdefault(e['from'], []).append(e['to'])
            reach = set(js['focus'])
            todo = list(reach)
            while todo:
                v = todo.pop()
                if byid[v]['kind'] in ('disk', 'nic'):
                    continue
                for w in adj.get(v, ()):
                    if w not in reach and not tracer(w):
                        reach.add(w)
                        todo.append(w)
        # Background knots were removed before the rest was searched again
        # (wperf-method(7) §7): edges into them may leave later knots and sinks.
        background = {m for k in js['knots'] if k['kind'] == 'background'
                      for m in k['members']}
        for k in js['knots']:
            members = set(k['members'])
            if k['members'] != sorted(k['members']):
                problems.append('knot members not ascending: %s' % k['members'])
            if not members <= set(byid):
                problems.append('knot with unknown members: %s' % k['members'])
                continue
            if not members <= set(k.get('component', k['members'])):
                problems.append('knot members not in its component: %s' % k)
            if k['kind'] == 'knot' and len(members) < 2 and not any(
                    e['from'] == e['to'] and e['from'] in members for e in js['edges']):
                problems.append('knot of one vertex without self-loop: %s' % k['members'])
            for m in members:
                if byid[m]['kind'] in CATEGORY_KINDS:
                    problems.append('category vertex %s in a %s' % (byid[m]['name'], k['kind']))
            if k['kind'] not in ('knot', 'sink'):
                continue
            removed = {(r['from'], r['to']) for r in k.get('removed', [])}
            # The dominant knot rule (wperf-analysis(7)): a knot may have
            # leaving edges, listed, weighing at most leave_ratio of the
            # internal edges of its component (its own when refinement cut
            # nothing: a refined knot's share is against the component).
            leaving = {(x['from'], x['to']) for x in k.get('leaving', [])}
            rule = js.get('knot_rule') or {}
            if sum(x['weight_ns'] for x in k.get('leaving', [])) != k.get('leaving_ns', 0):
                problems.append('%s {%s}: leaving_ns is not the sum of its leaving edges'
                                % (k['kind'], k['members']))
            if leaving and k['kind'] == 'knot' and not k['removed']:
                internal = sum(x['weight_ns'] for x in k.get('edges', []))
                if k['leaving_ns'] > rule.get('leave_ratio', 0) * internal * (1 + 1e-9):
                    problems.append('knot {%s}: %d ns leave it, more than leave_ratio of %d'
                                    % (','.join(map(str, k['members'])), k['leaving_ns'],
                                       internal))
            for e in js['edges']:
                if e['from'] in members and e['to'] not in members:
                    if byid[e['to']]['kind'] in CATEGORY_KINDS:
                        continue
                    if not active(e):
                        continue    # no dependency / below the noise floor / tracer
                    if reach is not None and e['to'] not in reach:
                        continue    # outside the focused graph
                    if ((e['from'], e['to']) in removed or e['to'] in background
                            or (e['from'], e['to']) in leaving):
                        continue
                    problems.append('edge %s(%s) -> %s(%s) w=%d leaves %s {%s}'
                                    % (byid[e['from']]['name'], e['from'],
                                       byid[e['to']]['name'], e['to'], e['weight_ns'],
                                       k['kind'], ','.join(str(x) for x in k['members'])))
            if k['weight_ns'] < 0:
                problems.append('negative knot weight %s' % k)
            ws_ = [x['weight_ns'] for x in k.get('edges', [])]
            if ws_ != sorted(ws_, reverse=True):
                problems.append('knot edges not heaviest first: %s' % ws_)
        q = js['quality']
        for key in ('events', 'discarded_events', 'discarded_packets', 'unmatched_wakeups',
                    'unknown_initial_threads', 'waits_without_wakeup', 'waits_open_at_end',
                    'unmatched_block_completions', 'state_mismatches'):
            if q[key] < 0:
                problems.append('quality.%s < 0' % key)
        if q['events'] <= 0:
            problems.append('quality.events = %s' % q['events'])
        if problems:
            tc.fail('%s: %d invariant violations:\n  %s' % (
                label, len(problems), '\n  '.join(problems[:25])))

    @staticmethod
    def tiling(tc, js, out, label):
        byid = {v['id']: v for v in js['vertices']}
        threads = {t['id']: t for t in js['threads']}
        segs = {}
        for s in out['segments']:
            segs.setdefault(s['vertex'], []).append(s)
        problems = []
        named_by_waker = {}   # thread waker -> [(wait end, has a name)]
        for vid, ss in segs.items():
            v = byid.get(vid)
            if v is None:
                problems.append('segment of unknown vertex %s' % vid)
                continue
            if v['kind'] != 'thread':
                continue
            ss.sort(key=lambda s: (s['start'], s['start'] + s['duration']))
            for s in ss:
                if s['duration'] < 0:
                    problems.append('vertex %s: negative duration %s' % (vid, s))
                if s['tid'] != v['tid']:
                    problems.append('vertex %s: segment tid %s != vertex tid %s'
                                    % (vid, s['tid'], v['tid']))
                if s['state'] not in ('running', 'runnable', 'waiting'):
                    problems.append('vertex %s: bad state %r' % (vid, s['state']))
                # The waker fields say the same thing three ways, and only
                # waits have them (events are recycled: a field left over
                # from an earlier segment shows here).
                w = byid.get(s['waker'])
                if s['waker'] == -1:
                    if s['state'] == 'waiting' or s['waker_name'] or s['waker_kind']:
                        problems.append('vertex %s: %s segment without a waker has '
                                        'waker_name %r, waker_kind %r'
                                        % (vid, s['state'], s['waker_name'], s['waker_kind']))
                elif (s['state'] != 'waiting' or w is None
                      or (not s['waker_name'] and w['kind'] != 'thread')
                      or s['waker_kind'] != w['kind']):
                    problems.append('vertex %s: %s segment with waker %s (%s): '
                                    'waker_name %r, waker_kind %r'
                                    % (vid, s['state'], s['waker'], w and w['kind'],
                                       s['waker_name'], s['waker_kind']))
                elif w['kind'] == 'thread':
                    named_by_waker.setdefault(s['waker'], []).append(
                        (s['start'] + s['duration'], bool(s['waker_name'])))
            # Segments tile the life but where the state was unknown (a
            # switch-out lost with events, wperf-analysis(7)): the holes
            # add up to the thread's unknown_ns exactly.
            holes = 0
            for a, b in zip(ss, ss[1:]):
                gap = b['start'] - a['start'] - a['duration']
                if gap < 0:
                    problems.append('vertex %s (tid %s %s): %s [%d,+%d] then %s [%d,+%d]: '
                                    'overlap of %d ns'
                                    % (vid, v['tid'], v['name'], a['state'], a['start'],
                                       a['duration'], b['state'], b['start'], b['duration'],
                                       -gap))
                    break
                holes += gap
            t = threads.get(vid)
            if t is None:
                problems.append('vertex %s has segments but no threads[] entry' % vid)
                continue
            # The unknown time may also come first (a thread whose state
            # the trace had not shown yet) or last.
            if ss[0]['start'] < t['first_ns']:
                problems.append('vertex %s (tid %s): first segment starts at %d, before '
                                'first_ns %d' % (vid, v['tid'], ss[0]['start'], t['first_ns']))
            holes += ss[0]['start'] - t['first_ns']
            end = ss[-1]['start'] + ss[-1]['duration']
            holes += t['last_ns'] - end
            if end > t['last_ns'] or holes != t['unknown_ns']:
                problems.append('vertex %s (tid %s): segments leave %d ns unseen in '
                                '[first_ns, last_ns], unknown_ns %d (last segment ends at '
                                '%d, last_ns %d)' % (vid, v['tid'], holes, t['unknown_ns'],
                                                     end, t['last_ns']))
        # A thread waker is nameless only until the trace names it: one
        # first seen waking someone (running when the trace began, its
        # first switch still to come) has no name yet. Once named, every
        # later segment it ends must carry a name.
        for waker, ends in named_by_waker.items():
            ends.sort()
            first_named = next((e for e, named in ends if named), None)
            late = [e for e, named in ends
                    if not named and first_named is not None and e > first_named]
            if late:
                problems.append('thread waker %s: wait ending at %d has no waker_name, '
                                'though waits ending since %d had one'
                                % (waker, late[0], first_named))
        if named_by_waker and not any(named for ends in named_by_waker.values()
                                      for _, named in ends):
            problems.append('no segment names its thread waker')
        for tid_v, t in threads.items():
            life = t['last_ns'] - t['first_ns']
            if life > 0 and tid_v not in segs:
                problems.append('thread vertex %s (tid %s) lives %d ns but has no segment'
                                % (tid_v, t['tid'], life))
        if not out['segments']:
            problems.append('no wperf:segment event at all')
        if problems:
            tc.fail('%s: %d tiling problems:\n  %s' % (label, len(problems),
                                                        '\n  '.join(problems[:25])))


def load_schema():
    if not os.path.exists(SCHEMA):
        return None
    with open(SCHEMA) as f:
        return json.load(f)


def validate_schema(tc, js, label):
    schema = load_schema()
    if schema is None:
        msg = '%s does not exist yet: report not validated' % SCHEMA
        if IN_CI:
            tc.fail(msg)
        print('NOTE: ' + msg, file=sys.stderr)
        return False
    try:
        import jsonschema
    except ImportError:
        tc.fail('python3-jsonschema is not installed (apt-get install -y python3-jsonschema)')
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    errors = sorted(cls(schema).iter_errors(js), key=lambda e: list(e.absolute_path))
    if errors:
        tc.fail('%s: report does not validate against %s:\n  %s' % (
            label, os.path.basename(SCHEMA),
            '\n  '.join('%s: %s' % ('/'.join(str(p) for p in e.absolute_path), e.message[:300])
                        for e in errors[:15])))
    return True


_REPORTS = {}


def report_for(tc, label, path, mode, extra_params=''):
    """The JSON report (cached); extra_params ',merge="none"' for checks
    that compare the report's threads with the filter's segments, one
    vertex per thread."""
    key = label + extra_params
    if key in _REPORTS:
        return _REPORTS[key]
    out = os.path.join(_TMP, label + ('-unmerged' if extra_params else '') + '.json')
    cmd, p = run_sink(path, mode, out, extra_params)
    if p.returncode != 0:
        tc.fail('%s: exit %d\n$ %s\n%s' % (label, p.returncode, ' '.join(cmd),
                                           p.stderr[-4000:]))
    tc.assertTrue(os.path.exists(out), '%s: no report written at %s' % (label, out))
    with open(out) as f:
        js = json.load(f)
    _REPORTS[key] = js
    return js


class RealTraces(unittest.TestCase):
    maxDiff = None

    def test_traces_present(self):
        units = trace_units()
        self.assertTrue(units, 'no traces under %s (set WPERF_SHARED_DIR)' % TRACES)
        self.assertGreaterEqual(len(units), 6, [u[0] for u in units])

    def ref_basic_report(self, extra_params=''):
        """The JSON report of ref-basic-kernel-analysis (cached)."""
        units = [u for u in trace_units() if u[0] == 'ref-basic-kernel-analysis']
        if not units:
            self.fail('ref-basic-kernel-analysis is missing under %s' % TRACES)
        return report_for(self, *units[0], extra_params=extra_params)

    def test_ksoftirqd_waits_for_softirqs(self):
        # ref-basic-kernel-analysis (irq_softirq_raise recorded): the
        # per-CPU softirq daemons are woken for softirqs left pending, not
        # by the threads their interrupts hit (doc/wperf-analysis.7.md).
        js = self.ref_basic_report()
        kinds = {v['id']: v['kind'] for v in js['vertices']}
        daemons = {v['id'] for v in js['vertices'] if v['name'].startswith('ksoftirqd/')}
        out = [(e['to'], e['direct_ns']) for e in js['edges'] if e['from'] in daemons]
        self.assertTrue(daemons and out, 'no ksoftirqd wait in the report')
        self.assertEqual([x for x in out if kinds[x[0]] == 'thread'], [])
        self.assertGreater(sum(ns for to, ns in out if kinds[to] == 'softirq'), 0, out)

    def test_sleeping_sinks_are_not_called_busy(self):
        # ref-basic-kernel-analysis runs `sleep 1` several times under a
        # waiting parent, with no timer events recorded: each `sleep` is a
        # sink whose second ends in an untraced interrupt. Its limit is
        # what the trace does not show, not its own work. (Each `sleep` on
        # its own: run one after another, they are no pool anyway.)
        js = self.ref_basic_report(',merge="none"')
        names = {v['id']: v['name'] for v in js['vertices']}
        sleeps = [k for k in js['knots'] if k['kind'] == 'sink'
                  and names[k['members'][0]] == 'sleep']
        self.assertGreaterEqual(len(sleeps), 3, [(names[k['members'][0]], k.get('limit'))
                                                 for k in js['knots']])
        self.assertEqual({k['limit'] for k in sleeps}, {'unseen'})
        # The compilers it also ran are busy: their limit is work.
        cc1 = [k for k in js['knots'] if k['kind'] == 'sink'
               and names[k['members'][0]] == 'cc1']
        self.assertTrue(cc1)
        self.assertEqual({k['limit'] for k in cc1}, {'work'})

    def test_window_keeps_identities(self):
        # ref-basic-kernel-analysis, second 18:39:24 UTC: babeltrace2's
        # trimmer (--begin/--end) drops the statedump before it, so the
        # disk is "disk:253:0", lttng-sessiond's thread 11924 has no
        # process, and pids=11893 (its process) matches nothing. The
        # sink's begin/end read the whole trace and count the same second.
        units = [u for u in trace_units() if u[0] == 'ref-basic-kernel-analysis']
        self.assertTrue(units, 'ref-basic-kernel-analysis is missing under %s' % TRACES)
        label, path, mode = units[0]
        begin, end = 1521484764, 1521484765
        trimmer = ('--begin=%d' % begin, '--end=%d' % end)
        trimmed, err = ws.run_knots_cli(path, ',merge="none"', trimmer)
        self.assertIsNone(err, err)
        js = self.ref_basic_report(',merge="none",begin=%d,end="%d.0"' % (begin, end))
        Checks.report_invariants(self, js, label + ' begin/end')
        validate_schema(self, js, label + ' begin/end')
        for r in (trimmed, js):
            self.assertEqual((r['time_range']['begin_ns'], r['time_range']['end_ns']),
                             (begin * 10**9, end * 10**9))
        disks = lambda r: sorted(v['name'] for v in r['vertices'] if v['kind'] == 'disk')
        pid_of = lambda r, tid: [v.get('pid') for v in r['vertices'] if v.get('tid') == tid]
        self.assertEqual(disks(trimmed), ['disk:253:0'])
        self.assertIn('disk:vda', disks(js))
        self.assertEqual(pid_of(trimmed, 11924), [-1])
        self.assertEqual(pid_of(js, 11924), [11893])
        # Threads that lived only outside the window keep their vertex
        # (ids are stable) but get no row of zeros in the threads table;
        # the listed ones' lifetimes are inside it.
        listed = {t['id'] for t in js['threads']}
        outside = [v for v in js['vertices']
                   if v['kind'] in ('thread', 'virtual') and v['id'] not in listed]
        self.assertTrue(outside, 'every thread of the trace lived in the window?')
        for t in js['threads']:
            self.assertGreaterEqual(t['first_ns'], begin * 10**9, t)
            self.assertLessEqual(t['last_ns'], end * 10**9, t)
        refused, err = ws.run_knots_cli(path, ',merge="none",pids=11893', trimmer)
        self.assertIsNone(refused)
        self.assertIn('parameter `pids`: no thread of the trace matches', err)
        focused = self.ref_basic_report(',merge="none",begin=%d,end=%d,pids=11893'
                                        % (begin, end))
        self.assertIn(11924, [v.get('tid') for v in focused['vertices']])


    def test_every_text_and_late_focus(self):
        # every= in text: each report follows its "=== wperf: " line and
        # the final one is the report without every=, byte for byte. A
        # focus on threads that only appear later (cc1 here) says so in
        # place of the early reports, and the reading goes on.
        units = [u for u in trace_units() if u[0] == 'ref-basic-kernel-analysis']
        self.assertTrue(units, 'ref-basic-kernel-analysis is missing under %s' % TRACES)
        label, path, mode = units[0]
        base = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), path, '-c', 'sink.wperf.knots']
        plain = subprocess.run(base + ['--params=comms="cc1"'], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, timeout=600)
        every = subprocess.run(base + ['--params=comms="cc1",every="1s"'],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=600)
        self.assertEqual((plain.returncode, every.returncode), (0, 0), every.stderr[-2000:])
        sections = re.split(r'^=== wperf: (.*) ===\n', every.stdout, flags=re.M)
        self.assertEqual(sections[0], '')
        heads, bodies = sections[1::2], sections[2::2]
        self.assertTrue(heads[-1].startswith('whole run, final report, +0.000s to '), heads)
        self.assertTrue(heads[-2].startswith('last period '), heads)
        # The last period ends with the input, short of 1 s: it says so.
        m = re.fullmatch(r'last period \d+, \+(\d+\.\d+)s to \+(\d+\.\d+)s, partial: '
                         r'(\d+\.\d+)s of 1\.000s', heads[-2])
        self.assertIsNotNone(m, heads[-2])
        begin, end, length = (round(float(x) * 1000) for x in m.groups())
        self.assertEqual(end - begin, length)
        self.assertLess(length, 1000)
        self.assertEqual(bodies[-1], plain.stdout)
        self.assertTrue(bodies[0].startswith('(no report: parameter `comms`: no thread'),
                        bodies[0][:300])
        self.assertTrue([b for b in bodies[:-1] if 'Focus' in b], heads)


def _make(label, path, mode):
    def test_report(self):
        js = report_for(self, label, path, mode)
        validate_schema(self, js, label)
        Checks.report_invariants(self, js, label)
        self.assertTrue(any(v['kind'] == 'thread' for v in js['vertices']),
                        '%s: no thread vertex' % label)

    def test_segments(self):
        # Segments are per thread: compare them with unmerged threads.
        js = report_for(self, label, path, mode, ',merge="none"')
        if mode == 'cli':
            out = ws.run_segments_on_trace(path)
        else:
            out = segments_direct(path)
        Checks.tiling(self, js, out, label)

    def test_text(self):
        # The text format too: exit 0 and a non-empty report.
        out = os.path.join(_TMP, label + '.txt')
        plugin_dir = ws.plugin_dir()
        if mode == 'cli':
            cmd = [BABELTRACE2, '--plugin-path=' + plugin_dir, path,
                   '-c', 'sink.wperf.knots', '--params=format="text",path="%s"' % out]
        else:
            cmd = [BABELTRACE2, '--plugin-path=' + plugin_dir, 'run',
                   '--component=src:source.ctf.fs', '--params=inputs=["%s"]' % path,
                   '--component=knots:sink.wperf.knots',
                   '--params=format="text",path="%s"' % out, '--connect=src:knots']
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                           timeout=600)
        self.assertEqual(p.returncode, 0, '%s\n%s' % (' '.join(cmd), p.stderr[-3000:]))
        self.assertGreater(os.path.getsize(out), 0)

    def test_range(self):
        # The analysed range is the first to the last event the analysis
        # reads, never the packets' bounds: these LTTng traces' packets
        # begin or end up to 10 s away from their events (doc/
        # sink.wperf.knots.7.md). It holds every sched_switch and no more
        # than the events.
        js = report_for(self, label, path, mode)
        t = event_times(path)
        tr = js['time_range']
        self.assertLess(t['packets'][0], t['any'][0], '%s: packets begin at the first event'
                        % label)
        self.assertLessEqual(t['any'][0], tr['begin_ns'], label)
        self.assertLessEqual(tr['begin_ns'], t['sched_switch'][0], label)
        self.assertLessEqual(t['sched_switch'][1], tr['end_ns'], label)
        self.assertLessEqual(tr['end_ns'], t['any'][1], label)

    def test_every(self):
        # every= (periodic reports for live sessions) on a trace on disk:
        # one JSON line per report, the periods tile the run, and the
        # final report is the one without every= (the run's analysis is
        # reported on a copy, undisturbed). Each thread's running,
        # runnable and waiting time over the periods sums to the whole
        # run's, exactly (doc/sink.wperf.knots.7.md).
        whole = report_for(self, label, path, mode, ',merge="none"')
        out = os.path.join(_TMP, label + '-every.jsonl')
        period = 10**9
        cmd, p = run_sink(path, mode, out, ',merge="none",every="1s"')
        self.assertEqual(p.returncode, 0, '%s\n%s' % (' '.join(cmd), p.stderr[-3000:]))
        with open(out) as f:
            lines = [json.loads(l) for l in f]
        final = lines[-1]
        self.assertEqual((final['every']['report'], final['every']['final']), ('run', True))
        self.assertEqual(final['report'], whole, label)
        periods = [l for l in lines if l['every']['report'] == 'period']
        runs = [l for l in lines if l['every']['report'] == 'run']
        self.assertEqual(len(runs), len(periods), label)
        self.assertEqual([l['every']['index'] for l in periods],
                         list(range(1, len(periods) + 1)))
        first = periods[0]['every']['begin_ns']
        for k, l in enumerate(periods[:-1]):
            self.assertEqual((l['every']['begin_ns'], l['every']['end_ns']),
                             (first + k * period, first + (k + 1) * period), label)
            self.assertEqual(runs[k]['every']['end_ns'], l['every']['end_ns'], label)
            self.assertIs(l['every']['partial'], False, label)
        # The last period ends with the input: partial when shorter.
        last = periods[-1]['every']
        self.assertIs(last['partial'], last['end_ns'] - last['begin_ns'] < period, label)
        span = whole['time_range']['end_ns'] - whole['time_range']['begin_ns']
        self.assertEqual(len(periods), span // period + 1, label)
        by_tid = {}
        for l in periods:
            for t in l['report']['threads'] if 'report' in l else []:
                acc = by_tid.setdefault(t['tid'], [0, 0, 0])
                acc[0] += t['running_ns']
                acc[1] += t['runnable_ns']
                acc[2] += sum(t['waiting_ns'].values())
        for t in whole['threads']:
            if sum(1 for x in whole['threads'] if x['tid'] == t['tid']) > 1:
                continue   # a reused tid: two threads, one key
            self.assertEqual(by_tid.get(t['tid'], [0, 0, 0]),
                             [t['running_ns'], t['runnable_ns'], sum(t['waiting_ns'].values())],
                             '%s: thread %s' % (label, t['tid']))

    return test_report, test_segments, test_text, test_range, test_every


def event_times(path):
    """(first, last) time of the trace's events ('any'), of its
    sched_switch events, and of its packets' bounds, in ns. The streams
    are read one by one (no muxer: tc-synctraces' packets overlap)."""
    import bt2
    out = {}

    def see(key, ns):
        lo, hi = out.get(key, (ns, ns))
        out[key] = (min(lo, ns), max(hi, ns))

    class Sink(ws.EachMessage, bt2._UserSinkComponent):
        def take(self, msg):
            if type(msg) is bt2._EventMessageConst:
                ns = msg.default_clock_snapshot.ns_from_origin
                see('any', ns)
                if msg.event.name.endswith('sched_switch'):
                    see('sched_switch', ns)
            elif type(msg) in (bt2._PacketBeginningMessageConst, bt2._PacketEndMessageConst):
                see('packets', msg.default_clock_snapshot.ns_from_origin)

    g = bt2.Graph()
    src = g.add_component(bt2.find_plugin('ctf').source_component_classes['fs'], 'src',
                          params={'inputs': [path]})
    for i, port in enumerate(src.output_ports.values()):
        sink = g.add_component(Sink, 'sink%d' % i)
        g.connect_ports(port, sink.input_ports['in'])
    g.run()
    return out


for _label, _path, _mode in trace_units():
    _r, _s, _t, _g, _e = _make(_label, _path, _mode)
    _id = _label.replace('-', '_').replace('.', '_')
    setattr(RealTraces, 'test_report_' + _id, _r)
    setattr(RealTraces, 'test_segments_' + _id, _s)
    setattr(RealTraces, 'test_text_' + _id, _t)
    setattr(RealTraces, 'test_range_' + _id, _g)
    setattr(RealTraces, 'test_every_' + _id, _e)


if __name__ == '__main__':
    unittest.main(verbosity=2)
