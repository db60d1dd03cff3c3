/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Streams a trace's kmem records, in time order, into a kmem analysis.
 * Reading (decompression, CRCs, the merge by time) and analysing take about
 * the same time, so with more than one CPU they run as a pipeline: a reader
 * thread fills batches of record copies, the caller's thread analyses them;
 * a few batches in flight bound the memory.
 */
#ifndef __GTSC_KMEM_STREAM_H
#define __GTSC_KMEM_STREAM_H

#include <stdbool.h>

struct gtsc_reader;
struct kmem_analysis;

/* Every record of R into A, then kmem_analysis__finish(A, trace end). 0 or -errno. */
int kmem_stream__run(struct gtsc_reader *r, struct kmem_analysis *a, bool threaded);

#endif
