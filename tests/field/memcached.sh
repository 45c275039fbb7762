#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: memcached -t 4 under memcslap (libmemcached-tools) get/set
# load over 127.0.0.1, repeated for FIELD_SECS seconds; FIELD_SERVER_THREADS:
# memcached's worker threads (default 4).
D=$1
echo $$ > "$D/driver.pid"
memcached -u root -l 127.0.0.1 -p "$FIELD_PORT" -U 0 -t "${FIELD_SERVER_THREADS:-4}" -m 64 -P "$D/server.pid" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
stats() {
    exec 3<>/dev/tcp/127.0.0.1/"$FIELD_PORT" || return 1
    printf 'stats\r\nquit\r\n' >&3
    grep -E 'STAT (cmd_get|cmd_set|get_hits) ' <&3 | tr -d '\r'
    exec 3<&-
}
for _ in $(seq 200); do
    (exec 3<>/dev/tcp/127.0.0.1/"$FIELD_PORT") 2>/dev/null && break; sleep 0.05
done
echo "begin $(date +%s%N)" > "$D/window"
start=$(date +%s%N)
end=$((start + FIELD_SECS * 1000000000))
while [ "$(date +%s%N)" -lt "$end" ]; do
    memcslap --servers=127.0.0.1:"$FIELD_PORT" --concurrency="$FIELD_THREADS" \
        --execute-number=2000 --test=get --binary > /dev/null || exit 1
done
echo "end $(date +%s%N)" >> "$D/window"
{ echo "elapsed_ms $((($(date +%s%N) - start) / 1000000))"; stats; } > "$D/load.out"
