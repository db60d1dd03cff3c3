// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * A field's value as both emitters need it: its bytes read at the field's
 * offset (little endian, any size up to 8, sign-extended for signed types),
 * bounded by the record's size, and names looked up in the trace's own
 * metadata (symbols, syscall table, probed functions, channels, caches).
 */
#include <inttypes.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "emit.h"
#include "syscall_compat.h"
#include "syscall_print.h"
#include "xlat.h"

static __u64 get_le(const void *p, size_t size)
{
	__u64 v = 0;

	memcpy(&v, p, size < 8 ? size : 8); /* little endian: low bytes first */
	return v;
}

static __s64 sign_extend(__u64 v, size_t size)
{
	unsigned int shift = size && size < 8 ? 64 - 8 * size : 0; /* a damaged field may be empty */

	return (__s64)(v << shift) >> shift;
}

double gt_emit_secs(const struct gtsc_event_printer *p, __u64 ts_ns)
{
	return (double)((__s64)(ts_ns - p->t0_ns)) / 1e9;
}

/* A syscall's name: the trace's table, the i386 one for a compat record, else syscall_NR. */
static const char *syscall_name(struct gtsc_event_printer *p, const struct gtsc_rec_hdr *rec,
				int nr)
{
	const struct gtsc_syscall_info *si;
	const char *name;

	if (rec->flags & GTSC_SYS_F_COMPAT) {
		name = gt_syscall_compat_name(nr);
	} else {
		si = gtsc_reader__syscall(p->r, nr);
		name = si ? si->name : NULL;
	}
	if (name)
		return name;
	snprintf(p->scratch, sizeof(p->scratch), "syscall_%d", nr);
	return p->scratch;
}

static const char *func_name(struct gtsc_event_printer *p, __u32 id)
{
	const struct gtsc_func_info *fi = gtsc_reader__func(p->r, id);

	if (fi)
		return fi->name;
	snprintf(p->scratch, sizeof(p->scratch), "func_%u", id);
	return p->scratch;
}

/* "sym+0x1a" from the trace's symbols, else hex. */
static const char *symbol(struct gtsc_event_printer *p, __u64 addr)
{
	__u64 off;
	const char *s = gtsc_reader__ksym(p->r, addr, &off);

	if (s)
		snprintf(p->scratch, sizeof(p->scratch), "%s+0x%" PRIx64, s, (uint64_t)off);
	else
		snprintf(p->scratch, sizeof(p->scratch), "0x%" PRIx64, (uint64_t)addr);
	return p->scratch;
}

static const char *channel_name(const struct gtsc_event_printer *p, __u64 id)
{
	GTSC_OPTS(gtsc_reader_channel, ch);

	for (size_t i = 0; !gtsc_reader__channel(p->r, i, &ch); i++)
		if (ch.id == id)
			return ch.name;
	return "?";
}

/* gtsc_printf: text made now, from the formats the trace saved (PRINTF chunk). */
static const char *printf_text(struct gtsc_event_printer *p, const struct gtsc_rec_hdr *rec,
			       __u32 fmt_id)
{
	if (gtsc_reader__format(p->r, rec, p->scratch, sizeof(p->scratch)) < 0)
		snprintf(p->scratch, sizeof(p->scratch), "(format %08x not in the trace)", fmt_id);
	/* printk's habit of a final newline: one line per record */
	p->scratch[strcspn(p->scratch, "\n")] = '\0';
	return p->scratch;
}

static struct emit_value str_value(const char *s)
{
	return (struct emit_value){ .kind = EV_STR, .s = s, .len = strlen(s) };
}

bool gt_emit_is_name(__u8 print)
{
	switch (print) {
	case GTSC_FP_SYM:
	case GTSC_FP_SYSCALL:
	case GTSC_FP_FUNC:
	case GTSC_FP_CACHE:
	case GTSC_FP_CHANNEL:
	case GTSC_FP_PRINTF: return true;
	default: return false;
	}
}

/* A name of the trace's metadata for the number V. */
static struct emit_value named(struct gtsc_event_printer *p, const struct gtsc_rec_hdr *rec,
			       const struct gtsc_field *f, __u64 v)
{
	const char *s;

	switch (f->print) {
	case GTSC_FP_SYM: return str_value(symbol(p, v));
	case GTSC_FP_SYSCALL: return str_value(syscall_name(p, rec, (int)v));
	case GTSC_FP_FUNC: return str_value(func_name(p, (__u32)v));
	case GTSC_FP_CHANNEL: return str_value(channel_name(p, v));
	case GTSC_FP_PRINTF: return str_value(printf_text(p, rec, (__u32)v));
	case GTSC_FP_CACHE:
		s = v ? gt_emit_cache_name(p, v) : NULL;
		return s ? str_value(s) : (struct emit_value){ .kind = EV_OMIT };
	default: return (struct emit_value){ .kind = EV_OMIT };
	}
}

/* A number by its print hint. */
static struct emit_value number(const struct gtsc_event_class *c, const struct gtsc_field *f,
				__u64 raw)
{
	bool named = f->xlat || c->field_text;
	bool is_signed = f->type == GTSC_FT_INT;
	struct emit_value v = { .u = raw, .i = sign_extend(raw, f->size), .is_signed = is_signed };

	switch (f->print) {
	case GTSC_FP_HEX: v.kind = EV_HEX; break;
	case GTSC_FP_BOOL: v.kind = EV_BOOL; break;
	case GTSC_FP_TIME: v.kind = EV_TIME; break;
	case GTSC_FP_ERRNO: v.kind = EV_ERRNO; break;
	case GTSC_FP_XLAT: v.kind = named ? EV_XLAT : is_signed ? EV_INT : EV_UINT; break;
	case GTSC_FP_FLAGS: v.kind = named ? EV_FLAGS : EV_HEX; break;
	default: v.kind = is_signed ? EV_INT : EV_UINT; break;
	}
	if (v.kind == EV_XLAT || v.kind == EV_FLAGS || v.kind == EV_BOOL)
		v.u = is_signed ? (__u64)v.i : raw;
	return v;
}

/* __data_loc: a u32 of (len << 16 | offset from the raw entry) */
static struct emit_value data_loc(const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
				  const struct gtsc_field *f, __u32 loc)
{
	size_t base = f->flags & GTSC_FF_REL_LOC ? (size_t)f->offset + 4 : c->data_offset;
	size_t off = base + (loc & 0xffff), len = loc >> 16, end = rec->size;
	struct emit_value v = { .kind = f->type == GTSC_FT_DYN_STR ? EV_STR : EV_ARRAY };

	if (c->data_len_offset && c->data_len_offset + 2u <= rec->size)
		end = c->data_offset + get_le((const char *)rec + c->data_len_offset, 2);
	end = end < rec->size ? end : rec->size;
	if (off > end)
		return (struct emit_value){ .kind = EV_OMIT };
	/* A field the kernel side cut (GTSC_TP_F_TRUNCATED) shows what was recorded of it. */
	if (len > end - off && c->data_len_offset && rec->flags & GTSC_TP_F_TRUNCATED)
		len = end - off;
	if (len > end - off)
		return (struct emit_value){ .kind = EV_OMIT };
	v.s = (const char *)rec + off;
	v.len = len;
	if (v.kind == EV_STR)
		v.len = strnlen(v.s, len);
	v.elem_size = f->elem_size ?: 1;
	v.is_signed = f->flags & GTSC_FF_SIGNED;
	return v;
}

/* sys_enter/sys_exit: the captured items, bounded by the record and its count */
static struct emit_value payload(const struct gtsc_rec_hdr *rec, const struct gtsc_field *f)
{
	size_t left = rec->size > f->offset ? rec->size - f->offset : 0, len;

	if ((size_t)f->elem_size + 2 > rec->size)
		return (struct emit_value){ .kind = EV_OMIT };
	len = get_le((const char *)rec + f->elem_size, 2);
	if (len > left)
		len = left;
	if (!len)
		return (struct emit_value){ .kind = EV_OMIT };
	return (struct emit_value){ .kind = EV_PAYLOAD, .s = (const char *)rec + f->offset,
				    .len = len };
}

struct emit_value gt_emit_value(struct gtsc_event_printer *p, const struct gtsc_event_class *c,
				const struct gtsc_rec_hdr *rec, const struct gtsc_field *f)
{
	const char *at = (const char *)rec + f->offset;
	__u64 raw;

	if (f->type == GTSC_FT_PAYLOAD)
		return payload(rec, f);
	if ((size_t)f->offset + f->size > rec->size)
		return (struct emit_value){ .kind = EV_OMIT };
	switch (f->type) {
	case GTSC_FT_CHARS:
		return (struct emit_value){ .kind = EV_STR, .s = at, .len = strnlen(at, f->size) };
	case GTSC_FT_ARRAY:
		return (struct emit_value){ .kind = EV_ARRAY, .s = at, .len = f->size,
					    .elem_size = f->elem_size ?: 1,
					    .is_signed = f->flags & GTSC_FF_SIGNED };
	case GTSC_FT_DYN_STR:
	case GTSC_FT_DYN_ARRAY:
		return data_loc(c, rec, f, (__u32)get_le(at, 4));
	default:
		break;
	}
	raw = get_le(at, f->size);
	if (gt_emit_is_name(f->print))
		return named(p, rec, f, f->type == GTSC_FT_INT ? (__u64)sign_extend(raw, f->size)
							    : raw);
	return number(c, f, raw);
}

bool gt_emit_decoded(const struct gtsc_event_class *c, const struct gtsc_rec_hdr *rec,
		     const struct gtsc_field *f, const struct emit_value *v, struct gtsc_buf *b)
{
	const struct xlat_errno *e;
	int n;

	if (v->kind == EV_ERRNO) {
		e = v->i < 0 ? gt_xlat_errno(-v->i) : NULL;
		if (e) {
			gtsc_buf__putc(b, '-');
			gtsc_buf__puts(b, e->name);
		}
		return e;
	}
	if (f->xlat) {
		if (v->kind == EV_XLAT)
			gt_sp_enum(b, f->xlat, v->u);
		else
			gt_sp_flags(b, f->xlat, v->u);
		return true;
	}
	n = c->field_text ? c->field_text(c, f, rec, gtsc_buf__end(b), gtsc_buf__room(b)) : -1;
	return n >= 0 && !gtsc_buf__wrote(b, n);
}

__s64 gt_emit_elem(const struct emit_value *v, size_t i)
{
	__u64 raw = get_le(v->s + i * v->elem_size, v->elem_size);

	return v->is_signed ? sign_extend(raw, v->elem_size) : (__s64)raw;
}
