// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Recorded tracepoints as classes of the field layer (tp_class.h): the
 * trace's TRACEPOINTS chunk parsed by libtraceevent once per reader, a
 * class per event built when its first record is printed.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <event-parse.h>
#include "gtsc/gtsc.h"
#include "strbuf.h"
#include "tp_class.h"
#include "trace_reader.h"

/* Zeros after the copied entry: a cut string still ends. */
#define TP_PAD 8
#define TP_MAX_DECODE 2

/* One saved format: what the class's field_text needs (its priv). */
struct tp_event {
	struct tep_event *ev;
	struct tp_formats *s;
	unsigned int nr_fields;
	unsigned int fixed_end; /* where the entry's fixed part ends */
	/* Per field: the print fmt's args that decode it to text (NULL: none). */
	struct tep_print_arg **decode; /* [nr_fields][TP_MAX_DECODE] */
};

struct tp_formats {
	struct tep_handle *tep;
	const struct gtsc_reader *r; /* its KSYMS name %pS/%ps fields */
	char sym[256]; /* the resolver's answer, without " [module]" */
	struct tp_event *evs; /* sorted by id */
	size_t n;
	struct tep_event **by_name; /* tep's list sorted by group and name */
	char **unknown; /* "tracepoint_ID" names of ids without a format */
	size_t nr_unknown;
	__u8 *buf; /* scratch: a record, clamped, padded */
	size_t buf_sz;
};

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
	if (f->flags & TEP_FIELD_IS_SIGNED)
		g->flags |= GTSC_FF_SIGNED;
	if (f->flags & TEP_FIELD_IS_RELATIVE)
		g->flags |= GTSC_FF_REL_LOC;
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
static void find_decoders(struct tp_event *t)
{
	for (struct tep_print_arg *a = t->ev->print_fmt.args; a; a = a->next) {
		const char *name = arg_decodes(a) ? arg_field(a) : NULL;
		unsigned int i = 0;

		for (struct tep_format_field *f = t->ev->format.fields; name && f; f = f->next, i++) {
			struct tep_print_arg **d = &t->decode[i * TP_MAX_DECODE];

			if (strcmp(f->name, name))
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

/* P is wherever the format puts the field: a damaged one need not be aligned. */
static __s64 read_int(const __u8 *p, unsigned int size)
{
	__s8 v1;
	__s16 v2;
	__s32 v4;
	__s64 v8;

	switch (size) {
	case 1: return memcpy(&v1, p, 1), v1;
	case 2: return memcpy(&v2, p, 2), v2;
	case 4: return memcpy(&v4, p, 4), v4;
	case 8: return memcpy(&v8, p, 8), v8;
	default: return 0;
	}
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
			gt_strbuf_addf(sb, "%s", f->str);
			return;
		}
		if (fv && (v & fv) == fv) {
			gt_strbuf_addf(sb, "%s%s", any && fl->delim ? fl->delim : "", f->str);
			any = true;
			v &= ~fv;
		}
	}
	if (v)
		gt_strbuf_addf(sb, "%s0x%llx", any && fl->delim ? fl->delim : "", (unsigned long long)v);
}

static void put_symbol(const struct tep_print_flag_sym *s, __u64 v, struct strbuf *sb)
{
	for (; s; s = s->next)
		if (strtoull(s->value, NULL, 0) == v) {
			gt_strbuf_addf(sb, "%s", s->str);
			return;
		}
	gt_strbuf_addf(sb, "0x%llx", (unsigned long long)v);
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


/* ---- the class's text, from the print fmt ---- */

/*
 * REC copied into scratch with its entry clamped to data_len and zeros
 * after it: a __data_loc reaching past what was recorded (cut, or damaged)
 * is cut to it, so that libtraceevent, which trusts the entry, never reads
 * outside the record.  *LEN: the entry's bytes.
 */
static __u8 *clamped(const struct tp_event *t, const struct gtsc_rec_hdr *rec, size_t *len)
{
	const struct gtsc_rec_tracepoint *tr = (const void *)rec;
	struct tp_formats *s = t->s;
	size_t data_len = tr->data_len, need;
	__u8 *e;

	if (sizeof(*tr) + data_len > rec->size)
		data_len = rec->size - sizeof(*tr);
	need = (data_len > t->fixed_end ? data_len : t->fixed_end) + TP_PAD;
	if (need > s->buf_sz) {
		__u8 *b = realloc(s->buf, need);

		if (!b)
			return NULL;
		s->buf = b;
		s->buf_sz = need;
	}
	e = s->buf;
	memcpy(e, tr->data, data_len);
	memset(e + data_len, 0, need - data_len);
	for (const struct tep_format_field *f = t->ev->format.fields; f; f = f->next) {
		__u32 loc, off, n, base;

		if (!(f->flags & TEP_FIELD_IS_DYNAMIC) || f->offset + 4 > (int)data_len)
			continue;
		memcpy(&loc, e + f->offset, 4);
		base = f->flags & TEP_FIELD_IS_RELATIVE ? f->offset + 4 : 0;
		off = base + (loc & 0xffff);
		n = loc >> 16;
		if (off > data_len)
			off = data_len;
		if (off + n > data_len)
			n = data_len - off;
		loc = (n << 16) | (off - base);
		memcpy(e + f->offset, &loc, 4);
	}
	*len = data_len;
	return e;
}

/* The whole line: libtraceevent's info part, as trace-cmd report prints it. */
static void line_text(const struct tp_event *t, const struct gtsc_rec_hdr *rec, const __u8 *e,
		      size_t len, struct strbuf *sb)
{
	struct tep_record tr = { .data = (void *)e, .size = len, .ts = rec->ts_ns,
				 .cpu = rec->cpu };
	struct trace_seq seq;

	trace_seq_init(&seq);
	tep_print_event(t->s->tep, &seq, &tr, "%s", TEP_PRINT_INFO);
	trace_seq_terminate(&seq);
	gt_strbuf_add(sb, seq.buffer, seq.len);
	trace_seq_destroy(&seq);
	if (rec->flags & GTSC_TP_F_TRUNCATED)
		gt_strbuf_addf(sb, " [cut]");
}

/* What __print_flags/__print_symbolic make of field I; false when they cannot say. */
static bool field_decoded(const struct tp_event *t, unsigned int i, const __u8 *e,
			  struct strbuf *sb)
{
	struct tep_print_arg *const *d = &t->decode[i * TP_MAX_DECODE];
	bool ok = d[0] != NULL;

	for (int k = 0; k < TP_MAX_DECODE && d[k] && ok; k++) {
		const char *str = NULL;
		__u64 n;

		ok = eval(t->ev, d[k], e, &n, &str, sb) && str;
		if (ok && *str)
			gt_strbuf_addf(sb, "%s", str);
	}
	return ok;
}

/* gtsc_field_text_fn: F's decoded text, or with F NULL the record's whole line. */
static int tp_field_text(const struct gtsc_event_class *c, const struct gtsc_field *f,
			 const struct gtsc_rec_hdr *rec, char *buf, size_t size)
{
	const struct tp_event *t = c->priv;
	struct strbuf sb = {};
	size_t len;
	const __u8 *e = rec->size >= sizeof(struct gtsc_rec_tracepoint) ? clamped(t, rec, &len)
									 : NULL;
	int n = -EINVAL;

	if (!e)
		return -ENOMEM;
	if (!f)
		line_text(t, rec, e, len, &sb);
	else if (!field_decoded(t, f - c->fields, e, &sb))
		goto out;
	n = strbuf_err(&sb) ?: (int)sb.len;
	if (n >= 0 && size)
		snprintf(buf, size, "%.*s", (int)sb.len, sb.buf ?: "");
out:
	gt_strbuf_free(&sb);
	return n;
}

/* ---- the formats ---- */

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* Whether a "field:" line of FMT (LEN bytes) declares NAME (N bytes): "field:TYPE NAME[..];". */
static bool declares(const char *fmt, size_t len, const char *name, size_t n)
{
	const char *end = fmt + len, *p = fmt, *semi, *e;

	while ((p = memmem(p, end - p, "field:", 6))) {
		p += 6;
		semi = memchr(p, ';', end - p);
		if (!semi)
			return false;
		e = semi;
		while (e > p && isspace((unsigned char)e[-1]))
			e--;
		if (e > p && e[-1] == ']') /* "char prev_comm[16]", not "__data_loc char[] name" */
			e = memrchr(p, '[', e - p) ?: e;
		if ((size_t)(e - p) >= n && !memcmp(e - n, name, n) &&
		    ((size_t)(e - p) == n || !ident_char(*(e - n - 1))))
			return true;
		p = semi;
	}
	return false;
}

/*
 * A check that a print fmt's arguments are the C expressions kernels
 * write (libtraceevent 1.7.1 reads through NULL pointers on some that are
 * not: a stray character, an operand missing, "x->y" on anything but REC).
 * Tokens: identifiers, numbers, strings (they may hold line breaks, as
 * ext4's do) and C's operators; a cast is a parenthesised list of type
 * words; {...} is __print_flags' and __print_symbolic's table.
 */
struct cx {
	const char *p, *end;
	int depth;
	bool bad;
};

static void cx_space(struct cx *c)
{
	while (c->p < c->end && isspace((unsigned char)*c->p))
		c->p++;
}

static bool cx_peek(struct cx *c, const char *tok)
{
	size_t n = strlen(tok);

	cx_space(c);
	return (size_t)(c->end - c->p) >= n && !memcmp(c->p, tok, n);
}

static bool cx_eat(struct cx *c, const char *tok)
{
	if (!cx_peek(c, tok))
		return false;
	c->p += strlen(tok);
	return true;
}

static size_t cx_ident(struct cx *c)
{
	size_t n = 0;

	cx_space(c);
	if (c->p < c->end && (isalpha((unsigned char)*c->p) || *c->p == '_'))
		while (c->p + n < c->end && ident_char(c->p[n]))
			n++;
	return n;
}

static void cx_expr(struct cx *c);

/* A string or character literal at c->p. */
static void cx_quoted(struct cx *c)
{
	char q = *c->p;

	for (c->p++; c->p < c->end && *c->p != q; c->p += *c->p == '\\' ? 2 : 1)
		;
	c->bad |= c->p >= c->end;
	c->p = c->p < c->end ? c->p + 1 : c->end;
}

/* "({ ... })": skipped to its end, brackets balanced and literals closed. */
static void cx_statements(struct cx *c)
{
	int depth = 0;

	do {
		if (*c->p == '"' || *c->p == '\'') {
			cx_quoted(c);
			continue;
		}
		depth += strchr("([{", *c->p) ? 1 : strchr(")]}", *c->p) ? -1 : 0;
		c->bad |= !*c->p || depth < 0;
		c->p++;
	} while (!c->bad && depth && c->p < c->end);
	c->bad |= depth != 0;
}

/* EXPR [, EXPR]... up to CLOSE (a trailing comma allowed in {...}). */
static void cx_list(struct cx *c, const char *close)
{
	if (++c->depth > 64) {
		c->bad = true;
		return;
	}
	while (!c->bad && !cx_eat(c, close)) {
		cx_expr(c);
		if (!cx_eat(c, ",") && !cx_peek(c, close))
			c->bad = true;
	}
	c->depth--;
}

/* "( type words [*...] )", or nothing read. */
static bool cx_type(struct cx *c)
{
	const char *save = c->p;
	size_t n, words = 0;

	if (!cx_eat(c, "("))
		return false;
	while ((n = cx_ident(c)) && !(n == 3 && !memcmp(c->p, "REC", 3))) {
		c->p += n;
		words++;
	}
	while (cx_eat(c, "*"))
		;
	if (words && cx_eat(c, ")"))
		return true;
	c->p = save;
	return false;
}

/* A type followed by an operand: a cast. */
static bool cx_cast(struct cx *c)
{
	const char *save = c->p;

	if (cx_type(c)) {
		cx_space(c);
		if (c->p < c->end && *c->p && (ident_char(*c->p) || strchr("(\"'-~!*&+", *c->p)))
			return true;
	}
	c->p = save;
	return false;
}

static void cx_operand(struct cx *c)
{
	size_t n = 0;

	cx_space(c);
	if (c->bad || c->p == c->end || ++c->depth > 64) {
		c->bad = true;
		return;
	}
	if (strchr("-~!*&+", *c->p)) {
		c->p++;
		cx_operand(c);
	} else if (cx_cast(c)) {
		cx_operand(c);
	} else if (cx_eat(c, "(REC)")) {
		c->bad |= !(cx_eat(c, "->") && (n = cx_ident(c))); /* ftrace's func_repeats */
		c->p += n;
	} else if (cx_peek(c, "({")) {
		cx_statements(c); /* dma's min(), kvmmmu's printers: as libtraceevent always had them */
	} else if (cx_eat(c, "(")) {
		cx_expr(c);
		c->bad |= !cx_eat(c, ")");
	} else if (cx_eat(c, "{")) {
		cx_list(c, "}");
	} else if (*c->p == '"') {
		while (!c->bad && cx_peek(c, "\""))
			cx_quoted(c);
	} else if (*c->p == '\'') {
		cx_quoted(c); /* tcp's flags: REC->syn ? 'S' : ' ' */
	} else if (isdigit((unsigned char)*c->p)) {
		while (c->p < c->end && ident_char(*c->p))
			c->p++;
	} else if ((n = cx_ident(c))) {
		bool rec = n == 3 && !memcmp(c->p, "REC", 3);
		bool sizeof_ = n == 6 && !memcmp(c->p, "sizeof", 6);

		c->p += n;
		if (rec && !(cx_eat(c, "->") && (n = cx_ident(c))))
			c->bad = true;
		c->p += rec ? n : 0;
		/* "sizeof(unsigned int)": a type, or an expression */
		if (!rec && !(sizeof_ && cx_type(c)) && cx_eat(c, "("))
			cx_list(c, ")");
	} else {
		c->bad = true;
	}
	while (!c->bad && cx_eat(c, "[")) {
		cx_expr(c);
		c->bad |= !cx_eat(c, "]");
	}
	c->depth--;
}

/*
 * libtraceevent folds "x % 0", "x / (...)" and "x / word" (a word it does not
 * know counts 0) as it parses: SIGFPE.  The kernel's formats divide by a
 * non-zero literal or a sizeof only (6.18: "/ 250", "/ 1000L", "% 64",
 * "/ sizeof(u64)"); anything else is not handed to it.
 */
static bool cx_safe_divisor(struct cx *c)
{
	if (cx_peek(c, "sizeof"))
		return true;
	return c->p < c->end && isdigit((unsigned char)*c->p) && strtoull(c->p, NULL, 0);
}

static void cx_expr(struct cx *c)
{
	static const char *const ops[] = { "||", "&&", "==", "!=", "<=", ">=", "<<", ">>",
					   "|",	 "^",  "&",  "<",  ">",	 "+",  "-",  "*",
					   "/",	 "%" };
	size_t i;

	cx_operand(c);
	while (!c->bad) {
		for (i = 0; i < sizeof(ops) / sizeof(ops[0]) && !cx_eat(c, ops[i]); i++)
			;
		if (i < sizeof(ops) / sizeof(ops[0])) {
			if (i >= 16 && !cx_safe_divisor(c))
				c->bad = true;
			cx_operand(c);
		} else if (cx_eat(c, "?")) {
			cx_expr(c);
			c->bad |= !cx_eat(c, ":");
			cx_expr(c);
		} else {
			return;
		}
	}
}

/* Whether print fmt P..END (after "print fmt:") is a string and such arguments. */
static bool plain_c(const char *p, const char *end)
{
	struct cx c = { .p = p, .end = end };

	cx_space(&c);
	if (!cx_peek(&c, "\""))
		return false;
	cx_operand(&c);
	while (!c.bad && cx_eat(&c, ","))
		cx_expr(&c);
	cx_space(&c);
	return !c.bad && c.p == c.end;
}

/* N digits at *P, then SEP. */
static bool number_then(const char **p, const char *end, const char *sep)
{
	const char *q = *p;
	size_t n = strlen(sep);

	while (q < end && isdigit((unsigned char)*q))
		q++;
	if (q == *p || (size_t)(end - q) < n || memcmp(q, sep, n))
		return false;
	*p = q + n;
	return true;
}

/*
 * Whether the lines of P..END are tracefs' "name:", "ID:", "format:" and
 * "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" lines (DECL C words,
 * '*' and one [N]): libtraceevent 1.7.1 reads through a NULL pointer on
 * some field lines that are not ("char comm['6]").
 */
static bool fields_sound(const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p) ?: end, *q;
		int depth = 0;

		if (nl - p > 6 && !memcmp(p, "\tfield:", 7)) {
			for (q = p + 7; q < nl && *q != ';' && depth >= 0 && depth <= 1; q++) {
				depth += *q == '[' ? 1 : *q == ']' ? -1 : 0;
				if (!ident_char(*q) && (!*q || !strchr(" *[]", *q)))
					return false;
			}
			q += q < nl;
			if (depth || q[-1] != ';' || (size_t)(nl - q) < 8 || memcmp(q, "\toffset:", 8))
				return false;
			q += 8;
			if (!number_then(&q, nl, ";\tsize:") || !number_then(&q, nl, ";\tsigned:") ||
			    !number_then(&q, nl, ";") || q != nl)
				return false;
		} else {
			for (q = p; q < nl; q++)
				if (!isprint((unsigned char)*q))
					return false;
		}
		p = nl + 1;
	}
	return true;
}

/*
 * The bytes of format P (LEN) to hand libtraceevent: none when its field
 * lines are not tracefs', only those before its print fmt when that is not
 * plain C or names a field the format does not declare, else all.
 * libtraceevent 1.7.1 reads through NULL pointers on such formats (found by
 * tests/fuzz); an event without its print fmt prints its fields raw, one
 * without a format prints as tracepoint_ID.
 */
static size_t parsable_len(const char *p, size_t len)
{
	const char *end = p + len, *fmt = memmem(p, len, "\nprint fmt:", 11), *r;
	size_t n;

	if (!fields_sound(p, fmt ?: end))
		return 0;
	if (fmt && !plain_c(fmt + 11, end))
		return fmt - p + 1;
	for (r = fmt; r && (r = memmem(r, end - r, "REC->", 5)); r += 5 + n) {
		for (n = 0; r + 5 + n < end && ident_char(r[5 + n]); n++)
			;
		if (!declares(p, fmt - p, r + 5, n))
			return fmt - p + 1;
	}
	return len;
}

/* "head LEN\n<LEN bytes>\n" sections of the TRACEPOINTS chunk (file.h). */
static int parse_sections(struct tep_handle *tep, const char *p, const char *end)
{
	while (p < end) {
		const char *nl = memchr(p, '\n', end - p), *sp;
		char head[256], group[128];
		unsigned long len;

		if (!nl || nl - p >= (long)sizeof(head))
			return -EINVAL;
		memcpy(head, p, nl - p);
		head[nl - p] = '\0';
		sp = strrchr(head, ' ');
		if (!sp || sscanf(sp + 1, "%lu", &len) != 1 || (size_t)(end - nl - 1) < len)
			return -EINVAL;
		p = nl + 1;
		if (!strncmp(head, "header_page ", 12)) {
			char *copy = strndup(p, len);

			if (copy)
				tep_parse_header_page(tep, copy, len, 8);
			free(copy);
		} else if (!strncmp(head, "printk_formats ", 15)) {
			char *copy = strndup(p, len);

			if (copy)
				tep_parse_printk_formats(tep, copy);
			free(copy);
		} else if (sscanf(head, "event %127s", group) == 1) {
			/* a print fmt it cannot parse keeps the event: its fields print raw */
			size_t n = parsable_len(p, len);

			if (n)
				tep_parse_event(tep, p, n, group);
		}
		p += len + 1;
	}
	return 0;
}

static int event_init(struct tp_formats *s, struct tp_event *t, struct tep_event *ev)
{
	*t = (struct tp_event){ .ev = ev, .s = s };
	for (struct tep_format_field *f = ev->format.fields; f; f = f->next) {
		t->nr_fields++;
		if ((unsigned int)(f->offset + f->size) > t->fixed_end)
			t->fixed_end = f->offset + f->size;
	}
	t->decode = calloc((t->nr_fields ?: 1) * TP_MAX_DECODE, sizeof(*t->decode));
	if (!t->decode)
		return -ENOMEM;
	find_decoders(t);
	return 0;
}

static int build_events(struct tp_formats *s)
{
	struct tep_event **evs = tep_list_events(s->tep, TEP_EVENT_SORT_ID);
	size_t n = 0;
	int err = 0;

	while (evs && evs[n])
		n++;
	s->evs = calloc(n ?: 1, sizeof(*s->evs));
	if (!s->evs)
		return -ENOMEM;
	for (size_t i = 0; i < n && !err; i++) {
		err = event_init(s, &s->evs[i], evs[i]);
		if (!err)
			s->n++;
	}
	s->by_name = err ? NULL : tep_list_events_copy(s->tep, TEP_EVENT_SORT_SYSTEM);
	return err ?: s->by_name ? 0 : -ENOMEM;
}

/* TEXT, a TRACEPOINTS chunk, parsed into a new handle *TEP. */
static int tep_from_text(const char *text, size_t len, int page_size, struct tep_handle **tep)
{
	int err;

	*tep = tep_alloc();
	if (!*tep)
		return -ENOMEM;
	tep_set_long_size(*tep, 8);
	tep_set_page_size(*tep, page_size);
	tep_set_file_bigendian(*tep, TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(*tep, TEP_LITTLE_ENDIAN);
	err = parse_sections(*tep, text, text + len);
	if (err) {
		tep_free(*tep);
		*tep = NULL;
	}
	return err;
}

/*
 * %pS/%ps print a kernel address as its symbol, as perf script and
 * trace-cmd report do, from the symbols the trace saved (the recorder saves
 * the symbol of every value of such a field, gt_tp_sym_fields__new()).  The
 * module suffix is left out, as perf prints it.
 */
static char *resolve_func(void *priv, unsigned long long *addrp, char **modp)
{
	struct tp_formats *s = priv;
	__u64 off;
	const char *name = gtsc_reader__ksym(s->r, *addrp, &off);

	*modp = NULL;
	if (!name)
		return NULL;
	snprintf(s->sym, sizeof(s->sym), "%.*s", (int)strcspn(name, " "), name);
	*addrp -= off;
	return s->sym;
}

struct tp_formats *gt_tp_formats__new(const struct gtsc_reader *r)
{
	struct tp_formats *s;
	const char *text, *page;
	size_t len;
	int err;

	text = r ? gtsc_reader__chunk_text(r, GTSC_CHUNK_TRACEPOINTS, &len) : NULL;
	if (!text)
		return errno = r ? ENOENT : EINVAL, NULL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return errno = ENOMEM, NULL;
	page = gtsc_reader__meta(r, "page_size");
	s->r = r;
	err = tep_from_text(text, len, page ? atoi(page) : 4096, &s->tep);
	err = err ?: tep_set_function_resolver(s->tep, resolve_func, s) ? -ENOMEM : 0;
	err = err ?: build_events(s);
	if (err) {
		gt_tp_formats__free(s);
		return errno = -err, NULL;
	}
	return s;
}

void gt_tp_formats__free(struct tp_formats *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->evs[i].decode);
	for (size_t i = 0; i < s->nr_unknown; i++)
		free(s->unknown[i]);
	free(s->unknown);
	free(s->evs);
	free(s->by_name);
	tep_free(s->tep);
	free(s->buf);
	free(s);
}

const char *gt_tp_formats__event(const struct tp_formats *s, size_t idx, const char **group)
{
	const struct tep_event *ev = s && idx < s->n ? s->by_name[idx] : NULL;

	if (group)
		*group = ev ? ev->system : NULL;
	return ev ? ev->name : NULL;
}

static struct tp_event *find_event(const struct tp_formats *s, __u32 id)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		__u32 mid_id = s->evs[mid].ev->id;

		if (mid_id == id)
			return &s->evs[mid];
		if (mid_id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static const struct gtsc_field unknown_fields[] = {
	{ .name = "event_id", .offset = offsetof(struct gtsc_rec_tracepoint, event_id), .size = 2,
	  .type = GTSC_FT_UINT },
	{ .name = "data_len", .offset = offsetof(struct gtsc_rec_tracepoint, data_len), .size = 2,
	  .type = GTSC_FT_UINT },
};

/* An id the trace has no format for: "tracepoint_ID: event_id=ID data_len=N". */
static struct gtsc_event_class *unknown_class(struct tp_formats *s, __u32 id)
{
	struct gtsc_event_class *c = calloc(1, sizeof(*c));
	struct gtsc_field *f = malloc(sizeof(unknown_fields));
	char **u = realloc(s->unknown, (s->nr_unknown + 1) * sizeof(*u));
	char *name = NULL;

	if (u)
		s->unknown = u;
	if (u && asprintf(&name, "tracepoint_%u", id) < 0)
		name = NULL;
	if (!c || !f || !name) {
		free(c);
		free(f);
		free(name);
		return NULL;
	}
	s->unknown[s->nr_unknown++] = name;
	memcpy(f, unknown_fields, sizeof(unknown_fields));
	*c = (struct gtsc_event_class){ .group = "tracepoint", .name = name, .fields = f,
					.nr_fields = 2, .style = GTSC_CLASS_KV };
	return c;
}

struct gtsc_event_class *gt_tp_class__build(struct tp_formats *s, __u32 id)
{
	const __u16 data_offset = offsetof(struct gtsc_rec_tracepoint, data);
	struct tp_event *t = find_event(s, id);
	struct gtsc_event_class *c;
	struct gtsc_field *fields;
	unsigned int i = 0;

	if (!t)
		return unknown_class(s, id);
	c = calloc(1, sizeof(*c));
	fields = calloc(t->nr_fields ?: 1, sizeof(*fields));
	if (!c || !fields) {
		free(c);
		free(fields);
		return NULL;
	}
	for (struct tep_format_field *f = t->ev->format.fields; f; f = f->next, i++) {
		struct gtsc_field *g = &fields[i];

		g->name = f->name;
		g->offset = data_offset + f->offset;
		g->size = f->size;
		field_kind(g, f);
		if (t->decode[i * TP_MAX_DECODE])
			g->print = GTSC_FP_FLAGS;
	}
	*c = (struct gtsc_event_class){ .group = t->ev->system, .name = t->ev->name,
					.fields = fields, .nr_fields = t->nr_fields,
					.data_offset = data_offset, .style = GTSC_CLASS_FMT,
					.data_len_offset = offsetof(struct gtsc_rec_tracepoint, data_len),
					.field_text = tp_field_text, .priv = t };
	return c;
}

/* ---- the fields whose values name kernel symbols, for the recorder ---- */

/* The field ARG prints when it is one (a cast of one too), else NULL. */
static const struct tep_format_field *plain_field(const struct tep_event *ev,
						  const struct tep_print_arg *a)
{
	while (a && a->type == TEP_PRINT_TYPE)
		a = a->typecast.item;
	if (!a || a->type != TEP_PRINT_FIELD)
		return NULL;
	return tep_find_any_field((struct tep_event *)ev, a->field.name);
}

static int add_sym_field(const struct tep_event *ev, const struct tep_format_field *f,
			 struct tp_sym_field **fields, size_t *n)
{
	struct tp_sym_field *g;

	if (!f || f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC) ||
	    (f->size != 4 && f->size != 8) || f->offset < 0 || f->offset > 0xffff)
		return 0;
	g = reallocarray(*fields, *n + 1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	*fields = g;
	g[(*n)++] = (struct tp_sym_field){ .id = ev->id, .offset = f->offset, .size = f->size };
	return 0;
}

/*
 * Walks EV's print fmt conversion by conversion beside its args, as
 * libtraceevent pairs them ('*' takes an arg of its own), and keeps the
 * fields printed by %pS, %ps, %pF or %pf.
 */
static int event_sym_fields(const struct tep_event *ev, struct tp_sym_field **fields, size_t *n)
{
	const struct tep_print_arg *a = ev->print_fmt.args;
	const char *p = ev->print_fmt.format;
	int err = 0;

	while (p && a && !err && (p = strchr(p, '%'))) {
		if (*++p == '%') {
			p++;
			continue;
		}
		for (; *p && strchr("-+ #0123456789.*lhzjtL", *p); p++)
			if (*p == '*' && a)
				a = a->next;
		if (!*p || !a)
			break;
		if (*p == 'p' && p[1] && strchr("sSfF", p[1]))
			err = add_sym_field(ev, plain_field(ev, a), fields, n);
		a = a->next;
		p++;
	}
	return err;
}

int gt_tp_sym_fields__new(const char *text, size_t len, struct tp_sym_field **fields, size_t *n)
{
	struct tep_handle *tep;
	struct tep_event **evs;
	int err = tep_from_text(text, len, 4096, &tep);

	*fields = NULL;
	*n = 0;
	if (err)
		return err;
	evs = tep_list_events(tep, TEP_EVENT_SORT_ID);
	err = evs ? 0 : -ENOMEM;
	for (size_t i = 0; evs && evs[i] && !err; i++)
		err = event_sym_fields(evs[i], fields, n);
	tep_free(tep);
	if (err) {
		free(*fields);
		*fields = NULL;
		*n = 0;
	}
	return err;
}
