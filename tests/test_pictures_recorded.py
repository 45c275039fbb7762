#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The pictures of recordings of real programs, read in a real headless
Chromium: what a user sees first when opening `wperf report DIR --format
svg` or `--format html` of a `wperf record` directory (focused on the
recorded command and what it forked, as `wperf report` is by default).

Three recordings, each made once with `wperf record`:
  - the demo workload (tests/workloads/fig1-pipeline, as `make demo`);
  - a shell loop starting 300 short `dd` processes, reported with
    short-lived="keep" (every dd its own vertex: the case where a picture
    of everything was a column of hundreds of unconnected ellipses);
  - a disk writer: a shell loop of `dd ... conv=fsync` into /var/tmp.

For each, with the JSON report of the same recording as the reference
(tests/test_report_formats.py, Checks): the SVG draws the first findings'
members and counts the rest exactly; its stroke order holds (the first
finding's own edges heaviest); at 1280 x 800 every label of the first
finding's members lies inside the first screen; the HTML page references nothing
on the network and opens on the first finding's picture (counts and
stroke order as above), whose members' labels lie inside the first screen at
1280 x 800 and as a phone at 390 x 844. Screenshots of each first screen
go to $WPERF_SCREENSHOT_DIR (default report-formats-screenshots/), and
each test prints how many vertices its pictures draw and show first.

Needs root, lttng-tools or tracefs (wperf record), graphviz and chromium.
Run: WPERF_PLUGIN_DIR=build/plugin sudo /usr/bin/python3 tests/test_pictures_recorded.py
"""

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402
import test_report_formats as formats  # noqa: E402

LOOPS = 300


class Pictures(formats.Checks):
    """Shared by the recordings below (not run itself)."""
    PARAMS = ()

    def wperf_report(self, fmt, name):
        """`wperf report TRACE --format fmt` into the test's directory, as a
        user runs it (focused on the recorded command); the path."""
        self.assertTrue(self.ok, 'wperf record failed:\n' + self.log[-4000:])
        path = self.out(name)
        cmd = [recording.wperf_path(), 'report', self.trace, '--format', fmt,
               '--output', path]
        plugin = os.environ.get('WPERF_PLUGIN_DIR')
        if plugin:
            cmd += ['--plugin-path', plugin]
        if self.PARAMS:
            cmd += ['--params', ','.join(self.PARAMS)]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=300)
        self.assertEqual(p.returncode, 0, '$ %s\n%s' % (' '.join(cmd), p.stdout[-3000:]))
        return path

    def check_pictures(self, name, findings=True):
        """The SVG and the HTML page of the recording (with findings, or
        maybe none); the JSON reference and the SVG's root."""
        formats.need(self, 'dot', 'graphviz')
        with open(self.wperf_report('json', 'r.json')) as f:
            js = json.load(f)
        if findings:
            self.assertTrue(js['knots'], '%s: nothing found' % name)
        svg = self.wperf_report('svg', 'g.svg')
        self.check_svg(js, svg)
        root = ET.parse(svg).getroot()
        drawn = sum(1 for t in root.iter(formats.NS_SVG + 'title')
                    if re.fullmatch(r'v\d+', t.text or ''))
        seen = self.check_first_screen(js, svg, 'recorded-%s-svg' % name)
        print('%s: %d of %d vertices drawn; first screen %s' % (name, drawn,
                                                                len(js['vertices']), seen))
        html = self.wperf_report('html', 'r.html')
        with open(html, encoding='utf-8') as f:
            self.check_first_picture(js, f.read())
        self.check_first_screen(js, html, 'recorded-%s-html' % name, '#first-picture')
        return js, root


class Demo(recording.WperfRecorded, Pictures):
    """`make demo`'s workload: the writer (and the disk) lead."""
    COMMAND = ['fig1-pipeline', '--seconds', '3', '--quiet']

    def test_pictures(self):
        js, _ = self.check_pictures('demo')
        names = {v['comm'] for k in js['knots'][:1] for m in k['members']
                 for v in [js['vertices'][m]] if v['kind'] == 'thread'}
        devices = {js['vertices'][m]['kind'] for m in js['knots'][0]['members']}
        self.assertTrue('fig1-writer' in names or 'disk' in devices, js['knots'][0])


class ShellLoop(recording.WperfRecorded, Pictures):
    """300 short dd processes kept apart: the picture folds those in no
    finding into one counted line instead of drawing them."""
    COMMAND = ['/bin/sh', '-c', 'for i in $(seq %d); do dd if=/dev/zero of=/dev/null '
               'bs=4k count=10 2>/dev/null; done' % LOOPS]
    PARAMS = ('short-lived="keep"',)

    def test_pictures(self):
        js, root = self.check_pictures('shell-loop', findings=False)
        dds = [v for v in js['vertices'] if v['kind'] == 'thread' and v['comm'] == 'dd']
        self.assertGreaterEqual(len(dds), LOOPS * 9 // 10, 'the recording lost the dd processes')
        nodes = {t.text for t in root.iter(formats.NS_SVG + 'title')}
        drawn_dd = sum('v%d' % v['id'] in nodes for v in dds)
        self.assertLess(drawn_dd, 20, 'the picture draws %d dd processes' % drawn_dd)
        text = ' '.join(t.text or '' for t in root.iter(formats.NS_SVG + 'text'))
        m = re.search(r'\+ (\d+) threads not in any finding \((\d+) of them the focus\'s\)', text)
        self.assertIsNotNone(m, text)
        self.assertGreaterEqual(int(m.group(2)), len(dds) - drawn_dd - sum(
            1 for k in js['knots'] for v in dds if v['id'] in k['members']))


class DiskWriter(recording.WperfRecorded, Pictures):
    """A shell loop of synchronous 1 MiB writes."""
    COMMAND = ['/bin/sh', '-c', 'f=$(mktemp /var/tmp/wperf-pictures.XXXXXX) && '
               'for i in $(seq 40); do dd if=/dev/zero of="$f" bs=64k count=16 conv=fsync '
               '2>/dev/null; done; rm -f "$f"']

    def test_pictures(self):
        self.check_pictures('disk-writer')


if __name__ == '__main__':
    recording.main_wperf_record('the demo, a shell loop and a disk writer', 'fig1-pipeline',
                                tools=('dot', 'chromium'))
