// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * convert --to ctf: the library writes it (gtsc_reader__write_ctf); this
 * says what drops became.
 */
#include <inttypes.h>
#include <stdio.h>
#include <gtsc/gtsc.h>
#include "convert.h"

int convert_ctf(struct gtsc_reader *r, const char *dir, __u64 *events)
{
	GTSC_OPTS(gtsc_ctf_opts, o);
	int err = gtsc_reader__write_ctf(r, dir, &o);

	*events = o.events;
	if (!err && o.discarded)
		fprintf(stderr, "gtsc-bpf: %" PRIu64 " dropped events are the packets' discarded "
				"counts\n", (uint64_t)o.discarded);
	return err;
}
