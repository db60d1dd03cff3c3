// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The capture table: for each syscall, the arguments whose user memory is
 * recorded, and how (gtsc_syscalls.h).  One row per syscall, by x86-64
 * number; the BPF side only reads it.  Left out on purpose: iovec and
 * msghdr calls (readv/writev, sendmsg/recvmsg), whose buffers are lists,
 * ioctl/fcntl, whose argument types depend on the command, and futex's
 * timeout: futex is the hottest call there is, and its fourth argument is
 * a pointer for a few commands only.
 */
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "syscall_capture.h"

#ifndef __x86_64__
#error "the capture table holds x86-64 syscall numbers: add this architecture's"
#endif
#ifndef __NR_fchmodat2
#define __NR_fchmodat2 452 /* Linux 6.6; older <asm/unistd.h> lack it */
#endif

#define PATH(a) { GTSC_CAP_PATH, a, 0, 0 }
#define STRV(a) { GTSC_CAP_STRV, a, 0, 0 }
#define IN_BUF(a, len) { GTSC_CAP_IN_BUF, a, len, 0 }
#define IN_SA(a, len) { GTSC_CAP_IN_SOCKADDR, a, len, 0 }
#define OUT_BUF(a) { GTSC_CAP_OUT_BUF, a, 0, 0 }
#define OUT_STR(a) { GTSC_CAP_OUT_STR, a, 0, 0 }
#define OUT_SA(a, lenp) { GTSC_CAP_OUT_SOCKADDR, a, lenp, 0 }
#define IN_FIXED(a, size) { GTSC_CAP_IN_FIXED, a, 0, 0, size }
#define OUT_FIXED(a, size) { GTSC_CAP_OUT_FIXED, a, 0, 0, size }

/* x86-64 kernel layouts, as syscall_print.c decodes them. */
#define STAT_SZ 144	  /* struct stat */
#define SIGACTION_SZ 32 /* the kernel's struct sigaction: handler, flags, restorer, mask */
#define SIGSET_SZ 8
#define TIMESPEC_SZ 16
#define RLIMIT_SZ 16
#define CLONE_ARGS_SZ 64 /* CLONE_ARGS_SIZE_VER0: the fields strace shows */
#define INT_SZ 4
#define SOCKLEN(a) IN_FIXED(a, INT_SZ), OUT_FIXED(a, INT_SZ) /* value-result: both ends */

struct cap_row {
	int nr;
	__u32 flags; /* enum gtsc_cap_flags */
	struct gtsc_cap_spec spec[GTSC_CAP_SPECS];
};

static const struct cap_row rows[] = {
	/* data, up to -s */
	{ __NR_read, 0, { OUT_BUF(1) } },
	{ __NR_write, 0, { IN_BUF(1, 2) } },
	{ __NR_pread64, 0, { OUT_BUF(1) } },
	{ __NR_pwrite64, 0, { IN_BUF(1, 2) } },
	{ __NR_getrandom, 0, { OUT_BUF(0) } },
	/* sockets */
	{ __NR_connect, 0, { IN_SA(1, 2) } },
	{ __NR_bind, 0, { IN_SA(1, 2) } },
	{ __NR_accept, 0, { OUT_SA(1, 2), SOCKLEN(2) } },
	{ __NR_accept4, 0, { OUT_SA(1, 2), SOCKLEN(2) } },
	{ __NR_getsockname, 0, { OUT_SA(1, 2), SOCKLEN(2) } },
	{ __NR_getpeername, 0, { OUT_SA(1, 2), SOCKLEN(2) } },
	{ __NR_sendto, 0, { IN_BUF(1, 2), IN_SA(4, 5) } },
	{ __NR_recvfrom, 0, { OUT_BUF(1), OUT_SA(4, 5), SOCKLEN(5) } },
	{ __NR_setsockopt, 0, { IN_BUF(3, 4) } },
	{ __NR_socketpair, 0, { OUT_FIXED(3, 2 * INT_SZ) } },
	/* structs: what strace shows of them */
	{ __NR_fstat, 0, { OUT_FIXED(1, STAT_SZ) } },
	{ __NR_pipe, 0, { OUT_FIXED(0, 2 * INT_SZ) } },
	{ __NR_pipe2, 0, { OUT_FIXED(0, 2 * INT_SZ) } },
	{ __NR_wait4, 0, { OUT_FIXED(1, INT_SZ) } },
	{ __NR_rt_sigaction, 0, { IN_FIXED(1, SIGACTION_SZ), OUT_FIXED(2, SIGACTION_SZ) } },
	{ __NR_rt_sigprocmask, 0, { IN_FIXED(1, SIGSET_SZ), OUT_FIXED(2, SIGSET_SZ) } },
	{ __NR_rt_sigpending, 0, { OUT_FIXED(0, SIGSET_SZ) } },
	{ __NR_rt_sigsuspend, 0, { IN_FIXED(0, SIGSET_SZ) } },
	{ __NR_signalfd4, 0, { IN_FIXED(1, SIGSET_SZ) } },
	{ __NR_ppoll, 0, { IN_FIXED(2, TIMESPEC_SZ), IN_FIXED(3, SIGSET_SZ) } },
	{ __NR_epoll_pwait, 0, { IN_FIXED(4, SIGSET_SZ) } },
	{ __NR_nanosleep, 0, { IN_FIXED(0, TIMESPEC_SZ) } },
	{ __NR_clock_nanosleep, 0, { IN_FIXED(2, TIMESPEC_SZ) } },
	{ __NR_clock_gettime, 0, { OUT_FIXED(1, TIMESPEC_SZ) } },
	{ __NR_getrlimit, 0, { OUT_FIXED(1, RLIMIT_SZ) } },
	{ __NR_setrlimit, 0, { IN_FIXED(1, RLIMIT_SZ) } },
	{ __NR_prlimit64, 0, { IN_FIXED(2, RLIMIT_SZ), OUT_FIXED(3, RLIMIT_SZ) } },
	{ __NR_clone3, 0, { IN_FIXED(0, CLONE_ARGS_SZ) } },
	/* programs */
	{ __NR_execve, GTSC_CAP_F_NEWMM, { PATH(0), STRV(1) } },
	{ __NR_execveat, GTSC_CAP_F_NEWMM, { PATH(1), STRV(2) } },
	/* paths */
	{ __NR_open, 0, { PATH(0) } },
	{ __NR_creat, 0, { PATH(0) } },
	{ __NR_openat, 0, { PATH(1) } },
	{ __NR_openat2, 0, { PATH(1) } },
	{ __NR_stat, 0, { PATH(0), OUT_FIXED(1, STAT_SZ) } },
	{ __NR_lstat, 0, { PATH(0), OUT_FIXED(1, STAT_SZ) } },
	{ __NR_newfstatat, 0, { PATH(1), OUT_FIXED(2, STAT_SZ) } },
	{ __NR_statx, 0, { PATH(1) } },
	{ __NR_statfs, 0, { PATH(0) } },
	{ __NR_access, 0, { PATH(0) } },
	{ __NR_faccessat, 0, { PATH(1) } },
	{ __NR_faccessat2, 0, { PATH(1) } },
	{ __NR_readlink, 0, { PATH(0), OUT_STR(1) } },
	{ __NR_readlinkat, 0, { PATH(1), OUT_STR(2) } },
	{ __NR_unlink, 0, { PATH(0) } },
	{ __NR_unlinkat, 0, { PATH(1) } },
	{ __NR_rename, 0, { PATH(0), PATH(1) } },
	{ __NR_renameat, 0, { PATH(1), PATH(3) } },
	{ __NR_renameat2, 0, { PATH(1), PATH(3) } },
	{ __NR_mkdir, 0, { PATH(0) } },
	{ __NR_mkdirat, 0, { PATH(1) } },
	{ __NR_rmdir, 0, { PATH(0) } },
	{ __NR_mknod, 0, { PATH(0) } },
	{ __NR_mknodat, 0, { PATH(1) } },
	{ __NR_link, 0, { PATH(0), PATH(1) } },
	{ __NR_linkat, 0, { PATH(1), PATH(3) } },
	{ __NR_symlink, 0, { PATH(0), PATH(1) } },
	{ __NR_symlinkat, 0, { PATH(0), PATH(2) } },
	{ __NR_chdir, 0, { PATH(0) } },
	{ __NR_chroot, 0, { PATH(0) } },
	{ __NR_pivot_root, 0, { PATH(0), PATH(1) } },
	{ __NR_chmod, 0, { PATH(0) } },
	{ __NR_fchmodat, 0, { PATH(1) } },
	{ __NR_fchmodat2, 0, { PATH(1) } },
	{ __NR_chown, 0, { PATH(0) } },
	{ __NR_lchown, 0, { PATH(0) } },
	{ __NR_fchownat, 0, { PATH(1) } },
	{ __NR_truncate, 0, { PATH(0) } },
	{ __NR_utime, 0, { PATH(0) } },
	{ __NR_utimes, 0, { PATH(0) } },
	{ __NR_futimesat, 0, { PATH(1) } },
	{ __NR_utimensat, 0, { PATH(1) } },
	{ __NR_mount, 0, { PATH(0), PATH(1), PATH(2) } }, /* source, target, fstype */
	{ __NR_umount2, 0, { PATH(0) } },
	{ __NR_swapon, 0, { PATH(0) } },
	{ __NR_swapoff, 0, { PATH(0) } },
	{ __NR_acct, 0, { PATH(0) } },
	{ __NR_uselib, 0, { PATH(0) } },
	{ __NR_inotify_add_watch, 0, { PATH(1) } },
	{ __NR_name_to_handle_at, 0, { PATH(1) } },
	{ __NR_open_tree, 0, { PATH(1) } },
	{ __NR_move_mount, 0, { PATH(1), PATH(3) } },
	{ __NR_fspick, 0, { PATH(1) } },
	{ __NR_mount_setattr, 0, { PATH(1) } },
	/* other strings: xattr names, fs types, object names */
	{ __NR_setxattr, 0, { PATH(0), PATH(1) } },
	{ __NR_lsetxattr, 0, { PATH(0), PATH(1) } },
	{ __NR_fsetxattr, 0, { PATH(1) } },
	{ __NR_getxattr, 0, { PATH(0), PATH(1) } },
	{ __NR_lgetxattr, 0, { PATH(0), PATH(1) } },
	{ __NR_fgetxattr, 0, { PATH(1) } },
	{ __NR_listxattr, 0, { PATH(0) } },
	{ __NR_llistxattr, 0, { PATH(0) } },
	{ __NR_removexattr, 0, { PATH(0), PATH(1) } },
	{ __NR_lremovexattr, 0, { PATH(0), PATH(1) } },
	{ __NR_fremovexattr, 0, { PATH(1) } },
	{ __NR_fsopen, 0, { PATH(0) } },
	{ __NR_memfd_create, 0, { PATH(0) } },
	{ __NR_mq_open, 0, { PATH(0) } },
	{ __NR_mq_unlink, 0, { PATH(0) } },
};

/* fchmodat2 is the highest number above. */
_Static_assert(__NR_fchmodat2 < GTSC_NR_SYSCALLS, "raise GTSC_NR_SYSCALLS");
_Static_assert(sizeof(struct stat) == STAT_SZ, "x86-64's struct stat is the kernel's");
_Static_assert(STAT_SZ <= GTSC_CAP_FIXED_MAX, "raise GTSC_CAP_FIXED_MAX");

/* Read at sys_exit. */
static bool is_out(__u8 how)
{
	switch (how) {
	case GTSC_CAP_OUT_BUF:
	case GTSC_CAP_OUT_STR:
	case GTSC_CAP_OUT_SOCKADDR:
	case GTSC_CAP_OUT_FIXED:
		return true;
	default:
		return false;
	}
}

/* Read at enter by syscalls.bpf.c's stack captures: all but argv's array of strings. */
static bool stack_in(__u8 how)
{
	return how != GTSC_CAP_STRV && !is_out(how);
}

/* Read at exit by them: a buffer whose length needs no read (a sockaddr's is in user memory). */
static bool stack_out(__u8 how)
{
	return how == GTSC_CAP_OUT_BUF || how == GTSC_CAP_OUT_STR || how == GTSC_CAP_OUT_FIXED;
}

/* GTSC_SYS_ENTER_ONE and GTSC_SYS_EXIT_ONE with its spec (gtsc_syscalls.h) for R. */
static __u8 stack_shapes(const struct cap_row *r)
{
	int enter = 0, out = 0, out_at = 0;
	__u8 f = 0;

	for (int s = 0; s < GTSC_CAP_SPECS && r->spec[s].how; s++) {
		if (is_out(r->spec[s].how)) {
			out++;
			out_at = s;
		} else {
			enter++;
		}
	}
	if (enter == 1 && stack_in(r->spec[0].how))
		f |= GTSC_SYS_ENTER_ONE;
	if (out == 1 && stack_out(r->spec[out_at].how))
		f |= GTSC_SYS_EXIT_ONE | out_at << GTSC_SYS_EXIT_SHIFT;
	return f;
}

void gt_capture__fill(struct gtsc_cap_set *cap, __u8 *nr_flags)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct cap_row *r = &rows[i];

		cap[r->nr].flags = r->flags;
		memcpy(cap[r->nr].spec, r->spec, sizeof(r->spec));
		for (int s = 0; s < GTSC_CAP_SPECS && r->spec[s].how; s++)
			nr_flags[r->nr] |= is_out(r->spec[s].how) ? GTSC_SYS_CAP_EXIT
								  : GTSC_SYS_CAP_ENTER;
		nr_flags[r->nr] |= stack_shapes(r);
	}
}
