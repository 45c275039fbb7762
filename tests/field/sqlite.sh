#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: the sqlite3 shell inserting one row per transaction
# (autocommit, PRAGMA synchronous=FULL, rollback journal: fsyncs at every
# commit) for FIELD_SECS seconds. $1: the case's directory (ins.sql written
# by cases.py); FIELD_DATA: where the database lives (default $1);
# FIELD_WRAP: a command prefix for sqlite3 (eatmydata: fsync off).
D=$1
DATA=${FIELD_DATA:-$D}
echo $$ > "$D/driver.pid"
sqlite3 "$DATA/t.db" 'CREATE TABLE IF NOT EXISTS t(k INTEGER PRIMARY KEY, v TEXT);' || exit 1
echo "begin $(date +%s%N)" > "$D/window"
start=$(date +%s%N)
timeout "$FIELD_SECS" $FIELD_WRAP sqlite3 -cmd 'PRAGMA synchronous=FULL;' "$DATA/t.db" \
    < "$D/ins.sql" > /dev/null
[ $? -eq 124 ] || { echo "sqlite3 ended before the time limit" >&2; exit 1; }
echo "end $(date +%s%N)" >> "$D/window"
el=$((($(date +%s%N) - start) / 1000000))
echo "elapsed_ms $el rows $(sqlite3 "$DATA/t.db" 'SELECT count(*) FROM t;')" > "$D/load.out"
