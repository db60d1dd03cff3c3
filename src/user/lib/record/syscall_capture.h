/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Which syscall arguments point at user memory that sys_enter/sys_exit
 * capture into their payload (paths, argv, data, sockaddrs), as the table
 * syscalls.bpf.c reads from rodata.
 */
#ifndef __GTSC_SYSCALL_CAPTURE_H
#define __GTSC_SYSCALL_CAPTURE_H

#include "gtsc_syscalls.h"

/*
 * Fills CAP[GTSC_NR_SYSCALLS] (zeroed by the caller) and ORs into
 * NR_FLAGS[GTSC_NR_SYSCALLS] when each syscall reads user memory
 * (GTSC_SYS_CAP_ENTER, GTSC_SYS_CAP_EXIT), and the shapes it reads on the
 * stack when short (GTSC_SYS_ENTER_ONE, GTSC_SYS_EXIT_ONE).
 */
void gt_capture__fill(struct gtsc_cap_set *cap, __u8 *nr_flags);

#endif
