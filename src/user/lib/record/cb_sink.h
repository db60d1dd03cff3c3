/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The sink behind the public consume calls: records go to the callback the
 * current consume call was given.  A session or tool owns it for its life
 * (sink.h's destroy), since the rings keep their sink from creation on.
 */
#ifndef __GTSC_CB_SINK_H
#define __GTSC_CB_SINK_H

#include "gtsc/gtsc.h"
#include "sink.h"

struct gtsc_cb_sink {
	struct gtsc_sink sink;
	gtsc_record_fn fn; /* the current consume call's; NULL between calls */
	void *ctx;
	__u64 records; /* handed to fn so far */
};

/* NULL + errno */
struct gtsc_cb_sink *gt_cb_sink__new(void);
/* SINK if it is a callback sink, else NULL. */
struct gtsc_cb_sink *gt_cb_sink__of(struct gtsc_sink *sink);

#endif
