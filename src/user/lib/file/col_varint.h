/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The column coder's LEB128 varints (col_codec.c), apart so that the unit
 * lane can hold the fast decoder against the simple loop byte for byte.
 * Not part of any API.
 */
#ifndef __GTSC_COL_VARINT_H
#define __GTSC_COL_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>
#include <linux/types.h>

/* The most bytes of a varint: 10 for 64 bits, the 10th adding only bit 63. */
#define VARINT_MAX 10

static inline size_t put_varint(__u8 *p, __u64 v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (__u8)v | 0x80;
		v >>= 7;
	}
	p[n++] = (__u8)v;
	return n;
}

/*
 * The varint at *PP, before END, the simple way; what the decoder accepts
 * is defined here: up to VARINT_MAX bytes, redundant continuation bytes
 * allowed (0x80 0x00 is 0), the bits of the 10th byte above bit 63
 * dropped.  A stream that runs dry or an 11th byte sets *BAD and returns 0
 * (*PP then points anywhere up to END).
 */
static inline __u64 varint_simple(const __u8 **pp, const __u8 *end, bool *bad)
{
	const __u8 *p = *pp;
	__u64 v = 0;

	for (unsigned int shift = 0; p < end && shift < 64; shift += 7) {
		__u8 b = *p++;

		v |= (__u64)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*pp = p;
			return v;
		}
	}
	*pp = p;
	*bad = true;
	return 0;
}

/* The slow path of rdv(): fewer than VARINT_MAX bytes left. */
static __attribute__((noinline)) __u64 rdv_tail(const __u8 **pp, const __u8 *end, bool *bad)
{
	return varint_simple(pp, end, bad);
}

/*
 * The varint at *PP, as varint_simple() reads it, when the caller knows
 * that VARINT_MAX bytes are left.  Most values are one byte.  BAD is only
 * written for a varint longer than any encoder writes.
 *
 * A loop that branches on each byte beat a decoder without a branch on
 * the length (when a varint is longer than a byte, 8 bytes loaded at once,
 * the length from __builtin_ctzll(~x & 0x8080808080808080), the 7-bit
 * groups gathered with shifts and masks or with BMI2's pext): the decoder
 * alone on a kmem_load trace (6.6 M records, 80% of its varints one byte,
 * 11% two, 9% three to five; projected as --kmem reads; best of 9, two
 * runs, load ~1.8, EPYC Zen 4) 23.1 -> 26.0 ns per record with shifts,
 * 24.0-24.8 with pext.  The loop's branches are predicted and the next
 * varint's address with them; without them each address waits for the
 * load and the count of the one before.
 */
static __attribute__((always_inline)) inline __u64 rdv_room(const __u8 **pp, bool *bad)
{
	const __u8 *p = *pp;
	__u64 v, b;

	b = *p++;
	if (__builtin_expect(b < 0x80, 1)) {
		*pp = p;
		return b;
	}
	v = b & 0x7f;
	for (unsigned int shift = 7; shift < 70; shift += 7) {
		b = *p++;
		v |= (b & 0x7f) << shift;
		if (b < 0x80) {
			*pp = p;
			return v;
		}
	}
	*bad = true;
	return 0;
}

/*
 * The varint at *PP, before END.  BAD is only written when a stream runs
 * dry or a varint is longer than any encoder writes.
 */
static __attribute__((always_inline)) inline __u64 rdv(const __u8 **pp, const __u8 *end, bool *bad)
{
	if (__builtin_expect(end - *pp < VARINT_MAX, 0)) {
		/* a copy: the address of *PP would keep the caller's position out of a register */
		const __u8 *q = *pp;
		__u64 v = rdv_tail(&q, end, bad);

		*pp = q;
		return v;
	}
	return rdv_room(pp, bad);
}

#endif
