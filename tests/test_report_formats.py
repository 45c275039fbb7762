#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The picture and graph formats of sink.wperf.knots, read back by
independent readers, on real babeltrace2 graphs.

Inputs: two hand-built scenarios (tests/wperf_scenario.py) — "mixed" (a
thread and a disk waiting on each other, plus the 4-vertex refinement of
test_scenarios_waits.py at threshold 550 ms: knot {C, D}, B->C and D->A cut) and
"pool" (two threads of one pool waiting on each other, merged by name into
one vertex with a self-loop) — and real LTTng kernel traces from
$WPERF_SHARED_DIR/traces/lttng-kernel/ (read in place, never copied).

For each, the JSON report of the same input is the reference:
  - format=dot: Graphviz parses it (`dot -Tsvg` exits 0) and its own
    reading (`dot -Tjson0`) has one cluster per knot holding exactly the
    knot's members, every dependency edge with style solid when it weighs
    at least the threshold and dashed otherwise, self-loops, and devices in
    a shape other than the threads' ellipse;
  - format=svg: an SVG document with the knots' vertices; in it, as in
    the HTML page's pictures, no edge label (its lines' boxes, from
    Helvetica's metrics) covers another edge's label, a vertex or another
    text (report-svg-labels.c);
  - format=graphml: well-formed for xmllint, and networkx reads the same
    vertices (kind, tid, pid, comm), edges (weight, direct, count) and knot
    membership (vertex and edge knot ids, edges cut by refinement);
  - format=html: a real headless Chromium loads it without a script error,
    the DOM shows the first knot with its members and the picture, and the
    page's own self-test (#wperf-selftest) clicks every column heading and
    finds every table sorted both ways, and opens every <details> (each
    edge's wait-length histogram and call stacks, the other findings'
    timelines); the first finding's timeline has one row per member whose
    spans tile the analysed range exactly, and in the "mixed" scenario
    each span is the one the method defines (wperf-method(7) §3); at a
    phone's width (390 px, emulated as a phone over the DevTools protocol)
    and a desktop's (1280 px) nothing scrolls sideways, and a screenshot of
    each is saved under $WPERF_SCREENSHOT_DIR (default
    report-formats-screenshots/ in the working directory; the paths are
    printed); it references nothing on the network;
  - without Graphviz on PATH: format=svg fails in one line that says how
    to install it and writes nothing; format=html still writes the page and
    says why it has no picture.

Chromium runs without the sanitizer preload (LD_PRELOAD) of the
ASan+UBSan pass: it is not our code and does not start under it.

Prerequisites (Debian): graphviz, chromium, python3-networkx,
libxml2-utils. Missing: SKIP (77), FAIL when CI=true.

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_report_formats.py
     [--shared-dir-default DIR] [unittest args]
"""

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bt2  # noqa: E402

import wperf_scenario as ws  # noqa: E402
from wperf_scenario import MS, S, Scenario, dev_t  # noqa: E402


SHARED = ws.shared_dir()   # also takes meson's --shared-dir-default off argv
TRACES = os.path.join(SHARED, 'traces', 'lttng-kernel')
# Real traces with something in every kind of finding between them: sinks
# (ref-basic-kernel-analysis) and a background knot (bt-lttng-tracefile-rotation).
REAL_TRACES = ('ref-basic-kernel-analysis', 'bt-lttng-tracefile-rotation')
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
BABELTRACE2 = shutil.which(os.environ.get('BABELTRACE2', 'babeltrace2'))
SANITIZER_VARS = ('LD_PRELOAD', 'ASAN_OPTIONS', 'UBSAN_OPTIONS')

U = 100 * MS
SCREENSHOTS = os.path.abspath(os.environ.get('WPERF_SCREENSHOT_DIR',
                                             'report-formats-screenshots'))
WIDTHS = (('phone', 390, 844, True), ('desktop', 1280, 900, False))
NS_SVG = '{http://www.w3.org/2000/svg}'
PICTURE_FINDINGS = 6          # findings drawn as clusters (report-dot.c)
STROKE_RANKS = ('first', 'finding', 'into', 'rest')     # heaviest first


def stroke_widths(root):
    """{(from, to): (rank, stroke width)} of a picture's edges: the rank
    is the edge's class after "edge", the width its path's."""
    out = {}
    for g in root.iter(NS_SVG + 'g'):
        cls = g.get('class', '').split()
        t = g.find(NS_SVG + 'title')
        if cls[:1] != ['edge'] or t is None:
            continue
        a, b = (int(x) for x in re.fullmatch(r'v(\d+)->v(\d+)', t.text).groups())
        path = g.find('.//' + NS_SVG + 'path')
        out[(a, b)] = (cls[1] if len(cls) > 1 else '', float(path.get('stroke-width', '1')))
    return out


# Helvetica's advance widths (1/1000 em), ' ' to '~': the picture's font
# (Arial and Liberation Sans have the same). Other characters: 667.
HELVETICA = (278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
             556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
             1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
             667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
             333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
             556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584)


def text_box(t):
    """(x0, y0, x1, y1) of an SVG <text>: its width from Helvetica's
    metrics at its font size, by its anchor; its ascent and descent
    around the baseline."""
    size = float(t.get('font-size', '14'))
    w = size * sum(HELVETICA[ord(c) - 32] if ' ' <= c <= '~' else 667
                   for c in (t.text or '')) / 1000
    x, y = float(t.get('x')), float(t.get('y'))
    x0 = {'middle': x - w / 2, 'end': x - w}.get(t.get('text-anchor'), x)
    return (x0, y - 0.8 * size, x0 + w, y + 0.25 * size)


def shape_box(g):
    """The box of a vertex's drawing: its ellipses, polygons and paths."""
    xs, ys = [], []
    for e in g.iter(NS_SVG + 'ellipse'):
        cx, cy, rx, ry = (float(e.get(k)) for k in ('cx', 'cy', 'rx', 'ry'))
        xs += [cx - rx, cx + rx]
        ys += [cy - ry, cy + ry]
    for tag, attr in (('polygon', 'points'), ('polyline', 'points'), ('path', 'd')):
        for p in g.iter(NS_SVG + tag):
            nums = [float(v) for v in re.findall(r'-?\d+(?:\.\d+)?', p.get(attr))]
            xs += nums[0::2]
            ys += nums[1::2]
    return (min(xs), min(ys), max(xs), max(ys)) if xs else None


def label_collisions(root):
    """Every edge label (the union of its lines' boxes) that overlaps
    another edge's label, a vertex (its drawing's box) or another text of
    the picture (a cluster's title, the caption): [(label, what)]."""
    labels, others, edge_texts = [], [], set()
    for g in root.iter(NS_SVG + 'g'):
        cls, t = g.get('class', '').split()[:1], g.find(NS_SVG + 'title')
        texts = list(g.iter(NS_SVG + 'text'))
        if cls == ['edge'] and t is not None:
            edge_texts |= {id(x) for x in texts}
            if texts:
                boxes = [text_box(x) for x in texts]
                labels.append((t.text, (min(b[0] for b in boxes), min(b[1] for b in boxes),
                                        max(b[2] for b in boxes), max(b[3] for b in boxes))))
        elif cls == ['node'] and t is not None:
            edge_texts |= {id(x) for x in texts}
            box = shape_box(g)
            if box:
                others.append((t.text, box))
    others += [('text %r' % x.text, text_box(x)) for x in root.iter(NS_SVG + 'text')
               if id(x) not in edge_texts]

    def overlap(a, b):
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]
    out = []
    for i, (name, box) in enumerate(labels):
        out += [(name, other) for other, b in labels[i + 1:] if overlap(box, b)]
        out += [(name, other) for other, b in others if overlap(box, b)]
    return out


def need(test, program, package):
    """The path of program, or skip (fail in CI) naming the package."""
    path = shutil.which(program)
    if not path:
        msg = '%s not found: apt-get install %s' % (program, package)
        if IN_CI:
            test.fail(msg)
        test.skipTest(msg)
    return path


def need_networkx(test):
    try:
        import networkx
    except ImportError:
        msg = 'python3 networkx missing: apt-get install python3-networkx'
        if IN_CI:
            test.fail(msg)
        test.skipTest(msg)
    return networkx


class Browser:
    """Headless Chromium driven over the DevTools protocol
    (--remote-debugging-pipe: JSON messages ending in NUL on fds 3 and 4),
    for what --dump-dom cannot do: a window narrower than Chromium's
    500 px minimum, emulated as a phone (mobile viewport), script run in
    the page, and a screenshot of the whole page."""

    def __init__(self, exe, profile, env):
        to_child, from_child = os.pipe(), os.pipe()
        # Above the fds the child gets, so that dup2 cannot clobber them.
        hi = [fcntl.fcntl(to_child[0], fcntl.F_DUPFD, 10),
              fcntl.fcntl(from_child[1], fcntl.F_DUPFD, 10)]

        def child_fds():
            os.dup2(hi[0], 3)
            os.dup2(hi[1], 4)
        self.p = subprocess.Popen(
            [exe, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
             '--user-data-dir=' + profile, '--host-resolver-rules=MAP * ~NOTFOUND',
             '--remote-debugging-pipe', 'about:blank'],
            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            preexec_fn=child_fds, close_fds=False)
        for fd in hi + [to_child[0], from_child[1]]:
            os.close(fd)
        self.wfd, self.rfd = to_child[1], from_child[0]
        self.buf, self.events, self.next_id, self.errors = b'', [], 0, []

    def close(self):
        try:
            self.send('Browser.close', {})
        except OSError:
            pass
        os.close(self.wfd)
        os.close(self.rfd)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()

    def send(self, method, params, session=None):
        self.next_id += 1
        msg = {'id': self.next_id, 'method': method, 'params': params}
        if session:
            msg['sessionId'] = session
        os.write(self.wfd, json.dumps(msg).encode() + b'\0')
        return self.next_id

    def read(self, timeout=120):
        while b'\0' not in self.buf:
            ready, _, _ = select.select([self.rfd], [], [], timeout)
            chunk = os.read(self.rfd, 1 << 20) if ready else b''
            if not chunk:
                raise AssertionError('Chromium stopped answering the DevTools protocol')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        msg = json.loads(msg)
        if msg.get('method') in ('Runtime.exceptionThrown', 'Log.entryAdded') or (
                msg.get('method') == 'Runtime.consoleAPICalled'
                and msg['params'].get('type') == 'error'):
            self.errors.append(msg['params'])
        return msg

    def call(self, method, params, session=None):
        want = self.send(method, params, session)
        while True:
            msg = self.read()
            if msg.get('id') == want:
                if 'error' in msg:
                    raise AssertionError('%s: %s' % (method, msg['error']))
                return msg['result']
            self.events.append(msg)

    def wait_event(self, method, session):
        for i, msg in enumerate(self.events):
            if msg.get('method') == method and msg.get('sessionId') == session:
                del self.events[i]
                return msg
        while True:
            msg = self.read()
            if msg.get('method') == method and msg.get('sessionId') == session:
                return msg
            self.events.append(msg)

    def open(self, url, width, height, mobile):
        """A new tab of width x height CSS px showing url, loaded."""
        target = self.call('Target.createTarget', {'url': 'about:blank'})['targetId']
        sid = self.call('Target.attachToTarget', {'targetId': target, 'flatten': True})[
            'sessionId']
        self.call('Emulation.setDeviceMetricsOverride',
                  {'width': width, 'height': height, 'deviceScaleFactor': 1,
                   'mobile': mobile}, sid)
        for domain in ('Page', 'Runtime', 'Log'):
            self.call(domain + '.enable', {}, sid)
        self.call('Page.navigate', {'url': url}, sid)
        self.wait_event('Page.loadEventFired', sid)
        return sid

    def eval(self, sid, expression):
        r = self.call('Runtime.evaluate', {'expression': expression, 'returnByValue': True},
                      sid)
        if 'exceptionDetails' in r:
            raise AssertionError('%s: %s' % (expression, r['exceptionDetails']))
        return r['result'].get('value')

    def screenshot(self, sid, path, max_height=4000):
        """The page from its top, as tall as it is (at most max_height)."""
        size = self.call('Page.getLayoutMetrics', {}, sid)['cssContentSize']
        clip = {'x': 0, 'y': 0, 'width': size['width'],
                'height': min(size['height'], max_height), 'scale': 1}
        data = self.call('Page.captureScreenshot', {'format': 'png', 'clip': clip,
                                                    'captureBeyondViewport': True}, sid)
        with open(path, 'wb') as f:
            f.write(base64.b64decode(data['data']))


# ---------------------------------------------------------------------------
# Inputs.

REFINE_WAITS = [          # (waiter, waker, t1, t2) in U, as in test_scenarios_waits.py
    ('A', 'B', 1, 10),    # A -> B 900 ms
    ('B', 'A', 11, 19),   # B -> A 800 ms
    ('B', 'C', 20, 21),   # B -> C 100 ms
    ('C', 'D', 22, 28),   # C -> D 600 ms
    ('D', 'C', 29, 34),   # D -> C 500 ms
    ('D', 'A', 35, 37),   # D -> A 200 ms
    ('A', 'C', 38, 41),   # A -> C 300 ms
]


def mixed():
    """A, B, C, D (cpus 0-3) wait as in REFINE_WAITS; W (cpu 4) writes to
    disk 8:0 at 1 s and sleeps until the completion interrupt on cpu 5
    (where X runs) wakes it at 1.5 s. Trace [0, 4.2 s]."""
    s = Scenario(ncpus=6, end=42 * U)
    tids = {'A': 101, 'B': 102, 'C': 103, 'D': 104}
    for cpu, (name, tid) in enumerate(tids.items()):
        s.thread(tid, name)
        s.run(0, cpu, tid)
    W, X = s.thread(401, 'W'), s.thread(402, 'X')
    s.run(0, 4, W)
    s.run(0, 5, X)
    events = [(t1, 'sleep', w, k) for w, k, t1, _ in REFINE_WAITS]
    events += [(t2, 'wake', w, k) for w, k, _, t2 in REFINE_WAITS]
    for t, what, waiter, waker in sorted(events):
        cpu_waiter, cpu_waker = list(tids).index(waiter), list(tids).index(waker)
        if what == 'sleep':
            s.sleep(t * U, cpu_waiter, tids[waiter])
        else:
            s.wake(t * U, cpu_waker, tids[waiter])
            s.run(t * U, cpu_waiter, tids[waiter])
    disk = dev_t(8, 0)
    s.disk_wait(1 * S, 4, W, disk, done=1500 * MS, irq_cpu=5)
    return s


def pool():
    """pool-1 (cpu 0) and pool-2 (cpu 1) both run from 0; pool-1 waits for
    pool-2 over [1, 3]U and [7, 9]U, pool-2 for pool-1 over [4, 6]U. They
    run 14U of 10U together: more than one CPU, so not background."""
    s = Scenario(ncpus=2, end=10 * U)
    P1, P2 = s.thread(601, 'pool-1', pid=600), s.thread(602, 'pool-2', pid=600)
    s.run(0, 0, P1)
    s.run(0, 1, P2)
    for waiter, waker, t1, t2 in ((P1, P2, 1, 3), (P2, P1, 4, 6), (P1, P2, 7, 9)):
        s.sleep(t1 * U, 0 if waiter == P1 else 1, waiter)
        s.wake(t2 * U, 0 if waker == P1 else 1, waiter)
        s.run(t2 * U, 0 if waiter == P1 else 1, waiter)
    return s


def scenario_report(scn, fmt, path, **params):
    """Run scenario -> sink.wperf.knots format=fmt,path=path."""
    p = {'format': fmt, 'path': path}
    p.update(params)
    g = bt2.Graph()
    src = g.add_component(ws.ScenarioSource, 'scenario', obj=scn)
    sink = g.add_component(ws.wperf_plugin().sink_component_classes['knots'], 'knots',
                           params=p)
    g.connect_ports(src.output_ports['out'], sink.input_ports['in'])
    g.run()


def real_trace_dir(name):
    """The CTF directory (holding `metadata`) of a shared trace: its only
    one, and free of files source.ctf.fs would misread."""
    top = os.path.join(TRACES, name)
    dirs = sorted(d for d, _, files in os.walk(top) if 'metadata' in files)
    if len(dirs) != 1:
        raise AssertionError('%s: expected one CTF trace (a `metadata` file), found %d; '
                             'set WPERF_SHARED_DIR to the shared material' % (top, len(dirs)))
    return dirs[0]


def cli(trace, params, env=None):
    """babeltrace2 TRACE -c sink.wperf.knots --params=PARAMS."""
    if not BABELTRACE2:
        raise AssertionError('babeltrace2 not found: apt-get install babeltrace2')
    cmd = [BABELTRACE2, '--plugin-path=' + ws.plugin_dir(), trace, '-c', 'sink.wperf.knots',
           '--params=' + params]
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    return cmd, p


def bt_params(**kw):
    return ','.join('%s="%s"' % (k, v) for k, v in kw.items())


# ---------------------------------------------------------------------------
# What the JSON report says, in the terms of the other formats.

def vertex_label(v):
    if v['kind'] == 'thread':
        return '%s (%d)' % (v['comm'] if v['comm'] is not None else v['name'], v['tid'])
    return v['name']


def knot_title(knots, i):
    """'Knot 2', 'Sink 1', 'Background knot 3', numbered as the writers do."""
    sink = knots[i]['kind'] == 'sink'
    n = sum(1 for k in knots[:i + 1] if (k['kind'] == 'sink') == sink)
    return '%s %d' % ({'sink': 'Sink', 'background': 'Background knot'}.get(
        knots[i]['kind'], 'Knot'), n)


def vertex_knots(js):
    out = {}
    for i, k in enumerate(js['knots']):
        for m in k['members']:
            out.setdefault(m, i)
    return out


def edge_knots(js):
    inside, cut = {}, {}
    for i, k in enumerate(js['knots']):
        for e in k['edges']:
            inside.setdefault((e['from'], e['to']), i)
        for rank, e in enumerate(k['removed'], 1):
            cut.setdefault((e['from'], e['to']), (i, rank))
    return inside, cut


def is_dependency(js, e):
    """The one rule (wperf_edge_is_dependency): weight above zero and at
    least the noise floor, not to timer or unknown, not a kernel service
    thread's wait for work."""
    to_kind = js['vertices'][e['to']]['kind']
    return (e['weight_ns'] > 0 and e['weight_ns'] >= js['min_weight']['ns']
            and to_kind not in ('timer', 'unknown')
            and not ws.waits_only_for_work(js['vertices'][e['from']]))


# ---------------------------------------------------------------------------
# The checks, shared by scenarios and real traces.

class Checks(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='wperf-formats-')

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def out(self, name):
        return os.path.join(self.tmp, name)

    def assertOnly(self, names):
        """The atomic writer left no temporary file beside the outputs."""
        self.assertEqual(sorted(os.listdir(self.tmp)), sorted(names))

    # -- DOT ----------------------------------------------------------------
    def check_dot(self, js, dot_path):
        dot = need(self, 'dot', 'graphviz')
        for fmt in ('-Tsvg', '-Tjson0'):
            p = subprocess.run([dot, fmt, dot_path], capture_output=True, text=True,
                               timeout=300)
            self.assertEqual(p.returncode, 0, 'dot %s %s: %s' % (fmt, dot_path, p.stderr))
            self.assertEqual(p.stderr, '', 'dot warns about %s' % dot_path)
        parsed = json.loads(p.stdout)
        objects = parsed.get('objects', [])
        gvid = {o['_gvid']: o for o in objects}
        nodes = {o['name']: o for o in objects if 'nodes' not in o}
        clusters = {o['name']: o for o in objects if o['name'].startswith('cluster_')}

        # One cluster per knot, sink and background knot, with its members
        # and its title.
        self.assertEqual(len(clusters), len(js['knots']), sorted(clusters))
        for i, k in enumerate(js['knots']):
            c = clusters.get('cluster_%d' % i)
            self.assertIsNotNone(c, 'no cluster for knot %d' % i)
            members = sorted(int(gvid[n]['name'][1:]) for n in c.get('nodes', []))
            self.assertEqual(members, k['members'], 'cluster_%d' % i)
            self.assertTrue(c['label'].startswith(knot_title(js['knots'], i) + ': '), c['label'])

        # Shapes: threads are ellipses (merged ones double circles), devices not.
        for name, n in nodes.items():
            v = js['vertices'][int(name[1:])]
            want = {'thread': 'ellipse', 'virtual': 'doublecircle', 'disk': 'cylinder',
                    'nic': 'box3d', 'irq': 'hexagon', 'softirq': 'hexagon'}[v['kind']]
            self.assertEqual(n['shape'], want, 'vertex %s (%s)' % (name, v['kind']))
            self.assertEqual(n['label'].replace('\\\\', '\\'), vertex_label(v))

        # Edges: the dependencies between drawn vertices, solid at or above
        # the threshold, dashed below, wider when heavier.
        drawn = {int(n[1:]) for n in nodes}
        edges = {}
        for e in parsed.get('edges', []):
            key = (int(gvid[e['tail']]['name'][1:]), int(gvid[e['head']]['name'][1:]))
            self.assertNotIn(key, edges, 'edge drawn twice')
            edges[key] = e
        want = {(e['from'], e['to']): e for e in js['edges']
                if is_dependency(js, e) and e['from'] in drawn and e['to'] in drawn}
        self.assertEqual(sorted(edges), sorted(want))
        thr = js['threshold']['ns']
        for key, e in edges.items():
            w = want[key]['weight_ns']
            self.assertEqual(e['style'], 'solid' if w >= thr else 'dashed', key)
        by_weight = sorted(edges, key=lambda k: want[k]['weight_ns'])
        widths = [float(edges[k]['penwidth']) for k in by_weight]
        self.assertEqual(widths, sorted(widths), 'penwidth grows with weight')
        if widths:
            self.assertEqual(widths[-1], 5.0)
        # Every member of a knot is drawn.
        for k in js['knots']:
            self.assertLessEqual(set(k['members']), drawn)
        return parsed, edges

    # -- GraphML ------------------------------------------------------------
    def check_graphml(self, js, path):
        xmllint = need(self, 'xmllint', 'libxml2-utils')
        p = subprocess.run([xmllint, '--noout', '--nonet', path], capture_output=True,
                           text=True, timeout=120)
        self.assertEqual(p.returncode, 0, p.stderr)
        nx = need_networkx(self)
        g = nx.read_graphml(path)
        self.assertTrue(g.is_directed())
        for key in ('begin_ns', 'end_ns', 'duration_ns'):
            self.assertEqual(g.graph[key], js['time_range'][key])
        self.assertEqual(g.graph['threshold_ns'], js['threshold']['ns'])
        self.assertEqual(g.graph['min_weight_ns'], js['min_weight']['ns'])

        vknot = vertex_knots(js)
        self.assertEqual(sorted(g.nodes), sorted('v%d' % v['id'] for v in js['vertices']))
        for v in js['vertices']:
            a = g.nodes['v%d' % v['id']]
            self.assertEqual(a['kind'], v['kind'])
            self.assertEqual(a['name'], v['name'])
            self.assertEqual(a['label'], vertex_label(v))
            if v['kind'] == 'thread':
                self.assertEqual((a['tid'], a['pid']), (v['tid'], v['pid']))
                self.assertEqual(a.get('comm'), v['comm'])
            else:
                self.assertNotIn('tid', a)
            i = vknot.get(v['id'], -1)
            self.assertEqual(a['knot'], i, 'vertex %d' % v['id'])
            if i >= 0:
                self.assertEqual(a['knot_kind'], js['knots'][i]['kind'])
            self.assertEqual(a['focus'], bool(js['focus'] and v['id'] in js['focus']))

        inside, cut = edge_knots(js)
        self.assertEqual(g.number_of_edges(), len(js['edges']))
        for e in js['edges']:
            key = ('v%d' % e['from'], 'v%d' % e['to'])
            self.assertTrue(g.has_edge(*key), key)
            a = g.edges[key]
            self.assertEqual((a['weight'], a['direct_ns'], a['count']),
                             (e['weight_ns'], e['direct_ns'], e['count']), key)
            self.assertEqual(a['knot'], inside.get((e['from'], e['to']), -1), key)
            by, rank = cut.get((e['from'], e['to']), (-1, 0))
            self.assertEqual((a['cut_by'], a['cut_rank']), (by, rank), key)
            self.assertEqual(a['dependency'], is_dependency(js, e), key)
            self.assertEqual(a['cascaded_ns'], e['cascaded_ns'], key)
            self.assertEqual(a['own_share'], e['own_share'], key)
            self.assertNotIn('share', a, key)
        return g

    # -- SVG ----------------------------------------------------------------
    def check_svg(self, js, path):
        root = ET.parse(path).getroot()
        self.assertEqual(root.tag, NS_SVG + 'svg')
        titles = {t.text for t in root.iter(NS_SVG + 'title')}
        # The first PICTURE_FINDINGS findings are drawn; the rest folded
        # into one box that counts them.
        for k in js['knots'][:PICTURE_FINDINGS]:
            for m in k['members']:
                self.assertIn('v%d' % m, titles)
        folded = len(js['knots']) - PICTURE_FINDINGS
        text = ' '.join(t.text or '' for t in root.iter(NS_SVG + 'text'))
        if folded > 0:
            self.assertIn('more_findings', titles)
            self.assertIn('+ %d more finding%s, not drawn' % (folded, 's' if folded > 1 else ''),
                          text)
        else:
            self.assertNotIn('more_findings', titles)
        self.check_svg_summary(js, root)
        self.check_strokes(js, root)
        self.assertEqual(label_collisions(root), [], '%s: edge labels overlap' % path)

    # Both sides of the picture at most 1,440 pt (1,920 CSS px):
    # a full-HD screen (1,920 x 1,080 px) shows its whole width at 100 %
    # zoom, and the whole picture at 56 % zoom or more, where its 11-pt
    # vertex labels are still 8 px high. (Before the findings were drawn
    # alone, bt-lttng-tracefile-rotation's picture was 1,932 x 2,717 pt.)
    SCREEN_PT = 1440

    def check_svg_summary(self, js, root, first=False):
        """The picture: legible on a screen, and its note on what it
        leaves out adds up to the graph exactly (report-dot.c)."""
        size = [float(root.get(a)[:-2]) for a in ('width', 'height')]
        self.assertTrue(all(root.get(a).endswith('pt') for a in ('width', 'height')))
        self.assertLessEqual(max(size), self.SCREEN_PT, 'picture of %s x %s pt' % tuple(size))
        groups = {}
        for g in root.iter(NS_SVG + 'g'):
            t = g.find(NS_SVG + 'title')
            if g.get('class', '').split()[:1] in (['node'], ['edge']) and t is not None:
                groups[t.text] = g
        nodes = {int(t[1:]) for t in groups if re.fullmatch(r'v\d+', t)}
        edges = {tuple(int(x) for x in re.fullmatch(r'v(\d+)->v(\d+)', t).groups())
                 for t in groups if '->' in t}
        if len(nodes) == len(js['vertices']) and len(edges) == len(js['edges']):
            self.assertNotIn('left_out', groups)      # nothing left out, no note
            return
        note = groups['left_out'].find('.//' + NS_SVG + 'a')
        tip = note.get('{http://www.w3.org/1999/xlink}title')
        m = re.fullmatch(r'vertices: drawn=(\d+) folded=(\d+) threads=(\d+) others=(\d+); '
                         r'edges: drawn=(\d+) left_out=(\d+) dependencies=(\d+); '
                         r'direct_ns: drawn=(\d+) left_out=(\d+)', tip)
        self.assertIsNotNone(m, tip)
        (v_drawn, folded, threads, others, e_drawn, e_left, deps, ns_drawn,
         ns_left) = (int(x) for x in m.groups())
        shown = 1 if first else PICTURE_FINDINGS
        members = {}
        for i, k in enumerate(js['knots']):
            for v in k['members']:
                members.setdefault(v, i)
        left = [v for v in js['vertices'] if v['id'] not in nodes and v['id'] not in members]
        self.assertEqual(v_drawn, len(nodes))
        self.assertEqual(folded, sum(1 for v, i in members.items() if i >= shown))
        self.assertEqual(v_drawn + folded + threads + others, len(js['vertices']))
        self.assertEqual(threads, sum(v['kind'] in ('thread', 'virtual') for v in left))
        self.assertEqual(e_drawn, len(edges))
        self.assertEqual(e_drawn + e_left, len(js['edges']))
        by_pair = {(e['from'], e['to']): e for e in js['edges']}
        self.assertTrue(edges <= set(by_pair), edges - set(by_pair))
        self.assertEqual(deps, sum(is_dependency(js, e) for k, e in by_pair.items()
                                   if k not in edges))
        self.assertEqual(ns_drawn, sum(by_pair[k]['direct_ns'] for k in edges))
        self.assertEqual(ns_drawn + ns_left, sum(e['direct_ns'] for e in js['edges']))
        # Every drawn edge touches a finding drawn as a cluster or is inside one.
        for a, b in edges:
            self.assertTrue(members.get(a, shown) < shown or members.get(b, shown) < shown,
                            (a, b))
        label = ' '.join(t.text or '' for t in groups['left_out'].iter(NS_SVG + 'text'))
        self.assertIn('+ %d thread%s not in any finding' % (threads, '' if threads == 1 else 's'),
                      label)
        if not first:
            self.assertIn('format=dot or graphml', label)

    def check_strokes(self, js, root):
        """The stroke order (report-dot.c): the first finding's own edges
        (a knot's internal edges, the waits into a sink) heavier than any
        other, then the other findings', then the waits into a finding,
        then the rest; every drawn internal edge of the first finding is
        in the first rank."""
        widths = stroke_widths(root)
        by_rank = {}
        for (a, b), (rank, w) in widths.items():
            self.assertIn(rank, STROKE_RANKS, (a, b))
            by_rank.setdefault(rank, []).append(w)
        ranks = [r for r in STROKE_RANKS if r in by_rank]
        for heavy, light in zip(ranks, ranks[1:]):
            self.assertGreater(min(by_rank[heavy]), max(w for r in ranks[ranks.index(light):]
                                                        for w in by_rank[r]),
                               '%s edges not heavier than %s: %s' % (heavy, light, by_rank))
        if js['knots']:
            k = js['knots'][0]
            for e in k['edges']:
                if (e['from'], e['to']) in widths:
                    self.assertEqual(widths[(e['from'], e['to'])][0], 'first', e)
            if k['kind'] == 'sink':
                for (a, b), (rank, w) in widths.items():
                    if b in k['members'] and a not in k['members'] and \
                            (a, b) not in {(c['from'], c['to']) for c in k['removed']}:
                        self.assertEqual(rank, 'first', (a, b))
        return by_rank

    # -- HTML in Chromium -----------------------------------------------------
    def chromium(self, html_path):
        """(DOM after the page's self-test ran, Chromium's log)."""
        exe = need(self, 'chromium', 'chromium')
        profile = os.path.join(self.tmp, 'chromium-profile')
        env = {k: v for k, v in os.environ.items() if k not in SANITIZER_VARS}
        env['HOME'] = profile
        cmd = [exe, '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
               '--user-data-dir=' + profile, '--enable-logging=stderr', '--v=0',
               # Nothing may come from the network: make every host unresolvable.
               '--host-resolver-rules=MAP * ~NOTFOUND',
               '--dump-dom', 'file://' + os.path.abspath(html_path) + '#wperf-selftest']
        p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=180)
        self.assertEqual(p.returncode, 0, 'chromium failed:\n%s' % p.stderr[-3000:])
        shutil.rmtree(profile, ignore_errors=True)
        return p.stdout, p.stderr

    def check_first_picture(self, js, page, picture=True):
        """The HTML page opens on the first finding's picture, before any
        text but its title: only the first finding's cluster, counts and
        stroke order as in the whole picture. The match, or None."""
        self.assertIsNone(re.search(r'''(src|href)\s*=\s*["']?(https?:)?//''', page),
                          'the page loads something from the network')
        first = re.search(r'<figure class="first" id="first-picture">.*?(<svg.*?</svg>)\s*'
                          r'</figure>', page, re.S)
        self.assertEqual(first is not None, picture and bool(js['knots']))
        if first:
            self.assertLess(page.index('id="first-picture"'), page.index('class="meta"'))
            root = ET.fromstring(first.group(1))
            titles = {t.text for t in root.iter(NS_SVG + 'title')}
            for m in js['knots'][0]['members']:
                self.assertIn('v%d' % m, titles)
            self.assertNotIn('cluster_1', titles)
            self.check_svg_summary(js, root, first=True)
            self.check_strokes(js, root)
            self.assertEqual(label_collisions(root), [], 'first picture: edge labels overlap')
        return first

    def check_html(self, js, path, picture=True):
        with open(path, encoding='utf-8') as f:
            page = f.read()
        self.assertIsNone(re.search(r'''(src|href)\s*=\s*["']?(https?:)?//''', page),
                          'the page loads something from the network')
        dom, log = self.chromium(path)
        errors = [line for line in log.splitlines() if ':CONSOLE' in line]
        self.assertEqual(errors, [], 'script errors in Chromium')
        self.assertIn('Script loaded: 3 sortable tables', dom)
        columns = len(re.findall(r'<th[ >]', page))
        self.assertIn('selftest ok: %d columns sorted both ways' % columns, dom)
        if js['knots']:
            k = js['knots'][0]
            h3 = re.search(r'<div class="knot [a-z]+" id="knot-1">\s*<h3>(.*?)</h3>', dom, re.S)
            self.assertIsNotNone(h3, 'the first knot is not shown')
            labels = [vertex_label(js['vertices'][m]) for m in k['members']]
            want = knot_title(js['knots'], 0) + ': ' + ', '.join(labels)
            got = h3.group(1).replace('&amp;', '&').replace('&lt;', '<').replace('&gt;', '>')
            self.assertEqual(got, want)
        else:
            self.assertIn('No knots and no sinks were found', dom)
        fig = re.search(r'<figure>\s*<svg.*?</svg>\s*</figure>', dom, re.S)
        first = self.check_first_picture(js, page, picture)
        if picture:
            self.assertIsNotNone(fig, 'no inline SVG picture')
            whole = re.search(r'<figure>\s*(<svg.*?</svg>)\s*</figure>', page, re.S)
            self.assertEqual(label_collisions(ET.fromstring(whole.group(1))), [],
                             'the picture: edge labels overlap')
            for k in js['knots'][:1]:
                for m in k['members']:
                    self.assertIn('<title>v%d</title>' % m, fig.group(0))
        else:
            self.assertIsNone(fig)
            self.assertIsNone(first)
            self.assertIn('No picture: Graphviz is not installed (apt-get install graphviz)',
                          dom)
        self.check_timeline(js, dom)
        # The self-test opened every edge's details.
        self.assertEqual(len(re.findall(r'<details [^>]*open=', dom)), page.count('<details'))
        return dom


    # -- The timeline, the details, the widths ------------------------------
    def timeline_rows(self, dom, n):
        """Finding n's timeline: [(role, vertex id, [span])], role
        'member' or 'waiter'; a span is a dict of its state, its interval
        (b, e: ns from the start of the analysed range), target (vertex
        id or None) and ns (time running, runnable, waiting inside)."""
        m = re.search(r'<div class="timeline" id="timeline-%d">(.*?)<ul class="tl-legend">' % n,
                      dom, re.S)
        self.assertIsNotNone(m, 'finding %d has no timeline' % n)
        rows = []
        for role, v, body in re.findall(r'<div class="tl-row (member|waiter)" '
                                        r'data-vertex="v(\d+)">(.*?)</svg></div>',
                                        m.group(1), re.S):
            spans = []
            for attrs in re.findall(r'<rect ([^>]*)>', body):
                a = dict(re.findall(r'([\w-]+)="([^"]*)"', attrs))
                spans.append({'state': a['data-state'], 'b': int(a['data-b']),
                              'e': int(a['data-e']),
                              'target': int(a['data-target'][1:]) if 'data-target' in a
                              else None,
                              'ns': [int(x) for x in a['data-ns'].split(',')],
                              'x': float(a['x']), 'width': float(a['width'])})
            rows.append((role, int(v), spans))
        return rows

    def check_timeline(self, js, dom):
        """The first finding's timeline: one row per member, in order, and
        each row's spans tile the analysed range, in ns exactly and drawn
        (1000 viewBox units) within rounding; a thread's spans hold the
        time the report gives it."""
        if not js['knots']:
            self.assertNotIn('class="timeline"', dom)
            return []
        rows = self.timeline_rows(dom, 1)
        self.assertEqual([v for role, v, _ in rows if role == 'member'],
                         js['knots'][0]['members'][:32])
        duration = js['time_range']['duration_ns']
        threads = {t['id']: t for t in js['threads']}
        for role, v, spans in rows:
            self.assertTrue(spans, 'row v%d is empty' % v)
            self.assertEqual(spans[0]['b'], 0)
            for a, b in zip(spans, spans[1:]):
                self.assertEqual(b['b'], a['e'], 'row v%d: spans do not tile' % v)
            self.assertEqual(spans[-1]['e'], duration)
            self.assertAlmostEqual(sum(x['width'] for x in spans), 1000, delta=0.01 * len(spans))
            if v in threads:
                t = threads[v]
                want = [t['running_ns'], t['runnable_ns'], sum(t['waiting_ns'].values())]
                self.assertEqual([sum(x['ns'][k] for x in spans) for k in range(3)], want,
                                 'row v%d: its states\' time is not the report\'s' % v)
        return rows

    def check_widths(self, path, name):
        """At a phone's width and a desktop's: the page's self-test runs,
        every <details> opens, nothing scrolls sideways; a screenshot of
        the page as first seen and one with everything open are saved."""
        exe = need(self, 'chromium', 'chromium')
        with open(path, encoding='utf-8') as f:
            details = f.read().count('<details')
        profile = os.path.join(self.tmp, 'chromium-cdp-profile')
        env = {k: v for k, v in os.environ.items() if k not in SANITIZER_VARS}
        env['HOME'] = profile
        os.makedirs(SCREENSHOTS, exist_ok=True)
        url = 'file://' + os.path.abspath(path)
        b = Browser(exe, profile, env)
        try:
            for label, width, height, mobile in WIDTHS:
                sid = b.open(url, width, height, mobile)
                shot = os.path.join(SCREENSHOTS, '%s-%s.png' % (name, label))
                b.screenshot(sid, shot)
                print('screenshot: %s' % shot)
                sid = b.open(url + '#wperf-selftest', width, height, mobile)
                text = b.eval(sid, "document.getElementById('wperf-selftest').textContent")
                self.assertIn('selftest ok', text)
                m = re.search(r'details opened (\d+) of (\d+); page (\d+) px wide in a '
                              r'(\d+) px window', text)
                self.assertIsNotNone(m, text)
                self.assertEqual((int(m.group(1)), int(m.group(2))), (details, details), text)
                self.assertEqual(int(m.group(4)), width, text)
                self.assertLessEqual(int(m.group(3)), width,
                                     '%s: the page scrolls sideways: %s' % (label, text))
                right = b.eval(sid, "Math.max.apply(null, [0].concat(Array.prototype.map.call("
                               "document.querySelectorAll('.tl-bar'), function (e) {"
                               " return e.getBoundingClientRect().right; })))")
                self.assertLessEqual(right, width, '%s: a timeline runs off the page' % label)
                shot = os.path.join(SCREENSHOTS, '%s-%s-details.png' % (name, label))
                b.screenshot(sid, shot)
                print('screenshot: %s' % shot)
            self.assertEqual(b.errors, [], 'errors in Chromium')
        finally:
            b.close()
            shutil.rmtree(profile, ignore_errors=True)

    # -- The first screen -----------------------------------------------------
    # What a screen shows before any scrolling: a desktop's 1280 x 800 CSS
    # px, and a phone's 390 x 844 (the HTML page only: an SVG file has no
    # layout for a phone).
    FIRST_SCREENS = (('desktop', 1280, 800, False), ('phone', 390, 844, True))
    BOXES_JS = r"""(function (scope) {
      var root = scope ? document.querySelector(scope) : document;
      var out = {nodes: {}, edges: []};
      root.querySelectorAll('g.node').forEach(function (g) {
        var t = g.querySelector('title'), b = [];
        g.querySelectorAll('text').forEach(function (x) {
          var r = x.getBoundingClientRect();
          b.push([r.left, r.top, r.right, r.bottom, x.textContent]);
        });
        if (t) out.nodes[t.textContent] = b;
      });
      root.querySelectorAll('g.edge').forEach(function (g) {
        var p = g.querySelector('path');
        out.edges.push([g.getAttribute('class'), g.querySelector('title').textContent,
                        parseFloat(getComputedStyle(p).strokeWidth)]);
      });
      return JSON.stringify(out);
    })(%s)"""

    def check_first_screen(self, js, path, name, scope=None):
        """In a real headless Chromium, the first finding's members'
        labels lie inside the first screen (by their bounding boxes), and
        its own edges are drawn heaviest (by the computed stroke widths):
        the picture answers before any scrolling. A screenshot of each
        first screen is kept under $WPERF_SCREENSHOT_DIR. Returns
        {screen: (labels inside, labels drawn)} over every vertex."""
        exe = need(self, 'chromium', 'chromium')
        profile = os.path.join(self.tmp, 'chromium-first-screen')
        env = {k: v for k, v in os.environ.items() if k not in SANITIZER_VARS}
        env['HOME'] = profile
        os.makedirs(SCREENSHOTS, exist_ok=True)
        members = js['knots'][0]['members'] if js['knots'] else []
        if scope and not members:
            return {}       # no finding, no first picture (check_first_picture)
        seen = {}
        b = Browser(exe, profile, env)
        try:
            for label, width, height, mobile in self.FIRST_SCREENS:
                if mobile and path.endswith('.svg'):
                    continue
                sid = b.open('file://' + os.path.abspath(path), width, height, mobile)
                shot = os.path.join(SCREENSHOTS, '%s-first-%s.png' % (name, label))
                data = b.call('Page.captureScreenshot', {'format': 'png'}, sid)
                with open(shot, 'wb') as f:
                    f.write(base64.b64decode(data['data']))
                print('screenshot: %s' % shot)
                boxes = json.loads(b.eval(sid, self.BOXES_JS % json.dumps(scope)))

                def inside(box):
                    return box[0] >= 0 and box[1] >= 0 and box[2] <= width and box[3] <= height
                for m in members:
                    texts = boxes['nodes'].get('v%d' % m)
                    self.assertTrue(texts, '%s: v%d not drawn' % (label, m))
                    for box in texts:
                        self.assertTrue(inside(box), '%s %s: %r of the first finding lies '
                                        'outside the first screen' % (name, label, box))
                vertices = [t for t in boxes['nodes'] if re.fullmatch(r'v\d+', t)]
                seen[label] = (sum(all(inside(x) for x in boxes['nodes'][t]) for t in vertices),
                               len(vertices))
                first = [w for cls, _, w in boxes['edges'] if 'first' in cls.split()]
                other = [w for cls, _, w in boxes['edges'] if 'first' not in cls.split()]
                if first and other:
                    self.assertGreater(min(first), max(other), '%s: %s' % (label, boxes['edges']))
            self.assertEqual(b.errors, [], 'errors in Chromium')
        finally:
            b.close()
            shutil.rmtree(profile, ignore_errors=True)
        print('%s: first screen shows %s (vertices inside / drawn)' % (name, seen))
        return seen


# ---------------------------------------------------------------------------

class TestScenarioFormats(Checks):
    """The "mixed" scenario at threshold 550 ms: knot {W, disk:8,0} (about
    4.2 s), knot {C, D} (1.1 s, B->C then D->A cut); and the merged pool."""

    # The paper's strict knot rule: the textbook refinement's one knot
    # {C,D} (under the dominant rule {A,B} is one too; test_scenarios_waits).
    PARAMS = {'threshold': '550ms', 'knot-rule': 'strict'}

    def report(self, scn, fmt, name, **params):
        path = self.out(name)
        scenario_report(scn, fmt, path, **params)
        return path

    def reference(self, scn, **params):
        path = self.report(scn, 'json', 'r.json', **params)
        with open(path) as f:
            js = json.load(f)
        os.unlink(path)
        return js

    def test_dot(self):
        js = self.reference(mixed(), **self.PARAMS)
        r = ws.Report(js)
        A, B, C, D = (r.tid(t) for t in (101, 102, 103, 104))
        W, disk = r.tid(401), r.vid(kind='disk')
        self.assertEqual([k['members'] for k in r.knots('knot')],
                         [sorted([W, disk]), sorted([C, D])], r.describe_knots())
        parsed, edges = self.check_dot(js, self.report(mixed(), 'dot', 'g.dot', **self.PARAMS))
        # As in the paper's figures: heavy edges solid, light ones dashed;
        # what refinement cut is labelled so.
        self.assertEqual(edges[(A, B)]['style'], 'solid')       # 900 ms
        self.assertEqual(edges[(C, D)]['style'], 'solid')       # 600 ms
        self.assertEqual(edges[(D, C)]['style'], 'dashed')      # 500 ms
        self.assertEqual(edges[(B, C)]['style'], 'dashed')      # 100 ms
        self.assertIn('cut 1 (Knot 2)', edges[(B, C)]['label'])
        self.assertIn('cut 2 (Knot 2)', edges[(D, A)]['label'])
        self.assertEqual(edges[(W, disk)]['style'], 'dashed')   # 500 ms
        self.assertEqual(edges[(disk, W)]['style'], 'solid')    # idle, 3.7 s
        # The weight and the waiter's own waiting in it (no share of the
        # analysed time: wperf-report(7), WEIGHTS).
        self.assertEqual(edges[(A, B)]['label'], '900 ms\\nown 900 ms')
        self.assertOnly(['g.dot'])

    def test_selfloop(self):
        js = self.reference(pool(), merge='name')
        r = ws.Report(js)
        v = r.vid(name='pool-*')
        self.assertEqual([k['members'] for k in r.knots('knot')], [[v]], r.describe_knots())
        parsed, edges = self.check_dot(js, self.report(pool(), 'dot', 'g.dot', merge='name'))
        self.assertIn((v, v), edges)
        self.assertEqual(edges[(v, v)]['style'], 'solid')        # 600 ms >= 20% of 1 s
        self.check_graphml(js, self.report(pool(), 'graphml', 'g.graphml', merge='name'))

    def test_svg(self):
        need(self, 'dot', 'graphviz')
        js = self.reference(mixed(), **self.PARAMS)
        self.check_svg(js, self.report(mixed(), 'svg', 'g.svg', **self.PARAMS))
        self.assertOnly(['g.svg'])

    def test_graphml(self):
        js = self.reference(mixed(), **self.PARAMS)
        g = self.check_graphml(js, self.report(mixed(), 'graphml', 'g.graphml', **self.PARAMS))
        r = ws.Report(js)
        B, C = r.tid(102), r.tid(103)
        self.assertEqual(g.edges['v%d' % B, 'v%d' % C]['cut_rank'], 1)
        self.assertEqual(g.nodes['v%d' % r.vid(kind='disk')]['knot'], 0)

    def test_html(self):
        need(self, 'dot', 'graphviz')
        js = self.reference(mixed(), **self.PARAMS)
        path = self.report(mixed(), 'html', 'r.html', **self.PARAMS)
        dom = self.check_html(js, path)
        self.assertIn('id="knot-2"', dom)
        self.assertOnly(['r.html'])
        r = ws.Report(js)
        A, C, D, W, disk = (r.tid(101), r.tid(103), r.tid(104), r.tid(401),
                            r.vid(kind='disk'))

        def spans(rows):
            return {v: [(x['state'], x['b'], x['e'], x['target'], x['ns']) for x in sp]
                    for _, v, sp in rows}
        # Knot 1 {W, disk}: W runs until it writes at 1 s, waits for the
        # disk until the completion's wakeup (1.5 s + 2 us), is runnable
        # until it runs 2 us later, and runs to the end (wperf-method(7)
        # §3, tests/wperf_scenario.py disk_wait); the disk has no states.
        end, woken = 42 * U, 1500 * MS + 2000
        self.assertEqual(spans(self.timeline_rows(dom, 1)), {
            W: [('running', 0, S, None, [S, 0, 0]),
                ('waiting', S, woken, disk, [0, 0, woken - S]),
                ('runnable', woken, woken + 2000, None, [0, 2000, 0]),
                ('running', woken + 2000, end, None, [end - woken - 2000, 0, 0])],
            disk: [('none', 0, end, None, [0, 0, 0])]})
        # Knot 2 {C, D}, a click away: C waits for D over [22, 28] U, D for
        # C over [29, 34] U and for A over [35, 37] U; woken, each runs at
        # once.
        self.assertEqual(spans(self.timeline_rows(dom, 2)), {
            C: [('running', 0, 22 * U, None, [22 * U, 0, 0]),
                ('waiting', 22 * U, 28 * U, D, [0, 0, 6 * U]),
                ('running', 28 * U, end, None, [14 * U, 0, 0])],
            D: [('running', 0, 29 * U, None, [29 * U, 0, 0]),
                ('waiting', 29 * U, 34 * U, C, [0, 0, 5 * U]),
                ('running', 34 * U, 35 * U, None, [U, 0, 0]),
                ('waiting', 35 * U, 37 * U, A, [0, 0, 2 * U]),
                ('running', 37 * U, end, None, [5 * U, 0, 0])]})
        # The edge W -> disk: one wait of 500 ms, in the log2 bucket
        # [2^28, 2^29) ns; its details hold that one bar.
        m = re.search(r'W \(401\) (?:&rarr;|\u2192) disk:8:0: [^<]*<details class="edge-more" open="">'
                      r'<summary>wait lengths</summary>(.*?)</details>', dom, re.S)
        self.assertIsNotNone(m, 'W -> disk has no details')
        self.assertEqual(re.findall(r'data-bucket="(\d+)" data-count="(\d+)"', m.group(1)),
                         [('28', '1')])
        self.check_widths(path, 'scenario-mixed')
        self.check_first_screen(js, path, 'scenario-mixed-html', '#first-picture')
        # The edges table comes heaviest first (its weight heading says
        # so), not in the (from, to) order of the JSON: a device's own
        # edges, of no weight, were first.
        with open(path) as f:
            page = f.read()      # as written: dom is after the self-test's clicks
        table = page[page.index('id="edges-table"'):]
        table = table[:table.index('</table>')]
        self.assertRegex(table, r'<th data-type="num" aria-sort="descending">weight</th>')
        weights = [int(w) for w in re.findall(r'<tr><td>.*?</td><td>.*?</td>'
                                               r'<td class="n" data-v="(-?\d+)"', table)]
        self.assertEqual(len(weights), len(js['edges']))
        self.assertEqual(weights, sorted((e['weight_ns'] for e in js['edges']), reverse=True))
        self.assertNotEqual(weights, [e['weight_ns'] for e in js['edges']],
                            'the scenario cannot tell the two orders apart')

    def test_html_merged(self):
        """A merged vertex's row sums its threads' time: the pool's two
        threads run 14 U and wait 6 U of their 2 x 10 U."""
        js = self.reference(pool(), merge='name')
        dom = self.check_html(js, self.report(pool(), 'html', 'r.html', merge='name'),
                              picture=shutil.which('dot') is not None)
        rows = self.timeline_rows(dom, 1)
        self.assertEqual(len(rows), 1)
        spans = rows[0][2]
        self.assertEqual([sum(x['ns'][k] for x in spans) for k in range(3)],
                         [14 * U, 0, 6 * U])
        # Both threads live throughout, one running while the other waits:
        # running has most of every bucket.
        self.assertEqual({x['state'] for x in spans}, {'running'}, spans)


class TestRealTraceFormats(Checks):
    """Real LTTng kernel traces through the babeltrace2 CLI."""

    def run_cli(self, trace, fmt, name, env=None):
        path = self.out(name)
        cmd, p = cli(trace, bt_params(format=fmt, path=path), env=env)
        self.assertEqual(p.returncode, 0, '%s\n%s' % (' '.join(cmd), p.stderr[-3000:]))
        return path

    def reference(self, trace):
        path = self.run_cli(trace, 'json', 'r.json')
        with open(path) as f:
            js = json.load(f)
        os.unlink(path)
        return js

    def test_all_formats(self):
        for name in REAL_TRACES:
            with self.subTest(trace=name):
                trace = real_trace_dir(name)
                js = self.reference(trace)
                self.assertTrue(js['knots'], '%s: nothing found' % name)
                self.check_dot(js, self.run_cli(trace, 'dot', 'g.dot'))
                self.check_graphml(js, self.run_cli(trace, 'graphml', 'g.graphml'))
                svg = self.run_cli(trace, 'svg', 'g.svg')
                self.check_svg(js, svg)
                self.check_first_screen(js, svg, 'real-%s-svg' % name)
                self.assertOnly(['g.dot', 'g.graphml', 'g.svg'])
                for f in os.listdir(self.tmp):
                    os.unlink(self.out(f))

    def test_svg_busy_machine(self):
        """The real trace with the most threads and findings (1,492
        vertices, 26 sinks): its unfocused picture fits a screen, draws
        every finding's members, and counts what it leaves out."""
        need(self, 'dot', 'graphviz')
        trace = real_trace_dir('tc-many-threads')
        js = self.reference(trace)
        self.assertGreater(len(js['knots']), 8)
        svg = self.run_cli(trace, 'svg', 'g.svg')
        self.check_svg(js, svg)
        self.check_first_screen(js, svg, 'real-tc-many-threads-svg')
        html = self.run_cli(trace, 'html', 'r.html')
        self.check_html(js, html)
        self.check_first_screen(js, html, 'real-tc-many-threads-html', '#first-picture')

    def test_html(self):
        need(self, 'dot', 'graphviz')
        trace = real_trace_dir(REAL_TRACES[0])
        js = self.reference(trace)
        path = self.run_cli(trace, 'html', 'r.html')
        dom = self.check_html(js, path)
        # A sink of a device: its row has no states; its heaviest waiters
        # that are threads follow, and they did wait for it.
        rows = self.check_timeline(js, dom)
        sink = js['knots'][0]['members'][0]
        waiters = [(v, sp) for role, v, sp in rows if role == 'waiter']
        self.assertTrue(waiters, 'the sink has no waiters drawn')
        for v, sp in waiters:
            self.assertTrue(any(x['state'] == 'waiting' for x in sp))
            self.assertIn((v, sink), {(e['from'], e['to']) for e in js['edges']})
        self.check_widths(path, 'real-' + REAL_TRACES[0])
        self.check_first_screen(js, path, 'real-%s-html' % REAL_TRACES[0], '#first-picture')

    def test_without_graphviz(self):
        """PATH without dot: svg is refused before the trace is read, in one
        line, and no file is written; html says why it has no picture."""
        trace = real_trace_dir(REAL_TRACES[0])
        env = dict(os.environ, PATH=os.path.join(self.tmp, 'empty-path'))
        path = self.out('g.svg')
        cmd, p = cli(trace, bt_params(format='svg', path=path), env=env)
        self.assertNotEqual(p.returncode, 0)
        # The CLI wraps the cause at 80 columns: undo that.
        text = ' '.join(p.stderr.split())
        self.assertIn("sink.wperf.knots: parameter `format`: svg needs Graphviz's `dot`, "
                      "which is not on PATH: install it (apt-get install graphviz) or use "
                      "format=dot", text)
        self.assertOnly([])
        js = self.reference(trace)
        self.check_html(js, self.run_cli(trace, 'html', 'r.html', env=env), picture=False)


class TestGraphvizFails(Checks):
    """A `dot` that fails (here a stand-in that says why and exits 1): the
    sink checks its exit status, reports its reason in one line and writes
    nothing, for svg and for html alike."""

    def test_dot_exit_status(self):
        fake = os.path.join(self.tmp, 'bin')
        os.mkdir(fake)
        with open(os.path.join(fake, 'dot'), 'w') as f:
            f.write('#!/bin/sh\ncat >/dev/null\necho "Error: <stdin>: syntax error in line 7" >&2\n'
                    'exit 3\n')
        os.chmod(os.path.join(fake, 'dot'), 0o755)
        out = os.path.join(self.tmp, 'out')
        os.mkdir(out)
        env = dict(os.environ, PATH=fake + os.pathsep + os.environ.get('PATH', ''))
        trace = real_trace_dir(REAL_TRACES[0])
        for fmt in ('svg', 'html'):
            with self.subTest(format=fmt):
                cmd, p = cli(trace, bt_params(format=fmt, path=os.path.join(out, 'r.' + fmt)),
                             env=env)
                self.assertNotEqual(p.returncode, 0, p.stderr[-2000:])
                text = ' '.join(p.stderr.split())
                self.assertIn('sink.wperf.knots: Graphviz `dot -Tsvg` failed with exit status 3: '
                              'Error: <stdin>: syntax error in line 7', text)
                self.assertEqual(os.listdir(out), [], 'a failed report left files behind')


def main():
    result = unittest.main(exit=False, verbosity=2).result
    if not result.wasSuccessful():
        sys.exit(1)
    if result.testsRun and len(result.skipped) == result.testsRun:
        sys.exit(77)
    sys.exit(0)


if __name__ == '__main__':
    main()
