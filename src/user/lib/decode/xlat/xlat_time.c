// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Clocks and timers. */
#include "xlat.h"

static const struct xlat_entry clockid[] = {
	{ 0, "CLOCK_REALTIME" },
	{ 1, "CLOCK_MONOTONIC" },
	{ 2, "CLOCK_PROCESS_CPUTIME_ID" },
	{ 3, "CLOCK_THREAD_CPUTIME_ID" },
	{ 4, "CLOCK_MONOTONIC_RAW" },
	{ 5, "CLOCK_REALTIME_COARSE" },
	{ 6, "CLOCK_MONOTONIC_COARSE" },
	{ 7, "CLOCK_BOOTTIME" },
	{ 8, "CLOCK_REALTIME_ALARM" },
	{ 9, "CLOCK_BOOTTIME_ALARM" },
	{ 11, "CLOCK_TAI" },
};
const struct xlat gt_xlat_clockid = XLAT_TABLE(clockid, NULL, "CLOCK_???");

static const struct xlat_entry timer_flags[] = {
	{ 1, "TIMER_ABSTIME" },
};
const struct xlat gt_xlat_timer_flags = XLAT_TABLE(timer_flags, NULL, NULL);

static const struct xlat_entry itimer_which[] = {
	{ 0, "ITIMER_REAL" },
	{ 1, "ITIMER_VIRTUAL" },
	{ 2, "ITIMER_PROF" },
};
const struct xlat gt_xlat_itimer_which = XLAT_TABLE(itimer_which, NULL, "ITIMER_???");
