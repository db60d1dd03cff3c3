// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "funcs.h"
#include "gtsc_shared.h"
#include "strbuf.h"

#define KALLSYMS "/proc/kallsyms"
#define MAX_ARGS 6

static const char *const aff_paths[] = {
	"/sys/kernel/tracing/available_filter_functions",
	"/sys/kernel/debug/tracing/available_filter_functions",
};

struct names {
	char **v;
	size_t n, cap;
	const char *source;
};

static int names_add(struct names *ns, const char *name)
{
	if (ns->n == ns->cap) {
		size_t cap = ns->cap ? ns->cap * 2 : 65536;
		char **v = realloc(ns->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ns->v = v;
		ns->cap = cap;
	}
	ns->v[ns->n] = strdup(name);
	return ns->v[ns->n++] ? 0 : -ENOMEM;
}

static void names_free(struct names *ns)
{
	for (size_t i = 0; i < ns->n; i++)
		free(ns->v[i]);
	free(ns->v);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each name once: static functions of one name appear several times. */
static void names_sort_unique(struct names *ns)
{
	size_t out = 0;

	qsort(ns->v, ns->n, sizeof(*ns->v), cmp_str);
	for (size_t i = 0; i < ns->n; i++) {
		if (out && !strcmp(ns->v[out - 1], ns->v[i]))
			free(ns->v[i]);
		else
			ns->v[out++] = ns->v[i];
	}
	ns->n = out;
}

/* Padding and CFI stubs (6.2+) are symbols, not functions. */
static bool is_function_name(const char *name)
{
	return strncmp(name, "__pfx_", 6) && strncmp(name, "__cfi_", 6);
}

/* available_filter_functions: "name" or "name [module]"; module functions are left out. */
static int load_aff(struct names *ns)
{
	char line[512];
	FILE *f = NULL;
	int err = 0;

	for (size_t i = 0; !f && i < sizeof(aff_paths) / sizeof(aff_paths[0]); i++)
		f = fopen(aff_paths[i], "re");
	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (strchr(line, ' ') || !is_function_name(line))
			continue;
		err = names_add(ns, line);
	}
	/* tracefs lets root open it and can still refuse the read (EPERM on a locked host). */
	if (!err && ferror(f))
		err = -EIO;
	fclose(f);
	if (!err && !ns->n)
		err = -ENOENT;
	return err;
}

typedef int (*ksym_fn)(void *ctx, __u64 addr, const char *name);

/* Calls FN for every vmlinux text symbol of /proc/kallsyms. */
static int for_each_text_sym(ksym_fn fn, void *ctx)
{
	char line[512], name[256], mod[128];
	unsigned long long addr;
	FILE *f = fopen(KALLSYMS, "re");
	char type;
	int err = 0;

	if (!f)
		return -errno;
	while (!err && fgets(line, sizeof(line), f)) {
		mod[0] = '\0';
		if (sscanf(line, "%llx %c %255s %127s", &addr, &type, name, mod) < 3 || mod[0])
			continue;
		if (strchr("tTwW", type) && is_function_name(name))
			err = fn(ctx, addr, name);
	}
	fclose(f);
	return err;
}

static int add_ksym_name(void *ctx, __u64 addr, const char *name)
{
	return names_add(ctx, name);
}

static int load_names(struct names *ns)
{
	int err = load_aff(ns);

	ns->source = "available_filter_functions";
	if (err) {
		names_free(ns);
		memset(ns, 0, sizeof(*ns));
		ns->source = KALLSYMS;
		err = for_each_text_sym(add_ksym_name, ns);
	}
	if (!err)
		names_sort_unique(ns);
	return err;
}

static int set_add(struct gtsc_func_set *set, size_t *cap, const char *name, bool ret)
{
	if (set->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct gtsc_func *f = realloc(set->f, ncap * sizeof(*f));

		if (!f)
			return -ENOMEM;
		set->f = f;
		*cap = ncap;
	}
	set->f[set->n] = (struct gtsc_func){ .name = strdup(name), .ret = ret };
	return set->f[set->n++].name ? 0 : -ENOMEM;
}

static int cmp_func(const void *a, const void *b)
{
	return strcmp(((const struct gtsc_func *)a)->name, ((const struct gtsc_func *)b)->name);
}

/* Sorts by name (ids are stable for a given set) and merges duplicates. */
static void set_sort_unique(struct gtsc_func_set *set)
{
	size_t out = 0;

	qsort(set->f, set->n, sizeof(*set->f), cmp_func);
	for (size_t i = 0; i < set->n; i++) {
		if (out && !strcmp(set->f[out - 1].name, set->f[i].name)) {
			set->f[out - 1].ret |= set->f[i].ret;
			free(set->f[i].name);
		} else {
			set->f[out++] = set->f[i];
		}
	}
	set->n = out;
}

/* One pattern, "%return" already cut off: 0, or -ENOENT when it matches nothing. */
static int match_pattern(struct gtsc_func_set *set, size_t *cap, const struct names *ns,
			 const char *pat, bool ret)
{
	bool glob = strpbrk(pat, "*?[") != NULL;
	size_t hits = 0;
	int err = 0;

	if (!glob) {
		if (!bsearch(&pat, ns->v, ns->n, sizeof(*ns->v), cmp_str))
			return -ENOENT;
		return set_add(set, cap, pat, ret);
	}
	for (size_t i = 0; !err && i < ns->n; i++) {
		if (fnmatch(pat, ns->v[i], 0))
			continue;
		hits++;
		err = set->n > GTSC_MAX_FUNCS ? -E2BIG : set_add(set, cap, ns->v[i], ret);
	}
	return err ?: hits ? 0 : -ENOENT;
}

/* "a,b*%return": each comma-separated pattern into SET. */
static int match_arg(struct gtsc_func_set *set, size_t *cap, const struct names *ns,
		     const char *arg, char *err, size_t err_sz)
{
	static const char suffix[] = "%return";
	char *copy = strdup(arg), *tok, *save = NULL;
	int e = copy ? 0 : -ENOMEM;

	for (tok = copy ? strtok_r(copy, ",", &save) : NULL; tok && !e;
	     tok = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(tok), sl = sizeof(suffix) - 1;
		bool ret = len > sl && !strcmp(tok + len - sl, suffix);

		if (ret)
			tok[len - sl] = '\0';
		e = match_pattern(set, cap, ns, tok, ret);
		if (e == -ENOENT)
			snprintf(err, err_sz, "-k: no traceable kernel function matches '%s' (%s)",
				 tok, ns->source);
		else if (e == -E2BIG)
			snprintf(err, err_sz, "-k: '%s' matches more than %d functions: narrow it",
				 tok, GTSC_MAX_FUNCS);
	}
	free(copy);
	return e;
}

static int fill_addr(void *ctx, __u64 addr, const char *name)
{
	struct gtsc_func_set *set = ctx;
	struct gtsc_func key = { .name = (char *)name }, *f;

	f = bsearch(&key, set->f, set->n, sizeof(*set->f), cmp_func);
	if (f && !f->addr)
		f->addr = addr;
	return 0;
}

int gt_funcs__resolve(struct gtsc_func_set *set, const char *const *args, size_t n, char *err,
		      size_t err_sz)
{
	struct names ns = {};
	size_t cap = set->n;
	int e;

	if (!n)
		return 0;
	e = load_names(&ns);
	if (e)
		snprintf(err, err_sz, "-k: cannot read the kernel's functions from %s: %s",
			 KALLSYMS, strerror(-e));
	for (size_t i = 0; !e && i < n; i++)
		e = match_arg(set, &cap, &ns, args[i], err, err_sz);
	names_free(&ns);
	if (e)
		return e;
	set_sort_unique(set);
	if (set->n > GTSC_MAX_FUNCS) {
		snprintf(err, err_sz, "-k: the patterns match %zu functions, more than %d: "
				      "narrow them", set->n, GTSC_MAX_FUNCS);
		return -E2BIG;
	}
	/* The address is informational (report names by id): a failure is no error. */
	for_each_text_sym(fill_addr, set);
	return 0;
}

void gt_funcs__free(struct gtsc_func_set *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->f[i].name);
	free(set->f);
	set->f = NULL;
	set->n = 0;
}

void gt_funcs__summary(const struct gtsc_func_set *set, size_t limit, struct strbuf *sb)
{
	for (size_t i = 0; i < set->n && i < limit; i++)
		gt_strbuf_addf(sb, "%s%s%s", i ? "," : "", set->f[i].name,
			       set->f[i].ret ? "%return" : "");
	if (set->n > limit)
		gt_strbuf_addf(sb, ",+%zu", set->n - limit);
}

static const char *tag_of(const struct btf_type *t)
{
	if (btf_is_union(t) || (btf_is_fwd(t) && btf_kflag(t)))
		return "union";
	return btf_is_any_enum(t) ? "enum" : "struct";
}

/* C text of BTF type ID ("const char *", "struct file *"), good enough to read. */
static void type_text(const struct btf *btf, __u32 id, char *buf, size_t sz, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name;
	char sub[128];

	if (!id || !t) {
		snprintf(buf, sz, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	if (depth > 8) {
		snprintf(buf, sz, "?");
		return;
	}
	switch (btf_kind(t)) {
	case BTF_KIND_PTR:
		type_text(btf, t->type, sub, sizeof(sub), depth + 1);
		/* A function pointer is printed as what it is to a reader of raw args. */
		snprintf(buf, sz, "%.100s *",
			 btf_is_func_proto(btf__type_by_id(btf, t->type)) ? "void" : sub);
		break;
	case BTF_KIND_CONST:
	case BTF_KIND_VOLATILE:
		type_text(btf, t->type, sub, sizeof(sub), depth + 1);
		snprintf(buf, sz, "%s %.100s", btf_is_const(t) ? "const" : "volatile", sub);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
	case BTF_KIND_FWD:
		snprintf(buf, sz, "%s %s", tag_of(t), name && *name ? name : "(anon)");
		break;
	case BTF_KIND_ARRAY:
		type_text(btf, btf_array(t)->type, sub, sizeof(sub), depth + 1);
		snprintf(buf, sz, "%.100s *", sub);
		break;
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		type_text(btf, t->type, buf, sz, depth + 1);
		break;
	default: /* int, float, typedef: their own name */
		snprintf(buf, sz, "%s", name && *name ? name : "?");
	}
}

/*
 * How a register holding type ID prints (file.h): 's' or 'u' and the byte
 * size for integers and enums, "p8" for pointers, "x0" for anything else.
 */
static void value_kind(const struct btf *btf, __u32 id, char kind[4])
{
	int rid = btf__resolve_type(btf, id);
	const struct btf_type *t = rid > 0 ? btf__type_by_id(btf, rid) : NULL;
	unsigned int size = t && t->size < 8 ? t->size : 8;

	if (t && btf_is_int(t))
		snprintf(kind, 4, "%c%u", btf_int_encoding(t) & BTF_INT_SIGNED ? 's' : 'u', size);
	else if (t && btf_is_any_enum(t))
		snprintf(kind, 4, "%c%u", btf_kflag(t) ? 's' : 'u', size); /* kflag: signed (6.0) */
	else
		snprintf(kind, 4, "%s", t && btf_is_ptr(t) ? "p8" : "x0");
}

/*
 * "\t<kind>\t<return type>[\t<kind>\t<type>\t<name>]..." of NAME's
 * prototype, "\tx0\t?" without one.
 */
static void proto_text(const struct btf *btf, const char *name, struct strbuf *sb)
{
	int id = btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
	const struct btf_type *fp = id > 0 ? btf__type_by_id(btf, btf__type_by_id(btf, id)->type)
					   : NULL;
	const struct btf_param *p;
	char type[128], kind[4];

	if (!fp || !btf_is_func_proto(fp)) {
		gt_strbuf_addf(sb, "\tx0\t?");
		return;
	}
	type_text(btf, fp->type, type, sizeof(type), 0);
	value_kind(btf, fp->type, kind);
	gt_strbuf_addf(sb, "\t%s\t%s", kind, type);
	p = btf_params(fp);
	for (int i = 0; i < btf_vlen(fp) && i < MAX_ARGS; i++) {
		const char *an = btf__name_by_offset(btf, p[i].name_off);

		if (!p[i].type) /* "..." */
			break;
		type_text(btf, p[i].type, type, sizeof(type), 0);
		value_kind(btf, p[i].type, kind);
		if (an && *an)
			gt_strbuf_addf(sb, "\t%s\t%s\t%s", kind, type, an);
		else
			gt_strbuf_addf(sb, "\t%s\t%s\targ%d", kind, type, i);
	}
}

void gt_funcs__describe(const struct gtsc_func_set *set, const struct btf *vmlinux,
			struct strbuf *sb)
{
	for (size_t i = 0; i < set->n; i++) {
		const struct gtsc_func *f = &set->f[i];

		gt_strbuf_addf(sb, "%zu\t%s\t%llx\t%s", i, f->name, (unsigned long long)f->addr,
			       f->ret ? "entry,return" : "entry");
		proto_text(vmlinux, f->name, sb);
		gt_strbuf_addf(sb, "\n");
	}
}

static int links_add(struct gtsc_func_links *l, struct bpf_link *link)
{
	struct bpf_link **v = realloc(l->l, (l->n + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(link);
		return -ENOMEM;
	}
	l->l = v;
	l->l[l->n++] = link;
	return 0;
}

static __u64 func_cookie(const struct gtsc_func_set *set, size_t i, bool retprobe)
{
	return i | (!retprobe && set->f[i].ret ? GTSC_FUNC_COOKIE_TIMED : 0);
}

typedef int (*attach_fn)(const struct gtsc_func_set *set, struct bpf_program *prog,
			 bool retprobe, struct gtsc_func_links *l, char *err, size_t err_sz);

static int attach_multi(const struct gtsc_func_set *set, struct bpf_program *prog, bool retprobe,
			struct gtsc_func_links *l, char *err, size_t err_sz)
{
	const char **syms = calloc(set->n, sizeof(*syms));
	__u64 *cookies = calloc(set->n, sizeof(*cookies));
	LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cookies = cookies,
		    .retprobe = retprobe);
	struct bpf_link *link;
	int e = syms && cookies ? 0 : -ENOMEM;

	for (size_t i = 0; !e && i < set->n; i++) {
		if (retprobe && !set->f[i].ret)
			continue;
		syms[o.cnt] = set->f[i].name;
		cookies[o.cnt++] = func_cookie(set, i, retprobe);
	}
	if (!e && o.cnt) {
		link = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
		e = link ? links_add(l, link) : -errno;
		if (!link)
			snprintf(err, err_sz, "attaching kprobe.multi %s probes to %zu functions "
					      "failed: %s",
				 retprobe ? "return" : "entry", o.cnt, strerror(-e));
	}
	free(syms);
	free(cookies);
	return e;
}

static int attach_single(const struct gtsc_func_set *set, struct bpf_program *prog, bool retprobe,
			 struct gtsc_func_links *l, char *err, size_t err_sz)
{
	for (size_t i = 0; i < set->n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = func_cookie(set, i, retprobe),
			    .retprobe = retprobe);
		struct bpf_link *link;
		int e;

		if (retprobe && !set->f[i].ret)
			continue;
		link = bpf_program__attach_kprobe_opts(prog, set->f[i].name, &o);
		e = link ? links_add(l, link) : -errno;
		if (!link)
			snprintf(err, err_sz, "attaching a %s to %s failed: %s",
				 retprobe ? "kretprobe" : "kprobe", set->f[i].name, strerror(-e));
		if (e)
			return e;
	}
	return 0;
}

int gt_funcs__attach(const struct gtsc_func_set *set, struct bpf_program *entry,
		     struct bpf_program *ret, bool multi, struct gtsc_func_links *l, char *err,
		     size_t err_sz)
{
	attach_fn attach = multi ? attach_multi : attach_single;
	int e;

	/* Order does not matter: the programs write nothing until the session starts. */
	e = attach(set, entry, false, l, err, err_sz);
	return e ?: attach(set, ret, true, l, err, err_sz);
}

void gt_funcs__detach(struct gtsc_func_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		bpf_link__destroy(l->l[i]);
	free(l->l);
	l->l = NULL;
	l->n = 0;
}
