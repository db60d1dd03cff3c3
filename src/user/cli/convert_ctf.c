// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * convert --to ctf: the library writes it (gtsc_reader__write_ctf); this
 * says what drops became.
 */
#include <inttypes.h>
#include <stdio.h>
#include <gtsc/gtsc.h>
#include "convert.h"
#include "progress.h"

static void tick(void *ctx)
{
	read_progress_tick(ctx);
}

int convert_ctf(struct gtsc_reader *r, const char *dir, __u64 *events)
{
	struct read_progress prog;
	GTSC_OPTS(gtsc_ctf_opts, o, .on_record = tick, .ctx = &prog);
	int err;

	read_progress_init(&prog, r, "convert", false);
	err = gtsc_reader__write_ctf(r, dir, &o);
	read_progress_end(&prog);
	*events = o.events;
	if (!err && o.discarded)
		fprintf(stderr, "gtsc-bpf: %" PRIu64 " dropped events are the packets' discarded "
				"counts\n", (uint64_t)o.discarded);
	return err;
}
