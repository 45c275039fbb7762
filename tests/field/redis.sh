#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: a single-threaded request/response pair: redis-server with
# its append-only file fsynced at every write (appendfsync FIELD_FSYNC,
# default always) and redis-benchmark with one connection sending SETs,
# for FIELD_SECS seconds. FIELD_DATA: where the AOF lives (default $1);
# FIELD_CLIENTS: redis-benchmark's connections (default 1).
D=$1
DATA=${FIELD_DATA:-$D}
echo $$ > "$D/driver.pid"
redis-server --port "$FIELD_PORT" --bind 127.0.0.1 --dir "$DATA" --appendonly yes \
    --appendfsync "${FIELD_FSYNC:-always}" --save '' --daemonize no \
    --pidfile "$D/server.pid" --logfile "$D/redis.log" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 200); do redis-cli -p "$FIELD_PORT" ping 2>/dev/null | grep -q PONG && break; sleep 0.05; done
count() { redis-cli -p "$FIELD_PORT" info commandstats | sed -n 's/^cmdstat_set:calls=\([0-9]*\),.*/\1/p'; }
echo "begin $(date +%s%N)" > "$D/window"
start=$(date +%s%N)
timeout "$FIELD_SECS" redis-benchmark -p "$FIELD_PORT" -c "${FIELD_CLIENTS:-1}" -t set \
    -n 100000000 -r 100000 -q > /dev/null
[ $? -eq 124 ] || { echo "redis-benchmark ended before the time limit" >&2; exit 1; }
echo "end $(date +%s%N)" >> "$D/window"
el=$((($(date +%s%N) - start) / 1000000))
echo "elapsed_ms $el ops $(count)" > "$D/load.out"
