/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* What the line writers share inside the library (<gtsc/buf.h> is the API). */
#ifndef __GTSC_BUF_UTIL_H
#define __GTSC_BUF_UTIL_H

#include <stdbool.h>
#include <string.h>
#include <gtsc/buf.h>

/* Out of line: the callers' bounds stay out of its view (a cut copy of a short array). */
static __attribute__((noinline, unused)) void buf_copy(char *d, const char *s, size_t n)
{
	memcpy(d, s, n);
}

/*
 * gtsc_buf__putmem()'s body.  Most appends are a few bytes (digits,
 * punctuation, a syscall's name): those copy with fixed-size moves, which
 * the compiler inlines, instead of a call to memcpy.
 */
static inline __attribute__((always_inline)) void buf_putmem(struct gtsc_buf *b, const void *s,
							     size_t n)
{
	const char *src = s;
	char *d;

	if (n > b->cap - b->len) {
		b->lost += n - (b->cap - b->len);
		n = b->cap - b->len;
	}
	d = b->p + b->len;
	b->len += n;
	if (n >= 8 && n <= 16) {
		memcpy(d, src, 8);
		memcpy(d + n - 8, src + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(d, src, 4);
		memcpy(d + n - 4, src + n - 4, 4);
	} else if (n && n < 4) {
		d[0] = src[0];
		d[n / 2] = src[n / 2];
		d[n - 1] = src[n - 1];
	} else if (n) { /* a zero-sized line may have no memory at all */
		buf_copy(d, src, n);
	}
}

static inline __attribute__((always_inline)) void buf_putc(struct gtsc_buf *b, char c)
{
	if (b->len < b->cap)
		b->p[b->len++] = c;
	else
		b->lost++;
}

static inline __attribute__((always_inline)) void buf_puts(struct gtsc_buf *b, const char *s)
{
	buf_putmem(b, s, strlen(s));
}

/* How many decimal digits V has, 1 to 20: counted by comparisons, no multiply a digit. */
static inline __attribute__((always_inline)) size_t buf_ndigits(__u64 v)
{
	size_t n = 1;

	for (__u64 p = 10; n < 20 && v >= p; p *= 10)
		n++;
	return n;
}

/*
 * Digits of V in BASE, at least MIN_DIGITS of them, written in place when
 * they fit.  The base is a constant in each caller once inlined: no
 * division instruction on the hot path.
 */
static inline __attribute__((always_inline)) void buf_digits(struct gtsc_buf *b, __u64 v,
							      unsigned int base, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24], *d;
	int n = 1;

	if (base == 10) {
		n = (int)buf_ndigits(v);
	} else if (base == 16 || base == 8) {
		int bits = 64 - __builtin_clzll(v | 1), per = base == 16 ? 4 : 3;

		n = (bits + per - 1) / per;
	} else {
		for (__u64 t = v / base; t; t /= base)
			n++;
	}
	if (n < min_digits)
		n = min_digits;
	if ((size_t)n <= b->cap - b->len) {
		d = b->p + b->len + n;
		b->len += n;
	} else {
		d = tmp + n; /* cut: put what fits */
	}
	for (int i = 0; i < n; i++) {
		*--d = digits[v % base];
		v /= base;
	}
	if (d == tmp)
		buf_putmem(b, tmp, n);
}

/*
 * V as exactly N decimal digits (leading zeros; V < 10^N, N a constant once
 * inlined) at D, which has room.  Each pair comes from V itself through a
 * table: the divisions (multiplications by constants) do not wait on one
 * another as buf_digits()'s digit after digit do.
 */
static inline __attribute__((always_inline)) void buf_fixed(char *d, __u64 v, const int n)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
				    "25262728293031323334353637383940414243444546474849"
				    "50515253545556575859606162636465666768697071727374"
				    "75767778798081828384858687888990919293949596979899";
	__u64 p = 1;
	int i;

	for (i = n; i >= 2; i -= 2, p *= 100)
		memcpy(d + i - 2, &pairs[v / p % 100 * 2], 2);
	if (i)
		d[0] = (char)('0' + v / p % 10);
}

/*
 * NS nanoseconds as [-]seconds.fraction with FRAC decimals (6: down to the
 * microsecond, truncated; 9: the nanosecond), right-aligned in WIDTH: the
 * seconds of gtsc_buf__put_secs() and of the emitters' lines.  Written in
 * place; false when it does not fit (only the padding went in).
 */
static inline __attribute__((always_inline)) bool buf_secs(struct gtsc_buf *b, __s64 ns,
							   int width, const int frac)
{
	__u64 a = ns < 0 ? -(__u64)ns : (__u64)ns, s = a / 1000000000;
	__u64 f = frac == 6 ? a % 1000000000 / 1000 : a % 1000000000;
	size_t ds = buf_ndigits(s), n = (ns < 0) + ds + 1 + frac;
	char *d;

	for (size_t i = n; i < (size_t)(width > 0 ? width : 0); i++)
		buf_putc(b, ' ');
	if (n > b->cap - b->len)
		return false;
	d = b->p + b->len;
	b->len += n;
	if (ns < 0)
		*d++ = '-';
	for (size_t i = ds; i-- > 0; s /= 10)
		d[i] = (char)('0' + s % 10);
	d[ds] = '.';
	buf_fixed(d + ds + 1, f, frac);
	return true;
}

static inline __attribute__((always_inline)) void buf_puti(struct gtsc_buf *b, __s64 v)
{
	if (v < 0) {
		buf_putc(b, '-');
		buf_digits(b, -(__u64)v, 10, 1);
		return;
	}
	buf_digits(b, v, 10, 1);
}

/*
 * The library's own lines take the appends above inline (the CLI calls the
 * exported functions, which are these).
 */
#ifndef GTSC_BUF_EXPORTS
#define gtsc_buf__putc(b, c) buf_putc(b, c)
#define gtsc_buf__putmem(b, s, n) buf_putmem(b, s, n)
#define gtsc_buf__puts(b, s) buf_puts(b, s)
#define gtsc_buf__putu(b, v) buf_digits(b, v, 10, 1)
#define gtsc_buf__puti(b, v) buf_puti(b, v)
#endif

#endif
