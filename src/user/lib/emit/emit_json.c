// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON object of a record, one a line: the header's keys ("time",
 * "ts_ns", "cpu", "pid", "tid", "comm", "event"), then every field by name,
 * numbers as numbers, strings as strings (the one JSON escaper), addresses
 * as "0x..." strings (JSON numbers lose precision past 2^53), a CALL
 * class's arguments under "args", names of enums and flags beside their
 * numbers ("NAME_text").  The line is built whole and leaves in one write
 * (emit_line.h).
 */
#include <string.h>
#include "emit_line.h"

static void put_head(struct gtsc_event_printer *p, struct emit_line *l,
		     const struct gtsc_event_class *c, const struct gtsc_rec_hdr *h)
{
	const char *comm = gtsc_comm_table__get(p->comms, h->pid, h->tid);

	emit_line__str(l, "{\"time\":");
	gt_emit_line__secs(l, p, h->ts_ns, 0);
	emit_line__room(l, 96);
	buf_puts(&l->b, ",\"ts_ns\":");
	buf_digits(&l->b, h->ts_ns, 10, 1);
	buf_puts(&l->b, ",\"cpu\":");
	buf_digits(&l->b, h->cpu, 10, 1);
	buf_puts(&l->b, ",\"pid\":");
	buf_digits(&l->b, h->pid, 10, 1);
	buf_puts(&l->b, ",\"tid\":");
	buf_digits(&l->b, h->tid, 10, 1);
	buf_puts(&l->b, ",\"comm\":");
	gt_emit_line__json(l, comm, strlen(comm));
	emit_line__str(l, ",\"event\":");
	gt_emit_line__json(l, c->name, strlen(c->name));
	if (c->style == GTSC_CLASS_FMT) {
		emit_line__str(l, ",\"group\":");
		gt_emit_line__json(l, c->group, strlen(c->group));
	}
}

/*
 * A tracepoint's field named like a key of the head ("pid" of
 * sched_wakeup) is "field_pid": an object has each key once.
 */
static const char *key_prefix(const struct gtsc_event_class *c, const char *name)
{
	static const char *const head[] = { "time", "ts_ns", "cpu", "pid", "tid", "comm",
					    "event", "group", "truncated" };

	for (size_t i = 0; c->style == GTSC_CLASS_FMT && i < sizeof(head) / sizeof(head[0]); i++)
		if (!strcmp(name, head[i]))
			return "field_";
	return "";
}

/* "PREFIXNAME": of field NAME of class C, then SUFFIX (a colon, or "_text": ...) */
static void put_key(struct emit_line *l, const struct gtsc_event_class *c, const char *name,
		    const char *suffix)
{
	emit_line__mem(l, "\"", 1);
	emit_line__str(l, key_prefix(c, name));
	emit_line__str(l, name);
	emit_line__str(l, suffix);
}

/* N bytes as lowercase hex digit pairs. */
static void put_hex_bytes(struct emit_line *l, const __u8 *s, size_t n)
{
	static const char digits[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		emit_line__room(l, 2);
		buf_putc(&l->b, digits[s[i] >> 4]);
		buf_putc(&l->b, digits[s[i] & 15]);
	}
}

/*
 * The captured user memory of a sys_enter/sys_exit, item by item and raw
 * (records.h): strings as "text", bytes as "hex".  Decoding them per
 * syscall is report --syscalls' job.
 */
static void put_payload(struct emit_line *l, const struct emit_value *v)
{
	static const char *const kinds[] = { "?", "str", "buf", "sockaddr" };
	const __u8 *b = (const __u8 *)v->s;
	size_t left = v->len;
	const char *sep = "";

	emit_line__mem(l, "[", 1);
	while (left >= sizeof(struct gtsc_payload_item)) {
		const struct gtsc_payload_item *it = (const void *)b;
		size_t step = (sizeof(*it) + it->len + 7) & ~(size_t)7;

		if (sizeof(*it) + it->len > left)
			break;
		emit_line__room(l, 128);
		buf_puts(&l->b, sep);
		buf_puts(&l->b, "{\"arg\":");
		buf_digits(&l->b, it->arg, 10, 1);
		buf_puts(&l->b, ",\"kind\":\"");
		buf_puts(&l->b, it->kind < 4 ? kinds[it->kind] : "?");
		buf_puts(&l->b, "\",\"flags\":");
		buf_digits(&l->b, it->flags, 10, 1);
		buf_puts(&l->b, ",\"index\":");
		buf_digits(&l->b, it->index, 10, 1);
		buf_puts(&l->b, ",\"len\":");
		buf_digits(&l->b, it->len, 10, 1);
		if (it->kind == GTSC_PAY_STR) {
			buf_puts(&l->b, ",\"text\":");
			gt_emit_line__json(l, it + 1, it->len);
		} else {
			buf_puts(&l->b, ",\"hex\":\"");
			put_hex_bytes(l, (const __u8 *)(it + 1), it->len);
			emit_line__mem(l, "\"", 1);
		}
		emit_line__mem(l, "}", 1);
		sep = ",";
		b += step;
		left = step < left ? left - step : 0;
	}
	emit_line__mem(l, "]", 1);
}

/* The name beside an enum's, a flag word's or an errno's number, when it has one. */
static void put_text_of(struct emit_line *l, const struct gtsc_event_class *c,
			const struct gtsc_rec_hdr *rec, const struct gtsc_field *f,
			const struct emit_value *v)
{
	char tmp[512];
	struct gtsc_buf b = { tmp, 0, sizeof(tmp) - 1 };

	if (!gt_emit_decoded(c, rec, f, v, &b))
		return;
	emit_line__mem(l, ",", 1);
	put_key(l, c, f->name, "_text\":");
	gt_emit_line__json(l, tmp, b.len);
}

static void put_value(struct emit_line *l, const struct emit_value *v)
{
	switch (v->kind) {
	case EV_STR: gt_emit_line__json(l, v->s, v->len); break;
	case EV_INT:
	case EV_ERRNO: emit_line__i(l, v->i); break;
	case EV_XLAT:
	case EV_FLAGS:
		if (v->is_signed) {
			emit_line__i(l, v->i);
			break;
		}
		/* fall through */
	case EV_UINT:
	case EV_TIME: emit_line__u(l, v->u); break;
	case EV_HEX:
		emit_line__mem(l, "\"", 1);
		emit_line__x(l, v->u);
		emit_line__mem(l, "\"", 1);
		break;
	case EV_BOOL: emit_line__str(l, v->u ? "true" : "false"); break;
	case EV_ARRAY: gt_emit_line__array(l, v); break;
	case EV_PAYLOAD: put_payload(l, v); break;
	case EV_OMIT: break;
	}
}

enum pick { PICK_HEAD, PICK_ARGS, PICK_PAYLOAD, PICK_ALL };

static bool picked(const struct gtsc_field *f, enum pick pick)
{
	switch (pick) {
	case PICK_HEAD: return !(f->flags & GTSC_FF_ARG) && f->type != GTSC_FT_PAYLOAD;
	case PICK_ARGS: return f->flags & GTSC_FF_ARG;
	case PICK_PAYLOAD: return f->type == GTSC_FT_PAYLOAD;
	default: return true;
	}
}

/* "k":v for each field PICK takes, each after a comma unless FIRST_BARE */
static void put_fields(struct gtsc_event_printer *p, struct emit_line *l,
		       const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
		       enum pick pick, bool first_bare)
{
	for (unsigned int i = 0; i < c->nr_fields; i++) {
		const struct gtsc_field *f = &c->fields[i];
		struct emit_value v;

		if (!picked(f, pick))
			continue;
		v = gt_emit_value(p, c, rec, f);
		if (v.kind == EV_OMIT)
			continue;
		if (!first_bare)
			emit_line__mem(l, ",", 1);
		first_bare = false;
		put_key(l, c, f->name, "\":");
		put_value(l, &v);
		if (v.kind == EV_ERRNO || v.kind == EV_XLAT || v.kind == EV_FLAGS)
			put_text_of(l, c, rec, f, &v);
	}
}

void gt_emit_json(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec)
{
	struct emit_line l;

	emit_line__init(&l, p->out);
	put_head(p, &l, c, rec);
	if (c->style == GTSC_CLASS_CALL) {
		put_fields(p, &l, c, rec, PICK_HEAD, false);
		emit_line__str(&l, ",\"args\":{");
		put_fields(p, &l, c, rec, PICK_ARGS, true);
		emit_line__mem(&l, "}", 1);
		put_fields(p, &l, c, rec, PICK_PAYLOAD, false);
	} else {
		put_fields(p, &l, c, rec, PICK_ALL, false);
	}
	if (c->style == GTSC_CLASS_FMT && rec->flags & GTSC_TP_F_TRUNCATED)
		emit_line__str(&l, ",\"truncated\":true");
	emit_line__str(&l, "}\n");
	emit_line__flush(&l);
}

void gt_emit_json_fields(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
			 const struct gtsc_rec_hdr *rec)
{
	struct emit_line l;

	emit_line__init(&l, p->out);
	emit_line__mem(&l, "{", 1);
	put_fields(p, &l, c, rec, PICK_ALL, true);
	emit_line__mem(&l, "}", 1);
	emit_line__flush(&l);
}
