/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Minimal unit-test harness.  Each check that fails prints the reason; each
 * test prints one "PASS name" or "FAIL name: reason" line, which tests/run.sh
 * counts.  No global state beyond the current test's verdict.
 */
#ifndef __GTSC_TEST_HARNESS_H
#define __GTSC_TEST_HARNESS_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct test_ctx {
	const char *name;
	int failed;
	char why[512];
};

/*
 * A failure's sentence, cut to fit why[] on purpose: through a va_list,
 * which GCC does not weigh against the buffer (snprintf here drew
 * -Wformat-truncation for every message that quotes a long string).
 */
__attribute__((format(printf, 2, 3), unused)) static void test_why(struct test_ctx *t,
								    const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
}

#define CHECK(t, cond, fmt, ...)                                                                   \
	do {                                                                                       \
		if (!(cond) && !(t)->failed) {                                                     \
			(t)->failed = 1;                                                           \
			test_why((t), "%s:%d: " fmt, __FILE__, __LINE__, ##__VA_ARGS__);           \
		}                                                                                  \
	} while (0)

typedef void (*test_fn)(struct test_ctx *t);

struct test_case {
	const char *name;
	test_fn fn;
};

static inline int run_tests(const char *suite, const struct test_case *cases, int n)
{
	int bad = 0;

	/* A test that crashes must not take the lines before it along. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < n; i++) {
		struct test_ctx t = { .name = cases[i].name };

		cases[i].fn(&t);
		if (t.failed)
			printf("FAIL %s/%s: %s\n", suite, t.name, t.why);
		else
			printf("PASS %s/%s\n", suite, t.name);
		bad += t.failed;
	}
	fflush(stdout);
	return bad ? 1 : 0;
}

#define RUN_TESTS(suite, cases) run_tests(suite, cases, (int)(sizeof(cases) / sizeof(cases[0])))

#endif
