// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* lseek whence. */
#include "xlat.h"

static const struct xlat_entry whence[] = {
	{ 0, "SEEK_SET" },
	{ 1, "SEEK_CUR" },
	{ 2, "SEEK_END" },
	{ 3, "SEEK_DATA" },
	{ 4, "SEEK_HOLE" },
};
const struct xlat gt_xlat_whence = XLAT_TABLE(whence, NULL, "SEEK_???");
