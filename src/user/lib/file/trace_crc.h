/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* zlib's crc32, computed with carry-less multiplication where the CPU has it. */
#ifndef __GTSC_TRACE_CRC_H
#define __GTSC_TRACE_CRC_H

#include <stddef.h>
#include <linux/types.h>

/* The same value as zlib's crc32(CRC, BUF, LEN); CRC is 0 to start. */
__u32 gt_trace_crc32(__u32 crc, const void *buf, size_t len);

#endif
