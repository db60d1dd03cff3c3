// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The column coder's Stream VByte (col_svb.h): the SSSE3 decoder reads what
 * the scalar one reads, value for value, on random streams of every length
 * (1, 2, 4, 8 bytes) and every count modulo 4; a data stream cut short is
 * refused without reading past it (each buffer here is exactly its bytes,
 * so a sanitizer sees an overrun).
 */
#include <stdlib.h>
#include <string.h>

#include "col_svb.h"
#include "harness.h"

/* A value of LEN bytes (its top byte not 0, 0 for 1 byte sometimes), from SEED. */
static __u64 value_of(unsigned int len, __u64 *seed)
{
	__u64 x;

	*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
	x = *seed ^ (*seed >> 29);
	if (len == 8)
		return x | 1ull << 63 >> (x & 31);
	return (x & ((1ull << (8 * len)) - 1)) | (len > 1 ? 1ull << (8 * len - 1) : 0);
}

/* N values of random lengths from SEED into V; each length at least once when N >= 4. */
static void fill(__u64 *v, size_t n, __u64 seed)
{
	static const unsigned int lens[] = { 1, 2, 4, 8 };

	for (size_t i = 0; i < n; i++)
		v[i] = value_of(i < 4 ? lens[i] : lens[(seed >> 33) & 3], &seed);
}

/* Encode N values, decode them from exact buffers both ways; the data bytes or -1. */
static long round_trip(struct test_ctx *t, const __u64 *v, size_t n, size_t cut)
{
	__u8 *ctrl = malloc(svb_ctrl_len(n) + 1), *tmp = malloc(8 * n + 1), *data;
	__u64 *a = calloc(n + 1, 8), *b = calloc(n + 1, 8);
	size_t d = svb_encode(v, n, ctrl, tmp);
	long ra, rb = -2;

	data = malloc(d - cut ? d - cut : 1);
	memcpy(data, tmp, d - cut);
	ra = svb_decode_scalar(ctrl, data, data + d - cut, n, a);
#ifdef SVB_HAVE_SSSE3
	if (svb_ssse3()) {
		struct svb_pair tab[16];
		__u8 len[16];

		svb_pair_table(tab, len);
		rb = svb_decode_ssse3(tab, len, ctrl, data, data + d - cut, n, b);
	}
#endif
	CHECK(t, cut || ra == (long)d, "n %zu: scalar read %ld of %zu bytes", n, ra, d);
	CHECK(t, !cut || ra == -1, "n %zu cut %zu: scalar not refused (%ld)", n, cut, ra);
	for (size_t i = 0; !cut && i < n; i++)
		CHECK(t, a[i] == v[i], "n %zu: scalar value %zu %llx != %llx", n, i,
		      (unsigned long long)a[i], (unsigned long long)v[i]);
	if (rb != -2) {
		CHECK(t, rb == ra, "n %zu cut %zu: ssse3 %ld, scalar %ld", n, cut, rb, ra);
		for (size_t i = 0; !cut && i < n; i++)
			CHECK(t, b[i] == a[i], "n %zu: ssse3 value %zu %llx != %llx", n, i,
			      (unsigned long long)b[i], (unsigned long long)a[i]);
	}
	free(ctrl), free(tmp), free(data), free(a), free(b);
	return ra;
}

static void test_edges(struct test_ctx *t)
{
	static const __u64 e[] = { 0, 1, 0xff, 0x100, 0xffff, 0x10000, 0xffffff, 0x1000000,
				   0xffffffff, 0x100000000ull, 0xffffffffffull, ~0ull };
	__u8 ctrl[4], data[96];

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		unsigned int want = e[i] < 0x100 ? 1 : e[i] < 0x10000 ? 2 : e[i] >> 32 ? 8 : 4;

		CHECK(t, svb_encode(&e[i], 1, ctrl, data) == want, "%llx: not %u bytes",
		      (unsigned long long)e[i], want);
	}
	round_trip(t, e, sizeof(e) / sizeof(e[0]), 0);
}

static void test_random(struct test_ctx *t)
{
	__u64 *v = malloc(1100 * 8);

	for (size_t n = 0; n <= 1100 && !t->failed; n += n < 40 ? 1 : 97) {
		fill(v, n, 0x9e3779b97f4a7c15ull * (n + 1));
		round_trip(t, v, n, 0);
	}
	free(v);
}

static void test_truncated(struct test_ctx *t)
{
	__u64 *v = malloc(300 * 8);

	for (size_t n = 1; n <= 300 && !t->failed; n += n < 40 ? 1 : 37) {
		fill(v, n, 0x51ed2701ull * n);
		for (size_t cut = 1; cut <= 9 && !t->failed; cut++) {
			__u8 c[80], d[2400];
			size_t len = svb_encode(v, n, c, d);

			if (cut <= len)
				round_trip(t, v, n, cut);
		}
	}
	free(v);
}

static const struct test_case cases[] = {
	{ "edges", test_edges },
	{ "random_ssse3_vs_scalar", test_random },
	{ "truncated", test_truncated },
};

int main(void)
{
	return RUN_TESTS("col_svb", cases);
}
