// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The checked parser of sizes, counts and durations (parse_api.c). */
#include <errno.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "harness.h"

#define MS 1000000ULL
#define SEC 1000000000ULL

struct row {
	const char *in;
	int err;	/* 0, -EINVAL or -ERANGE */
	__u64 want;
	const char *why; /* part of the sentence */
};

static void size_table(struct test_ctx *t)
{
	static const struct row rows[] = {
		{ "-5", -ERANGE, 0, "is negative" },
		{ "18446744073709551615", -ERANGE, 0, "is too large" },
		{ "99999999999999999999", -ERANGE, 0, "is too large" },
		{ "17179869184T", -ERANGE, 0, "is too large" },
		{ "16777216G", -ERANGE, 0, "is too large" },
		{ "2G", -ERANGE, 0, "is too large (a size from 4K to 1G such as 8M)" },
		{ "0", -ERANGE, 0, "is zero" },
		{ "1K", -ERANGE, 0, "is too small" },
		{ "5X", -EINVAL, 0, "unknown suffix" },
		{ "1.5M", -EINVAL, 0, "unknown suffix" },
		{ "0x10", -EINVAL, 0, "unknown suffix" },
		{ " 8M", -EINVAL, 0, "is not a size" },
		{ "", -EINVAL, 0, "is not a size" },
		{ "M", -EINVAL, 0, "is not a size" },
		{ "4096", 0, 4096 },
		{ "4K", 0, 4096 },
		{ "8m", 0, 8 << 20 },
		{ "8MiB", 0, 8 << 20 },
		{ "64KB", 0, 64 << 10 },
		{ "1G", 0, 1 << 30 },
	};
	char why[200];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		__u64 v = 12345;
		int err = gtsc_parse_size_range(rows[i].in, 4096, GTSC_RING_MAX, &v, why,
						sizeof(why));

		CHECK(t, err == rows[i].err, "'%s': %d, not %d", rows[i].in, err, rows[i].err);
		CHECK(t, err || v == rows[i].want, "'%s': %llu", rows[i].in, (unsigned long long)v);
		CHECK(t, !err || v == 12345, "'%s': value set on error", rows[i].in);
		CHECK(t, !err || strstr(why, rows[i].why), "'%s': '%s'", rows[i].in, why);
	}
}

static void duration_table(struct test_ctx *t)
{
	static const struct row rows[] = {
		{ "-1", -ERANGE, 0, "is negative" },
		{ "0", -ERANGE, 0, "is zero" },
		{ "0.0000001", -ERANGE, 0, "is too small" },
		{ "367d", -ERANGE, 0, "is too large (a duration from 1ms to 366d" },
		{ "99999999999999999999", -ERANGE, 0, "is too large" },
		{ "18446744073709551615h", -ERANGE, 0, "is too large" },
		{ "1e9", -EINVAL, 0, "unknown suffix" },
		{ "nan", -EINVAL, 0, "is not a duration" },
		{ "inf", -EINVAL, 0, "is not a duration" },
		{ "5S", -EINVAL, 0, "unknown suffix" },
		{ "5 s", -EINVAL, 0, "unknown suffix" },
		{ "5", 0, 5 * SEC },
		{ "1.5", 0, 1500 * MS },
		{ "250ms", 0, 250 * MS },
		{ "2m", 0, 120 * SEC },
		{ "1h", 0, 3600 * SEC },
		{ "0.001", 0, MS },
	};
	char why[200];

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		__u64 v = 0;
		int err = gtsc_parse_duration(rows[i].in, MS, 366 * 86400 * SEC, &v, why,
					      sizeof(why));

		CHECK(t, err == rows[i].err, "'%s': %d, not %d", rows[i].in, err, rows[i].err);
		CHECK(t, err || v == rows[i].want, "'%s': %llu", rows[i].in, (unsigned long long)v);
		CHECK(t, !err || strstr(why, rows[i].why), "'%s': '%s'", rows[i].in, why);
	}
}

static void count_and_legacy(struct test_ctx *t)
{
	__u64 v;

	CHECK(t, gtsc_parse_count("65536", 1, 1 << 30, &v, NULL, 0) == 0 && v == 65536, "65536");
	CHECK(t, gtsc_parse_count("64K", 1, 1 << 30, &v, NULL, 0) == 0 && v == 65536, "64K");
	CHECK(t, gtsc_parse_count("99999999999", 1, 1 << 30, &v, NULL, 0) == -ERANGE, "big");
	CHECK(t, gtsc_parse_count("0", 1, 10, &v, NULL, 0) == -ERANGE, "zero");
	CHECK(t, gtsc_parse_count("0", 0, 10, &v, NULL, 0) == 0 && !v, "zero allowed");
	CHECK(t, gtsc_parse_count("3MB", 1, 1 << 30, &v, NULL, 0) == -EINVAL, "3MB");
	CHECK(t, gtsc_parse_size("-5", &v) == -ERANGE, "legacy -5");
	CHECK(t, gtsc_parse_size("2G", &v) == 0 && v == 2ULL << 30, "legacy 2G");
	CHECK(t, gtsc_parse_size("1T", &v) == 0 && v == 1ULL << 40, "legacy 1T");
	CHECK(t, gtsc_parse_size("2T", &v) == -ERANGE, "legacy 2T");
}

int main(void)
{
	static const struct test_case cases[] = {
		{ "size_table", size_table },
		{ "duration_table", duration_table },
		{ "count_and_legacy", count_and_legacy },
	};

	return RUN_TESTS("parse", cases);
}
