#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The session profiles sessions/wperf.lttng and sessions/wperf-snapshot.lttng
against LTTng's session schema, and against what the analysis needs.

1. Both files validate (`xmllint --schema`, i.e. libxml2) against Debian's
   /usr/share/xml/lttng/session.xsd (installed with lttng-tools) and against
   $WPERF_SHARED_DIR/schemas/lttng-session.xsd.
2. The validation is real: copies of wperf.lttng with one defect each (a bad
   enumeration value, an unknown element, a missing required element, a bad
   context type) are all rejected, with the culprit named.
3. The content is the one documented in doc/wperf-sessions.7.md: session
   names, the exact kernel event list and contexts, the UST event and
   contexts, DISCARD vs OVERWRITE, snapshot mode and its output, power-of-2
   buffer sizes, the same events in both profiles, and the two things
   `lttng load` reads differently from the schema's defaults: each event
   says <enabled>true</enabled> and the session <started>false</started>.
4. `meson install` puts them in <sysconfdir>/lttng/sessions, which is
   /etc/lttng/sessions (where `lttng load NAME` looks) with prefix /usr.
5. The kernel events are those of include/wperf/kernel-events.h, the one
   list from which `wperf record` and `wperf top` (tools/wperf/lttng.c)
   enable the same events themselves, the tracefs recorders take theirs and
   the analysis names them in its hint: each once, the scheduler ones first
   (the ones required).

Usage: test-profiles.py --sessions-dir DIR --install-dir DIR --prefix P
       [--shared-dir-default DIR]
A missing schema or xmllint is a FAIL under CI=true, else a SKIP (77).
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

SKIP = 77
IN_CI = os.environ.get('CI', '').lower() in ('1', 'true', 'yes')
DEBIAN_XSD = '/usr/share/xml/lttng/session.xsd'

KERNEL_EVENTS_H = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                               'include', 'wperf', 'kernel-events.h')


def kernel_events(header):
    """The LTTng kernel events of include/wperf/kernel-events.h, the list the
    recorders, `wperf record`'s sessions and the analysis's hint are made
    from, as [(name, flags)] in its order: its tracepoints' lttng-modules
    2.13 names (netif_receive_skb is recorded as net_if_receive_skb; an
    ftrace-only one, NULL, left out), then LTTng's own tracepoints
    (net_dev_queue), then the state dump's."""
    with open(header) as f:
        text = f.read().replace('\\\n', ' ')
    events = []
    for macro, name_at in (('WPERF_KERNEL_TRACEPOINTS', 4), ('WPERF_LTTNG_ONLY_TRACEPOINTS', 0),
                           ('WPERF_LTTNG_STATEDUMP_EVENTS', 0)):
        m = re.search(r'#define %s\(X\)(.*)' % macro, text)
        if not m:
            return None
        for entry in re.findall(r'X\(([^)]*)\)', m.group(1)):
            args = [a.strip() for a in entry.split(',')]
            if args[name_at] != 'NULL':
                events.append((args[name_at].strip('"'), args[-1]))
    return events


# Every kernel event the analysis uses. doc/wperf-sessions.7.md explains each one.
KERNEL_EVENT_LIST = kernel_events(KERNEL_EVENTS_H)
KERNEL_EVENTS = {name for name, _ in KERNEL_EVENT_LIST or []}
KERNEL_CONTEXTS = ['TID', 'PID', 'PROCNAME']
UST_EVENTS = {'wperf:*'}
UST_CONTEXTS = ['VTID', 'VPID', 'PROCNAME']

failures = []


def check(cond, what):
    """Record a failed expectation; keep going so one run shows them all."""
    if not cond:
        failures.append(what)
        print('FAIL: ' + what)
    return cond


def xmllint(schema, path):
    """(exit status, messages) of validating `path` against `schema`."""
    p = subprocess.run(['xmllint', '--noout', '--schema', schema, path],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout.strip()


def schemas(shared_default):
    """The schemas to validate against; exits (skip/fail) if there is none."""
    shared = os.environ.get('WPERF_SHARED_DIR') or shared_default
    found, missing = [], []
    for xsd, why in ((DEBIAN_XSD, 'Debian lttng-tools is not installed'),
                     (os.path.join(shared, 'schemas', 'lttng-session.xsd'),
                      'WPERF_SHARED_DIR (%s) has no schemas/lttng-session.xsd' % shared)):
        (found if os.path.isfile(xsd) else missing).append((xsd, why))
    for xsd, why in missing:
        print('%s: %s: %s' % ('FAIL' if IN_CI else 'note', xsd, why))
    if missing and IN_CI:
        sys.exit(1)
    if not found:
        print('SKIP: no LTTng session schema to validate against')
        sys.exit(SKIP)
    return [xsd for xsd, _ in found]


# ---- 1 and 2: the schema ------------------------------------------------------

def validate(xsds, paths):
    for xsd in xsds:
        for path in paths:
            rc, out = xmllint(xsd, path)
            print('xmllint --schema %s %s: exit %d: %s' % (xsd, os.path.basename(path), rc, out))
            check(rc == 0, '%s does not validate against %s' % (path, xsd))


# (description, text to replace in wperf.lttng, replacement, what xmllint must name)
DEFECTS = [
    ('bad overwrite mode', '<overwrite_mode>DISCARD</overwrite_mode>',
     '<overwrite_mode>DISCARDS</overwrite_mode>', 'overwrite_mode'),
    ('unknown element', '<subbuffer_size>1048576</subbuffer_size>',
     '<subbuffer_sizes>1048576</subbuffer_sizes>', 'subbuffer_sizes'),
    ('missing required read_timer_interval',
     '<read_timer_interval>200000</read_timer_interval>', '', 'read_timer_interval'),
    ('bad context type', '<context><type>TID</type></context>',
     '<context><type>THREAD</type></context>', 'THREAD'),
]


def validate_defects(xsds, wperf_path, tmp):
    text = open(wperf_path, encoding='utf-8').read()
    for desc, old, new, culprit in DEFECTS:
        if not check(old in text, 'defect "%s": %r not found in wperf.lttng' % (desc, old)):
            continue
        broken = os.path.join(tmp, 'broken.lttng')
        with open(broken, 'w', encoding='utf-8') as f:
            f.write(text.replace(old, new, 1))
        for xsd in xsds:
            rc, out = xmllint(xsd, broken)
            first = out.splitlines()[0] if out else ''
            print('defect "%s" (%s): xmllint exit %d: %s' % (desc, xsd, rc, first))
            check(rc != 0, 'a copy with a %s validates against %s' % (desc, xsd))
            check(culprit in out, 'xmllint does not name %r for the %s: %s' % (culprit, desc, out))


# ---- 3: the content -----------------------------------------------------------

def domain(session, dtype):
    for d in session.findall('./domains/domain'):
        if d.findtext('type') == dtype:
            return d
    return None


def channels(dom):
    return dom.findall('./channels/channel') if dom is not None else []


def channel_summary(ch):
    return {
        'events': {e.findtext('name') for e in ch.findall('./events/event')},
        'event_types': {e.findtext('type', 'TRACEPOINT') for e in ch.findall('./events/event')},
        # Explicit on purpose: `lttng load` disables an event without
        # <enabled> although the schema's default is true.
        'events_enabled': {e.findtext('enabled') for e in ch.findall('./events/event')},
        'enabled': ch.findtext('enabled'),
        'contexts': [c.findtext('type') for c in ch.findall('./contexts/context')],
        'overwrite': ch.findtext('overwrite_mode', 'DISCARD'),
        'size': int(ch.findtext('subbuffer_size', '0')),
        'count': int(ch.findtext('subbuffer_count', '4')),
        'output': ch.findtext('output_type'),
    }


def check_domain(session, label, dtype, buffer_type, events, contexts, overwrite):
    dom = domain(session, dtype)
    if not check(dom is not None, '%s: no %s domain' % (label, dtype)):
        return None
    check(dom.findtext('buffer_type') == buffer_type,
          '%s: %s buffer_type %s, expected %s' % (label, dtype, dom.findtext('buffer_type'), buffer_type))
    chs = channels(dom)
    if not check(len(chs) == 1, '%s: %d %s channels, expected 1' % (label, len(chs), dtype)):
        return None
    s = channel_summary(chs[0])
    check(s['events'] == events, '%s: %s events differ: missing %s, extra %s'
          % (label, dtype, sorted(events - s['events']), sorted(s['events'] - events)))
    check(s['event_types'] == {'TRACEPOINT'}, '%s: %s event types %s' % (label, dtype, s['event_types']))
    check(s['events_enabled'] == {'true'} and s['enabled'] == 'true',
          '%s: every %s event and the channel need <enabled>true</enabled> (lttng load '
          'disables an event without it)' % (label, dtype))
    check(s['contexts'] == contexts, '%s: %s contexts %s, expected %s' % (label, dtype, s['contexts'], contexts))
    check(s['overwrite'] == overwrite, '%s: %s overwrite_mode %s, expected %s'
          % (label, dtype, s['overwrite'], overwrite))
    for key in ('size', 'count'):
        v = s[key]
        check(v > 0 and v & (v - 1) == 0, '%s: %s subbuffer_%s %d is not a power of 2' % (label, dtype, key, v))
    print('%s: %s channel %s: %d events, contexts %s, %s, %d x %d bytes per CPU, %s output'
          % (label, dtype, chs[0].findtext('name'), len(s['events']), ','.join(s['contexts']),
             s['overwrite'], s['count'], s['size'], s['output']))
    return s


def only_session(path):
    sessions = ET.parse(path).getroot().findall('session')
    check(len(sessions) == 1, '%s holds %d sessions, expected 1' % (path, len(sessions)))
    return sessions[0]


def check_content(wperf_path, snapshot_path):
    w = only_session(wperf_path)
    s = only_session(snapshot_path)
    check(w.findtext('name') == 'wperf', 'wperf.lttng: session name %r' % w.findtext('name'))
    check(s.findtext('name') == 'wperf-snapshot',
          'wperf-snapshot.lttng: session name %r' % s.findtext('name'))

    # `lttng load` starts a session without <started> (its default is not
    # the schema's): the profiles must say false.
    for label, sess in (('wperf', w), ('wperf-snapshot', s)):
        check(sess.findtext('started') == 'false', '%s: <started>false</started> missing' % label)

    wk = check_domain(w, 'wperf', 'KERNEL', 'GLOBAL', KERNEL_EVENTS, KERNEL_CONTEXTS, 'DISCARD')
    wu = check_domain(w, 'wperf', 'UST', 'PER_UID', UST_EVENTS, UST_CONTEXTS, 'DISCARD')
    sk = check_domain(s, 'wperf-snapshot', 'KERNEL', 'GLOBAL', KERNEL_EVENTS, KERNEL_CONTEXTS, 'OVERWRITE')
    su = check_domain(s, 'wperf-snapshot', 'UST', 'PER_UID', UST_EVENTS, UST_CONTEXTS, 'OVERWRITE')
    check(None not in (wk, wu, sk, su) and wu['output'] == 'MMAP' and su['output'] == 'MMAP',
          'UST channels must use MMAP output')

    # wperf: a normal session writing to a local directory.
    check(w.findtext('./attributes/snapshot_mode') in (None, 'false'), 'wperf: snapshot_mode set')
    check(w.find('./output/consumer_output/destination/path') is not None,
          'wperf: no local consumer output')
    # wperf-snapshot: snapshot mode, with an output for `lttng snapshot record`.
    check(s.findtext('./attributes/snapshot_mode') == 'true', 'wperf-snapshot: snapshot_mode is not true')
    outs = s.findall('./output/snapshot_outputs/output')
    check(len(outs) == 1 and outs[0].find('./consumer_output/destination/path') is not None,
          'wperf-snapshot: expected one snapshot output with a local path')


# ---- 4: where meson installs them --------------------------------------------

def check_install_dir(install_dir, prefix):
    print('meson installs the profiles in %s (prefix %s)' % (install_dir, prefix))
    check(install_dir.endswith('/lttng/sessions'), 'install dir %s is not .../lttng/sessions' % install_dir)
    if prefix == '/usr':
        # lttng-tools looks in $LTTNG_HOME/.lttng/sessions, then /etc/lttng/sessions.
        check(install_dir == '/etc/lttng/sessions',
              'with prefix /usr the profiles go to %s, not /etc/lttng/sessions' % install_dir)


# ---- 5: the list itself --------------------------------------------------------

def check_event_list(where, events):
    if not check(events, '%s: no kernel event list' % where):
        return
    names = [name for name, _ in events]
    check(len(names) == len(set(names)), '%s: an event listed twice' % where)
    # The scheduler's, and only they, are required, and come first.
    required = [name for name, flags in events if 'WPERF_KEV_REQUIRED' in flags]
    check(required == names[:len(required)] and
          set(required) == {e for e in names if e.startswith('sched_')},
          '%s: the required events are not the scheduler ones, first: %s' % (where, required))
    print('%s: %d LTTng kernel events, %d of them required' % (where, len(names), len(required)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--sessions-dir', required=True)
    ap.add_argument('--install-dir', required=True)
    ap.add_argument('--prefix', required=True)
    ap.add_argument('--shared-dir-default', default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), '..', '..', 'shared'))
    args = ap.parse_args()

    wperf_path = os.path.join(args.sessions_dir, 'wperf.lttng')
    snapshot_path = os.path.join(args.sessions_dir, 'wperf-snapshot.lttng')
    if subprocess.run(['sh', '-c', 'command -v xmllint'], stdout=subprocess.DEVNULL).returncode != 0:
        print('%s: xmllint not found (Debian package libxml2-utils)' % ('FAIL' if IN_CI else 'SKIP'))
        return 1 if IN_CI else SKIP
    xsds = schemas(args.shared_dir_default)

    validate(xsds, [wperf_path, snapshot_path])
    with tempfile.TemporaryDirectory(prefix='wperf-profiles-') as tmp:
        validate_defects(xsds, wperf_path, tmp)
    check_content(wperf_path, snapshot_path)
    check_install_dir(args.install_dir, args.prefix)
    check_event_list('include/wperf/kernel-events.h', KERNEL_EVENT_LIST)

    if failures:
        print('%d check(s) failed' % len(failures))
        return 1
    print('OK: both profiles are valid LTTng session files with the expected content')
    return 0


if __name__ == '__main__':
    sys.exit(main())
