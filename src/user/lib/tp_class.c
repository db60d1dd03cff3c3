// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "tp_class.h"

static void field_kind(struct gtsc_field *g, const struct tep_format_field *f)
{
	bool chars = strstr(f->type, "char") != NULL;

	g->elem_size = f->elementsize;
	if (f->flags & TEP_FIELD_IS_DYNAMIC) {
		/* libtraceevent calls u8[] a string too: bytes are an array here */
		g->type = chars ? GTSC_FT_DYN_STR : GTSC_FT_DYN_ARRAY;
		g->size = 4;
	} else if (f->flags & TEP_FIELD_IS_ARRAY) {
		g->type = chars ? GTSC_FT_CHARS : GTSC_FT_ARRAY;
	} else {
		g->type = f->flags & TEP_FIELD_IS_SIGNED ? GTSC_FT_INT : GTSC_FT_UINT;
		if (f->flags & TEP_FIELD_IS_POINTER)
			g->print = GTSC_FP_HEX;
	}
	if (!g->elem_size && (g->type == GTSC_FT_ARRAY || g->type == GTSC_FT_DYN_ARRAY))
		g->elem_size = 1;
}

static bool arg_decodes(const struct tep_print_arg *a)
{
	if (!a)
		return false;
	switch (a->type) {
	case TEP_PRINT_FLAGS:
	case TEP_PRINT_SYMBOL: return true;
	case TEP_PRINT_TYPE: return arg_decodes(a->typecast.item);
	case TEP_PRINT_OP: return arg_decodes(a->op.left) || arg_decodes(a->op.right);
	default: return false;
	}
}

/* The first field ARG reads. */
static const char *arg_field(const struct tep_print_arg *a)
{
	const char *n;

	if (!a)
		return NULL;
	switch (a->type) {
	case TEP_PRINT_FIELD: return a->field.name;
	case TEP_PRINT_FLAGS: return arg_field(a->flags.field);
	case TEP_PRINT_SYMBOL: return arg_field(a->symbol.field);
	case TEP_PRINT_TYPE: return arg_field(a->typecast.item);
	case TEP_PRINT_OP:
		n = arg_field(a->op.left);
		return n ? n : arg_field(a->op.right);
	default: return NULL;
	}
}

/* The print fmt's top-level args that turn a field into text, by field. */
static void find_decoders(struct tp_class *c)
{
	for (struct tep_print_arg *a = c->ev->print_fmt.args; a; a = a->next) {
		const char *name = arg_decodes(a) ? arg_field(a) : NULL;

		for (unsigned int i = 0; name && i < c->cls.nr_fields; i++) {
			struct tep_print_arg **d = &c->decode[i * TP_MAX_DECODE];

			if (strcmp(c->fields[i].name, name))
				continue;
			for (int k = 0; k < TP_MAX_DECODE; k++)
				if (!d[k]) {
					d[k] = a;
					break;
				}
			break;
		}
	}
}

int tp_class__init(struct tp_class *c, struct tep_event *ev, __u16 data_offset)
{
	unsigned int n = 0;

	memset(c, 0, sizeof(*c));
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next)
		n++;
	c->fields = calloc(n ?: 1, sizeof(*c->fields));
	c->tf = calloc(n ?: 1, sizeof(*c->tf));
	c->decode = calloc((n ?: 1) * TP_MAX_DECODE, sizeof(*c->decode));
	if (!c->fields || !c->tf || !c->decode) {
		tp_class__fini(c);
		return -ENOMEM;
	}
	n = 0;
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		struct gtsc_field *g = &c->fields[n];

		c->tf[n++] = f;
		g->name = f->name;
		g->offset = data_offset + f->offset;
		g->size = f->size;
		field_kind(g, f);
	}
	c->ev = ev;
	c->cls = (struct gtsc_event_class){ .group = ev->system, .name = ev->name,
					    .fields = c->fields, .nr_fields = n,
					    .data_offset = data_offset };
	find_decoders(c);
	for (unsigned int i = 0; i < n; i++)
		if (c->decode[i * TP_MAX_DECODE])
			c->fields[i].print = GTSC_FP_FLAGS;
	return 0;
}

void tp_class__fini(struct tp_class *c)
{
	free(c->fields);
	free(c->tf);
	free(c->decode);
	memset(c, 0, sizeof(*c));
}

/* ---- values ---- */

static __u64 read_uint(const __u8 *p, unsigned int size)
{
	switch (size) {
	case 1: return *p;
	case 2: return *(const __u16 *)p;
	case 4: return *(const __u32 *)p;
	case 8: return *(const __u64 *)p;
	default: return 0;
	}
}

static __s64 read_int(const __u8 *p, unsigned int size)
{
	switch (size) {
	case 1: return *(const __s8 *)p;
	case 2: return *(const __s16 *)p;
	case 4: return *(const __s32 *)p;
	case 8: return *(const __s64 *)p;
	default: return 0;
	}
}

/*
 * Strings as JSON: bytes that are not printable ASCII as \u00XX, so any
 * byte a comm or path holds survives (the field layer's escaper will
 * replace this one).
 */
static void json_str(struct strbuf *sb, const __u8 *s, size_t len)
{
	strbuf_addf(sb, "\"");
	for (size_t i = 0; i < len && s[i]; i++) {
		if (s[i] == '"' || s[i] == '\\')
			strbuf_addf(sb, "\\%c", s[i]);
		else if (s[i] < 0x20 || s[i] >= 0x7f)
			strbuf_addf(sb, "\\u%04x", s[i]);
		else
			strbuf_add(sb, &s[i], 1);
	}
	strbuf_addf(sb, "\"");
}

static void json_elems(struct strbuf *sb, const __u8 *p, size_t len, unsigned int es, bool sgn)
{
	strbuf_addf(sb, "[");
	for (size_t i = 0; es && i + es <= len; i += es) {
		if (sgn)
			strbuf_addf(sb, "%s%lld", i ? "," : "", (long long)read_int(p + i, es));
		else
			strbuf_addf(sb, "%s%llu", i ? "," : "",
				    (unsigned long long)read_uint(p + i, es));
	}
	strbuf_addf(sb, "]");
}

/* A __data_loc/__rel_loc's data, clamped to the SIZE bytes recorded. */
static const __u8 *dyn_data(const struct tp_class *c, unsigned int i, const __u8 *rec,
			    size_t size, size_t *len)
{
	const struct gtsc_field *g = &c->fields[i];
	__u32 loc = *(const __u32 *)(rec + g->offset);
	size_t off = loc & 0xffff;

	off += c->cls.data_offset;
	if (c->tf[i]->flags & TEP_FIELD_IS_RELATIVE)
		off += g->offset + 4 - c->cls.data_offset;
	*len = loc >> 16;
	if (off > size)
		off = size;
	if (off + *len > size)
		*len = size - off;
	return rec + off;
}

/* ---- __print_flags / __print_symbolic, as libtraceevent prints them ---- */

static bool eval(const struct tep_event *ev, const struct tep_print_arg *a, const __u8 *entry,
		 __u64 *num, const char **str, struct strbuf *sb);

static void put_flags(const struct tep_print_arg_flags *fl, __u64 v, struct strbuf *sb)
{
	bool any = false;

	for (const struct tep_print_flag_sym *f = fl->flags; f; f = f->next) {
		__u64 fv = strtoull(f->value, NULL, 0);

		if (!v && !fv) {
			strbuf_addf(sb, "%s", f->str);
			return;
		}
		if (fv && (v & fv) == fv) {
			strbuf_addf(sb, "%s%s", any && fl->delim ? fl->delim : "", f->str);
			any = true;
			v &= ~fv;
		}
	}
	if (v)
		strbuf_addf(sb, "%s0x%llx", any && fl->delim ? fl->delim : "", (unsigned long long)v);
}

static void put_symbol(const struct tep_print_flag_sym *s, __u64 v, struct strbuf *sb)
{
	for (; s; s = s->next)
		if (strtoull(s->value, NULL, 0) == v) {
			strbuf_addf(sb, "%s", s->str);
			return;
		}
	strbuf_addf(sb, "0x%llx", (unsigned long long)v);
}

static __u64 binop(const char *op, __u64 l, __u64 r)
{
	static const char *const ops[] = { "&", "|", "^", "+", "-", "*", "<<", ">>", "==",
					   "!=", "<", ">", "<=", ">=", "&&", "||" };
	int i = 0;

	while (i < 16 && strcmp(op, ops[i]))
		i++;
	switch (i) {
	case 0: return l & r;
	case 1: return l | r;
	case 2: return l ^ r;
	case 3: return l + r;
	case 4: return l - r;
	case 5: return l * r;
	case 6: return l << (r & 63);
	case 7: return l >> (r & 63);
	case 8: return l == r;
	case 9: return l != r;
	case 10: return l < r;
	case 11: return l > r;
	case 12: return l <= r;
	case 13: return l >= r;
	case 14: return l && r;
	case 15: return l || r;
	default: return 0;
	}
}

static bool eval_op(const struct tep_event *ev, const struct tep_print_arg_op *op,
		    const __u8 *entry, __u64 *num, const char **str, struct strbuf *sb)
{
	__u64 l = 0, r = 0;
	const char *ls = NULL, *rs = NULL;

	if (!strcmp(op->op, "?")) {
		const struct tep_print_arg *branch = op->right;

		if (!eval(ev, op->left, entry, &l, &ls, sb) || ls || !branch ||
		    branch->type != TEP_PRINT_OP)
			return false;
		return eval(ev, l ? branch->op.left : branch->op.right, entry, num, str, sb);
	}
	if (op->left && !eval(ev, op->left, entry, &l, &ls, sb))
		return false;
	if (!eval(ev, op->right, entry, &r, &rs, sb) || ls || rs)
		return false;
	if (!op->left) /* unary */
		*num = !strcmp(op->op, "!") ? !r : !strcmp(op->op, "~") ? ~r : -r;
	else
		*num = binop(op->op, l, r);
	return true;
}

/* A number, or a string (*STR, or appended to SB for flags and symbols); false: cannot say. */
static bool eval(const struct tep_event *ev, const struct tep_print_arg *a, const __u8 *entry,
		 __u64 *num, const char **str, struct strbuf *sb)
{
	struct tep_format_field *f;
	__u64 v;

	if (!a)
		return false;
	switch (a->type) {
	case TEP_PRINT_ATOM:
		*num = strtoull(a->atom.atom, NULL, 0);
		return true;
	case TEP_PRINT_STRING:
		*str = a->string.string;
		return true;
	case TEP_PRINT_FIELD:
		f = tep_find_any_field((struct tep_event *)ev, a->field.name);
		if (!f || f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC))
			return false;
		*num = f->flags & TEP_FIELD_IS_SIGNED ? (__u64)read_int(entry + f->offset, f->size)
						      : read_uint(entry + f->offset, f->size);
		return true;
	case TEP_PRINT_TYPE: return eval(ev, a->typecast.item, entry, num, str, sb);
	case TEP_PRINT_OP: return eval_op(ev, &a->op, entry, num, str, sb);
	case TEP_PRINT_FLAGS:
		if (!eval(ev, a->flags.field, entry, &v, str, sb) || *str)
			return false;
		put_flags(&a->flags, v, sb);
		*str = "";
		return true;
	case TEP_PRINT_SYMBOL:
		if (!eval(ev, a->symbol.field, entry, &v, str, sb) || *str)
			return false;
		put_symbol(a->symbol.symbols, v, sb);
		*str = "";
		return true;
	default: return false;
	}
}

/* The report's own keys (event_print's head): an event field of the same name gets "field_". */
static const char *json_prefix(const char *name)
{
	static const char *const head[] = { "time", "ts_ns", "cpu", "pid", "tid", "comm",
					    "event", "group", "truncated" };

	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		if (!strcmp(name, head[i]))
			return "field_";
	return "";
}

static void json_decoded(const struct tp_class *c, unsigned int i, const __u8 *entry,
			 struct strbuf *sb)
{
	struct tep_print_arg *const *d = &c->decode[i * TP_MAX_DECODE];
	struct strbuf text = {};
	bool ok = true;

	for (int k = 0; k < TP_MAX_DECODE && d[k] && ok; k++) {
		const char *s = NULL;
		__u64 n;

		ok = eval(c->ev, d[k], entry, &n, &s, &text) && s;
		if (ok && *s)
			strbuf_addf(&text, "%s", s);
	}
	if (ok) {
		strbuf_addf(sb, ",\"%s%s_text\":", json_prefix(c->fields[i].name),
			    c->fields[i].name);
		json_str(sb, (const __u8 *)(text.buf ?: ""), text.len);
	}
	strbuf_free(&text);
}

void tp_class__json(const struct tp_class *c, const void *recp, size_t size, struct strbuf *sb)
{
	const __u8 *rec = recp, *entry = rec + c->cls.data_offset, *p;
	size_t len;

	for (unsigned int i = 0; i < c->cls.nr_fields; i++) {
		const struct gtsc_field *g = &c->fields[i];
		bool sgn = c->tf[i]->flags & TEP_FIELD_IS_SIGNED;

		if (g->offset + g->size > size)
			continue; /* a cut entry: what is not there is not printed */
		strbuf_addf(sb, ",\"%s%s\":", json_prefix(g->name), g->name);
		switch (g->type) {
		case GTSC_FT_UINT:
			if (g->print == GTSC_FP_HEX)
				strbuf_addf(sb, "\"0x%llx\"",
					    (unsigned long long)read_uint(rec + g->offset, g->size));
			else
				strbuf_addf(sb, "%llu",
					    (unsigned long long)read_uint(rec + g->offset, g->size));
			break;
		case GTSC_FT_INT:
			strbuf_addf(sb, "%lld", (long long)read_int(rec + g->offset, g->size));
			break;
		case GTSC_FT_CHARS: json_str(sb, rec + g->offset, g->size); break;
		case GTSC_FT_ARRAY:
			json_elems(sb, rec + g->offset, g->size, g->elem_size, sgn);
			break;
		case GTSC_FT_DYN_STR:
			p = dyn_data(c, i, rec, size, &len);
			json_str(sb, p, len);
			break;
		case GTSC_FT_DYN_ARRAY:
			p = dyn_data(c, i, rec, size, &len);
			json_elems(sb, p, len, g->elem_size, sgn);
			break;
		}
		if (g->print == GTSC_FP_FLAGS)
			json_decoded(c, i, entry, sb);
	}
}
