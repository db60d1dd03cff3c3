/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * GFP flag names by the recording kernel's own bit values.  GFP bits moved
 * between kernels (___GFP_* became an enum in 6.8, flags were added and
 * dropped), so the table comes from the __print_flags() list in the kmem
 * tracepoint formats saved in the trace (EVENT_FORMATS); a trace without
 * them falls back to a compiled-in table of Linux 6.18's values.
 */
#ifndef __GTSC_KMEM_GFP_H
#define __GTSC_KMEM_GFP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct kmem_gfp_flag {
	__u64 mask;
	char name[32];
};

struct kmem_gfp_table {
	struct kmem_gfp_flag *flags; /* in the kernel's order: composites first */
	size_t n;
	bool from_trace; /* false: the compiled-in fallback */
};

/* Parses FORMATS (EVENT_FORMATS text, may be NULL); 0 or -ENOMEM. */
int gt_kmem_gfp__load(struct kmem_gfp_table *t, const char *formats, size_t len);
/* FLAGS as the kernel prints them: "GFP_KERNEL|__GFP_ZERO", "none", leftovers in hex. */
void gt_kmem_gfp__decode(const struct kmem_gfp_table *t, __u64 flags, char *buf, size_t sz);
void gt_kmem_gfp__free(struct kmem_gfp_table *t);

/* Evaluates a C constant expression as tracefs prints them (casts, << | & ~). */
bool gt_kmem_gfp__eval(const char *s, size_t len, __u64 *val);

#endif
