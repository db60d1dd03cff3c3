// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The one parser of sizes, counts and durations given on a command line or
 * in an option string.  strtoull takes "-5" as 2^64-5 and shifting a size by
 * its suffix can overflow; both once made `record -b -5` spin forever, so
 * every number is read digit by digit here, overflow-checked and bounded.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include "gtsc/gtsc.h"

struct unit {
	const char *name;
	__u64 mult;
};

static const struct unit size_units[] = {
	{ "", 1 },
	{ "K", 1ULL << 10 }, { "KB", 1ULL << 10 }, { "KiB", 1ULL << 10 },
	{ "M", 1ULL << 20 }, { "MB", 1ULL << 20 }, { "MiB", 1ULL << 20 },
	{ "G", 1ULL << 30 }, { "GB", 1ULL << 30 }, { "GiB", 1ULL << 30 },
	{ "T", 1ULL << 40 }, { "TB", 1ULL << 40 }, { "TiB", 1ULL << 40 },
	{ "B", 1 },
	{},
};

static const struct unit count_units[] = {
	{ "", 1 }, { "K", 1ULL << 10 }, { "M", 1ULL << 20 }, { "G", 1ULL << 30 }, {},
};

/* Seconds are the unit without a suffix, as with timeout(1) and sleep(1). */
static const struct unit time_units[] = {
	{ "", 1000000000ULL }, { "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL },
	{ "ns", 1 }, { "m", 60000000000ULL }, { "h", 3600000000000ULL }, { "d", 86400000000000ULL },
	{},
};

/* Sizes take "8m" as perf -m does; durations only lowercase suffixes, as timeout(1). */
static const struct unit *find_unit(const struct unit *u, const char *s)
{
	bool exact = u == time_units;

	for (; u->name; u++)
		if (!(exact ? strcmp : strcasecmp)(u->name, s))
			return u;
	return NULL;
}

/* V * MULT + FRAC * MULT / 10^FRAC_DIGITS without overflow, or -ERANGE. */
static int scale(__u64 v, __u64 frac, __u64 frac_div, __u64 mult, __u64 *out)
{
	__u64 part;

	if (v && mult > UINT64_MAX / v)
		return -ERANGE;
	part = frac && frac_div ? (__u64)((long double)frac * mult / frac_div + 0.5L) : 0;
	if (v * mult > UINT64_MAX - part)
		return -ERANGE;
	*out = v * mult + part;
	return 0;
}

/* Digits, optionally ".digits" when FRAC is given; *END past them. */
static int digits(const char *s, const char **end, __u64 *v, __u64 *frac, __u64 *frac_div)
{
	const char *p = s;

	*v = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*v > (UINT64_MAX - (*p - '0')) / 10)
			return -ERANGE;
		*v = *v * 10 + (*p - '0');
	}
	*frac = 0;
	if (frac_div)
		*frac_div = 1;
	if (frac_div && *p == '.' && p[1] >= '0' && p[1] <= '9') {
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (*frac_div <= UINT64_MAX / 100) { /* further digits are below a ns */
				*frac = *frac * 10 + (*p - '0');
				*frac_div *= 10;
			}
	}
	*end = p;
	return p == s ? -EINVAL : 0;
}

static void say(char *why, size_t why_sz, const char *fmt, const char *s, const char *lim)
{
	if (why && why_sz)
		snprintf(why, why_sz, fmt, s, lim);
}

static int parse(const char *s, const struct unit *units, bool fractions, __u64 min, __u64 max,
		 const char *range, const char *what, __u64 *out, char *why, size_t why_sz)
{
	__u64 v, frac, frac_div = 1, r;
	const struct unit *u;
	const char *end;
	char fmt[96];
	int err;

	if (!s || !*s) {
		snprintf(fmt, sizeof(fmt), "'%%s' is not %s (%%s)", what);
		say(why, why_sz, fmt, "", range);
		return -EINVAL;
	}
	if (*s == '-') {
		say(why, why_sz, "'%s' is negative (%s)", s, range);
		return -ERANGE;
	}
	err = digits(s, &end, &v, &frac, fractions ? &frac_div : NULL);
	if (err == -EINVAL) {
		snprintf(fmt, sizeof(fmt), "'%%s' is not %s (%%s)", what);
		say(why, why_sz, fmt, s, range);
		return err;
	}
	u = err ? NULL : find_unit(units, end);
	if (!err && !u) {
		say(why, why_sz, "'%s' has an unknown suffix (%s)", s, range);
		return -EINVAL;
	}
	err = err ?: scale(v, frac, frac_div, u->mult, &r);
	if (err || r > max) {
		say(why, why_sz, "'%s' is too large (%s)", s, range);
		return -ERANGE;
	}
	if (r < min) {
		say(why, why_sz, r ? "'%s' is too small (%s)" : "'%s' is zero (%s)", s, range);
		return -ERANGE;
	}
	*out = r;
	return 0;
}

/* "4K to 2G": a bound as the user would write it. */
static void size_text(__u64 v, char *buf, size_t sz)
{
	static const char sfx[] = "KMGT";
	int i = -1;

	while (v && !(v & 1023) && i < 3) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, sz, "%llu", (unsigned long long)v);
	else
		snprintf(buf, sz, "%llu%c", (unsigned long long)v, sfx[i]);
}

int gtsc_parse_size_range(const char *s, __u64 min, __u64 max, __u64 *bytes, char *why,
			  size_t why_sz)
{
	char lo[24], hi[24], range[80];

	size_text(min, lo, sizeof(lo));
	size_text(max, hi, sizeof(hi));
	snprintf(range, sizeof(range), "a size from %s to %s%s", lo, hi,
		 min <= 8 << 20 && max >= 8 << 20 ? " such as 8M" : "");
	return parse(s, size_units, false, min, max, range, "a size", bytes, why, why_sz);
}

int gtsc_parse_count(const char *s, __u64 min, __u64 max, __u64 *n, char *why, size_t why_sz)
{
	char range[80];

	snprintf(range, sizeof(range), "a number from %llu to %llu", (unsigned long long)min,
		 (unsigned long long)max);
	return parse(s, count_units, false, min, max, range, "a number", n, why, why_sz);
}

/* "1ms", "366d": a bound in the largest unit it is a whole number of. */
static void duration_text(__u64 ns, char *buf, size_t sz)
{
	static const struct unit by_size[] = {
		{ "d", 86400000000000ULL }, { "h", 3600000000000ULL }, { "m", 60000000000ULL },
		{ "s", 1000000000ULL }, { "ms", 1000000ULL }, { "us", 1000ULL }, { "ns", 1 },
	};
	size_t i = 0;

	while (ns && ns % by_size[i].mult)
		i++;
	snprintf(buf, sz, "%llu%s", (unsigned long long)(ns / by_size[i].mult),
		 ns ? by_size[i].name : "");
}

int gtsc_parse_duration(const char *s, __u64 min_ns, __u64 max_ns, __u64 *ns, char *why,
			size_t why_sz)
{
	char lo[32], hi[32], range[160];

	duration_text(min_ns, lo, sizeof(lo));
	duration_text(max_ns, hi, sizeof(hi));
	snprintf(range, sizeof(range), "a duration from %s to %s: seconds, or with a suffix "
				       "ms, s, m, h or d", lo, hi);
	return parse(s, time_units, true, min_ns, max_ns, range, "a duration", ns, why, why_sz);
}

int gtsc_parse_size(const char *s, __u64 *bytes)
{
	return gtsc_parse_size_range(s, 1, GTSC_SIZE_MAX, bytes, NULL, 0);
}
