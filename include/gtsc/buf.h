/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/**
 * @file buf.h
 * @brief Output lines built without printf, and the one escaper of each
 * output kind.  Every string a traced program controls (a comm, a path, a
 * cache name, captured data) goes out through these:
 *  - text: what a terminal shows is what the bytes are.  Control characters
 *    (C0, DEL, C1) and bytes that are not UTF-8 are written as strace writes
 *    them: \t \n \r \v \f, else octal (\33, \377; three digits when a digit
 *    follows); a backslash is doubled.  Valid UTF-8 is kept.
 *  - JSON: valid for strict parsers.  Controls are \u00XX; a byte that is
 *    not part of valid UTF-8 is the lone surrogate \udcXX (Python's
 *    surrogateescape), so s.encode("utf-8", "surrogateescape") gives the
 *    bytes back.
 */
#ifndef __GTSC_BUF_H
#define __GTSC_BUF_H

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/types.h>
#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/**
 * A fixed-capacity line: P holds CAP + 1 bytes (the NUL of an snprintf-style
 * writer fits after a full line).  Appends past CAP are dropped, never
 * overflow, and counted in LOST (len + lost is what snprintf would return).
 */
struct gtsc_buf {
	char *p;
	size_t len, cap;
	size_t lost;
};

GTSC_API void gtsc_buf__putc(struct gtsc_buf *b, char c);
GTSC_API void gtsc_buf__puts(struct gtsc_buf *b, const char *s);
GTSC_API void gtsc_buf__putmem(struct gtsc_buf *b, const void *s, size_t n);
GTSC_API void gtsc_buf__putu(struct gtsc_buf *b, __u64 v);
GTSC_API void gtsc_buf__puti(struct gtsc_buf *b, __s64 v);
/** 0 or 0x1f */
GTSC_API void gtsc_buf__putx(struct gtsc_buf *b, __u64 v);
/** NS as seconds with microseconds, right-aligned in WIDTH: "  0.000123". */
GTSC_API void gtsc_buf__put_secs(struct gtsc_buf *b, __s64 ns, int width);
/** N bytes of S escaped for text (above), no quotes added. */
GTSC_API void gtsc_buf__put_text(struct gtsc_buf *b, const void *s, size_t n);
/** N bytes of S as a JSON string, quotes included. */
GTSC_API void gtsc_buf__put_json(struct gtsc_buf *b, const void *s, size_t n);

/** The same escapers onto a stdio stream: N bytes of S. */
GTSC_API void gtsc_fput_text(FILE *f, const void *s, size_t n);
GTSC_API void gtsc_fput_json(FILE *f, const void *s, size_t n);

/** The same for a NUL-terminated S. */
static inline void gtsc_fputs_text(FILE *f, const char *s)
{
	gtsc_fput_text(f, s, strlen(s));
}

static inline void gtsc_fputs_json(FILE *f, const char *s)
{
	gtsc_fput_json(f, s, strlen(s));
}

/** S escaped for text into DST (SIZE bytes, NUL included; cut to fit), for %-16s columns. */
static inline const char *gtsc_text(char *dst, size_t size, const char *s)
{
	struct gtsc_buf b = { dst, 0, size - 1, 0 };

	gtsc_buf__put_text(&b, s, strlen(s));
	dst[b.len] = '\0';
	return dst;
}

/** Where an snprintf-style writer appends, and its size (NUL included). */
static inline char *gtsc_buf__end(const struct gtsc_buf *b)
{
	return b->p + b->len;
}

static inline size_t gtsc_buf__room(const struct gtsc_buf *b)
{
	return b->cap - b->len + 1;
}

/** Takes what such a writer returned: N bytes (some maybe cut), or -errno. */
static inline int gtsc_buf__wrote(struct gtsc_buf *b, int n)
{
	size_t room = b->cap - b->len;

	if (n < 0)
		return n;
	if ((size_t)n > room)
		b->lost += (size_t)n - room;
	b->len += (size_t)n < room ? (size_t)n : room;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* __GTSC_BUF_H */
