/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The per-thread marks of the syscall hooks' rescue programs (gtsc_shared.h;
 * the scheme is described at "rescue" in syscalls.bpf.c), for every pair of
 * programs on raw_syscalls sys_enter/sys_exit: syscalls.bpf.c's and
 * tracepoint.bpf.c's (named syscall events built from raw_syscalls), each
 * with its own map.  MAP is an array of GTSC_MARK_TIDS / 8 __u64, one byte
 * per thread; the functions are inlined, so MAP stays a constant.
 */
#ifndef __GTSC_MARK_H
#define __GTSC_MARK_H

#define GTSC_MARK_ENTER 1
#define GTSC_MARK_EXIT 2

static __always_inline __u8 *gtsc_tid_mark(void *map)
{
	__u32 tid = bpf_get_current_pid_tgid(), key = (tid & (GTSC_MARK_TIDS - 1)) / 8;
	__u8 *v = bpf_map_lookup_elem(map, &key);

	return v ? v + (tid & 7) : NULL;
}

/* The first program of HOOK ran for this thread's event. */
static __always_inline void gtsc_mark_ran(void *map, __u8 hook)
{
	__u8 *m = gtsc_tid_mark(map);

	if (m)
		*m = hook;
}

/* True when no program before this one had the event: counted in SLOT; the caller records it. */
static __always_inline bool gtsc_mark_skipped(void *map, __u8 hook, __u32 slot)
{
	__u8 *m = gtsc_tid_mark(map);
	__u64 *n;

	if (!m || *m == hook)
		return false;
	*m = hook;
	n = bpf_map_lookup_elem(&gtsc_rescued, &slot);
	if (n)
		__sync_fetch_and_add(n, 1); /* preemptible on PREEMPT_RT */
	return true;
}

#endif
