// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* File types and special mode bits (struct stat's st_mode, mknod), statx masks. */
#include "xlat.h"

static const struct xlat_entry file_type[] = {
	{ 0140000, "S_IFSOCK" },
	{ 0120000, "S_IFLNK" },
	{ 0100000, "S_IFREG" },
	{ 060000, "S_IFBLK" },
	{ 040000, "S_IFDIR" },
	{ 020000, "S_IFCHR" },
	{ 010000, "S_IFIFO" },
};
const struct xlat gt_xlat_file_type = XLAT_TABLE(file_type, NULL, NULL);

static const struct xlat_entry mode_bits[] = {
	{ 04000, "S_ISUID" },
	{ 02000, "S_ISGID" },
	{ 01000, "S_ISVTX" },
};
const struct xlat gt_xlat_mode_bits = XLAT_TABLE(mode_bits, NULL, NULL);

static const struct xlat_entry statx_mask[] = {
	{ 0x7ff, "STATX_BASIC_STATS" },
	{ 0x1, "STATX_TYPE" },
	{ 0x2, "STATX_MODE" },
	{ 0x4, "STATX_NLINK" },
	{ 0x8, "STATX_UID" },
	{ 0x10, "STATX_GID" },
	{ 0x20, "STATX_ATIME" },
	{ 0x40, "STATX_MTIME" },
	{ 0x80, "STATX_CTIME" },
	{ 0x100, "STATX_INO" },
	{ 0x200, "STATX_SIZE" },
	{ 0x400, "STATX_BLOCKS" },
	{ 0x800, "STATX_BTIME" },
	{ 0x1000, "STATX_MNT_ID" },
	{ 0x2000, "STATX_DIOALIGN" },
	{ 0x4000, "STATX_MNT_ID_UNIQUE" },
	{ 0x8000, "STATX_SUBVOL" },
	{ 0x10000, "STATX_WRITE_ATOMIC" },
	{ 0x20000, "STATX_DIO_READ_ALIGN" },
};
const struct xlat gt_xlat_statx_mask = XLAT_TABLE(statx_mask, NULL, NULL);
