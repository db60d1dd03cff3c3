// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * zlib's CRC-32 by folding with PCLMULQDQ ("Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ Instruction", Gopal, Ozturk et al., Intel
 * 2009; the bit-reflected constants are the paper's).  Every DATA chunk is
 * checked before it is read, and zlib's table-driven crc32 ran at a few GB/s:
 * a sixth of the time of reading an uncompressed trace.
 */
#include <zlib.h>
#include "trace_crc.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_MIN 64

/*
 * ~CRC of BUF; LEN is at least FOLD_MIN and a multiple of 16, CRC is
 * already inverted (zlib's pre- and post-conditioning is the caller's).
 */
__attribute__((target("pclmul,sse4.1"))) static __u32 crc32_fold(const unsigned char *buf,
								size_t len, __u32 crc)
{
	const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596, 0x0154442bd4);
	const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009e, 0x01751997d0);
	const __m128i k5k0 = _mm_set_epi64x(0, 0x0163cd6124);
	const __m128i poly = _mm_set_epi64x(0x01f7011641, 0x01db710641);
	const __m128i mask32 = _mm_setr_epi32(~0, 0, ~0, 0);
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, x8;

	x1 = _mm_loadu_si128((const __m128i *)(buf + 0x00));
	x2 = _mm_loadu_si128((const __m128i *)(buf + 0x10));
	x3 = _mm_loadu_si128((const __m128i *)(buf + 0x20));
	x4 = _mm_loadu_si128((const __m128i *)(buf + 0x30));
	x1 = _mm_xor_si128(x1, _mm_cvtsi32_si128((int)crc));
	buf += 64;
	len -= 64;

	/* four independent folds of 64 bytes keep the multiplier busy */
	while (len >= 64) {
		x5 = _mm_clmulepi64_si128(x1, k1k2, 0x00);
		x6 = _mm_clmulepi64_si128(x2, k1k2, 0x00);
		x7 = _mm_clmulepi64_si128(x3, k1k2, 0x00);
		x8 = _mm_clmulepi64_si128(x4, k1k2, 0x00);
		x1 = _mm_clmulepi64_si128(x1, k1k2, 0x11);
		x2 = _mm_clmulepi64_si128(x2, k1k2, 0x11);
		x3 = _mm_clmulepi64_si128(x3, k1k2, 0x11);
		x4 = _mm_clmulepi64_si128(x4, k1k2, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x5),
				   _mm_loadu_si128((const __m128i *)(buf + 0x00)));
		x2 = _mm_xor_si128(_mm_xor_si128(x2, x6),
				   _mm_loadu_si128((const __m128i *)(buf + 0x10)));
		x3 = _mm_xor_si128(_mm_xor_si128(x3, x7),
				   _mm_loadu_si128((const __m128i *)(buf + 0x20)));
		x4 = _mm_xor_si128(_mm_xor_si128(x4, x8),
				   _mm_loadu_si128((const __m128i *)(buf + 0x30)));
		buf += 64;
		len -= 64;
	}

	/* the four lanes into one, then the 16-byte blocks left */
	x0 = k3k4;
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x3), x5);
	x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
	x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
	x1 = _mm_xor_si128(_mm_xor_si128(x1, x4), x5);
	while (len >= 16) {
		x2 = _mm_loadu_si128((const __m128i *)buf);
		x5 = _mm_clmulepi64_si128(x1, x0, 0x00);
		x1 = _mm_clmulepi64_si128(x1, x0, 0x11);
		x1 = _mm_xor_si128(_mm_xor_si128(x1, x2), x5);
		buf += 16;
		len -= 16;
	}

	/* 128 bits to 64 */
	x2 = _mm_clmulepi64_si128(x1, x0, 0x10);
	x1 = _mm_xor_si128(_mm_srli_si128(x1, 8), x2);
	x2 = _mm_srli_si128(x1, 4);
	x1 = _mm_and_si128(x1, mask32);
	x1 = _mm_clmulepi64_si128(x1, k5k0, 0x00);
	x1 = _mm_xor_si128(x1, x2);

	/* Barrett reduction to 32 bits */
	x2 = _mm_and_si128(x1, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x10);
	x2 = _mm_and_si128(x2, mask32);
	x2 = _mm_clmulepi64_si128(x2, poly, 0x00);
	x1 = _mm_xor_si128(x1, x2);
	return (__u32)_mm_extract_epi32(x1, 1);
}

__u32 gt_trace_crc32(__u32 crc, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (len >= FOLD_MIN && __builtin_cpu_supports("pclmul") &&
	    __builtin_cpu_supports("sse4.1")) {
		size_t n = len & ~(size_t)15;

		crc = ~crc32_fold(p, n, ~crc);
		p += n;
		len -= n;
	}
	/* crc32() with a NULL buffer returns the seed value 0, not CRC */
	return len ? (__u32)crc32_z(crc, p, len) : crc;
}

#else

__u32 gt_trace_crc32(__u32 crc, const void *buf, size_t len)
{
	return len ? (__u32)crc32_z(crc, buf, len) : crc;
}

#endif
