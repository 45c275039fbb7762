#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: archive a tree with tar, then sync: the archive's pages are
# written back to the disk while sync waits. FIELD_WRAP: a command prefix
# for sync (eatmydata: sync returns at once).
D=$1
echo $$ > "$D/driver.pid"
echo "begin $(date +%s%N)" > "$D/window"
start=$(date +%s%N)
tar -cf "$D/out.tar" -C "$D" tree || exit 1
$FIELD_WRAP sync
echo "end $(date +%s%N)" >> "$D/window"
echo "elapsed_ms $((($(date +%s%N) - start) / 1000000))" > "$D/load.out"
