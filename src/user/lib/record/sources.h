/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The event sources and, for each, the program variants that can record it:
 * tp_btf first, then a raw_tp or classic tracepoint fallback.  Picking one
 * per source from the feature table, before load, is how a kernel's
 * differences turn into programs switched on or off.
 */
#ifndef __GTSC_SOURCES_H
#define __GTSC_SOURCES_H

#include <stdbool.h>
#include <stddef.h>

struct bpf_object;
struct gtsc_features;
struct strbuf;

enum gtsc_source_mask {
	GTSC_SRC_TASK = 1 << 0, /* always on: follows forks, names pids */
	GTSC_SRC_SYSCALLS = 1 << 1,
	GTSC_SRC_KMEM = 1 << 2,
	GTSC_SRC_ALL = GTSC_SRC_TASK | GTSC_SRC_SYSCALLS | GTSC_SRC_KMEM,
	GTSC_SRC_FUNCS = 1 << 3, /* function probes: set by the session when -k named some */
	GTSC_SRC_EVENTS = 1 << 4, /* tracepoints by name: set by the session when -e named some */
};

#define GTSC_MAX_SOURCES 16
/*
 * A program's rescue programs at most: <prog>_r, _r2, _r3 (kmem's have two).
 * An event is lost when every program of the chain is held by a task
 * preempted inside it on that CPU.  With two, three tp-storm tasks on one
 * CPU of 7.3.4 (test_tp_preempt.sh, array rings) lost 1 of 300,000
 * sys_enter_getppid built from raw_syscalls, and on 7.3.4-rt the raw
 * syscall source lost 4 events in one CI run of test_rt.sh (both counted
 * as skipped, 2026-11-26/27).  Syscall rescue programs run only where
 * bpf_preemptible.
 */
#define GTSC_RESCUE_LEVELS 3

struct gtsc_source_choice {
	const char *name;    /* "kmem:kmalloc" */
	const char *prog;    /* program chosen, NULL when not recorded */
	const char *how;     /* "tp_btf", "raw_tp", "tracepoint" */
	char why[160];	     /* why the preferred variant or the source was left out */
	bool wanted;	     /* in the session's source mask */
	unsigned int mask;   /* the enum gtsc_source_mask bit it belongs to */
	/* Its rescue programs (gtsc_shared.h), in attach order; "" without. */
	char rescue[GTSC_RESCUE_LEVELS][48];
	int rescue_slot; /* their gtsc_rescued slot, -1 without */
};

struct gtsc_source_plan {
	struct gtsc_source_choice src[GTSC_MAX_SOURCES];
	int n;
	/*
	 * Function probes, attached by funcs.c rather than by section name:
	 * funcs.prog is the entry program, funcs_ret_prog the return one,
	 * funcs.how "kprobe.multi" or "kprobe".
	 */
	struct gtsc_source_choice funcs;
	const char *funcs_ret_prog;
	/* Tracepoints by name (-e GROUP:NAME), attached by tracepoints.c. */
	struct gtsc_source_choice events;
};

/*
 * Parses "kmem,syscalls" into a mask (task is always added); -EINVAL and the
 * unknown name in BAD.  "syscalls=LIST" ends the list: SYSCALLS points at
 * LIST (syscall_classes.h parses it), else it is NULL.
 */
int gt_sources__parse(const char *list, unsigned int *mask, const char **syscalls, char *bad,
		      size_t bad_sz);
/* Chooses a program per wanted source and sets autoload on OBJ accordingly. */
int gt_sources__plan(struct gtsc_source_plan *plan, struct bpf_object *obj,
		     const struct gtsc_features *f, unsigned int mask);
/*
 * The families the plan records, SEP between them: "syscalls, kmem" (task,
 * always recorded, only when there is nothing else; funcs not included).
 */
void gt_sources__recorded(const struct gtsc_source_plan *plan, const char *sep,
			  struct strbuf *sb);
/* "name=how" lines, and "name=off (why)" for wanted sources left out. */
void gt_sources__describe(const struct gtsc_source_plan *plan, struct strbuf *sb);

#endif
