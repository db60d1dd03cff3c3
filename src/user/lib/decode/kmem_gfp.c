// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "kmem_gfp.h"

/* ---- constant expressions: "(( gfp_t)((((1UL))) << (10)))" ---- */

struct cexpr {
	const char *p, *end;
	bool bad;
};

static void skip_space(struct cexpr *e)
{
	while (e->p < e->end && isspace((unsigned char)*e->p))
		e->p++;
}

static bool eat(struct cexpr *e, const char *tok)
{
	size_t n;

	skip_space(e);
	/* most tries fail on the first character: a format's GFP list is tried thousands of times */
	if (e->p == e->end || *e->p != tok[0])
		return false;
	n = strlen(tok);
	if ((size_t)(e->end - e->p) < n || memcmp(e->p, tok, n))
		return false;
	e->p += n;
	return true;
}

static __u64 parse_or(struct cexpr *e);

static __u64 parse_number(struct cexpr *e)
{
	char buf[32];
	size_t n = 0;
	char *endp;
	__u64 v;

	skip_space(e);
	while (e->p + n < e->end && isalnum((unsigned char)e->p[n]) && n < sizeof(buf) - 1)
		n++;
	if (!n || !isdigit((unsigned char)e->p[0])) {
		e->bad = true; /* an identifier: a macro tracefs did not expand */
		return 0;
	}
	memcpy(buf, e->p, n);
	buf[n] = '\0';
	v = strtoull(buf, &endp, 0);
	while (*endp == 'u' || *endp == 'U' || *endp == 'l' || *endp == 'L')
		endp++;
	if (*endp)
		e->bad = true;
	e->p += n;
	return v;
}

/* "( gfp_t)", "( unsigned long)", "(void *)": a type name, not "(1UL)". */
static const char *cast_end(const struct cexpr *e)
{
	const char *q = e->p + 1;

	while (q < e->end && isspace((unsigned char)*q))
		q++;
	if (q == e->end || !(isalpha((unsigned char)*q) || *q == '_'))
		return NULL;
	for (; q < e->end && *q != ')'; q++)
		if (!isalnum((unsigned char)*q) && *q != '_' && !isspace((unsigned char)*q) &&
		    *q != '*')
			return NULL;
	return q < e->end ? q + 1 : NULL;
}

static __u64 parse_unary(struct cexpr *e)
{
	const char *c;
	__u64 v;

	if (eat(e, "~"))
		return ~parse_unary(e);
	if (eat(e, "-"))
		return -parse_unary(e);
	if (eat(e, "!"))
		return !parse_unary(e);
	skip_space(e);
	if (e->p < e->end && *e->p == '(') {
		c = cast_end(e);
		if (c) {
			e->p = c; /* every value is computed in 64 bits, as unsigned long */
			return parse_unary(e);
		}
		e->p++;
		v = parse_or(e);
		if (!eat(e, ")"))
			e->bad = true;
		return v;
	}
	return parse_number(e);
}

static __u64 parse_add(struct cexpr *e)
{
	__u64 v = parse_unary(e);

	for (;;) {
		if (eat(e, "+"))
			v += parse_unary(e);
		else if (eat(e, "-"))
			v -= parse_unary(e);
		else
			return v;
	}
}

static __u64 parse_shift(struct cexpr *e)
{
	__u64 v = parse_add(e), s;

	for (;;) {
		if (eat(e, "<<")) {
			s = parse_add(e);
			v = s < 64 ? v << s : 0;
		} else if (eat(e, ">>")) {
			s = parse_add(e);
			v = s < 64 ? v >> s : 0;
		} else {
			return v;
		}
	}
}

static __u64 parse_and(struct cexpr *e)
{
	__u64 v = parse_shift(e);

	while (eat(e, "&"))
		v &= parse_shift(e);
	return v;
}

static __u64 parse_or(struct cexpr *e)
{
	__u64 v = parse_and(e);

	for (;;) {
		if (eat(e, "|"))
			v |= parse_and(e);
		else if (eat(e, "^"))
			v ^= parse_and(e);
		else
			return v;
	}
}

bool gt_kmem_gfp__eval(const char *s, size_t len, __u64 *val)
{
	struct cexpr e = { .p = s, .end = s + len };

	*val = parse_or(&e);
	skip_space(&e);
	return !e.bad && e.p == e.end;
}

/*
 * ---- the __print_flags() table ----
 * Read by hand, not by libtraceevent (which -e GROUP:NAME uses): only this
 * list is wanted, from EVENT_FORMATS texts that may lack what
 * tep_parse_event requires (ID and field lines: test_gfp_from_formats), and
 * an entry whose mask does not evaluate costs that entry, not the table.
 */

/* The ')' or '}' closing the bracket at P (which is '(' or '{'), or NULL. */
static const char *match_close(const char *p, const char *end)
{
	int depth = 0;

	for (; p < end; p++) {
		if (*p == '"') {
			p = memchr(p + 1, '"', end - p - 1);
			if (!p)
				return NULL;
		} else if (*p == '(' || *p == '{') {
			depth++;
		} else if ((*p == ')' || *p == '}') && --depth == 0) {
			return p;
		}
	}
	return NULL;
}

static int add_flag(struct kmem_gfp_table *t, __u64 mask, const char *name, size_t len)
{
	struct kmem_gfp_flag *f = realloc(t->flags, (t->n + 1) * sizeof(*f));

	if (!f)
		return -ENOMEM;
	t->flags = f;
	f += t->n++;
	f->mask = mask;
	snprintf(f->name, sizeof(f->name), "%.*s", (int)len, name);
	return 0;
}

/*
 * "{expr, "NAME"}": 1 when read (an entry whose mask does not evaluate is
 * left out: its bits print in hex), 0 at the terminating entry, or -errno.
 */
static int parse_entry(struct kmem_gfp_table *t, const char *open, const char *close)
{
	const char *q1, *q2, *comma;
	__u64 mask;

	q2 = close;
	while (q2 > open && *q2 != '"')
		q2--;
	q1 = q2 > open ? q2 - 1 : open;
	while (q1 > open && *q1 != '"')
		q1--;
	if (q1 <= open || q1 == q2)
		return 0; /* { 0, ((void *)0) }: the end of the list */
	comma = q1;
	while (comma > open && *comma != ',')
		comma--;
	if (comma <= open || !gt_kmem_gfp__eval(open + 1, comma - open - 1, &mask) || !mask)
		return 1;
	return add_flag(t, mask, q1 + 1, q2 - q1 - 1) ?: 1;
}

/* Reads the list that follows __print_flags(REC->gfp_flags, "|", at P. */
static int parse_print_flags(struct kmem_gfp_table *t, const char *p, const char *end)
{
	const char *close;
	int err;

	while ((p = memchr(p, '{', end - p)) != NULL) {
		close = match_close(p, end);
		if (!close)
			return 0;
		err = parse_entry(t, p, close);
		if (err <= 0)
			return err;
		p = close + 1;
	}
	return 0;
}

static int load_from_formats(struct kmem_gfp_table *t, const char *text, size_t len)
{
	static const char key[] = "__print_flags(REC->gfp_flags, \"|\",";
	const char *end = text + len, *p, *line_end;

	p = memmem(text, len, key, sizeof(key) - 1);
	if (!p)
		return 0;
	/* the list ends with its print fmt line */
	line_end = memchr(p, '\n', end - p);
	return parse_print_flags(t, p + sizeof(key) - 1, line_end ? line_end : end);
}

/* Linux 6.18's bits (include/linux/gfp_types.h), for traces without formats. */
#define B(n) (1ULL << (n))
#define RECLAIM (B(10) | B(11))
#define KERNEL (RECLAIM | B(6) | B(7))
#define USER (KERNEL | B(20))
#define HIGHUSER_MOVABLE (USER | B(1) | B(3))
#define TRANSHUGE_LIGHT ((HIGHUSER_MOVABLE | B(18) | B(19) | B(13)) & ~RECLAIM)
static const struct kmem_gfp_flag builtin[] = {
	{ TRANSHUGE_LIGHT | B(10), "GFP_TRANSHUGE" },
	{ TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT" },
	{ HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE" },
	{ USER | B(1), "GFP_HIGHUSER" },
	{ USER, "GFP_USER" },
	{ KERNEL | B(22), "GFP_KERNEL_ACCOUNT" },
	{ KERNEL, "GFP_KERNEL" },
	{ RECLAIM | B(6), "GFP_NOFS" },
	{ B(5) | B(11), "GFP_ATOMIC" },
	{ RECLAIM, "GFP_NOIO" },
	{ B(11) | B(13), "GFP_NOWAIT" },
	{ B(0), "GFP_DMA" },
	{ B(2), "GFP_DMA32" },
	{ RECLAIM, "__GFP_RECLAIM" },
	{ B(0), "__GFP_DMA" },
	{ B(1), "__GFP_HIGHMEM" },
	{ B(2), "__GFP_DMA32" },
	{ B(3), "__GFP_MOVABLE" },
	{ B(4), "__GFP_RECLAIMABLE" },
	{ B(5), "__GFP_HIGH" },
	{ B(6), "__GFP_IO" },
	{ B(7), "__GFP_FS" },
	{ B(8), "__GFP_ZERO" },
	{ B(10), "__GFP_DIRECT_RECLAIM" },
	{ B(11), "__GFP_KSWAPD_RECLAIM" },
	{ B(12), "__GFP_WRITE" },
	{ B(13), "__GFP_NOWARN" },
	{ B(14), "__GFP_RETRY_MAYFAIL" },
	{ B(15), "__GFP_NOFAIL" },
	{ B(16), "__GFP_NORETRY" },
	{ B(17), "__GFP_MEMALLOC" },
	{ B(18), "__GFP_COMP" },
	{ B(19), "__GFP_NOMEMALLOC" },
	{ B(20), "__GFP_HARDWALL" },
	{ B(21), "__GFP_THISNODE" },
	{ B(22), "__GFP_ACCOUNT" },
	{ B(23), "__GFP_ZEROTAGS" },
	{ B(24), "__GFP_NO_OBJ_EXT" },
};
#undef TRANSHUGE_LIGHT
#undef HIGHUSER_MOVABLE
#undef USER
#undef KERNEL
#undef RECLAIM
#undef B

int gt_kmem_gfp__load(struct kmem_gfp_table *t, const char *formats, size_t len)
{
	int err;

	*t = (struct kmem_gfp_table){};
	if (formats && len) {
		err = load_from_formats(t, formats, len);
		if (err)
			return err;
	}
	if (t->n) {
		t->from_trace = true;
		return 0;
	}
	t->flags = malloc(sizeof(builtin));
	if (!t->flags)
		return -ENOMEM;
	memcpy(t->flags, builtin, sizeof(builtin));
	t->n = sizeof(builtin) / sizeof(builtin[0]);
	return 0;
}

/* As the kernel's trace_print_flags_seq(): a name takes its bits away. */
void gt_kmem_gfp__decode(const struct kmem_gfp_table *t, __u64 flags, char *buf, size_t sz)
{
	size_t len = 0;

	buf[0] = '\0';
	if (!flags) {
		snprintf(buf, sz, "none");
		return;
	}
	for (size_t i = 0; i < t->n && flags && len < sz; i++) {
		if ((flags & t->flags[i].mask) != t->flags[i].mask)
			continue;
		flags &= ~t->flags[i].mask;
		len += snprintf(buf + len, sz - len, "%s%s", len ? "|" : "", t->flags[i].name);
	}
	if (flags && len < sz)
		snprintf(buf + len, sz - len, "%s0x%llx", len ? "|" : "",
			 (unsigned long long)flags);
}

void gt_kmem_gfp__free(struct kmem_gfp_table *t)
{
	free(t->flags);
	*t = (struct kmem_gfp_table){};
}
