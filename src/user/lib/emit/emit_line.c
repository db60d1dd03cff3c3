// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The emitters' line (emit_line.h): what is too big to inline. */
#include "emit_line.h"

/* A byte escapes to at most 6 ("\udcff"; fput_escaped() in buf.c), plus the quotes. */
void gt_emit_line__text(struct emit_line *l, const void *s, size_t n)
{
	if (emit_line__room(l, 6 * n + 3))
		gtsc_buf__put_text(&l->b, s, n);
	else
		gtsc_fput_text(l->out, s, n);
}

void gt_emit_line__json(struct emit_line *l, const void *s, size_t n)
{
	if (emit_line__room(l, 6 * n + 3))
		gtsc_buf__put_json(&l->b, s, n);
	else
		gtsc_fput_json(l->out, s, n);
}

/*
 * From the integer while the double's spacing is under a nanosecond, so
 * that printf would round it back to the same digits: up to 2^22 s (48
 * days) from the start, where half its spacing is 2^-32 s.  Beyond, printf
 * of the double itself.  Digits in place, as gtsc_buf__put_secs() writes.
 */
void gt_emit_line__secs(struct emit_line *l, const struct gtsc_event_printer *p, __u64 ts_ns,
			int width)
{
	__s64 ns = (__s64)(ts_ns - p->t0_ns);
	__u64 a = ns < 0 ? -(__u64)ns : (__u64)ns;
	char tmp[64];
	int len;

	emit_line__room(l, sizeof(tmp) + (width > 0 ? (size_t)width : 0));
	if (a < (1ull << 22) * 1000000000ull) {
		buf_secs(&l->b, ns, width, 9); /* fits: room was made */
		return;
	}
	len = snprintf(tmp, sizeof(tmp), "%*.9f", width, gt_emit_secs(p, ts_ns));
	buf_putmem(&l->b, tmp, len > 0 && (size_t)len < sizeof(tmp) ? (size_t)len : 0);
}

void gt_emit_line__array(struct emit_line *l, const struct emit_value *v)
{
	emit_line__mem(l, "[", 1);
	for (size_t i = 0; i < v->len / v->elem_size; i++) {
		emit_line__room(l, 24);
		if (i)
			buf_putc(&l->b, ',');
		buf_puti(&l->b, gt_emit_elem(v, i));
	}
	emit_line__mem(l, "]", 1);
}
