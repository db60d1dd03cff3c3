// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* wait4/waitid options and waitid's idtype. */
#include "xlat.h"

static const struct xlat_entry wait_options[] = {
	{ 0x1, "WNOHANG" },
	{ 0x2, "WUNTRACED" }, /* WSTOPPED for waitid */
	{ 0x4, "WEXITED" },
	{ 0x8, "WCONTINUED" },
	{ 0x1000000, "WNOWAIT" },
	{ 0x20000000, "__WNOTHREAD" },
	{ 0x40000000, "__WALL" },
	{ 0x80000000, "__WCLONE" },
};
const struct xlat gt_xlat_wait_options = XLAT_TABLE(wait_options, NULL, NULL);

static const struct xlat_entry idtype[] = {
	{ 0, "P_ALL" },
	{ 1, "P_PID" },
	{ 2, "P_PGID" },
	{ 3, "P_PIDFD" },
};
const struct xlat gt_xlat_idtype = XLAT_TABLE(idtype, NULL, "P_???");
