/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stream VByte for the column coder (issue #12's reading goal): a value
 * stream as a control stream, 2 bits a value, and a data stream of the
 * values' little-endian bytes.  Not part of any API; apart so that the unit
 * lane can hold the SSSE3 decoder against the scalar one byte for byte.
 *
 * The 2-bit codes are 1, 2, 4 and 8 bytes (not the classic 1-4): the field
 * streams are 64-bit (timestamp deltas over 2^32, pointers: 0.5% of kmem's
 * values) and this keeps them in the one stream with no escape path to
 * branch on, a pshufb per two values writing the __u64s the field loops
 * take; the cost is a 3-byte value stored in 4.  Values 0..3 of a control
 * byte are its bits 0-1, 2-3, 4-5, 6-7.
 */
#ifndef __GTSC_COL_SVB_H
#define __GTSC_COL_SVB_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* built for any x86-64, chosen at run time (svb_ssse3()) */
#if defined(__x86_64__) && (defined(__clang__) || __GNUC__ >= 5)
#include <tmmintrin.h>
#define SVB_HAVE_SSSE3 1
#endif

static inline unsigned int svb_code(__u64 v)
{
	return v < 1ull << 8 ? 0 : v < 1ull << 16 ? 1 : v < 1ull << 32 ? 2 : 3;
}

#define SVB_LEN(code) (1u << (code))

/* The control bytes for N values. */
static inline size_t svb_ctrl_len(size_t n)
{
	return (n + 3) / 4;
}

/* The N values of V into CTRL (svb_ctrl_len(N) bytes) and DATA (up to 8N); the data bytes. */
static inline size_t svb_encode(const __u64 *v, size_t n, __u8 *ctrl, __u8 *data)
{
	size_t d = 0;

	memset(ctrl, 0, svb_ctrl_len(n));
	for (size_t i = 0; i < n; i++) {
		unsigned int code = svb_code(v[i]);
		__u64 x = v[i];

		ctrl[i / 4] |= code << (2 * (i % 4));
		for (unsigned int b = 0; b < SVB_LEN(code); b++, x >>= 8)
			data[d++] = (__u8)x;
	}
	return d;
}

/*
 * The N values of CTRL (svb_ctrl_len(N) bytes) and DATA, before DEND, into
 * OUT, one value at a time.  Returns the data bytes read, or -1 when the
 * data runs short (nothing read past DEND).
 */
static inline long svb_decode_scalar(const __u8 *ctrl, const __u8 *data, const __u8 *dend, size_t n,
				     __u64 *out)
{
	const __u8 *p = data;

	for (size_t i = 0; i < n; i++) {
		unsigned int len = SVB_LEN((ctrl[i / 4] >> (2 * (i % 4))) & 3);
		__u64 v = 0;

		if ((size_t)(dend - p) < len)
			return -1;
		for (unsigned int b = 0; b < len; b++)
			v |= (__u64)p[b] << (8 * b);
		out[i] = v;
		p += len;
	}
	return p - data;
}

#ifdef SVB_HAVE_SSSE3
/* A nibble of two codes: the shuffle that puts its two values in two __u64 lanes. */
struct svb_pair {
	__u8 shuf[16];
};

static inline void svb_pair_table(struct svb_pair *t, __u8 *len)
{
	for (unsigned int nib = 0; nib < 16; nib++) {
		unsigned int l0 = SVB_LEN(nib & 3), l1 = SVB_LEN(nib >> 2);

		for (unsigned int b = 0; b < 8; b++) {
			t[nib].shuf[b] = b < l0 ? (__u8)b : 0x80;
			t[nib].shuf[8 + b] = b < l1 ? (__u8)(l0 + b) : 0x80;
		}
		len[nib] = (__u8)(l0 + l1);
	}
}

static inline bool svb_ssse3(void)
{
	return __builtin_cpu_supports("ssse3");
}

/*
 * svb_decode_scalar()'s values, two a pshufb, four a control byte while 32
 * data bytes are left (four values take at most 32), the rest one at a
 * time.  T and LEN from svb_pair_table().
 */
static __attribute__((target("ssse3"))) long
svb_decode_ssse3(const struct svb_pair *t, const __u8 *len, const __u8 *ctrl, const __u8 *data,
		 const __u8 *dend, size_t n, __u64 *out)
{
	const __u8 *p = data;
	size_t i = 0;
	long r;

	for (; i + 4 <= n && dend - p >= 32; i += 4) {
		unsigned int c = ctrl[i / 4], lo = c & 15, hi = c >> 4;
		__m128i a = _mm_loadu_si128((const __m128i *)p);
		__m128i b;

		_mm_storeu_si128((__m128i *)(out + i),
				 _mm_shuffle_epi8(a, _mm_loadu_si128((const __m128i *)t[lo].shuf)));
		p += len[lo];
		b = _mm_loadu_si128((const __m128i *)p);
		_mm_storeu_si128((__m128i *)(out + i + 2),
				 _mm_shuffle_epi8(b, _mm_loadu_si128((const __m128i *)t[hi].shuf)));
		p += len[hi];
	}
	if (i == n)
		return p - data;
	/* the tail: CTRL from value I, which starts a control byte */
	r = svb_decode_scalar(ctrl + i / 4, p, dend, n - i, out + i);
	return r < 0 ? -1 : (p - data) + r;
}
#endif

#endif
