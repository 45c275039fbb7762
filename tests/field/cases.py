# SPDX-License-Identifier: MIT
"""The field suite's cases: real third-party servers and their loads, and
the rule that turns the truth measured from outside into the verdict the
report's first finding must give (README.md states it in words).

Owns: each case's preparation (data directories, configuration, ports),
its driver script (tests/field/*.sh, recorded by `wperf record`), the
load's own statistics, and expected(). Nothing here reads a wperf report.
"""

import json
import os
import re
import shutil
import socket
import subprocess

import fieldlib

HERE = os.path.dirname(os.path.abspath(__file__))
SECS = int(os.environ.get('WPERF_FIELD_SECONDS', '4'))

# ------------------------------------------------------------------ rule ----
# Shares are of the active focus threads' summed busy time: running +
# runnable + off-CPU in state D (README.md). Waiting in S (for each other,
# for a socket, for a timer, idle) is left out: in a closed loop of client
# and server threads one of each pair always waits for the other.
CPU_YES, CPU_NO = 0.35, 0.25          # runnable share: CPU above, not CPU below
DISK_YES, DISK_NO = 0.35, 0.25        # off-CPU-in-D share: disk above, not below
DISK_BUSY = 0.10                      # the disk did work: io_ticks over wall time
TIE = 0.10                            # runnable and D closer than this: undecided
WORK_YES = 0.50                       # running share for an "own work" verdict


NEAR = 0.80    # processes within 20 % of the most: equally named by the truth


def shares(truth):
    """Sums over the active threads of the focus: dict(run, rq, D, S, busy),
    and per key the processes with the most of it: every process with at
    least NEAR times the largest (a 5.9 s against 5.7 s difference in
    runnable time is within the polling's noise)."""
    tot = dict(run=0, rq=0, D=0, S=0)
    for comm, c in truth['by_comm'].items():
        for k in tot:
            tot[k] += c[k]
    top = {}
    for k in tot:
        most = max([c[k] for c in truth['by_comm'].values()] or [0])
        top[k] = sorted(comm for comm, c in truth['by_comm'].items()
                        if most and c[k] >= NEAR * most)
    tot['busy'] = tot['run'] + tot['rq'] + tot['D']
    return tot, top


def expected(truth):
    """The verdict the truth asks for: dict(verdict, accept, need, why).
    need: groups of names; the finding's members must hold one name of
    each group. verdict None: the truth is too close to a threshold to
    judge."""
    tot, top = shares(truth)
    busy = max(1, tot['busy'])
    rq, d, run = tot['rq'] / busy, tot['D'] / busy, tot['run'] / busy
    disk = truth['disk_busy']
    why = ('of the active threads\' busy time %.2f s: running %.0f%%, runnable %.0f%%, '
           'D %.0f%%; disk busy %.0f%%' % (busy / 1e9, 100 * run, 100 * rq, 100 * d, 100 * disk))
    if rq >= CPU_NO and d >= DISK_NO and abs(rq - d) < TIE:
        return dict(verdict=None, why=why + ' (runnable and D too close to call)')
    if rq >= CPU_YES and rq > d:
        return dict(verdict='cpu', accept=['cpu'], need=[top['rq']], why=why)
    if d >= DISK_YES and d > rq and disk >= DISK_BUSY:
        return dict(verdict='disk', accept=['disk'], need=[['disk'], top['D']], why=why)
    if rq > CPU_NO or d > DISK_NO:
        return dict(verdict=None, why=why + ' (near a threshold)')
    if run >= WORK_YES:
        return dict(verdict='work', accept=['work', 'cpu'], need=[top['run']], why=why)
    return dict(verdict=None, why=why + ' (no rule decides)')


def free_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


class Case:
    """One field case. name; the driver script; prepare(tmp) writes what
    the driver needs and sets the environment; stats(tmp, log) reads the
    load's own figures; cleanup(tmp) ends anything left."""
    name = None
    script = None
    threads = 4
    timeout = 50
    # Programs the case needs (Debian package in parentheses in README.md).
    needs = ()

    def driver(self):
        return os.path.join(HERE, self.script)

    def prepare(self, tmp):
        os.environ['FIELD_PORT'] = str(free_port())
        os.environ['FIELD_SECS'] = str(SECS)
        os.environ['FIELD_THREADS'] = str(self.threads)

    def stats(self, tmp, log):
        return ''

    def throughput(self, tmp):
        """The load's throughput (operations per second), or None."""
        m = re.match(r'([\d.]+) ', self.stats(tmp, ''))
        return float(m.group(1)) if m else None

    def cleanup(self, tmp):
        pass

    def expected(self, truth):
        return expected(truth)

    def missing(self):
        return [p for p in self.needs if not shutil.which(p)]


def load_out(tmp):
    return fieldlib.read(os.path.join(tmp, 'load.out')) or ''


class MariaDB(Case):
    name = 'mariadb'
    script = 'mariadb.sh'
    needs = ('mariadbd', 'mariadb-install-db', 'mariadb', 'sysbench')

    def prepare(self, tmp):
        super().prepare(tmp)
        # One initialised data directory per build tree, copied for each
        # run (mariadb-install-db takes seconds; a copy a fraction of it).
        tmpl = os.path.join(fieldlib.field_root(), 'mariadb-template')
        if not os.path.isdir(os.path.join(tmpl, 'mysql')):
            shutil.rmtree(tmpl, ignore_errors=True)
            p = subprocess.run(['mariadb-install-db', '--no-defaults', '--datadir=' + tmpl,
                                '--user=root', '--auth-root-authentication-method=normal',
                                '--skip-test-db'], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, timeout=120)
            if p.returncode != 0:
                shutil.rmtree(tmpl, ignore_errors=True)
                raise RuntimeError('mariadb-install-db failed:\n' + p.stdout[-2000:])
        shutil.copytree(tmpl, os.path.join(tmp, 'db'), symlinks=True)

    def stats(self, tmp, log):
        out = load_out(tmp)
        m = re.search(r'transactions:\s+(\d+)\s+\(([\d.]+) per sec', out)
        lat = re.search(r'avg:\s+([\d.]+)', out)
        return '%s tps, avg %s ms' % (m.group(2) if m else '?', lat.group(1) if lat else '?')


class Nginx(Case):
    name = 'nginx'
    script = 'nginx.sh'
    threads = 2       # wrk threads
    workers = 4       # nginx worker processes
    needs = ('nginx', 'wrk')

    def prepare(self, tmp):
        super().prepare(tmp)
        os.makedirs(os.path.join(tmp, 'www'))
        os.makedirs(os.path.join(tmp, 'logs'))
        with open(os.path.join(tmp, 'www', 'file.html'), 'w') as f:
            f.write('<html><body>%s</body></html>\n' % ('field ' * 700))   # ~4 KiB
        conf = """# written by tests/field/cases.py
daemon off;
master_process on;
worker_processes %d;
pid %s/server.pid;
error_log %s/logs/error.log warn;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path %s/tmp-body;
    proxy_temp_path %s/tmp-proxy;
    fastcgi_temp_path %s/tmp-fcgi;
    uwsgi_temp_path %s/tmp-uwsgi;
    scgi_temp_path %s/tmp-scgi;
    server {
        listen 127.0.0.1:%s;
        root %s/www;
    }
}
""" % ((self.workers,) + (tmp,) * 7 + (os.environ['FIELD_PORT'], tmp))
        with open(os.path.join(tmp, 'nginx.conf'), 'w') as f:
            f.write(conf)

    def stats(self, tmp, log):
        m = re.search(r'Requests/sec:\s+([\d.]+)', load_out(tmp))
        return '%s req/s' % (m.group(1) if m else '?')


class Memcached(Case):
    name = 'memcached'
    script = 'memcached.sh'
    threads = 4       # memcslap threads
    needs = ('memcached', 'memcslap')

    def stats(self, tmp, log):
        out = load_out(tmp)
        el = re.search(r'elapsed_ms (\d+)', out)
        gets = re.search(r'cmd_get (\d+)', out)
        sets = re.search(r'cmd_set (\d+)', out)
        if not (el and gets and sets):
            return '? ops/s'
        return '%.0f ops/s' % ((int(gets.group(1)) + int(sets.group(1))) / (int(el.group(1)) / 1000.0))


class TarSync(Case):
    name = 'tar-sync'
    script = 'tar-sync.sh'
    needs = ('tar', 'sync')
    files, size = 1200, 256 * 1024     # 300 MiB in 1200 files: seconds of writeback

    def prepare(self, tmp):
        super().prepare(tmp)
        tree = os.path.join(tmp, 'tree')
        block = os.urandom(self.size)
        for i in range(self.files):
            d = os.path.join(tree, 'd%02d' % (i % 20))
            os.makedirs(d, exist_ok=True)
            with open(os.path.join(d, 'f%04d' % i), 'wb') as f:
                f.write(block[i % 4096:] + block[:i % 4096])
        # The tree on disk first, so that the recorded sync writes the archive.
        subprocess.run(['sync'], timeout=120)

    def stats(self, tmp, log):
        st = os.stat(os.path.join(tmp, 'out.tar')) if os.path.exists(
            os.path.join(tmp, 'out.tar')) else None
        return '%d MiB archived' % (st.st_size >> 20) if st else 'no archive'


class Fio(Case):
    name = 'fio'
    script = 'fio.sh'
    threads = 4
    needs = ('fio',)

    def stats(self, tmp, log):
        try:
            js = json.loads(load_out(tmp))
            w = js['jobs'][0]['write']
            return '%.0f write IOPS, fsync+write avg %.2f ms' % (
                w['iops'], js['jobs'][0]['sync']['lat_ns']['mean'] / 1e6
                if 'sync' in js['jobs'][0] else w['lat_ns']['mean'] / 1e6)
        except (ValueError, KeyError, IndexError):
            return '?'


CASES = {c.name: c for c in (MariaDB(), Nginx(), Memcached(), TarSync(), Fio())}
