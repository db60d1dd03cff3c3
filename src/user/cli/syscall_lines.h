/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * report --syscalls's lines for other commands: record --live prints its
 * syscall records through them, the same strace-style lines (or JSON
 * objects) with the same interleaving of threads.
 */
#ifndef __GTSC_SYSCALL_LINES_H
#define __GTSC_SYSCALL_LINES_H

#include <stdbool.h>
#include <gtsc/gtsc.h>

struct syscall_lines;

/* Lines of R's syscall records on stdout, without filters; R stays the caller's. */
struct syscall_lines *syscall_lines__new(struct gtsc_reader *r, bool json);
/*
 * REC, in time order: 1 when it is the syscall view's (printed, or held
 * until its call returns), 0 when another printer should print it, -errno.
 * Task records always update the view's names.
 */
int syscall_lines__record(struct syscall_lines *l, const struct gtsc_rec_hdr *rec);
/* Prints the calls still held (unfinished). 0 or -errno. */
int syscall_lines__finish(struct syscall_lines *l);
void syscall_lines__free(struct syscall_lines *l);

#endif
