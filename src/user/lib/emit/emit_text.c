// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text line of a record, perf script's shape:
 *    0.010755223 [001] bash/1234 kmalloc: call_site=alloc_bprm+0x45 ptr=0x...
 *    0.010755223 [001] bash/1234:1240 sys_enter: openat(dfd=-100, ...)
 * Strings a traced program controls go through the text escaper.  The line
 * is built whole and leaves in one write (emit_line.h).
 */
#include <stdlib.h>
#include <string.h>
#include "emit_line.h"

static void put_head(struct gtsc_event_printer *p, struct emit_line *l,
		     const struct gtsc_event_class *c, const struct gtsc_rec_hdr *h)
{
	const char *comm = gtsc_comm_table__get(p->comms, h->pid, h->tid);

	gt_emit_line__secs(l, p, h->ts_ns, 14);
	emit_line__room(l, 16); /* " [" CPU (up to 65535) "] " */
	buf_putmem(&l->b, " [", 2);
	buf_digits(&l->b, h->cpu, 10, 3);
	buf_putmem(&l->b, "] ", 2);
	gt_emit_line__text(l, comm, strlen(comm));
	emit_line__room(l, 24);
	buf_putc(&l->b, '/');
	buf_digits(&l->b, h->pid, 10, 1);
	if (h->tid != h->pid) {
		buf_putc(&l->b, ':');
		buf_digits(&l->b, h->tid, 10, 1);
	}
	buf_putc(&l->b, ' ');
	gt_emit_line__text(l, c->name, strlen(c->name));
	emit_line__mem(l, ":", 1);
}

/* The name of an enum, flag word or errno, else its number. */
static void put_named(struct emit_line *l, const struct gtsc_event_class *c,
		      const struct gtsc_rec_hdr *rec, const struct gtsc_field *f,
		      const struct emit_value *v)
{
	char tmp[512];
	struct gtsc_buf b = { tmp, 0, sizeof(tmp) - 1 };

	if (gt_emit_decoded(c, rec, f, v, &b))
		gt_emit_line__text(l, tmp, b.len);
	else if (v->kind == EV_FLAGS)
		emit_line__x(l, v->u);
	else if (v->is_signed)
		emit_line__i(l, v->i);
	else
		emit_line__u(l, v->u);
}

static void put_value(struct gtsc_event_printer *p, struct emit_line *l,
		      const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
		      const struct gtsc_field *f, const struct emit_value *v)
{
	switch (v->kind) {
	case EV_STR: gt_emit_line__text(l, v->s, v->len); break;
	case EV_INT: emit_line__i(l, v->i); break;
	case EV_UINT: emit_line__u(l, v->u); break;
	case EV_HEX: emit_line__x(l, v->u); break;
	case EV_BOOL: emit_line__str(l, v->u ? "true" : "false"); break;
	case EV_TIME: gt_emit_line__secs(l, p, v->u, 0); break;
	case EV_ERRNO:
	case EV_XLAT:
	case EV_FLAGS: put_named(l, c, rec, f, v); break;
	case EV_ARRAY: gt_emit_line__array(l, v); break;
	case EV_OMIT:
	case EV_PAYLOAD: break; /* the captured data is report --syscalls' to decode */
	}
}

/* " k=v" each, or with a separator between args: "k=v, k=v" */
static void put_fields(struct gtsc_event_printer *p, struct emit_line *l,
		       const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
		       __u8 want_flags, const char *sep, bool lead)
{
	bool first = true;

	for (unsigned int i = 0; i < c->nr_fields; i++) {
		const struct gtsc_field *f = &c->fields[i];
		struct emit_value v;

		if ((f->flags & GTSC_FF_ARG) != want_flags)
			continue;
		v = gt_emit_value(p, c, rec, f);
		if (v.kind == EV_OMIT || v.kind == EV_PAYLOAD)
			continue;
		if (lead || !first)
			emit_line__str(l, sep);
		emit_line__str(l, f->text_name ?: f->name);
		emit_line__mem(l, "=", 1);
		put_value(p, l, c, rec, f, &v);
		first = false;
	}
}

/*
 * A FMT class's own line (a tracepoint's print fmt), escaped as every
 * string is; false when the class cannot say (its fields are shown).
 */
static bool put_line(struct emit_line *l, const struct gtsc_event_class *c,
		     const struct gtsc_rec_hdr *rec)
{
	char tmp[1024], *text = tmp;
	int n = c->field_text ? c->field_text(c, NULL, rec, tmp, sizeof(tmp)) : -1;

	if (n >= (int)sizeof(tmp)) {
		text = malloc(n + 1);
		n = text ? c->field_text(c, NULL, rec, text, n + 1) : -1;
	}
	if (n >= 0) {
		emit_line__mem(l, " ", 1);
		gt_emit_line__text(l, text, n);
	}
	if (text != tmp)
		free(text);
	return n >= 0;
}

void gt_emit_text(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec)
{
	struct emit_line l;
	struct emit_value name;

	emit_line__init(&l, p->out);
	put_head(p, &l, c, rec);
	if (c->style == GTSC_CLASS_FMT && put_line(&l, c, rec)) {
		/* the line is the class's */
	} else if (c->style == GTSC_CLASS_CALL && c->nr_fields) {
		name = gt_emit_value(p, c, rec, &c->fields[0]);
		emit_line__mem(&l, " ", 1);
		put_value(p, &l, c, rec, &c->fields[0], &name);
		emit_line__mem(&l, "(", 1);
		put_fields(p, &l, c, rec, GTSC_FF_ARG, ", ", false);
		emit_line__mem(&l, ")", 1);
	} else {
		put_fields(p, &l, c, rec, 0, " ", true);
	}
	emit_line__mem(&l, "\n", 1);
	emit_line__flush(&l);
}
