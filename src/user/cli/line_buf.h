/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Output lines of report --syscalls, built without printf: the report
 * writes millions of them.  Appends past CAP are dropped, never overflow.
 */
#ifndef __GTSC_CLI_LINE_BUF_H
#define __GTSC_CLI_LINE_BUF_H

#include <stddef.h>
#include <linux/types.h>

/* P holds CAP + 1 bytes: the NUL of an snprintf-style writer fits after a full line. */
struct line_buf {
	char *p;
	size_t len, cap;
};

void lb_putc(struct line_buf *b, char c);
void lb_puts(struct line_buf *b, const char *s);
void lb_putmem(struct line_buf *b, const void *s, size_t n);
void lb_putu(struct line_buf *b, __u64 v);
/* NS as seconds with microseconds, right-aligned in WIDTH: "  0.000123". */
void lb_put_secs(struct line_buf *b, __s64 ns, int width);
/* N bytes of S as a JSON string, quotes included. */
void lb_put_json_str(struct line_buf *b, const char *s, size_t n);

/* Where an snprintf-style writer appends, and its size (NUL included). */
static inline char *lb_end(const struct line_buf *b)
{
	return b->p + b->len;
}

static inline size_t lb_room(const struct line_buf *b)
{
	return b->cap - b->len + 1;
}

/* Takes what such a writer returned: N bytes (some maybe cut), or -errno. */
static inline int lb_wrote(struct line_buf *b, int n)
{
	if (n < 0)
		return n;
	b->len += (size_t)n < b->cap - b->len ? (size_t)n : b->cap - b->len;
	return 0;
}

#endif
