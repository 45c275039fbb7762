#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: xz compressing with FIELD_THREADS threads a stream of text
# (the 1 MiB input written by cases.py, repeated) for FIELD_SECS seconds;
# the compressed bytes it wrote measure how much it compressed.
# FIELD_DATA: where the input and output live (default $1).
D=$1
DATA=${FIELD_DATA:-$D}
echo $$ > "$D/driver.pid"
[ "$DATA" = "$D" ] || cp "$D/input" "$DATA/input"
echo "begin $(date +%s%N)" > "$D/window"
start=$(date +%s%N)
while cat "$DATA/input"; do :; done 2>/dev/null |
    timeout "$FIELD_SECS" xz -T"$FIELD_THREADS" --block-size=256KiB -1 -c > "$DATA/out.xz"
[ "${PIPESTATUS[1]}" = 124 ] || { echo "xz ended before the time limit" >&2; exit 1; }
echo "end $(date +%s%N)" >> "$D/window"
echo "elapsed_ms $((($(date +%s%N) - start) / 1000000)) bytes $(stat -c %s "$DATA/out.xz")" > "$D/load.out"
