#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fuzz/run.sh — build the libFuzzer targets with clang and run them.
#
#   tests/fuzz/run.sh [-o OUTDIR] [-t SECONDS] [TARGET...]
#
# TARGET: analysis (normalised event sequences into the analysis library,
# knots, merge, report writers) and params (component parameter parsing:
# plugin/common/params.c, sink.wperf.knots' own readers, filter.wperf.waits'
# segment selection). Default: both.
#
# For each target: compile with -fsanitize=fuzzer,address,undefined into
# OUTDIR (default: a temporary directory), replay every input committed in
# tests/fuzz/corpus/TARGET/ (crashes found earlier: regression tests), then
# fuzz for SECONDS (default $WPERF_FUZZ_SECONDS or 20; 0: replay only) from that corpus in a
# scratch copy, so a bounded run never writes into the source tree. A crash
# leaves its input in OUTDIR/TARGET-crash-*; copy it into corpus/TARGET/ once
# fixed. A longer run: doc/reliability.md.
#
# Exit: 0 when nothing crashed, 1 on a crash or build failure, 77 (meson's
# skip) when clang cannot build libFuzzer targets and CI is not true.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${WPERF_FUZZ_SECONDS:-20}
# The sanitized pass of make check: replay only (see meson.build).
[ "${WPERF_SANITIZED:-}" = 1 ] && seconds=0
out=""
while getopts "o:t:" opt; do
	case $opt in
	o) out=$OPTARG ;;
	t) seconds=$OPTARG ;;
	*) echo "usage: $0 [-o OUTDIR] [-t SECONDS] [analysis|params...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
targets=${*:-analysis params}

CLANG=${CLANG:-clang}
skip() {
	if [ "${CI:-}" = true ]; then echo "fuzz: FAIL: $*" >&2; exit 1; fi
	echo "fuzz: SKIP: $*"; exit 77
}
command -v "$CLANG" >/dev/null 2>&1 || skip "no $CLANG (Debian package clang)"

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/wperf-fuzz.XXXXXX")
	trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out"

# The sanitizers of the fuzz binaries are their own: the preload of the
# ASan test run (tests/README.md) would load a second, gcc runtime.
unset LD_PRELOAD
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

# The plugin's sources need the version meson passes them (WPERF_VERSION).
version=$(sed -n "s/^[[:space:]]*version[[:space:]]*:[[:space:]]*'\([^']*\)'.*/\1/p" "$root/meson.build")
[ -n "$version" ] || { echo "fuzz: FAIL: no version in meson.build" >&2; exit 1; }
# No -Werror: gcc's build (meson) holds the code to it; clang warns about
# other things, and a fuzz run must not fail on a warning.
CFLAGS="-std=c11 -D_GNU_SOURCE -DWPERF_VERSION=\"$version\" -g -O1
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -w
	-I$root/include -I$root/analysis -I$root/plugin"
# The analysis library's sources and dependencies, as analysis/meson.build
# lists them (the quoted *.c names).
analysis_src=$(sed -n "s/^[[:space:]]*'\([a-z0-9_/-]*\.c\)'.*/\1/p" "$root/analysis/meson.build" |
	sed "s|^|$root/analysis/|")
[ -n "$analysis_src" ] || { echo "fuzz: FAIL: no sources in analysis/meson.build" >&2; exit 1; }
analysis_libs=""
if grep -q "libxml-2.0" "$root/analysis/meson.build"; then
	analysis_libs=$(pkg-config --cflags --libs libxml-2.0) ||
		skip "pkg-config does not know libxml-2.0 (libxml2-dev)"
fi

build() {
	case $1 in
	analysis)
		# shellcheck disable=SC2086
		$CLANG $CFLAGS -o "$out/fuzz-analysis" "$here/fuzz-analysis.c" $analysis_src \
			$analysis_libs
		;;
	params)
		pc=$(pkg-config --cflags --libs babeltrace2 libtracefs libtraceevent) ||
			skip "pkg-config does not know babeltrace2/libtracefs (libbabeltrace2-dev, libtracefs-dev)"
		# knots-sink.c and knots-params.c (their errors, through
		# sink_fail) and tracefs-component.c (its readers are static) are
		# included by the fuzz-params-*.c wrappers.
		plugin_src=$(find "$root/plugin" -name '*.c' | sort | grep -v -e '/plugin\.c$' \
			-e '/knots-sink\.c$' -e '/knots-params\.c$' -e '/tracefs-component\.c$')
		# shellcheck disable=SC2086
		$CLANG $CFLAGS -o "$out/fuzz-params" "$here/fuzz-params.c" \
			"$here/fuzz-params-knots.c" "$here/fuzz-params-tracefs.c" \
			$plugin_src $analysis_src $analysis_libs $pc
		;;
	*)
		echo "fuzz: unknown target $1 (analysis or params)" >&2; exit 2 ;;
	esac
}

for t in $targets; do
	echo "fuzz: building $t"
	if ! build "$t" 2>"$out/$t-build.log"; then
		if grep -q -e 'fsanitize=fuzzer' -e 'libclang_rt.fuzzer' "$out/$t-build.log"; then
			cat "$out/$t-build.log" >&2
			skip "$CLANG cannot link libFuzzer targets"
		fi
		cat "$out/$t-build.log" >&2
		echo "fuzz: FAIL: building $t" >&2
		exit 1
	fi
	corpus="$here/corpus/$t"
	inputs=$(find "$corpus" -type f 2>/dev/null | sort)
	n=$(printf '%s\n' "$inputs" | grep -c . || true)
	echo "fuzz: $t: replaying $n committed inputs"
	if [ "$n" -gt 0 ]; then
		# shellcheck disable=SC2086
		"$out/fuzz-$t" -runs=1 $inputs >"$out/$t-replay.log" 2>&1 || {
			tail -n 60 "$out/$t-replay.log" >&2
			echo "fuzz: FAIL: $t crashes on a committed regression input" >&2
			exit 1
		}
	fi
	[ "$seconds" -gt 0 ] || continue
	echo "fuzz: $t: fuzzing for $seconds s"
	mkdir -p "$out/$t-corpus"
	[ "$n" -gt 0 ] && cp $inputs "$out/$t-corpus/"
	dict=""
	[ -f "$here/$t.dict" ] && dict="-dict=$here/$t.dict"
	# shellcheck disable=SC2086
	if ! "$out/fuzz-$t" -max_total_time="$seconds" -max_len=4096 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 $dict \
		-artifact_prefix="$out/$t-" "$out/$t-corpus" >"$out/$t-fuzz.log" 2>&1; then
		tail -n 60 "$out/$t-fuzz.log" >&2
		echo "fuzz: FAIL: $t crashed; input(s): $(ls "$out"/$t-crash-* "$out"/$t-leak-* \
			"$out"/$t-timeout-* "$out"/$t-oom-* 2>/dev/null | tr '\n' ' ')" >&2
		exit 1
	fi
	grep -E '^stat::number_of_executed_units|^#[0-9]+.*DONE' "$out/$t-fuzz.log" | tail -n 2
done
echo "fuzz: OK: $targets"
