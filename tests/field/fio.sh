#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: fio, FIELD_THREADS threads each writing 4 KiB blocks with an
# fsync after every write, for FIELD_SECS seconds, in FIELD_DATA (default $1).
D=$1
echo $$ > "$D/driver.pid"
echo "begin $(date +%s%N)" > "$D/window"
fio --name=syncwrite --directory="${FIELD_DATA:-$D}" --thread --numjobs="$FIELD_THREADS" --rw=write \
    --bs=4k --size=32m --fsync=1 --time_based --runtime="$FIELD_SECS" \
    --group_reporting --output-format=json --output="$D/load.out" > /dev/null || exit 1
echo "end $(date +%s%N)" >> "$D/window"
