#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The causal truth of the field suite: relieve each candidate bottleneck
of a case by configuration, measure the throughput, and compare the
winner with the default report's first finding (README.md, "Causal
truth"; doc/accuracy.md).

    tests/field/causal.py [--rounds 3] [--reports 3] [--cases sqlite,redis]
                          [--modes quiet,loaded] [--secs 3] [--json FILE]
    tests/field/causal.py --from-json FILE...     # the tables again

Per case and mode: the baseline and each relief alternate, --rounds times
(B R1 B R2 B ... B); each relief is judged against the baselines just
before and after it, measured again (up to RETRIES times) when those two
disagree by more than SPREAD; its gain is its throughput over their mean
(for the CPU relief of a quiet run, which takes a CPU away, the inverse).
The truth is the relief with the largest median gain, or "none" when no
median reaches GAIN, or "unsure" when that relief lost throughput in one
of its rounds. Another relief whose median reaches GAIN ties with it, and
is the truth as much, when the winner's median is less than CLOSE above
its own or the winner's samples do not beat its samples (an exact
Mann-Whitney test at ALPHA: with 3 rounds, some sample of it at least one
of the winner's). Then --reports recordings of the baseline under
`wperf record`, each reported with the defaults: right when the first
finding names what the truth, or a relief tied with it, relieved. Needs
root and the cases' programs.

Owns: the unrecorded run of a case under a relief, the alternation and
its judging, the comparison with the report, the tables.
"""

import argparse
import itertools
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases  # noqa: E402
import fieldlib  # noqa: E402

GAIN = 1.10        # a relief that gains less relieved nothing
ALPHA = 0.05       # beats(): the chance of a ranking by luck that still ties
CLOSE = 0.10       # reliefs whose median gains are closer than this tie
SPREAD = 0.10      # baselines around a relief disagreeing more: measure again
RETRIES = 2
HOG_CPUS = os.cpu_count() or 2
# Every knob a driver reads besides the ones Case.prepare() sets: cleared
# before each run so that no relief leaks into the next.
KNOBS = ('FIELD_DATA', 'FIELD_WRAP', 'FIELD_FLUSH', 'FIELD_FSYNC', 'FIELD_LOCKS',
         'FIELD_ROWS', 'FIELD_WORKERS', 'FIELD_SERVER_THREADS', 'FIELD_RATE',
         'FIELD_CLIENTS', 'FIELD_SYNC')


def clear_knobs():
    for k in KNOBS:
        os.environ.pop(k, None)


def measure(case, loaded, relief=None, log=print):
    """One unrecorded run of case (relief None: the baseline) in its mode;
    its throughput (the load's own figure), or raise."""
    clear_knobs()
    tmp = tempfile.mkdtemp(prefix='%s-%s-%s-' % (case.name, 'loaded' if loaded else 'quiet',
                                                  relief.name if relief else 'base'),
                           dir=fieldlib.field_root())
    shm = None
    p = None
    prefix = []
    hog = HOG_CPUS if loaded else 0
    if relief is not None:
        os.environ.update(relief.env)
        if relief.tmpfs:
            shm = tempfile.mkdtemp(prefix='wperf-field-', dir='/dev/shm')
            os.environ['FIELD_DATA'] = shm
        if relief is cases.CPU:
            if loaded:
                hog = 0
            else:
                prefix = ['taskset', '-c', '0']
    try:
        case.prepare(tmp)
        with fieldlib.Hog(hog):
            p = subprocess.Popen(prefix + ['bash', case.driver(), tmp],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                 start_new_session=True)
            try:
                out, _ = p.communicate(timeout=case.timeout)
            except subprocess.TimeoutExpired:
                raise RuntimeError('%s: timed out after %d s' % (case.name, case.timeout))
        if p.returncode != 0:
            raise RuntimeError('%s (%s): the driver failed (%d):\n%s'
                               % (case.name, relief.name if relief else 'baseline',
                                  p.returncode, out[-2000:]))
        tput = case.throughput(tmp)
        if not tput:
            raise RuntimeError('%s: no throughput in %s' % (case.name, case.stats(tmp, out)))
        return tput
    finally:
        if p is not None and p.poll() is None:
            fieldlib.kill_session(p, fieldlib.pidfile_pids(tmp))
        fieldlib.kill_tree(set(fieldlib.pidfile_pids(tmp)) | set(fieldlib.own_pids(tmp)))
        case.cleanup(tmp)
        clear_knobs()
        shutil.rmtree(tmp, ignore_errors=True)
        if shm:
            shutil.rmtree(shm, ignore_errors=True)


def judge_relief(case, loaded, relief, base, log=print):
    """Measure relief then the baseline after it; again (with the new
    baseline before) while the two baselines disagree by more than SPREAD.
    Returns (one judged sample dict, the last baseline)."""
    for attempt in range(RETRIES + 1):
        x = measure(case, loaded, relief)
        after = measure(case, loaded)
        spread = abs(after - base) / max(after, base)
        if spread <= SPREAD or attempt == RETRIES:
            break
        log('    %s: baselines %.1f / %.1f disagree by %.0f%%: again'
            % (relief.name, base, after, 100 * spread))
        base = after
    ref = (base + after) / 2
    reverse = relief is cases.CPU and not loaded
    gain = ref / x if reverse else x / ref
    return dict(relief=relief.name, tput=x, before=base, after=after, spread=spread,
                gain=gain, reverse=reverse, retries=attempt), after


def alternate(case, loaded, reliefs, rounds, log=print):
    """B R1 B R2 B ... for rounds: {relief name: [samples]}."""
    samples = {r.name: [] for r in reliefs}
    base = measure(case, loaded)
    for rnd in range(rounds):
        for r in reliefs:
            s, base = judge_relief(case, loaded, r, base, log)
            samples[r.name].append(s)
            log('  round %d %-8s %10.1f against %.1f / %.1f: gain %.2fx%s'
                % (rnd + 1, r.name, s['tput'], s['before'], s['after'], s['gain'],
                   ' (baselines %.0f%% apart)' % (100 * s['spread'])
                   if s['spread'] > SPREAD else ''))
    return samples


def beats(win, other):
    """Do the samples win beat other, beyond the throw of the dice? An exact
    one-sided Mann-Whitney test at ALPHA: the share of all ways to split
    the pooled samples into two groups of these sizes whose U (pairs where
    other's sample is the larger, a draw counting half) is at most the
    observed one. With 3 samples each this is every sample of win above
    every sample of other (1 split in 20)."""
    def u(ws, rs):
        return sum(1.0 if r > w else 0.5 if r == w else 0.0 for w in ws for r in rs)
    if not win or not other:
        return True
    pooled, k = list(win) + list(other), len(win)
    observed, at_most, splits = u(win, other), 0, 0
    for idx in itertools.combinations(range(len(pooled)), k):
        chosen = set(idx)
        splits += 1
        at_most += u([pooled[i] for i in idx],
                     [pooled[i] for i in range(len(pooled)) if i not in chosen]) <= observed + 1e-9
    return at_most / splits <= ALPHA


def tied_with(samples, best, med):
    """The reliefs whose median also reaches GAIN and that the winner best
    does not beat by more than the suite resolves: by less than CLOSE in
    median gain (the suite's resolution: a gain under 10 % is none, and
    baselines 10 % apart are measured again), or not beyond chance
    (beats()). Each of them is the truth as much as the winner."""
    gains = {k: [s['gain'] for s in v] for k, v in samples.items()}
    return sorted(k for k in gains if k != best and med.get(k, 0) >= GAIN
                  and (med[k] * (1 + CLOSE) >= med[best]
                       or not beats(gains[best], gains[k])))


def accepted(row):
    """The reliefs a first finding may name to be right: the truth and
    those tied with it (none when the truth is none or unsure)."""
    if row['truth'] in ('none', 'unsure'):
        return []
    return [row['truth']] + list(row.get('tied') or [])


def judge_truth(row):
    """Set row's truth, median gains and tied reliefs from its samples."""
    row['truth'], row['median'] = truth_of(row['samples'])
    row['tied'] = tied_with(row['samples'], row['truth'], row['median']) if accepted(row) else []


def is_right(found, row):
    """Does a first finding name what row's truth, or a relief tied with
    it, relieved? None when there is no truth to judge by."""
    return any(names_relief(found, k) for k in accepted(row)) if accepted(row) else None


def truth_of(samples):
    """(winner, 'none' or 'unsure'; {relief: median gain}). none: no median
    reaches GAIN. unsure: the largest median does, but that relief lost
    throughput in one of its rounds (its range holds 1.0: on a shared
    machine the baselines around it moved more than it did)."""
    med = {k: statistics.median(s['gain'] for s in v) for k, v in samples.items() if v}
    best = max(med, key=med.get) if med else None
    if best is None or med[best] < GAIN:
        return 'none', med
    if min(s['gain'] for s in samples[best]) < 1.0:
        return 'unsure', med
    return best, med


def knot_bound(knot):
    """A weight bounds what shortening its waits could gain: the waits of a
    knot or sink, own_share of its waiters' time, bound the gain of removing
    them to 1 / (1 - own_share). None when it states no share."""
    share = knot.get('own_share')
    if share is None:
        return None
    return float('inf') if share >= 1 else 1 / (1 - share)


def report_bound(js, kind=None):
    """The report's own bound: of its first finding (kind None), or of its
    first knot or sink that names what relief kind relieves (the bound to
    hold against that relief's measured gain). None when there is none or
    the CPUs lead (the CPU finding states no bound)."""
    if kind is None:
        if (js.get('cpu') or {}).get('first') or not js.get('knots'):
            return None
        return knot_bound(js['knots'][0])
    for i, k in enumerate(js.get('knots') or []):
        f = fieldlib.first_finding(dict(js, knots=js['knots'][i:], cpu=None))
        if names_relief(f, kind):
            return knot_bound(k)
    return None


def names_relief(found, kind):
    """Does a first finding (fieldlib.first_finding) name what relief kind
    relieved?"""
    return found['verdict'] in cases.RELIEVES.get(kind, ())


def recorded(case, loaded, kind=None, keep=False):
    """One recording of the baseline, reported with the defaults: the first
    finding, the report's bound for it, and (kind: what the truth's winner
    relieved) its bound for the first knot or sink naming that."""
    clear_knobs()
    res = fieldlib.run_case(case, hog=HOG_CPUS if loaded else 0, keep=True,
                            log=lambda *_: None)
    try:
        with open(os.path.join(res['dir'], 'r.json')) as f:
            js = json.load(f)
        res['bound'] = report_bound(js)
        res['bound_named'] = report_bound(js, kind) if kind else None
    finally:
        if not keep and not os.environ.get('WPERF_KEEP_TRACE'):
            shutil.rmtree(res['dir'], ignore_errors=True)
    text = res.pop('text', None) or ''
    # What a wrong verdict is read from, when only the test's output is
    # left (CI): the report's head, its findings' headlines and its data
    # quality, and where the case's files lived.
    lines = text.splitlines()
    keep = lines[:14] + [l for l in lines[14:] if l.startswith(('Knot ', 'Sink ', 'Background',
                                                                   '  Group', 'First'))]
    q = text.find('Data quality')
    res['diagnosis'] = '\n'.join(keep) + ('\n' + text[q:q + 1500] if q >= 0 else '')
    res['path_to_first'] = res['found'].get('path')
    return res


def run_matrix(names, modes, rounds, reports, log=print, saved=None):
    """Every case and mode: a list of rows (table()); saved(rows) after each."""
    out = []
    for n in names:
        case = cases.CASES[n]
        for mode in modes:
            loaded = mode == 'loaded'
            log('%s %s: %s' % (n, mode, ', '.join('%s = %s' % (r.name, r.what)
                                                  for r in case.all_reliefs())))
            row = dict(case=n, mode=mode)
            try:
                row['samples'] = alternate(case, loaded, case.all_reliefs(), rounds, log)
            except Exception as e:     # a run that failed to run: said, counted apart
                row['error'] = str(e)[-600:]
                log('  ERROR %s' % row['error'])
                out.append(row)
                if saved:
                    saved(out)
                continue
            judge_truth(row)
            row['runs'] = []
            for i in range(reports):
                try:
                    res = recorded(case, loaded, None if row['truth'] in ('none', 'unsure')
                                   else row['truth'])
                except Exception as e:
                    row['runs'].append(dict(error=str(e)[-600:]))
                    log('  report %d: ERROR %s' % (i + 1, str(e)[-300:]))
                    continue
                f = res['found']
                right = is_right(f, row)
                row['runs'].append(dict(verdict=f['verdict'], kind=f['kind'],
                                        names=f['names'][:6], bound=res['bound'],
                                        bound_named=res['bound_named'], right=right))
                log('  report %d: first finding %s %s %s, bound %s (of the %s finding %s): %s'
                    % (i + 1, f['verdict'], f['kind'], f['names'][:4], fmt_gain(res['bound']),
                       row['truth'], fmt_gain(res['bound_named']),
                       {True: 'RIGHT', False: 'WRONG', None: 'no truth'}[right]))
            log('  truth: %s (median gains %s)' % (truth_text(row), ', '.join(
                '%s %.2fx' % kv for kv in sorted(row['median'].items()))))
            out.append(row)
            if saved:
                saved(out)
    return out


def truth_text(row):
    """The truth as the tables say it: 'disk', or 'disk = cpu' for a tie."""
    return ' = '.join(accepted(row)) or row['truth']


def fmt_gain(g):
    if g is None:
        return '-'
    return '∞' if g == float('inf') else '%.2fx' % g


def spread_of(vals):
    return '%.2f–%.2f' % (min(vals), max(vals)) if vals else '-'


def table(rows, out=sys.stdout):
    """The markdown table of doc/accuracy.md."""
    print('| case | mode | reliefs: median gain (range) | truth | first findings | right '
          '| report\'s bound vs gain | control: gain |', file=out)
    print('|---|---|---|---|---|---|---|---|', file=out)
    for r in rows:
        case = cases.CASES[r['case']]
        if 'error' in r:
            print('| %s | %s | error: %s | | | | | |' % (r['case'], r['mode'],
                                                          r['error'].splitlines()[0][:80]), file=out)
            continue
        gains = '; '.join('%s %.2fx (%s)' % (k, r['median'][k], spread_of(
            [s['gain'] for s in r['samples'][k]])) for k in sorted(r['median']))
        runs = [x for x in r['runs'] if 'error' not in x]
        found = {}
        for x in runs:
            k = '%s %s' % (x['verdict'], x['kind'])
            found[k] = found.get(k, 0) + 1
        decided = r['truth'] not in ('none', 'unsure')
        right = ('%d of %d' % (sum(1 for x in runs if x['right']), len(runs))
                 if decided else 'not judged')
        bounds = [x.get('bound_named', x['bound']) for x in runs
                  if x.get('bound_named', x['bound']) is not None]
        win = r['median'].get(r['truth'])
        bound = ('%s vs %s' % ('/'.join(fmt_gain(b) for b in bounds), fmt_gain(win))
                 if bounds and win else '-')
        ctl = case.control_of(r['mode'])
        control = ('%s %.2fx' % (ctl, r['median'][ctl])
                   if ctl in r['median'] and ctl not in accepted(r) else '-')
        print('| %s | %s | %s | %s | %s | %s | %s | %s |' % (
            r['case'], r['mode'], gains, truth_text(r),
            ', '.join('%s ×%d' % kv for kv in sorted(found.items())),
            right, bound, control), file=out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--reports', type=int, default=3)
    ap.add_argument('--cases', default=','.join(cases.CASES))
    ap.add_argument('--modes', default='quiet,loaded')
    ap.add_argument('--secs', type=int, help='each run\'s load time (WPERF_FIELD_SECONDS)')
    ap.add_argument('--json', help='write every row to this file')
    ap.add_argument('--from-json', nargs='+', metavar='FILE')
    a = ap.parse_args()
    if a.from_json:
        rows = []
        for path in a.from_json:
            with open(path) as f:
                rows += json.load(f)
        for r in rows:        # judged again, by today's rule
            if 'samples' in r:
                judge_truth(r)
                for x in r['runs']:
                    if 'verdict' in x:
                        x['right'] = is_right(x, r)
        table(rows)
        return
    if a.secs:
        cases.SECS = a.secs
    names = a.cases.split(',')
    for n in names:
        if n not in cases.CASES:
            sys.exit('causal: no case %r (cases: %s)' % (n, ', '.join(cases.CASES)))
        missing = cases.CASES[n].missing()
        if missing:
            sys.exit('causal: %s needs %s (the Makefile\'s DEB_TEST)' % (n, ', '.join(missing)))
    print('started %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                open('/proc/loadavg').read().split()[0]),
          flush=True)
    def saved(rows):
        if a.json:
            with open(a.json, 'w') as f:
                json.dump(rows, f, indent=1, default=str)
    rows = run_matrix(names, a.modes.split(','), a.rounds, a.reports,
                      log=lambda s: print(s, flush=True), saved=saved)
    print('finished %s UTC, load average %s' % (time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime()),
                                                 open('/proc/loadavg').read().split()[0]))
    print()
    table(rows)


if __name__ == '__main__':
    main()
