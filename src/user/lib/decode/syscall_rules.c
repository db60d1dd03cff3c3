// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Which decoder each syscall argument gets (see syscall_rules.h): the
 * general rules by C type and name, then one row per syscall whose
 * arguments mean more than their C type says.  Argument indexes are the
 * kernel's (tracefs sys_enter_* order).  Rows need not be sorted.
 */
#include "syscall_rules.h"

/* Bump on any change that alters printed output; traces record it (decode_tables=N). */
const unsigned int gt_decode_tables_version = 2; /* 2: i386 names for compat calls */

#define IN(h) { .how = (h) }
#define OUT(h) { .how = (h), .out = 1 }
#define EN(t) { .how = D_ENUM, .x = &gt_xlat_##t }
#define FL(t) { .how = D_FLAGS, .x = &gt_xlat_##t }
#define AUTO { .how = D_AUTO }

/* First match wins; patterns are fnmatch(3)'s. */
const struct sd_type_rule gt_sd_type_rules[] = {
	{ NULL, "dfd", IN(D_DIRFD) },
	{ NULL, "*dfd", IN(D_DIRFD) },
	{ NULL, "dirfd", IN(D_DIRFD) },
	{ "*\\**", NULL, IN(D_PTR) },
	{ NULL, "fd", IN(D_FD) },
	{ NULL, "*fd", IN(D_FD) },
	{ NULL, "fd_*", IN(D_FD) },
	{ NULL, "fildes", IN(D_FD) },
	{ "umode_t", NULL, IN(D_OCT) },
	{ "uid_t", NULL, IN(D_UID) },
	{ "gid_t", NULL, IN(D_UID) },
	{ "qid_t", NULL, IN(D_UID) },
	{ "clockid_t", NULL, EN(clockid) },
	{ "unsigned long", "*addr", IN(D_PTR) },
	{ "unsigned long", "start", IN(D_PTR) },
	{ NULL, "*flags", IN(D_HEX) },
	{ NULL, "flag", IN(D_HEX) },
	{ "unsigned*", NULL, IN(D_UINT) },
	{ "size_t", NULL, IN(D_UINT) },
	{ "u[0-9]*", NULL, IN(D_UINT) },
	{ "__u[0-9]*", NULL, IN(D_UINT) },
	{ "int", NULL, IN(D_INT) },
	{ "long", NULL, IN(D_INT) },
	{ "pid_t", NULL, IN(D_INT) },
	{ "off_t", NULL, IN(D_INT) },
	{ "loff_t", NULL, IN(D_INT) },
	{ "ssize_t", NULL, IN(D_INT) },
	{ "timer_t", NULL, IN(D_INT) },
	{ "key_t", NULL, IN(D_INT) },
	{ "key_serial_t", NULL, IN(D_INT) },
	{ "mqd_t", NULL, IN(D_INT) },
	{ "s[0-9]*", NULL, IN(D_INT) },
	{ "__s[0-9]*", NULL, IN(D_INT) },
	{ NULL, NULL, IN(D_HEX) }, /* an unknown typedef */
};
const unsigned int gt_sd_nr_type_rules = sizeof(gt_sd_type_rules) / sizeof(gt_sd_type_rules[0]);

#define O_CREAT_ 0100
#define O_TMPFILE_ 020000000 /* __O_TMPFILE */

/* strace shows the mode only when the call uses it. */
static unsigned int shown_open(const __u64 *a)
{
	return a[1] & (O_CREAT_ | O_TMPFILE_) ? 07 : 03;
}

static unsigned int shown_openat(const __u64 *a)
{
	return a[2] & (O_CREAT_ | O_TMPFILE_) ? 017 : 07;
}

/* Commands that take no argument. */
static unsigned int shown_fcntl(const __u64 *a)
{
	switch ((__u32)a[1]) {
	case 1:	   /* F_GETFD */
	case 3:	   /* F_GETFL */
	case 9:	   /* F_GETOWN */
	case 11:   /* F_GETSIG */
	case 1025: /* F_GETLEASE */
	case 1032: /* F_GETPIPE_SZ */
	case 1034: /* F_GET_SEALS */
		return 03;
	default:
		return 07;
	}
}

/* Which of uaddr, op, val, timeout/val2, uaddr2, val3 each op uses. */
static unsigned int shown_futex(const __u64 *a)
{
	static const unsigned char used[] = {
		[0] = 017,  /* WAIT */
		[1] = 07,   /* WAKE */
		[2] = 07,   /* FD */
		[3] = 037,  /* REQUEUE */
		[4] = 077,  /* CMP_REQUEUE */
		[5] = 077,  /* WAKE_OP */
		[6] = 013,  /* LOCK_PI: no val */
		[7] = 03,   /* UNLOCK_PI */
		[8] = 03,   /* TRYLOCK_PI */
		[9] = 057,  /* WAIT_BITSET: no uaddr2 */
		[10] = 047, /* WAKE_BITSET */
		[11] = 037, /* WAIT_REQUEUE_PI */
		[12] = 077, /* CMP_REQUEUE_PI */
		[13] = 013, /* LOCK_PI2 */
	};
	unsigned int cmd = a[1] & XLAT_FUTEX_CMD_MASK;

	return cmd < sizeof(used) ? used[cmd] : 077;
}

static unsigned int shown_prctl(const __u64 *a)
{
	switch ((__u32)a[0]) {
	case 3:	 /* PR_GET_DUMPABLE */
	case 7:	 /* PR_GET_KEEPCAPS */
	case 13: /* PR_GET_TIMING */
	case 21: /* PR_GET_SECCOMP */
	case 27: /* PR_GET_SECUREBITS */
	case 30: /* PR_GET_TIMERSLACK */
	case 31: /* PR_TASK_PERF_EVENTS_DISABLE */
	case 32: /* PR_TASK_PERF_EVENTS_ENABLE */
	case 34: /* PR_MCE_KILL_GET */
	case 39: /* PR_GET_NO_NEW_PRIVS */
	case 42: /* PR_GET_THP_DISABLE */
	case 58: /* PR_GET_IO_FLUSHER */
		return 01;
	case 1:	 /* PR_SET_PDEATHSIG */
	case 2:	 /* PR_GET_PDEATHSIG */
	case 4:	 /* PR_SET_DUMPABLE */
	case 8:	 /* PR_SET_KEEPCAPS */
	case 15: /* PR_SET_NAME */
	case 16: /* PR_GET_NAME */
	case 23: /* PR_CAPBSET_READ */
	case 24: /* PR_CAPBSET_DROP */
	case 28: /* PR_SET_SECUREBITS */
	case 29: /* PR_SET_TIMERSLACK */
	case 36: /* PR_SET_CHILD_SUBREAPER */
	case 37: /* PR_GET_CHILD_SUBREAPER */
	case 40: /* PR_GET_TID_ADDRESS */
		return 03;
	default:
		return 037;
	}
}

#define CLONE_PIDFD_ 0x1000
#define CLONE_SETTLS_ 0x80000
#define CLONE_PARENT_SETTID_ 0x100000
#define CLONE_CHILD_CLEARTID_ 0x200000
#define CLONE_CHILD_SETTID_ 0x1000000

/* clone(flags, newsp, parent_tid, child_tid, tls): the tids and tls only when a flag uses them. */
static unsigned int shown_clone(const __u64 *a)
{
	unsigned int m = 03;

	if (a[0] & (CLONE_PARENT_SETTID_ | CLONE_PIDFD_))
		m |= 1 << 2;
	if (a[0] & (CLONE_CHILD_SETTID_ | CLONE_CHILD_CLEARTID_))
		m |= 1 << 3;
	if (a[0] & CLONE_SETTLS_)
		m |= 1 << 4;
	return m;
}

static const struct sd_layout clone_layout = {
	.order = { 1, 0, 2, 3, 4, -1 },
	.label = { "flags", "child_stack", "parent_tid", "child_tidptr", "tls" },
};

const struct sd_syscall_rule gt_sd_syscall_rules[] = {
	/* files */
	{ "read", { AUTO, OUT(D_PTR) } },
	{ "write", { AUTO, IN(D_PTR) } },
	{ "pread64", { AUTO, OUT(D_PTR) } },
	{ "pwrite64", { AUTO, IN(D_PTR) } },
	{ "open", { AUTO, IN(D_OPEN_FLAGS), IN(D_OCT) }, .shown = shown_open },
	{ "openat", { AUTO, AUTO, IN(D_OPEN_FLAGS), IN(D_OCT) }, .shown = shown_openat },
	{ "creat", { AUTO, IN(D_OCT) } },
	{ "close_range", { IN(D_FD), IN(D_FD), FL(close_range_flags) } },
	{ "lseek", { AUTO, AUTO, EN(whence) } },
	{ "stat", { AUTO, OUT(D_STAT) } },
	{ "lstat", { AUTO, OUT(D_STAT) } },
	{ "fstat", { AUTO, OUT(D_STAT) } },
	{ "newfstatat", { AUTO, AUTO, OUT(D_STAT), FL(at_flags) } },
	{ "statx", { AUTO, AUTO, FL(at_flags), FL(statx_mask), OUT(D_PTR) } },
	{ "access", { AUTO, FL(access_mode) } },
	{ "faccessat", { AUTO, AUTO, FL(access_mode) } },
	{ "faccessat2", { AUTO, AUTO, FL(access_mode), FL(at_flags) } },
	{ "mkdir", { AUTO, IN(D_OCT) } },
	{ "mknod", { AUTO, IN(D_FMODE), IN(D_HEX) } },
	{ "mknodat", { AUTO, AUTO, IN(D_FMODE), IN(D_HEX) } },
	{ "unlinkat", { AUTO, AUTO, FL(at_flags) } },
	{ "linkat", { AUTO, AUTO, AUTO, AUTO, FL(at_flags) } },
	{ "renameat2", { AUTO, AUTO, AUTO, AUTO, FL(rename_flags) } },
	{ "fchownat", { AUTO, AUTO, AUTO, AUTO, FL(at_flags) } },
	{ "fchmodat", { AUTO, AUTO, IN(D_OCT) } },
	{ "fchmodat2", { AUTO, AUTO, IN(D_OCT), FL(at_flags) } },
	{ "utimensat", { AUTO, AUTO, AUTO, FL(at_flags) } },
	{ "readlink", { AUTO, OUT(D_PTR) } },
	{ "readlinkat", { AUTO, AUTO, OUT(D_PTR) } },
	{ "getcwd", { OUT(D_PTR) } },
	{ "getdents64", { AUTO, OUT(D_PTR) } },
	{ "umask", { IN(D_OCT) }, .ret = R_OCT },
	{ "dup3", { AUTO, IN(D_FD), FL(open_flags) } },
	{ "pipe", { OUT(D_INTS) } },
	{ "pipe2", { OUT(D_INTS), FL(open_flags) } },
	{ "fcntl", { AUTO, EN(fcntl_cmd), IN(D_FCNTL_ARG) }, .ret = R_FCNTL, .shown = shown_fcntl },
	{ "flock", { AUTO, FL(flock_op) } },
	{ "ioctl", { AUTO, IN(D_IOCTL_CMD), IN(D_HEX) } },
	{ "memfd_create", { AUTO, FL(memfd_flags) } },
	{ "mount", { AUTO, AUTO, AUTO, FL(mount_flags) } },
	{ "umount2", { AUTO, FL(umount_flags) } },
	/* memory */
	{ "mmap", { IN(D_PTR), AUTO, FL(mmap_prot), IN(D_MMAP_FLAGS), IN(D_FD), IN(D_HEX) },
	  .ret = R_HEX },
	{ "mprotect", { IN(D_PTR), AUTO, FL(mmap_prot) } },
	{ "pkey_mprotect", { IN(D_PTR), AUTO, FL(mmap_prot) } },
	{ "munmap", { IN(D_PTR) } },
	{ "mremap", { IN(D_PTR), AUTO, AUTO, FL(mremap_flags), IN(D_PTR) }, .ret = R_HEX },
	{ "madvise", { IN(D_PTR), AUTO, EN(madvise) } },
	{ "msync", { IN(D_PTR), AUTO, FL(msync_flags) } },
	{ "mlock2", { IN(D_PTR), AUTO, FL(mlock_flags) } },
	{ "brk", { IN(D_PTR) }, .ret = R_HEX },
	{ "shmat", { AUTO, IN(D_PTR), IN(D_HEX) }, .ret = R_HEX },
	/* processes */
	{ "clone", { IN(D_CLONE_FLAGS), IN(D_PTR), OUT(D_PTR), IN(D_PTR), IN(D_HEX) },
	  .shown = shown_clone, .layout = &clone_layout },
	{ "clone3", { IN(D_CLONE_ARGS) } },
	{ "execve", { AUTO, IN(D_ARGV), IN(D_ENVP) } },
	{ "execveat", { AUTO, AUTO, IN(D_ARGV), IN(D_ENVP), FL(at_flags) } },
	{ "exit", { AUTO }, .ret = R_NONE },
	{ "exit_group", { AUTO }, .ret = R_NONE },
	{ "wait4", { AUTO, OUT(D_WSTATUS), FL(wait_options), OUT(D_PTR) } },
	{ "waitid", { EN(idtype), AUTO, OUT(D_PTR), FL(wait_options), OUT(D_PTR) } },
	{ "prctl", { EN(prctl_option), IN(D_PRCTL_ARG2) }, .ret = R_PRCTL, .shown = shown_prctl },
	{ "arch_prctl", { EN(arch_prctl_code), IN(D_HEX) } },
	{ "set_tid_address", { IN(D_PTR) } },
	{ "rseq", { IN(D_PTR), IN(D_HEX), AUTO, IN(D_HEX) } },
	{ "getrlimit", { EN(rlimit), OUT(D_RLIMIT) } },
	{ "setrlimit", { EN(rlimit), IN(D_RLIMIT) } },
	{ "prlimit64", { AUTO, EN(rlimit), IN(D_RLIMIT), OUT(D_RLIMIT) } },
	{ "getrusage", { EN(rusage_who), OUT(D_PTR) } },
	{ "getpriority", { EN(priority_which) } },
	{ "setpriority", { EN(priority_which) } },
	{ "sched_setscheduler", { AUTO, EN(sched_policy) } },
	{ "getrandom", { OUT(D_HEXBUF), AUTO, FL(getrandom_flags) } },
	/* signals */
	{ "kill", { AUTO, IN(D_SIGNAL) } },
	{ "tkill", { AUTO, IN(D_SIGNAL) } },
	{ "tgkill", { AUTO, AUTO, IN(D_SIGNAL) } },
	{ "rt_sigaction", { IN(D_SIGNAL), IN(D_SIGACTION), OUT(D_SIGACTION) } },
	{ "rt_sigprocmask", { EN(sigprocmask_how), IN(D_SIGSET), OUT(D_SIGSET) } },
	{ "rt_sigpending", { OUT(D_SIGSET) } },
	{ "rt_sigsuspend", { IN(D_SIGSET) } },
	{ "rt_sigqueueinfo", { AUTO, IN(D_SIGNAL) } },
	{ "rt_tgsigqueueinfo", { AUTO, AUTO, IN(D_SIGNAL) } },
	{ "pidfd_send_signal", { AUTO, IN(D_SIGNAL), AUTO, IN(D_HEX) } },
	/* sockets */
	{ "socket", { EN(address_family), IN(D_SOCK_TYPE), IN(D_SOCK_PROTO) } },
	{ "socketpair", { EN(address_family), IN(D_SOCK_TYPE), IN(D_SOCK_PROTO), OUT(D_INTS) } },
	{ "accept", { AUTO, OUT(D_PTR), OUT(D_SOCKLEN) } },
	{ "accept4", { AUTO, OUT(D_PTR), OUT(D_SOCKLEN), FL(socket_flags) } },
	{ "getsockname", { AUTO, OUT(D_PTR), OUT(D_SOCKLEN) } },
	{ "getpeername", { AUTO, OUT(D_PTR), OUT(D_SOCKLEN) } },
	{ "setsockopt", { AUTO, EN(sockopt_level), IN(D_SOCKOPT), IN(D_SOCKOPT_VAL) } },
	{ "getsockopt", { AUTO, EN(sockopt_level), IN(D_SOCKOPT), OUT(D_INTS), OUT(D_INTS) } },
	{ "sendto", { AUTO, IN(D_PTR), AUTO, FL(msg_flags) } },
	{ "recvfrom", { AUTO, OUT(D_PTR), AUTO, FL(msg_flags), OUT(D_PTR), OUT(D_SOCKLEN) } },
	{ "sendmsg", { AUTO, AUTO, FL(msg_flags) } },
	{ "recvmsg", { AUTO, OUT(D_PTR), FL(msg_flags) } },
	{ "sendmmsg", { AUTO, AUTO, AUTO, FL(msg_flags) } },
	{ "recvmmsg", { AUTO, OUT(D_PTR), AUTO, FL(msg_flags) } },
	{ "shutdown", { AUTO, EN(shutdown_how) } },
	/* waiting */
	{ "futex", { IN(D_PTR), IN(D_FUTEX_OP), IN(D_UINT), IN(D_FUTEX_ARG3), IN(D_PTR),
		     IN(D_FUTEX_VAL3) },
	  .shown = shown_futex },
	{ "poll", { IN(D_POLLFDS) } },
	{ "ppoll", { IN(D_POLLFDS), AUTO, IN(D_TIMESPEC), IN(D_SIGSET) } },
	{ "epoll_create1", { FL(epoll_create_flags) } },
	{ "epoll_ctl", { AUTO, EN(epoll_ctl_op) } },
	{ "epoll_wait", { AUTO, OUT(D_PTR) } },
	{ "epoll_pwait", { AUTO, OUT(D_PTR), AUTO, AUTO, IN(D_SIGSET) } },
	{ "eventfd2", { AUTO, FL(eventfd_flags) } },
	{ "timerfd_create", { EN(clockid), FL(timerfd_flags) } },
	{ "timerfd_settime", { AUTO, FL(timerfd_flags) } },
	{ "inotify_init1", { FL(inotify_init_flags) } },
	{ "signalfd4", { AUTO, IN(D_SIGSET), AUTO, FL(open_flags) } },
	{ "nanosleep", { IN(D_TIMESPEC), OUT(D_PTR) } },
	{ "clock_nanosleep", { AUTO, FL(timer_flags), IN(D_TIMESPEC), OUT(D_PTR) } },
	{ "clock_gettime", { AUTO, OUT(D_TIMESPEC) } },
	{ "getitimer", { EN(itimer_which), OUT(D_PTR) } },
	{ "setitimer", { EN(itimer_which) } },
};
const unsigned int gt_sd_nr_syscall_rules = sizeof(gt_sd_syscall_rules) / sizeof(gt_sd_syscall_rules[0]);
