/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Where consumed records go: the trace file, a live printer, an embedder's
 * callback.  A concrete sink embeds struct gtsc_sink and recovers itself
 * with container_of.  RECORD must copy what it keeps: REC points into a ring
 * and is reused once the call returns.
 */
#ifndef __GTSC_SINK_H
#define __GTSC_SINK_H

#include <stddef.h>
#include "gtsc/records.h"

struct gtsc_sink {
	int (*record)(struct gtsc_sink *sink, const struct gtsc_rec_hdr *rec);
	/* Every ring has been drained once since the previous call. */
	int (*round_end)(struct gtsc_sink *sink);
	/* Optional: the session owns the sink and frees it with this when destroyed. */
	void (*destroy)(struct gtsc_sink *sink);
};

#ifndef container_of
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#endif

#endif
