/* SPDX-License-Identifier: MIT */
/*
 * check.h — the smallest test harness that does the job: CHECK macros
 * that count failures and say where, and a TAP-like line per test.
 * Header-only; each test program includes it once.
 */
#ifndef WPERF_TEST_CHECK_H
#define WPERF_TEST_CHECK_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int check_failures;      /* in the whole program */
static int check_test_failures; /* in the running test */
static int check_test_number;

#define CHECK(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "# %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
		check_test_failures++; \
	} \
} while (0)

#define CHECK_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) { \
		fprintf(stderr, "# %s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, \
			#got, g_, w_); \
		check_test_failures++; \
	} \
} while (0)

#define CHECK_STR(got, want) do { \
	const char *g_ = (got), *w_ = (want); \
	if (!g_ || strcmp(g_, w_) != 0) { \
		fprintf(stderr, "# %s:%d: %s is \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
			#got, g_ ? g_ : "(null)", w_); \
		check_test_failures++; \
	} \
} while (0)

/* An integer check named by what it checks (e.g. "A->B weight"), for
 * tests whose values are computed: the name says more than the
 * expression. */
#define CHECK_EQ(what, got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) { \
		fprintf(stderr, "# %s:%d: %s: got %lld, want %lld\n", __FILE__, __LINE__, \
			(what), g_, w_); \
		check_test_failures++; \
	} \
} while (0)

/* Stops the current test function when a precondition of the rest fails
 * (e.g. the number of results), so it does not index out of bounds. */
#define REQUIRE_INT(got, want) do { \
	long long g_ = (long long)(got), w_ = (long long)(want); \
	if (g_ != w_) { \
		fprintf(stderr, "# %s:%d: %s is %lld, want %lld (stopping this test)\n", \
			__FILE__, __LINE__, #got, g_, w_); \
		check_test_failures++; \
		return; \
	} \
} while (0)

#define RUN_TEST(fn) do { \
	check_test_failures = 0; \
	fn(); \
	check_test_number++; \
	printf("%s %d - %s\n", check_test_failures ? "not ok" : "ok", \
	       check_test_number, #fn); \
	check_failures += check_test_failures; \
} while (0)

/* Last line of main: plan, verdict, exit status. */
static inline int check_finish(void)
{
	printf("1..%d\n%s\n", check_test_number, check_failures ? "FAIL" : "PASS");
	return check_failures ? 1 : 0;
}

#endif /* WPERF_TEST_CHECK_H */
