/* SPDX-License-Identifier: MIT */
// ust-provider/workloads/annotate-cxx.cc — <wperf/annotate.h> from C++.
//
// The header promises C and C++; this program is that promise compiled
// (as C++17) and run: one thread emits each annotation a known number of
// times, so a recording can be checked exactly.
//
// Usage: annotate-cxx [--count N]   (default 3 of each)
// Prints "annotate-cxx: KEY VALUE" lines: pid, provider, tid, count.
#define WPERF_ANNOTATE_DEFINE
#include <wperf/annotate.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <unistd.h>

namespace {

std::mutex m;   // any object's address serves as a lock identity

void emit(long count)
{
	const std::string name = "item";

	for (long i = 0; i < count; i++) {
		WPERF_BEFORE_SPIN(&m);
		WPERF_AFTER_SPIN(&m);
		WPERF_FALSE_WAKEUP();
		WPERF_PROGRESS(name.c_str());
	}
}

} // namespace

int main(int argc, char **argv)
{
	long count = 3;

	if (argc == 3 && std::strcmp(argv[1], "--count") == 0)
		count = std::strtol(argv[2], nullptr, 10);
	if (count <= 0 || (argc != 1 && argc != 3)) {
		std::fprintf(stderr, "usage: annotate-cxx [--count N]\n");
		return 2;
	}
	const int loaded = wperf_annotate_load(nullptr);
	emit(count);
	std::printf("annotate-cxx: pid %ld\n", static_cast<long>(getpid()));
	std::printf("annotate-cxx: provider %s\n", loaded == 0 ? "loaded" : "not-loaded");
	std::printf("annotate-cxx: lock %#llx\n",
		    static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(&m)));
	std::printf("annotate-cxx: thread main %ld\n", static_cast<long>(gettid()));
	std::printf("annotate-cxx: count %ld\n", count);
	return 0;
}
