# SPDX-License-Identifier: MIT
"""Hand-built kernel traces for the wperf integration tests.

A *scenario* is a small, readable list of kernel events

    (time_ns, cpu, event_name, {fields})

in the LTTng (lttng-modules 2.13) layout. `ScenarioSource` is a real
babeltrace2 source component (Python bt2) that emits it as LTTng's
source.ctf.fs would: one trace (environment domain=kernel,
tracer_name=lttng-modules), a 1 GHz clock class named "monotonic", one
stream per CPU whose packet context holds `cpu_id`, and one packet per
stream spanning `packets` (default: the scenario's [begin, end]). All
streams go out, in time order, on one output port.

The scenario's `begin` and `end` (when not None) are the range the trace
was cut to, as babeltrace2's --begin/--end (flt.utils.trimmer) cuts one:
its stream beginning and end messages carry those times, and the
analysed range is exactly [begin, end]. With begin=None and end=None the
streams carry no times, as source.ctf.fs's do, and the analysed range is
the first to the last event whatever the packets span.

The helpers at the bottom run real graphs:

    run_knots(scn, **params)     scenario -> sink.wperf.knots (format=json)
                                 -> the parsed JSON report
    run_segments(scn, **params)  scenario -> filter.wperf.waits -> a Python
                                 sink -> the wperf:segment events (dicts)
    write_ctf(scn, dir)          scenario -> sink.ctf.fs (a CTF trace on disk)

The C plugin is looked up in the directory named by $WPERF_PLUGIN_DIR (the
meson build's `plugin/` directory: build/ or build-asan/ alike).

Must run under /usr/bin/python3 (the interpreter that has bt2).
"""

import json
import os
import subprocess
import sys
import tempfile

import bt2

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import report_invariants  # noqa: E402

S = 1_000_000_000
MS = 1_000_000
US = 1_000

# prev_state values (kernels >= 4.14)
TASK_RUNNING = 0
TASK_INTERRUPTIBLE = 1     # S
TASK_UNINTERRUPTIBLE = 2   # D
TASK_PREEMPTED = 256       # R+

# softirq vectors
SOFTIRQ = dict(HI=0, TIMER=1, NET_TX=2, NET_RX=3, BLOCK=4, IRQ_POLL=5,
               TASKLET=6, SCHED=7, HRTIMER=8, RCU=9)


# ---------------------------------------------------------------------------
# Event layouts: (field name, type) in lttng-modules 2.13 order.
# Types: 's8','s32','s64','u32','u64' integers, 'str' string,
# 'arr_s32' dynamic array of s32.
LAYOUTS = {
    'sched_switch': [('prev_comm', 'str'), ('prev_tid', 's32'), ('prev_prio', 's32'),
                     ('prev_state', 's64'), ('next_comm', 'str'), ('next_tid', 's32'),
                     ('next_prio', 's32')],
    'sched_waking': [('comm', 'str'), ('tid', 's32'), ('prio', 's32'), ('target_cpu', 's32')],
    'sched_wakeup': [('comm', 'str'), ('tid', 's32'), ('prio', 's32'), ('target_cpu', 's32')],
    'sched_wakeup_new': [('comm', 'str'), ('tid', 's32'), ('prio', 's32'), ('target_cpu', 's32')],
    'sched_process_fork': [('parent_comm', 'str'), ('parent_tid', 's32'), ('parent_pid', 's32'),
                           ('parent_ns_inum', 'u32'), ('child_comm', 'str'), ('child_tid', 's32'),
                           ('vtids', 'arr_s32'), ('child_pid', 's32'), ('child_ns_inum', 'u32')],
    'sched_process_exit': [('comm', 'str'), ('tid', 's32'), ('prio', 's32')],
    'sched_process_free': [('comm', 'str'), ('tid', 's32'), ('prio', 's32')],
    'irq_handler_entry': [('irq', 's32'), ('name', 'str')],
    'irq_handler_exit': [('irq', 's32'), ('ret', 's32')],
    'irq_softirq_entry': [('vec', 'u32')],
    'irq_softirq_exit': [('vec', 'u32')],
    'irq_softirq_raise': [('vec', 'u32')],
    'net_dev_xmit': [('skbaddr', 'u64'), ('rc', 's32'), ('len', 'u32'), ('name', 'str')],
    'netif_receive_skb': [('skbaddr', 'u64'), ('len', 'u32'), ('name', 'str')],
    # Recorded by many sessions, read by no part of wperf.
    'sched_stat_runtime': [('comm', 'str'), ('tid', 's32'), ('runtime', 'u64'),
                           ('vruntime', 'u64')],
    'timer_hrtimer_expire_entry': [('hrtimer', 'u64'), ('now', 's64'), ('function', 'u64')],
    'timer_hrtimer_expire_exit': [('hrtimer', 'u64')],
    'block_rq_issue': [('dev', 'u32'), ('sector', 'u64'), ('nr_sector', 'u32'),
                       ('bytes', 'u32'), ('tid', 's32'), ('rwbs', 'u32'), ('comm', 'str')],
    'block_rq_complete': [('dev', 'u32'), ('sector', 'u64'), ('nr_sector', 'u32'),
                          ('error', 's32'), ('rwbs', 'u32')],
    'lttng_statedump_process_state': [('tid', 's32'), ('vtid', 's32'), ('pid', 's32'),
                                      ('vpid', 's32'), ('ppid', 's32'), ('vppid', 's32'),
                                      ('name', 'str'), ('type', 's32'), ('mode', 's32'),
                                      ('submode', 's32'), ('status', 's32'), ('cpu', 's32')],
}

RWBS_WRITE = 1      # lttng-modules: RWBS_FLAG_WRITE
RWBS_DISCARD = 1 << 1   # RWBS_FLAG_DISCARD
RWBS_SYNC = 1 << 4


def dev_t(major, minor):
    """A kernel dev_t as lttng-modules records it (major << 20 | minor)."""
    return (major << 20) | minor


class Scenario:
    """A hand-built kernel trace. Times are integers in ns.

    Threads are declared with thread(tid, comm, pid); tid 0 is the idle
    task (swapper/N). Events are kept in insertion order for equal times,
    so write them in causal order.
    """

    def __init__(self, ncpus=2, begin=0, end=None, kernel_release='6.1.0-scenario',
                 packets=None, hostname='scenario', clock_uuid=None):
        self.ncpus = ncpus
        self.hostname = hostname       # the trace environment's
        self.clock_uuid = clock_uuid   # a uuid.UUID (LTTng's boot id), or None
        self.kernel_release = kernel_release   # the trace environment's
        self.begin = begin          # None: the streams' beginnings have no time
        self.end = end              # None: their ends have none
        self.packets = packets      # (begin, end) of every stream's packet
        self.events = []            # (t, seq, cpu, name, fields)
        self.discards = []          # (begin, end, cpu, count): discarded events
        self.comms = {}
        self.pids = {}
        # LTTng's callstack-kernel and callstack-user contexts on every
        # event (event common context), as `lttng add-context -k -t
        # callstack-kernel -t callstack-user` records them. Events give
        # theirs with the special fields _stack_kernel / _stack_user.
        self.callstacks = False
        # Event layouts by name: LAYOUTS, unless a test gives an event
        # another layout (as a tracer wperf does not know would write it).
        self.layouts = dict(LAYOUTS)

    # -- threads -----------------------------------------------------------
    def thread(self, tid, comm, pid=None):
        self.comms[tid] = comm
        self.pids[tid] = tid if pid is None else pid
        return tid

    def threads(self, first_tid, *comms):
        """Threads named comms, with tids first_tid, first_tid + 1, ...:
        their tids."""
        return [self.thread(first_tid + i, comm) for i, comm in enumerate(comms)]

    def running(self, *tids, dumped=False):
        """Each of tids switched in at time 0 on a CPU of its own, the first
        on cpu0, the next on cpu1, ...; dumped: the statedump (on cpu0)
        first says each runs there, so none is of unknown initial state."""
        for cpu, tid in enumerate(tids):
            if dumped:
                self.statedump(0, 0, tid, 6, on_cpu=cpu)
            self.run(0, cpu, tid)

    def comm(self, tid, cpu=0):
        if tid == 0:
            return 'swapper/%d' % cpu
        return self.comms.get(tid, 'task-%d' % tid)

    # -- raw events --------------------------------------------------------
    def ev(self, t, cpu, event_name, /, **fields):
        name = event_name
        if name not in self.layouts:
            raise ValueError('unknown event %s' % name)
        if not 0 <= cpu < self.ncpus:
            raise ValueError('cpu %d out of range (%d CPUs)' % (cpu, self.ncpus))
        self.events.append((int(t), len(self.events), cpu, name, fields))
        return self

    # -- scheduler ---------------------------------------------------------
    def switch(self, t, cpu, prev_tid, next_tid, prev_state=TASK_RUNNING, **stacks):
        """stacks: _stack_kernel=[...], _stack_user=[...] (with callstacks)."""
        return self.ev(t, cpu, 'sched_switch',
                       prev_comm=self.comm(prev_tid, cpu), prev_tid=prev_tid, prev_prio=20,
                       prev_state=prev_state,
                       next_comm=self.comm(next_tid, cpu), next_tid=next_tid, next_prio=20,
                       **stacks)

    def run(self, t, cpu, tid, prev_tid=0):
        """tid is switched in on cpu (prev_tid, default idle, leaves runnable)."""
        return self.switch(t, cpu, prev_tid, tid, TASK_RUNNING)

    def sleep(self, t, cpu, tid, next_tid=0, state=TASK_INTERRUPTIBLE, **stacks):
        """tid blocks (S by default, D with state=2) and next_tid runs."""
        return self.switch(t, cpu, tid, next_tid, state, **stacks)

    def preempt(self, t, cpu, tid, next_tid):
        return self.switch(t, cpu, tid, next_tid, TASK_PREEMPTED)

    def wake(self, t, cpu, tid, target_cpu=None):
        """sched_waking of tid, recorded on cpu (the waker's context)."""
        return self.ev(t, cpu, 'sched_waking', comm=self.comm(tid), tid=tid, prio=20,
                       target_cpu=cpu if target_cpu is None else target_cpu)

    def wakeup_new(self, t, cpu, tid):
        return self.ev(t, cpu, 'sched_wakeup_new', comm=self.comm(tid), tid=tid, prio=20,
                       target_cpu=cpu)

    def fork(self, t, cpu, parent_tid, child_tid, child_pid=None):
        child_pid = child_tid if child_pid is None else child_pid
        self.pids.setdefault(child_tid, child_pid)
        return self.ev(t, cpu, 'sched_process_fork',
                       parent_comm=self.comm(parent_tid), parent_tid=parent_tid,
                       parent_pid=self.pids.get(parent_tid, parent_tid), parent_ns_inum=4026531836,
                       child_comm=self.comm(child_tid), child_tid=child_tid, vtids=[child_tid],
                       child_pid=child_pid, child_ns_inum=4026531836)

    def exit(self, t, cpu, tid):
        return self.ev(t, cpu, 'sched_process_exit', comm=self.comm(tid), tid=tid, prio=20)

    def statedump(self, t, cpu, tid, status, on_cpu=0):
        """lttng_statedump_process_state (status 5 wait, 6 run, 2 wait-cpu)."""
        pid = self.pids.get(tid, tid)
        return self.ev(t, cpu, 'lttng_statedump_process_state', tid=tid, vtid=tid, pid=pid,
                       vpid=pid, ppid=1, vppid=1, name=self.comm(tid), type=0, mode=0,
                       submode=0, status=status, cpu=on_cpu)

    # -- interrupts ----------------------------------------------------------
    def irq_entry(self, t, cpu, irq, name):
        return self.ev(t, cpu, 'irq_handler_entry', irq=irq, name=name)

    def irq_exit(self, t, cpu, irq, ret=1):
        return self.ev(t, cpu, 'irq_handler_exit', irq=irq, ret=ret)

    def softirq_entry(self, t, cpu, vec):
        return self.ev(t, cpu, 'irq_softirq_entry', vec=vec)

    def softirq_exit(self, t, cpu, vec):
        return self.ev(t, cpu, 'irq_softirq_exit', vec=vec)

    def softirq_raise(self, t, cpu, vec):
        return self.ev(t, cpu, 'irq_softirq_raise', vec=vec)

    # -- network -------------------------------------------------------------
    def net_xmit(self, t, cpu, dev, length):
        return self.ev(t, cpu, 'net_dev_xmit', skbaddr=0xffff888000001000, rc=0, len=length,
                       name=dev)

    def net_recv(self, t, cpu, dev, length):
        return self.ev(t, cpu, 'netif_receive_skb', skbaddr=0xffff888000001000, len=length,
                       name=dev)

    def hrtimer_entry(self, t, cpu, hrtimer=0xffff8880deadbeef):
        return self.ev(t, cpu, 'timer_hrtimer_expire_entry', hrtimer=hrtimer, now=t,
                       function=0xffffffff81000000)

    def hrtimer_exit(self, t, cpu, hrtimer=0xffff8880deadbeef):
        return self.ev(t, cpu, 'timer_hrtimer_expire_exit', hrtimer=hrtimer)

    # -- block -----------------------------------------------------------------
    def block_issue(self, t, cpu, tid, dev, sector, nr_sector, rwbs=RWBS_WRITE):
        return self.ev(t, cpu, 'block_rq_issue', dev=dev, sector=sector, nr_sector=nr_sector,
                       bytes=nr_sector * 512, tid=tid, rwbs=rwbs, comm=self.comm(tid))

    def block_complete(self, t, cpu, dev, sector, nr_sector, rwbs=RWBS_WRITE, error=0):
        return self.ev(t, cpu, 'block_rq_complete', dev=dev, sector=sector,
                       nr_sector=nr_sector, error=error, rwbs=rwbs)

    def disk_wait(self, t, cpu, tid, dev, done, irq_cpu):
        """tid issues an 8-sector request (sector 1000) to dev at t on cpu
        and sleeps uninterruptibly until irq 25 (virtio1) on irq_cpu, entered
        at `done`, completes it 1 us later and wakes tid 2 us later; the
        handler returns 3 us after `done` and tid runs on cpu 4 us after."""
        self.block_issue(t, cpu, tid, dev, 1000, 8)
        self.sleep(t, cpu, tid, state=TASK_UNINTERRUPTIBLE)
        self.irq_entry(done, irq_cpu, 25, 'virtio1')
        self.block_complete(done + 1 * US, irq_cpu, dev, 1000, 8)
        self.wake(done + 2 * US, irq_cpu, tid, target_cpu=cpu)
        self.irq_exit(done + 3 * US, irq_cpu, 25)
        self.run(done + 4 * US, cpu, tid)

    # -- lost events -----------------------------------------------------------
    def discard(self, begin, end, cpu, count=0):
        """A discarded-events message on cpu's stream (count 0: unknown),
        delivered before the first event at or after `begin`."""
        self.discards.append((int(begin), int(end), cpu, count))
        return self

    # -- the list --------------------------------------------------------------
    def sorted_events(self):
        return sorted(self.events, key=lambda e: (e[0], e[1]))

    def time_range(self):
        """The analysed range: [begin, end] where the trace was cut, else
        the first or last event."""
        ts = [e[0] for e in self.events]
        begin = self.begin if self.begin is not None else min(ts)
        end = self.end if self.end is not None else max(ts)
        if ts and (min(ts) < begin or max(ts) > end):
            raise ValueError('events outside [begin, end]')
        return begin, end

    def packet_range(self):
        pb, pe = self.packets if self.packets is not None else self.time_range()
        ts = [e[0] for e in self.events]
        if ts and (min(ts) < pb or max(ts) > pe):
            raise ValueError('events outside the packets')
        return pb, pe

    def used_event_names(self):
        return sorted({e[3] for e in self.events})


# The kernel's service threads whose waits are for work, no dependency
# (graph.c, wperf_comm_waits_only_for_work): a mirror for the checks.
SERVICE_THREAD_PREFIXES = ('ksoftirqd/', 'migration/', 'cpuhp/', 'idle_inject/', 'watchdog/',
                           'rcu_', 'rcuc/', 'rcuo')


def waits_only_for_work(vertex):
    """vertex: a report's vertex (dict). Threads by comm, merged vertices
    by name."""
    if vertex['kind'] == 'thread':
        name = vertex.get('comm') or ''
    elif vertex['kind'] == 'virtual':
        name = vertex['name']
    else:
        return False
    return name.startswith(SERVICE_THREAD_PREFIXES) or name == 'watchdogd'


# ---------------------------------------------------------------------------
# The babeltrace2 source component.

def one_wait(ncpus=2, runs_again=3 * S):
    """The smallest trace with a knot-worthy wait: A (101, CPU 0) sleeps
    at 1 s, B (102, CPU 1, always running) wakes it at 3 s, A is switched
    in at `runs_again` (at once by default). Trace [0, 4 s]. The good input
    of the bad-input and reliability tests, which damage it or cut it."""
    s = Scenario(ncpus=ncpus, end=4 * S)
    A, B = s.thread(101, 'A'), s.thread(102, 'B')
    s.run(0, 0, A)
    s.run(0, 1, B)
    s.sleep(1 * S, 0, A)
    s.wake(3 * S, 1, A)
    s.run(runs_again, 0, A)
    return s


def _field_class(tc, kind):
    if kind == 'str':
        return tc.create_string_field_class()
    if kind == 'arr_s32':
        return tc.create_dynamic_array_field_class(
            tc.create_signed_integer_field_class(32))
    if kind == 'arr_u64':
        return tc.create_dynamic_array_field_class(
            tc.create_unsigned_integer_field_class(64))
    signed = kind[0] == 's'
    size = int(kind[1:])
    if signed:
        return tc.create_signed_integer_field_class(size)
    return tc.create_unsigned_integer_field_class(size)


def _set_field(field, kind, value):
    if kind in ('arr_s32', 'arr_u64'):
        field.length = len(value)
        for i, v in enumerate(value):
            field[i] = v
    else:
        field.value = value


class _ScenarioIterator(bt2._UserMessageIterator):
    def __init__(self, config, self_output_port):
        scn = self_output_port.user_data
        comp = self._component
        self._msgs = self._build(comp, scn)
        self._pos = 0

    def _build(self, comp, scn):
        pbegin, pend = scn.packet_range()
        tc = comp._create_trace_class()
        cc = comp._create_clock_class(frequency=1_000_000_000, name='monotonic',
                                      description='Monotonic Clock',
                                      origin_is_unix_epoch=True, uuid=scn.clock_uuid)
        pctx = tc.create_structure_field_class()
        pctx.append_member('cpu_id', tc.create_unsigned_integer_field_class(32))
        ectx = None
        if scn.callstacks:
            ectx = tc.create_structure_field_class()
            ectx.append_member('callstack_kernel', _field_class(tc, 'arr_u64'))
            ectx.append_member('callstack_user', _field_class(tc, 'arr_u64'))
        sc = tc.create_stream_class(
            name='channel0', default_clock_class=cc, packet_context_field_class=pctx,
            event_common_context_field_class=ectx,
            supports_packets=True,
            packets_have_beginning_default_clock_snapshot=True,
            packets_have_end_default_clock_snapshot=True,
            supports_discarded_events=bool(scn.discards),
            discarded_events_have_default_clock_snapshots=bool(scn.discards))
        ecs = {}
        for name in scn.used_event_names():
            payload = tc.create_structure_field_class()
            for fname, kind in scn.layouts[name]:
                payload.append_member(fname, _field_class(tc, kind))
            ecs[name] = sc.create_event_class(name=name, payload_field_class=payload)
        trace = tc(name='scenario', environment={
            'hostname': scn.hostname, 'domain': 'kernel', 'sysname': 'Linux',
            'kernel_release': scn.kernel_release, 'tracer_name': 'lttng-modules',
            'tracer_major': 2, 'tracer_minor': 13, 'tracer_patchlevel': 9})
        streams, packets = [], []
        msgs = []
        for cpu in range(scn.ncpus):
            st = trace.create_stream(sc)
            pk = st.create_packet()
            pk.context_field['cpu_id'] = cpu
            streams.append(st)
            packets.append(pk)
            msgs.append(self._create_stream_beginning_message(st, scn.begin))
            msgs.append(self._create_packet_beginning_message(pk, pbegin))
        discards = sorted(scn.discards)
        for t, _seq, cpu, name, fields in scn.sorted_events() + [(pend + 1, 0, 0, None, None)]:
            while discards and discards[0][0] <= t:
                b, e, dcpu, count = discards.pop(0)
                msgs.append(self._create_discarded_events_message(
                    streams[dcpu], count=count or None, beg_clock_snapshot=b,
                    end_clock_snapshot=e))
            if name is None:
                break
            ec = ecs[name]
            msg = self._create_event_message(ec, packets[cpu], t)
            payload = msg.event.payload_field
            fields = dict(fields)
            stacks = (fields.pop('_stack_kernel', []), fields.pop('_stack_user', []))
            if scn.callstacks:
                ctx = msg.event.common_context_field
                _set_field(ctx['callstack_kernel'], 'arr_u64', stacks[0])
                _set_field(ctx['callstack_user'], 'arr_u64', stacks[1])
            layout = dict(scn.layouts[name])
            missing = set(layout) - set(fields)
            if missing:
                raise ValueError('%s at %d: missing fields %s' % (name, t, sorted(missing)))
            for fname, value in fields.items():
                if fname not in layout:
                    raise ValueError('%s has no field %s' % (name, fname))
                _set_field(payload[fname], layout[fname], value)
            msgs.append(msg)
        for cpu in range(scn.ncpus):
            msgs.append(self._create_packet_end_message(packets[cpu], pend))
            msgs.append(self._create_stream_end_message(streams[cpu], scn.end))
        return msgs

    def __next__(self):
        if self._pos >= len(self._msgs):
            raise StopIteration
        # hand out in small batches so downstream sees a real stream
        msg = self._msgs[self._pos]
        self._pos += 1
        return msg


class ScenarioSource(bt2._UserSourceComponent, message_iterator_class=_ScenarioIterator):
    """Emits the Scenario passed as the component's `obj`."""

    def __init__(self, config, params, obj):
        if not isinstance(obj, Scenario):
            raise TypeError('ScenarioSource needs a Scenario as obj')
        self._add_output_port('out', obj)


class EachMessage:
    """The plumbing of a test's sink, mixed in before bt2._UserSinkComponent
    (python3-bt2 refuses a subclass of a user component class): one input
    port `in`, the component's obj kept as self._out, and every message
    handed to self.take(msg), which the sink defines."""

    def __init__(self, config, params, obj):
        self._port = self._add_input_port('in')
        self._out = obj

    def _user_graph_is_configured(self):
        self._it = self._create_message_iterator(self._port)

    def _user_consume(self):
        self.take(next(self._it))


class _SegmentSink(EachMessage, bt2._UserSinkComponent):
    """Collects wperf:segment events (as dicts) and counts the rest."""

    def take(self, msg):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            if ev.name == 'wperf:segment' or ev.cls.name == 'wperf:segment':
                rec = {k: _py(v) for k, v in ev.payload_field.items()}
                rec['_ts'] = msg.default_clock_snapshot.value
                self._out['segments'].append(rec)
            else:
                self._out['other_events'] += 1
                try:
                    tname = ev.stream.trace.name
                except Exception:
                    tname = None
                self._out['other_traces'].add(tname)


def _py(field):
    if isinstance(field, bt2._StringFieldConst):
        return str(field)
    if isinstance(field, (bt2._SignedIntegerFieldConst, bt2._UnsignedIntegerFieldConst)):
        return int(field)
    if isinstance(field, bt2._RealFieldConst):
        return float(field)
    if isinstance(field, bt2._BoolFieldConst):
        return bool(field)
    return field


# ---------------------------------------------------------------------------
# Graph helpers.

_SHARED_DIR = None


def shared_dir():
    """The project's shared material (real traces, schemas): $WPERF_SHARED_DIR,
    else the directory meson passes with `--shared-dir-default DIR` (taken off
    sys.argv so that unittest does not see it), else <source>/../shared."""
    global _SHARED_DIR
    if _SHARED_DIR is None:
        default = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared')
        if '--shared-dir-default' in sys.argv:
            i = sys.argv.index('--shared-dir-default')
            default = sys.argv[i + 1]
            del sys.argv[i:i + 2]
        _SHARED_DIR = os.path.abspath(os.environ.get('WPERF_SHARED_DIR') or default)
    return _SHARED_DIR


def plugin_dir():
    d = os.environ.get('WPERF_PLUGIN_DIR')
    if not d:
        here = os.path.dirname(os.path.abspath(__file__))
        d = os.path.join(here, '..', 'build', 'plugin')
    return os.path.abspath(d)


_PLUGIN = None


def wperf_plugin():
    global _PLUGIN
    if _PLUGIN is None:
        d = plugin_dir()
        plugins = bt2.find_plugins_in_path(d, recurse=False, fail_on_load_error=True)
        found = [p for p in (plugins or []) if p.name == 'wperf']
        if not found:
            so = os.path.join(d, 'babeltrace-plugin-wperf.so')
            why = 'build it first'
            if os.path.exists(so):
                import ctypes
                try:
                    ctypes.CDLL(so)
                    why = 'the .so loads but registers no plugin named wperf'
                except OSError as e:
                    why = 'cannot load it: %s' % e
            raise RuntimeError('no babeltrace2 plugin "wperf" in %s (%s)' % (d, why))
        _PLUGIN = found[0]
    return _PLUGIN


def _bt_params(params):
    out = {}
    for k, v in params.items():
        out[k] = v
    return out


def bt2_error_text(exc):
    """All the causes of a bt2 error, one per line."""
    lines = [str(exc)]
    try:
        for cause in exc:
            lines.append('%s: %s' % (getattr(cause, 'component_name', '?'), cause.message))
    except TypeError:
        pass
    return '\n'.join(lines)


def run_knots_text(scn, **params):
    """scenario -> sink.wperf.knots (text by default); returns what it wrote."""
    plugin = wperf_plugin()
    with tempfile.TemporaryDirectory(prefix='wperf-scn-') as tmp:
        path = os.path.join(tmp, 'report')
        p = {'path': path}
        p.update(params)
        g = bt2.Graph()
        src = g.add_component(ScenarioSource, 'scenario', obj=scn)
        sink = g.add_component(plugin.sink_component_classes['knots'], 'knots',
                               params=_bt_params(p))
        g.connect_ports(src.output_ports['out'], sink.input_ports['in'])
        g.run()
        with open(path) as f:
            return f.read()


def run_knots_hosts_text(scns, **params):
    """Several hosts' scenarios, one source each -> filter.utils.muxer ->
    sink.wperf.knots (text by default); returns what it wrote."""
    plugin = wperf_plugin()
    utils = bt2.find_plugin('utils')
    with tempfile.TemporaryDirectory(prefix='wperf-scn-') as tmp:
        path = os.path.join(tmp, 'report')
        p = {'path': path}
        p.update(params)
        g = bt2.Graph()
        mux = g.add_component(utils.filter_component_classes['muxer'], 'mux')
        for i, scn in enumerate(scns):
            src = g.add_component(ScenarioSource, 'host%d' % i, obj=scn)
            g.connect_ports(src.output_ports['out'], mux.input_ports['in%d' % i])
        sink = g.add_component(plugin.sink_component_classes['knots'], 'knots',
                               params=_bt_params(p))
        g.connect_ports(mux.output_ports['out'], sink.input_ports['in'])
        g.run()
        with open(path) as f:
            return f.read()


def run_knots_hosts(scns, **params):
    """run_knots_hosts_text(format=json): the parsed, checked report."""
    doc = json.loads(run_knots_hosts_text(scns, **dict({'format': 'json'}, **params)))
    return report_invariants.check(doc, 'sink.wperf.knots report of %d hosts' % len(scns))


def run_knots(scn, **params):
    """scenario -> sink.wperf.knots format=json; returns the parsed report."""
    text = run_knots_text(scn, **dict({'format': 'json'}, **params))
    try:
        doc = json.loads(text)
    except ValueError as e:
        raise AssertionError('sink.wperf.knots wrote invalid JSON (%s):\n%s' % (e, text[:2000]))
    return report_invariants.check(doc, 'sink.wperf.knots report')


def run_segments(scn, **params):
    """scenario -> filter.wperf.waits -> Python sink; returns a dict with
    'segments' (list of dicts, in output order), 'other_events' (count of
    forwarded non-segment events) and 'other_traces'."""
    plugin = wperf_plugin()
    out = {'segments': [], 'other_events': 0, 'other_traces': set()}
    g = bt2.Graph()
    src = g.add_component(ScenarioSource, 'scenario', obj=scn)
    flt = g.add_component(plugin.filter_component_classes['waits'], 'waits',
                          params=_bt_params(params))
    sink = g.add_component(_SegmentSink, 'collect', obj=out)
    g.connect_ports(src.output_ports['out'], flt.input_ports['in'])
    g.connect_ports(flt.output_ports['out'], sink.input_ports['in'])
    g.run()
    return out


def run_segments_on_trace(trace_dir):
    """source.ctf.fs(trace_dir) -> muxer -> filter.wperf.waits -> Python sink."""
    plugin = wperf_plugin()
    out = {'segments': [], 'other_events': 0, 'other_traces': set()}
    ctf = bt2.find_plugin('ctf')
    utils = bt2.find_plugin('utils')
    g = bt2.Graph()
    src = g.add_component(ctf.source_component_classes['fs'], 'src',
                          params={'inputs': [trace_dir]})
    mux = g.add_component(utils.filter_component_classes['muxer'], 'mux')
    flt = g.add_component(plugin.filter_component_classes['waits'], 'waits')
    sink = g.add_component(_SegmentSink, 'collect', obj=out)
    for i, port in enumerate(src.output_ports.values()):
        g.connect_ports(port, mux.input_ports['in%d' % i])
    g.connect_ports(mux.output_ports['out'], flt.input_ports['in'])
    g.connect_ports(flt.output_ports['out'], sink.input_ports['in'])
    g.run()
    return out


def run_knots_cli(trace, params='', args=()):
    """`babeltrace2 TRACE ARGS -c sink.wperf.knots`, as a user runs it, with
    format=json into a file and the sink parameters `params` (',pids="12"'):
    (the parsed report, None), or (None, the command, its exit status and
    what it said) when it fails."""
    with tempfile.TemporaryDirectory(prefix='wperf-cli-') as tmp:
        out = os.path.join(tmp, 'report.json')
        cmd = ([os.environ.get('BABELTRACE2', 'babeltrace2'), '--plugin-path=' + plugin_dir(),
                trace] + list(args) +
               ['-c', 'sink.wperf.knots', '--params=format="json",path="%s"%s' % (out, params)])
        q = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=600)
        if q.returncode != 0:
            return None, '$ %s\nexit %d\n%s' % (' '.join(cmd), q.returncode, q.stdout[-4000:])
        with open(out) as f:
            return report_invariants.check(json.load(f), ' '.join(cmd)), None


def write_ctf(scn, out_dir):
    """Write the scenario as a CTF trace (sink.ctf.fs) under out_dir."""
    ctf = bt2.find_plugin('ctf')
    g = bt2.Graph()
    src = g.add_component(ScenarioSource, 'scenario', obj=scn)
    sink = g.add_component(ctf.sink_component_classes['fs'], 'ctf',
                           params={'path': out_dir, 'assume-single-trace': True})
    g.connect_ports(src.output_ports['out'], sink.input_ports['in'])
    g.run()
    return out_dir


# ---------------------------------------------------------------------------
# Report helpers.

class Report:
    """Convenience view over a parsed JSON report."""

    def __init__(self, js):
        self.js = js
        self.vertices = {v['id']: v for v in js['vertices']}
        self.threads = {t['id']: t for t in js.get('threads', [])}
        self.edges = {(e['from'], e['to']): e for e in js['edges']}

    def vid(self, name=None, tid=None, kind=None):
        hits = [v['id'] for v in self.js['vertices']
                if (name is None or v['name'] == name)
                and (tid is None or v.get('tid') == tid)
                and (kind is None or v['kind'] == kind)]
        if len(hits) != 1:
            raise AssertionError('expected one vertex name=%r tid=%r kind=%r, found %d: %s'
                                 % (name, tid, kind, len(hits), self.describe_vertices()))
        return hits[0]

    def tid(self, tid):
        return self.vid(tid=tid, kind='thread')

    def edge(self, frm, to):
        e = self.edges.get((frm, to))
        if e is None:
            raise AssertionError('no edge %s -> %s; edges: %s'
                                 % (self.vname(frm), self.vname(to), self.describe_edges()))
        return e

    def has_edge(self, frm, to):
        return (frm, to) in self.edges

    def vname(self, vid):
        v = self.vertices.get(vid)
        if v is None:
            return '#%s' % vid
        if v['kind'] == 'thread':
            return '%s(%s)' % (v['name'], v.get('tid'))
        return v['name']

    def describe_vertices(self):
        return ', '.join('%d=%s[%s]' % (v['id'], self.vname(v['id']), v['kind'])
                         for v in self.js['vertices'])

    def describe_edges(self):
        return '; '.join('%s->%s w=%d d=%d n=%d' % (self.vname(e['from']), self.vname(e['to']),
                                                     e['weight_ns'], e['direct_ns'], e['count'])
                         for e in self.js['edges'])

    def describe_knots(self):
        out = []
        for k in self.js['knots']:
            out.append('%s{%s} w=%s stop=%s removed=[%s]' % (
                k['kind'], ','.join(self.vname(m) for m in k['members']), k.get('weight_ns'),
                k.get('stop_reason'),
                ','.join('%s->%s' % (self.vname(r['from']), self.vname(r['to']))
                         for r in k.get('removed', []))))
        return '; '.join(out) or '(none)'

    def knots(self, kind=None):
        return [k for k in self.js['knots'] if kind is None or k['kind'] == kind]

    def thread(self, tid):
        return self.threads[self.tid(tid)]


def hist_count(hist, bucket):
    """The count in a log2 bucket, whether hist is a dense list or a map."""
    if isinstance(hist, list):
        if hist and isinstance(hist[0], dict):
            for h in hist:
                b = h.get('bucket', h.get('log2'))
                if b == bucket:
                    return h.get('count')
            return 0
        return hist[bucket] if bucket < len(hist) else 0
    if isinstance(hist, dict):
        return hist.get(str(bucket), 0)
    raise AssertionError('unexpected hist representation %r' % (hist,))


def log2_bucket(ns):
    return ns.bit_length() - 1


if __name__ == '__main__':
    # Debug aid: print a tiny scenario through the plugin.
    s = Scenario(ncpus=2, end=4 * S)
    s.thread(101, 'A')
    s.thread(102, 'B')
    s.run(0, 0, 101)
    s.run(0, 1, 102)
    s.sleep(1 * S, 0, 101)
    s.wake(3 * S, 1, 101)
    s.run(3 * S, 0, 101)
    json.dump(run_knots(s), sys.stdout, indent=1)
