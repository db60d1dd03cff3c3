// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Task lifecycle: grows the traced set at fork (so `record -- CMD` follows
 * every child) and writes fork/exec/exit records that give pids their comm
 * at report time, instead of a comm in every event.
 */
#include "gtsc.bpf.h"

static __always_inline void task_record(__u32 event, struct task_struct *t, __u32 other_pid,
					int exit_code)
{
	struct gtsc_rec_task *e;
	struct gtsc_slot s;

	if (!gtsc_reserve(&s, GTSC_CLASS_TASK, GTSC_REC_TASK, sizeof(*e)))
		return;
	e = s.rec;
	/* The header describes the current task; a fork record is about the child. */
	e->hdr.pid = BPF_CORE_READ(t, tgid);
	e->hdr.tid = BPF_CORE_READ(t, pid);
	e->event = event;
	e->other_pid = other_pid;
	e->exit_code = exit_code;
	e->__pad = 0;
	bpf_probe_read_kernel_str(e->comm, sizeof(e->comm), t->comm);
	gtsc_submit(&s);
}

/* syscalls.bpf.c's: the shared dispatch's mask and this session's slot in its chain */
extern struct GTSC_SYS_MASK_DEF gtsc_sys_mask SEC(".maps");
extern struct GTSC_SYS_EVERY_DEF gtsc_sys_every SEC(".maps");
extern const volatile __u32 gtsc_sys_slot;

/*
 * Our slot's bit for TGID in the dispatch's mask, before its first
 * syscall (the fork tracepoint runs before the child is woken).  Atomic:
 * other sessions' fork handlers and recorders set their bits in the same
 * values.  Where the hash is full, the word of slots taking every task:
 * the session's own filter then keeps it exact, at a filtered call's cost
 * for every other task.
 */
static __always_inline void sys_mask_want(__u32 tgid)
{
	__u32 bit, zero = 0, *m;
	__u64 *w = bpf_map_lookup_elem(&gtsc_sys_every, &zero);

	if (gtsc_sys_slot >= GTSC_DISPATCH_SLOTS || !w)
		return; /* not in the chain */
	bit = 1u << gtsc_sys_slot;
	m = bpf_map_lookup_elem(&gtsc_sys_mask, &tgid);
	if (!m && !bpf_map_update_elem(&gtsc_sys_mask, &tgid, &bit, BPF_NOEXIST))
		goto changed;
	if (!m) /* another writer inserted it first (EEXIST), or the hash is full */
		m = bpf_map_lookup_elem(&gtsc_sys_mask, &tgid);
	if (!m) {
		__sync_fetch_and_or(w, bit); /* the word is read afresh every event */
		return;
	}
	if (*m & bit)
		return;
	__sync_fetch_and_or(m, bit);
changed:
	/* after the change: a CPU's cached mask of TGID is stale from here */
	__sync_fetch_and_add(w, GTSC_SYS_GEN_ONE);
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(gtsc_task_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	__u8 one = 1;

	if (gtsc_filter_pids && ptgid != ctgid && bpf_map_lookup_elem(&gtsc_pids, &ptgid)) {
		if (!bpf_map_update_elem(&gtsc_pids, &ctgid, &one, BPF_NOEXIST))
			__sync_fetch_and_add((__u64 *)&gtsc_pid_gen, 1); /* after the update */
		/* a reused pid's child was tracked already: its bit is set again all the same */
		sys_mask_want(ctgid);
	}
	if (!gtsc_on || !gtsc_tgid_wanted(ctgid))
		return 0;
	task_record(GTSC_TASK_FORK, child, ptgid, 0);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(gtsc_task_exec, struct task_struct *p)
{
	if (!gtsc_wanted())
		return 0;
	task_record(GTSC_TASK_EXEC, p, 0, 0);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(gtsc_task_exit, struct task_struct *p)
{
	if (!gtsc_wanted())
		return 0;
	task_record(GTSC_TASK_EXIT, p, 0, p->exit_code);
	return 0;
}
