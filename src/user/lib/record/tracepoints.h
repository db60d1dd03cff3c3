/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Any tracepoint by name (record -e GROUP:NAME): patterns resolved against
 * tracefs's events/, each event's format parsed by libtraceevent into what
 * the generic program needs to copy its raw entry (gtsc_tp_info), the
 * attachment, and the trace's TRACEPOINTS chunk (file.h) from which
 * tp_decode.c decodes the records on any machine.
 */
#ifndef __GTSC_TRACEPOINTS_H
#define __GTSC_TRACEPOINTS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "gtsc/gtsc.h"
#include "gtsc_shared.h"
#include "gtsc_syscalls.h"

struct bpf_link;
struct bpf_program;
struct strbuf;

struct gtsc_tp {
	char *group, *name;
	__u32 id;     /* common_type */
	char *format; /* events/GROUP/NAME/format, verbatim */
	size_t format_len;
	struct gtsc_tp_info info;
	/*
	 * A syscall event whose format is the entry tracepoint.bpf.c's tp_btf
	 * programs build from raw_syscalls: GTSC_TP_SYS_* (0: not one).
	 * SYNTH: recorded that way this session, not attached.
	 */
	int sys_kind;
	bool synth;
};

enum gtsc_tp_sys_kind {
	GTSC_TP_SYS_ENTER = 1, /* syscalls:sys_enter_X */
	GTSC_TP_SYS_EXIT,      /* syscalls:sys_exit_X */
	GTSC_TP_RAW_ENTER,     /* raw_syscalls:sys_enter */
	GTSC_TP_RAW_EXIT,      /* raw_syscalls:sys_exit */
};

struct gtsc_tp_set {
	struct gtsc_tp *tp; /* sorted by group, then name */
	size_t n;
	bool printk; /* a print fmt prints a kernel string by address: save printk_formats */
};

/* FN(CTX, group, name) for every event under TRACEFS/events, sorted; stops at FN's non-zero. */
int gt_tp__each(const char *tracefs, int (*fn)(void *ctx, const char *group, const char *name),
		void *ctx);
/*
 * PATS[0..N), each a comma list of GROUP:NAME (fnmatch globs on either
 * side), into SET.  An unknown name is refused naming the closest
 * tracepoints (edit distance); a pattern this kernel has nothing like is
 * refused in one sentence, or with ALLOW_MISSING left out with a warning.
 * 0 or -errno, the sentences through LOG.
 */
int gt_tp__resolve(struct gtsc_tp_set *set, const char *tracefs, const char *const *pats,
		   size_t n, bool allow_missing, gtsc_log_fn log, void *log_ctx);
void gt_tp__free(struct gtsc_tp_set *set);
/* "sched:sched_switch,sched:sched_wakeup,+3" for status lines: LIMIT names, then "+N". */
void gt_tp__summary(const struct gtsc_tp_set *set, size_t limit, struct strbuf *sb);
/* The TRACEPOINTS chunk (file.h): header_page, each event's format, printk_formats if needed. */
void gt_tp__describe(const struct gtsc_tp_set *set, const char *tracefs, struct strbuf *sb);
/*
 * Marks the syscall events of SET that tracepoint.bpf.c builds from
 * raw_syscalls as synth, and fills its tables: EVENT_NAME(nr) says which
 * sys_enter_<name> is syscall NR's (NULL: none), EV[0][nr] / EV[1][nr] the
 * index + 1 of syscall NR's sys_enter / sys_exit event, RAW[0] / RAW[1]
 * raw_syscalls:sys_enter / sys_exit's.  Syscall events it cannot build
 * (their format copies user memory, or names no syscall this build knows)
 * go to LEFT, comma separated.  Returns how many it marked.
 */
size_t gt_tp__syscalls(struct gtsc_tp_set *set, const char *(*event_name)(int nr),
		       __u16 ev[2][GTSC_NR_SYSCALLS], __u16 raw[2], struct strbuf *left);
/* Puts each event's gtsc_tp_info into the array MAP_FD at its index in SET (the attach cookie). */
int gt_tp__fill(const struct gtsc_tp_set *set, int map_fd);

struct gtsc_tp_links {
	struct bpf_link **l;
	size_t n;
};

/*
 * PROG on every tracepoint of SET but the synth ones; -errno with a
 * sentence in ERR, the links made so far in L.
 */
int gt_tp__attach(const struct gtsc_tp_set *set, struct bpf_program *prog,
		  struct gtsc_tp_links *l, char *err, size_t err_sz);
void gt_tp__detach(struct gtsc_tp_links *l);

/* Levenshtein distance, for "did you mean" (also used by list-events). */
size_t gt_edit_distance(const char *a, const char *b);

#endif
