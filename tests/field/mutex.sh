#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: sysbench's threads benchmark, FIELD_THREADS threads each
# taking one of FIELD_LOCKS mutexes (default 1: every thread on the same
# lock) and yielding the CPU 100 times while holding it, for FIELD_SECS
# seconds; its events per second are the throughput.
D=$1
echo $$ > "$D/driver.pid"
echo "begin $(date +%s%N)" > "$D/window"
sysbench threads --threads="$FIELD_THREADS" --thread-locks="${FIELD_LOCKS:-1}" \
    --thread-yields=100 --time="$FIELD_SECS" run > "$D/load.out" || exit 1
echo "end $(date +%s%N)" >> "$D/window"
