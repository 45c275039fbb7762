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
# OUTPUT top: both hosts stream live sessions to hosta's lttng-relayd
#   (`wperf record --relay URL --live`), and hosta watches both with
#   `wperf top --relay net://127.0.0.1 --hosts wperf-hosta,wperf-hostb
#   --every 2s --format json` from before the requests begin until both
#   sessions end; each line of its output is stamped with the guest's
#   time of day when it came ($WPERF_GUEST_OUT/hosts/top.json: "SECONDS
#   JSON"), its standard error in top.log.
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

# The relay daemon's live sessions, one a line (babeltrace2's list:
# "net://.../host/HOST/SESSION (timer = ..., N stream(s), M client(s)
# connected)").
relay_sessions() { timeout 20 babeltrace2 -i lttng-live net://127.0.0.1 2>/dev/null; }
# A live session of host $1 is listed ($2: with a viewer attached).
relay_lists() {
	relay_sessions | grep "/host/$1/" | grep -q "${2:-}"
}

# hosta in OUTPUT top: records itself live into its own relay daemon and,
# once hostb's live session is there too, starts `wperf top` on both; the
# requests begin once wperf top reads both sessions.
client_top() {
	"$wperf" record --relay net://127.0.0.1 --live -o "$t/rec" -- \
		sh -c 'touch "$1"; while [ ! -e "$2" ]; do sleep 0.2; done; touch "$3" && exec flock "$4" true' \
		sh "$t/recording" "$t/top.attached" "$t/go" "$t/client.lock" >"$t/record.log" 2>&1 &
	local record=$!
	wait_for 600 "hostb's live session on the relay daemon" relay_lists wperf-hostb ||
		fail "no live session of wperf-hostb: $(relay_sessions)"
	wait_for 300 "hosta's own recording" test -e "$t/recording" ||
		fail "wperf record: $(tail -n 3 "$t/record.log")"
	wait_for 120 "hosta's live session on the relay daemon" relay_lists wperf-hosta ||
		fail "no live session of wperf-hosta: $(relay_sessions)"
	say "both live sessions listed; wperf top"
	( "$wperf" top --relay net://127.0.0.1 --hosts wperf-hosta,wperf-hostb --every 2s \
		--format json 2>"$t/top.log" |
		python3 -u -c 'import sys, time
for line in sys.stdin:
    sys.stdout.write("%.3f %s" % (time.time(), line))' >"$t/top.json"
	  echo "${PIPESTATUS[0]}" >"$t/top.status" ) &
	local top=$!
	wait_for 120 "wperf top to read both sessions" \
		sh -c 'relay_sessions() { timeout 20 babeltrace2 -i lttng-live net://127.0.0.1 2>/dev/null; }
			relay_sessions | grep /host/wperf-hosta/ | grep -q " 1 client" &&
			relay_sessions | grep /host/wperf-hostb/ | grep -q " 1 client"' ||
		fail "wperf top did not attach: $(cat "$t/top.log")"
	say "wperf top reads both sessions; the requests begin"
	touch "$t/top.attached"
	wait "$record" || fail "wperf record: $(tail -n 3 "$t/record.log")"
	wait "$client" || fail "client: $(tail -n 3 "$t/client.log")"
	say "$(cat "$t/client.log")"
	wait_for 600 "the server guest to finish" test -e "$t/peer-done" ||
		fail "the server guest did not say it was done"
	# Both sessions destroyed: wperf top writes its final report and ends.
	wait_for 300 "wperf top to end" test -e "$t/top.status" ||
		{ kill "$top"; fail "wperf top did not end: $(tail -n 3 "$t/top.log")"; }
	wait "$top"
	[ "$(cat "$t/top.status")" = 0 ] ||
		fail "wperf top: exit $(cat "$t/top.status"): $(tail -n 3 "$t/top.log")"
	say "wperf top: $(wc -l <"$t/top.json") lines; $(tail -n 1 "$t/top.log")"
}

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
	if [ "$output" = top ]; then
		client_top
	else
		# `wperf record` runs until its command ends: the command
		# creates GO, which starts the requests, and ends with the
		# client.
		"$wperf" record -o "$t/trace" -- sh -c 'touch "$1" && exec flock "$2" true' \
			sh "$t/go" "$t/client.lock" >"$t/record.log" 2>&1 ||
			fail "wperf record: $(tail -n 3 "$t/record.log")"
		wait "$client" || fail "client: $(tail -n 3 "$t/client.log")"
		say "$(cat "$t/client.log")"
		wait_for 600 "the server guest to finish" test -e "$t/peer-done" ||
			fail "the server guest did not say it was done"
	fi
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
		[ "$output" = live ] || [ "$output" = top ] && where+=(--live)
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
*) fail "usage: lttng-hosts.sh client|server [relay|live|local|top]" ;;
esac
start=$SECONDS
"role_$role" 2>&1 | tee "$out/$role.log"
status=${PIPESTATUS[0]}
cp -a "$t/." "$out/"
say "exit $status after $((SECONDS - start)) s"
exit "$status"
