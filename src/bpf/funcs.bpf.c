// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Function probes (record -k).  One entry and one return program serve every
 * probed function: the attach cookie carries the function's id (the FUNCS
 * chunk names it) and whether a return probe wants the entry time.  The
 * loader attaches the kprobe.multi pair with one link per direction when the
 * kernel has it (5.18, CONFIG_FPROBE), else the single-kprobe pair once per
 * function.  fentry/fexit are not used: they need one program load and
 * verification per function (no multi-attach upstream), too slow for a glob
 * of hundreds.
 */
#include "gtsc.bpf.h"
#include "gtsc_stacks.bpf.h"

/* libbpf 1.1 stops at PARM5; x86-64 passes the 6th argument in r9. */
#ifndef PT_REGS_PARM6
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6(x) (__PT_REGS_CAST(x)->r9)
#else
#error "PT_REGS_PARM6 unknown for this arch: update libbpf"
#endif
#endif

/*
 * Entry times of timed (%return) calls, by thread and function.  LRU: a call
 * that never returns (do_exit) or whose return probe was missed (kretprobe
 * instances exhausted) must not fill the map.  A recursive call overwrites
 * the outer call's time; the outer return then reports latency 0.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64); /* tid << 32 | func id */
	__type(value, __u64);
} gtsc_func_start SEC(".maps");

static __always_inline __u64 func_key(__u64 cookie)
{
	return (bpf_get_current_pid_tgid() << 32) | (__u32)cookie;
}

static __always_inline int func_entry(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), key, ts;
	struct gtsc_rec_func *e;
	struct gtsc_slot s;

	if (!gtsc_wanted())
		return 0;
	/* Before the reserve: a dropped entry record still times its return. */
	if (cookie & GTSC_FUNC_COOKIE_TIMED) {
		key = func_key(cookie);
		ts = bpf_ktime_get_ns();
		bpf_map_update_elem(&gtsc_func_start, &key, &ts, BPF_ANY);
	}
	if (!gtsc_reserve(&s, GTSC_CLASS_FUNCS, GTSC_REC_FUNC, sizeof(*e)))
		return 0;
	e = s.rec;
	e->func_id = (__u32)cookie;
	e->kind = GTSC_FUNC_ENTRY;
	__builtin_memset(e->__pad, 0, sizeof(e->__pad));
	e->stack_id = gtsc_stack_id(ctx);
	e->__pad2 = 0;
	e->ip = bpf_get_func_ip(ctx);
	e->ret = 0;
	e->latency_ns = 0;
	e->args[0] = PT_REGS_PARM1(ctx);
	e->args[1] = PT_REGS_PARM2(ctx);
	e->args[2] = PT_REGS_PARM3(ctx);
	e->args[3] = PT_REGS_PARM4(ctx);
	e->args[4] = PT_REGS_PARM5(ctx);
	e->args[5] = PT_REGS_PARM6(ctx);
	gtsc_submit(&s);
	return 0;
}

static __always_inline int func_return(struct pt_regs *ctx)
{
	__u64 cookie = bpf_get_attach_cookie(ctx), key, *start, t0 = 0;
	struct gtsc_rec_func *e;
	struct gtsc_slot s;

	if (!gtsc_wanted())
		return 0;
	key = func_key(cookie);
	start = bpf_map_lookup_elem(&gtsc_func_start, &key);
	if (start) {
		t0 = *start;
		bpf_map_delete_elem(&gtsc_func_start, &key);
	}
	if (!gtsc_reserve(&s, GTSC_CLASS_FUNCS, GTSC_REC_FUNC, sizeof(*e)))
		return 0;
	e = s.rec;
	e->func_id = (__u32)cookie;
	e->kind = GTSC_FUNC_RETURN;
	__builtin_memset(e->__pad, 0, sizeof(e->__pad));
	e->stack_id = 0; /* the hit's stack is on its entry record */
	e->__pad2 = 0;
	e->ip = bpf_get_func_ip(ctx);
	e->ret = PT_REGS_RC(ctx);
	e->latency_ns = t0 && e->hdr.ts_ns > t0 ? e->hdr.ts_ns - t0 : 0;
	__builtin_memset(e->args, 0, sizeof(e->args));
	gtsc_submit(&s);
	return 0;
}

SEC("kprobe.multi")
int gtsc_func_entry_multi(struct pt_regs *ctx)
{
	return func_entry(ctx);
}

SEC("kretprobe.multi")
int gtsc_func_return_multi(struct pt_regs *ctx)
{
	return func_return(ctx);
}

SEC("kprobe")
int gtsc_func_entry_kp(struct pt_regs *ctx)
{
	return func_entry(ctx);
}

SEC("kretprobe")
int gtsc_func_return_kp(struct pt_regs *ctx)
{
	return func_return(ctx);
}
