// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Every built-in event class, described once: its fields as records.h lays
 * them out and how each prints.  The text and JSON emitters (emit_text.c,
 * emit_json.c) walk these; nothing else knows a record's fields.  Adding a
 * built-in source is its record in records.h, its BPF file and one row in
 * rec_types[] below (with its classes).
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <gtsc/gtsc.h>
#include "events.h"
#include "tp_class.h"
#include "trace_reader.h"

#define FIELD(rec, member, nm, t, p, ...)                                                          \
	{                                                                                          \
		.name = (nm), .offset = offsetof(struct rec, member),                              \
		.size = sizeof(((struct rec *)0)->member), .type = (t), .print = (p), __VA_ARGS__  \
	}
#define CLASS(grp, nm, f, ...)                                                                     \
	{                                                                                          \
		.group = (grp), .name = (nm), .fields = (f),                                       \
		.nr_fields = sizeof(f) / sizeof((f)[0]), __VA_ARGS__                               \
	}

/* ---- syscalls ---- */

#define SYS_PAYLOAD(rec)                                                                           \
	{ .name = "data", .offset = sizeof(struct rec), .type = GTSC_FT_PAYLOAD,                   \
	  .elem_size = offsetof(struct rec, payload_len) }

static const struct gtsc_field sys_exit_fields[] = {
	FIELD(gtsc_rec_sys_exit, nr, "name", GTSC_FT_INT, GTSC_FP_SYSCALL),
	FIELD(gtsc_rec_sys_exit, nr, "nr", GTSC_FT_INT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_sys_exit, ret, "ret", GTSC_FT_INT, GTSC_FP_DEFAULT),
	SYS_PAYLOAD(gtsc_rec_sys_exit),
};
static const struct gtsc_event_class sys_exit_class = CLASS("syscalls", "sys_exit", sys_exit_fields);

/* An argument by its C type: pointers and flag-like words in hex, ints cut to their size. */
static struct gtsc_field sys_arg(const char *type, const char *name, int i)
{
	struct gtsc_field f = { .name = name, .offset = offsetof(struct gtsc_rec_sys_enter, args) + 8 * i,
				.size = 8, .type = GTSC_FT_UINT, .flags = GTSC_FF_ARG };
	bool is_long = strstr(type, "long") || !strcmp(type, "size_t");

	if (strchr(type, '*') || strstr(name, "flags") || strstr(name, "mode") ||
	    strstr(name, "prot"))
		f.print = GTSC_FP_HEX;
	else if (!strncmp(type, "unsigned", 8) || !strcmp(type, "size_t"))
		f.size = is_long ? 8 : 4;
	else
		f = (struct gtsc_field){ .name = name, .offset = f.offset, .size = is_long ? 8 : 4,
					 .type = GTSC_FT_INT, .flags = GTSC_FF_ARG };
	return f;
}

static const char *const raw_args[6] = { "arg0", "arg1", "arg2", "arg3", "arg4", "arg5" };

/* A class to build, with room for MAX fields in *F; NULL when out of memory. */
static struct gtsc_event_class *class_alloc(unsigned int max, struct gtsc_field **f)
{
	struct gtsc_event_class *c = calloc(1, sizeof(*c));

	*f = calloc(max, sizeof(**f));
	if (!c || !*f) {
		free(c);
		free(*f);
		return NULL;
	}
	return c;
}

/* "name", "nr", "compat" (i386 calls), the arguments, the captured data */
static struct gtsc_event_class *build_sys_enter(const struct gtsc_reader *r,
						const struct gtsc_rec_hdr *rec, void **state)
{
	const struct gtsc_rec_sys_enter *e = (const void *)rec;
	bool compat = rec->flags & GTSC_SYS_F_COMPAT;
	const struct gtsc_syscall_info *si = compat ? NULL : gtsc_reader__syscall(r, e->nr);
	int nr_args = si ? (si->nr_args < 6 ? si->nr_args : 6) : 6;
	struct gtsc_field *f;
	struct gtsc_event_class *c = class_alloc(4 + nr_args, &f);
	unsigned int n = 0;

	if (!c)
		return NULL;
	f[n++] = (struct gtsc_field)FIELD(gtsc_rec_sys_enter, nr, "name", GTSC_FT_INT,
					  GTSC_FP_SYSCALL);
	f[n++] = (struct gtsc_field)FIELD(gtsc_rec_sys_enter, nr, "nr", GTSC_FT_INT,
					  GTSC_FP_DEFAULT);
	if (compat)
		f[n++] = (struct gtsc_field)FIELD(gtsc_rec_sys_enter, hdr.flags, "compat",
						  GTSC_FT_UINT, GTSC_FP_BOOL);
	for (int i = 0; i < nr_args; i++) {
		if (si) {
			f[n++] = sys_arg(si->arg_type[i], si->arg_name[i], i);
			continue;
		}
		f[n++] = (struct gtsc_field){ .name = raw_args[i],
					      .offset = offsetof(struct gtsc_rec_sys_enter, args) +
							8 * i,
					      .size = 8, .type = GTSC_FT_UINT,
					      .print = GTSC_FP_HEX, .flags = GTSC_FF_ARG };
	}
	f[n++] = (struct gtsc_field)SYS_PAYLOAD(gtsc_rec_sys_enter);
	*c = (struct gtsc_event_class){ .group = "syscalls", .name = "sys_enter", .fields = f,
					.nr_fields = n, .style = GTSC_CLASS_CALL };
	return c;
}

/* An i386 call's number is another table's: its class is not the native one's. */
static __u64 sys_enter_key(const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_sys_enter *e = (const void *)rec;

	return (__u64)!!(rec->flags & GTSC_SYS_F_COMPAT) << 32 | (__u32)e->nr;
}

/* ---- kmem ---- */

static const struct gtsc_field kmem_alloc_fields[] = {
	FIELD(gtsc_rec_kmem_alloc, call_site, "call_site", GTSC_FT_UINT, GTSC_FP_SYM),
	FIELD(gtsc_rec_kmem_alloc, ptr, "ptr", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_alloc, bytes_req, "bytes_req", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_kmem_alloc, bytes_alloc, "bytes_alloc", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_kmem_alloc, gfp_flags, "gfp_flags", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_alloc, node, "node", GTSC_FT_INT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_kmem_alloc, cache_id, "cache", GTSC_FT_UINT, GTSC_FP_CACHE),
};

static const struct gtsc_field page_alloc_fields[] = {
	FIELD(gtsc_rec_kmem_alloc, ptr, "pfn", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_alloc, order, "order", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_kmem_alloc, gfp_flags, "gfp_flags", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_alloc, migratetype, "migratetype", GTSC_FT_INT, GTSC_FP_DEFAULT),
};

static const struct gtsc_field kmem_free_fields[] = {
	FIELD(gtsc_rec_kmem_free, call_site, "call_site", GTSC_FT_UINT, GTSC_FP_SYM),
	FIELD(gtsc_rec_kmem_free, ptr, "ptr", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_free, cache_id, "cache", GTSC_FT_UINT, GTSC_FP_CACHE),
};

static const struct gtsc_field page_free_fields[] = {
	FIELD(gtsc_rec_kmem_free, ptr, "pfn", GTSC_FT_UINT, GTSC_FP_HEX),
	FIELD(gtsc_rec_kmem_free, order, "order", GTSC_FT_UINT, GTSC_FP_DEFAULT),
};

/* by enum gtsc_kmem_kind: perf's kmem tracepoint names */
static const struct gtsc_event_class kmalloc_class = CLASS("kmem", "kmalloc", kmem_alloc_fields);
static const struct gtsc_event_class cache_alloc_class =
	CLASS("kmem", "kmem_cache_alloc", kmem_alloc_fields);
static const struct gtsc_event_class page_alloc_class =
	CLASS("kmem", "mm_page_alloc", page_alloc_fields);
static const struct gtsc_event_class *const kmem_alloc_classes[] = {
	[GTSC_KMEM_KMALLOC] = &kmalloc_class,
	[GTSC_KMEM_CACHE] = &cache_alloc_class,
	[GTSC_KMEM_PAGE] = &page_alloc_class,
};

static const struct gtsc_event_class kfree_class = CLASS("kmem", "kfree", kmem_free_fields);
static const struct gtsc_event_class cache_free_class =
	CLASS("kmem", "kmem_cache_free", kmem_free_fields);
static const struct gtsc_event_class page_free_class =
	CLASS("kmem", "mm_page_free", page_free_fields);
static const struct gtsc_event_class *const kmem_free_classes[] = {
	[GTSC_KMEM_KMALLOC] = &kfree_class,
	[GTSC_KMEM_CACHE] = &cache_free_class,
	[GTSC_KMEM_PAGE] = &page_free_class,
};

static __u64 kmem_alloc_key(const struct gtsc_rec_hdr *rec)
{
	return ((const struct gtsc_rec_kmem_alloc *)rec)->kind;
}

static __u64 kmem_free_key(const struct gtsc_rec_hdr *rec)
{
	return ((const struct gtsc_rec_kmem_free *)rec)->kind;
}

/* ---- task ---- */

static const struct gtsc_field fork_fields[] = {
	FIELD(gtsc_rec_task, other_pid, "parent_pid", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_task, comm, "new_comm", GTSC_FT_CHARS, GTSC_FP_DEFAULT),
};
static const struct gtsc_field exec_fields[] = {
	FIELD(gtsc_rec_task, comm, "new_comm", GTSC_FT_CHARS, GTSC_FP_DEFAULT),
};
static const struct gtsc_field exit_fields[] = {
	FIELD(gtsc_rec_task, exit_code, "exit_code", GTSC_FT_INT, GTSC_FP_DEFAULT),
};
static const struct gtsc_event_class fork_class = CLASS("task", "task_fork", fork_fields);
static const struct gtsc_event_class exec_class = CLASS("task", "task_exec", exec_fields);
static const struct gtsc_event_class exit_class = CLASS("task", "task_exit", exit_fields);
/* GTSC_TASK_COMM only names a task: no class */
static const struct gtsc_event_class *const task_classes[] = {
	[GTSC_TASK_FORK] = &fork_class,
	[GTSC_TASK_EXEC] = &exec_class,
	[GTSC_TASK_EXIT] = &exit_class,
};

static __u64 task_key(const struct gtsc_rec_hdr *rec)
{
	return ((const struct gtsc_rec_task *)rec)->event;
}

/* ---- function probes (-k) ---- */

/* A register by its FUNCS kind ("s4", "u8", "p8", "x0"): integers cut to their size. */
static struct gtsc_field func_value(const char *kind, const char *name, __u16 offset, __u8 flags)
{
	int bytes = kind[0] && kind[1] ? kind[1] - '0' : 0;
	struct gtsc_field f = { .name = name, .offset = offset, .size = 8, .flags = flags };

	if (bytes > 0 && bytes < 8)
		f.size = bytes;
	if (kind[0] == 's')
		f.type = GTSC_FT_INT;
	else if (kind[0] == 'u')
		f.type = GTSC_FT_UINT;
	else
		f = (struct gtsc_field){ .name = name, .offset = offset, .size = 8,
					 .type = GTSC_FT_UINT, .print = GTSC_FP_HEX, .flags = flags };
	return f;
}

/*
 * Entry: "func", "ip" and the arguments by the recording kernel's BTF names
 * and types, else the raw registers.  Return: "func", "ret", "latency_ns".
 */
static struct gtsc_event_class *build_func(const struct gtsc_reader *r,
					   const struct gtsc_rec_hdr *rec, void **state)
{
	const struct gtsc_rec_func *e = (const void *)rec;
	const struct gtsc_func_info *fi = gtsc_reader__func(r, e->func_id);
	bool typed = fi && strcmp(fi->ret_type, "?");
	int nr_args = typed ? (fi->nr_args < 6 ? fi->nr_args : 6) : 6;
	struct gtsc_field *f;
	/* a return has three fields whatever the prototype's argument count */
	struct gtsc_event_class *c =
		class_alloc(e->kind == GTSC_FUNC_RETURN ? 3 : 2 + nr_args, &f);
	unsigned int n = 0;

	if (!c)
		return NULL;
	f[n++] = (struct gtsc_field)FIELD(gtsc_rec_func, func_id, "func", GTSC_FT_UINT,
					  GTSC_FP_FUNC);
	if (e->kind == GTSC_FUNC_RETURN) {
		f[n++] = func_value(fi ? fi->ret_kind : "x0", "ret",
				    offsetof(struct gtsc_rec_func, ret), 0);
		f[n++] = (struct gtsc_field)FIELD(gtsc_rec_func, latency_ns, "latency_ns",
						  GTSC_FT_UINT, GTSC_FP_DEFAULT);
		*c = (struct gtsc_event_class){ .group = "funcs", .name = "func_return",
						.fields = f, .nr_fields = n };
		return c;
	}
	f[n++] = (struct gtsc_field)FIELD(gtsc_rec_func, ip, "ip", GTSC_FT_UINT, GTSC_FP_HEX);
	for (int i = 0; i < nr_args; i++)
		f[n++] = func_value(typed ? fi->arg_kind[i] : "x0",
				    typed ? fi->arg_name[i] : raw_args[i],
				    offsetof(struct gtsc_rec_func, args) + 8 * i, GTSC_FF_ARG);
	*c = (struct gtsc_event_class){ .group = "funcs", .name = "func_entry", .fields = f,
					.nr_fields = n, .style = GTSC_CLASS_CALL };
	return c;
}

static __u64 func_key(const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_func *e = (const void *)rec;

	return (__u64)(e->kind == GTSC_FUNC_RETURN) << 32 | e->func_id;
}

/* ---- what gtsc itself writes ---- */

static const struct gtsc_field drops_fields[] = {
	FIELD(gtsc_rec_drops, channel, "channel", GTSC_FT_UINT, GTSC_FP_CHANNEL),
	FIELD(gtsc_rec_drops, count, "count", GTSC_FT_UINT, GTSC_FP_DEFAULT),
	FIELD(gtsc_rec_drops, since_ns, "since_ns", GTSC_FT_UINT, GTSC_FP_TIME,
	      .text_name = "since"),
};
static const struct gtsc_event_class drops_class = CLASS("gtsc", "DROPPED", drops_fields);
static const struct gtsc_event_class *const drops_classes[] = { &drops_class };

static const struct gtsc_field printf_fields[] = {
	FIELD(gtsc_rec_printf, fmt_id, "text", GTSC_FT_UINT, GTSC_FP_PRINTF),
};
static const struct gtsc_event_class printf_class = CLASS("gtsc", "printf", printf_fields);
static const struct gtsc_event_class *const printf_classes[] = { &printf_class };

static const struct gtsc_event_class *const sys_exit_classes[] = { &sys_exit_class };

/* ---- tracepoints: classes from the formats the trace saved ---- */

static __u64 tracepoint_key(const struct gtsc_rec_hdr *rec)
{
	if (rec->size < sizeof(struct gtsc_rec_tracepoint))
		return ~0ULL; /* no event id: no class */
	return ((const struct gtsc_rec_tracepoint *)rec)->event_id;
}

/* *STATE: the trace's parsed formats, made at its first tracepoint record. */
static struct gtsc_event_class *build_tracepoint(const struct gtsc_reader *r,
						 const struct gtsc_rec_hdr *rec, void **state)
{
	__u64 id = tracepoint_key(rec);

	if (id == ~0ULL)
		return NULL;
	if (!*state)
		*state = gt_tp_formats__new(r);
	return *state ? gt_tp_class__build(*state, id) : NULL;
}

static void free_tracepoint_state(void *state)
{
	gt_tp_formats__free(state);
}

/* ---- the registry ---- */

#define FIXED(c) .classes = (c), .nr_classes = sizeof(c) / sizeof((c)[0])

static const struct event_rec_type rec_types[] = {
	{ GTSC_REC_SYS_ENTER, sys_enter_key, .build = build_sys_enter },
	{ GTSC_REC_SYS_EXIT, NULL, FIXED(sys_exit_classes) },
	{ GTSC_REC_KMEM_ALLOC, kmem_alloc_key, FIXED(kmem_alloc_classes) },
	{ GTSC_REC_KMEM_FREE, kmem_free_key, FIXED(kmem_free_classes) },
	/* GTSC_REC_KMEM_CACHE names a cache: no class */
	{ GTSC_REC_TASK, task_key, FIXED(task_classes) },
	{ GTSC_REC_DROPS, NULL, FIXED(drops_classes) },
	{ GTSC_REC_FUNC, func_key, .build = build_func },
	{ GTSC_REC_PRINTF, NULL, FIXED(printf_classes) },
	{ GTSC_REC_TRACEPOINT, tracepoint_key, .build = build_tracepoint,
	  .free_state = free_tracepoint_state },
};

/* ---- classes built per trace ---- */

struct built_class {
	__u64 key;
	__u16 type;
	bool used;
	struct gtsc_event_class *cls; /* NULL: the build failed; not retried */
};

#define NR_REC_TYPES (sizeof(rec_types) / sizeof(rec_types[0]))

/* Open addressing: a report meets a few hundred syscalls and functions. */
struct event_classes {
	struct built_class *e;
	size_t cap, n;
	void *state[NR_REC_TYPES]; /* each row's, by index in rec_types[] */
};

/* The reader frees its classes with it (trace_reader_ext). */
static void event_classes__free(void *data)
{
	struct event_classes *t = data;

	if (!t)
		return;
	for (size_t i = 0; i < NR_REC_TYPES; i++)
		if (t->state[i] && rec_types[i].free_state)
			rec_types[i].free_state(t->state[i]);
	for (size_t i = 0; i < t->cap; i++) {
		if (t->e[i].cls)
			free((void *)t->e[i].cls->fields);
		free(t->e[i].cls);
	}
	free(t->e);
	free(t);
}

static size_t slot_of(__u16 type, __u64 key, size_t cap)
{
	return ((key ^ (__u64)type << 48) * 0x9e3779b97f4a7c15ull >> 32) & (cap - 1);
}

static struct built_class *find_slot(const struct event_classes *t, __u16 type, __u64 key)
{
	size_t h = slot_of(type, key, t->cap);

	while (t->e[h].used && (t->e[h].type != type || t->e[h].key != key))
		h = (h + 1) & (t->cap - 1);
	return &t->e[h];
}

static int grow(struct event_classes *t)
{
	struct event_classes bigger = { .cap = t->cap ? t->cap * 2 : 64 };

	bigger.e = calloc(bigger.cap, sizeof(*bigger.e));
	if (!bigger.e)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++)
		if (t->e[i].used)
			*find_slot(&bigger, t->e[i].type, t->e[i].key) = t->e[i];
	free(t->e);
	t->e = bigger.e;
	t->cap = bigger.cap;
	return 0;
}

static const struct gtsc_event_class *built_class(const struct gtsc_reader *r,
						  const struct event_rec_type *rt,
						  const struct gtsc_rec_hdr *rec, __u64 key)
{
	struct trace_reader_ext *x = gt_reader__ext(r);
	struct event_classes *t;
	struct built_class *b;

	if (!x->data) { /* R's first record that needs a built class */
		x->data = calloc(1, sizeof(struct event_classes));
		x->free = event_classes__free;
	}
	t = x->data;
	if (!t)
		return NULL;
	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	b = find_slot(t, rec->type, key);
	if (!b->used) {
		*b = (struct built_class){ .key = key, .type = rec->type, .used = true,
					   .cls = rt->build(r, rec, &t->state[rt - rec_types]) };
		t->n++;
	}
	return b->cls;
}

const struct gtsc_event_class *gt_event_class__of(const struct gtsc_reader *r,
						  const struct gtsc_rec_hdr *rec)
{
	const struct event_rec_type *rt = NULL;
	__u64 key;

	for (size_t i = 0; i < NR_REC_TYPES; i++)
		if (rec_types[i].type == rec->type)
			rt = &rec_types[i];
	if (!rt)
		return NULL;
	key = rt->key ? rt->key(rec) : 0;
	if (rt->build)
		return built_class(r, rt, rec, key);
	return key < rt->nr_classes ? rt->classes[key] : NULL;
}
