// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Record -> event class for CTF, named as lttng-modules names its kernel
 * events (instrumentation/events/kmem.h, sched.h, the syscall tables'
 * syscall_entry_/syscall_exit_ and compat_ prefixes) so that Trace Compass's
 * Linux kernel analyses recognise them; field names are LTTng's where it
 * has the field, else report --json's.  Values are report --json's: the
 * same bytes of the record, and the same strings where it shows one
 * (call sites as symbol+offset, cache names, captured paths).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf_classes.h"
#include "gtsc_syscalls.h"
#include "syscall_capture.h"
#include "syscall_compat.h"

#define F(n, rec, member, t, p)                                                                    \
	{ .name = n, .offset = offsetof(struct rec, member),                                       \
	  .size = sizeof(((struct rec *)0)->member), .type = GTSC_FT_##t, .print = GTSC_FP_##p }

static const struct gtsc_field kmalloc_fields[] = {
	F("call_site", gtsc_rec_kmem_alloc, call_site, UINT, SYM),
	F("ptr", gtsc_rec_kmem_alloc, ptr, UINT, HEX),
	F("bytes_req", gtsc_rec_kmem_alloc, bytes_req, UINT, DEFAULT),
	F("bytes_alloc", gtsc_rec_kmem_alloc, bytes_alloc, UINT, DEFAULT),
	F("gfp_flags", gtsc_rec_kmem_alloc, gfp_flags, UINT, HEX),
	F("node", gtsc_rec_kmem_alloc, node, INT, DEFAULT),
	F("cache", gtsc_rec_kmem_alloc, cache_id, UINT, CACHE),
};

static const struct gtsc_field page_alloc_fields[] = {
	F("pfn", gtsc_rec_kmem_alloc, ptr, UINT, HEX),
	F("order", gtsc_rec_kmem_alloc, order, UINT, DEFAULT),
	F("gfp_flags", gtsc_rec_kmem_alloc, gfp_flags, UINT, HEX),
	F("migratetype", gtsc_rec_kmem_alloc, migratetype, INT, DEFAULT),
};

static const struct gtsc_field kfree_fields[] = {
	F("call_site", gtsc_rec_kmem_free, call_site, UINT, SYM),
	F("ptr", gtsc_rec_kmem_free, ptr, UINT, HEX),
	F("cache", gtsc_rec_kmem_free, cache_id, UINT, CACHE),
};

static const struct gtsc_field page_free_fields[] = {
	F("pfn", gtsc_rec_kmem_free, ptr, UINT, HEX),
	F("order", gtsc_rec_kmem_free, order, UINT, DEFAULT),
};

/* The fork record is the child's (hdr.pid/tid); LTTng's fields say whose is whose. */
static const struct gtsc_field fork_fields[] = {
	F("parent_pid", gtsc_rec_task, other_pid, INT, DEFAULT),
	F("child_comm", gtsc_rec_task, comm, CHARS, DEFAULT),
	F("child_tid", gtsc_rec_task, hdr.tid, INT, DEFAULT),
	F("child_pid", gtsc_rec_task, hdr.pid, INT, DEFAULT),
};

static const struct gtsc_field exec_fields[] = {
	F("new_comm", gtsc_rec_task, comm, CHARS, DEFAULT),
	F("tid", gtsc_rec_task, hdr.tid, INT, DEFAULT),
};

static const struct gtsc_field exit_fields[] = {
	F("exit_code", gtsc_rec_task, exit_code, INT, DEFAULT),
	F("tid", gtsc_rec_task, hdr.tid, INT, DEFAULT),
};

static const struct gtsc_field printf_fields[] = {
	F("text", gtsc_rec_printf, fmt_id, UINT, PRINTF),
};

#define N(a) (sizeof(a) / sizeof((a)[0]))
#define CLASS(g, n, f) { .group = g, .name = n, .fields = f, .nr_fields = N(f) }

/*
 * The classes every trace may have, in a fixed order: their ids when first
 * used.  A slab event whose cache the trace names has a cache field, one
 * whose cache it does not name has none (as in report --json, and an
 * empty string is what babeltrace2 2.0.4 shows as the previous event's).
 */
enum { C_KMALLOC, C_CACHE_ALLOC, C_PAGE_ALLOC, C_KFREE, C_CACHE_FREE, C_PAGE_FREE,
       C_FORK, C_EXEC, C_EXIT, C_PRINTF, C_KMALLOC_C, C_CACHE_ALLOC_C, C_KFREE_C,
       C_CACHE_FREE_C, C_STATIC };

#define CLASS_NC(g, n, f) { .group = g, .name = n, .fields = f, .nr_fields = N(f) - 1 }

static const struct gtsc_event_class static_classes[C_STATIC] = {
	[C_KMALLOC] = CLASS_NC("kmem", "kmem_kmalloc", kmalloc_fields),
	[C_CACHE_ALLOC] = CLASS_NC("kmem", "kmem_cache_alloc", kmalloc_fields),
	[C_PAGE_ALLOC] = CLASS("kmem", "kmem_mm_page_alloc", page_alloc_fields),
	[C_KFREE] = CLASS_NC("kmem", "kmem_kfree", kfree_fields),
	[C_CACHE_FREE] = CLASS_NC("kmem", "kmem_cache_free", kfree_fields),
	[C_PAGE_FREE] = CLASS("kmem", "kmem_mm_page_free", page_free_fields),
	[C_FORK] = CLASS("sched", "sched_process_fork", fork_fields),
	[C_EXEC] = CLASS("sched", "sched_process_exec", exec_fields),
	[C_EXIT] = CLASS("sched", "sched_process_exit", exit_fields),
	[C_PRINTF] = CLASS("gtsc", "printf", printf_fields),
	[C_KMALLOC_C] = CLASS("kmem", "kmem_kmalloc", kmalloc_fields),
	[C_CACHE_ALLOC_C] = CLASS("kmem", "kmem_cache_alloc", kmalloc_fields),
	[C_KFREE_C] = CLASS("kmem", "kmem_kfree", kfree_fields),
	[C_CACHE_FREE_C] = CLASS("kmem", "kmem_cache_free", kfree_fields),
};

/* Keys of the classes made per trace: a syscall (per flavour) or a probed function. */
enum dyn_kind { K_ENTER, K_EXIT, K_COMPAT_ENTER, K_COMPAT_EXIT, K_FUNC_ENTRY, K_FUNC_RETURN };

struct dyn_key {
	__u8 kind; /* enum dyn_kind */
	__s64 id;  /* syscall nr (-1: unknown to the trace's table) or func id */
};

struct dyn_class {
	struct dyn_key key;
	int id;
	struct gtsc_event_class ec;
	struct gtsc_field f[8];
	char name[96];
	char fname[8][40];
};

struct ctf_classes {
	const struct gtsc_reader *r;
	struct gtsc_cap_set cap[GTSC_NR_SYSCALLS]; /* what sys_enter captured, by nr */
	int id_of_static[C_STATIC];		   /* class id + 1, 0: not used yet */
	/* every class in id order: a static one's row, or a dynamic one's */
	const struct gtsc_event_class **by_id;
	unsigned int nr, cap_ids;
	struct dyn_class **dyn; /* sorted by key */
	size_t nr_dyn, cap_dyn;
};

struct ctf_classes *ctf_classes__new(const struct gtsc_reader *r)
{
	struct ctf_classes *c = calloc(1, sizeof(*c));
	__u8 flags[GTSC_NR_SYSCALLS] = {};

	if (!c)
		return NULL;
	c->r = r;
	gtsc_capture__fill(c->cap, flags);
	return c;
}

void ctf_classes__free(struct ctf_classes *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nr_dyn; i++)
		free(c->dyn[i]);
	free(c->dyn);
	free(c->by_id);
	free(c);
}

const struct gtsc_event_class *ctf_classes__get(const struct ctf_classes *c, unsigned int id)
{
	return id < c->nr ? c->by_id[id] : NULL;
}

unsigned int ctf_classes__count(const struct ctf_classes *c)
{
	return c->nr;
}

static int add_id(struct ctf_classes *c, const struct gtsc_event_class *ec)
{
	if (c->nr == c->cap_ids) {
		unsigned int n = c->cap_ids ? 2 * c->cap_ids : 64;
		const struct gtsc_event_class **p = realloc(c->by_id, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->by_id = p;
		c->cap_ids = n;
	}
	c->by_id[c->nr] = ec;
	return c->nr++;
}

static int static_id(struct ctf_classes *c, int which)
{
	int id;

	if (c->id_of_static[which])
		return c->id_of_static[which] - 1;
	id = add_id(c, &static_classes[which]);
	if (id >= 0)
		c->id_of_static[which] = id + 1;
	return id;
}

static int key_cmp(const struct dyn_key *a, const struct dyn_key *b)
{
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* A field name TSDL takes: [A-Za-z0-9_] (every name gets a leading '_' there). */
static void add_field(struct dyn_class *d, const char *name, __u16 off, __u16 size, __u8 type,
		      __u8 print)
{
	unsigned int i = d->ec.nr_fields++;
	char *n = d->fname[i];

	snprintf(n, sizeof(d->fname[i]), "%s", name);
	for (; *n; n++)
		if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
		      (*n >= '0' && *n <= '9') || *n == '_'))
			*n = '_';
	d->f[i] = (struct gtsc_field){ .name = d->fname[i], .offset = off, .size = size,
				       .type = type, .print = print };
}

static const char *const arg_names[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };

static bool captures_path(const struct ctf_classes *c, int nr, int arg)
{
	if (nr < 0 || nr >= GTSC_NR_SYSCALLS)
		return false;
	for (int i = 0; i < GTSC_CAP_SPECS; i++)
		if (c->cap[nr].spec[i].how == GTSC_CAP_PATH && c->cap[nr].spec[i].arg == arg)
			return true;
	return false;
}

/*
 * An argument by its declared C type, as report --json shows it: pointers
 * and flag-like words in hex (64 bits), unsigned and signed integers as
 * wide as their type; a path the record captures as that string.
 */
static void syscall_arg(const struct ctf_classes *c, struct dyn_class *d,
			const struct gtsc_syscall_info *si, int i)
{
	const char *type = si->arg_type[i], *name = si->arg_name[i];
	__u16 off = offsetof(struct gtsc_rec_sys_enter, args) + 8 * i;
	bool wide = strstr(type, "long") || !strcmp(type, "size_t");

	if (captures_path(c, si->nr, i))
		add_field(d, name, i, 8, GTSC_FT_CAPTURED, GTSC_FP_DEFAULT);
	else if (strchr(type, '*') || strstr(name, "flags") || strstr(name, "mode") ||
		 strstr(name, "prot"))
		add_field(d, name, off, 8, GTSC_FT_UINT, GTSC_FP_HEX);
	else if (!strncmp(type, "unsigned", 8) || !strcmp(type, "size_t"))
		add_field(d, name, off, wide ? 8 : 4, GTSC_FT_UINT, GTSC_FP_DEFAULT);
	else
		add_field(d, name, off, wide ? 8 : 4, GTSC_FT_INT, GTSC_FP_DEFAULT);
}

static void raw_args(struct dyn_class *d, __u16 off)
{
	for (int i = 0; i < 6; i++)
		add_field(d, arg_names[i], off + 8 * i, 8, GTSC_FT_UINT, GTSC_FP_HEX);
}

/* syscall_entry_openat / syscall_exit_openat, compat_ for i386 calls, _unknown without a name. */
static void syscall_class(const struct ctf_classes *c, struct dyn_class *d, int nr)
{
	bool compat = d->key.kind == K_COMPAT_ENTER || d->key.kind == K_COMPAT_EXIT;
	bool enter = d->key.kind == K_ENTER || d->key.kind == K_COMPAT_ENTER;
	const struct gtsc_syscall_info *si = compat ? NULL : gtsc_reader__syscall(c->r, nr);
	const char *name = compat ? syscall_compat_name(nr) : si ? si->name : NULL;

	snprintf(d->name, sizeof(d->name), "%ssyscall_%s_%s", compat ? "compat_" : "",
		 enter ? "entry" : "exit", name ?: "unknown");
	d->ec.group = "syscalls";
	if (!name) /* LTTng's unknown-syscall events: the number in id */
		add_field(d, "id", offsetof(struct gtsc_rec_sys_enter, nr), 4, GTSC_FT_INT,
			  GTSC_FP_DEFAULT);
	if (!enter)
		add_field(d, "ret", offsetof(struct gtsc_rec_sys_exit, ret), 8, GTSC_FT_INT,
			  GTSC_FP_DEFAULT);
	else if (si)
		for (int i = 0; i < si->nr_args && i < 6; i++)
			syscall_arg(c, d, si, i);
	else
		raw_args(d, offsetof(struct gtsc_rec_sys_enter, args));
}

/* A register by its FUNCS kind ("s4", "u8", "p8", "x0"), as wide as the kind says. */
static void func_value(struct dyn_class *d, const char *kind, const char *name, __u16 off)
{
	int bytes = kind[0] && kind[1] ? kind[1] - '0' : 0;
	__u16 size = bytes == 1 || bytes == 2 || bytes == 4 ? bytes : 8;

	if (kind[0] == 's')
		add_field(d, name, off, size, GTSC_FT_INT, GTSC_FP_DEFAULT);
	else if (kind[0] == 'u')
		add_field(d, name, off, size, GTSC_FT_UINT, GTSC_FP_DEFAULT);
	else
		add_field(d, name, off, 8, GTSC_FT_UINT, GTSC_FP_HEX);
}

/* func_entry_NAME (ip, arguments by BTF) and func_return_NAME (ret, latency_ns). */
static void func_class(const struct ctf_classes *c, struct dyn_class *d, __u32 id)
{
	const struct gtsc_func_info *fi = gtsc_reader__func(c->r, id);
	bool typed = fi && strcmp(fi->ret_type, "?");
	char unknown[24];

	snprintf(unknown, sizeof(unknown), "func_%u", id);
	snprintf(d->name, sizeof(d->name), "func_%s_%s", d->key.kind == K_FUNC_ENTRY ? "entry" :
		 "return", fi ? fi->name : unknown);
	d->ec.group = "funcs";
	if (d->key.kind == K_FUNC_RETURN) {
		func_value(d, fi ? fi->ret_kind : "x0", "ret", offsetof(struct gtsc_rec_func, ret));
		add_field(d, "latency_ns", offsetof(struct gtsc_rec_func, latency_ns), 8,
			  GTSC_FT_UINT, GTSC_FP_DEFAULT);
		return;
	}
	add_field(d, "ip", offsetof(struct gtsc_rec_func, ip), 8, GTSC_FT_UINT, GTSC_FP_HEX);
	if (!typed) {
		raw_args(d, offsetof(struct gtsc_rec_func, args));
		return;
	}
	for (int i = 0; i < fi->nr_args && i < 6; i++)
		func_value(d, fi->arg_kind[i], fi->arg_name[i],
			   offsetof(struct gtsc_rec_func, args) + 8 * i);
}

static int dyn_id(struct ctf_classes *c, struct dyn_key key)
{
	size_t lo = 0, hi = c->nr_dyn;
	struct dyn_class *d;
	int id;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = key_cmp(&c->dyn[mid]->key, &key);

		if (!cmp)
			return c->dyn[mid]->id;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (c->nr_dyn == c->cap_dyn) {
		size_t n = c->cap_dyn ? 2 * c->cap_dyn : 64;
		struct dyn_class **p = realloc(c->dyn, n * sizeof(*p));

		if (!p)
			return -ENOMEM;
		c->dyn = p;
		c->cap_dyn = n;
	}
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->key = key;
	d->ec.fields = d->f;
	d->ec.name = d->name;
	if (key.kind >= K_FUNC_ENTRY)
		func_class(c, d, key.id);
	else
		syscall_class(c, d, key.id);
	id = add_id(c, &d->ec);
	if (id < 0) {
		free(d);
		return id;
	}
	d->id = id;
	memmove(&c->dyn[lo + 1], &c->dyn[lo], (c->nr_dyn - lo) * sizeof(*c->dyn));
	c->dyn[lo] = d;
	c->nr_dyn++;
	return id;
}

static int syscall_id(struct ctf_classes *c, const struct gtsc_rec_hdr *h, int nr)
{
	bool compat = h->flags & GTSC_SYS_F_COMPAT;
	bool enter = h->type == GTSC_REC_SYS_ENTER;
	struct dyn_key k = { .kind = compat ? (enter ? K_COMPAT_ENTER : K_COMPAT_EXIT) :
					      (enter ? K_ENTER : K_EXIT),
			     .id = nr };

	/* every syscall the tables do not name is one class, as LTTng's _unknown */
	if (compat ? !syscall_compat_name(nr) : !gtsc_reader__syscall(c->r, nr))
		k.id = -1;
	return dyn_id(c, k);
}

int ctf_classes__of(struct ctf_classes *c, const struct gtsc_rec_hdr *h, bool cache_named)
{
	static const int alloc_class[2][3] = { { C_KMALLOC, C_CACHE_ALLOC, C_PAGE_ALLOC },
					       { C_KMALLOC_C, C_CACHE_ALLOC_C, C_PAGE_ALLOC } };
	static const int free_class[2][3] = { { C_KFREE, C_CACHE_FREE, C_PAGE_FREE },
					      { C_KFREE_C, C_CACHE_FREE_C, C_PAGE_FREE } };
	static const int task_class[] = { C_FORK, C_EXEC, C_EXIT };
	const struct gtsc_rec_kmem_alloc *a = (const void *)h;
	const struct gtsc_rec_kmem_free *f = (const void *)h;
	const struct gtsc_rec_task *t = (const void *)h;
	const struct gtsc_rec_func *fn = (const void *)h;

	switch (h->type) {
	case GTSC_REC_SYS_ENTER:
		return syscall_id(c, h, ((const struct gtsc_rec_sys_enter *)h)->nr);
	case GTSC_REC_SYS_EXIT:
		return syscall_id(c, h, ((const struct gtsc_rec_sys_exit *)h)->nr);
	case GTSC_REC_KMEM_ALLOC:
		return a->kind <= GTSC_KMEM_PAGE ? static_id(c, alloc_class[cache_named][a->kind])
						 : -ENOENT;
	case GTSC_REC_KMEM_FREE:
		return f->kind <= GTSC_KMEM_PAGE ? static_id(c, free_class[cache_named][f->kind])
						 : -ENOENT;
	case GTSC_REC_TASK: /* GTSC_TASK_COMM only names tasks */
		return t->event <= GTSC_TASK_EXIT ? static_id(c, task_class[t->event]) : -ENOENT;
	case GTSC_REC_FUNC:
		return dyn_id(c, (struct dyn_key){ fn->kind == GTSC_FUNC_RETURN ? K_FUNC_RETURN :
						   K_FUNC_ENTRY, fn->func_id });
	case GTSC_REC_PRINTF:
		return static_id(c, C_PRINTF);
	default:
		return -ENOENT;
	}
}
