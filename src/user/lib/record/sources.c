// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "feature_probe.h"
#include "gtsc_shared.h"
#include "sources.h"
#include "strbuf.h"

struct source_def {
	const char *name;
	unsigned int mask;
	/* Preferred: tp_btf program, its tracepoint and prototype (features.h spec). */
	const char *btf_prog, *btf_tp, *btf_spec;
	/* Fallback: classic tracepoint fb_cat/fb_tp, or raw_tp when fb_cat is NULL. */
	const char *fb_prog, *fb_cat, *fb_tp;
	/* Its rescue programs' gtsc_rescued slot + 1 (0: none); named <prog>_r, <prog>_r2... */
	int rescue;
	/* Interrupts reach the hook: its rescue programs are needed on every kernel. */
	bool irq;
};

/*
 * Prototypes as of 6.1..6.18.  kmem_cache_alloc/free took sizes and a name
 * before 6.1 (11e9734bcb6a and 2c1d697fb8ba changed them to pass the cache):
 * older kernels fail the prototype check and use the classic tracepoint.
 */
static const struct source_def defs[] = {
	{ "task:fork", GTSC_SRC_TASK, "gtsc_task_fork", "sched_process_fork",
	  "P:task_struct,P:task_struct" },
	{ "task:exec", GTSC_SRC_TASK, "gtsc_task_exec", "sched_process_exec", "P:task_struct" },
	{ "task:exit", GTSC_SRC_TASK, "gtsc_task_exit", "sched_process_exit", "P:task_struct" },
	{ "syscalls:sys_enter", GTSC_SRC_SYSCALLS, "gtsc_sys_enter_btf", "sys_enter",
	  "P:pt_regs,i", "gtsc_sys_enter_raw", .rescue = GTSC_RESCUE_SYS_ENTER + 1 },
	{ "syscalls:sys_exit", GTSC_SRC_SYSCALLS, "gtsc_sys_exit_btf", "sys_exit", "P:pt_regs,i",
	  "gtsc_sys_exit_raw", .rescue = GTSC_RESCUE_SYS_EXIT + 1 },
	{ "kmem:kmalloc", GTSC_SRC_KMEM, "gtsc_kmalloc_btf", "kmalloc", "i,p,i,i,i,i",
	  "gtsc_kmalloc_tp", "kmem", "kmalloc", GTSC_RESCUE_KMALLOC + 1, true },
	{ "kmem:kfree", GTSC_SRC_KMEM, "gtsc_kfree_btf", "kfree", "i,p", "gtsc_kfree_tp", "kmem",
	  "kfree", GTSC_RESCUE_KFREE + 1, true },
	{ "kmem:kmem_cache_alloc", GTSC_SRC_KMEM, "gtsc_cache_alloc_btf", "kmem_cache_alloc",
	  "i,p,P:kmem_cache,i,i", "gtsc_cache_alloc_tp", "kmem", "kmem_cache_alloc",
	  GTSC_RESCUE_CACHE_ALLOC + 1, true },
	{ "kmem:kmem_cache_free", GTSC_SRC_KMEM, "gtsc_cache_free_btf", "kmem_cache_free",
	  "i,p,P:kmem_cache", "gtsc_cache_free_tp", "kmem", "kmem_cache_free",
	  GTSC_RESCUE_CACHE_FREE + 1, true },
	{ "kmem:mm_page_alloc", GTSC_SRC_KMEM, "gtsc_page_alloc_btf", "mm_page_alloc", "P:page,i,i,i",
	  "gtsc_page_alloc_tp", "kmem", "mm_page_alloc", GTSC_RESCUE_PAGE_ALLOC + 1, true },
	{ "kmem:mm_page_free", GTSC_SRC_KMEM, "gtsc_page_free_btf", "mm_page_free", "P:page,i",
	  "gtsc_page_free_tp", "kmem", "mm_page_free", GTSC_RESCUE_PAGE_FREE + 1, true },
};

_Static_assert(sizeof(defs) / sizeof(defs[0]) <= GTSC_MAX_SOURCES, "raise GTSC_MAX_SOURCES");

/* Function probes, best first: one kprobe.multi link per direction, else a kprobe per function. */
static const struct func_variant {
	enum gtsc_feature feat;
	const char *how, *entry, *ret;
} func_variants[] = {
	{ GTSC_FEAT_KPROBE_MULTI, "kprobe.multi", "gtsc_func_entry_multi",
	  "gtsc_func_return_multi" },
	{ GTSC_FEAT_KPROBE, "kprobe", "gtsc_func_entry_kp", "gtsc_func_return_kp" },
};

int gt_sources__parse(const char *list, unsigned int *mask, const char **syscalls, char *bad,
		      size_t bad_sz)
{
	static const struct {
		const char *name;
		unsigned int mask;
	} names[] = { { "syscalls", GTSC_SRC_SYSCALLS }, { "kmem", GTSC_SRC_KMEM },
		      { "all", GTSC_SRC_ALL } };
	const char *p = list;

	*mask = GTSC_SRC_TASK;
	*syscalls = NULL;
	while (*p) {
		size_t len = strcspn(p, ",");
		size_t i;

		/* syscalls=LIST: the filter, which takes the rest of the list. */
		if (!strncmp(p, "syscalls=", 9)) {
			*mask |= GTSC_SRC_SYSCALLS;
			*syscalls = p + 9;
			return 0;
		}
		for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
			if (strlen(names[i].name) == len && !strncmp(names[i].name, p, len))
				break;
		if (i == sizeof(names) / sizeof(names[0])) {
			snprintf(bad, bad_sz, "%.*s", (int)len, p);
			return -EINVAL;
		}
		*mask |= names[i].mask;
		p += len + (p[len] == ',');
	}
	return 0;
}

static void set_autoload(struct bpf_object *obj, const char *prog, bool on)
{
	struct bpf_program *p = prog ? bpf_object__find_program_by_name(obj, prog) : NULL;

	if (p)
		bpf_program__set_autoload(p, on);
}

/* PROG's first LEVELS rescue programs ("<prog>_r", "<prog>_r2"...), loaded with it; some have fewer. */
static void set_rescue(struct bpf_object *obj, struct gtsc_source_choice *c, const char *prog,
		       int levels)
{
	for (int l = 0; l < GTSC_RESCUE_LEVELS; l++) {
		char name[sizeof(c->rescue[l])];
		bool on = l < levels;

		snprintf(name, sizeof(name), l ? "%.44s_r%d" : "%.44s_r", prog, l + 1);
		set_autoload(obj, name, on);
		if (on && bpf_object__find_program_by_name(obj, name))
			memcpy(c->rescue[l], name, sizeof(name));
	}
}

static void plan_one(struct gtsc_source_choice *c, const struct source_def *d,
		     const struct gtsc_features *f)
{
	char why[128] = "";

	if (d->btf_prog && gt_features__tp_btf_matches(f, d->btf_tp, d->btf_spec, why,
						       sizeof(why))) {
		c->prog = d->btf_prog;
		c->how = "tp_btf";
		return;
	}
	if (d->fb_prog && !d->fb_cat) {
		c->prog = d->fb_prog;
		c->how = "raw_tp";
	} else if (d->fb_prog && gt_features__tracepoint_exists(f, d->fb_cat, d->fb_tp)) {
		c->prog = d->fb_prog;
		c->how = "tracepoint";
	} else if (d->fb_prog && !f->has[GTSC_FEAT_TRACEFS]) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s", why[0] ? "; " : "",
			 f->why[GTSC_FEAT_TRACEFS]);
	} else if (d->fb_prog) {
		snprintf(why + strlen(why), sizeof(why) - strlen(why),
			 "%sthe kernel has no tracepoint %s:%s", why[0] ? "; " : "", d->fb_cat,
			 d->fb_tp);
	}
	snprintf(c->why, sizeof(c->why), "%s", why);
}

/* A kernel without either loses only the function probes: it says which mechanisms are missing. */
static void plan_funcs(struct gtsc_source_plan *plan, struct bpf_object *obj,
		       const struct gtsc_features *f, bool wanted)
{
	struct gtsc_source_choice *c = &plan->funcs;

	c->name = "funcs";
	c->wanted = wanted;
	for (size_t i = 0; i < sizeof(func_variants) / sizeof(func_variants[0]); i++) {
		const struct func_variant *v = &func_variants[i];
		bool use = wanted && !c->prog && f->has[v->feat];

		if (use) {
			c->prog = v->entry;
			c->how = v->how;
			plan->funcs_ret_prog = v->ret;
		}
		set_autoload(obj, v->entry, use);
		set_autoload(obj, v->ret, use);
	}
	if (wanted && !c->prog)
		snprintf(c->why, sizeof(c->why), "%.78s; %.78s", f->why[GTSC_FEAT_KPROBE],
			 f->why[GTSC_FEAT_KPROBE_MULTI]);
}

/* One generic classic tracepoint program: the only kind that sees the raw entry. */
static void plan_events(struct gtsc_source_plan *plan, struct bpf_object *obj,
			const struct gtsc_features *f, bool wanted)
{
	struct gtsc_source_choice *c = &plan->events;
	bool use = wanted && f->has[GTSC_FEAT_TRACEPOINT];

	c->name = "events";
	c->wanted = wanted;
	if (use) {
		c->prog = "gtsc_tracepoint";
		c->how = "tracepoint";
	} else if (wanted) {
		snprintf(c->why, sizeof(c->why), "%s", f->why[GTSC_FEAT_TRACEPOINT]);
	}
	set_autoload(obj, "gtsc_tracepoint", use);
}

int gt_sources__plan(struct gtsc_source_plan *plan, struct bpf_object *obj,
		     const struct gtsc_features *f, unsigned int mask)
{
	memset(plan, 0, sizeof(*plan));
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++) {
		const struct source_def *d = &defs[i];
		struct gtsc_source_choice *c = &plan->src[plan->n++];
		int rescue;

		c->name = d->name;
		c->mask = d->mask;
		c->wanted = mask & d->mask;
		if (c->wanted)
			plan_one(c, d, f);
		set_autoload(obj, d->btf_prog, c->prog && c->prog == d->btf_prog);
		set_autoload(obj, d->fb_prog, c->prog && c->prog == d->fb_prog);
		/*
		 * Without preemption only interrupts nest, and they reach only
		 * kmem hooks: a softirq's event inside the task's, a hardirq's
		 * inside the softirq's, three deep, a program each (kmem.bpf.c).
		 */
		rescue = !d->rescue ? 0 :
			 f->has[GTSC_FEAT_BPF_PREEMPTIBLE] || d->irq ? GTSC_RESCUE_LEVELS : 0;
		c->rescue_slot = d->rescue - 1;
		if (d->rescue && d->btf_prog)
			set_rescue(obj, c, d->btf_prog, c->prog && c->prog == d->btf_prog ? rescue : 0);
		if (d->rescue && d->fb_prog)
			set_rescue(obj, c, d->fb_prog, c->prog && c->prog == d->fb_prog ? rescue : 0);
	}
	plan_funcs(plan, obj, f, mask & GTSC_SRC_FUNCS);
	plan_events(plan, obj, f, mask & GTSC_SRC_EVENTS);
	return 0;
}

void gt_sources__recorded(const struct gtsc_source_plan *plan, const char *sep,
			  struct strbuf *sb)
{
	const char *last = NULL;
	size_t last_len = 0;
	bool any = false;

	for (int i = 0; i < plan->n; i++) {
		const struct gtsc_source_choice *c = &plan->src[i];
		size_t len = strcspn(c->name, ":");

		/* defs[] lists each family's events together */
		if (!c->wanted || !c->prog || (c->mask & GTSC_SRC_TASK) ||
		    (last && len == last_len && !strncmp(last, c->name, len)))
			continue;
		gt_strbuf_addf(sb, "%s%.*s", any ? sep : "", (int)len, c->name);
		last = c->name;
		last_len = len;
		any = true;
	}
	if (!any)
		gt_strbuf_addf(sb, "task");
}

void gt_sources__describe(const struct gtsc_source_plan *plan, struct strbuf *sb)
{
	for (int i = 0; i < plan->n; i++) {
		const struct gtsc_source_choice *c = &plan->src[i];

		if (!c->wanted)
			continue;
		if (c->prog)
			gt_strbuf_addf(sb, "%s=%s\n", c->name, c->how);
		else
			gt_strbuf_addf(sb, "%s=off (%s)\n", c->name, c->why);
	}
	if (plan->funcs.wanted && plan->funcs.prog)
		gt_strbuf_addf(sb, "funcs=%s\n", plan->funcs.how);
	else if (plan->funcs.wanted)
		gt_strbuf_addf(sb, "funcs=off (%s)\n", plan->funcs.why);
	if (plan->events.wanted && plan->events.prog)
		gt_strbuf_addf(sb, "events=%s\n", plan->events.how);
	else if (plan->events.wanted)
		gt_strbuf_addf(sb, "events=off (%s)\n", plan->events.why);
}
