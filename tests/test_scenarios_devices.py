#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Exact-number scenarios of devices as pseudo-threads: hard and soft
interrupts, timers, NICs, disks, and the service threads that wait for them:
hand-built kernel traces (tests/wperf_scenario.py) through the real C plugin
(sink.wperf.knots, filter.wperf.waits), exact numbers derived by hand
(tests/scenario_base.py).

Run: WPERF_PLUGIN_DIR=build/plugin /usr/bin/python3 tests/test_scenarios_devices.py
"""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from scenario_base import DISK, Base, segments_of  # noqa: E402
from wperf_scenario import (MS, S, US, SOFTIRQ, RWBS_DISCARD, Scenario,  # noqa: E402
                            run_knots_text, run_segments)



def hardirq():
    """X (201) runs on cpu0 all along. W (202, cpu1) sleeps at 1 s; at 2 s an
    interrupt (irq 24, "virtio0") on cpu0 wakes it at 2 s + 1 us; W runs at
    2 s + 3 us. V (203, cpu2) sleeps at 1 s and is woken at 2.5 s + 1 us from
    a TASKLET softirq on cpu0. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, W, V = s.thread(201, 'X'), s.thread(202, 'W'), s.thread(203, 'V')
    s.run(0, 0, X)
    s.run(0, 1, W)
    s.run(0, 2, V)
    s.sleep(1 * S, 1, W)
    s.sleep(1 * S, 2, V)
    s.irq_entry(2 * S, 0, 24, 'virtio0')
    s.wake(2 * S + 1 * US, 0, W, target_cpu=1)
    s.irq_exit(2 * S + 2 * US, 0, 24)
    s.run(2 * S + 3 * US, 1, W)
    s.softirq_entry(2500 * MS, 0, SOFTIRQ['TASKLET'])
    s.wake(2500 * MS + 1 * US, 0, V, target_cpu=2)
    s.softirq_exit(2500 * MS + 2 * US, 0, SOFTIRQ['TASKLET'])
    s.run(2500 * MS + 3 * US, 2, V)
    return s


def timers():
    """X (301) runs on cpu0 all along. T1 (302, cpu1), T2 (303, cpu2) and
    T3 (304, cpu3) sleep at 1 s. On cpu0: TIMER softirq wakes T1 at
    2 s + 1 us; an hrtimer expiry wakes T2 at 2.5 s + 1 us; an HRTIMER
    softirq wakes T3 at 2.7 s + 1 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=4, end=3 * S)
    X, T1, T2, T3 = s.threads(301, 'X', 'T1', 'T2', 'T3')
    s.running(X, T1, T2, T3)
    for cpu, t in ((1, T1), (2, T2), (3, T3)):
        s.sleep(1 * S, cpu, t)
    s.softirq_entry(2 * S, 0, SOFTIRQ['TIMER'])
    s.wake(2 * S + 1 * US, 0, T1, target_cpu=1)
    s.softirq_exit(2 * S + 2 * US, 0, SOFTIRQ['TIMER'])
    s.run(2 * S + 3 * US, 1, T1)
    s.hrtimer_entry(2500 * MS, 0)
    s.wake(2500 * MS + 1 * US, 0, T2, target_cpu=2)
    s.hrtimer_exit(2500 * MS + 2 * US, 0)
    s.run(2500 * MS + 3 * US, 2, T2)
    s.softirq_entry(2700 * MS, 0, SOFTIRQ['HRTIMER'])
    s.wake(2700 * MS + 1 * US, 0, T3, target_cpu=3)
    s.softirq_exit(2700 * MS + 2 * US, 0, SOFTIRQ['HRTIMER'])
    s.run(2700 * MS + 3 * US, 3, T3)
    return s


def disk():
    """W (401, cpu0) issues a 4 KiB write to 8:0 at 1 s and sleeps (D). On
    cpu1, where X (402) runs, irq 25 ("virtio1") enters at 1.5 s, the request
    completes at 1.5 s + 1 us, W is woken at 1.5 s + 2 us, the handler exits
    at 1.5 s + 3 us; W runs at 1.5 s + 4 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=2, end=3 * S)
    W, X = s.thread(401, 'W'), s.thread(402, 'X')
    s.run(0, 0, W)
    s.run(0, 1, X)
    s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
    return s


class TestHardIrq(Base):
    """W's wait [1 s, 2 s + 1 us] is woken inside irq 24's handler on cpu0:
    W -> irq:24:virtio0 = 1 000 001 000 ns, not W -> X. V's wait
    [1 s, 2.5 s + 1 us] is woken in a TASKLET softirq: V -> softirq vertex."""

    def test_report(self):
        r = self.knots(hardirq())
        X, W, V = r.tid(201), r.tid(202), r.tid(203)
        irq = r.vid(name='irq:24:virtio0')
        self.assertEqual(r.vertices[irq]['kind'], 'irq')
        self.assertEdge(r, W, irq, 1 * S + 1 * US, direct=1 * S + 1 * US, count=1)
        self.assertFalse(r.has_edge(W, X), 'W must not wait for the interrupted X: '
                         + r.describe_edges())
        self.assertEqual(r.thread(202)['waiting_ns']['irq'], 1 * S + 1 * US)
        self.assertEqual(r.thread(202)['waiting_ns']['thread'], 0)
        self.assertEqual(r.thread(202)['runnable_ns'], 2 * US)
        sw = [v for v in r.js['vertices'] if v['kind'] == 'softirq']
        self.assertEqual(len(sw), 1, r.describe_vertices())
        self.assertTrue(sw[0]['name'].lower().startswith('softirq:tasklet'), sw[0]['name'])
        self.assertEdge(r, V, sw[0]['id'], 1500 * MS + 1 * US, count=1)
        self.assertFalse(r.has_edge(V, X))
        self.assertEqual(r.thread(203)['waiting_ns']['softirq'], 1500 * MS + 1 * US)

    def test_segments(self):
        out = run_segments(hardirq())
        for tid in (201, 202, 203):
            self.assertTiled(out, tid, 0, 3 * S)
        w = [s for s in segments_of(out, 202) if s['state'] == 'waiting']
        self.assertEqual(len(w), 1)
        self.assertEqual((w[0]['waker_name'], w[0]['waker_kind'], w[0]['duration']),
                         ('irq:24:virtio0', 'irq', 1 * S + 1 * US))


class TestTimer(Base):
    """T1 -> timer 1 s + 1 us (TIMER softirq), T2 -> timer 1.5 s + 1 us
    (hrtimer expiry), T3 -> timer 1.7 s + 1 us (HRTIMER softirq); none waits
    for X; timer is a category: no knot or sink contains T1..T3 or timer."""

    def test_report(self):
        r = self.knots(timers())
        X, T1, T2, T3 = (r.tid(t) for t in (301, 302, 303, 304))
        timer = r.vid(kind='timer')
        self.assertEqual(r.vertices[timer]['name'], 'timer')
        self.assertEdge(r, T1, timer, 1 * S + 1 * US, direct=1 * S + 1 * US, count=1)
        self.assertEdge(r, T2, timer, 1500 * MS + 1 * US, direct=1500 * MS + 1 * US, count=1)
        self.assertEdge(r, T3, timer, 1700 * MS + 1 * US, direct=1700 * MS + 1 * US, count=1)
        for t in (T1, T2, T3):
            self.assertFalse(r.has_edge(t, X), r.describe_edges())
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual(r.thread(302)['waiting_ns']['timer'], 1 * S + 1 * US)
        self.assertEqual(r.thread(303)['waiting_ns']['timer'], 1500 * MS + 1 * US)
        for k in r.js['knots']:
            for m in (T1, T2, T3, timer):
                self.assertNotIn(m, k['members'], r.describe_knots())


def softirq_daemon():
    """cc1 (501) runs on cpu0 all along. ksoftirqd/0 (3) runs on cpu1 and
    sleeps at 0.5 s. At 1 s an RCU softirq on cpu0 raises itself again and
    exits; at 1 s + 3 us, past its softirq_exit (the tail of __do_softirq),
    ksoftirqd/0 is woken; it runs at 1 s + 4 us and sleeps at 1.5 s. At 2 s
    an RCU softirq runs (nothing stays pending) and ksoftirqd/0 is woken at
    2 s + 2 us, runs at 2 s + 3 us. W (502, cpu2) sleeps at 1 s; at 2.5 s
    irq 24 raises TIMER on cpu0, and W is woken there at 2.5 s + 3 us, after
    the handler, and runs at 2.5 s + 4 us. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, K, W = s.thread(501, 'cc1'), s.thread(3, 'ksoftirqd/0'), s.thread(502, 'W')
    s.running(X, K, W)
    s.sleep(500 * MS, 1, K)
    s.softirq_entry(1 * S, 0, SOFTIRQ['RCU'])
    s.softirq_raise(1 * S + 1 * US, 0, SOFTIRQ['RCU'])
    s.softirq_exit(1 * S + 2 * US, 0, SOFTIRQ['RCU'])
    s.wake(1 * S + 3 * US, 0, K, target_cpu=1)
    s.run(1 * S + 4 * US, 1, K)
    s.sleep(1500 * MS, 1, K)
    s.sleep(1 * S, 2, W)
    s.softirq_entry(2 * S, 0, SOFTIRQ['RCU'])
    s.softirq_exit(2 * S + 1 * US, 0, SOFTIRQ['RCU'])
    s.wake(2 * S + 2 * US, 0, K, target_cpu=1)
    s.run(2 * S + 3 * US, 1, K)
    s.irq_entry(2500 * MS, 0, 24, 'virtio0')
    s.softirq_raise(2500 * MS + 1 * US, 0, SOFTIRQ['TIMER'])
    s.irq_exit(2500 * MS + 2 * US, 0, 24)
    s.wake(2500 * MS + 3 * US, 0, W, target_cpu=2)
    s.run(2500 * MS + 4 * US, 2, W)
    return s


class TestSoftirqDaemonWaitsForSoftirqs(Base):
    """ksoftirqd/0's wait [0.5 s, 1 s + 3 us] ends when __do_softirq leaves
    RCU pending: ksoftirqd/0 -> softirq:RCU = 500 003 000 ns, not -> cc1,
    which it interrupted. Its wait [1.5 s, 2 s + 2 us], with nothing
    pending, keeps the method's rule: -> cc1 = 500 002 000 ns. Only
    ksoftirqd is woken for pending softirqs: W -> cc1 = 1 500 003 000 ns
    although TIMER is pending when W is woken."""

    def test_report(self):
        r = self.knots(softirq_daemon())
        X, K, W = r.tid(501), r.tid(3), r.tid(502)
        rcu = r.vid(name='softirq:RCU')
        self.assertEdge(r, K, rcu, 500 * MS + 3 * US, direct=500 * MS + 3 * US, count=1)
        self.assertEdge(r, K, X, 500 * MS + 2 * US, direct=500 * MS + 2 * US, count=1)
        self.assertEdge(r, W, X, 1500 * MS + 3 * US, direct=1500 * MS + 3 * US, count=1)
        self.assertEqual(len(r.js['edges']), 3, r.describe_edges())
        self.assertEqual(r.thread(3)['waiting_ns']['softirq'], 500 * MS + 3 * US)

    def test_without_raise_events(self):
        # A trace without irq_softirq_raise: the running thread, as before.
        scn = softirq_daemon()
        scn.events = [e for e in scn.events if e[3] != 'irq_softirq_raise']
        r = self.knots(scn)
        X, K = r.tid(501), r.tid(3)
        self.assertEdge(r, K, X, 1 * S + 5 * US, direct=1 * S + 5 * US, count=2)
        self.assertFalse(any(v['name'] == 'softirq:RCU' for v in r.js['vertices']),
                         r.describe_vertices())


def loopback():
    """A client C (701, cpu0) and a server V (702, cpu1) over loopback,
    and a packet from a real NIC. V sleeps at 0. At 100 ms C sends on lo:
    it raises NET_RX, net_dev_xmit(lo), and the softirq runs at once in
    C's context (do_softirq from local_bh_enable), netif_receive_skb(lo),
    and wakes V. C sleeps at 150 ms; at 300 ms eth0's irq 30 raises NET_RX
    on cpu0, the softirq receives on eth0 and wakes C. V sleeps at 400 ms;
    at 500 ms C sends on lo again, is preempted by ksoftirqd/0 (3) at
    510 ms, which runs the softirq and wakes V at 520 ms. Trace [0, 1 s]."""
    s = Scenario(ncpus=2, end=1 * S)
    C, V, K = s.thread(701, 'client'), s.thread(702, 'server'), s.thread(3, 'ksoftirqd/0')
    s.run(0, 0, C)
    s.run(0, 1, V)
    s.sleep(0, 1, V)
    s.softirq_raise(100 * MS, 0, SOFTIRQ['NET_RX'])
    s.net_xmit(100 * MS + 1 * US, 0, 'lo', 1000)
    s.softirq_entry(100 * MS + 2 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(100 * MS + 3 * US, 0, 'lo', 1000)
    s.wake(100 * MS + 4 * US, 0, V, target_cpu=1)
    s.softirq_exit(100 * MS + 5 * US, 0, SOFTIRQ['NET_RX'])
    s.run(100 * MS + 10 * US, 1, V)
    s.sleep(150 * MS, 0, C)
    s.irq_entry(300 * MS, 0, 30, 'virtio0-input.0')
    s.softirq_raise(300 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.irq_exit(300 * MS + 2 * US, 0, 30)
    s.softirq_entry(300 * MS + 3 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(300 * MS + 4 * US, 0, 'eth0', 1500)
    s.wake(300 * MS + 5 * US, 0, C)
    s.softirq_exit(300 * MS + 6 * US, 0, SOFTIRQ['NET_RX'])
    s.run(300 * MS + 10 * US, 0, C)
    s.sleep(400 * MS, 1, V)
    s.softirq_raise(500 * MS, 0, SOFTIRQ['NET_RX'])
    s.net_xmit(500 * MS + 1 * US, 0, 'lo', 1000)
    s.preempt(510 * MS, 0, C, K)
    s.softirq_entry(510 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.net_recv(510 * MS + 2 * US, 0, 'lo', 1000)
    s.wake(520 * MS, 0, V, target_cpu=1)
    s.softirq_exit(520 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.run(520 * MS + 10 * US, 1, V)
    return s


class TestLoopbackSender(Base):
    """Over loopback the sender wakes the receiver: the receive softirq
    runs right after loopback_xmit(), on the sender's CPU, in its context
    or ksoftirqd's (wperf-analysis(7), Network interfaces). V -> C =
    100 ms + 4 us + 120 ms, whichever context ran the softirq; nothing
    waits on nic:lo. A packet from eth0 (raised in its hard irq) stays the
    NIC's: C -> nic:eth0 = 150 ms + 5 us."""

    def test_report(self):
        r = self.knots(loopback())
        C, V = r.tid(701), r.tid(702)
        eth0 = r.vid(name='nic:eth0')
        self.assertEdge(r, V, C, 220 * MS + 4 * US, direct=220 * MS + 4 * US, count=2)
        self.assertEdge(r, C, eth0, 150 * MS + 5 * US, direct=150 * MS + 5 * US, count=1)
        lo = [v['id'] for v in r.js['vertices'] if v['name'] == 'nic:lo']
        self.assertFalse([e for e in r.js['edges'] if e['to'] in lo], r.describe_edges())

    def test_without_net_events(self):
        # Without net events the device is unknown: the softirq's `net`.
        scn = loopback()
        scn.events = [e for e in scn.events if e[3] not in ('net_dev_xmit',
                                                            'netif_receive_skb')]
        r = self.knots(scn)
        net = r.vid(name='net')
        self.assertEdge(r, r.tid(702), net, 220 * MS + 4 * US, count=2)


def veth_pair():
    """A client C (701, cpu0) and a server V (702, cpu1) in two network
    namespaces joined by a veth pair. V sleeps at 0. At 100 ms C sends a
    packet (skb A) through veth0: veth_xmit() queues it on cpu0's backlog,
    net_dev_xmit(veth0) follows, and the NET_RX softirq, run at once in
    C's context, receives skb A on veth1 and wakes V. At 300 ms C sends
    skb B through eth0 and sleeps at 310 ms; at 400 ms eth0's irq brings
    a packet whose skb is B again (the driver recycled it) and wakes C.
    Trace [0, 1 s]."""
    s = Scenario(ncpus=2, end=1 * S)
    C, V = s.thread(701, 'client'), s.thread(702, 'server')
    s.run(0, 0, C)
    s.run(0, 1, V)
    s.sleep(0, 1, V)
    s.softirq_raise(100 * MS, 0, SOFTIRQ['NET_RX'])
    s.ev(100 * MS + 1 * US, 0, 'net_dev_xmit', skbaddr=0xffff888000a00000, rc=0, len=1000,
         name='veth0')
    s.softirq_entry(100 * MS + 2 * US, 0, SOFTIRQ['NET_RX'])
    s.ev(100 * MS + 3 * US, 0, 'netif_receive_skb', skbaddr=0xffff888000a00000, len=1000,
         name='veth1')
    s.wake(100 * MS + 4 * US, 0, V, target_cpu=1)
    s.softirq_exit(100 * MS + 5 * US, 0, SOFTIRQ['NET_RX'])
    s.run(100 * MS + 10 * US, 1, V)
    s.ev(300 * MS, 0, 'net_dev_xmit', skbaddr=0xffff888000b00000, rc=0, len=1500, name='eth0')
    s.sleep(310 * MS, 0, C)
    s.irq_entry(400 * MS, 0, 30, 'eth0-input.0')
    s.softirq_raise(400 * MS + 1 * US, 0, SOFTIRQ['NET_RX'])
    s.irq_exit(400 * MS + 2 * US, 0, 30)
    s.softirq_entry(400 * MS + 3 * US, 0, SOFTIRQ['NET_RX'])
    s.ev(400 * MS + 4 * US, 0, 'netif_receive_skb', skbaddr=0xffff888000b00000, len=1500,
         name='eth0')
    s.wake(400 * MS + 5 * US, 0, C)
    s.softirq_exit(400 * MS + 6 * US, 0, SOFTIRQ['NET_RX'])
    s.run(400 * MS + 10 * US, 0, C)
    return s


class TestVethSender(Base):
    """Between network namespaces the thread that sent a packet wakes the
    one its receive on the veth peer wakes (the same skb, sent through
    veth0 and received on veth1 on the same CPU: wperf-analysis(7),
    Network interfaces): V -> C = 100 ms + 4 us, nothing waits on
    nic:veth1. A real NIC's recycled skb pairs nothing: C -> nic:eth0 =
    90 ms + 5 us."""

    def test_report(self):
        r = self.knots(veth_pair())
        C, V = r.tid(701), r.tid(702)
        self.assertEdge(r, V, C, 100 * MS + 4 * US, direct=100 * MS + 4 * US, count=1)
        self.assertEdge(r, C, r.vid(name='nic:eth0'), 90 * MS + 5 * US,
                        direct=90 * MS + 5 * US, count=1)
        veth = [v['id'] for v in r.js['vertices'] if v['name'].startswith('nic:veth')]
        self.assertFalse([e for e in r.js['edges'] if e['to'] in veth], r.describe_edges())


def nic_receive(s, t, cpu, dev, woken, irq=30):
    """A packet from dev, its hard irq raising NET_RX on cpu, whose softirq
    receives it and wakes `woken` 5 us after t."""
    s.irq_entry(t, cpu, irq, dev + '-input.0')
    s.softirq_raise(t + 1 * US, cpu, SOFTIRQ['NET_RX'])
    s.irq_exit(t + 2 * US, cpu, irq)
    s.softirq_entry(t + 3 * US, cpu, SOFTIRQ['NET_RX'])
    s.net_recv(t + 4 * US, cpu, dev, 1500)
    s.wake(t + 5 * US, cpu, woken)
    s.softirq_exit(t + 6 * US, cpu, SOFTIRQ['NET_RX'])


class TestSmallerWaitsRow(Base):
    """A downloader W (801) waits for eth0 [100 ms, 900 ms] and twice for
    eth1, 5 ms each ([950, 955] and [960, 965] ms), under the noise floor
    (1% of 2 s = 20 ms); a busy thread B (802) runs on cpu1. The sink
    nic:eth0's table shows W -> nic:eth0 800 ms + 5 us, and the row
    "W -> smaller nic waits" the 10 ms + 10 us of the two eth1 waits: the
    threads table's w:nic for W (810 ms) is their sum."""

    def scenario(self):
        s = Scenario(ncpus=2, end=2 * S)
        W, B = s.thread(801, 'downloader'), s.thread(802, 'busy')
        s.run(0, 0, W)
        s.run(0, 1, B)
        for begin, end, dev, irq in ((100 * MS, 900 * MS, 'eth0', 30),
                                     (950 * MS, 955 * MS, 'eth1', 31),
                                     (960 * MS, 965 * MS, 'eth1', 31)):
            s.sleep(begin, 0, W)
            nic_receive(s, end, 0, dev, W, irq=irq)
            s.run(end + 10 * US, 0, W)
        return s

    def test_rows_add_up(self):
        r = self.knots(self.scenario())
        w, eth0, eth1 = r.tid(801), r.vid(name='nic:eth0'), r.vid(name='nic:eth1')
        self.assertEdge(r, w, eth0, 800 * MS + 5 * US, direct=800 * MS + 5 * US, count=1)
        self.assertEdge(r, w, eth1, 10 * MS + 10 * US, direct=10 * MS + 10 * US, count=2)
        text = run_knots_text(self.scenario())
        self.assertRegex(text, r'\n  downloader \(801\) -> nic:eth0 +800 ms +800 ms +40\.0% +1 ')
        self.assertRegex(text, r'\n  downloader \(801\) -> smaller nic waits +10\.0 ms +10\.0 ms '
                         r'+0\.5% +2  1 edge below the noise floor\n')
        self.assertRegex(text, r'\n  downloader \(801\) .* 810ms +- +- +-\n')


def untraced_timers(timer_events=False):
    """A trace without timer expiry events (iscsid's timeouts in
    ref-basic-kernel-analysis). dd (801) runs on cpu0 all along. T (802,
    cpu1) sleeps at 0 and is woken at 1 s from cpu1's idle task (a timer
    the trace does not show: untraced-interrupt), runs, sleeps at 1.1 s and
    is woken at 2.1 s on cpu0, where dd runs: T -> dd 1 s, which may be the
    same timer firing on a busy CPU. U (803, cpu2) sleeps at 0 and is woken
    by dd at 0.5 s (a wakeup of dd's own; U is never woken by anything
    unseen). With timer_events, an hrtimer expiry elsewhere (cpu2, 2.5 s)
    says the trace records them. Trace [0, 3 s]."""
    s = Scenario(ncpus=3, end=3 * S)
    X, T, U = s.threads(801, 'dd', 'iscsid', 'U')
    s.running(X, T, U)
    s.sleep(0, 1, T)
    s.sleep(0, 2, U)
    s.wake(500 * MS, 0, U, target_cpu=2)
    s.run(500 * MS, 2, U)
    s.wake(1 * S, 1, T)
    s.run(1 * S, 1, T)
    s.sleep(1100 * MS, 1, T)
    s.wake(2100 * MS, 0, T, target_cpu=1)
    s.run(2100 * MS, 1, T)
    if timer_events:
        s.ev(2500 * MS, 2, 'timer_hrtimer_expire_entry', hrtimer=1, now=2500 * MS, function=2)
        s.ev(2500 * MS + 1 * US, 2, 'timer_hrtimer_expire_exit', hrtimer=1)
    return s


class TestUntracedTimers(Base):
    """Without timer expiry events, T -> dd (T is also woken by interrupts
    the trace does not show) may be a timer charged to the thread it hit:
    JSON may_be_timer, the text marks the row and says why under the table
    and in Data quality. U -> dd (U never woken unseen) is not marked. With
    timer events recorded nothing is marked (wperf-analysis(7), Untraced
    timers)."""

    def test_marked(self):
        r = self.knots(untraced_timers())
        X, T, U = r.tid(801), r.tid(802), r.tid(803)
        self.assertFalse(r.js['quality']['has_timer_events'])
        self.assertTrue(self.assertEdge(r, T, X, 1 * S)['may_be_timer'])
        self.assertFalse(self.assertEdge(r, U, X, 500 * MS)['may_be_timer'])
        text = run_knots_text(untraced_timers())
        row = [ln for ln in text.splitlines() if ln.strip().startswith('iscsid (802) -> dd')]
        self.assertTrue(row and row[0].endswith('(timer?)'), text)
        self.assertIn('(timer?) the trace has no timer expiry events', text)
        self.assertIn('no timer expiry events (hrtimer_expire, timer_expire)', text)
        self.assertIn('1 edge marked (timer?)', ' '.join(text.split()))
        # The page marks the edge too, with what it means.
        html = run_knots_text(untraced_timers(), format='html')
        self.assertIn('<span class="timer">(timer?) the trace has no timer expiry events',
                      html)

    def test_with_timer_events(self):
        r = self.knots(untraced_timers(timer_events=True))
        self.assertTrue(r.js['quality']['has_timer_events'])
        self.assertFalse([e for e in r.js['edges'] if e['may_be_timer']], r.describe_edges())
        self.assertNotIn('(timer?)', run_knots_text(untraced_timers(timer_events=True)))


def service_threads():
    """sleep (601, cpu0) waits for Y (602, cpu2) over [1 s, 2 s]; at 2.5 s
    it wakes migration/0 (9, cpu1), asleep since 0.5 s (an exec asking to
    migrate). Z (603, cpu3) waits for rcuop/0 (10, cpu4) over [1 s, 1.5 s]
    (a synchronize_rcu()). true (604, cpu5) runs all along and wakes
    rcu_sched (11, cpu6), asleep since 0.3 s, at 2.8 s (a call_rcu()).
    Trace [0, 3 s]."""
    s = Scenario(ncpus=7, end=3 * S)
    X, M, Y = s.thread(601, 'sleep'), s.thread(9, 'migration/0'), s.thread(602, 'Y')
    Z, R = s.thread(603, 'Z'), s.thread(10, 'rcuop/0')
    W, G = s.thread(604, 'true'), s.thread(11, 'rcu_sched')
    s.running(X, M, Y, Z, R, W, G)
    s.sleep(300 * MS, 6, G)
    s.sleep(500 * MS, 1, M)
    s.sleep(1 * S, 0, X)
    s.sleep(1 * S, 3, Z)
    s.wake(1500 * MS, 4, Z, target_cpu=3)
    s.run(1500 * MS, 3, Z)
    s.wake(2 * S, 2, X, target_cpu=0)
    s.run(2 * S, 0, X)
    s.wake(2500 * MS, 0, M, target_cpu=1)
    s.run(2500 * MS, 1, M)
    s.wake(2800 * MS, 5, G, target_cpu=6)
    s.run(2800 * MS, 6, G)
    return s


class TestServiceThreadsWaitForWork(Base):
    """migration/0's wait [0.5 s, 2.5 s] ends when sleep gives it work:
    the edge migration/0 -> sleep (2 s) is in the graph but is no
    dependency, so sleep is no sink (nor is true, for rcu_sched's 2.5 s),
    and the wait does not cascade
    (sleep -> Y stays 1 s: cascaded, the overlap [1 s, 2 s] would add
    1 s). Waits on a service thread count: Z -> rcuop/0 makes rcuop/0 a
    sink (0.5 s)."""

    def test_report(self):
        r = self.knots(service_threads())
        X, M, Y, Z, R = (r.tid(t) for t in (601, 9, 602, 603, 10))
        self.assertEdge(r, M, X, 2 * S, direct=2 * S, count=1)
        self.assertEdge(r, X, Y, 1 * S, direct=1 * S, count=1)
        self.assertEdge(r, Z, R, 500 * MS, direct=500 * MS, count=1)
        self.assertEdge(r, r.tid(11), r.tid(604), 2500 * MS, count=1)
        sinks = [(k['members'], k['weight_ns']) for k in r.knots('sink')]
        self.assertEqual(sinks, [([Y], 1 * S), ([R], 500 * MS)], r.describe_knots())
        self.assertEqual(r.knots('knot'), [], r.describe_knots())
        r = self.knots(service_threads(), pids='601')
        sinks = [(k['members'], k['weight_ns']) for k in r.knots('sink')]
        self.assertEqual(sinks, [([Y], 1 * S)], r.describe_knots())

    def test_text(self):
        text = run_knots_text(service_threads())
        self.assertNotIn('migration/0 (9) ->', text)
        self.assertIn('ignored for knots: timer, unseen, too light, kernel idle)', text)


class TestDisk(Base):
    """W -> disk = its wait [1 s, 1.5 s + 2 us] = 500 002 000 ns.
    The request is in flight [1 s, 1.5 s + 1 us] (500 001 000 ns); the disk
    is idle for the rest of [0, 3 s]: disk -> W = 2 499 999 000 ns (W issued
    all the bytes), count 1 request. Knot {W, disk}."""

    def test_report(self):
        r = self.knots(disk())
        W, X = r.tid(401), r.tid(402)
        d = r.vid(kind='disk')
        self.assertTrue(r.vertices[d]['name'].startswith('disk:'), r.vertices[d]['name'])
        if 'busy_ns' in r.vertices[d]:
            self.assertEqual(r.vertices[d]['busy_ns'], 500_001_000)
            self.assertEqual(r.vertices[d]['bytes'], 4096)
        self.assertEdge(r, W, d, 500_002_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_499_999_000, count=1)
        self.assertFalse(r.has_edge(W, X), r.describe_edges())
        self.assertFalse(any(v['kind'] == 'irq' and r.has_edge(W, v['id'])
                             for v in r.js['vertices']), r.describe_edges())
        self.assertEqual(r.thread(401)['waiting_ns']['disk'], 500_002_000)
        knots = r.knots('knot')
        self.assertEqual(len(knots), 1, r.describe_knots())
        self.assertEqual(knots[0]['members'], sorted([W, d]))
        self.assertEqual(knots[0]['weight_ns'], 500_002_000 + 2_499_999_000)
        self.assertEqual(r.js['quality']['unmatched_block_completions'], 0)

    def test_classified(self):
        """The sink classifies the knot once and every writer says it:
        blocking I/O, decided by the disk's evidence (W waits for it
        500 002 000 ns, it waits for W 2 499 999 000 ns), and no CPU wait."""
        r = self.knots(disk())
        c = r.knots('knot')[0]['classification']
        self.assertEqual(c['class'], 'blocking_io')
        self.assertEqual([(e['kind'], e['a_ns'], e['b_ns'], e['decides']) for e in c['evidence']],
                         [('device', 500_002_000, 2_499_999_000, True),
                          ('cpu_demand', 0, 500_002_000, False)])
        text = run_knots_text(disk())
        self.assertIn('\n  Looks like blocking I/O: threads wait for a device that waits '
                      'for them\n    - disk:8:0 is a member: the threads wait for it '
                      '500 ms, and it waits for them (idle) 2.50 s\n', text)

    def test_segments(self):
        out = run_segments(disk())
        self.assertTiled(out, 401, 0, 3 * S)
        w = [s for s in segments_of(out, 401) if s['state'] == 'waiting']
        self.assertEqual(len(w), 1)
        self.assertEqual((w[0]['waker_kind'], w[0]['start'], w[0]['duration']),
                         ('disk', 1 * S, 500_002_000))


class TestDiskZeroByteIssuer(Base):
    """The disk scenario plus K (403, cpu1 instead of X), which issues a
    0-byte flush at 2 s completed at 2.1 s (irq on cpu1, nobody woken) and
    never waits. In flight: [1 s, 1.5 s + 1 us] and [2 s, 2.1 s]; idle
    3 s - 500 001 000 - 100 000 000 = 2 399 999 000 ns, all of it W's (W
    issued all the bytes, K none: wperf-method(7) §5 distributes by bytes). K gets
    no edge from the disk (a 0 ns wait is no wait), so {W, disk} stays a
    knot."""

    def scenario(self):
        s = Scenario(ncpus=2, end=3 * S)
        W, K = s.thread(401, 'W'), s.thread(403, 'K')
        s.run(0, 0, W)
        s.run(0, 1, K)
        s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
        s.block_issue(2 * S, 1, K, DISK, 0, 0)
        s.irq_entry(2100 * MS, 1, 25, 'virtio1')
        s.block_complete(2100 * MS, 1, DISK, 0, 0)
        s.irq_exit(2100 * MS + 1 * US, 1, 25)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        W, K = r.tid(401), r.tid(403)
        d = r.vid(kind='disk')
        self.assertEdge(r, W, d, 500_002_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_399_999_000)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots], [sorted([W, d])],
                         'knots: %s; edges: %s' % (r.describe_knots(), r.describe_edges()))
        # K issued one request and no byte: either no edge disk -> K, or one
        # of weight 0 that counts K's request (graph.h: count = I/O requests
        # for disk -> thread).
        if r.has_edge(d, K):
            self.assertEdge(r, d, K, 0, direct=0, count=1)


class TestDiskDiscard(Base):
    """The disk scenario plus K (403, cpu1 instead of X), which issues an
    8 MiB discard (16 384 sectors, rwbs DISCARD) at 2 s completed at
    2.1 s. The discard frees sectors and moves no data: K issued no byte,
    W all of them, so the idle time 3 s - 500 001 000 - 100 000 000 =
    2 399 999 000 ns is all W's, as for the zero-byte flush above (counted
    by its sectors, the discard would take 2048/2049 of it and leave W
    1 171 303 ns), and {W, disk} stays a knot."""

    def scenario(self):
        s = Scenario(ncpus=2, end=3 * S)
        W, K = s.thread(401, 'W'), s.thread(403, 'K')
        s.run(0, 0, W)
        s.run(0, 1, K)
        s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
        s.block_issue(2 * S, 1, K, DISK, 500_000, 16_384, rwbs=RWBS_DISCARD)
        s.irq_entry(2100 * MS, 1, 25, 'virtio1')
        s.block_complete(2100 * MS, 1, DISK, 500_000, 16_384, rwbs=RWBS_DISCARD)
        s.irq_exit(2100 * MS + 1 * US, 1, 25)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        W, K = r.tid(401), r.tid(403)
        d = r.vid(kind='disk')
        self.assertEqual(r.vertices[d]['busy_ns'], 600_001_000)
        self.assertEqual(r.vertices[d]['bytes'], 4096)
        self.assertEdge(r, d, W, 2_399_999_000, count=1)
        self.assertEdge(r, d, K, 0, direct=0, count=1)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots], [sorted([W, d])],
                         'knots: %s; edges: %s' % (r.describe_knots(), r.describe_edges()))


class TestWaitOnADiskWaiter(Base):
    """The disk scenario plus a client C (403, cpu2) that sleeps at 0.5 s
    until W, back from its disk wait, wakes it at 2 s. C -> W = 1.5 s. W's
    disk wait [1 s, 1.5 s + 2 us] lies inside C's wait, so C waits on the
    disk through W (wperf-method(7) §4, §5 "with their cascade"), and so do
    the 2 us W then waited for its idle CPU to run it, which belong to that
    wait (wperf-analysis(7), "The CPUs"): W -> disk = 500 002 000 direct +
    500 004 000 cascaded. Knot {W, disk}; C is not in it (nothing waits on
    C)."""

    def scenario(self):
        s = Scenario(ncpus=3, end=3 * S)
        W, X, C = s.thread(401, 'W'), s.thread(402, 'X'), s.thread(403, 'C')
        s.run(0, 0, W)
        s.run(0, 1, X)
        s.run(0, 2, C)
        s.sleep(500 * MS, 2, C)
        s.disk_wait(1 * S, 0, W, DISK, done=1500 * MS, irq_cpu=1)
        s.wake(2 * S, 0, C, target_cpu=2)
        s.run(2 * S + 1 * US, 2, C)
        return s

    def test_report(self):
        r = self.knots(self.scenario())
        W, C = r.tid(401), r.tid(403)
        d = r.vid(kind='disk')
        self.assertEdge(r, C, W, 1500 * MS, direct=1500 * MS, count=1)
        self.assertEdge(r, W, d, 1_000_006_000, direct=500_002_000, count=1)
        self.assertEdge(r, d, W, 2_499_999_000, count=1)
        knots = r.knots('knot')
        self.assertEqual([k['members'] for k in knots], [sorted([W, d])], r.describe_knots())

    def test_segments(self):
        out = run_segments(self.scenario())
        self.assertTiled(out, 403, 0, 3 * S)
        self.assertSegs(out, 403, [('running', 0, 500 * MS, None, None),
                                   ('waiting', 500 * MS, 1500 * MS, 'W', 500_004_000),
                                   ('runnable', 2 * S, 1 * US, None, None),
                                   ('running', 2 * S + 1 * US, 1 * S - 1 * US, None, None)])


class TestWorkFromADevice(Base):
    """A kworker's wait for work (TASK_IDLE, 128) is no dependency when a
    thread gives it the work, but it is when a disk's completion does:
    fio's fsync waited for the kworker that ran the disk's completion
    work, and the kworker, idle until the disk completed, is the disk's
    path, not a sink of its own. W (101) issues a write at 0.1 s and
    sleeps (D) until K (201, kworker/u8:3) wakes it at 0.5 s + 10 us; K
    sleeps idle from 0.05 s until the disk's completion interrupt at 0.5
    s wakes it; later K sleeps idle again and W wakes it (work queued by
    a thread) at 0.8 s. Trace [0, 1 s]."""

    def scenario(self):
        s = Scenario(ncpus=2, end=1 * S)
        W, K = s.thread(101, 'writer'), s.thread(201, 'kworker/u8:3')
        s.run(0, 0, W)
        s.run(0, 1, K)
        s.sleep(50 * MS, 1, K, state=128)
        s.block_issue(100 * MS, 0, W, DISK, 1000, 8)
        s.sleep(100 * MS, 0, W, state=2)     # D
        s.irq_entry(500 * MS, 1, 25, 'virtio1')
        s.block_complete(500 * MS + 1 * US, 1, DISK, 1000, 8)
        s.wake(500 * MS + 2 * US, 1, K, target_cpu=1)
        s.irq_exit(500 * MS + 3 * US, 1, 25)
        s.run(500 * MS + 4 * US, 1, K)
        s.wake(500 * MS + 10 * US, 1, W, target_cpu=0)
        s.run(500 * MS + 12 * US, 0, W)
        s.sleep(600 * MS, 1, K, state=128)
        s.wake(800 * MS, 0, K, target_cpu=1)
        s.run(800 * MS + 2 * US, 1, K)
        return s

    def test_device_work_is_a_dependency(self):
        r = self.knots(self.scenario())
        W, K, D = r.tid(101), r.tid(201), r.vid(name='disk:8:0')
        kd = r.edge(K, D)
        self.assertEqual((kd['direct_ns'], kd['idle_ns']), (450 * MS + 2 * US, 0))
        wk = r.edge(W, K)
        self.assertEqual(wk['direct_ns'], 400 * MS + 10 * US)
        # Work queued by the writer: a wait for work, kept apart.
        kw = r.edge(K, W)
        self.assertEqual((kw['weight_ns'], kw['idle_ns']), (0, 200 * MS))


if __name__ == '__main__':
    unittest.main(verbosity=2)
