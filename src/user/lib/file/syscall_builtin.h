/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The compiled-in syscall table: argument C types and names per syscall,
 * the fallback for a recording machine without tracefs.  Generated data
 * (scripts/gen-syscall-builtin.sh); keyed by the kernel's tracefs event name.
 */
#ifndef __GTSC_SYSCALL_BUILTIN_H
#define __GTSC_SYSCALL_BUILTIN_H

struct gtsc_builtin_syscall {
	const char *name;
	unsigned char nr_args;
	const char *arg[6][2]; /* { C type, name } */
};

/* Row of the syscall whose tracefs event is sys_enter_NAME, NULL if none. */
const struct gtsc_builtin_syscall *gt_builtin_syscall(const char *name);

#endif
