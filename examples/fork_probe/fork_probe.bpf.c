// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The fork path seed: a kprobe on kernel_clone() writes the time and the
 * forking task into a gtsc channel.  Linked with gtsc-bpf's own
 * src/bpf/channel.bpf.c, which defines the channel maps and the globals that
 * gtsc.bpf.h's write path (gtsc_reserve/gtsc_submit) uses.
 */
#include "gtsc.bpf.h"

SEC("kprobe/kernel_clone")
int BPF_KPROBE(fork_probe, struct kernel_clone_args *args)
{
	struct gtsc_rec_func *e;
	struct gtsc_slot s;

	if (!gtsc_wanted())
		return 0;
	/* The header gets the time, CPU, pid and tid; a full ring counts a drop. */
	if (!gtsc_reserve(&s, GTSC_CLASS_FUNCS, GTSC_REC_FUNC, sizeof(*e)))
		return 0;
	e = s.rec;
	__builtin_memset((char *)e + sizeof(e->hdr), 0, sizeof(*e) - sizeof(e->hdr));
	e->kind = GTSC_FUNC_ENTRY;
	e->ip = bpf_get_func_ip(ctx);
	e->args[0] = BPF_CORE_READ(args, flags); /* clone flags: CLONE_VM marks a thread */
	gtsc_submit(&s);
	return 0;
}
