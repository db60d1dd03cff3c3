/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The line an emitter builds (emit_text.c, emit_json.c): a buffer on the
 * stack, written with one fwrite when the record is done or when a piece
 * would not fit.  With stdio per piece (fprintf of the time as a double, of
 * every name and number) printing was most of `report`'s CPU: on an
 * openread trace (bench/report_speed.sh's workload, 6.6 M events), perf put
 * 27% in vfprintf, 14% in the double's digits and 12% in stdio's stream
 * calls.  Built here: `report` 3.79 -> 1.69 s CPU, `report --json` 4.93
 * -> 2.00 (medians of 5 alternating, 2026-11-27), output byte for byte the
 * same.
 */
#ifndef __GTSC_EMIT_LINE_H
#define __GTSC_EMIT_LINE_H
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "buf_util.h"
#include "emit.h"

#define EMIT_LINE_BYTES 4096

struct emit_line {
	struct gtsc_buf b;
	FILE *out;
	char mem[EMIT_LINE_BYTES];
};

static inline void emit_line__init(struct emit_line *l, FILE *out)
{
	l->b = (struct gtsc_buf){ l->mem, 0, sizeof(l->mem), 0 };
	l->out = out;
}

static inline void emit_line__flush(struct emit_line *l)
{
	fwrite(l->b.p, 1, l->b.len, l->out);
	l->b.len = 0;
}

/* Room for N more bytes, what the line holds going out first if need be; false: N never fits. */
static inline bool emit_line__room(struct emit_line *l, size_t n)
{
	if (n > l->b.cap - l->b.len)
		emit_line__flush(l);
	return n <= l->b.cap;
}

/* Bytes that need no escaping (names of the trace's metadata, punctuation). */
static inline void emit_line__mem(struct emit_line *l, const char *s, size_t n)
{
	if (emit_line__room(l, n))
		buf_putmem(&l->b, s, n);
	else
		fwrite(s, 1, n, l->out); /* after the flush: in order */
}

static inline void emit_line__str(struct emit_line *l, const char *s)
{
	emit_line__mem(l, s, strlen(s));
}

static inline void emit_line__u(struct emit_line *l, __u64 v)
{
	emit_line__room(l, 24);
	buf_digits(&l->b, v, 10, 1);
}

static inline void emit_line__i(struct emit_line *l, __s64 v)
{
	emit_line__room(l, 24);
	buf_puti(&l->b, v);
}

/* 0x and lowercase hex digits, "0x0" for zero: printf's "0x%" PRIx64 */
static inline void emit_line__x(struct emit_line *l, __u64 v)
{
	emit_line__room(l, 24);
	buf_putmem(&l->b, "0x", 2);
	buf_digits(&l->b, v, 16, 1);
}

/* N bytes of S escaped for text (no quotes) or as a JSON string (quotes included). */
void gt_emit_line__text(struct emit_line *l, const void *s, size_t n);
void gt_emit_line__json(struct emit_line *l, const void *s, size_t n);
/* TS_NS as seconds from P's start, nine decimals, in WIDTH: printf("%*.9f") of gt_emit_secs() */
void gt_emit_line__secs(struct emit_line *l, const struct gtsc_event_printer *p, __u64 ts_ns,
			int width);
/* An EV_ARRAY value as text and JSON both show it: [1,-2,3]. */
void gt_emit_line__array(struct emit_line *l, const struct emit_value *v);
#endif
