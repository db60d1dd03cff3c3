// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The decoder: builds a plan per syscall (one decoder per argument, from
 * syscall_rules.c) the first time it sees it, then prints calls from their
 * records with that plan.  Everything appends to a fixed buffer with the
 * printers of syscall_print.c: no printf and no allocation on the per-call
 * path, which runs millions of times per report.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include "metadata.h"
#include "syscall_builtin.h"
#include "syscall_decode.h"
#include "syscall_print.h"
#include "syscall_rules.h"
#include "trace_reader.h"

#ifndef GTSC_FUZZ
#define PLAN_CACHE 1024	     /* syscall numbers with a cached plan (x86-64 uses < 512) */
#define SCRATCH_SZ (1 << 18) /* one decoded value, for JSON escaping */
#else
/* `make fuzz` only: under ASan a decoder of 540 KB (mmap'ed, unmapped) per input was a sixth of an execution */
#define PLAN_CACHE 256
#define SCRATCH_SZ (1 << 15)
#endif
#define MAX_ITEMS 32 /* payload items looked at per call */
#define ERRNO_MAX 4095

/* ---- plans ---- */

struct sd_argplan {
	struct sd_arg_rule r;
	bool wide; /* a 64-bit C type: no truncation to 32 bits */
	const char *type, *name;
};

struct sd_plan {
	const struct gtsc_syscall_info *si; /* what the plan was built from */
	bool valid;
	int nr_args;
	const struct sd_syscall_rule *rule; /* NULL: no row */
	struct sd_argplan a[6];
	signed char order[6]; /* arguments in print order, -1 ends */
};

struct syscall_decoder {
	struct sd_opts o;
	struct sd_plan plans[PLAN_CACHE];
	struct sd_plan spare; /* for numbers past the cache */
	char scratch[SCRATCH_SZ];
};

struct syscall_decoder *gt_syscall_decoder__new(const struct sd_opts *o)
{
	struct syscall_decoder *d = calloc(1, sizeof(*d));

	if (d && o)
		d->o = *o;
	if (d && (d->o.style & SD_ARG_TYPES))
		d->o.style |= SD_ARG_NAMES;
	return d;
}

void gt_syscall_decoder__free(struct syscall_decoder *d)
{
	free(d);
}

static bool type_wide(const char *type)
{
	static const char *const wide[] = {
		"size_t", "ssize_t", "loff_t", "off_t", "aio_context_t",
	};

	if (strchr(type, '*') || strstr(type, "long") || strstr(type, "64"))
		return true;
	for (size_t i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (!strcmp(type, wide[i]))
			return true;
	return false;
}

static bool pattern_ok(const char *pattern, const char *s)
{
	return !pattern || !fnmatch(pattern, s, 0);
}

static struct sd_arg_rule type_rule(const char *type, const char *name)
{
	if (!strncmp(type, "const ", 6) && !strchr(type, '*'))
		type += 6; /* "const clockid_t" is a clockid_t */
	for (unsigned int i = 0; i < gt_sd_nr_type_rules; i++) {
		const struct sd_type_rule *t = &gt_sd_type_rules[i];

		if (pattern_ok(t->type, type) && pattern_ok(t->name, name))
			return t->rule;
	}
	return (struct sd_arg_rule){ .how = D_HEX };
}

static const struct sd_syscall_rule *syscall_rule(const char *name)
{
	for (unsigned int i = 0; i < gt_sd_nr_syscall_rules; i++)
		if (!strcmp(gt_sd_syscall_rules[i].name, name))
			return &gt_sd_syscall_rules[i];
	return NULL;
}

/*
 * An entry without arguments is ambiguous in the SYSCALLS chunk (none, or
 * not known to the recorder); the compiled-in table settles it.  -1: unknown.
 */
static int plan_args_of(struct sd_plan *p, const struct gtsc_syscall_info *si)
{
	const struct gtsc_builtin_syscall *b;

	if (si->nr_args) {
		for (int i = 0; i < si->nr_args && i < 6; i++) {
			p->a[i].type = si->arg_type[i];
			p->a[i].name = si->arg_name[i];
		}
		return si->nr_args;
	}
	b = gt_builtin_syscall(gt_syscall_event_name(si->name));
	if (!b)
		return -1;
	for (int i = 0; i < b->nr_args; i++) {
		p->a[i].type = b->arg[i][0];
		p->a[i].name = b->arg[i][1];
	}
	return b->nr_args;
}

static void plan_raw(struct sd_plan *p)
{
	p->nr_args = 6;
	for (int i = 0; i < 6; i++)
		p->a[i] = (struct sd_argplan){ .r = { .how = D_HEX }, .wide = true };
}

static void plan_build(struct sd_plan *p, const struct gtsc_syscall_info *si)
{
	int i, n;

	memset(p, 0, sizeof(*p));
	p->si = si;
	p->valid = true;
	n = si ? plan_args_of(p, si) : -1;
	if (n < 0) {
		plan_raw(p); /* syscall_NNN(0x.., ...) */
	} else {
		p->nr_args = n > 6 ? 6 : n;
		p->rule = syscall_rule(si->name);
		for (i = 0; i < p->nr_args; i++) {
			struct sd_argplan *a = &p->a[i];

			a->wide = type_wide(a->type);
			a->r = p->rule && p->rule->arg[i].how ? p->rule->arg[i]
							      : type_rule(a->type, a->name);
		}
	}
	for (i = 0; i < 6; i++)
		p->order[i] = i < p->nr_args ? i : -1;
	if (p->rule && p->rule->layout)
		memcpy(p->order, p->rule->layout->order, sizeof(p->order));
}

static const struct sd_plan *plan_of(struct syscall_decoder *d, const struct sd_call *c)
{
	struct sd_plan *p = c->nr >= 0 && c->nr < PLAN_CACHE ? &d->plans[c->nr] : &d->spare;

	if (!p->valid || p->si != c->si)
		plan_build(p, c->si);
	return p;
}

/* ---- one call ---- */

struct sd_item {
	const struct gtsc_payload_item *h;
	const __u8 *data;
	bool at_exit;
};

struct sd_ctx {
	struct syscall_decoder *d;
	struct gtsc_buf *b;
	const struct sd_call *c;
	const struct sd_plan *p;
	const __u64 *args;
	bool failed; /* returned an error: outputs are not shown */
	int n_items;
	struct sd_item items[MAX_ITEMS];
};

static void items_add(struct sd_ctx *x, const void *rec, size_t fixed, size_t size, __u16 plen,
		      bool at_exit)
{
	const __u8 *p = (const __u8 *)rec + fixed;
	size_t len = plen, off = 0;

	if (size < fixed)
		return;
	if (len > size - fixed)
		len = size - fixed; /* a damaged length: stay inside the record */
	while (off + sizeof(struct gtsc_payload_item) <= len && x->n_items < MAX_ITEMS) {
		const struct gtsc_payload_item *h = (const void *)(p + off);
		size_t data = off + sizeof(*h);

		if (h->len > len - data)
			break;
		x->items[x->n_items++] = (struct sd_item){ h, p + data, at_exit };
		off = (data + h->len + 7) & ~(size_t)7;
	}
}

static void ctx_init(struct sd_ctx *x, struct syscall_decoder *d, struct gtsc_buf *b,
		     const struct sd_call *c)
{
	static const __u64 no_args[6];

	x->d = d;
	x->b = b;
	x->c = c;
	x->p = plan_of(d, c);
	x->args = c->enter ? c->enter->args : no_args;
	x->failed = gt_sd_call_failed(c);
	x->n_items = 0;
	if (c->enter && c->enter->payload_len)
		items_add(x, c->enter, sizeof(*c->enter), c->enter->hdr.size, c->enter->payload_len,
			  false);
	if (c->exit && c->exit->payload_len)
		items_add(x, c->exit, sizeof(*c->exit), c->exit->hdr.size, c->exit->payload_len,
			  true);
}

/*
 * The memory captured for argument ARG (element INDEX): an output's from
 * exit; an input's from enter, or from exit when enter faulted (the retry).
 */
static const struct sd_item *item_for(const struct sd_ctx *x, int arg, int index, bool out)
{
	const struct sd_item *in = NULL, *ex = NULL;

	for (int i = 0; i < x->n_items; i++) {
		const struct sd_item *it = &x->items[i];

		if (it->h->arg != arg || it->h->index != index)
			continue;
		if (it->at_exit && !ex)
			ex = it;
		else if (!it->at_exit && !in)
			in = it;
	}
	if (out)
		return ex;
	if (in && !(in->h->flags & GTSC_PAY_FAULT))
		return in;
	return ex ? ex : in;
}

/* The captured bytes of an argument, NULL when there are none to show (print the pointer). */
static const struct sd_item *usable_item(const struct sd_ctx *x, int i)
{
	const struct sd_argplan *a = &x->p->a[i];
	const struct sd_item *it;

	if (a->r.out && (!x->c->exit || x->failed))
		return NULL;
	it = item_for(x, i, 0, a->r.out);
	return it && !(it->h->flags & GTSC_PAY_FAULT) ? it : NULL;
}

static void put_ptr(struct gtsc_buf *b, __u64 v)
{
	if (v)
		gtsc_buf__putx(b, v);
	else
		gtsc_buf__puts(b, "NULL");
}

static __u64 arg_val(const struct sd_ctx *x, int i)
{
	return x->p->a[i].wide ? x->args[i] : (__u32)x->args[i];
}

static __s64 arg_sval(const struct sd_ctx *x, int i)
{
	return x->p->a[i].wide ? (__s64)x->args[i] : (__s32)x->args[i];
}

/* ---- captured memory ---- */

/* Captured bytes as a string; data (not paths: strace never cuts those) obeys -s. */
static void put_data(struct sd_ctx *x, const struct sd_item *it, bool hex, bool is_data)
{
	size_t n = it->h->len;
	bool more = it->h->flags & GTSC_PAY_TRUNCATED;

	if (is_data && x->d->o.max_data && n > x->d->o.max_data) {
		n = x->d->o.max_data;
		more = true;
	}
	gt_sp_quoted(x->b, it->data, n, more, hex);
}

/* A captured item by its kind: string, data or sockaddr. */
static void put_item(struct sd_ctx *x, const struct sd_item *it)
{
	if (it->h->kind == GTSC_PAY_SOCKADDR)
		gt_sp_sockaddr(x->b, it->data, it->h->len);
	else
		put_data(x, it, false, it->h->kind == GTSC_PAY_BUF);
}

/* Structs captured as raw bytes, by decoder. */
static void put_struct(struct sd_ctx *x, enum sd_how how, const struct sd_item *it)
{
	const __u8 *p = it->data;
	size_t n = it->h->len;

	switch (how) {
	case D_STAT: gt_sp_stat(x->b, p, n); break;
	case D_WSTATUS: gt_sp_wstatus(x->b, n >= 4 ? gt_sp_get32(p) : 0); break;
	case D_INTS: gt_sp_ints(x->b, p, n); break;
	case D_SIGSET: gt_sp_sigset(x->b, n >= 8 ? gt_sp_get64(p) : 0); break;
	case D_SIGACTION: gt_sp_sigaction(x->b, p, n); break;
	case D_TIMESPEC:
		gtsc_buf__puts(x->b, "{tv_sec=");
		gtsc_buf__puti(x->b, n >= 8 ? (__s64)gt_sp_get64(p) : 0);
		gtsc_buf__puts(x->b, ", tv_nsec=");
		gtsc_buf__puti(x->b, n >= 16 ? (__s64)gt_sp_get64(p + 8) : 0);
		gtsc_buf__putc(x->b, '}');
		break;
	case D_RLIMIT:
		gtsc_buf__puts(x->b, "{rlim_cur=");
		gt_sp_rlim(x->b, n >= 8 ? gt_sp_get64(p) : 0);
		gtsc_buf__puts(x->b, ", rlim_max=");
		gt_sp_rlim(x->b, n >= 16 ? gt_sp_get64(p + 8) : 0);
		gtsc_buf__putc(x->b, '}');
		break;
	case D_HEXBUF: put_data(x, it, true, true); break;
	case D_POLLFDS: gt_sp_pollfds(x->b, p, n); break;
	case D_CLONE_ARGS: gt_sp_clone_args(x->b, p, n); break;
	default: put_item(x, it); break;
	}
}

/* execve's argv: ["a", "b", ...] from its elements, else the pointer. */
static void put_argv(struct sd_ctx *x, int i)
{
	const struct sd_item *it = item_for(x, i, 0, false);
	bool more = false;

	if (!it || (it->h->flags & GTSC_PAY_FAULT)) {
		put_ptr(x->b, x->args[i]);
		return;
	}
	gtsc_buf__putc(x->b, '[');
	for (int k = 0; it && !(it->h->flags & GTSC_PAY_FAULT); it = item_for(x, i, ++k, false)) {
		if (k)
			gtsc_buf__puts(x->b, ", ");
		put_data(x, it, false, true); /* strace cuts argv strings at -s */
		more = it->h->flags & GTSC_PAY_MORE;
		if (k == 255)
			break;
	}
	if (more)
		gtsc_buf__puts(x->b, ", ...");
	gtsc_buf__putc(x->b, ']');
}

/* envp: strace shows the pointer and how many variables there are. */
static void put_envp(struct sd_ctx *x, int i)
{
	int k = 0;
	const struct sd_item *it;

	put_ptr(x->b, x->args[i]);
	for (it = item_for(x, i, 0, false); it && k < 255; it = item_for(x, i, ++k, false))
		if (it->h->flags & (GTSC_PAY_MORE | GTSC_PAY_FAULT))
			return; /* the count is not known */
	if (!k)
		return;
	gtsc_buf__puts(x->b, " /* ");
	gtsc_buf__putu(x->b, k);
	gtsc_buf__puts(x->b, k == 1 ? " var */" : " vars */");
}

/*
 * A value-result socklen_t: what the caller offered (enter) and, when the
 * call succeeded, what the kernel wrote back (exit), as strace's [128 => 16].
 * The last exit item is the OUT read: an earlier one is a retried IN read.
 */
static void put_socklen(struct sd_ctx *x, int i)
{
	const struct sd_item *in = item_for(x, i, 0, false), *out = NULL;
	__u32 v_in, v_out;

	for (int k = 0; k < x->n_items && x->c->exit && !x->failed; k++)
		if (x->items[k].at_exit && x->items[k].h->arg == i)
			out = &x->items[k];
	if (in && ((in->h->flags & GTSC_PAY_FAULT) || in->h->len < 4))
		in = NULL;
	if (out && ((out->h->flags & GTSC_PAY_FAULT) || out->h->len < 4))
		out = NULL;
	if (!in && !out) {
		put_ptr(x->b, x->args[i]);
		return;
	}
	v_in = in ? gt_sp_get32(in->data) : 0;
	v_out = out ? gt_sp_get32(out->data) : 0;
	gtsc_buf__putc(x->b, '[');
	gtsc_buf__putu(x->b, in ? v_in : v_out);
	if (in && out && v_in != v_out) {
		gtsc_buf__puts(x->b, " => ");
		gtsc_buf__putu(x->b, v_out);
	}
	gtsc_buf__putc(x->b, ']');
}

/* ---- arguments whose meaning depends on another ---- */

static void put_fcntl_arg(struct sd_ctx *x, int i)
{
	__u64 v = x->args[i];

	switch ((__u32)x->args[1]) {
	case 0:	   /* F_DUPFD */
	case 8:	   /* F_SETOWN */
	case 1027: /* F_DUPFD_QUERY */
	case 1030: /* F_DUPFD_CLOEXEC */
	case 1031: /* F_SETPIPE_SZ */
		gtsc_buf__puti(x->b, (__s32)v);
		break;
	case 2: gt_sp_flags(x->b, &gt_xlat_fd_flags, v); break;	   /* F_SETFD */
	case 4: gt_sp_open_flags(x->b, v); break;			   /* F_SETFL */
	case 10: gt_sp_signal(x->b, (__s32)v); break;		   /* F_SETSIG */
	case 1024: gt_sp_enum(x->b, &gt_xlat_lease_type, v); break;	   /* F_SETLEASE */
	case 1026: gt_sp_flags(x->b, &gt_xlat_notify_flags, v); break; /* F_NOTIFY */
	case 1033: gt_sp_flags(x->b, &gt_xlat_seals, v); break;	   /* F_ADD_SEALS */
	default: put_ptr(x->b, v); break;			   /* struct flock * ... */
	}
}

static void put_sock_proto(struct sd_ctx *x, int i)
{
	__u32 v = x->args[i];

	switch ((__u32)x->args[0]) {
	case 2:
	case 10: gt_sp_enum(x->b, &gt_xlat_inet_proto, v); break; /* AF_INET, AF_INET6 */
	case 16: gt_sp_enum(x->b, &gt_xlat_netlink_proto, v); break;
	default: gtsc_buf__puti(x->b, (__s32)v); break;
	}
}

static void put_sockopt(struct sd_ctx *x, int i)
{
	__u32 v = x->args[i];

	switch ((__u32)x->args[i - 1]) {
	case 0: gt_sp_enum(x->b, &gt_xlat_sockopt_ip, v); break;
	case 1: gt_sp_enum(x->b, &gt_xlat_sockopt_socket, v); break;
	case 6: gt_sp_enum(x->b, &gt_xlat_sockopt_tcp, v); break;
	case 41: gt_sp_enum(x->b, &gt_xlat_sockopt_ipv6, v); break;
	default: gtsc_buf__puti(x->b, (__s32)v); break;
	}
}

static bool futex_has_timeout(__u32 op)
{
	switch (op & XLAT_FUTEX_CMD_MASK) {
	case 0:	 /* WAIT */
	case 6:	 /* LOCK_PI */
	case 9:	 /* WAIT_BITSET */
	case 11: /* WAIT_REQUEUE_PI */
	case 13: /* LOCK_PI2 */
		return true;
	default:
		return false;
	}
}

static void put_futex_val3(struct sd_ctx *x, int i)
{
	__u32 v = x->args[i];

	switch (x->args[1] & XLAT_FUTEX_CMD_MASK) {
	case 9:	 /* WAIT_BITSET */
	case 10: /* WAKE_BITSET */
		if (v == 0xffffffff)
			gtsc_buf__puts(x->b, "FUTEX_BITSET_MATCH_ANY");
		else
			gtsc_buf__putx(x->b, v);
		break;
	case 5: gt_sp_futex_wake_op(x->b, v); break;
	case 4:	 /* CMP_REQUEUE */
	case 12: /* CMP_REQUEUE_PI */
		gtsc_buf__putu(x->b, v);
		break;
	default: gtsc_buf__putx(x->b, v); break;
	}
}

static void put_prctl_arg2(struct sd_ctx *x, int i)
{
	__u32 option = x->args[0];
	const struct sd_item *it;

	switch (option) {
	case 1: gt_sp_signal(x->b, (__s32)x->args[i]); return; /* PR_SET_PDEATHSIG */
	case 4: gt_sp_enum(x->b, &gt_xlat_dumpable, x->args[i]); return;
	case 15: /* PR_SET_NAME */
	case 16: /* PR_GET_NAME */
		it = item_for(x, i, 0, option == 16);
		if (it && !(it->h->flags & GTSC_PAY_FAULT) && !(option == 16 && x->failed))
			put_item(x, it);
		else
			put_ptr(x->b, x->args[i]);
		return;
	}
	if (gt_xlat_name(&gt_xlat_prctl_option, option))
		gtsc_buf__putu(x->b, x->args[i]);
	else
		gtsc_buf__putx(x->b, x->args[i]);
}

/* ---- one argument ---- */

static void put_value(struct sd_ctx *x, int i)
{
	const struct sd_argplan *a = &x->p->a[i];
	struct gtsc_buf *b = x->b;
	const struct sd_item *it;

	switch (a->r.how) {
	case D_INT: gtsc_buf__puti(b, arg_sval(x, i)); break;
	case D_UINT: gtsc_buf__putu(b, arg_val(x, i)); break;
	case D_OCT: gt_sp_oct(b, arg_val(x, i)); break;
	case D_FD: gtsc_buf__puti(b, (__s32)x->args[i]); break;
	case D_DIRFD:
		if ((__s32)x->args[i] == XLAT_AT_FDCWD)
			gtsc_buf__puts(b, "AT_FDCWD");
		else
			gtsc_buf__puti(b, (__s32)x->args[i]);
		break;
	case D_UID:
		if ((__u32)x->args[i] == 0xffffffff)
			gtsc_buf__puts(b, "-1");
		else
			gtsc_buf__putu(b, (__u32)x->args[i]);
		break;
	case D_ENUM: gt_sp_enum(b, a->r.x, arg_val(x, i)); break;
	case D_FLAGS: gt_sp_flags(b, a->r.x, arg_val(x, i)); break;
	case D_OPEN_FLAGS: gt_sp_open_flags(b, (__u32)x->args[i]); break;
	case D_FMODE: gt_sp_mode(b, (__u32)x->args[i]); break;
	case D_MMAP_FLAGS: gt_sp_mmap_flags(b, x->args[i]); break;
	case D_CLONE_FLAGS: gt_sp_clone_flags(b, x->args[i]); break;
	case D_SIGNAL: gt_sp_signal(b, (__s32)x->args[i]); break;
	case D_FCNTL_ARG: put_fcntl_arg(x, i); break;
	case D_SOCK_TYPE: gt_sp_sock_type(b, (__u32)x->args[i]); break;
	case D_SOCK_PROTO: put_sock_proto(x, i); break;
	case D_SOCKOPT: put_sockopt(x, i); break;
	case D_FUTEX_OP: gt_sp_futex_op(b, x->args[i]); break;
	case D_FUTEX_ARG3:
		if (!futex_has_timeout(x->args[1]))
			gtsc_buf__putu(b, (__u32)x->args[i]);
		else if ((it = usable_item(x, i)))
			put_struct(x, D_TIMESPEC, it);
		else
			put_ptr(b, x->args[i]);
		break;
	case D_FUTEX_VAL3: put_futex_val3(x, i); break;
	case D_IOCTL_CMD: gt_sp_ioctl_cmd(b, x->args[i]); break;
	case D_PRCTL_ARG2: put_prctl_arg2(x, i); break;
	case D_SOCKLEN: put_socklen(x, i); break;
	case D_SOCKOPT_VAL:
		/* An int option; the others (struct linger, device names) stay pointers. */
		it = usable_item(x, i);
		if (it && it->h->len == 4 && !(it->h->flags & GTSC_PAY_TRUNCATED))
			put_struct(x, D_INTS, it);
		else
			put_ptr(b, x->args[i]);
		break;
	case D_WSTATUS:
		/* WNOHANG with no child ready: nothing was written (strace: the pointer). */
		it = x->c->exit && x->c->exit->ret == 0 ? NULL : usable_item(x, i);
		if (it)
			put_struct(x, D_WSTATUS, it);
		else
			put_ptr(b, x->args[i]);
		break;
	case D_ARGV: put_argv(x, i); break;
	case D_ENVP: put_envp(x, i); break;
	case D_PTR:
	case D_STAT:
	case D_INTS:
	case D_SIGSET:
	case D_SIGACTION:
	case D_TIMESPEC:
	case D_RLIMIT:
	case D_HEXBUF:
	case D_POLLFDS:
	case D_CLONE_ARGS:
		it = usable_item(x, i);
		if (it)
			put_struct(x, a->r.how, it);
		else
			put_ptr(b, x->args[i]);
		break;
	default: gtsc_buf__putx(b, arg_val(x, i)); break; /* D_HEX */
	}
}

static void put_arg(struct sd_ctx *x, int i)
{
	const struct sd_argplan *a = &x->p->a[i];
	const struct sd_layout *l = x->p->rule ? x->p->rule->layout : NULL;
	unsigned int style = x->d->o.style;

	if ((style & SD_ARG_TYPES) && a->type) {
		gtsc_buf__puts(x->b, a->type);
		gtsc_buf__putc(x->b, ' ');
	}
	if (l && l->label[i]) {
		gtsc_buf__puts(x->b, l->label[i]);
		gtsc_buf__puts(x->b, style & SD_ARG_NAMES ? ": " : "=");
	} else if ((style & SD_ARG_NAMES) && a->name) {
		gtsc_buf__puts(x->b, a->name);
		gtsc_buf__puts(x->b, ": ");
	}
	put_value(x, i);
}

static unsigned int shown_mask(const struct sd_ctx *x)
{
	const struct sd_syscall_rule *r = x->p->rule;

	return r && r->shown && x->c->enter ? r->shown(x->args) : 077;
}

/*
 * Prints the shown arguments from the FROM'th (in print order) on, up to the
 * first output when STOP_AT_OUT.  Returns the position it stopped at (-1: end).
 */
static int put_args(struct sd_ctx *x, int from, bool stop_at_out)
{
	unsigned int shown = shown_mask(x);
	bool first = true;

	for (int k = from; k < 6 && x->p->order[k] >= 0; k++) {
		int i = x->p->order[k];

		if (!(shown >> i & 1))
			continue;
		if (stop_at_out && x->p->a[i].r.out) {
			if (!first)
				gtsc_buf__puts(x->b, ", "); /* strace: "wait4(6414,  <unfinished ...>" */
			return k;
		}
		if (!first)
			gtsc_buf__puts(x->b, ", ");
		put_arg(x, i);
		first = false;
	}
	return -1;
}

/* ---- the return value ---- */

bool gt_sd_call_failed(const struct sd_call *c)
{
	return c->exit && c->exit->ret < 0 && c->exit->ret >= -ERRNO_MAX;
}

static void put_error(struct gtsc_buf *b, __s64 ret)
{
	const struct xlat_errno *e = gt_xlat_errno(-ret);
	bool restart = -ret == 512 || -ret == 513 || -ret == 514 || -ret == 516;

	/* The ERESTART family never reaches the caller: the call is restarted. */
	gtsc_buf__puts(b, restart ? "? " : "-1 ");
	if (!e) {
		gtsc_buf__puts(b, "(errno ");
		gtsc_buf__putu(b, -ret);
		gtsc_buf__putc(b, ')');
		return;
	}
	gtsc_buf__puts(b, e->name);
	gtsc_buf__puts(b, " (");
	gtsc_buf__puts(b, e->msg);
	gtsc_buf__putc(b, ')');
}

/* strace's "0x1 (flags FD_CLOEXEC)": a flag word returned, in hex and by name. */
static void put_ret_flags(struct gtsc_buf *b, __s64 ret, const char *what, const struct xlat *x)
{
	gtsc_buf__putx(b, ret);
	if (!ret && x)
		return; /* F_GETFD, F_GET_SEALS: a bare 0; F_GETFL still names O_RDONLY */
	gtsc_buf__puts(b, " (");
	gtsc_buf__puts(b, what);
	gtsc_buf__putc(b, ' ');
	if (x)
		gt_sp_flags(b, x, ret);
	else
		gt_sp_open_flags(b, ret);
	gtsc_buf__putc(b, ')');
}

static void put_ret_fcntl(struct sd_ctx *x, __s64 ret)
{
	switch ((__u32)x->args[1]) {
	case 1: put_ret_flags(x->b, ret, "flags", &gt_xlat_fd_flags); break; /* F_GETFD */
	case 3: put_ret_flags(x->b, ret, "flags", NULL); break;		  /* F_GETFL */
	case 1025: gt_sp_enum(x->b, &gt_xlat_lease_type, ret); break;		  /* F_GETLEASE */
	case 1034: put_ret_flags(x->b, ret, "seals", &gt_xlat_seals); break; /* F_GET_SEALS */
	default: gtsc_buf__puti(x->b, ret); break;
	}
}

static void put_ret(struct sd_ctx *x)
{
	enum sd_ret kind = x->p->rule ? x->p->rule->ret : R_INT;
	__s64 ret;

	gtsc_buf__puts(x->b, " = ");
	if (!x->c->exit) {
		gtsc_buf__putc(x->b, '?');
		return;
	}
	ret = x->c->exit->ret;
	if (x->failed) {
		put_error(x->b, ret);
		return;
	}
	switch (kind) {
	case R_HEX: gtsc_buf__putx(x->b, ret); break;
	case R_OCT: gt_sp_oct(x->b, ret); break;
	case R_FCNTL:
		if (x->c->enter) {
			put_ret_fcntl(x, ret);
			break;
		}
		/* fallthrough */
	default:
		gtsc_buf__puti(x->b, ret);
		/* PR_GET_DUMPABLE's answer by name */
		if (kind == R_PRCTL && x->c->enter && (__u32)x->args[0] == 3) {
			gtsc_buf__puts(x->b, " (");
			gt_sp_enum(x->b, &gt_xlat_dumpable, ret);
			gtsc_buf__putc(x->b, ')');
		}
		break;
	}
}

/* ---- entry points ---- */

const char *gt_sd_call_name(const struct sd_call *c, char tmp[24])
{
	struct gtsc_buf b = { tmp, 0, 23 };

	if (c->si)
		return c->si->name;
	gtsc_buf__puts(&b, "syscall_");
	gtsc_buf__puti(&b, c->nr);
	tmp[b.len] = '\0';
	return tmp;
}

/* Where the resumed part starts: the first shown output argument, or the end. */
static int first_out(const struct sd_ctx *x)
{
	unsigned int shown = shown_mask(x);

	for (int k = 0; k < 6 && x->p->order[k] >= 0; k++) {
		int i = x->p->order[k];

		if ((shown >> i & 1) && x->p->a[i].r.out)
			return k;
	}
	return 6;
}

/*
 * A compat call: no rules (the x86-64 ones would misread i386 layouts such
 * as old_mmap's), no captures; the i386 table's count of arguments, raw.
 */
static int compat_nr_args(const struct sd_call *c)
{
	return c->si && c->si->nr_args >= 0 && c->si->nr_args <= 6 ? c->si->nr_args : 6;
}

static void compat_args(struct gtsc_buf *b, const struct sd_call *c)
{
	for (int i = 0; i < compat_nr_args(c); i++) {
		if (i)
			gtsc_buf__puts(b, ", ");
		gtsc_buf__putx(b, c->enter->args[i]);
	}
}

/* Only the return value matters: the plan of an unknown call is rule-less. */
static void compat_ctx(struct sd_ctx *x, struct syscall_decoder *d, struct gtsc_buf *b,
		       const struct sd_call *c)
{
	static const struct sd_plan none;

	memset(x, 0, sizeof(*x));
	x->d = d;
	x->b = b;
	x->c = c;
	x->p = &none;
	x->failed = gt_sd_call_failed(c);
}

static void compat_text(struct syscall_decoder *d, struct gtsc_buf *b, const struct sd_call *c,
			enum sd_part part, const char *name)
{
	struct sd_ctx x;

	compat_ctx(&x, d, b, c);
	if (part == SD_EXIT_PART) {
		gtsc_buf__puts(b, "<... ");
		gtsc_buf__puts(b, name);
		gtsc_buf__puts(b, " resumed>)");
		put_ret(&x);
		return;
	}
	gtsc_buf__puts(b, name);
	gtsc_buf__putc(b, '(');
	if (c->enter)
		compat_args(b, c);
	if (part == SD_ENTER_PART) {
		gtsc_buf__puts(b, " <unfinished ...>");
		return;
	}
	gtsc_buf__putc(b, ')');
	put_ret(&x);
}

void gt_syscall_decoder__text(struct syscall_decoder *d, struct gtsc_buf *b, const struct sd_call *c,
			      enum sd_part part)
{
	struct sd_ctx x;
	char tmp[24];
	const char *name = gt_sd_call_name(c, tmp);
	int k;

	if (c->compat) {
		compat_text(d, b, c, part, name);
		return;
	}
	ctx_init(&x, d, b, c);
	if (part == SD_EXIT_PART) {
		gtsc_buf__puts(b, "<... ");
		gtsc_buf__puts(b, name);
		gtsc_buf__puts(b, " resumed>");
		k = c->enter ? first_out(&x) : 6;
		if (k < 6)
			put_args(&x, k, false);
		gtsc_buf__putc(b, ')');
		put_ret(&x);
		return;
	}
	gtsc_buf__puts(b, name);
	gtsc_buf__putc(b, '(');
	if (part == SD_ENTER_PART) {
		put_args(&x, 0, true);
		gtsc_buf__puts(b, " <unfinished ...>");
		return;
	}
	put_args(&x, 0, false);
	gtsc_buf__putc(b, ')');
	put_ret(&x);
}

/* "value": the argument as the text form prints it. */
static void json_value(struct sd_ctx *x, int i)
{
	struct gtsc_buf *out = x->b;
	struct gtsc_buf v = { x->d->scratch, 0, sizeof(x->d->scratch) };

	x->b = &v;
	put_value(x, i);
	x->b = out;
	gtsc_buf__put_json(out, v.p, v.len);
}

static void json_args(struct sd_ctx *x)
{
	unsigned int shown = shown_mask(x);

	gtsc_buf__puts(x->b, ",\"args\":[");
	for (int i = 0; i < x->p->nr_args; i++) {
		const struct sd_argplan *a = &x->p->a[i];

		gtsc_buf__puts(x->b, i ? ",{" : "{");
		if (a->name) {
			gtsc_buf__puts(x->b, "\"name\":");
			gtsc_buf__put_json(x->b, a->name, strlen(a->name));
			gtsc_buf__puts(x->b, ",\"type\":");
			gtsc_buf__put_json(x->b, a->type, strlen(a->type));
			gtsc_buf__putc(x->b, ',');
		}
		gtsc_buf__puts(x->b, "\"raw\":\"");
		gtsc_buf__putx(x->b, x->args[i]);
		gtsc_buf__putc(x->b, '"');
		if (shown >> i & 1) {
			gtsc_buf__puts(x->b, ",\"value\":");
			json_value(x, i);
		}
		gtsc_buf__putc(x->b, '}');
	}
	gtsc_buf__putc(x->b, ']');
}

/* Raw values only: {"raw":"0x4"}, as json_args without a prototype. */
static void compat_json_args(struct gtsc_buf *b, const struct sd_call *c)
{
	gtsc_buf__puts(b, ",\"args\":[");
	for (int i = 0; i < compat_nr_args(c); i++) {
		gtsc_buf__puts(b, i ? ",{\"raw\":\"" : "{\"raw\":\"");
		gtsc_buf__putx(b, c->enter->args[i]);
		gtsc_buf__puts(b, "\"}");
	}
	gtsc_buf__putc(b, ']');
}

void gt_syscall_decoder__json(struct syscall_decoder *d, struct gtsc_buf *b, const struct sd_call *c)
{
	struct sd_ctx x;
	char tmp[24];
	const char *name = gt_sd_call_name(c, tmp);
	struct gtsc_buf r = { d->scratch, 0, sizeof(d->scratch) };

	if (c->compat)
		compat_ctx(&x, d, b, c);
	else
		ctx_init(&x, d, b, c);
	gtsc_buf__puts(b, "\"syscall\":");
	gtsc_buf__put_json(b, name, strlen(name));
	gtsc_buf__puts(b, ",\"nr\":");
	gtsc_buf__puti(b, c->nr);
	if (c->compat)
		gtsc_buf__puts(b, ",\"compat\":true,\"abi\":\"i386\"");
	if (c->enter && c->compat)
		compat_json_args(b, c);
	else if (c->enter)
		json_args(&x);
	else
		gtsc_buf__puts(b, ",\"args\":null");
	if (!c->exit) {
		gtsc_buf__puts(b, ",\"ret\":null");
		return;
	}
	gtsc_buf__puts(b, ",\"ret\":");
	gtsc_buf__puti(b, c->exit->ret);
	x.b = &r;
	put_ret(&x);
	x.b = b;
	gtsc_buf__puts(b, ",\"ret_text\":");
	gtsc_buf__put_json(b, r.p + 3, r.len - 3); /* without " = " */
	if (x.failed) {
		const struct xlat_errno *e = gt_xlat_errno(-c->exit->ret);

		gtsc_buf__puts(b, ",\"errno\":");
		if (e)
			gtsc_buf__put_json(b, e->name, strlen(e->name));
		else
			gtsc_buf__puti(b, -c->exit->ret);
	}
}
