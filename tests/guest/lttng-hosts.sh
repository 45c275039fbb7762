#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/guest/lttng-hosts.sh ROLE [OUTPUT] - one of the two guests of the
# `lttng-hosts` suite, run INSIDE it (tests/guest/wperf-guest run --net ...
# -- bash THIS ROLE); tests/test_lttng_hosts.py boots both at once, joined
# by a QEMU socket netdev, and analyses their traces on the host.
#
# ROLE client: host wperf-hosta, 10.77.0.1 on eth0. Runs lttng-relayd (its
#   output in $WPERF_GUEST_OUT/hosts/relayd), connects
#   tests/workloads/netns-fsync.py's client to the server guest, then
#   records with `wperf record` (LTTng's kernel tracer) while the client
#   sends its requests for $WPERF_HOSTS_SECONDS s (default 10); waits for
#   the server guest to say it is done before stopping lttng-relayd.
# ROLE server: host wperf-hostb, 10.77.0.2 on eth0. Runs the server, which
#   fsyncs each request to /var/tmp (the throttled scratch disk, vdb) until
#   the client closes the connection, recorded with `wperf record --relay
#   net://10.77.0.1` (streamed to the client guest's lttng-relayd; the
#   recording directory, $WPERF_GUEST_OUT/hosts/rec, keeps command.pid and
#   wperf.json; OUTPUT relay, the default; OUTPUT live: the same with
#   --live), or with `wperf record -o $WPERF_GUEST_OUT/hosts/trace`
#   (written locally; OUTPUT local).
#
# Both sides start their requests only once both record (netns-fsync.py's
# GO rendezvous). Each step is bounded, and says what it waits for every
# 30 s (the host's stall detection watches the console). Everything goes
# to $WPERF_GUEST_OUT/hosts/ (ROLE.log, the traces); the exit status is
# the first failure's.
set -u
role=$1
out=$WPERF_GUEST_OUT/hosts
src=$WPERF_SOURCE_ROOT
wperf=$WPERF_BUILD_DIR/tools/wperf
wl=$src/tests/workloads/netns-fsync.py
seconds=${WPERF_HOSTS_SECONDS:-10}
output=${2:-relay}
client_addr=10.77.0.1
server_addr=10.77.0.2
done_port=7709
t=/tmp/hosts
mkdir -p "$out" "$t"

say() { echo "lttng-hosts[$role]: $*"; }
fail() { say "FAILED: $*"; exit 1; }

# until COMMAND succeeds (every 0.2 s), at most $1 s, saying what it waits for.
wait_for() {
	local limit=$1 what=$2 start=$SECONDS last=$SECONDS
	shift 2
	until "$@" >/dev/null 2>&1; do
		[ $((SECONDS - start)) -ge "$limit" ] && { say "gave up waiting for $what"; return 1; }
		if [ $((SECONDS - last)) -ge 30 ]; then
			say "waiting for $what ($((SECONDS - start)) s)"
			last=$SECONDS
		fi
		sleep 0.2
	done
}

# The guest's NIC: virtio_net (no udev in the image to load it), eth0.
network() {
	local addr=$1 name=$2
	hostname "$name"
	modprobe virtio_net || fail "modprobe virtio_net"
	wait_for 30 eth0 ip link show eth0 || fail "no eth0: $(ip -br link)"
	ip addr add "$addr/24" dev eth0 && ip link set eth0 up || fail "cannot set up eth0"
	say "eth0 $addr up, host $(hostname)"
}

# A TCP connection to $1:$2 can be made (and is closed at once).
reachable() { timeout 5 bash -c "exec 3<>/dev/tcp/$1/$2" 2>/dev/null; }

role_client() {
	network "$client_addr" wperf-hosta
	lttng-relayd -o "$t/relayd" >"$t/relayd.log" 2>&1 &
	local relayd=$!
	# The server guest says it is done (its trace streamed in full) by
	# connecting here.
	python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(1)
s.settimeout(1800)
s.accept()
open(sys.argv[2], "w").close()' "$done_port" "$t/peer-done" >"$t/done.log" 2>&1 &
	# flock holds client.lock while the client runs: what `wperf record`
	# runs below waits for it (one process that sleeps, not a polling loop
	# whose short-lived children would crowd the report).
	flock "$t/client.lock" python3 "$wl" client "$server_addr" "$seconds" "$t/go" \
		>"$t/client.log" 2>&1 &
	local client=$!
	wait_for 900 "the server guest to accept the client" test -e "$t/go.connected" ||
		fail "no connection: $(cat "$t/client.log")"
	say "connected to the server; recording"
	# `wperf record` runs until its command ends: the command creates GO,
	# which starts the requests, and ends with the client.
	"$wperf" record -o "$t/trace" -- sh -c 'touch "$1" && exec flock "$2" true' \
		sh "$t/go" "$t/client.lock" >"$t/record.log" 2>&1 ||
		fail "wperf record: $(tail -n 3 "$t/record.log")"
	wait "$client" || fail "client: $(tail -n 3 "$t/client.log")"
	say "$(cat "$t/client.log")"
	wait_for 600 "the server guest to finish" test -e "$t/peer-done" ||
		fail "the server guest did not say it was done"
	kill "$relayd"
	wait "$relayd"
}

role_server() {
	local where=(-o "$t/trace")
	network "$server_addr" wperf-hostb
	if [ "$output" != local ]; then
		wait_for 900 "lttng-relayd on the client guest" reachable "$client_addr" 5342 ||
			fail "no lttng-relayd at $client_addr"
		where=(--relay "net://$client_addr" -o "$t/rec")
		[ "$output" = live ] && where+=(--live)
	fi
	say "recording (${where[*]}); serving"
	# `wperf record` starts its command once it records: the command
	# creates GO, which starts the requests, and the recording ends with
	# the server.
	"$wperf" record "${where[@]}" -- sh -c 'touch "$1" && shift && exec "$@"' \
		sh "$t/go" python3 "$wl" server "$server_addr" /var/tmp "$seconds" "$t/go" \
		>"$t/server.log" 2>"$t/record.log" ||
		fail "wperf record, or the server: $(tail -n 3 "$t/record.log" "$t/server.log")"
	say "$(tail -n 1 "$t/record.log")"
	reachable "$client_addr" "$done_port" || say "could not tell the client guest"
}

case "$role" in
client | server) ;;
*) fail "usage: lttng-hosts.sh client|server [relay|live|local]" ;;
esac
start=$SECONDS
"role_$role" 2>&1 | tee "$out/$role.log"
status=${PIPESTATUS[0]}
cp -a "$t/." "$out/"
say "exit $status after $((SECONDS - start)) s"
exit "$status"
