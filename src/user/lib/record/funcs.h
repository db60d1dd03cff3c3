/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Function probes (record -k): patterns -> the kernel functions they name,
 * their prototypes from BTF for the trace's FUNCS chunk, and the probes
 * themselves (one kprobe.multi link per direction, or one kprobe per
 * function and direction).  A function's id is its index in the set; the
 * BPF cookie carries it into every record.
 */
#ifndef __GTSC_FUNCS_H
#define __GTSC_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct bpf_link;
struct bpf_program;
struct strbuf;

#define GTSC_MAX_FUNCS 4096

struct gtsc_func {
	char *name;
	__u64 addr; /* from kallsyms, 0 if hidden (kptr_restrict) */
	bool ret;   /* FUNC%return: a return probe and entry->return latency */
};

struct gtsc_func_set {
	struct gtsc_func *f; /* sorted by name; the index is the function id */
	size_t n;
};

/*
 * Resolves ARGS[0..N), each "a,b*,c%return" (globs as fnmatch; '%return' on
 * a pattern adds return probes to what it matches), into SET.  Names come
 * from tracefs's available_filter_functions (what ftrace, hence kprobe.multi,
 * can probe), or from /proc/kallsyms's text symbols when that is unreadable.
 * -ENOENT (a pattern matches nothing), -E2BIG or -ENOMEM with a sentence in
 * ERR.
 */
int gt_funcs__resolve(struct gtsc_func_set *set, const char *const *args, size_t n, char *err,
		      size_t err_sz);
void gt_funcs__free(struct gtsc_func_set *set);
/* "name,name%return,..." for status lines: at most LIMIT names, then "+N". */
void gt_funcs__summary(const struct gtsc_func_set *set, size_t limit, struct strbuf *sb);
/* FUNCS chunk lines (file.h); prototypes from VMLINUX when it has them. */
void gt_funcs__describe(const struct gtsc_func_set *set, const struct btf *vmlinux,
			struct strbuf *sb);

struct gtsc_func_links {
	struct bpf_link **l;
	size_t n;
};

/*
 * Attaches ENTRY to every function and RET to the %return ones: with
 * kprobe.multi (MULTI) one link each, else one kprobe per function and
 * direction.  -errno with a sentence in ERR; links made so far stay in L.
 */
int gt_funcs__attach(const struct gtsc_func_set *set, struct bpf_program *entry,
		     struct bpf_program *ret, bool multi, struct gtsc_func_links *l, char *err,
		     size_t err_sz);
void gt_funcs__detach(struct gtsc_func_links *l);

#endif
