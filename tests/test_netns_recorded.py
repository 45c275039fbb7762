#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A thread woken by a packet another network namespace's thread sent
waits for that thread, recorded for real: a client and a server that
fsyncs each request (tests/workloads/netns-fsync.py), in two network
namespaces this test makes (joined by a veth pair whose ends are named
apart), the server writing to a private disk, recorded with `wperf
record`, reported with the launcher's pid and the processes it started
(follow-forks).

The private disk: the machine's own disk is written by everyone (other
jobs, the recorder's trace), so which of its waits are the server's is
confounded. The test gives the server a disk of its own: a file in
/var/tmp (on the machine's disk: a loop device over a tmpfs file would
complete each flush at once, and its fsync would cost nothing), a
journal-less ext4 made on it by mkfs.ext4, mounted with `mount -o loop`
in a directory of this run. Each choice keeps every request of the
server's fsync the server's own, completed in the block softirq (so the
server waits for disk:loopN, not for a kernel thread): no journal (no
jbd2 thread between it and the disk); inode tables initialised at mkfs,
`noinit_itable` and `no_prefetch_block_bitmaps` (no ext4lazyinit
thread writing or reading); `dioread_lock` (with ext4's default
dioread_nolock, an appending write's unwritten extent is converted at
I/O completion by a kworker of ext4-rsv-conversion, which then wakes
the server: the server waited for kworkers that waited for the
machine's disk, in 3 of 6 runs under load). The loop device is the
kernel's next free one (`mount` retries when a concurrent run takes it
first) and is released by the kernel at unmount (autoclear); the test
removes the recording, the mount, the image and the namespaces when
recording fails or SIGTERM (meson's timeout) stops it, and the mount,
image and namespaces right after recording otherwise; the trace is
written under another directory of /var/tmp, not on the private disk.

- the client waits for the server and the server for the client
  (wperf-analysis(7), Network interfaces: the sender's edge, by skb), and
  neither waits for a `nic:` vertex of the veth pair;
- the client pauses 2 ms at least before each request: the server's
  waits for the next request, ended by the client's packet, are the
  client's, at least one for every other round trip and 1.5 ms each;
- the knot that holds the server holds the client and the private disk
  (`disk:loopN`) too: one knot across the two namespaces, and the
  private disk charges its idle time to the server alone (nobody else
  wrote to it while recording). When other work keeps both cores busy
  so that the client or the server waited for a CPU longer than for
  anything else, the report rightly leads with the CPUs and may find no
  knot: the test then checks that, and that the server waited for its
  disk.

The client and server are found among the report's focus (the
workload's processes): another run of this test recording at the same
time shows in this recording too.

Needs root, tracefs (or lttng-modules), `ip netns`, loop devices
(/dev/loop-control), mkfs.ext4 and mount. Without them: FAIL under
CI=true, else SKIP (exit 77).
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import recording  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'workloads',
                      'netns-fsync.py')
TAG = os.urandom(4).hex()
NS = ('wpxhs' + TAG, 'wpxhc' + TAG)     # this test's own namespaces
OCTET = 1 + int(TAG[:2], 16) % 250
ADDR = '10.232.%d.1' % OCTET
SECONDS = '3'
DISK_MIB = 64


def run(cmd):
    """Run cmd; raise with its output when it fails."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError('%s: %s' % (' '.join(cmd), p.stdout.strip()))
    return p.stdout.strip()


class PrivateDisk:
    """An ext4 filesystem of this run on a loop device of its own, mounted
    in a directory of its own (the module's docstring says why each
    choice). make() builds it, remove() takes down whatever make() got
    to; both touch only this run's image, mount point and the loop
    device the kernel bound to that image."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix='wperf-xh-disk-', dir='/var/tmp')
        self.image = os.path.join(self.dir, 'disk.img')
        self.mnt = os.path.join(self.dir, 'mnt')
        self.dev = None         # /dev/loopN, once mounted

    def make(self):
        os.mkdir(self.mnt, 0o700)
        fd = os.open(self.image, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            os.posix_fallocate(fd, 0, DISK_MIB << 20)
        finally:
            os.close(fd)
        run(['mkfs.ext4', '-q', '-F', '-O', '^has_journal',
             '-E', 'lazy_itable_init=0,nodiscard', self.image])
        run(['mount', '-o', 'loop,dioread_lock,no_prefetch_block_bitmaps,noinit_itable', self.image, self.mnt])
        self.dev = run(['findmnt', '-n', '-o', 'SOURCE', '--mountpoint', self.mnt])
        if not re.fullmatch(r'/dev/loop\d+', self.dev) or \
                self.backing_file() != os.path.realpath(self.image):
            raise RuntimeError('%s is mounted from %s, not from a loop device over %s'
                               % (self.mnt, self.dev, self.image))

    def name(self):
        """The device's name, as /sys/class/block and the report give it."""
        return os.path.basename(self.dev)

    def backing_file(self):
        try:
            with open('/sys/block/%s/loop/backing_file' % self.name()) as f:
                return f.read().strip()
        except OSError:
            return None

    def remove(self):
        if os.path.ismount(self.mnt):
            p = subprocess.run(['umount', self.mnt], stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True)
            if p.returncode != 0:
                # Still busy (a workload left behind): detach it now; the
                # kernel frees the loop device when its last user goes.
                print('umount %s: %s; detaching it lazily' % (self.mnt, p.stdout.strip()))
                subprocess.run(['umount', '-l', self.mnt])
        # Autoclear released the device at unmount. A device still bound
        # to this run's image (mount stopped half-way, a busy unmount) is
        # detached; no other is touched.
        if os.path.exists(self.image):
            bound = subprocess.run(['losetup', '-n', '-O', 'NAME', '-j', self.image],
                                   stdout=subprocess.PIPE, text=True).stdout.split()
            for dev in bound:
                subprocess.run(['losetup', '-d', dev])
        if not os.path.ismount(self.mnt):
            shutil.rmtree(self.dir, ignore_errors=True)


def make_namespaces():
    s, c = NS
    for cmd in (['ip', 'netns', 'add', s], ['ip', 'netns', 'add', c],
                ['ip', '-n', s, 'link', 'add', 'xh-s', 'type', 'veth',
                 'peer', 'name', 'xh-c', 'netns', c],
                ['ip', '-n', s, 'addr', 'add', ADDR + '/30', 'dev', 'xh-s'],
                ['ip', '-n', c, 'addr', 'add', '10.232.%d.2/30' % OCTET, 'dev', 'xh-c'],
                ['ip', '-n', s, 'link', 'set', 'xh-s', 'up'],
                ['ip', '-n', c, 'link', 'set', 'xh-c', 'up'],
                ['ip', '-n', s, 'link', 'set', 'lo', 'up'],
                ['ip', '-n', c, 'link', 'set', 'lo', 'up']):
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            remove_namespaces()
            raise RuntimeError('%s: %s' % (' '.join(cmd), p.stdout.strip()))


def remove_namespaces():
    for ns in NS:
        subprocess.run(['ip', 'netns', 'del', ns], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def stop_on_sigterm(signum, frame):
    # meson's timeout sends SIGTERM: unwind, so that the finally blocks
    # remove the recording, the disk and the namespaces.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)    # once: let the cleanup finish
    print('SIGTERM: removing the recording, the private disk and the namespaces',
          flush=True)
    raise SystemExit(128 + signum)


class NetnsRecorded(recording.WperfRecorded):
    COMMAND = None      # set by setUpClass: the server writes to its private disk

    @classmethod
    def setUpClass(cls):
        signal.signal(signal.SIGTERM, stop_on_sigterm)
        cls.disk = PrivateDisk()
        try:
            cls.disk.make()
            cls.COMMAND = [SCRIPT, 'run', NS[0], NS[1], ADDR, SECONDS, cls.disk.mnt]
            try:
                make_namespaces()
                super().setUpClass()
            finally:
                remove_namespaces()
            cls.trace_on_disk = os.stat(cls.tmp).st_dev == os.stat(cls.disk.mnt).st_dev
        except BaseException:
            # unittest calls no tearDownClass after a failed setUpClass.
            if getattr(cls, 'tmp', None):
                recording.remove_recordings(cls.tmp)
            raise
        finally:
            cls.disk.remove()

    def ids(self, js):
        # The focus: this run's workload (another run of this test may be
        # recording at the same time, and every recording sees it too).
        focus = set(js['focus'] or ())

        def find(comm):
            found = [v['id'] for v in js['vertices']
                     if v['kind'] == 'thread' and v.get('comm') == comm and v['id'] in focus]
            self.assertEqual(len(found), 1, '%s: %s' % (comm, found))
            return found[0]
        return find('xh-client'), find('xh-server')

    def private_disk(self, js):
        name = 'disk:' + self.disk.name()
        found = [v['id'] for v in js['vertices'] if v['kind'] == 'disk' and v['name'] == name]
        self.assertEqual(len(found), 1, '%s: %s' % (name, found))
        return found[0]

    def test_knot_across_namespaces(self):
        """The knot that holds the server holds the client and the
        server's private disk: {client, server, disk:loopN}, across the
        two namespaces; the disk's idle time is charged to the server
        alone, and the trace was not written on it."""
        self.assertFalse(self.trace_on_disk, 'the trace was written on the private disk')
        js = self.report('follow-forks=true')
        client, server = self.ids(js)
        disk = self.private_disk(js)
        byid = {v['id']: v for v in js['vertices']}
        findings = ['%s %s' % (k['kind'], [byid[m]['name'] for m in k['members']])
                    for k in js['knots']]
        knots = [k for k in js['knots'] if k['kind'] == 'knot' and server in k['members']]
        cpu = js['cpu'] or {'first': False, 'most_runnable': []}
        if not knots and cpu['first'] and {client, server} & set(cpu['most_runnable']):
            # Both cores busy with other work: the client or the server
            # waited for a CPU longer than for anything else, and the
            # report rightly leads with the CPUs (wperf-analysis(7), The
            # CPUs); the server still waited on its disk.
            self.assertTrue([e for e in js['edges'] if e['from'] == server and e['to'] == disk],
                            'the server does not wait for its disk')
            print('the CPUs first (%s most runnable), no knot: %s'
                  % ([byid[v]['name'] for v in cpu['most_runnable']], findings))
            return
        self.assertTrue(knots, 'no knot holds the server: %s; CPU %s; %d events lost'
                        % (findings, cpu, js['quality']['discarded_events']))
        members = set(knots[0]['members'])
        self.assertLessEqual({client, server, disk}, members,
                             'the knot of the server is %s' % findings)
        # The disk's idle time goes to the threads that gave it bytes to
        # write (a kworker that issued a flush for the server gets a
        # weightless edge): the server alone, if nobody else wrote to it.
        charged = {byid[e['to']]['name'] for e in js['edges']
                   if e['from'] == disk and e['weight_ns'] > 0}
        self.assertEqual(charged, {byid[server]['name']},
                         'the private disk charged its idle time to %s' % charged)

    def test_sender_edges(self):
        js = self.report('follow-forks=true')
        self.assertIn('round trips', self.log)
        client, server = self.ids(js)
        edges = {(e['from'], e['to']): e for e in js['edges']}
        self.assertTrue((client, server) in edges, 'the client does not wait for the server')
        self.assertGreater(edges[(client, server)]['count'], 20)
        self.assertTrue((server, client) in edges, 'the server does not wait for the client')
        veth = {v['id'] for v in js['vertices'] if v['name'] in ('nic:xh-s', 'nic:xh-c')}
        on_veth = [e for e in js['edges'] if e['to'] in veth and e['from'] in (client, server)]
        self.assertFalse(on_veth, 'waits for the veth pair: %s' % on_veth)

    def test_server_waits_out_the_client_pause(self):
        """The client pauses 2 ms before each request: each wait of the
        server for the next request, which the client's packet ends, is
        at least that long, and it is the client's (not the veth's)."""
        js = self.report('follow-forks=true')
        m = re.search(r'^xh-client: (\d+) round trips$', self.log, re.M)
        self.assertTrue(m, self.log[-2000:])
        trips = int(m.group(1))
        client, server = self.ids(js)
        e = [e for e in js['edges'] if e['from'] == server and e['to'] == client]
        self.assertTrue(e, 'the server does not wait for the client')
        self.assertGreaterEqual(e[0]['count'], trips // 2, e[0])
        self.assertGreaterEqual(e[0]['direct_ns'], e[0]['count'] * 1_500_000, e[0])


def why_not():
    for prog in ('ip', 'mkfs.ext4', 'mount', 'umount', 'findmnt', 'losetup'):
        if not shutil.which(prog):
            return '%s is not installed' % prog
    if not os.path.exists('/dev/loop-control'):
        return 'the kernel has no loop devices (/dev/loop-control): the server needs a disk of its own'
    return recording.why_not_wperf_record(recording.wperf_path())


if __name__ == '__main__':
    recording.main(why_not, 'a client and a server in two network namespaces')
