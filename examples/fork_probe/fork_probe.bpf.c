// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fork path seed: every fork on the system writes one record into a gtsc
 * channel with gtsc_printf: its header has the time, CPU, pid and tid, the
 * rest is the format's id and the raw arguments; the text is made by the
 * reader (gtsc_tool__format).  Linked with gtsc's channel.bpf.o (the channel
 * maps and globals the write path uses): see the Makefile.
 */
#include <gtsc/gtsc.bpf.h>

/* sched_process_fork: the fork path's tracepoint, on any kernel with BTF (no kprobes needed) */
SEC("tp_btf/sched_process_fork")
int BPF_PROG(fork_probe, struct task_struct *parent, struct task_struct *child)
{
	if (!gtsc_wanted())
		return 0;
	gtsc_printf("fork parent=%d child=%d child_tid=%d", BPF_CORE_READ(parent, tgid),
		    BPF_CORE_READ(child, tgid), BPF_CORE_READ(child, pid));
	return 0;
}

char LICENSE[] SEC("license") = "Dual BSD/GPL";
