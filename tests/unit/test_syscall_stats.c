// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * report --summary's statistics (src/user/cli/syscall_stats.c, linked in by
 * the Makefile): counts, min/max and the histogram's percentiles, and the
 * table's growth.
 */
#include <stdlib.h>
#include "harness.h"
#include "syscall_stats.h"

static void test_percentiles(struct test_ctx *t)
{
	struct sc_table *tab = sc_table__new();
	struct sc_stat *s = sc_table__get(tab, 42);
	__u64 p50, p99;
	size_t n;

	for (int i = 1; i <= 1000; i++)
		sc_stat__add(s, i * 1000, i % 10 == 0);
	sc_stat__add(s, -1, 1); /* a call without a duration */
	p50 = sc_stat__quantile(s, 0.5);
	p99 = sc_stat__quantile(s, 0.99);
	CHECK(t, s->calls == 1001 && s->errors == 101 && s->timed == 1000, "counts %llu %llu %llu",
	      (unsigned long long)s->calls, (unsigned long long)s->errors,
	      (unsigned long long)s->timed);
	CHECK(t, s->min_ns == 1000 && s->max_ns == 1000000, "min/max");
	CHECK(t, p50 > 500000 * 0.968 && p50 < 500000 * 1.032, "p50 %llu", (unsigned long long)p50);
	CHECK(t, p99 > 990000 * 0.968 && p99 < 990000 * 1.032, "p99 %llu", (unsigned long long)p99);
	CHECK(t, sc_table__get(tab, 42) == s && sc_table__all(tab, &n) && n == 1, "table");
	for (int i = 0; i < 5000; i++)
		sc_table__get(tab, (__u64)i << 32 | 7);
	CHECK(t, sc_table__all(tab, &n) && n == 5001 && sc_table__get(tab, 42)->calls == 1001,
	      "growth");
	sc_table__free(tab);
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "percentiles", test_percentiles },
	};

	return RUN_TESTS("syscall_stats", cases);
}
