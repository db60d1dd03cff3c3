/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The consumer of one array ring region (ring=array; layout and protocol in
 * gtsc_shared.h): gt_ringbuf__consume's counterpart, with the same batched
 * publication of the read position (every 64 KiB and at the end of a
 * drain), before which the consumed bytes are zeroed.
 */
#ifndef __GTSC_ARRAYBUF_H
#define __GTSC_ARRAYBUF_H

#include <stddef.h>
#include <linux/types.h>
#include "gtsc_shared.h"
#include "ringbuf.h"

struct gtsc_arrbuf {
	struct gtsc_arr_head *head; /* the region's head (programs) and tail (ours) */
	char *data;		    /* the region: SIZE bytes of consecutive elements */
	size_t size;		    /* a power of two */
	size_t elem;		    /* element bytes, a power of two: no record crosses one */
	__u64 cons;		    /* consumed, >= the published tail */
	__u64 damaged;		    /* elements skipped for a header that cannot be */
};

void gt_arrbuf__init(struct gtsc_arrbuf *ab, struct gtsc_arr_head *head, void *data, size_t size,
		     size_t elem);
/* Every committed record to FN, in order: the count, or FN's negative return. */
long gt_arrbuf__consume(struct gtsc_arrbuf *ab, gtsc_ringbuf_fn fn, void *ctx);

/* Bytes claimed and not yet read. */
static inline size_t gtsc_arrbuf__pending(const struct gtsc_arrbuf *ab)
{
	return __atomic_load_n(&ab->head->head, __ATOMIC_ACQUIRE) - ab->cons;
}

#endif
