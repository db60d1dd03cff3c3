/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * How each syscall argument is decoded: the data behind syscall_decode.c.
 *
 * An argument's decoder comes from the syscall's row in gt_sd_syscall_rules
 * (syscall_rules.c) when the row names one, else from the first
 * gt_sd_type_rules row matching the argument's C type and name as the trace's
 * syscall table gives them.  Supporting a new syscall is one row.
 */
#ifndef __GTSC_SYSCALL_RULES_H
#define __GTSC_SYSCALL_RULES_H

#include <linux/types.h>
#include "xlat.h"

/* What an argument is (a decoder in syscall_decode.c each). */
enum sd_how {
	D_AUTO = 0, /* by C type and name (gt_sd_type_rules) */
	D_INT,	    /* signed decimal, as wide as its C type */
	D_UINT,	    /* unsigned decimal */
	D_HEX,	    /* 0 or 0x... */
	D_OCT,	    /* 0644, strace's mode_t form */
	D_PTR,	    /* NULL, 0x..., or the memory captured at it (string, data, sockaddr) */
	D_FD,	    /* an int, whatever its C type says */
	D_DIRFD,    /* AT_FDCWD or an fd */
	D_UID,	    /* -1 or an unsigned id */
	D_ENUM,	    /* one name of .x */
	D_FLAGS,    /* names of .x or'ed, unknown bits in hex */
	D_OPEN_FLAGS,  /* access mode | O_* flags */
	D_FMODE,       /* S_IFREG|0644 */
	D_MMAP_FLAGS,  /* MAP_PRIVATE|MAP_ANONYMOUS */
	D_CLONE_FLAGS, /* CLONE_*|SIGCHLD */
	D_SIGNAL,      /* SIGUSR1, SIGRTMIN+n, 0 */
	D_FCNTL_ARG,   /* by the fcntl command before it */
	D_SOCK_TYPE,   /* SOCK_STREAM|SOCK_CLOEXEC */
	D_SOCK_PROTO,  /* by the family in argument 0 */
	D_SOCKOPT,     /* by the level before it */
	D_FUTEX_OP,    /* FUTEX_WAIT_BITSET_PRIVATE|FUTEX_CLOCK_REALTIME */
	D_FUTEX_ARG3,  /* a timeout pointer or val2, by the op */
	D_FUTEX_VAL3,  /* a bitset or FUTEX_WAKE_OP's encoded operation */
	D_IOCTL_CMD,   /* a known name or _IOC(dir, type, nr, size) */
	D_PRCTL_ARG2,  /* by the prctl option */
	D_ARGV,	       /* ["a", "b", ...] from the captured elements */
	D_ENVP,	       /* 0x... with the count of captured elements */
	D_STAT,	       /* struct stat summary */
	D_WSTATUS,     /* [{WIFEXITED(s) && WEXITSTATUS(s) == 0}] */
	D_INTS,	       /* [3, 4]: ints (fd pairs, socklen, FIONREAD) */
	D_SIGSET,      /* [USR1 TERM] */
	D_SIGACTION,   /* {sa_handler=..., sa_mask=[...], sa_flags=...} */
	D_TIMESPEC,    /* {tv_sec=1, tv_nsec=0} */
	D_RLIMIT,      /* {rlim_cur=8192*1024, rlim_max=RLIM64_INFINITY} */
	D_HEXBUF,      /* captured data printed as \x.. (getrandom) */
	D_POLLFDS,     /* [{fd=3, events=POLLIN}] */
	D_CLONE_ARGS,  /* clone3's {flags=..., exit_signal=..., stack=..., ...} */
	D_SOCKLEN,     /* value-result socklen_t *: [16], or [128 => 16] when it changed */
	D_SOCKOPT_VAL, /* setsockopt's optval: [1] for an int, else the pointer */
	D_HOW_MAX,
};

struct sd_arg_rule {
	__u8 how;      /* enum sd_how */
	__u8 out;      /* filled by the call: shown at exit, only if it succeeded */
	const struct xlat *x;
};

/* How the return value prints. */
enum sd_ret {
	R_INT = 0, /* decimal; -errno as "-1 ENOENT (...)" for every kind */
	R_HEX,	   /* an address (mmap, brk) */
	R_OCT,	   /* umask */
	R_NONE,	   /* never returns: "= ?" */
	R_FCNTL,   /* F_GETFD/F_GETFL: "0x1 (flags FD_CLOEXEC)" */
	R_PRCTL,   /* PR_GET_DUMPABLE: "1 (SUID_DUMP_USER)" */
};

/*
 * strace prints a few calls with named pseudo-arguments in its own order
 * (clone: child_stack=..., flags=...): ORDER lists argument indexes, -1 ends.
 */
struct sd_layout {
	signed char order[6];
	const char *label[6]; /* names shown in the bare style too */
};

struct sd_syscall_rule {
	const char *name;
	struct sd_arg_rule arg[6];
	__u8 ret; /* enum sd_ret */
	/* Bit i set: argument i is printed (strace hides the ones a call ignores).  NULL: all. */
	unsigned int (*shown)(const __u64 *args);
	const struct sd_layout *layout;
};

struct sd_type_rule {
	const char *type; /* fnmatch pattern on the C type, NULL: any */
	const char *name; /* fnmatch pattern on the argument name, NULL: any */
	struct sd_arg_rule rule;
};

extern const struct sd_syscall_rule gt_sd_syscall_rules[];
extern const unsigned int gt_sd_nr_syscall_rules;
extern const struct sd_type_rule gt_sd_type_rules[];
extern const unsigned int gt_sd_nr_type_rules;

#endif
