// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <string.h>
#include "line_buf.h"

void lb_putmem(struct line_buf *b, const void *s, size_t n)
{
	if (n > b->cap - b->len)
		n = b->cap - b->len;
	memcpy(b->p + b->len, s, n);
	b->len += n;
}

void lb_putc(struct line_buf *b, char c)
{
	if (b->len < b->cap)
		b->p[b->len++] = c;
}

void lb_puts(struct line_buf *b, const char *s)
{
	lb_putmem(b, s, strlen(s));
}

/*
 * Digits of V in BASE, at least MIN_DIGITS of them.  The base is a constant
 * in each caller once inlined: no division instruction on the hot path.
 */
static inline __attribute__((always_inline)) void put_digits(struct line_buf *b, __u64 v,
							     unsigned int base, int min_digits)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof(tmp) - ++n] = digits[v % base];
		v /= base;
	} while (v || n < min_digits);
	lb_putmem(b, tmp + sizeof(tmp) - n, n);
}

void lb_putu(struct line_buf *b, __u64 v)
{
	put_digits(b, v, 10, 1);
}

void lb_put_secs(struct line_buf *b, __s64 ns, int width)
{
	__u64 a = ns < 0 ? -(__u64)ns : (__u64)ns;
	char tmp[40];
	struct line_buf t = { tmp, 0, sizeof(tmp) - 1 };

	if (ns < 0)
		lb_putc(&t, '-');
	lb_putu(&t, a / 1000000000);
	lb_putc(&t, '.');
	put_digits(&t, a % 1000000000 / 1000, 10, 6);
	for (int i = (int)t.len; i < width; i++)
		lb_putc(b, ' ');
	lb_putmem(b, tmp, t.len);
}

void lb_put_json_str(struct line_buf *b, const char *s, size_t n)
{
	lb_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\') {
			lb_putc(b, '\\');
			lb_putc(b, c);
		} else if (c < 0x20) {
			lb_puts(b, "\\u00");
			put_digits(b, c, 16, 2);
		} else {
			lb_putc(b, c);
		}
	}
	lb_putc(b, '"');
}
