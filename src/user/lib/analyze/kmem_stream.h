/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streams a trace's kmem records, in time order, into a kmem analysis.
 *
 * On the caller's thread, on the reader's own buffers (gt_reader__next_span):
 * no copy and no call per record, and the object map's slots are prefetched a
 * few records ahead.  A reader thread that copied records into batches for
 * the analysis thread was measured slower in CPU time (copies, cross-core
 * cache traffic, wakeups) and no faster in wall time, on 2 CPUs.
 */
#ifndef __GTSC_KMEM_STREAM_H
#define __GTSC_KMEM_STREAM_H

#include <stdbool.h>

struct gtsc_reader;
struct kmem_analysis;

/* Every record of R into A, then gt_kmem_analysis__finish(A, trace end). 0 or -errno. */
int gt_kmem_stream__run(struct gtsc_reader *r, struct kmem_analysis *a);
/* The same, calling FN(CTX, R) after each span of records (a progress line). */
int gt_kmem_stream__run_cb(struct gtsc_reader *r, struct kmem_analysis *a,
			   void (*fn)(void *ctx, const struct gtsc_reader *r), void *ctx);

#endif
