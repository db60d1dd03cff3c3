// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* open/openat flags and access modes, AT_* flags, access(2) modes, rename and close_range flags. */
#include "xlat.h"

static const struct xlat_entry open_access[] = {
	{ 0, "O_RDONLY" },
	{ 1, "O_WRONLY" },
	{ 2, "O_RDWR" },
};
const struct xlat gt_xlat_open_access = XLAT_TABLE(open_access, NULL, NULL);

/* Octal, as in <asm-generic/fcntl.h>; strace's order. */
static const struct xlat_entry open_flags[] = {
	{ 0100, "O_CREAT" },
	{ 0200, "O_EXCL" },
	{ 0400, "O_NOCTTY" },
	{ 01000, "O_TRUNC" },
	{ 02000, "O_APPEND" },
	{ 04000, "O_NONBLOCK" },
	{ 04010000, "O_SYNC" }, /* __O_SYNC|O_DSYNC */
	{ 010000, "O_DSYNC" },
	{ 020000, "O_ASYNC" },
	{ 040000, "O_DIRECT" },
	{ 0100000, "O_LARGEFILE" },
	{ 020200000, "O_TMPFILE" }, /* __O_TMPFILE|O_DIRECTORY */
	{ 0200000, "O_DIRECTORY" },
	{ 0400000, "O_NOFOLLOW" },
	{ 01000000, "O_NOATIME" },
	{ 02000000, "O_CLOEXEC" },
	{ 010000000, "O_PATH" },
};
const struct xlat gt_xlat_open_flags = XLAT_TABLE(open_flags, NULL, NULL);

static const struct xlat_entry at_flags[] = {
	{ 0x100, "AT_SYMLINK_NOFOLLOW" },
	{ 0x200, "AT_REMOVEDIR" }, /* also AT_EACCESS for faccessat2 */
	{ 0x400, "AT_SYMLINK_FOLLOW" },
	{ 0x800, "AT_NO_AUTOMOUNT" },
	{ 0x1000, "AT_EMPTY_PATH" },
	{ 0x2000, "AT_STATX_FORCE_SYNC" },
	{ 0x4000, "AT_STATX_DONT_SYNC" },
	{ 0x8000, "AT_RECURSIVE" },
};
const struct xlat gt_xlat_at_flags = XLAT_TABLE(at_flags, NULL, NULL);

static const struct xlat_entry access_mode[] = {
	{ 4, "R_OK" },
	{ 2, "W_OK" },
	{ 1, "X_OK" },
};
const struct xlat gt_xlat_access_mode = XLAT_TABLE(access_mode, "F_OK", NULL);

static const struct xlat_entry rename_flags[] = {
	{ 1, "RENAME_NOREPLACE" },
	{ 2, "RENAME_EXCHANGE" },
	{ 4, "RENAME_WHITEOUT" },
};
const struct xlat gt_xlat_rename_flags = XLAT_TABLE(rename_flags, NULL, NULL);

static const struct xlat_entry close_range_flags[] = {
	{ 1u << 1, "CLOSE_RANGE_UNSHARE" },
	{ 1u << 2, "CLOSE_RANGE_CLOEXEC" },
};
const struct xlat gt_xlat_close_range_flags = XLAT_TABLE(close_range_flags, NULL, NULL);
