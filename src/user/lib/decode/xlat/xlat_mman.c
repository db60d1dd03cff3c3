// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* mmap, mprotect, madvise, mremap, msync, mlock2. */
#include "xlat.h"

static const struct xlat_entry prot[] = {
	{ 0x1, "PROT_READ" },
	{ 0x2, "PROT_WRITE" },
	{ 0x4, "PROT_EXEC" },
	{ 0x8, "PROT_SEM" },
	{ 0x01000000, "PROT_GROWSDOWN" },
	{ 0x02000000, "PROT_GROWSUP" },
};
const struct xlat gt_xlat_mmap_prot = XLAT_TABLE(prot, "PROT_NONE", NULL);

/* The MAP_TYPE bits (0x0f): one of these, then the flags. */
static const struct xlat_entry map_type[] = {
	{ 0x01, "MAP_SHARED" },
	{ 0x02, "MAP_PRIVATE" },
	{ 0x03, "MAP_SHARED_VALIDATE" },
};
const struct xlat gt_xlat_mmap_type = XLAT_TABLE(map_type, NULL, NULL);

static const struct xlat_entry map_flags[] = {
	{ 0x10, "MAP_FIXED" },
	{ 0x20, "MAP_ANONYMOUS" },
	{ 0x40, "MAP_32BIT" },
	{ 0x100, "MAP_GROWSDOWN" },
	{ 0x800, "MAP_DENYWRITE" },
	{ 0x1000, "MAP_EXECUTABLE" },
	{ 0x2000, "MAP_LOCKED" },
	{ 0x4000, "MAP_NORESERVE" },
	{ 0x8000, "MAP_POPULATE" },
	{ 0x10000, "MAP_NONBLOCK" },
	{ 0x20000, "MAP_STACK" },
	{ 0x40000, "MAP_HUGETLB" },
	{ 0x80000, "MAP_SYNC" },
	{ 0x100000, "MAP_FIXED_NOREPLACE" },
	{ 0x4000000, "MAP_UNINITIALIZED" },
};
const struct xlat gt_xlat_mmap_flags = XLAT_TABLE(map_flags, NULL, NULL);

static const struct xlat_entry madvise[] = {
	{ 0, "MADV_NORMAL" },
	{ 1, "MADV_RANDOM" },
	{ 2, "MADV_SEQUENTIAL" },
	{ 3, "MADV_WILLNEED" },
	{ 4, "MADV_DONTNEED" },
	{ 8, "MADV_FREE" },
	{ 9, "MADV_REMOVE" },
	{ 10, "MADV_DONTFORK" },
	{ 11, "MADV_DOFORK" },
	{ 12, "MADV_MERGEABLE" },
	{ 13, "MADV_UNMERGEABLE" },
	{ 14, "MADV_HUGEPAGE" },
	{ 15, "MADV_NOHUGEPAGE" },
	{ 16, "MADV_DONTDUMP" },
	{ 17, "MADV_DODUMP" },
	{ 18, "MADV_WIPEONFORK" },
	{ 19, "MADV_KEEPONFORK" },
	{ 20, "MADV_COLD" },
	{ 21, "MADV_PAGEOUT" },
	{ 22, "MADV_POPULATE_READ" },
	{ 23, "MADV_POPULATE_WRITE" },
	{ 24, "MADV_DONTNEED_LOCKED" },
	{ 25, "MADV_COLLAPSE" },
	{ 100, "MADV_HWPOISON" },
	{ 101, "MADV_SOFT_OFFLINE" },
	{ 102, "MADV_GUARD_INSTALL" },
	{ 103, "MADV_GUARD_REMOVE" },
};
const struct xlat gt_xlat_madvise = XLAT_TABLE(madvise, NULL, "MADV_???");

static const struct xlat_entry mremap_flags[] = {
	{ 1, "MREMAP_MAYMOVE" },
	{ 2, "MREMAP_FIXED" },
	{ 4, "MREMAP_DONTUNMAP" },
};
const struct xlat gt_xlat_mremap_flags = XLAT_TABLE(mremap_flags, NULL, NULL);

static const struct xlat_entry msync_flags[] = {
	{ 1, "MS_ASYNC" },
	{ 2, "MS_INVALIDATE" },
	{ 4, "MS_SYNC" },
};
const struct xlat gt_xlat_msync_flags = XLAT_TABLE(msync_flags, NULL, NULL);

static const struct xlat_entry mlock_flags[] = {
	{ 1, "MLOCK_ONFAULT" },
};
const struct xlat gt_xlat_mlock_flags = XLAT_TABLE(mlock_flags, NULL, NULL);
