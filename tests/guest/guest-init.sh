#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/guest/guest-init.sh - the guest's run-time init, for one run.
#
# wperf-guest copies it into OUT/.wperf-guest/init.sh for every run, and the
# image's PID 1 (image/init) execs it from the wperf_out share once it has
# mounted /proc, /sys, /dev and that share on /mnt/wperf-out. Not part of
# the image: changing it needs no rebuild.
#
# It sets up what a Debian system would have (tmpfs on /tmp, /run,
# /dev/shm; tracefs; lo up; an I/O scheduler on the disk so that
# block_rq_insert happens), mounts the source and build trees read-only and
# COPIES them to tmpfs at the host's absolute paths (a program run from a
# 9p share page-faults through the share's virtio interrupt, and those
# waits would show in its wait-for graph), mounts the output share at the
# host's path too, installs the session profiles (sessions/*.lttng, as
# `meson install` does), starts lttng-sessiond (which loads lttng-modules),
# then runs the command (wperf.mode=run) or a shell (wperf.mode=shell),
# writes the command's exit status and its step times into
# OUT/.wperf-guest/, and powers off.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C.UTF-8 TERM="${TERM:-linux}"
CTL=/mnt/wperf-out/.wperf-guest
. "$CTL/env"

now() { cut -d' ' -f1 /proc/uptime; }
TIMES=""
mark() { TIMES="$TIMES$1 $(now) "; }   # label + uptime, turned into durations at the end
say() { echo "wperf-guest[guest]: $*"; }
power_off() {
	sync
	umount "$WPERF_GUEST_OUT" 2>/dev/null
	umount /mnt/wperf-out 2>/dev/null
	echo o >/proc/sysrq-trigger
	sleep 30
}
mark booted

# The kernel booted quietly (loglevel=4, wperf-guest); from here on its
# warnings and the backtraces they carry (KERN_DEFAULT, level 4) reach the
# console, so that a hang's report says what each CPU was doing
# (tests/README.md, "The LTTng guest": hangs).
dmesg -n 5
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm
mount -t devpts devpts /dev/pts
mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
mount -t debugfs nodev /sys/kernel/debug 2>/dev/null
hostname wperf-guest
ip link set lo up
# block_rq_insert is only emitted when requests go through a scheduler.
for disk in vda vdb; do
	echo mq-deadline >/sys/block/$disk/queue/scheduler 2>/dev/null ||
		say "could not select mq-deadline on $disk (block_rq_insert will be missing)"
done
# /var/tmp, where workloads keep their data files, on the scratch disk
# (vdb, throttled when the run asks: wperf-guest --disk-iops).
mount -t ext4 /dev/vdb /var/tmp && chmod 1777 /var/tmp ||
	say "no scratch disk (vdb) for /var/tmp: the workloads write to the root disk"
mount -o remount,rw / 2>/dev/null

# The trees, copied into tmpfs at the host's paths, from the tar files the
# host packed (one read through 9p; the read-only shares of the trees stay
# mounted on /mnt/wperf-src and /mnt/wperf-build, to look at).
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 wperf_src /mnt/wperf-src
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=262144 wperf_build /mnt/wperf-build
# A tree that does not fit (tmpfs takes half the guest's memory) is said,
# and the command is not run: a half-copied tree fails in ways that name
# something else.
copy_failed=""
for tree in "source:$WPERF_GUEST_SOURCE" "build:$WPERF_GUEST_BUILD"; do
	dir=${tree#*:}
	mkdir -p "$dir"
	mountpoint -q "$dir" || mount -t tmpfs -o mode=755 tmpfs "$dir"
	if ! tar -C "$dir" -xf "$CTL/${tree%%:*}.tar" 2>/tmp/copy.err; then
		say "cannot copy the ${tree%%:*} tree into the guest's memory:" \
			"$(tail -n 1 /tmp/copy.err) (what is large in it? wperf-guest leaves out .git," \
			"objects and field-data)"
		copy_failed=1
	fi
done
mkdir -p "$WPERF_GUEST_OUT"
mount --bind /mnt/wperf-out "$WPERF_GUEST_OUT"
mark copied

# The profiles where `lttng load NAME` finds them (meson installs them in
# /etc/lttng/sessions).
cp "$WPERF_GUEST_SOURCE"/sessions/*.lttng /etc/lttng/sessions/ 2>/dev/null
# As a system would at boot (Debian's lttng-tools service): the root
# session daemon, which loads lttng-modules' kernel tracer.
# Bounded, as every step here that talks to a daemon: a step that hangs
# must leave the run time to say so and power off, not eat the host's
# deadline in silence.
timeout 180 lttng-sessiond --daemonize --pidfile=/run/lttng-sessiond.pid \
	>/tmp/lttng-sessiond.log 2>&1 ||
	say "lttng-sessiond did not start: $(tail -n 3 /tmp/lttng-sessiond.log)"
if timeout 60 lttng list -k >/dev/null 2>&1; then
	say "LTTng kernel tracer available ($(lsmod | grep -c '^lttng') lttng modules loaded)"
else
	say "LTTng kernel tracer NOT available: $(timeout 60 lttng list -k 2>&1 | tail -n 1)"
fi
mark sessiond

export WPERF_SOURCE_ROOT="$WPERF_GUEST_SOURCE" WPERF_BUILD_DIR="$WPERF_GUEST_BUILD"
export WPERF_GUEST_OUT WPERF_IN_GUEST=1
cd "$WPERF_GUEST_SOURCE" || cd /
if grep -q 'wperf.mode=shell' /proc/cmdline; then
	say "shell in the guest: source $WPERF_GUEST_SOURCE, build $WPERF_GUEST_BUILD,"
	say "output $WPERF_GUEST_OUT (shared with the host). exit powers off."
	setsid -c /bin/bash -l </dev/ttyS0 >/dev/ttyS0 2>&1
	status=$?
elif [ -n "$copy_failed" ]; then
	status=125
else
	say "running: $WPERF_GUEST_COMMAND"
	/bin/bash -c "$WPERF_GUEST_COMMAND"
	status=$?
	say "exit status $status"
fi
mark command
timeout 60 lttng destroy --all >/dev/null 2>&1
[ -f /run/lttng-sessiond.pid ] && kill "$(cat /run/lttng-sessiond.pid)" 2>/dev/null

# Step durations: "boot 8.1 s, copy 1.2 s, ..." (boot = kernel start to here).
# shellcheck disable=SC2086 # split on purpose: label time label time ...
set -- $TIMES
prev=0 line=""
while [ $# -ge 2 ]; do
	line="$line$1 $(echo "$2 $prev" | awk '{ printf "%.1f", $1 - $2 }') s, "
	prev=$2
	shift 2
done
echo "${line%, }" >"$CTL/times"
echo "$status" >"$CTL/exit-status"
power_off
