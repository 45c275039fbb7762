#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: nginx serving a static file to wrk over 127.0.0.1.
# $1: the case's directory (nginx.conf and www/ written by cases.py).
D=$1
echo $$ > "$D/driver.pid"
nginx -p "$D" -c "$D/nginx.conf" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 200); do
    (exec 3<>/dev/tcp/127.0.0.1/"$FIELD_PORT") 2>/dev/null && break; sleep 0.05
done
echo "begin $(date +%s%N)" > "$D/window"
wrk -t "$FIELD_THREADS" -c 32 -d "${FIELD_SECS}s" "http://127.0.0.1:$FIELD_PORT/file.html" \
    > "$D/load.out" || exit 1
echo "end $(date +%s%N)" >> "$D/window"
