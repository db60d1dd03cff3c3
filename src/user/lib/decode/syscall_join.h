/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Joins sys_enter and sys_exit records into calls, per thread, in record
 * order.  Two modes:
 *
 *  - SJ_STREAM, strace -f's interleaving: a call is held from its enter; if
 *    it returns before anything else is shown it comes out whole
 *    (SD_WHOLE); if another line must come first it comes out as
 *    SD_ENTER_PART ("<unfinished ...>") then, at its exit, SD_EXIT_PART
 *    ("<... name resumed>").
 *  - SJ_COMPLETE: one call per call, when it ends (JSON, --failed, summary).
 *
 * A call whose exit is never seen (exit_group, a killed thread, a lost
 * record, the end of the trace) comes out with exit NULL; an exit whose
 * enter was not seen (the call began before the trace) with enter NULL and
 * SD_EXIT_PART.  Memory: one held enter record per thread.
 */
#ifndef __GTSC_SYSCALL_JOIN_H
#define __GTSC_SYSCALL_JOIN_H

#include <stdbool.h>
#include "gtsc/records.h"
#include "syscall_decode.h"

enum sj_mode {
	SJ_STREAM,
	SJ_COMPLETE,
};

struct sj_call {
	enum sd_part part;
	__u32 pid, tid;
	int nr;
	const struct gtsc_rec_sys_enter *enter; /* NULL: not seen */
	const struct gtsc_rec_sys_exit *exit;	/* NULL: never returned */
	__u64 ts; /* when the line happens: the enter's; the exit's for SD_EXIT_PART */
};

/* Called for every call or part of one; a nonzero return stops and is returned. */
typedef int (*sj_emit_fn)(void *ctx, const struct sj_call *c);

struct syscall_joiner;

struct syscall_joiner *gt_syscall_joiner__new(enum sj_mode mode, sj_emit_fn emit, void *ctx);
void gt_syscall_joiner__free(struct syscall_joiner *j);
int gt_syscall_joiner__enter(struct syscall_joiner *j, const struct gtsc_rec_sys_enter *e);
int gt_syscall_joiner__exit(struct syscall_joiner *j, const struct gtsc_rec_sys_exit *e);
/* Thread TID is gone (at TS): its call, if any, never returns. */
int gt_syscall_joiner__thread_exit(struct syscall_joiner *j, __u32 tid, __u64 ts);
/* The caller prints a line of its own: a held call comes out as unfinished first. */
int gt_syscall_joiner__interrupt(struct syscall_joiner *j);
/* Whether TID is inside a call the joiner holds (its exit belongs to it). */
bool gt_syscall_joiner__in_call(const struct syscall_joiner *j, __u32 tid);
/* End of the records: calls still open come out. */
int gt_syscall_joiner__finish(struct syscall_joiner *j);

#endif
