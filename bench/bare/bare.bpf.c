// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The floor gtsc-bpf is measured against: the least a BPF syscall recorder
 * can do and still write gtsc's records.  One pid compare, one ring buffer
 * reservation of gtsc's fixed record sizes, the same fields, a submit that
 * never wakes the consumer.  No maps looked up, no options, no payloads.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <gtsc/records.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by bare.c before load: a constant the verifier folds into the compare. */
const volatile __u32 target_tgid = 0;

/* Reservations that failed (ring full); read by bare.c at the end. */
__u64 dropped = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 64 << 20);
} rb SEC(".maps");

static __always_inline void fill_hdr(struct gtsc_rec_hdr *h, __u16 type, __u16 size, __u64 pid_tgid)
{
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->ts_ns = bpf_ktime_get_ns();
}

SEC("tp_btf/sys_enter")
int BPF_PROG(bare_sys_enter, struct pt_regs *regs, long id)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct gtsc_rec_sys_enter *r;

	if ((pid_tgid >> 32) != target_tgid)
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	fill_hdr(&r->hdr, GTSC_REC_SYS_ENTER, sizeof(*r), pid_tgid);
	r->nr = id;
	r->payload_len = 0;
	r->__pad = 0;
	/* x86-64 syscall ABI: the fourth argument is in r10, not cx. */
	r->args[0] = regs->di;
	r->args[1] = regs->si;
	r->args[2] = regs->dx;
	r->args[3] = regs->r10;
	r->args[4] = regs->r8;
	r->args[5] = regs->r9;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(bare_sys_exit, struct pt_regs *regs, long ret)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct gtsc_rec_sys_exit *r;

	if ((pid_tgid >> 32) != target_tgid)
		return 0;
	r = bpf_ringbuf_reserve(&rb, sizeof(*r), 0);
	if (!r) {
		__sync_fetch_and_add(&dropped, 1);
		return 0;
	}
	fill_hdr(&r->hdr, GTSC_REC_SYS_EXIT, sizeof(*r), pid_tgid);
	r->nr = regs->orig_ax;
	r->payload_len = 0;
	r->__pad = 0;
	r->ret = ret;
	bpf_ringbuf_submit(r, BPF_RB_NO_WAKEUP);
	return 0;
}
