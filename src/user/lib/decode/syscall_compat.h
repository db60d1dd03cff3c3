/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The i386 syscall table, for the records of 32-bit (ia32) tasks on a
 * 64-bit kernel (GTSC_SYS_F_COMPAT): names generated at build time from
 * <asm/unistd_32.h>, argument counts from the built-in table by name, or
 * from the i386-only entries here.  Built in rather than saved in traces:
 * i386 numbers are ABI, and the decoder prints the arguments raw, so the
 * recording kernel's prototypes add nothing.  Part of decode_tables.
 */
#ifndef __GTSC_SYSCALL_COMPAT_H
#define __GTSC_SYSCALL_COMPAT_H

#include <stdbool.h>

struct gtsc_syscall_info;

/* i386 syscall NR's name, NULL if unknown. */
const char *gt_syscall_compat_name(int nr);
/*
 * Fills SI (name and nr_args; no argument names or types) for i386
 * syscall NR.  False, SI untouched, if NR is unknown.
 */
bool gt_syscall_compat_info(int nr, struct gtsc_syscall_info *si);

#endif
