// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public tracepoint calls (gtsc/tracepoints.h): the events a trace
 * saved formats for, and this kernel's tracepoints.  Their records print
 * through the event classes (tp_class.c, gtsc/print.h).
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "feature_probe.h"
#include "tp_class.h"
#include "trace_reader.h"
#include "tracepoints.h"

struct gtsc_tp_decoder {
	struct tp_formats *f;
};

struct gtsc_tp_decoder *gtsc_tp_decoder__new(const struct gtsc_reader *r)
{
	struct gtsc_tp_decoder *d = calloc(1, sizeof(*d));

	if (!d)
		return errno = ENOMEM, NULL;
	d->f = gt_tp_formats__new(r);
	if (!d->f) {
		free(d);
		return NULL; /* errno from gt_tp_formats__new */
	}
	return d;
}

void gtsc_tp_decoder__free(struct gtsc_tp_decoder *d)
{
	if (!d)
		return;
	gt_tp_formats__free(d->f);
	free(d);
}

const char *gtsc_tp_decoder__event(const struct gtsc_tp_decoder *d, size_t idx,
				   const char **group)
{
	return gt_tp_formats__event(d ? d->f : NULL, idx, group);
}

/* ---- listing ---- */

struct list_ctx {
	const char *pattern;
	int (*fn)(void *ctx, const char *group, const char *name);
	void *ctx;
	int n;
};

static int list_one(void *ctx, const char *group, const char *name)
{
	struct list_ctx *l = ctx;
	char gn[512];

	snprintf(gn, sizeof(gn), "%s:%s", group, name);
	if (l->pattern && fnmatch(l->pattern, gn, 0))
		return 0;
	l->n++;
	return l->fn(l->ctx, group, name);
}

int gtsc_tracepoints__list(const char *pattern,
			   int (*fn)(void *ctx, const char *group, const char *name), void *ctx)
{
	struct list_ctx l = { .pattern = pattern, .fn = fn, .ctx = ctx };
	char tracefs[64], events[96];
	int err;

	if (!fn)
		return -EINVAL;
	gt_tracefs__find(tracefs, sizeof(tracefs));
	if (!tracefs[0])
		return geteuid() ? -EACCES : -ENOENT;
	snprintf(events, sizeof(events), "%s/events", tracefs);
	if (access(events, R_OK | X_OK))
		return -EACCES;
	err = gt_tp__each(tracefs, list_one, &l);
	return err ?: l.n;
}
