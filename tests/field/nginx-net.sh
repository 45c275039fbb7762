#!/bin/bash
# SPDX-License-Identifier: MIT
# Field case: nginx in one network namespace serving a static file to wrk
# in another, over a veth pair whose both ends send at most FIELD_RATE
# (tc's token bucket filter, e.g. 16mbit; 0: no limit). The namespaces, the veth pair and
# nginx.conf are made by cases.py: FIELD_NS_SERVER, FIELD_NS_CLIENT,
# FIELD_ADDR.
D=$1
echo $$ > "$D/driver.pid"
for ns in "$FIELD_NS_SERVER" "$FIELD_NS_CLIENT"; do
    if [ "${FIELD_RATE:-0}" = 0 ]; then
        ip netns exec "$ns" tc qdisc del dev veth0 root 2>/dev/null
    else
        ip netns exec "$ns" tc qdisc replace dev veth0 root tbf rate "$FIELD_RATE" \
            burst 16kb latency 100ms || exit 1
    fi
done
ip netns exec "$FIELD_NS_SERVER" nginx -p "$D" -c "$D/nginx.conf" &
server=$!
trap 'kill $server 2>/dev/null; wait $server' EXIT
for _ in $(seq 200); do
    ip netns exec "$FIELD_NS_CLIENT" bash -c "exec 3<>/dev/tcp/$FIELD_ADDR/$FIELD_PORT" 2>/dev/null && break
    sleep 0.05
done
echo "begin $(date +%s%N)" > "$D/window"
ip netns exec "$FIELD_NS_CLIENT" wrk -t "$FIELD_THREADS" -c 16 -d "${FIELD_SECS}s" \
    "http://$FIELD_ADDR:$FIELD_PORT/file.html" > "$D/load.out" || exit 1
echo "end $(date +%s%N)" >> "$D/window"
