#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/workloads/record-fig1.sh OUTDIR [SECONDS]
#
# Record a real kernel trace (CTF, in OUTDIR) of the Figure-1 workload
# (tests/workloads/fig1-pipeline.c) with source.wperf.tracefs, and write the
# workload's pid to OUTDIR/workload.pid and OUTDIR/command.pid (where
# `wperf record` puts its command's pid: `wperf report OUTDIR` is then
# focused on the workload, as the demo's report is).
#
#   1. starts `babeltrace2 -c source.wperf.tracefs --params=duration=D
#      -c sink.ctf.fs --params=path=OUTDIR` in the background,
#      D = SECONDS + 60 (only a safety net);
#   2. waits until the source says it records (its ready-file);
#   3. runs the workload for SECONDS (default 3);
#   4. stops the recording with SIGINT when the workload ends, waits for
#      both and checks that both succeeded.
#
# Environment:
#   WPERF_BUILD_DIR  meson build directory (default: build) with
#                    plugin/babeltrace-plugin-wperf.so and
#                    tests/workloads/fig1-pipeline
#   WPERF_FIG1_DIR   directory for the workload's data file (passed as
#                    --dir; default: the workload's own temp dir in /var/tmp)
#   BABELTRACE2      the babeltrace2 program (default: babeltrace2)
#
# Needs root (or CAP_SYS_ADMIN/CAP_PERFMON with access to tracefs).
set -euo pipefail

prog=record-fig1
die() { echo "$prog: error: $*" >&2; exit 1; }

[ $# -ge 1 ] && [ $# -le 2 ] || { echo "usage: $0 OUTDIR [SECONDS]" >&2; exit 2; }
outdir=$1
seconds=${2:-3}
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] ||
	die "SECONDS must be a whole number >= 1 (got '$seconds')"

build=${WPERF_BUILD_DIR:-build}
bt=${BABELTRACE2:-babeltrace2}
plugin_dir=$build/plugin
workload=$build/tests/workloads/fig1-pipeline

[ -f "$plugin_dir/babeltrace-plugin-wperf.so" ] ||
	die "no plugin in $plugin_dir (build first: make build; or set WPERF_BUILD_DIR)"
[ -x "$workload" ] || die "no workload at $workload (build first: make build)"
command -v "$bt" >/dev/null || die "$bt not found (apt-get install babeltrace2)"
# babeltrace2 does not load plugins through a symbolic link to a directory.
plugin_dir=$(cd -P "$plugin_dir" && pwd)

# tracefs must be mounted (libtracefs finds it through /proc/mounts).
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
if [ -z "$tracefs" ]; then
	if [ "$(id -u)" = 0 ]; then
		echo "$prog: mounting tracefs on /sys/kernel/tracing"
		mount -t tracefs nodev /sys/kernel/tracing ||
			die "cannot mount tracefs on /sys/kernel/tracing"
		tracefs=/sys/kernel/tracing
	else
		die "tracefs is not mounted; as root: mount -t tracefs nodev /sys/kernel/tracing"
	fi
fi
[ -w "$tracefs/instances" ] ||
	die "$tracefs/instances is not writable: recording kernel events needs root"

if [ -e "$outdir" ] && [ -n "$(ls -A "$outdir" 2>/dev/null)" ]; then
	die "$outdir exists and is not empty"
fi
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
log=$outdir/record.log   # babeltrace2's messages (kept on failure)

# The recording ends when the workload does (SIGINT below); the duration is
# only a safety net.
duration=$((seconds + 60))

echo "$prog: recording kernel events into $outdir (until the workload ends)"
# set -m: without job control bash starts background jobs with SIGINT
# ignored, and babeltrace2 keeps it so; with it, SIGINT stops the recorder
# cleanly (cleanup below), and the job gets its own process group.
# A SIGINT ignored on entry (nohup, `make demo &`) cannot be undone by
# bash and would be inherited, and the recorder leaves an ignored SIGINT
# alone: perl (Essential on Debian) puts it back to default before exec.
ready=$(mktemp "${TMPDIR:-/tmp}/record-fig1-ready.XXXXXX")
rm -f "$ready"      # the source creates it, never through a link
set -m
# The recorder runs at the workload's priority (nice -10, below): behind
# it, on a busy machine, it would fall behind and lose events.
perl -e '$SIG{INT} = "DEFAULT"; exec { $ARGV[0] } @ARGV or die "exec $ARGV[0]: $!\n"' \
	nice -n -10 "$bt" --plugin-path="$plugin_dir" \
	-c source.wperf.tracefs --params="duration=$duration,ready-file=\"$ready\"" \
	-c sink.ctf.fs --params="path=\"$outdir\"" >"$log" 2>&1 &
bt_pid=$!
set +m

# Stop the recorder if we leave early (error, Ctrl-C). SIGINT first: the
# babeltrace2 CLI then stops the graph and finalizes the source, which
# removes its tracefs instance; SIGKILL only if it does not stop in 10 s.
cleanup() {
	if [ -n "${bt_pid:-}" ] && kill -0 "$bt_pid" 2>/dev/null; then
		kill -INT "$bt_pid" 2>/dev/null || true
		for _ in $(seq 100); do
			kill -0 "$bt_pid" 2>/dev/null || break
			sleep 0.1
		done
		kill -KILL "$bt_pid" 2>/dev/null || true
		wait "$bt_pid" 2>/dev/null || true
	fi
}
trap 'cleanup; rm -f "$ready"' EXIT

# Wait (up to 60 s; a sanitized babeltrace2 takes seconds to get there)
# until the source says it records: it writes its ready-file once an event
# recorded after tracing went on has come back (babeltrace2-source.wperf.tracefs(7)),
# so the workload's fork and first waits are in the trace. The instance's
# tracing_on says nothing: a new instance reads 1 before any event is on.
started=
for _ in $(seq 600); do
	if ! kill -0 "$bt_pid" 2>/dev/null; then
		wait "$bt_pid" && rc=0 || rc=$?
		bt_pid=
		echo "$prog: babeltrace2 stopped before the workload started (exit $rc):" >&2
		sed 's/^/  | /' "$log" >&2
		die "recording failed"
	fi
	if [ -s "$ready" ]; then
		started=1
		break
	fi
	sleep 0.1
done
[ -n "$started" ] || die "the recorder did not say it records within 60 s (see $log)"

echo "$prog: running fig1-pipeline for ${seconds}s"
workload_args=(--seconds "$seconds")
[ -n "${WPERF_FIG1_DIR:-}" ] && workload_args+=(--dir "$WPERF_FIG1_DIR")
# At nice -10: other work on the machine (both cores busy with builds, a
# CI job's other tests) must not starve it, so that the recording shows
# Figure 1's knot and not the machine's load; the field suite
# (tests/field/) is where loaded machines are measured.
nice -n -10 "$workload" "${workload_args[@]}" &
wl_pid=$!
echo "$wl_pid" >"$outdir/workload.pid"
echo "$wl_pid" >"$outdir/command.pid"
wait "$wl_pid" && wl_rc=0 || wl_rc=$?
[ "$wl_rc" = 0 ] || die "the workload (pid $wl_pid) failed with exit status $wl_rc"

# Stop the recording right after the workload, so the analysed time is the
# workload's (shares of it mean something). source.wperf.tracefs takes the
# first SIGINT itself: it stops tracing, drains the buffers and ends its
# streams, so babeltrace2 exits 0 with a complete trace.
sleep 0.2
echo "$prog: workload done (pid $wl_pid); stopping the recorder"
kill -INT "$bt_pid" 2>/dev/null || true
wait "$bt_pid" && bt_rc=0 || bt_rc=$?
bt_pid=
if [ "$bt_rc" != 0 ]; then
	echo "$prog: babeltrace2 failed (exit $bt_rc):" >&2
	sed 's/^/  | /' "$log" >&2
	die "recording failed"
fi

# sink.ctf.fs writes OUTDIR/<trace name>/metadata (or OUTDIR/metadata with
# assume-single-trace); either way there must be a metadata file.
if ! find "$outdir" -name metadata -type f | grep -q .; then
	sed 's/^/  | /' "$log" >&2
	die "no CTF trace (metadata file) was written under $outdir"
fi
echo "$prog: trace in $outdir, workload pid $wl_pid (in $outdir/workload.pid)"
