// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The text line of a record, perf script's shape:
 *    0.010755223 [001] bash/1234 kmalloc: call_site=alloc_bprm+0x45 ptr=0x...
 *    0.010755223 [001] bash/1234:1240 sys_enter: openat(dfd=-100, ...)
 * Strings a traced program controls go through the text escaper.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <gtsc/buf.h>
#include "emit.h"

static void put_head(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		     const struct gtsc_rec_hdr *h)
{
	fprintf(p->out, "%14.9f [%03u] ", gt_emit_secs(p, h->ts_ns), h->cpu);
	gtsc_fputs_text(p->out, gtsc_comm_table__get(p->comms, h->pid, h->tid));
	fprintf(p->out, "/%u", h->pid);
	if (h->tid != h->pid)
		fprintf(p->out, ":%u", h->tid);
	fputc(' ', p->out);
	gtsc_fputs_text(p->out, c->name);
	fputc(':', p->out);
}

/* The name of an enum, flag word or errno, else its number. */
static void put_named(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		      const struct gtsc_rec_hdr *rec, const struct gtsc_field *f,
		      const struct emit_value *v)
{
	char tmp[512];
	struct gtsc_buf b = { tmp, 0, sizeof(tmp) - 1 };

	if (gt_emit_decoded(c, rec, f, v, &b))
		gtsc_fput_text(p->out, tmp, b.len);
	else if (v->kind == EV_FLAGS)
		fprintf(p->out, "0x%" PRIx64, (uint64_t)v->u);
	else if (v->is_signed)
		fprintf(p->out, "%" PRId64, (int64_t)v->i);
	else
		fprintf(p->out, "%" PRIu64, (uint64_t)v->u);
}

static void put_value(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		      const struct gtsc_rec_hdr *rec, const struct gtsc_field *f,
		      const struct emit_value *v)
{
	switch (v->kind) {
	case EV_STR: gtsc_fput_text(p->out, v->s, v->len); break;
	case EV_INT: fprintf(p->out, "%" PRId64, (int64_t)v->i); break;
	case EV_UINT: fprintf(p->out, "%" PRIu64, (uint64_t)v->u); break;
	case EV_HEX: fprintf(p->out, "0x%" PRIx64, (uint64_t)v->u); break;
	case EV_BOOL: fputs(v->u ? "true" : "false", p->out); break;
	case EV_TIME: fprintf(p->out, "%.9f", gt_emit_secs(p, v->u)); break;
	case EV_ERRNO:
	case EV_XLAT:
	case EV_FLAGS: put_named(p, c, rec, f, v); break;
	case EV_ARRAY: gt_emit_array(p->out, v); break;
	case EV_OMIT:
	case EV_PAYLOAD: break; /* the captured data is report --syscalls' to decode */
	}
}

/* " k=v" each, or with a separator between args: "k=v, k=v" */
static void put_fields(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		       const struct gtsc_rec_hdr *rec, __u8 want_flags, const char *sep,
		       bool lead)
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
		fputs(lead || !first ? sep : "", p->out);
		fprintf(p->out, "%s=", f->text_name ?: f->name);
		put_value(p, c, rec, f, &v);
		first = false;
	}
}

/*
 * A FMT class's own line (a tracepoint's print fmt), escaped as every
 * string is; false when the class cannot say (its fields are shown).
 */
static bool put_line(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		     const struct gtsc_rec_hdr *rec)
{
	char tmp[1024], *line = tmp;
	int n = c->field_text ? c->field_text(c, NULL, rec, tmp, sizeof(tmp)) : -1;

	if (n >= (int)sizeof(tmp)) {
		line = malloc(n + 1);
		n = line ? c->field_text(c, NULL, rec, line, n + 1) : -1;
	}
	if (n >= 0) {
		fputc(' ', p->out);
		gtsc_fput_text(p->out, line, n);
	}
	if (line != tmp)
		free(line);
	return n >= 0;
}

void gt_emit_text(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec)
{
	struct emit_value name;

	put_head(p, c, rec);
	if (c->style == GTSC_CLASS_FMT && put_line(p, c, rec)) {
		/* the line is the class's */
	} else if (c->style == GTSC_CLASS_CALL && c->nr_fields) {
		name = gt_emit_value(p, c, rec, &c->fields[0]);
		fputc(' ', p->out);
		put_value(p, c, rec, &c->fields[0], &name);
		fputc('(', p->out);
		put_fields(p, c, rec, GTSC_FF_ARG, ", ", false);
		fputc(')', p->out);
	} else {
		put_fields(p, c, rec, 0, " ", true);
	}
	fputc('\n', p->out);
}
