#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""What `meson install` puts on a machine, installed into a scratch
DESTDIR (suite `install`; the normal build only):

- every manual page renders with `man --warnings -l` at 80 columns without
  any warning (groff's "cannot adjust line" and "can't break line"
  included: doc/md2man.sh sets text ragged right and lets long code spans
  break), and the component
  pages are named as babeltrace2 names its own, and `babeltrace2 help`
  of each component cites its page by that name;
- libwperf-ust.so is a versioned library whose SONAME, libwperf-ust.so.0,
  is installed;
- the two-line build of an annotated program shown in wperf-annotate(3),
  with `pkg-config --cflags --libs wperf-annotate`, compiles, and the
  program finds the installed provider by its SONAME.

Usage: WPERF_BUILD_DIR=build /usr/bin/python3 tests/test_install.py
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.environ.get('WPERF_BUILD_DIR', os.path.join(HERE, '..', 'build'))
SKIP = 77
# The program of wperf-annotate(3)'s example, cut to what proves the build.
ANNOTATED = r'''
#define WPERF_ANNOTATE_DEFINE
#include <wperf/annotate.h>
#include <stdio.h>

int main(void)
{
	int loaded = wperf_annotate_load(NULL);

	WPERF_PROGRESS("request");
	printf("%s\n", loaded == 0 ? "loaded" : "not-loaded");
	return 0;
}
'''


def run(argv, **kw):
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=300, **kw)


class Installed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dest = tempfile.mkdtemp(prefix='wperf-install-')
        p = run(['meson', 'install', '--no-rebuild', '--quiet', '-C', BUILD,
                 '--destdir', cls.dest])
        if p.returncode != 0:
            raise AssertionError('meson install failed:\n' + p.stdout + p.stderr)
        prefix = run(['meson', 'introspect', '--buildoptions', BUILD]).stdout
        cls.prefix = re.search(r'"name": "prefix", "value": "([^"]*)"', prefix).group(1)
        cls.root = cls.dest + cls.prefix
        libdirs = glob.glob(os.path.join(cls.root, 'lib*', '**', 'libwperf-ust.so*'),
                            recursive=True)
        cls.libdir = os.path.dirname(libdirs[0]) if libdirs else None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.dest, ignore_errors=True)

    def test_manual_pages_render_without_warnings(self):
        pages = sorted(glob.glob(os.path.join(self.root, 'share', 'man', 'man*', '*')))
        names = {os.path.basename(p) for p in pages}
        for want in ('wperf.1', 'wperf-lami.1', 'wperf-annotate.3', 'wperf.7',
                     'wperf-method.7', 'babeltrace2-sink.wperf.knots.7',
                     'babeltrace2-filter.wperf.waits.7',
                     'babeltrace2-source.wperf.tracefs.7'):
            self.assertIn(want, names)
        env = dict(os.environ, MANWIDTH='80', LC_ALL='C.UTF-8', MAN_KEEP_STDERR='1')
        for page in pages:
            p = run(['man', '--warnings', '-E', 'UTF-8', '-l', page], env=env)
            self.assertEqual(p.returncode, 0, page + ': ' + p.stderr)
            # No warning at all, at the 80 columns of a terminal: not even
            # troff's "cannot adjust line" / "can't break line" of a narrow
            # table cell or a long code span (doc/md2man.sh).
            self.assertEqual(p.stderr.strip(), '', page)
            self.assertIn('NAME', p.stdout, page)
            self.assertGreater(len(p.stdout.splitlines()), 20, page)

    def test_component_help_cites_installed_pages(self):
        # `babeltrace2 help` of each component cites its manual page by its
        # installed name (babeltrace2-sink.wperf.knots(7)), and every wperf
        # page it cites is installed.
        pages = {os.path.basename(p) for p in
                 glob.glob(os.path.join(self.root, 'share', 'man', 'man*', '*'))}
        plugins = glob.glob(os.path.join(self.dest, '**', 'babeltrace-plugin-wperf.so'),
                            recursive=True)
        self.assertEqual(len(plugins), 1, plugins)
        for comp in ('sink.wperf.knots', 'filter.wperf.waits', 'source.wperf.tracefs'):
            p = run(['babeltrace2', '--plugin-path=' + os.path.dirname(plugins[0]),
                     'help', comp])
            self.assertEqual(p.returncode, 0, p.stderr)
            cited = re.findall(r'([\w.+-]+)\((\d)\)', p.stdout)
            self.assertIn(('babeltrace2-' + comp, '7'), cited, comp)
            for name, section in cited:
                if 'wperf' in name:
                    self.assertIn('%s.%s' % (name, section), pages, comp)

    def test_programs_are_installed_and_start(self):
        """bin/wperf names libexec's wperf-diff, which is installed and
        runs; bin/wperf-lami runs from the installed tree alone (it needs
        no module beside it)."""
        wperf = os.path.join(self.root, 'bin', 'wperf')
        diff = os.path.join(self.root, 'libexec', 'wperf', 'wperf-diff')
        lami = os.path.join(self.root, 'bin', 'wperf-lami')
        for prog in (wperf, diff, lami):
            self.assertTrue(os.access(prog, os.X_OK), '%s is not installed' % prog)
        self.assertIn(os.path.join(self.prefix, 'libexec', 'wperf', 'wperf-diff'),
                      run([wperf, '--help']).stdout)
        env = dict(os.environ, PYTHONDONTWRITEBYTECODE='1')
        p = run([diff, '--help'], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn('usage: wperf diff', p.stdout)
        p = run([lami, '--mi-version'], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.strip(), '1.0')
        self.assertEqual(glob.glob(os.path.join(self.root, 'share', 'wperf', 'python')), [],
                         'Python modules installed that nothing imports')

    def test_provider_is_a_versioned_library(self):
        self.assertIsNotNone(self.libdir, 'libwperf-ust.so was not installed')
        real = os.path.realpath(os.path.join(self.libdir, 'libwperf-ust.so.0'))
        self.assertTrue(os.path.isfile(real), 'no libwperf-ust.so.0')
        p = run(['readelf', '-d', real])
        self.assertRegex(p.stdout, r'\(SONAME\)\s+Library soname: \[libwperf-ust\.so\.0\]')

    def test_annotated_program_builds_with_pkg_config(self):
        pcdir = [d for d in glob.glob(os.path.join(self.root, '**', 'pkgconfig'),
                                      recursive=True)
                 if os.path.isfile(os.path.join(d, 'wperf-annotate.pc'))]
        self.assertTrue(pcdir, 'wperf-annotate.pc was not installed')
        env = dict(os.environ, PKG_CONFIG_PATH=pcdir[0])
        p = run(['pkg-config', '--define-variable=prefix=' + self.root, '--cflags',
                 '--libs', 'wperf-annotate'], env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        flags = p.stdout.split()
        self.assertIn('-I' + os.path.join(self.root, 'include'), flags)
        work = tempfile.mkdtemp(prefix='wperf-annotated-')
        self.addCleanup(shutil.rmtree, work, True)
        src = os.path.join(work, 'prog.c')
        with open(src, 'w') as f:
            f.write(ANNOTATED)
        exe = os.path.join(work, 'prog')
        # The two lines of wperf-annotate(3): cc ... $(pkg-config ...).
        p = run(['cc', '-Wall', '-Werror', '-o', exe, src] + flags)
        self.assertEqual(p.returncode, 0, p.stderr)
        # Not linked with LTTng-UST; loads the provider by its SONAME.
        self.assertNotIn('lttng', run(['readelf', '-d', exe]).stdout)
        p = run([exe], env=dict(os.environ, LD_LIBRARY_PATH=self.libdir,
                                LTTNG_UST_REGISTER_TIMEOUT='0'))
        self.assertEqual((p.returncode, p.stdout.strip()), (0, 'loaded'), p.stderr)


if __name__ == '__main__':
    if os.environ.get('WPERF_SANITIZED'):
        print('SKIP: installation is checked in the normal build')
        sys.exit(SKIP)
    for prog in ('man', 'pkg-config', 'readelf', 'cc'):
        if not shutil.which(prog):
            print('%s: %s is missing' % ('FAIL' if os.environ.get('CI') else 'SKIP', prog))
            sys.exit(1 if os.environ.get('CI') else SKIP)
    prog = unittest.main(verbosity=2, exit=False)
    sys.exit(0 if prog.result.wasSuccessful() else 1)
