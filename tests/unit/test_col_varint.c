// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The column coder's varint decoder (col_varint.h): rdv() and rdv_room(),
 * which check no bound per byte, read what varint_simple() reads, to the
 * byte, wherever the varint sits in its buffer; a varint cut short or too
 * long is refused without reading past the buffer (each buffer here is
 * exactly its bytes, so a sanitizer sees an overrun).
 */
#include <stdlib.h>
#include <string.h>

#include "col_varint.h"
#include "harness.h"

/* The values at the edges of each length, 1 to 10 bytes. */
static size_t edge_values(__u64 *v)
{
	size_t n = 0;

	v[n++] = 0;
	for (unsigned int bits = 7; bits < 64; bits += 7) {
		v[n++] = (1ull << bits) - 1; /* the longest value of bits / 7 bytes */
		v[n++] = 1ull << bits;	     /* the shortest of one more */
		v[n++] = (1ull << bits) + 0x55;
	}
	v[n++] = ~0ull;
	v[n++] = 1ull << 63;
	return n;
}

/* LEN bytes of B then PAD bytes FILL, in a buffer of exactly that (freed by the caller). */
static __u8 *exact(const __u8 *b, size_t len, size_t pad, int fill)
{
	__u8 *p = malloc(len + pad ? len + pad : 1);

	if (p) {
		memcpy(p, b, len);
		memset(p + len, fill, pad);
	}
	return p;
}

/*
 * The varint B[0, LEN) decoded by rdv() with PAD bytes after it in the
 * buffer (0: it ends at the buffer's end, the bounded path; VARINT_MAX or
 * more: the unbounded one), by rdv_room() when there is room, and by
 * varint_simple(): the same value, length and verdict.
 */
static void same_as_simple(struct test_ctx *t, const __u8 *b, size_t len, size_t pad,
			   const char *what)
{
	const __u8 *p, *q, *r, *end;
	bool bad_p = false, bad_q = false, bad_r = false;
	__u64 vp, vq, vr = 0;
	__u8 *m;

	/* padding that would continue a varint run past it */
	m = exact(b, len, pad, 0x83);
	CHECK(t, m, "out of memory");
	if (!m)
		return;
	end = m + len + pad;
	p = q = r = m;
	vp = rdv(&p, end, &bad_p);
	vq = varint_simple(&q, end, &bad_q);
	if (len + pad >= VARINT_MAX)
		vr = rdv_room(&r, &bad_r);
	CHECK(t, bad_p == bad_q, "%s: rdv says bad %d, the simple loop %d", what, bad_p, bad_q);
	CHECK(t, bad_p || (vp == vq && p == q),
	      "%s: rdv read %#llx in %td bytes, the loop %#llx in %td", what,
	      (unsigned long long)vp, p - m, (unsigned long long)vq, q - m);
	CHECK(t, p <= end, "%s: rdv went %td bytes past the end", what, p - end);
	if (len + pad >= VARINT_MAX) {
		CHECK(t, bad_r == bad_q, "%s: rdv_room says bad %d, the loop %d", what, bad_r,
		      bad_q);
		CHECK(t, bad_r || (vr == vq && r == q), "%s: rdv_room read %#llx in %td bytes",
		      what, (unsigned long long)vr, r - m);
	}
	free(m);
}

/* Values of 1 to 10 bytes, up to the largest u64, where the buffer ends and away from it. */
static void test_lengths(struct test_ctx *t)
{
	__u64 v[64];
	size_t n = edge_values(v);

	for (size_t i = 0; i < n && !t->failed; i++) {
		__u8 b[VARINT_MAX];
		size_t len = put_varint(b, v[i]), want = 1;
		char what[64];

		for (__u64 x = v[i]; x >= 0x80; x >>= 7)
			want++;
		CHECK(t, len == want, "%#llx took %zu bytes, not %zu", (unsigned long long)v[i],
		      len, want);
		for (size_t pad = 0; pad <= 2 * VARINT_MAX && !t->failed; pad++) {
			const __u8 *p;
			bool bad = false;
			__u8 *m;

			snprintf(what, sizeof(what), "%#llx, %zu bytes after it",
				 (unsigned long long)v[i], pad);
			same_as_simple(t, b, len, pad, what);
			/* and the value itself, not only what the loop makes of it */
			m = exact(b, len, pad, 0);
			if (!m)
				break;
			p = m;
			CHECK(t, rdv(&p, m + len + pad, &bad) == v[i] && !bad && p == m + len,
			      "%s: not read back", what);
			free(m);
		}
	}
	CHECK(t, n == 30, "%zu edge values", n);
}

/* Each varint cut at each of its bytes, at the buffer's end: refused, nothing read past it. */
static void test_truncated(struct test_ctx *t)
{
	__u64 v[64];
	size_t n = edge_values(v);

	for (size_t i = 0; i < n && !t->failed; i++) {
		__u8 b[VARINT_MAX];
		size_t len = put_varint(b, v[i]);

		for (size_t cut = 0; cut < len && !t->failed; cut++) {
			__u8 *m = exact(b, cut, 0, 0);
			const __u8 *p = m;
			bool bad = false;

			if (!m)
				break;
			rdv(&p, m + cut, &bad);
			CHECK(t, bad, "%#llx cut to %zu of its %zu bytes: not refused",
			      (unsigned long long)v[i], cut, len);
			CHECK(t, p <= m + cut, "%#llx cut to %zu: read %td bytes",
			      (unsigned long long)v[i], cut, p - m);
			free(m);
		}
	}
}

/*
 * What no encoder writes but the decoder has always taken, kept: redundant
 * continuation bytes (0x80 0x00 is 0), a 10th byte's bits above bit 63
 * dropped; an 11th byte refused, with or without room after it.
 */
static void test_redundant(struct test_ctx *t)
{
	static const struct {
		__u8 b[12];
		size_t len;
		__u64 v;
		bool bad;
	} cases[] = {
		{ { 0x80, 0x00 }, 2, 0, false },
		{ { 0x81, 0x80, 0x80, 0x00 }, 4, 1, false },
		{ { 0xff, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 9, 0x7f, false },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 10, 0, false },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f }, 10, ~0ull, false },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7e }, 10, 0, false },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x03 }, 10, 1ull << 63, false },
		{ { 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00 }, 11, 0, true },
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 }, 11, 0, true },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && !t->failed; i++) {
		for (size_t pad = 0; pad <= VARINT_MAX && !t->failed; pad += VARINT_MAX) {
			__u8 *m = exact(cases[i].b, cases[i].len, pad, 0);
			const __u8 *p = m, *r = m;
			bool bad = false, bad_r = false;
			__u64 v, vr;
			char what[48];

			if (!m)
				break;
			snprintf(what, sizeof(what), "case %zu, %zu bytes after it", i, pad);
			same_as_simple(t, cases[i].b, cases[i].len, pad, what);
			v = rdv(&p, m + cases[i].len + pad, &bad);
			CHECK(t, bad == cases[i].bad, "%s: bad %d", what, bad);
			CHECK(t, bad || (v == cases[i].v && p == m + cases[i].len),
			      "%s: %#llx in %td bytes, not %#llx in %zu", what,
			      (unsigned long long)v, p - m, (unsigned long long)cases[i].v,
			      cases[i].len);
			if (cases[i].len + pad >= VARINT_MAX) {
				vr = rdv_room(&r, &bad_r);
				CHECK(t, bad_r == cases[i].bad && (bad_r || vr == cases[i].v),
				      "%s: rdv_room read %#llx, bad %d", what,
				      (unsigned long long)vr, bad_r);
			}
			free(m);
		}
	}
}

/*
 * A run of values of every length read to its buffer's end: the reads go
 * from the unbounded path to the bounded one within the last VARINT_MAX
 * bytes, whatever the length of the varint that crosses that line.
 */
static void test_run_to_end(struct test_ctx *t)
{
	__u64 v[64], vals[256];
	size_t ne = edge_values(v);

	for (size_t shift = 0; shift < ne && !t->failed; shift++) {
		__u8 buf[256 * VARINT_MAX], *m;
		size_t len = 0, n = 0;
		const __u8 *p;
		bool bad = false;

		/* every length, then the shifted start lands a different one on the line */
		for (size_t i = 0; i < 40; i++) {
			vals[n] = v[(shift + i * 7) % ne];
			len += put_varint(buf + len, vals[n++]);
		}
		m = exact(buf, len, 0, 0);
		if (!m)
			break;
		p = m;
		for (size_t i = 0; i < n && !t->failed; i++) {
			__u64 got = rdv(&p, m + len, &bad);

			CHECK(t, !bad && got == vals[i],
			      "start %zu: value %zu of %zu read %#llx, not %#llx", shift, i, n,
			      (unsigned long long)got, (unsigned long long)vals[i]);
		}
		CHECK(t, p == m + len, "start %zu: %td bytes left", shift, m + len - p);
		/* one more read at the end: refused, nothing read */
		CHECK(t, (rdv(&p, m + len, &bad), bad) && p == m + len,
		      "start %zu: a read past the end", shift);
		free(m);
	}
}

static const struct test_case cases[] = {
	{ "lengths", test_lengths },
	{ "truncated", test_truncated },
	{ "redundant", test_redundant },
	{ "run_to_end", test_run_to_end },
};

int main(void)
{
	return RUN_TESTS("col_varint", cases);
}
