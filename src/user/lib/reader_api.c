// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* The reader's public decode helpers that build on its report-side accessors. */
#include <errno.h>
#include "printf_fmt.h"
#include "trace_reader.h"

const char *gtsc_reader__syscall_name(const struct gtsc_reader *r, int nr)
{
	const struct gtsc_syscall_info *si = r ? gtsc_reader__syscall(r, nr) : NULL;

	return si ? si->name : NULL;
}

int gtsc_reader__format(const struct gtsc_reader *r, const struct gtsc_rec_hdr *rec, char *buf,
			size_t size)
{
	const char *chunk;
	size_t len;

	if (!r)
		return -EINVAL;
	chunk = gtsc_reader__chunk_text(r, GTSC_CHUNK_PRINTF, &len);
	return gtsc_printf__render(chunk, len, rec, buf, size);
}
