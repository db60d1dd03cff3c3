// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Calls with one small table each: getrandom, memfd_create, mount/umount2, sched_setscheduler. */
#include "xlat.h"

static const struct xlat_entry getrandom_flags[] = {
	{ 1, "GRND_NONBLOCK" },
	{ 2, "GRND_RANDOM" },
	{ 4, "GRND_INSECURE" },
};
const struct xlat gt_xlat_getrandom_flags = XLAT_TABLE(getrandom_flags, NULL, NULL);

static const struct xlat_entry memfd_flags[] = {
	{ 1, "MFD_CLOEXEC" },
	{ 2, "MFD_ALLOW_SEALING" },
	{ 4, "MFD_HUGETLB" },
	{ 8, "MFD_NOEXEC_SEAL" },
	{ 0x10, "MFD_EXEC" },
};
const struct xlat gt_xlat_memfd_flags = XLAT_TABLE(memfd_flags, NULL, NULL);

static const struct xlat_entry mount_flags[] = {
	{ 1, "MS_RDONLY" },
	{ 2, "MS_NOSUID" },
	{ 4, "MS_NODEV" },
	{ 8, "MS_NOEXEC" },
	{ 16, "MS_SYNCHRONOUS" },
	{ 32, "MS_REMOUNT" },
	{ 64, "MS_MANDLOCK" },
	{ 128, "MS_DIRSYNC" },
	{ 256, "MS_NOSYMFOLLOW" },
	{ 1024, "MS_NOATIME" },
	{ 2048, "MS_NODIRATIME" },
	{ 4096, "MS_BIND" },
	{ 8192, "MS_MOVE" },
	{ 16384, "MS_REC" },
	{ 32768, "MS_SILENT" },
	{ 1 << 16, "MS_POSIXACL" },
	{ 1 << 17, "MS_UNBINDABLE" },
	{ 1 << 18, "MS_PRIVATE" },
	{ 1 << 19, "MS_SLAVE" },
	{ 1 << 20, "MS_SHARED" },
	{ 1 << 21, "MS_RELATIME" },
	{ 1 << 22, "MS_KERNMOUNT" },
	{ 1 << 23, "MS_I_VERSION" },
	{ 1 << 24, "MS_STRICTATIME" },
	{ 1 << 25, "MS_LAZYTIME" },
};
const struct xlat gt_xlat_mount_flags = XLAT_TABLE(mount_flags, NULL, NULL);

static const struct xlat_entry umount_flags[] = {
	{ 1, "MNT_FORCE" },
	{ 2, "MNT_DETACH" },
	{ 4, "MNT_EXPIRE" },
	{ 8, "UMOUNT_NOFOLLOW" },
};
const struct xlat gt_xlat_umount_flags = XLAT_TABLE(umount_flags, NULL, NULL);

static const struct xlat_entry sched_policy[] = {
	{ 0, "SCHED_OTHER" },
	{ 1, "SCHED_FIFO" },
	{ 2, "SCHED_RR" },
	{ 3, "SCHED_BATCH" },
	{ 5, "SCHED_IDLE" },
	{ 6, "SCHED_DEADLINE" },
	{ 7, "SCHED_EXT" },
};
const struct xlat gt_xlat_sched_policy = XLAT_TABLE(sched_policy, NULL, "SCHED_???");
