// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <stdlib.h>
#include "col_codec.h"
#include "kmem_analysis.h"
#include "kmem_stream.h"
#include "trace_reader.h"

static __u64 end_ns(const struct gtsc_reader *r)
{
	const char *v = gtsc_reader__meta(r, "end_ns");

	return v ? strtoull(v, NULL, 10) : 0;
}

int gt_kmem_stream__run(struct gtsc_reader *r, struct kmem_analysis *a)
{
	return gt_kmem_stream__run_cb(r, a, NULL, NULL);
}

int gt_kmem_stream__run_cb(struct gtsc_reader *r, struct kmem_analysis *a,
			   void (*fn)(void *ctx, const struct gtsc_reader *r), void *ctx)
{
	const struct trace_rec_ref *refs;
	struct col_want want = {};
	ssize_t n;
	int err = 0;

	/*
	 * The analysis alone reads R's records: column chunks decode what it
	 * reads.  bench/read_speed.sh's kmem_load trace (6.3 M records, one
	 * thread, main alternating, medians of 5, load ~2): 0.357-0.368 ->
	 * 0.344-0.352 s CPU; the LZ4 file of the same run 0.223-0.229.
	 * The pid only for a pid filter (A's): 8.35 M records, medians of
	 * 11 alternating, load ~4, 0.523 -> 0.512 s (with the lastd[] change
	 * in col_codec.c; the worker 0.556 -> 0.526; LZ4 0.351).
	 */
	gt_kmem_analysis__want(a, &want);
	gt_reader__want(r, &want); /* -EBUSY (records read already): whole records */
	while (!err && (n = gt_reader__next_span(r, &refs)) > 0) {
		err = gt_kmem_analysis__add_refs(a, refs, (size_t)n);
		if (fn)
			fn(ctx, r);
	}
	err = err ?: (int)n;
	return err ?: gt_kmem_analysis__finish(a, end_ns(r));
}
