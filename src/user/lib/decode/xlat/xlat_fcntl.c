// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* fcntl commands and what their argument means; flock. */
#include "xlat.h"

static const struct xlat_entry fcntl_cmd[] = {
	{ 0, "F_DUPFD" },
	{ 1, "F_GETFD" },
	{ 2, "F_SETFD" },
	{ 3, "F_GETFL" },
	{ 4, "F_SETFL" },
	{ 5, "F_GETLK" },
	{ 6, "F_SETLK" },
	{ 7, "F_SETLKW" },
	{ 8, "F_SETOWN" },
	{ 9, "F_GETOWN" },
	{ 10, "F_SETSIG" },
	{ 11, "F_GETSIG" },
	{ 15, "F_SETOWN_EX" },
	{ 16, "F_GETOWN_EX" },
	{ 17, "F_GETOWNER_UIDS" },
	{ 36, "F_OFD_GETLK" },
	{ 37, "F_OFD_SETLK" },
	{ 38, "F_OFD_SETLKW" },
	{ 1024, "F_SETLEASE" },
	{ 1025, "F_GETLEASE" },
	{ 1026, "F_NOTIFY" },
	{ 1027, "F_DUPFD_QUERY" },
	{ 1028, "F_CREATED_QUERY" },
	{ 1029, "F_CANCELLK" },
	{ 1030, "F_DUPFD_CLOEXEC" },
	{ 1031, "F_SETPIPE_SZ" },
	{ 1032, "F_GETPIPE_SZ" },
	{ 1033, "F_ADD_SEALS" },
	{ 1034, "F_GET_SEALS" },
	{ 1035, "F_GET_RW_HINT" },
	{ 1036, "F_SET_RW_HINT" },
	{ 1037, "F_GET_FILE_RW_HINT" },
	{ 1038, "F_SET_FILE_RW_HINT" },
};
const struct xlat gt_xlat_fcntl_cmd = XLAT_TABLE(fcntl_cmd, NULL, "F_???");

static const struct xlat_entry fd_flags[] = {
	{ 1, "FD_CLOEXEC" },
};
const struct xlat gt_xlat_fd_flags = XLAT_TABLE(fd_flags, NULL, NULL);

static const struct xlat_entry lease_type[] = {
	{ 0, "F_RDLCK" },
	{ 1, "F_WRLCK" },
	{ 2, "F_UNLCK" },
};
const struct xlat gt_xlat_lease_type = XLAT_TABLE(lease_type, NULL, "F_???");

static const struct xlat_entry notify_flags[] = {
	{ 0x1, "DN_ACCESS" },
	{ 0x2, "DN_MODIFY" },
	{ 0x4, "DN_CREATE" },
	{ 0x8, "DN_DELETE" },
	{ 0x10, "DN_RENAME" },
	{ 0x20, "DN_ATTRIB" },
	{ 0x80000000, "DN_MULTISHOT" },
};
const struct xlat gt_xlat_notify_flags = XLAT_TABLE(notify_flags, NULL, NULL);

static const struct xlat_entry seals[] = {
	{ 0x1, "F_SEAL_SEAL" },
	{ 0x2, "F_SEAL_SHRINK" },
	{ 0x4, "F_SEAL_GROW" },
	{ 0x8, "F_SEAL_WRITE" },
	{ 0x10, "F_SEAL_FUTURE_WRITE" },
	{ 0x20, "F_SEAL_EXEC" },
};
const struct xlat gt_xlat_seals = XLAT_TABLE(seals, NULL, NULL);

static const struct xlat_entry flock_op[] = {
	{ 1, "LOCK_SH" },
	{ 2, "LOCK_EX" },
	{ 4, "LOCK_NB" },
	{ 8, "LOCK_UN" },
	{ 32, "LOCK_MAND" },
};
const struct xlat gt_xlat_flock_op = XLAT_TABLE(flock_op, NULL, NULL);
