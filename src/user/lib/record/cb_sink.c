// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include "cb_sink.h"

static int cb_record(struct gtsc_sink *sink, const struct gtsc_rec_hdr *rec)
{
	struct gtsc_cb_sink *cs = container_of(sink, struct gtsc_cb_sink, sink);

	if (!cs->fn)
		return 0; /* outside a consume call nobody asked for records */
	cs->records++;
	return cs->fn(cs->ctx, rec);
}

static int cb_round_end(struct gtsc_sink *sink)
{
	return 0;
}

static void cb_destroy(struct gtsc_sink *sink)
{
	free(container_of(sink, struct gtsc_cb_sink, sink));
}

struct gtsc_cb_sink *gt_cb_sink__new(void)
{
	struct gtsc_cb_sink *cs = calloc(1, sizeof(*cs));

	if (!cs)
		return errno = ENOMEM, NULL;
	cs->sink = (struct gtsc_sink){
		.record = cb_record,
		.round_end = cb_round_end,
		.destroy = cb_destroy,
	};
	return cs;
}

struct gtsc_cb_sink *gt_cb_sink__of(struct gtsc_sink *sink)
{
	if (!sink || sink->record != cb_record)
		return NULL;
	return container_of(sink, struct gtsc_cb_sink, sink);
}
