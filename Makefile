# SPDX-License-Identifier: MIT
# wperf — convenience targets around meson. See README.md.
#
#   make demo     install the missing packages to run and build (not the
#                 test toolchain), build the plugin, the bundled Figure-1
#                 workload, the wperf command and the man pages only, record the workload
#                 with source.wperf.tracefs (root), print `wperf report` of
#                 it, how long each step took and what to run next
#   make check    install every missing package, build (build/ and the
#                 ASan+UBSan build build-asan/), run every test in both;
#                 also compile with clang and with gcc -O2 without LTO
#                 (build-clang/, build-o2/), whose warnings are errors too
#   make install  meson install (the plugin goes to babeltrace2's system
#                 plugin directory, so --prefix=/usr)
#   make bench    analysis time and memory against babeltrace2 alone
#                 (doc/performance.md; not part of make check)
#   make clean    remove build/, build-asan/, build-clang/, build-o2/

# Debian packages, one per word, in three lists: what running wperf needs,
# what building it needs, and what its tests need. `make demo` installs the
# first two; `make check` (and `make deps`) all three. Extend with
# `DEB_... += name` below.
DEB_RUN   := babeltrace2 lttng-tools
DEB_BUILD := gcc make pkg-config meson ninja-build libbabeltrace2-dev \
	libtracefs-dev libtraceevent-dev liblttng-ust-dev lowdown
# The wperf command talks to LTTng's session daemon through liblttng-ctl.
DEB_BUILD += liblttng-ctl-dev
DEB_TEST  := python3-bt2 python3-jsonschema valgrind linux-perf libxml2-utils g++
# What the recorder opens at start-up (tests/test_record_start.py).
DEB_TEST += strace
# The `install` suite renders the manual pages (made with lowdown, a
# build dependency) with man-db.
DEB_TEST += man-db
# Pictures and graph files (format=svg|html|graphml of sink.wperf.knots) and
# the `report-formats` suite that reads them back (Graphviz, Chromium, networkx).
DEB_TEST += graphviz chromium python3-networkx libxml2-dev
# A working LAMI producer (lttng-cputop-mi) that the `lami` suite compares
# wperf-lami's output with.
DEB_TEST += python3-lttnganalyses
# libFuzzer targets (tests/fuzz/run.sh, suite fuzz); libFuzzer itself is in
# libclang-rt, only a Recommends of clang.
DEB_TEST += clang libclang-rt-14-dev
# The field suite (tests/field/): real programs and their load generators,
# recorded and judged against the causal truth (the relief that gains most),
# the CPU hog of its loaded runs, and what its reliefs use: eatmydata (fsync
# off), iproute2 (network namespaces, a veth pair, tc's rate limit).
# postgresql: the server and pgbench (Debian's current major version; the
# case finds its programs in /usr/lib/postgresql/VERSION/bin).
DEB_TEST += mariadb-server sysbench nginx-light wrk memcached libmemcached-tools \
	fio stress-ng sqlite3 redis-server redis-tools xz-utils eatmydata iproute2 \
	postgresql
# The LTTng guest of the `lttng-kernel` suite (tests/guest/): QEMU boots a
# Debian 12 image that debootstrap builds and mkfs.ext4 -d packs.
DEB_TEST += qemu-system-x86 debootstrap e2fsprogs

DEB_PACKAGES := $(DEB_RUN) $(DEB_BUILD) $(DEB_TEST)

BUILD      := build
BUILD_ASAN := build-asan
BUILD_CLANG   := build-clang
BUILD_O2      := build-o2
PREFIX     := /usr
# Our own builds and CI treat warnings as errors; meson's default (what a
# packager gets with a plain `meson setup`) does not.
MESON_SETUP := meson setup -Dwerror=true

# Shared material beside the checkout (real traces for tests): tests read it
# from this variable (tests/README.md).
export WPERF_SHARED_DIR ?= $(abspath $(CURDIR)/../shared)

# make demo: how long the workload runs, where the trace goes.
DEMO_SECONDS ?= 3
DEMO_TRACE   ?= $(BUILD)/demo-trace

# The ASan+UBSan test run. The plugin is a .so loaded by babeltrace2, which is
# not sanitized, so every test process gets the sanitizer runtimes preloaded
# (tests/README.md describes the convention). `=`: evaluated when used, after
# `deps` has made sure gcc is there.
ASAN_PRELOAD = $(shell gcc -print-file-name=libasan.so 2>/dev/null):$(shell gcc -print-file-name=libubsan.so 2>/dev/null)
ASAN_ENV = LD_PRELOAD=$(ASAN_PRELOAD) \
	ASAN_OPTIONS=detect_leaks=0:abort_on_error=1 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	WPERF_SANITIZED=1 WPERF_ASAN_PRELOAD=$(ASAN_PRELOAD)

.PHONY: all deps deps-demo build build-asan build-variants tracefs guest-image demo check install clean bench-annotations bench

all: build

# Install the Debian packages of $(1) that are missing (as root: apt-get;
# otherwise print the exact command and stop).
define install_missing
	@command -v dpkg-query >/dev/null || { \
		echo "deps: dpkg-query not found: wperf's Makefile expects Debian 12;"; \
		echo "deps: install these packages by hand: $(1)"; exit 1; }
	@missing=""; \
	for p in $(1); do \
		dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q 'install ok installed' \
			|| missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then \
		echo "deps: all $(words $(1)) Debian packages are installed"; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "deps: installing:$$missing"; \
		export DEBIAN_FRONTEND=noninteractive; \
		apt-get -o DPkg::Lock::Timeout=600 update && \
		apt-get -o DPkg::Lock::Timeout=600 install -y$$missing; \
	else \
		echo "deps: missing Debian packages:$$missing"; \
		echo "deps: run this, then make again:"; \
		echo "    sudo apt-get update && sudo apt-get install -y$$missing"; \
		exit 1; \
	fi
endef

# Every package: running, building and testing.
deps:
	$(call install_missing,$(DEB_PACKAGES))

# What `make demo` needs: running and building, not the test toolchain.
deps-demo:
	$(call install_missing,$(DEB_RUN) $(DEB_BUILD))

build: deps
	@[ -f $(BUILD)/build.ninja ] || $(MESON_SETUP) --prefix=$(PREFIX) $(BUILD)
	ninja -C $(BUILD)

build-asan: deps
	@[ -f $(BUILD_ASAN)/build.ninja ] || \
		$(MESON_SETUP) --prefix=$(PREFIX) -Db_sanitize=address,undefined -Db_lto=false \
			$(BUILD_ASAN)
	ninja -C $(BUILD_ASAN)

# Compile only, so that -Werror holds for what users and packagers build
# with, not just for our two builds: clang (warnings gcc does not give;
# its own LTO) and gcc at -O2 without LTO, as a distribution's package
# would be built (warnings depend on what gets inlined).
build-variants: deps
	@[ -f $(BUILD_CLANG)/build.ninja ] || \
		CC=clang $(MESON_SETUP) --prefix=$(PREFIX) $(BUILD_CLANG)
	ninja -C $(BUILD_CLANG)
	@[ -f $(BUILD_O2)/build.ninja ] || \
		$(MESON_SETUP) --prefix=$(PREFIX) -Doptimization=2 -Db_lto=false $(BUILD_O2)
	ninja -C $(BUILD_O2)

# The LTTng guest image of the `lttng-kernel` suite (tests/guest/): built,
# or found cached, in the background while the trees compile and the other
# suites run (minutes on a fresh machine; the suite runs last and waits for
# it). Root and QEMU only; without them the suite says why it cannot run.
guest-image:
	@if [ "$$(id -u)" = 0 ] && command -v qemu-system-x86_64 >/dev/null; then \
		cache=$${WPERF_GUEST_CACHE:-/var/cache/wperf-guest}; \
		mkdir -p "$$cache" && \
		echo "check: the LTTng guest image, in the background (log: $$cache/make-check.log)" && \
		{ setsid tests/guest/wperf-guest build >"$$cache/make-check.log" 2>&1 </dev/null & }; \
	fi

# Kernel events are read from tracefs; mount it when it is not (root only).
tracefs:
	@if awk '$$3 == "tracefs" { found = 1 } END { exit !found }' /proc/mounts; then :; \
	elif [ "$$(id -u)" = 0 ]; then \
		echo "mount -t tracefs nodev /sys/kernel/tracing"; \
		mount -t tracefs nodev /sys/kernel/tracing; \
	else \
		echo "tracefs is not mounted (as root: mount -t tracefs nodev /sys/kernel/tracing)"; \
	fi

# The demo builds only what it runs and what its last lines tell the user
# to run or read next (the plugin, the Figure-1 workload, the `wperf`
# command and the manual pages: the `man` alias of doc/meson.build), and
# says how long each step took. Its report is `wperf report` of the
# demo's trace, so the user running that command gets the same answer.
DEMO_TARGETS := plugin/babeltrace-plugin-wperf.so tests/workloads/fig1-pipeline tools/wperf man
# Shell: `secs T0 T1` prints the time between two `date +%s%N` stamps in
# seconds with three decimals (52 ms is 0.052).
DEMO_SECS_SH = secs() { d=$$(( ($$2 - $$1) / 1000000 )); printf '%d.%03d' $$((d / 1000)) $$((d % 1000)); }
# Shell: what to run next. The demo runs as root; `sudo` only for a user
# who ran `sudo make demo` (SUDO_USER), not for root itself, whose machine
# may have no sudo.
DEMO_NEXT_SH = as=; if [ -n "$${SUDO_USER:-}" ] && [ "$$SUDO_USER" != root ]; then as='sudo '; fi; \
	echo "next: $${as}$(BUILD)/tools/wperf record -o DIR -- CMD (record your command), then" \
		"$(BUILD)/tools/wperf report DIR (--format html --output report.html: the HTML page);" \
		"read man -l $(BUILD)/doc/wperf.1 and man -l $(BUILD)/doc/wperf-report.7"

demo:
	@if [ "$$(id -u)" != 0 ]; then \
		echo "demo: recording kernel scheduler events needs root: run: sudo make demo"; \
		exit 1; fi
	@t0=$$(date +%s%N); \
	$(MAKE) --no-print-directory deps-demo tracefs || exit 1; \
	t1=$$(date +%s%N); \
	{ [ -f $(BUILD)/build.ninja ] || $(MESON_SETUP) --prefix=$(PREFIX) $(BUILD); } && \
	ninja -C $(BUILD) $(DEMO_TARGETS) || exit 1; \
	t2=$$(date +%s%N); \
	rm -rf $(DEMO_TRACE); \
	WPERF_BUILD_DIR=$(BUILD) bash tests/workloads/record-fig1.sh $(DEMO_TRACE) $(DEMO_SECONDS) \
		|| exit 1; \
	t3=$$(date +%s%N); \
	echo; \
	echo "== $(BUILD)/tools/wperf report $(DEMO_TRACE) (fig1-pipeline, pid $$(cat $(DEMO_TRACE)/command.pid)) =="; \
	$(BUILD)/tools/wperf report $(DEMO_TRACE) || exit 1; \
	t4=$$(date +%s%N); \
	$(DEMO_SECS_SH); \
	echo; \
	echo "demo: packages $$(secs $$t0 $$t1) s, build $$(secs $$t1 $$t2) s, record $$(secs $$t2 $$t3) s, report $$(secs $$t3 $$t4) s"; \
	$(DEMO_NEXT_SH)

# Run every test twice: the normal build and the sanitizer build. Both runs
# always happen; then one summary line "N passed, M failed" (counted from
# meson's testlog*.json: with --wrapper meson names it testlog-env.json), and
# a non-zero exit on any failure, or when a run passed no test.
check: deps guest-image build build-asan build-variants tracefs
	@rm -f $(BUILD)/meson-logs/testlog*.json $(BUILD_ASAN)/meson-logs/testlog*.json
	@echo "== meson test -C $(BUILD) =="
	@meson test -C $(BUILD) --print-errorlogs; echo $$? > $(BUILD)/.check-rc
	@echo "== meson test -C $(BUILD_ASAN) (ASan+UBSan; $(ASAN_ENV)) =="
	@meson test -C $(BUILD_ASAN) --print-errorlogs --timeout-multiplier=3 \
		--wrapper='env $(ASAN_ENV)'; echo $$? > $(BUILD_ASAN)/.check-rc
	@pass=0; fail=0; skip=0; \
	for d in $(BUILD) $(BUILD_ASAN); do \
		log=$$(ls $$d/meson-logs/testlog*.json 2>/dev/null | head -n 1); \
		if [ -z "$$log" ]; then echo "check: $$d: no test ran (meson wrote no meson-logs/testlog*.json)"; fail=$$((fail+1)); continue; fi; \
		p=$$(grep -cE '"result": "(OK|EXPECTEDFAIL)"' $$log || true); \
		f=$$(grep -cE '"result": "(FAIL|UNEXPECTEDPASS|TIMEOUT|ERROR)"' $$log || true); \
		s=$$(grep -cE '"result": "SKIP"' $$log || true); \
		echo "check: $$d: $$p passed, $$f failed, $$s skipped (meson exit $$(cat $$d/.check-rc))"; \
		if [ "$$(cat $$d/.check-rc)" != 0 ] && [ "$$f" = 0 ]; then f=1; fi; \
		if [ "$$p" = 0 ]; then echo "check: no test passed in $$d"; f=$$((f+1)); fi; \
		pass=$$((pass+p)); fail=$$((fail+f)); skip=$$((skip+s)); \
	done; \
	/usr/bin/python3 tests/field/summary.py $(BUILD)/meson-logs/testlog*.json; \
	echo "$$pass passed, $$fail failed"; \
	[ $$fail = 0 ]

install: build
	meson configure $(BUILD) -Dprefix=$(PREFIX)
	meson install -C $(BUILD)

# Cost of each annotation macro and throughput of an annotated lock-heavy
# workload with and without recording (figures: doc/performance-annotations.md).
# Not part of `make check`: it prints figures, it does not judge them.
bench-annotations: build
	ninja -C $(BUILD) bench-annotations

# Analysis speed and memory against the floor (babeltrace2 into
# sink.utils.dummy on the same trace): synthetic traces up to 10 million
# events, the cascade's worst cases, the real traces of ../shared, and a
# recording of tests/workloads/ctxswitch at 200,000 context switches per
# second (root). Prints the figures (doc/performance.md); not part of
# `make check`. BENCH_ARGS: e.g. --runs 5, --events 1000000, --no-record.
BENCH_ARGS ?=
bench: build tracefs
	/usr/bin/python3 tests/bench/run-bench.py --build $(BUILD) $(BENCH_ARGS)

clean:
	rm -rf $(BUILD) $(BUILD_ASAN) $(BUILD_CLANG) $(BUILD_O2)
