// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * futex operations (the option bits FUTEX_PRIVATE_FLAG and FUTEX_CLOCK_REALTIME
 * are in xlat.h) and the parts of FUTEX_WAKE_OP's encoded operation.
 */
#include "xlat.h"

static const struct xlat_entry futex_cmd[] = {
	{ 0, "FUTEX_WAIT" },
	{ 1, "FUTEX_WAKE" },
	{ 2, "FUTEX_FD" },
	{ 3, "FUTEX_REQUEUE" },
	{ 4, "FUTEX_CMP_REQUEUE" },
	{ 5, "FUTEX_WAKE_OP" },
	{ 6, "FUTEX_LOCK_PI" },
	{ 7, "FUTEX_UNLOCK_PI" },
	{ 8, "FUTEX_TRYLOCK_PI" },
	{ 9, "FUTEX_WAIT_BITSET" },
	{ 10, "FUTEX_WAKE_BITSET" },
	{ 11, "FUTEX_WAIT_REQUEUE_PI" },
	{ 12, "FUTEX_CMP_REQUEUE_PI" },
	{ 13, "FUTEX_LOCK_PI2" },
};
const struct xlat gt_xlat_futex_cmd = XLAT_TABLE(futex_cmd, NULL, "FUTEX_???");

static const struct xlat_entry wake_ops[] = {
	{ 0, "FUTEX_OP_SET" },
	{ 1, "FUTEX_OP_ADD" },
	{ 2, "FUTEX_OP_OR" },
	{ 3, "FUTEX_OP_ANDN" },
	{ 4, "FUTEX_OP_XOR" },
};
const struct xlat gt_xlat_futex_wake_ops = XLAT_TABLE(wake_ops, NULL, "FUTEX_OP_???");

static const struct xlat_entry wake_cmps[] = {
	{ 0, "FUTEX_OP_CMP_EQ" },
	{ 1, "FUTEX_OP_CMP_NE" },
	{ 2, "FUTEX_OP_CMP_LT" },
	{ 3, "FUTEX_OP_CMP_LE" },
	{ 4, "FUTEX_OP_CMP_GT" },
	{ 5, "FUTEX_OP_CMP_GE" },
};
const struct xlat gt_xlat_futex_wake_cmps = XLAT_TABLE(wake_cmps, NULL, "FUTEX_OP_CMP_???");
