#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/guest/lttng-kernel.sh - the recordings of the `lttng-kernel` suite,
# run INSIDE the guest (tests/guest/wperf-guest run -- bash THIS); the
# traces are analysed on the host by tests/test_lttng_kernel.py.
#
# Each part records the Figure-1 workload (tests/workloads/fig1-pipeline)
# for $WPERF_FIG1_SECONDS s (default 3; live and top: $WPERF_FIG1_LIVE_SECONDS,
# default 8) into /tmp (tmpfs: the recorder's
# writes stay off the disk the workload fsyncs to), then copies the trace to
# $WPERF_GUEST_OUT/PART/ with PART.log, PART.status (exit status) and
# PART/workload.pid. Parts (all run, whatever fails):
#   load     `lttng load wperf` (the project's profile, installed in
#            /etc/lttng/sessions by guest-init.sh), `lttng start`, the
#            workload, `lttng stop`, `lttng destroy`
#   record   `wperf record` (it must choose LTTng's kernel tracer)
#   both     the workload run once under both kernel recorders: `lttng
#            load wperf` + start, then tests/workloads/record-fig1.sh
#            (source.wperf.tracefs, which runs the workload), then `lttng
#            stop` + destroy: both/lttng/ and both/tracefs/
#   snapshot `lttng load wperf-snapshot`, start, the workload, `lttng
#            regenerate statedump`, `lttng snapshot record`, destroy
#   flight   `wperf record --snapshot`, the workload, `wperf snapshot`,
#            `wperf stop`
#   trigger  `wperf record --snapshot --trigger-on` a UST event of
#            tools/tests/ust-ticker, then `wperf stop`
#   lost     `wperf record --buffer-size-kb 16` of tests/workloads/ctxswitch
#            (a context-switch storm): events are discarded
#   annotated `wperf record` of ust-provider/workloads/spin-lock (kernel +
#            wperf:* UST annotations)
#   live     LTTng live: lttng-relayd, `lttng create --live` with the wperf
#            profile's kernel events, `babeltrace2 -i lttng-live ... -c
#            sink.wperf.knots` with every=1s (JSON lines into
#            live/reports.jsonl) while the workload runs, then `lttng
#            destroy`: babeltrace2 must end by itself, status in
#            live/babeltrace2.status
#   top      `wperf top` beside another user's lttng-relayd (it must refuse,
#            top/foreign/), and beside one whose real uid is another
#            user's, its other uids root's (top/twouids/), then `wperf top --every 1s` (text into
#            top/reports.txt) around the workload, ended by SIGTERM as by Ctrl-C
# Environment (set by guest-init.sh): WPERF_SOURCE_ROOT, WPERF_BUILD_DIR,
# WPERF_GUEST_OUT. WPERF_GUEST_PARTS: the parts to run (default: all);
# WPERF_GUEST_PART_SECONDS: the time one part may take (default 240 s).
set -u
out=$WPERF_GUEST_OUT
build=$WPERF_BUILD_DIR
src=$WPERF_SOURCE_ROOT
wl=$build/tests/workloads/fig1-pipeline
wperf=$build/tools/wperf
seconds=${WPERF_FIG1_SECONDS:-3}
live_seconds=${WPERF_FIG1_LIVE_SECONDS:-8}
parts=${WPERF_GUEST_PARTS:-load record both snapshot flight trigger lost annotated live top}
# Each part takes 10 to 30 s in a guest on an otherwise idle host; this
# limit is for a host whose CPUs other jobs keep busy.
part_limit=${WPERF_GUEST_PART_SECONDS:-240}

say() { echo "lttng-kernel[guest]: $*"; }

# The workload in the background; its pid into $1/workload.pid.
workload() {
	"$wl" --seconds "$seconds" &
	local pid=$!
	echo "$pid" >"$1/workload.pid"
	wait "$pid"
}

part_load() {
	local t=/tmp/load
	mkdir -p "$t"
	lttng load --override-url="file://$t/trace" wperf || return 1
	lttng list wperf
	lttng start wperf || return 1
	workload "$t" || return 1
	lttng stop wperf || return 1
	lttng destroy wperf || return 1
}

part_record() {
	local t=/tmp/record
	mkdir -p "$t"
	"$wperf" record -o "$t/trace" -- "$wl" --seconds "$seconds" || return 1
	cp "$t/trace/command.pid" "$t/workload.pid"
}

part_both() {
	# One run of the workload seen by both kernel recorders at once, so
	# that the two traces describe the same execution.
	local t=/tmp/both
	mkdir -p "$t"
	lttng load --override-url="file://$t/lttng" wperf || return 1
	lttng start wperf || return 1
	bash "$src/tests/workloads/record-fig1.sh" "$t/tracefs" "$seconds" || return 1
	mv "$t/tracefs/workload.pid" "$t/workload.pid"
	lttng stop wperf || return 1
	lttng destroy wperf || return 1
}

part_snapshot() {
	local t=/tmp/snapshot
	mkdir -p "$t"
	lttng load wperf-snapshot || return 1
	lttng list wperf-snapshot
	lttng start wperf-snapshot || return 1
	workload "$t" || return 1
	lttng regenerate statedump -s wperf-snapshot || return 1
	lttng snapshot record -s wperf-snapshot "file://$t/trace" || return 1
	lttng destroy wperf-snapshot || return 1
}

part_flight() {
	local t=/tmp/flight
	mkdir -p "$t"
	"$wperf" record --snapshot -o "$t/trace" || return 1
	workload "$t" || return 1
	"$wperf" snapshot "$t/trace" || return 1
	"$wperf" stop "$t/trace" || return 1
}

part_trigger() {
	# `wperf record --snapshot --trigger-on`: an LTTng trigger on a UST
	# event (tick 50 of tools/tests/ust-ticker) takes the snapshot, on
	# LTTng's kernel tracer; then `wperf stop`.
	local t=/tmp/trigger
	mkdir -p "$t"
	"$wperf" record --snapshot --ust-events 'lttng_ust_tracef:*' \
		--trigger-on lttng_ust_tracef:event --trigger-filter 'msg == "tick 50"' \
		-o "$t/trace" || return 1
	"$build/tools/tests/ust-ticker" 100 &
	local pid=$!
	echo "$pid" >"$t/workload.pid"
	wait "$pid" || return 1
	# The watcher saves the triggered snapshot as snapshot-1.
	for _ in $(seq 150); do
		[ -f "$t/trace/snapshot-1/wperf.json" ] && break
		sleep 0.2
	done
	"$wperf" stop "$t/trace" || return 1
}

part_lost() {
	# Deliberately small sub-buffers (4 x 4 KiB per CPU) under a
	# context-switch storm: LTTng's kernel tracer must discard events.
	local t=/tmp/lost
	mkdir -p "$t"
	"$wperf" record --buffer-size-kb 16 -o "$t/trace" -- \
		"$build/tests/workloads/ctxswitch" --seconds 3 --pairs 2 || return 1
	cp "$t/trace/command.pid" "$t/workload.pid"
}

part_annotated() {
	# The annotated spin-lock workload: kernel events from lttng-modules and
	# the wperf:* annotations from LTTng-UST, in one `wperf record`.
	local t=/tmp/annotated
	mkdir -p "$t"
	"$wperf" record -o "$t/trace" -- "$build/ust-provider/workloads/spin-lock" \
		--threads 3 --iterations 3000 || return 1
	cp "$t/trace/command.pid" "$t/workload.pid"
}

# The kernel events of the project's profile (sessions/wperf.lttng), as
# one comma-separated list for `lttng enable-event -k`.
profile_kernel_events() {
	python3 - "$src/sessions/wperf.lttng" <<'PY'
import sys
import xml.etree.ElementTree as ET
for d in ET.parse(sys.argv[1]).getroot().iter('domain'):
    if d.findtext('type') == 'KERNEL':
        print(','.join(e.findtext('name') for e in d.iter('event')))
PY
}

# Until the relay daemon says a viewer is attached to session $1.
wait_viewer() {
	local i
	for i in $(seq 1 120); do
		babeltrace2 -i lttng-live net://127.0.0.1 2>/dev/null |
			grep "/$1 " | grep -qv ' 0 client' && return 0
		sleep 0.5
	done
	say "no viewer attached to $1 within 60 s"
	return 1
}

part_live() {
	local t=/tmp/live s=wperf-live rc=0
	mkdir -p "$t"
	ip link set lo up
	lttng-relayd -o "$t/relayd" &
	local relayd=$!
	sleep 1
	lttng create "$s" --live || return 1
	lttng enable-channel -k -s "$s" wperf_kernel --subbuf-size=1M --num-subbuf=8 || return 1
	lttng enable-event -k -s "$s" -c wperf_kernel "$(profile_kernel_events)" || return 1
	lttng add-context -k -s "$s" -c wperf_kernel -t tid -t pid -t procname || return 1
	lttng start "$s" || return 1
	# The live source ends when the session is destroyed only with
	# session-not-found-action=end (else it waits for another one).
	babeltrace2 --plugin-path="$build/plugin" -i lttng-live \
		"net://127.0.0.1/host/$(hostname)/$s" --params=session-not-found-action=end \
		-c sink.wperf.knots --params="every=\"1s\",format=\"json\",path=\"$t/reports.jsonl\",comms=\"fig1-pipeline,fig1-producer,fig1-writer\"" &
	local bt=$!
	wait_viewer "$s" || rc=1
	# The statedump of `lttng start` may be behind the viewer's start.
	lttng regenerate statedump -s "$s"
	# The run so far holds the wait for the viewer too (seconds under
	# emulation), and thresholds are shares of it: a longer workload.
	[ $rc -eq 0 ] && { seconds=$live_seconds workload "$t" || rc=1; }
	date +%s.%N >"$t/destroyed-at"
	lttng destroy "$s" || rc=1
	wait "$bt"
	echo $? >"$t/babeltrace2.status"
	date +%s.%N >"$t/ended-at"
	kill "$relayd"
	wait "$relayd"
	[ "$(cat "$t/babeltrace2.status")" = 0 ] || rc=1
	rm -rf "$t/relayd"
	return $rc
}

part_top() {
	local t=/tmp/top
	mkdir -p "$t"
	ip link set lo up
	# An lttng-relayd of another user must not get this machine's kernel
	# events: wperf top refuses it, in one line (top/foreign/top.*).
	mkdir -p "$t/foreign/home" && chown nobody "$t/foreign/home"
	setpriv --reuid=nobody --regid=nogroup --clear-groups env HOME="$t/foreign/home" \
		lttng-relayd -o "$t/foreign/home/out" >"$t/foreign/relayd.log" 2>&1 &
	local foreign=$!
	sleep 3
	"$wperf" top --duration 2 >"$t/foreign/top.out" 2>"$t/foreign/top.err"
	echo $? >"$t/foreign/top.status"
	kill "$foreign"
	wait "$foreign"
	# A relay daemon whose real uid is nobody's and whose other uids are
	# root's, as a user's set-user-ID root program run through a link
	# named lttng-relayd is: /proc/PID is root's (its effective uid),
	# yet that user may signal it. Not root's alone: refused in one line
	# (top/twouids/top.*), never streamed to.
	mkdir -p "$t/twouids/home"
	setpriv --ruid=nobody --euid=0 env HOME="$t/twouids/home" \
		lttng-relayd -o "$t/twouids/home/out" >"$t/twouids/relayd.log" 2>&1 &
	foreign=$!
	sleep 3
	"$wperf" top --duration 2 >"$t/twouids/top.out" 2>"$t/twouids/top.err"
	echo $? >"$t/twouids/top.status"
	kill "$foreign"
	wait "$foreign"
	"$wperf" top --every 1s --output "$t/reports.txt" \
		--comms fig1-pipeline,fig1-producer,fig1-writer &
	local top=$!
	# wperf top says when its viewer runs; wait for the viewer to attach.
	sleep 3
	wait_viewer "wperf-top-$top" || { kill -TERM "$top"; wait "$top"; return 1; }
	seconds=$live_seconds workload "$t" || return 1
	kill -TERM "$top"
	wait "$top"
}

# `bash THIS --one PART`: one part alone (what the loop below runs under
# `timeout`, so that a part that hangs ends with its log and leaves the
# guest time for the others).
if [ "${1:-}" = --one ]; then
	"part_$2"
	exit
fi

for part in $parts; do
	say "== $part =="
	start=$(cut -d' ' -f1 /proc/uptime)
	timeout --kill-after=10 "$part_limit" bash "$0" --one "$part" >"$out/$part.log" 2>&1
	status=$?
	if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
		echo "lttng-kernel[guest]: part $part did not end within $part_limit s" \
			"(WPERF_GUEST_PART_SECONDS): stopped" >>"$out/$part.log"
		lttng destroy --all >>"$out/$part.log" 2>&1
	fi
	end=$(cut -d' ' -f1 /proc/uptime)
	# Keep whatever was recorded, even on failure (for the host's message).
	if [ -d "/tmp/$part" ]; then
		cp -a "/tmp/$part" "$out/$part"
	fi
	echo "$status" >"$out/$part.status"
	say "$part: exit $status in $(echo "$end $start" | awk '{ printf "%.1f", $1 - $2 }') s"
	tail -n 5 "$out/$part.log" | sed 's/^/  | /'
done
exit 0
