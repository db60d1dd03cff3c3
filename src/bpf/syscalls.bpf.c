// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * raw_syscalls:sys_enter/sys_exit.  Only raw values are stored: names,
 * argument types and flag meanings are applied at report time from the
 * trace's metadata.  tp_btf reads pt_regs directly (BTF-typed, cheapest);
 * raw_tp is the fallback for kernels whose tp_btf prototype does not match,
 * and copies pt_regs with one probe read.
 */
#include "gtsc.bpf.h"

/* libbpf 1.1 (Debian 12) stops at PARM5; x86-64 passes the 6th in r9. */
#ifndef PT_REGS_PARM6_SYSCALL
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6_SYSCALL(x) ((x)->r9)
#else
#error "PT_REGS_PARM6_SYSCALL unknown for this arch: update libbpf"
#endif
#endif

static __always_inline int sys_enter_body(struct pt_regs *regs, long id)
{
	struct gtsc_rec_sys_enter *e;
	struct gtsc_slot s;

	if (!gtsc_wanted())
		return 0;
	if (!gtsc_reserve(&s, GTSC_CLASS_SYSCALLS, GTSC_REC_SYS_ENTER, sizeof(*e)))
		return 0;
	e = s.rec;
	e->nr = id;
	e->payload_len = 0;
	e->__pad = 0;
	e->args[0] = PT_REGS_PARM1_SYSCALL(regs);
	e->args[1] = PT_REGS_PARM2_SYSCALL(regs);
	e->args[2] = PT_REGS_PARM3_SYSCALL(regs);
	e->args[3] = PT_REGS_PARM4_SYSCALL(regs);
	e->args[4] = PT_REGS_PARM5_SYSCALL(regs);
	e->args[5] = PT_REGS_PARM6_SYSCALL(regs);
	gtsc_submit(&s);
	return 0;
}

static __always_inline int sys_exit_body(long nr, long ret)
{
	struct gtsc_rec_sys_exit *e;
	struct gtsc_slot s;

	if (!gtsc_wanted())
		return 0;
	if (!gtsc_reserve(&s, GTSC_CLASS_SYSCALLS, GTSC_REC_SYS_EXIT, sizeof(*e)))
		return 0;
	e = s.rec;
	e->nr = nr;
	e->payload_len = 0;
	e->__pad = 0;
	e->ret = ret;
	gtsc_submit(&s);
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(gtsc_sys_enter_btf, struct pt_regs *regs, long id)
{
	return sys_enter_body(regs, id);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gtsc_sys_exit_btf, struct pt_regs *regs, long ret)
{
	return sys_exit_body(regs->orig_ax, ret);
}

SEC("raw_tp/sys_enter")
int BPF_PROG(gtsc_sys_enter_raw, struct pt_regs *regs, long id)
{
	struct pt_regs r;

	if (!gtsc_on)
		return 0;
	bpf_probe_read_kernel(&r, sizeof(r), regs);
	return sys_enter_body(&r, id);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(gtsc_sys_exit_raw, struct pt_regs *regs, long ret)
{
	return sys_exit_body(BPF_CORE_READ(regs, orig_ax), ret);
}
