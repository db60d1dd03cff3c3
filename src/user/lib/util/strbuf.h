/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Growable text buffer for metadata chunks; an allocation failure sticks. */
#ifndef __GTSC_STRBUF_H
#define __GTSC_STRBUF_H

#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t cap;
	bool oom;
};

__attribute__((format(printf, 2, 3))) void gt_strbuf_addf(struct strbuf *sb, const char *fmt, ...);
void gt_strbuf_add(struct strbuf *sb, const void *data, size_t len);
void gt_strbuf_free(struct strbuf *sb);
/* 0, or -ENOMEM if any append failed. */
static inline int strbuf_err(const struct strbuf *sb)
{
	return sb->oom ? -12 : 0;
}

#endif
