// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Output lines and the escapers of text and JSON (<gtsc/buf.h>): one of
 * each for every output, so that no report can print a traced program's
 * bytes raw.  No printf and no allocation: they run for every line of
 * reports of millions of events.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#define GTSC_BUF_EXPORTS /* this file defines them */
#include "buf_util.h"

GTSC_API void gtsc_buf__putmem(struct gtsc_buf *b, const void *s, size_t n)
{
	buf_putmem(b, s, n);
}

GTSC_API void gtsc_buf__putc(struct gtsc_buf *b, char c)
{
	buf_putc(b, c);
}

GTSC_API void gtsc_buf__puts(struct gtsc_buf *b, const char *s)
{
	buf_puts(b, s);
}

GTSC_API void gtsc_buf__putu(struct gtsc_buf *b, __u64 v)
{
	buf_digits(b, v, 10, 1);
}

GTSC_API void gtsc_buf__puti(struct gtsc_buf *b, __s64 v)
{
	buf_puti(b, v);
}

GTSC_API void gtsc_buf__putx(struct gtsc_buf *b, __u64 v)
{
	if (v)
		buf_puts(b, "0x");
	buf_digits(b, v, 16, 1);
}

/*
 * Written in place when it fits: built aside and copied, the copy's 8-byte
 * load waited for the digits' byte stores (a store-forwarding stall), and
 * the six digits for one another (buf_fixed() computes them apart).  This
 * was 9.7% of `report --syscalls`' CPU (two a line); in place, the
 * openread trace's 3.3 M calls print in 902 ms instead of 928 (one thread,
 * medians of 7 alternating).
 */
GTSC_API void gtsc_buf__put_secs(struct gtsc_buf *b, __s64 ns, int width)
{
	__u64 a = ns < 0 ? -(__u64)ns : (__u64)ns;
	char tmp[40];
	struct gtsc_buf t = { tmp, 0, sizeof(tmp) - 1, 0 };

	if (buf_secs(b, ns, width, 6))
		return;
	/* cut: what fits of it */
	if (ns < 0)
		buf_putc(&t, '-');
	buf_digits(&t, a / 1000000000, 10, 1);
	buf_putc(&t, '.');
	buf_digits(&t, a % 1000000000 / 1000, 10, 6);
	buf_putmem(b, tmp, t.len);
}

/*
 * Length of the valid UTF-8 sequence at S (N bytes left), 0 if S[0] does not
 * start one: no overlong forms, no surrogates, nothing past U+10FFFF.  *CP
 * gets the code point.
 */
static size_t utf8_len(const __u8 *s, size_t n, __u32 *cp)
{
	size_t len;
	__u32 c, min;

	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

/* How many bytes from S on go out as they are: printable ASCII but QUOTE and the backslash. */
static size_t plain_run(const __u8 *s, const __u8 *end, __u8 quote)
{
	const __u8 *p = s;

	while (p < end && *p >= 0x20 && *p < 0x7f && *p != '\\' && *p != quote)
		p++;
	return p - s;
}

/* strace's octal: short unless a digit follows, which would join it. */
static void put_octal(struct gtsc_buf *b, __u8 c, const __u8 *next, const __u8 *end)
{
	bool digit_next = next < end && *next >= '0' && *next <= '9';

	buf_putc(b, '\\');
	buf_digits(b, c, 8, digit_next ? 3 : 1);
}

GTSC_API void gtsc_buf__put_text(struct gtsc_buf *b, const void *str, size_t n)
{
	static const char c_esc[256] = { ['\t'] = 't', ['\n'] = 'n', ['\v'] = 'v',
					 ['\f'] = 'f', ['\r'] = 'r', ['\\'] = '\\' };
	const __u8 *s = str, *end = s + n;

	while (s < end) {
		size_t len = plain_run(s, end, '\\');
		__u32 cp;

		if (len) {
			buf_putmem(b, s, len);
			s += len;
			continue;
		}
		len = 1;
		if (c_esc[*s]) {
			buf_putc(b, '\\');
			buf_putc(b, c_esc[*s]);
		} else if (*s >= 0x80 && (len = utf8_len(s, end - s, &cp)) && cp >= 0xa0) {
			buf_putmem(b, s, len);
		} else {
			/* C0, DEL, a C1 control in UTF-8 (each of its bytes), not UTF-8 */
			len = len ?: 1;
			for (size_t i = 0; i < len; i++)
				put_octal(b, s[i], s + i + 1, end);
		}
		s += len;
	}
}

GTSC_API void gtsc_buf__put_json(struct gtsc_buf *b, const void *str, size_t n)
{
	const __u8 *s = str, *end = s + n;

	buf_putc(b, '"');
	while (s < end) {
		size_t len = plain_run(s, end, '"');
		__u32 cp;

		if (len) {
			buf_putmem(b, s, len);
			s += len;
			continue;
		}
		len = 1;
		if (*s == '"' || *s == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, *s);
		} else if (*s < 0x80) {
			buf_puts(b, "\\u00");
			buf_digits(b, *s, 16, 2);
		} else if ((len = utf8_len(s, end - s, &cp))) {
			if (cp < 0xa0) { /* C1: terminals act on it too */
				buf_puts(b, "\\u00");
				buf_digits(b, cp, 16, 2);
			} else {
				buf_putmem(b, s, len);
			}
		} else {
			len = 1;
			buf_puts(b, "\\udc");
			buf_digits(b, *s, 16, 2);
		}
		s += len;
	}
	buf_putc(b, '"');
}

/*
 * Escapes S whole (an octal escape looks at the byte after it): on the stack
 * for a comm or a path, from the heap for longer.  A byte escapes to at
 * most 6 ("\udcff").
 */
static void fput_escaped(FILE *f, const void *s, size_t n, bool json)
{
	char stack[1024], *tmp = stack;
	size_t need = 6 * n + 3;
	struct gtsc_buf b;

	if (!json && plain_run(s, (const __u8 *)s + n, '\\') == n) {
		fwrite(s, 1, n, f); /* the common case: nothing to escape */
		return;
	}
	if (need > sizeof(stack) && !(tmp = malloc(need))) {
		fputs(json ? "\"\"" : "?", f);
		return;
	}
	b = (struct gtsc_buf){ tmp, 0, need - 1, 0 };
	if (json)
		gtsc_buf__put_json(&b, s, n);
	else
		gtsc_buf__put_text(&b, s, n);
	fwrite(tmp, 1, b.len, f);
	if (tmp != stack)
		free(tmp);
}

GTSC_API void gtsc_fput_text(FILE *f, const void *s, size_t n)
{
	fput_escaped(f, s, n, false);
}

GTSC_API void gtsc_fput_json(FILE *f, const void *s, size_t n)
{
	fput_escaped(f, s, n, true);
}
