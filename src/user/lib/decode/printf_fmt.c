// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "printf_fmt.h"
#include "strbuf.h"

#define FMT_MAX 1024 /* longest format kept; a longer one is cut */

__u32 gtsc_printf_hash(const char *fmt)
{
	size_t n = strlen(fmt);
	__u32 h = GTSC_FNV_BASIS;

	for (size_t i = 0; i < n && i < 64; i++)
		h = (h ^ (unsigned char)fmt[i]) * GTSC_FNV_PRIME;
	return (h ^ (__u32)n) * GTSC_FNV_PRIME;
}

static void add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			gt_strbuf_add(sb, "\\\\", 2);
		else if (*s == '\n')
			gt_strbuf_add(sb, "\\n", 2);
		else if (*s == '\t')
			gt_strbuf_add(sb, "\\t", 2);
		else
			gt_strbuf_add(sb, s, 1);
	}
}

int gt_printf__collect(struct bpf_object *obj, struct strbuf *sb)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, GTSC_PRINTF_SEC);
	const char *p, *end;
	size_t size = 0;
	int n = 0;

	if (!map)
		return 0; /* the object prints nothing */
	p = bpf_map__initial_value(map, &size);
	if (!p)
		return -ENOENT;
	/* NUL-terminated strings back to back, maybe with zero padding between */
	for (end = p + size; p < end; p += strnlen(p, end - p) + 1) {
		if (!*p)
			continue;
		gt_strbuf_addf(sb, "%08x\t", gtsc_printf_hash(p));
		add_escaped(sb, p);
		gt_strbuf_add(sb, "\n", 1);
		n++;
	}
	return strbuf_err(sb) ?: n;
}

/* The format of ID, unescaped into FMT; false if the lines do not have it. */
static bool lookup(const char *chunk, size_t len, __u32 id, char *fmt, size_t size)
{
	char want[10];
	const char *end = chunk + len, *line, *nl;
	size_t k = 0;

	snprintf(want, sizeof(want), "%08x\t", id);
	for (line = chunk; line && line < end; line = nl ? nl + 1 : NULL) {
		nl = memchr(line, '\n', end - line);
		if ((size_t)(end - line) < 9 || memcmp(line, want, 9))
			continue;
		for (const char *p = line + 9; p < (nl ? nl : end) && k + 1 < size; p++) {
			if (*p == '\\' && p + 1 < end) {
				p++;
				fmt[k++] = *p == 'n' ? '\n' : *p == 't' ? '\t' : *p;
			} else {
				fmt[k++] = *p;
			}
		}
		fmt[k] = '\0';
		return true;
	}
	return false;
}

/* snprintf's contract over several pieces: LEN counts what did not fit too. */
struct out {
	char *buf;
	size_t size;
	size_t len;
};

__attribute__((format(printf, 2, 3))) static void out_addf(struct out *o, const char *fmt, ...)
{
	size_t room = o->len < o->size ? o->size - o->len : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? o->buf + o->len : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += n;
}

/*
 * One conversion of SPEC (from '%' through its conversion letter): the
 * length modifier says how wide the value was in the program; it is
 * narrowed to that, then printed as a long long so that one C call fits.
 */
static void convert(struct out *o, const char *spec, size_t n, __u64 v)
{
	char conv = spec[n - 1], flags[32];
	size_t k = 0;
	bool half = false, byte = false, wide = false;

	/* flags, width and precision as written; length modifiers replaced */
	for (size_t i = 0; i + 1 < n && k + 4 < sizeof(flags); i++) {
		if (spec[i] == 'h')
			byte = half, half = true;
		else if (strchr("lLqjzt", spec[i]))
			wide = true;
		else
			flags[k++] = spec[i];
	}
	flags[k] = '\0';
	if (!wide && strchr("diuoxXc", conv))
		v = byte ? (__u8)v : half ? (__u16)v : (__u32)v;
	switch (conv) {
	case 'd':
	case 'i':
		if (!wide)
			v = byte ? (__u64)(__s64)(__s8)v : half ? (__u64)(__s64)(__s16)v
								 : (__u64)(__s64)(__s32)v;
		strcat(flags, "lld");
		out_addf(o, flags, (long long)v);
		break;
	case 'u':
	case 'o':
	case 'x':
	case 'X':
		strcat(flags, "ll");
		flags[k + 2] = conv, flags[k + 3] = '\0';
		out_addf(o, flags, (unsigned long long)v);
		break;
	case 'c':
		strcat(flags, "c");
		out_addf(o, flags, (int)(unsigned char)v);
		break;
	default: /* %p, and %s whose string stayed in the kernel: the pointer */
		out_addf(o, "0x%llx", (unsigned long long)v);
		break;
	}
}

/* Length of the conversion at FMT ('%'), 0 if it is not one we format. */
static size_t spec_len(const char *fmt)
{
	size_t n = 1 + strspn(fmt + 1, "-+ #0123456789.hlLqjzt");

	return fmt[n] && strchr("diuoxXcps", fmt[n]) ? n + 1 : 0;
}

static int render(const char *fmt, const struct gtsc_rec_printf *rec, char *buf, size_t size)
{
	struct out o = { .buf = buf, .size = size };
	__u32 arg = 0;

	if (size)
		buf[0] = '\0';
	for (const char *p = fmt; *p;) {
		size_t n = *p == '%' ? spec_len(p) : 0;

		if (p[0] == '%' && p[1] == '%') {
			out_addf(&o, "%%");
			p += 2;
		} else if (n && arg < rec->nr_args) {
			convert(&o, p, n, rec->args[arg++]);
			p += n;
		} else {
			size_t lit = n ? n : 1 + strcspn(p + 1, "%");

			/* a literal, or a conversion without an argument */
			out_addf(&o, "%.*s", (int)lit, p);
			p += lit;
		}
	}
	return o.len;
}

int gt_printf__render(const char *chunk, size_t len, const struct gtsc_rec_hdr *rec, char *buf,
		      size_t size)
{
	const struct gtsc_rec_printf *r = (const void *)rec;
	char fmt[FMT_MAX];

	if (!rec || rec->type != GTSC_REC_PRINTF || rec->size < sizeof(*r) ||
	    r->nr_args > GTSC_PRINTF_MAX_ARGS ||
	    rec->size < sizeof(*r) + r->nr_args * sizeof(__u64))
		return -EINVAL;
	if (!chunk || !lookup(chunk, len, r->fmt_id, fmt, sizeof(fmt)))
		return -ENOENT;
	return render(fmt, r, buf, size);
}
