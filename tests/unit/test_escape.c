// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The two escapers of <gtsc/buf.h>: text shows no control character and no
 * byte that is not UTF-8 raw (strace's escapes), JSON is valid for strict
 * parsers and gives the bytes back (lone surrogates \udcXX).  The live side
 * (tests/live/test_escape.sh) parses real reports with python3 and jq.
 */
#include "harness.h"
#include <gtsc/buf.h>

static const char *text(char *out, size_t size, const char *s, size_t n)
{
	struct gtsc_buf b = { out, 0, size - 1 };

	gtsc_buf__put_text(&b, s, n);
	out[b.len] = '\0';
	return out;
}

static const char *json(char *out, size_t size, const char *s, size_t n)
{
	struct gtsc_buf b = { out, 0, size - 1 };

	gtsc_buf__put_json(&b, s, n);
	out[b.len] = '\0';
	return out;
}

#define EXPECT(t, fn, in, want)                                                                    \
	do {                                                                                       \
		char o_[256];                                                                      \
		fn(o_, sizeof(o_), in, sizeof(in) - 1);                                            \
		CHECK(t, !strcmp(o_, want), #fn "(%s) gave '%s', expected '%s'", #in, o_, want);   \
	} while (0)

static void test_text(struct test_ctx *t)
{
	EXPECT(t, text, "bash", "bash");
	/* a terminal title and a clear: ESC and BEL never go out raw */
	EXPECT(t, text, "\x1b]0;x\x07\x1b[2J", "\\33]0;x\\7\\33[2J");
	EXPECT(t, text, "a\tb\nc\\d", "a\\tb\\nc\\\\d");
	/* octal is three digits when a digit follows (strace) */
	EXPECT(t, text, "\x01" "7\x01", "\\0017\\1");
	EXPECT(t, text, "\x7f", "\\177");
	/* valid UTF-8 stays; a C1 control in UTF-8 (U+009B, CSI) does not */
	EXPECT(t, text, "caf\xc3\xa9", "caf\xc3\xa9");
	EXPECT(t, text, "\xc2\x9b" "1m", "\\302\\2331m");
	/* bytes that are not UTF-8: a lone C1 byte, 0xff, a cut sequence, an overlong */
	EXPECT(t, text, "\x9b\xff\xe2\x82", "\\233\\377\\342\\202");
	EXPECT(t, text, "\xc0\xaf", "\\300\\257");
	/* a UTF-16 surrogate encoded in UTF-8 is not UTF-8 */
	EXPECT(t, text, "\xed\xa0\x80", "\\355\\240\\200");
	EXPECT(t, text, "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");
}

static void test_json(struct test_ctx *t)
{
	EXPECT(t, json, "a\"b\\c", "\"a\\\"b\\\\c\"");
	EXPECT(t, json, "\x1b[2J\x7f", "\"\\u001b[2J\\u007f\"");
	EXPECT(t, json, "caf\xc3\xa9", "\"caf\xc3\xa9\"");
	EXPECT(t, json, "\xc2\x9b", "\"\\u009b\"");
	/* surrogateescape: each byte that is not UTF-8 is \udc80 + (byte - 0x80) */
	EXPECT(t, json, "\xff\x9b\xe2\x82", "\"\\udcff\\udc9b\\udce2\\udc82\"");
	EXPECT(t, json, "a\0b", "\"a\\u0000b\"");
}

/* A line too short for the escape keeps what fits and counts the rest. */
static void test_cut(struct test_ctx *t)
{
	char out[8];
	struct gtsc_buf b = { out, 0, sizeof(out) - 1 };

	gtsc_buf__put_json(&b, "\xff\xff", 2);
	CHECK(t, b.len == 7 && b.lost == 7, "len %zu lost %zu, expected 7 and 7", b.len, b.lost);
}

/* Numbers at their digit-count edges, as printf writes them; cut lines keep what fits. */
static void test_numbers(struct test_ctx *t)
{
	static const __u64 u[] = { 0, 7, 8, 9, 10, 15, 16, 99, 100, 999999, 1000000,
				   9999999999999999999ULL, 10000000000000000000ULL, ~0ULL };
	char out[64], want[64];
	struct gtsc_buf b;

	for (size_t i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
		b = (struct gtsc_buf){ out, 0, sizeof(out) - 1 };
		gtsc_buf__putu(&b, u[i]);
		gtsc_buf__putc(&b, ' ');
		gtsc_buf__puti(&b, -(__s64)u[i]);
		gtsc_buf__putc(&b, ' ');
		gtsc_buf__putx(&b, u[i]);
		out[b.len] = '\0';
		snprintf(want, sizeof(want), "%llu %lld %#llx", (unsigned long long)u[i],
			 (long long)-(__s64)u[i], (unsigned long long)u[i]);
		CHECK(t, !strcmp(out, want), "'%s', expected '%s'", out, want);
	}
	b = (struct gtsc_buf){ out, 0, sizeof(out) - 1 };
	gtsc_buf__put_secs(&b, -1500000, 10);
	gtsc_buf__put_secs(&b, 12000001000LL, 0);
	out[b.len] = '\0';
	CHECK(t, !strcmp(out, " -0.00150012.000001"), "put_secs gave '%s'", out);
	b = (struct gtsc_buf){ out, 0, 3 };
	gtsc_buf__putu(&b, 12345);
	CHECK(t, b.len == 3 && b.lost == 2 && !memcmp(out, "123", 3), "cut number: len %zu lost %zu",
	      b.len, b.lost);
	for (size_t n = 0; n <= 20; n++) {
		b = (struct gtsc_buf){ out, 0, sizeof(out) - 1 };
		memset(out, '.', sizeof(out));
		gtsc_buf__putmem(&b, "abcdefghijklmnopqrstuvwxyz", n);
		CHECK(t, b.len == n && !memcmp(out, "abcdefghijklmnopqrstuvwxyz", n) && out[n] == '.',
		      "putmem of %zu bytes", n);
	}
}

/* What put_secs() writes, by printf. */
static void secs_want(char *out, size_t size, __s64 ns, int width)
{
	__u64 a = ns < 0 ? -(__u64)ns : (__u64)ns;
	char tmp[48];

	snprintf(tmp, sizeof(tmp), "%s%llu.%06llu", ns < 0 ? "-" : "",
		 (unsigned long long)(a / 1000000000), (unsigned long long)(a % 1000000000 / 1000));
	snprintf(out, size, "%*s", width, tmp);
}

/*
 * Decimal numbers and seconds (buf_util.h) against printf: values around
 * every power of ten, seconds of both signs padded to widths, and every
 * cut of the buffer, which keeps what fits and counts the rest lost.
 */
static void test_digits(struct test_ctx *t)
{
	char out[96], want[96], secs[48];
	struct gtsc_buf b;
	__u64 p = 1;

	for (int k = 0; k < 20 && !t->failed; k++, p *= 10) {
		__u64 vals[] = { p - 1, p, p + 1, p * 3 + 7, ~0ULL - p };

		for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]) && !t->failed; i++) {
			__s64 ns = (__s64)(vals[i] >> 1) * (i & 1 ? -1 : 1);
			int w = (int)(vals[i] % 29);
			size_t full;

			secs_want(secs, sizeof(secs), ns, w);
			full = (size_t)snprintf(want, sizeof(want), "%llu %s",
						(unsigned long long)vals[i], secs);
			for (size_t cap = full + 1; cap-- > 0 && !t->failed;) {
				b = (struct gtsc_buf){ out, 0, cap };
				gtsc_buf__putu(&b, vals[i]);
				gtsc_buf__putc(&b, ' ');
				gtsc_buf__put_secs(&b, ns, w);
				CHECK(t, b.len == cap && b.lost == full - cap && !memcmp(out, want, cap),
				      "'%.*s' (lost %zu), expected '%.*s' of '%s'", (int)b.len, out,
				      b.lost, (int)cap, want, want);
			}
		}
	}
}

static const struct test_case cases[] = {
	{ "text", test_text },
	{ "json", test_json },
	{ "cut", test_cut },
	{ "numbers", test_numbers },
	{ "digits", test_digits },
};

int main(void)
{
	return RUN_TESTS("escape", cases);
}
