/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Allocation stacks (record --stacks) as folded stacks, the input of
 * flamegraph.pl: "outer;...;inner weight" lines, frames named by the trace's
 * own KSYMS, identical stacks merged.
 */
#ifndef __GTSC_KMEM_STACKS_H
#define __GTSC_KMEM_STACKS_H

#include <stdio.h>
#include <gtsc/gtsc.h>

enum kmem_fold {
	KMEM_FOLD_NONE,
	KMEM_FOLD_BYTES, /* weight: bytes allocated */
	KMEM_FOLD_COUNT, /* weight: allocations */
};

/* 0, -ENODATA when the trace has no stacks (not recorded with --stacks), -errno. */
int kmem_stacks__print_folded(const struct gtsc_reader *r, const struct gtsc_kmem_analysis *a,
			      enum kmem_fold weight, FILE *out);

#endif
