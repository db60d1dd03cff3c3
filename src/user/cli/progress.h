/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A progress line for commands that read a large trace (report, convert),
 * like perf report's: on a terminal only, from the second second on,
 * refreshed about twice a second, erased when done.  A command that prints
 * as it reads (STREAMING) shows it only when its output goes elsewhere, so
 * the line never lands between its own lines.
 */
#ifndef __GTSC_CLI_PROGRESS_H
#define __GTSC_CLI_PROGRESS_H

#include <stdbool.h>
#include <gtsc/gtsc.h>

struct read_progress {
	const struct gtsc_reader *r;
	const char *what;
	bool on, shown;
	unsigned int n;
	__u64 start_ns, next_ns;
};

void read_progress_init(struct read_progress *p, const struct gtsc_reader *r, const char *what,
			bool streaming);
void read_progress__tick_slow(struct read_progress *p);
void read_progress_end(struct read_progress *p);
/* For a library call that reads on its own (gtsc_check_opts.on_progress): CTX is the progress. */
void read_progress_on(void *ctx, const struct gtsc_reader *r);

/* Per record: a counter, and the clock once every 64 K records. */
static inline void read_progress_tick(struct read_progress *p)
{
	if (p->on && !(++p->n & 0xffff))
		read_progress__tick_slow(p);
}

#endif
