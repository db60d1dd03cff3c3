/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Value -> name tables for decoding syscall arguments at report time, one
 * source file per family (xlat_open.c, xlat_mman.c, ...).  They are const
 * data: adding a name is adding a row.  Values are the x86-64 Linux ABI's.
 *
 * A table is printed either as an enum (one name per value; an unknown value
 * prints as hex with a comment naming the family, as strace does) or as flags
 * (every entry whose bits are all set, in table order, then any unknown bits
 * as hex: O_RDONLY|0x800000).  Entries covering several bits (O_SYNC) must
 * come before their parts (O_DSYNC).
 *
 * Any change of a printed name bumps gt_decode_tables_version (syscall_rules.c),
 * which traces record and reports show, so that output differences between
 * versions are explained.
 */
#ifndef __GTSC_XLAT_H
#define __GTSC_XLAT_H

#include <stddef.h>
#include <linux/types.h>

struct xlat_entry {
	__u64 val;
	const char *name;
};

struct xlat {
	const struct xlat_entry *e;
	unsigned int n;
	const char *zero;    /* flags: the name printed for 0 ("0" when NULL) */
	const char *unknown; /* enums: comment for an unknown value ("F_???") */
};

#define XLAT_E(c) { (__u64)(c), #c }
#define XLAT_COUNT(a) ((unsigned int)(sizeof(a) / sizeof((a)[0])))
/* const struct xlat NAME = XLAT_TABLE(entries, zero, unknown); */
#define XLAT_TABLE(a, z, u) { .e = (a), .n = XLAT_COUNT(a), .zero = (z), .unknown = (u) }

/* Name of V in an enum table, NULL if none. */
const char *gt_xlat_name(const struct xlat *x, __u64 v);

/* xlat_open.c */
extern const struct xlat gt_xlat_open_access; /* O_RDONLY, O_WRONLY, O_RDWR */
extern const struct xlat gt_xlat_open_flags;  /* O_CREAT ... without the access mode */
extern const struct xlat gt_xlat_at_flags;	   /* AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH ... */
extern const struct xlat gt_xlat_access_mode; /* R_OK|W_OK|X_OK, F_OK */
extern const struct xlat gt_xlat_rename_flags;
extern const struct xlat gt_xlat_close_range_flags;
#define XLAT_AT_FDCWD (-100)

/* xlat_mman.c */
extern const struct xlat gt_xlat_mmap_prot;
extern const struct xlat gt_xlat_mmap_type; /* MAP_SHARED, MAP_PRIVATE, MAP_SHARED_VALIDATE */
extern const struct xlat gt_xlat_mmap_flags;
extern const struct xlat gt_xlat_madvise;
extern const struct xlat gt_xlat_mremap_flags;
extern const struct xlat gt_xlat_msync_flags;
extern const struct xlat gt_xlat_mlock_flags;

/* xlat_clone.c */
extern const struct xlat gt_xlat_clone_flags; /* without CSIGNAL, the exit signal */

/* xlat_signal.c */
extern const struct xlat gt_xlat_signals; /* SIGHUP..SIGSYS; SIGRTMIN+n is computed */
extern const struct xlat gt_xlat_sigprocmask_how;
extern const struct xlat gt_xlat_sa_flags;

/* xlat_fcntl.c */
extern const struct xlat gt_xlat_fcntl_cmd;
extern const struct xlat gt_xlat_fd_flags; /* FD_CLOEXEC */
extern const struct xlat gt_xlat_lease_type;
extern const struct xlat gt_xlat_notify_flags;
extern const struct xlat gt_xlat_seals;
extern const struct xlat gt_xlat_flock_op;

/* xlat_socket.c */
extern const struct xlat gt_xlat_address_family;
extern const struct xlat gt_xlat_socket_type;  /* SOCK_STREAM ... */
extern const struct xlat gt_xlat_socket_flags; /* SOCK_NONBLOCK|SOCK_CLOEXEC */
extern const struct xlat gt_xlat_inet_proto;   /* IPPROTO_*, for AF_INET and AF_INET6 */
extern const struct xlat gt_xlat_netlink_proto;
extern const struct xlat gt_xlat_sockopt_level;
extern const struct xlat gt_xlat_sockopt_socket; /* SO_*, at SOL_SOCKET */
extern const struct xlat gt_xlat_sockopt_tcp;    /* TCP_*, at IPPROTO_TCP */
extern const struct xlat gt_xlat_sockopt_ip;     /* IP_*, at IPPROTO_IP */
extern const struct xlat gt_xlat_sockopt_ipv6;   /* IPV6_*, at IPPROTO_IPV6 */
extern const struct xlat gt_xlat_msg_flags;
extern const struct xlat gt_xlat_shutdown_how;

/* xlat_errno.c: name and strerror text of each errno, kernel-internal ones included */
struct xlat_errno {
	const char *name;
	const char *msg;
};
const struct xlat_errno *gt_xlat_errno(__u64 err);

/* xlat_lseek.c */
extern const struct xlat gt_xlat_whence;

/* xlat_futex.c */
extern const struct xlat gt_xlat_futex_cmd; /* FUTEX_WAIT ..., without the option bits */
extern const struct xlat gt_xlat_futex_wake_ops;
extern const struct xlat gt_xlat_futex_wake_cmps;
#define XLAT_FUTEX_PRIVATE 128
#define XLAT_FUTEX_CLOCK_REALTIME 256
#define XLAT_FUTEX_CMD_MASK 127

/* xlat_ioctl.c */
extern const struct xlat gt_xlat_ioctl_cmds; /* known requests: TCGETS, FIONREAD ... */
extern const struct xlat gt_xlat_ioctl_dir;  /* _IOC_READ, _IOC_WRITE */

/* xlat_poll.c: poll, epoll, eventfd, timerfd, signalfd, inotify */
extern const struct xlat gt_xlat_poll_events;
extern const struct xlat gt_xlat_epoll_events;
extern const struct xlat gt_xlat_epoll_ctl_op;
extern const struct xlat gt_xlat_epoll_create_flags;
extern const struct xlat gt_xlat_eventfd_flags;
extern const struct xlat gt_xlat_timerfd_flags;
extern const struct xlat gt_xlat_inotify_init_flags;

/* xlat_wait.c */
extern const struct xlat gt_xlat_wait_options;
extern const struct xlat gt_xlat_idtype;

/* xlat_prctl.c */
extern const struct xlat gt_xlat_prctl_option;
extern const struct xlat gt_xlat_arch_prctl_code;
extern const struct xlat gt_xlat_dumpable; /* PR_GET_DUMPABLE's answer */

/* xlat_stat.c */
extern const struct xlat gt_xlat_file_type; /* S_IFREG ... (the S_IFMT bits) */
extern const struct xlat gt_xlat_mode_bits; /* S_ISUID, S_ISGID, S_ISVTX */
extern const struct xlat gt_xlat_statx_mask;

/* xlat_resource.c */
extern const struct xlat gt_xlat_rlimit;
extern const struct xlat gt_xlat_rusage_who;
extern const struct xlat gt_xlat_priority_which;

/* xlat_time.c */
extern const struct xlat gt_xlat_clockid;
extern const struct xlat gt_xlat_timer_flags; /* TIMER_ABSTIME */
extern const struct xlat gt_xlat_itimer_which;

/* xlat_misc.c: calls with one small table each */
extern const struct xlat gt_xlat_getrandom_flags;
extern const struct xlat gt_xlat_memfd_flags;
extern const struct xlat gt_xlat_mount_flags;
extern const struct xlat gt_xlat_umount_flags;
extern const struct xlat gt_xlat_sched_policy;

#endif
