/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What this kernel can do, probed once per session.  All kernel differences
 * are decided here (and in the CO-RE flavours of src/bpf/core_fixes.bpf.h):
 * the session switches programs on or off from these answers before load
 * and tells the user what was left out and why.
 */
#ifndef __GTSC_FEATURE_PROBE_H
#define __GTSC_FEATURE_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct strbuf;

#define GTSC_RB_OVERWRITE_FLAG (1U << 19) /* BPF_F_RB_OVERWRITE, not in 6.1 uapi headers */

enum gtsc_feature {
	GTSC_FEAT_BTF,		/* /sys/kernel/btf/vmlinux: CO-RE needs it */
	GTSC_FEAT_RINGBUF,	/* BPF_MAP_TYPE_RINGBUF (5.8) */
	GTSC_FEAT_RINGBUF_OVERWRITE, /* BPF_F_RB_OVERWRITE (6.19) */
	GTSC_FEAT_TP_BTF,	/* BPF_PROG_TYPE_TRACING loadable */
	GTSC_FEAT_TP_BTF_VOID_ARG, /* tp_btf may load a `void *` argument (6.18 yes, 6.12 no) */
	GTSC_FEAT_TRACEFS,	/* tracefs mounted (classic tracepoints, syscall formats) */
	GTSC_FEAT_SYSCALL_EVENTS, /* events/syscalls: argument names and types */
	GTSC_FEAT_KPROBE,	/* a kprobe attaches (kprobe PMU) */
	GTSC_FEAT_KPROBE_MULTI, /* a kprobe.multi link attaches (5.18, CONFIG_FPROBE) */
	GTSC_FEAT_FENTRY,	/* an fentry program attaches (BPF trampolines) */
	GTSC_FEAT_BPF_PREEMPTIBLE, /* syscall programs preemptible: PREEMPT_RT, 7.x */
	GTSC_FEAT_TRACEPOINT,	/* classic tracepoint programs with attach cookies (-e GROUP:NAME, 5.15) */
	GTSC_FEAT_TASK_STORAGE, /* BPF_MAP_TYPE_TASK_STORAGE (5.11): for the compatibility table */
	GTSC_FEAT_ARRAY_RING,	/* ring=array: BPF_F_MMAPABLE arrays (5.5), BPF cmpxchg (5.12) */
	GTSC_FEAT_SYSCALL_TP_CLASSIC, /* classic programs on syscall events miss none (< 7.0) */
	GTSC_FEAT_SYS_DISPATCH, /* one shared syscall dispatch per hook (dispatch.h) */
	GTSC_FEAT_MAX,
};

/* The public API (gtsc/control.h) knows it only by name. */
struct gtsc_features {
	bool has[GTSC_FEAT_MAX];
	char why[GTSC_FEAT_MAX][96]; /* one phrase when missing */
	char tracefs[64];	     /* mount point, "" if none */
	__u32 arr_elem_max;	     /* largest array ring element this kernel takes */
	struct btf *vmlinux;	     /* kernel BTF, NULL without GTSC_FEAT_BTF */
};

/*
 * Probes everything into F, embedded in its owner (a session); mounts
 * tracefs when it is not mounted and we may.  gtsc_features__probe is the
 * public, allocating form.
 */
int gt_features__init(struct gtsc_features *f);
void gt_features__fini(struct gtsc_features *f);
const char *gt_feature_name(enum gtsc_feature feat);

/*
 * Does tp_btf/TP's prototype match SPEC?  SPEC lists the arguments after the
 * context, comma separated: "i" an integer, "p" any pointer, "P:name" a
 * pointer to struct name.  Extra trailing kernel arguments are fine.  On a
 * mismatch *why gets a phrase.
 */
bool gt_features__tp_btf_matches(const struct gtsc_features *f, const char *tp, const char *spec,
				 char *why, size_t why_sz);
/*
 * The tracefs mount point into BUF ("" when none), mounting it at
 * /sys/kernel/tracing when it is not mounted and we may.
 */
void gt_tracefs__find(char *buf, size_t size);
/* Does tracefs have events/CATEGORY/NAME? */
bool gt_features__tracepoint_exists(const struct gtsc_features *f, const char *category,
				    const char *name);
/* key=value lines for the trace's FEATURES chunk and `gtsc-bpf features`. */
void gt_features__lines(const struct gtsc_features *f, struct strbuf *sb);
/*
 * Whether programs run preemptible on the kernel of uname's RELEASE and
 * VERSION (as a trace's META saves them): every hook on PREEMPT_RT and on
 * Linux 7.x.  probe_bpf_preemptible's rule, for a trace recorded elsewhere.
 */
bool gt_uts_bpf_preemptible(const char *release, const char *version);

#endif
