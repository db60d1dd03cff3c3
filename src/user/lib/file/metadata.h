/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What a trace carries so that it decodes on another machine: host and
 * clock facts, the syscall table with argument names and types, and the
 * tracefs formats of the events recorded (their flag tables included).
 */
#ifndef __GTSC_METADATA_H
#define __GTSC_METADATA_H

#include <stdbool.h>

struct strbuf;

/* key=value lines: hostname, kernel, arch, nr_cpus, page_size, clock, wall_offset_ns, start_ns. */
void gt_meta__host(struct strbuf *sb);
/*
 * SYSCALLS chunk lines: nr, name, then type/name pairs, tab separated.  Names
 * come from the table compiled from <asm/unistd.h>; argument names and types
 * from TRACEFS's events/syscalls/sys_enter_NAME/format when it has them, else
 * from the compiled-in table (syscall_builtin.c).  Returns how many syscalls
 * got their arguments from tracefs: 0 means the whole table is the builtin one.
 */
int gt_meta__syscalls(const char *tracefs, struct strbuf *sb);
/* Appends the verbatim format files of EVENTS ("kmem/kmalloc", ..., NULL). */
void gt_meta__event_formats(const char *tracefs, const char *const *events, struct strbuf *sb);
/* Name of syscall NR from the compiled-in table, NULL if unknown. */
const char *gt_syscall_name(int nr);
int gt_syscall_count(void);
/* Is field NAME of type TYPE in a sys_enter_* format one of the call's arguments? */
bool gt_syscall_field_is_arg(const char *type, const char *name);
/* The tracefs event name of syscall NAME (sys_enter_<that>): "newstat" for "stat". */
const char *gt_syscall_event_name(const char *name);

#endif
