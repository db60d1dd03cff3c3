/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Syscall sets for the record-time filter: names, globs and strace's
 * classes (%file, %net, %process ...) resolved to numbers with the
 * compiled-in syscall table.
 */
#ifndef __GTSC_SYSCALL_CLASSES_H
#define __GTSC_SYSCALL_CLASSES_H

#include <stddef.h>
#include "gtsc_syscalls.h"

struct strbuf;

/*
 * "openat,read,*stat*,%net" -> SET (cleared first).  -EINVAL when a word is
 * an unknown name or class or a glob that matches nothing, with one
 * sentence saying which in WHY.
 */
int gt_syscall_set__parse(const char *list, struct gtsc_sys_set *set, char *why, size_t why_sz);
/* The names in SET, comma separated, by number. */
void gt_syscall_set__names(const struct gtsc_sys_set *set, struct strbuf *sb);

#endif
