#!/bin/bash
# SPDX-License-Identifier: MIT
# check-fig1-workload.sh FIG1_PIPELINE — the Figure-1 workload alone: it runs,
# writes requests, and its producer finds the queue full (so it waits for the
# writer). Checked from the workload's own output.
set -euo pipefail
bin=$1
out=$("$bin" --seconds 1)
echo "$out"
line=$(grep -E '^fig1-pipeline: [0-9]+ requests in ' <<<"$out") ||
	{ echo "FAIL: no summary line"; exit 1; }
n=$(sed -E 's/^fig1-pipeline: ([0-9]+) requests.*/\1/' <<<"$line")
full=$(sed -E 's/.*queue full ([0-9]+) times.*/\1/' <<<"$line")
grep -qE '^fig1-pipeline: pid [0-9]+$' <<<"$out" || { echo "FAIL: no pid line"; exit 1; }
[ "$n" -ge 10 ] || { echo "FAIL: only $n requests written in 1 s"; exit 1; }
[ "$full" -ge 1 ] || { echo "FAIL: the producer never found the queue full"; exit 1; }
# --help works, bad options are refused.
"$bin" --help | grep -q -- '--seconds' || { echo "FAIL: --help"; exit 1; }
if "$bin" --bogus 2>/dev/null; then echo "FAIL: --bogus accepted"; exit 1; fi
if "$bin" --seconds 0 2>/dev/null; then echo "FAIL: --seconds 0 accepted"; exit 1; fi
echo "ok: $n requests, producer blocked $full times"
