/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the line writers share inside the library (<gtsc/buf.h> is the API). */
#ifndef __GTSC_BUF_UTIL_H
#define __GTSC_BUF_UTIL_H

#include <gtsc/buf.h>

/*
 * Digits of V in BASE, at least MIN_DIGITS of them.  The base is a constant
 * in each caller once inlined: no division instruction on the hot path.
 */
static inline __attribute__((always_inline)) void buf_digits(struct gtsc_buf *b, __u64 v,
							      unsigned int base, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - ++n] = digits[v % base];
		v /= base;
	} while (v || n < min_digits);
	gtsc_buf__putmem(b, tmp + sizeof(tmp) - n, n);
}

#endif
