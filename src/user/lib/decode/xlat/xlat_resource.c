// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Resource limits, getrusage's who, getpriority's which. */
#include "xlat.h"

static const struct xlat_entry rlimit[] = {
	{ 0, "RLIMIT_CPU" },
	{ 1, "RLIMIT_FSIZE" },
	{ 2, "RLIMIT_DATA" },
	{ 3, "RLIMIT_STACK" },
	{ 4, "RLIMIT_CORE" },
	{ 5, "RLIMIT_RSS" },
	{ 6, "RLIMIT_NPROC" },
	{ 7, "RLIMIT_NOFILE" },
	{ 8, "RLIMIT_MEMLOCK" },
	{ 9, "RLIMIT_AS" },
	{ 10, "RLIMIT_LOCKS" },
	{ 11, "RLIMIT_SIGPENDING" },
	{ 12, "RLIMIT_MSGQUEUE" },
	{ 13, "RLIMIT_NICE" },
	{ 14, "RLIMIT_RTPRIO" },
	{ 15, "RLIMIT_RTTIME" },
};
const struct xlat gt_xlat_rlimit = XLAT_TABLE(rlimit, NULL, "RLIMIT_???");

static const struct xlat_entry rusage_who[] = {
	{ 0, "RUSAGE_SELF" },
	{ 1, "RUSAGE_THREAD" },
	{ 0xffffffff, "RUSAGE_CHILDREN" }, /* -1 as an int */
};
const struct xlat gt_xlat_rusage_who = XLAT_TABLE(rusage_who, NULL, "RUSAGE_???");

static const struct xlat_entry priority_which[] = {
	{ 0, "PRIO_PROCESS" },
	{ 1, "PRIO_PGRP" },
	{ 2, "PRIO_USER" },
};
const struct xlat gt_xlat_priority_which = XLAT_TABLE(priority_which, NULL, "PRIO_???");
