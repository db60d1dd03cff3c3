// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * record --live.  The recording feeds its reader one drain round at a
 * time; the reader merges the per-CPU rings by timestamp with the window
 * report uses, so a line is printed about one round (POLL_MS) after its
 * event.  Decoding happens here, in the recorder's consumer: the BPF side
 * records as it does without --live.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "live_view.h"
#include "syscall_lines.h"

struct live_view {
	struct gtsc_reader *r;
	struct gtsc_event_printer *ev;
	struct syscall_lines *sys;
};

struct live_view *live_view__new(struct gtsc_reader *r, bool json)
{
	GTSC_OPTS(gtsc_event_printer_opts, po, .json = json);
	struct live_view *lv = calloc(1, sizeof(*lv));

	if (!lv || !r)
		goto fail;
	lv->r = r;
	lv->ev = gtsc_event_printer__new(r, stdout, &po);
	lv->sys = syscall_lines__new(r, json);
	if (lv->ev && lv->sys)
		return lv;
fail:
	live_view__free(lv);
	return NULL;
}

int live_view__drain(struct live_view *lv)
{
	const struct gtsc_rec_hdr *rec;
	int n, err = 0;

	while (!err && (n = gtsc_reader__next(lv->r, &rec)) > 0) {
		err = syscall_lines__record(lv->sys, rec);
		if (!err)
			err = gtsc_event_printer__print(lv->ev, rec);
		else if (err > 0)
			err = 0;
	}
	if (fflush(stdout) && !err)
		err = -errno;
	if (err)
		return err;
	return n == -EAGAIN ? 0 : n < 0 ? n : 1;
}

int live_view__finish(struct live_view *lv)
{
	/* the feed has ended: one drain reads it to its end */
	int err = live_view__drain(lv);

	if (err < 0)
		return err;
	err = syscall_lines__finish(lv->sys);
	if (fflush(stdout) && !err)
		err = -errno;
	return err;
}

void live_view__free(struct live_view *lv)
{
	if (!lv)
		return;
	gtsc_event_printer__free(lv->ev);
	syscall_lines__free(lv->sys);
	free(lv);
}
