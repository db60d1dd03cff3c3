// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* A printf record's text: decoding, over the formats the trace carries (printf_fmt.c). */
#include <errno.h>
#include "printf_fmt.h"
#include "trace_reader.h"

int gtsc_reader__format(const struct gtsc_reader *r, const struct gtsc_rec_hdr *rec, char *buf,
			size_t size)
{
	const char *chunk;
	size_t len;

	if (!r)
		return -EINVAL;
	chunk = gtsc_reader__chunk_text(r, GTSC_CHUNK_PRINTF, &len);
	return gt_printf__render(chunk, len, rec, buf, size);
}
