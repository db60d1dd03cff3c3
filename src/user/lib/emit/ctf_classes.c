// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The field layer's classes as CTF event classes named as lttng-modules
 * names its kernel events (instrumentation/events/kmem.h and sched.h, the
 * syscall tables' syscall_entry_/syscall_exit_ and compat_ prefixes), so
 * that Trace Compass's Linux kernel analyses recognise them; field names
 * are LTTng's where it has the field, else the layer's (report --json's).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ctf_classes.h"
#include "emit.h"
#include "gtsc_syscalls.h"
#include "syscall_capture.h"
#include "syscall_compat.h"

/* Extra fields LTTng's event has that the record holds in its header. */
enum { X_NONE, X_TID, X_CHILD };

/*
 * A class under LTTng's name: its event, the fields it renames, extras.
 * (kmem events are LTTng's with a kmem_ prefix: kmem_kmalloc, kmem_mm_page_free.)
 * LTTng calls a thread a tid where the kernel's tracepoints say pid: the
 * sched rows are for tracepoint classes (sched:sched_switch recorded by
 * name), whose fields Trace Compass reads as LTTng's.
 */
static const struct lttng_name {
	const char *name, *lttng;
	const char *rename[2][2];
	int extras;
} lttng_names[] = {
	/* the fork record is the child's (hdr.pid/tid): LTTng's fields say whose is whose */
	{ "task_fork", "sched_process_fork", { { "new_comm", "child_comm" } }, X_CHILD },
	{ "task_exec", "sched_process_exec", {}, X_TID },
	{ "task_exit", "sched_process_exit", {}, X_TID },
	{ "sched_switch", "sched_switch", { { "prev_pid", "prev_tid" }, { "next_pid", "next_tid" } } },
	{ "sched_wakeup", "sched_wakeup", { { "pid", "tid" } } },
	{ "sched_waking", "sched_waking", { { "pid", "tid" } } },
	{ "sched_wakeup_new", "sched_wakeup_new", { { "pid", "tid" } } },
	{ "sched_migrate_task", "sched_migrate_task", { { "pid", "tid" } } },
	{ "sched_process_free", "sched_process_free", { { "pid", "tid" } } },
	{ "sched_process_exit", "sched_process_exit", { { "pid", "tid" } } },
	{ "sched_process_exec", "sched_process_exec", { { "pid", "tid" }, { "old_pid", "old_tid" } } },
	{ "sched_process_fork", "sched_process_fork",
	  { { "parent_pid", "parent_tid" }, { "child_pid", "child_tid" } } },
};

/* The set of fields of a full class that one record had. */
struct variant {
	__u64 omitted;
	int id;
};

struct full_class {
	const struct gtsc_event_class *ec;
	__u64 sub; /* one syscall of the layer's sys_exit: compat << 32 | nr */
	struct ctf_class cls;
	struct ctf_field f[24];
	char name[96];
	struct variant *v;
	size_t nr_v;
};

struct ctf_classes {
	const struct gtsc_reader *r;
	struct gtsc_cap_set cap[GTSC_NR_SYSCALLS]; /* what sys_enter captures, by nr */
	struct full_class **slot;		   /* open addressing by (ec, sub) */
	size_t nr_slots, n;
	struct ctf_class **by_id; /* a variant's own class, or its full one's */
	bool *own;		  /* by_id[i] is a variant's, freed with C */
	unsigned int nr, cap_ids;
};

struct ctf_classes *gt_ctf_classes__new(const struct gtsc_reader *r)
{
	struct ctf_classes *c = calloc(1, sizeof(*c));
	__u8 flags[GTSC_NR_SYSCALLS] = {};

	if (!c)
		return NULL;
	c->r = r;
	gt_capture__fill(c->cap, flags);
	return c;
}

void gt_ctf_classes__free(struct ctf_classes *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->nr; i++) {
		if (c->own[i]) {
			free((void *)c->by_id[i]->fields);
			free(c->by_id[i]);
		}
	}
	for (size_t j = 0; j < c->nr_slots; j++) {
		if (c->slot[j])
			free(c->slot[j]->v);
		free(c->slot[j]);
	}
	free(c->slot);
	free(c->by_id);
	free(c->own);
	free(c);
}

const struct ctf_class *gt_ctf_classes__get(const struct ctf_classes *c, unsigned int id)
{
	return id < c->nr ? c->by_id[id] : NULL;
}

unsigned int gt_ctf_classes__count(const struct ctf_classes *c)
{
	return c->nr;
}

static bool captures_path(const struct ctf_classes *c, int nr, int arg)
{
	if (nr < 0 || nr >= GTSC_NR_SYSCALLS)
		return false;
	for (int i = 0; i < GTSC_CAP_SPECS; i++)
		if (c->cap[nr].spec[i].how == GTSC_CAP_PATH && c->cap[nr].spec[i].arg == arg)
			return true;
	return false;
}

static bool is_string(const struct gtsc_field *f)
{
	return gt_emit_is_name(f->print) || f->type == GTSC_FT_CHARS || f->type == GTSC_FT_DYN_STR;
}

/* Field F under NAME, typed as the layer describes its bytes. */
static void add(struct full_class *fc, const char *name, const struct gtsc_field *f, __u8 src)
{
	struct ctf_field *cf;

	if (fc->cls.nr_fields == sizeof(fc->f) / sizeof(fc->f[0]))
		return;
	cf = &fc->f[fc->cls.nr_fields++];
	*cf = (struct ctf_field){ .name = name, .f = f, .src = src, .type = CTF_INT, .size = 4,
				  .is_signed = true };
	if (src != CTF_SRC_FIELD)
		return;
	if (is_string(f)) {
		cf->type = CTF_STRING;
	} else if (f->type == GTSC_FT_ARRAY || f->type == GTSC_FT_DYN_ARRAY) {
		cf->type = CTF_SEQ;
		cf->size = f->elem_size && f->elem_size <= 8 ? f->elem_size : 1;
		cf->is_signed = f->flags & GTSC_FF_SIGNED;
	} else {
		cf->size = f->size && f->size <= 8 ? f->size : 8;
		cf->is_signed = f->type == GTSC_FT_INT;
		cf->hex = f->print == GTSC_FP_HEX || f->print == GTSC_FP_FLAGS;
	}
}

/*
 * syscall_entry_openat with the arguments (a path the record captures as
 * its string), syscall_exit_openat with ret; compat_ for i386 calls;
 * _unknown, with the number in id, for a call the tables do not name.
 */
static void syscall_class(struct ctf_classes *c, struct full_class *fc,
			  const struct gtsc_rec_hdr *rec)
{
	int nr = ((const struct gtsc_rec_sys_enter *)rec)->nr; /* same place in sys_exit */
	bool compat = rec->flags & GTSC_SYS_F_COMPAT, enter = rec->type == GTSC_REC_SYS_ENTER;
	const struct gtsc_syscall_info *si = compat ? NULL : gtsc_reader__syscall(c->r, nr);
	const char *name = compat ? gt_syscall_compat_name(nr) : si ? si->name : NULL;
	int arg = 0;

	snprintf(fc->name, sizeof(fc->name), "%ssyscall_%s_%s", compat ? "compat_" : "",
		 enter ? "entry" : "exit", name ?: "unknown");
	for (unsigned int i = 0; i < fc->ec->nr_fields; i++) {
		const struct gtsc_field *f = &fc->ec->fields[i];

		if (f->flags & GTSC_FF_ARG) {
			add(fc, f->name, f, si && captures_path(c, nr, arg) ? CTF_SRC_CAPTURED
									: CTF_SRC_FIELD);
			fc->f[fc->cls.nr_fields - 1].arg = arg++;
		} else if (!strcmp(f->name, "nr") && !name) {
			add(fc, "id", f, CTF_SRC_FIELD);
		} else if (!strcmp(f->name, "ret")) {
			add(fc, "ret", f, CTF_SRC_FIELD);
		}
	}
	for (unsigned int i = 0; i < fc->cls.nr_fields; i++)
		if (fc->f[i].src == CTF_SRC_CAPTURED)
			fc->f[i].type = CTF_STRING;
}

/* func_entry_NAME (ip, the arguments) and func_return_NAME (ret, latency_ns). */
static void func_class(struct ctf_classes *c, struct full_class *fc,
		       const struct gtsc_rec_hdr *rec)
{
	__u32 id = ((const struct gtsc_rec_func *)rec)->func_id;
	const struct gtsc_func_info *fi = gtsc_reader__func(c->r, id);

	if (fi)
		snprintf(fc->name, sizeof(fc->name), "%s_%s", fc->ec->name, fi->name);
	else
		snprintf(fc->name, sizeof(fc->name), "%s_func_%u", fc->ec->name, id);
	for (unsigned int i = 0; i < fc->ec->nr_fields; i++)
		if (strcmp(fc->ec->fields[i].name, "func"))
			add(fc, fc->ec->fields[i].name, &fc->ec->fields[i], CTF_SRC_FIELD);
}

/*
 * LTTng's fork also has parent_tid, and Trace Compass's fork handler reads
 * it unconditionally (its kernel analysis stops without it).  The record
 * has the parent's process id only, not the thread that forked: the
 * process's main thread stands in for it.
 */
static void parent_tid(struct full_class *fc)
{
	for (unsigned int i = 0; i < fc->ec->nr_fields; i++)
		if (!strcmp(fc->ec->fields[i].name, "parent_pid"))
			add(fc, "parent_tid", &fc->ec->fields[i], CTF_SRC_FIELD);
}

static void build(struct ctf_classes *c, struct full_class *fc, const struct gtsc_rec_hdr *rec)
{
	const struct lttng_name *ln = NULL;

	fc->cls.name = fc->name;
	fc->cls.fields = fc->f;
	if (rec->type == GTSC_REC_SYS_ENTER || rec->type == GTSC_REC_SYS_EXIT)
		return syscall_class(c, fc, rec);
	if (rec->type == GTSC_REC_FUNC)
		return func_class(c, fc, rec);
	for (size_t i = 0; i < sizeof(lttng_names) / sizeof(lttng_names[0]); i++)
		if (!strcmp(lttng_names[i].name, fc->ec->name))
			ln = &lttng_names[i];
	if (ln)
		snprintf(fc->name, sizeof(fc->name), "%s", ln->lttng);
	else if (fc->ec->group && !strcmp(fc->ec->group, "kmem") &&
		 strncmp(fc->ec->name, "kmem_", 5))
		snprintf(fc->name, sizeof(fc->name), "kmem_%s", fc->ec->name);
	else
		snprintf(fc->name, sizeof(fc->name), "%s", fc->ec->name);
	for (unsigned int i = 0; i < fc->ec->nr_fields; i++) {
		const struct gtsc_field *f = &fc->ec->fields[i];
		const char *name = f->name;

		for (int k = 0; ln && k < 2 && ln->rename[k][0]; k++)
			if (!strcmp(name, ln->rename[k][0]))
				name = ln->rename[k][1];
		if (f->type != GTSC_FT_PAYLOAD)
			add(fc, name, f, CTF_SRC_FIELD);
	}
	if (ln && ln->extras == X_TID)
		add(fc, "tid", NULL, CTF_SRC_TID);
	if (ln && ln->extras == X_CHILD) {
		add(fc, "child_tid", NULL, CTF_SRC_TID);
		add(fc, "child_pid", NULL, CTF_SRC_PID);
		parent_tid(fc);
	}
}

static size_t slot_of(const struct gtsc_event_class *ec, __u64 sub, size_t nr_slots)
{
	return (((__u64)(uintptr_t)ec ^ sub * 31) * 0x9e3779b97f4a7c15ULL >> 32) & (nr_slots - 1);
}

static struct full_class **find(const struct ctf_classes *c, const struct gtsc_event_class *ec,
				__u64 sub)
{
	size_t h = slot_of(ec, sub, c->nr_slots);

	while (c->slot[h] && (c->slot[h]->ec != ec || c->slot[h]->sub != sub))
		h = (h + 1) & (c->nr_slots - 1);
	return &c->slot[h];
}

static int grow(struct ctf_classes *c)
{
	struct ctf_classes big = { .nr_slots = c->nr_slots ? 2 * c->nr_slots : 256 };

	big.slot = calloc(big.nr_slots, sizeof(*big.slot));
	if (!big.slot)
		return -ENOMEM;
	for (size_t i = 0; i < c->nr_slots; i++)
		if (c->slot[i])
			*find(&big, c->slot[i]->ec, c->slot[i]->sub) = c->slot[i];
	free(c->slot);
	c->slot = big.slot;
	c->nr_slots = big.nr_slots;
	return 0;
}

const struct ctf_class *gt_ctf_classes__of(struct ctf_classes *c, const struct gtsc_event_class *ec,
					   const struct gtsc_rec_hdr *rec)
{
	__u64 sub = 0;
	struct full_class **fp;

	if (rec->type == GTSC_REC_SYS_EXIT) /* the layer has one sys_exit for every call */
		sub = (__u64)!!(rec->flags & GTSC_SYS_F_COMPAT) << 32 |
		      (__u32)((const struct gtsc_rec_sys_exit *)rec)->nr;
	if ((c->n + 1) * 2 > c->nr_slots && grow(c)) {
		errno = ENOMEM;
		return NULL;
	}
	fp = find(c, ec, sub);
	if (!*fp) {
		*fp = calloc(1, sizeof(**fp));
		if (!*fp) {
			errno = ENOMEM;
			return NULL;
		}
		(*fp)->ec = ec;
		(*fp)->sub = sub;
		build(c, *fp, rec);
		c->n++;
	}
	return &(*fp)->cls;
}

static int add_id(struct ctf_classes *c, struct ctf_class *cls, bool own)
{
	if (c->nr == c->cap_ids) {
		unsigned int n = c->cap_ids ? 2 * c->cap_ids : 64;
		struct ctf_class **p = realloc(c->by_id, n * sizeof(*p));
		bool *o = p ? realloc(c->own, n * sizeof(*o)) : NULL;

		if (p)
			c->by_id = p;
		if (!o)
			return -ENOMEM;
		c->own = o;
		c->cap_ids = n;
	}
	c->own[c->nr] = own;
	c->by_id[c->nr] = cls;
	return c->nr++;
}

/* FULL without the OMITTED fields: a class of its own, same name. */
static struct ctf_class *variant_class(const struct ctf_class *full, __u64 omitted)
{
	struct ctf_class *v = calloc(1, sizeof(*v));
	struct ctf_field *f = calloc(full->nr_fields ?: 1, sizeof(*f));

	if (!v || !f) {
		free(v);
		free(f);
		return NULL;
	}
	v->name = full->name;
	v->fields = f;
	for (unsigned int i = 0; i < full->nr_fields; i++)
		if (!(omitted & 1ULL << i))
			f[v->nr_fields++] = full->fields[i];
	return v;
}

int gt_ctf_classes__id(struct ctf_classes *c, const struct ctf_class *full, __u64 omitted)
{
	struct full_class *fc = (struct full_class *)((char *)full - offsetof(struct full_class, cls));
	struct ctf_class *cls = &fc->cls;
	struct variant *v;
	int id;

	for (size_t i = 0; i < fc->nr_v; i++)
		if (fc->v[i].omitted == omitted)
			return fc->v[i].id;
	v = realloc(fc->v, (fc->nr_v + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	fc->v = v;
	if (omitted && !(cls = variant_class(full, omitted)))
		return -ENOMEM;
	id = add_id(c, cls, omitted);
	if (id < 0) {
		if (omitted) {
			free((void *)cls->fields);
			free(cls);
		}
		return id;
	}
	fc->v[fc->nr_v++] = (struct variant){ omitted, id };
	return id;
}
