// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The JSON object of a record, one a line: the header's keys ("time",
 * "ts_ns", "cpu", "pid", "tid", "comm", "event"), then every field by name,
 * numbers as numbers, strings as strings (the one JSON escaper), addresses
 * as "0x..." strings (JSON numbers lose precision past 2^53), a CALL
 * class's arguments under "args", names of enums and flags beside their
 * numbers ("NAME_text").
 */
#include <inttypes.h>
#include <string.h>
#include <gtsc/buf.h>
#include "emit.h"

static void put_head(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		     const struct gtsc_rec_hdr *h)
{
	fprintf(p->out,
		"{\"time\":%.9f,\"ts_ns\":%" PRIu64 ",\"cpu\":%u,\"pid\":%u,\"tid\":%u,\"comm\":",
		gt_emit_secs(p, h->ts_ns), (uint64_t)h->ts_ns, h->cpu, h->pid, h->tid);
	gtsc_fputs_json(p->out, gtsc_comm_table__get(p->comms, h->pid, h->tid));
	fputs(",\"event\":", p->out);
	gtsc_fputs_json(p->out, c->name);
	if (c->style == GTSC_CLASS_FMT) {
		fputs(",\"group\":", p->out);
		gtsc_fputs_json(p->out, c->group);
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

/*
 * The captured user memory of a sys_enter/sys_exit, item by item and raw
 * (records.h): strings as "text", bytes as "hex".  Decoding them per
 * syscall is report --syscalls' job.
 */
static void put_payload(FILE *out, const struct emit_value *v)
{
	static const char *const kinds[] = { "?", "str", "buf", "sockaddr" };
	const __u8 *b = (const __u8 *)v->s;
	size_t left = v->len;
	const char *sep = "";

	fputc('[', out);
	while (left >= sizeof(struct gtsc_payload_item)) {
		const struct gtsc_payload_item *it = (const void *)b;
		size_t step = (sizeof(*it) + it->len + 7) & ~(size_t)7;

		if (sizeof(*it) + it->len > left)
			break;
		fprintf(out, "%s{\"arg\":%u,\"kind\":\"%s\",\"flags\":%u,\"index\":%u,\"len\":%u,", sep,
			it->arg, it->kind < 4 ? kinds[it->kind] : "?", it->flags, it->index, it->len);
		if (it->kind == GTSC_PAY_STR) {
			fputs("\"text\":", out);
			gtsc_fput_json(out, it + 1, it->len);
		} else {
			fputs("\"hex\":\"", out);
			for (size_t i = 0; i < it->len; i++)
				fprintf(out, "%02x", ((const __u8 *)(it + 1))[i]);
			fputc('"', out);
		}
		fputc('}', out);
		sep = ",";
		b += step;
		left = step < left ? left - step : 0;
	}
	fputc(']', out);
}

/* The name beside an enum's, a flag word's or an errno's number, when it has one. */
static void put_text_of(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
			const struct gtsc_rec_hdr *rec, const struct gtsc_field *f,
			const struct emit_value *v)
{
	char tmp[512];
	struct gtsc_buf b = { tmp, 0, sizeof(tmp) - 1 };

	if (!gt_emit_decoded(c, rec, f, v, &b))
		return;
	fprintf(p->out, ",\"%s%s_text\":", key_prefix(c, f->name), f->name);
	gtsc_fput_json(p->out, tmp, b.len);
}

static void put_value(struct gtsc_event_printer *p, const struct emit_value *v)
{
	switch (v->kind) {
	case EV_STR: gtsc_fput_json(p->out, v->s, v->len); break;
	case EV_INT:
	case EV_ERRNO: fprintf(p->out, "%" PRId64, (int64_t)v->i); break;
	case EV_XLAT:
	case EV_FLAGS:
		if (v->is_signed) {
			fprintf(p->out, "%" PRId64, (int64_t)v->i);
			break;
		}
		/* fall through */
	case EV_UINT:
	case EV_TIME: fprintf(p->out, "%" PRIu64, (uint64_t)v->u); break;
	case EV_HEX: fprintf(p->out, "\"0x%" PRIx64 "\"", (uint64_t)v->u); break;
	case EV_BOOL: fputs(v->u ? "true" : "false", p->out); break;
	case EV_ARRAY: gt_emit_array(p->out, v); break;
	case EV_PAYLOAD: put_payload(p->out, v); break;
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
static void put_fields(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		       const struct gtsc_rec_hdr *rec, enum pick pick, bool first_bare)
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
			fputc(',', p->out);
		first_bare = false;
		fprintf(p->out, "\"%s%s\":", key_prefix(c, f->name), f->name);
		put_value(p, &v);
		if (v.kind == EV_ERRNO || v.kind == EV_XLAT || v.kind == EV_FLAGS)
			put_text_of(p, c, rec, f, &v);
	}
}

void gt_emit_json(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
		  const struct gtsc_rec_hdr *rec)
{
	put_head(p, c, rec);
	if (c->style == GTSC_CLASS_CALL) {
		put_fields(p, c, rec, PICK_HEAD, false);
		fputs(",\"args\":{", p->out);
		put_fields(p, c, rec, PICK_ARGS, true);
		fputc('}', p->out);
		put_fields(p, c, rec, PICK_PAYLOAD, false);
	} else {
		put_fields(p, c, rec, PICK_ALL, false);
	}
	if (c->style == GTSC_CLASS_FMT && rec->flags & GTSC_TP_F_TRUNCATED)
		fputs(",\"truncated\":true", p->out);
	fputs("}\n", p->out);
}

void gt_emit_json_fields(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
			 const struct gtsc_rec_hdr *rec)
{
	fputc('{', p->out);
	put_fields(p, c, rec, PICK_ALL, true);
	fputc('}', p->out);
}
