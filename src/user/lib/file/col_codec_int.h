/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Between the column coder and its field tables; not part of any API. */
#ifndef __GTSC_COL_CODEC_INT_H
#define __GTSC_COL_CODEC_INT_H

#include "gtsc/records.h"
#include "fields.h"

/*
 * The fields of record TYPE, sorted by offset, not overlapping; NULL for a
 * type without a table (its bytes after the header ride raw).  The streams
 * of a column chunk follow from these tables: changing one changes the
 * layout, which takes a new COL_VERSION (col_codec.c).
 */
const struct gtsc_event_class *gt_col_record_class(unsigned int type);

#endif
