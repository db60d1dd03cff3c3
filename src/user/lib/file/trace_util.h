/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Helpers shared by the .gtsc writer and reader; not part of any API. */
#ifndef __GTSC_TRACE_UTIL_H
#define __GTSC_TRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>
#include "gtsc/file.h"
#include "gtsc/records.h"
#include "opts.h"
#include "trace_crc.h"

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define TRACE_HOST_BYTE_ORDER GTSC_LITTLE_ENDIAN
#else
#define TRACE_HOST_BYTE_ORDER GTSC_BIG_ENDIAN
#endif

/* A record type's smallest valid size; 0 for types this build does not know. */
static const __u16 trace_rec_min_sizes[GTSC_REC_TYPE_MAX] = GTSC_REC_MIN_SIZES;

static inline __u32 trace_file_hdr_crc(const struct gtsc_file_hdr *h)
{
	return gt_trace_crc32(0, h, offsetof(struct gtsc_file_hdr, crc));
}

/* LEN is at most GTSC_CHUNK_MAX_LEN, so it fits zlib's uInt. */
static inline __u32 trace_chunk_crc(const struct gtsc_chunk_hdr *h, const void *data, size_t len)
{
	struct gtsc_chunk_hdr tmp = *h;

	tmp.crc = 0;
	return gt_trace_crc32(gt_trace_crc32(0, &tmp, sizeof(tmp)), data, len);
}

#endif
