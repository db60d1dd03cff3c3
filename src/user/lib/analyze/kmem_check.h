/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * gtsc-bpf check, as kmemtrace_check was for kmemtrace: is a trace whole
 * (magic, versions, chunk CRCs, truncation, trailer), are its records sane
 * (known types of known sizes, each CPU's records in time order within their
 * ring), is it complete (drops, events the kernel skipped, records written
 * against records in the file), and is its kmem stream consistent (every free
 * pairs with an allocation of the same API, no pointer allocated twice
 * without a free between).  Each finding, warning and note is one sentence.
 */
#ifndef __GTSC_KMEM_CHECK_H
#define __GTSC_KMEM_CHECK_H

#include <stdbool.h>
#include "gtsc/gtsc.h"
#include "strbuf.h"

/* The public gtsc_check (gtsc/kmem.h) wraps one. */
struct kmem_check {
	struct gtsc_check_stats s; /* what was found, for the summary line and the tests */
	struct strbuf findings;	   /* one sentence per line: wrong in the file or the kernel */
	struct strbuf warnings;	   /* the trace is incomplete (drops, skipped events) */
	struct strbuf notes;	   /* what looks wrong but is explained */
	void (*on_progress)(void *ctx, const struct gtsc_reader *r);
	void *ctx;
};

/* Checks PATH into K (zeroed by the caller).  0 when the check ran, -errno if it could not. */
int gt_kmem_check__run(const char *path, struct kmem_check *k);
void gt_kmem_check__free(struct kmem_check *k);

#endif
