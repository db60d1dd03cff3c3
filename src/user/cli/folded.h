/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Kernel stacks (record --stacks) as folded stacks, the input of
 * flamegraph.pl: "outer;...;inner weight" lines, frames named by the trace's
 * own KSYMS, the recorder's own frames left out, identical stacks merged.
 * Shared by report --kmem and report --functions.
 */
#ifndef __GTSC_CLI_FOLDED_H
#define __GTSC_CLI_FOLDED_H

#include <stdio.h>
#include <gtsc/gtsc.h>

enum fold_weight {
	FOLD_NONE,
	FOLD_BYTES, /* weight: bytes allocated */
	FOLD_COUNT, /* weight: allocations, or hits */
};

struct folded_use {
	__u32 stack_id; /* as the records hold it */
	__u64 weight;
};

/* N_USE stacks and the weight of records without one ("[no stack]"): 0 or -errno. */
int folded__print(const struct gtsc_reader *r, const struct folded_use *use, size_t n_use,
		  __u64 unstacked, FILE *out);

#endif
