/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What configures syscall recording, shared by syscalls.bpf.c and the
 * loader: the in-kernel syscall filter and the table saying which argument
 * of which syscall points at user memory worth capturing.  The loader fills
 * both into rodata before load (src/user/lib/record/syscall_capture.c holds the
 * table, syscall_classes.c the names and classes of the filter).
 */
#ifndef __GTSC_SYSCALLS_H
#define __GTSC_SYSCALLS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* x86-64 numbers are below 512; x32's have bit 30 set and are never captured. */
#define GTSC_NR_SYSCALLS 512
#define GTSC_SYS_WORDS (GTSC_NR_SYSCALLS / 64)

/* A set of syscall numbers: the filter, and "has a capture spec". */
struct gtsc_sys_set {
	__u64 bits[GTSC_SYS_WORDS];
};

static inline int gtsc_sys_set__has(const struct gtsc_sys_set *s, int nr)
{
	return nr >= 0 && nr < GTSC_NR_SYSCALLS && ((s->bits[nr / 64] >> (nr % 64)) & 1);
}

static inline void gtsc_sys_set__add(struct gtsc_sys_set *s, int nr)
{
	if (nr >= 0 && nr < GTSC_NR_SYSCALLS)
		s->bits[nr / 64] |= 1ULL << (nr % 64);
}

/*
 * What the programs do with a syscall number, one byte per nr in rodata:
 * both decisions in one load, so that a call that is neither filtered out
 * nor captured pays one bounds check, one load and one test.
 */
enum gtsc_sys_nr_flags {
	GTSC_SYS_SKIP = 1 << 0,	     /* not in the -e syscalls=LIST filter */
	GTSC_SYS_CAP_ENTER = 1 << 1, /* reads user memory at enter (retried at exit) */
	GTSC_SYS_CAP_EXIT = 1 << 2,  /* reads what the call wrote, at exit */
	/*
	 * The shapes syscalls.bpf.c reads on the stack when short (its
	 * "stack captures"), set with the CAP bit they refine: ENTER_ONE,
	 * the call's one read at enter is spec[0], a string or bytes (open,
	 * write, connect, nanosleep); EXIT_ONE, its one read at exit is the
	 * buffer spec[GTSC_SYS_EXIT_SPEC(flags)], of a length known without
	 * reading (read, fstat, the struct stat of newfstatat).
	 */
	GTSC_SYS_ENTER_ONE = 1 << 3,
	GTSC_SYS_EXIT_ONE = 1 << 4,
};

/* Bits 5-6 of an EXIT_ONE call's flags: the index of its exit spec. */
#define GTSC_SYS_EXIT_SHIFT 5
#define GTSC_SYS_EXIT_SPEC(f) (((f) >> GTSC_SYS_EXIT_SHIFT) & 3)

/*
 * Bounds of what one record carries (see records.h for the item layout).
 * An item costs 8 bytes plus the bytes the string or buffer really has,
 * rounded up to 8: the bounds only cap the worst case.  Paths: PATH_MAX,
 * so that no real path is cut.  Data (-s): strace's default 32, at most
 * 4096.  argv: the first 8 elements, each cut like data.  sockaddr:
 * sizeof(struct sockaddr_storage).
 */
#define GTSC_CAP_PATH_MAX 4096 /* with the NUL: strings of up to 4095 bytes */
#define GTSC_CAP_DATA_DEFAULT 32
#define GTSC_CAP_DATA_MAX 4096
#define GTSC_CAP_ARGV_MAX 8
#define GTSC_CAP_SOCKADDR_MAX 128
#define GTSC_CAP_FIXED_MAX 256 /* struct stat is 144 bytes on x86-64 */
#define GTSC_CAP_SPECS 4     /* captured arguments of one syscall at most */
#define GTSC_CAP_RETRY_MAX 4 /* faulted reads one call can retry at exit */

enum gtsc_cap_how {
	GTSC_CAP_NONE = 0,
	/* read at sys_enter (a fault is retried at sys_exit) */
	GTSC_CAP_PATH,	      /* NUL-terminated string */
	GTSC_CAP_STRV,	      /* NULL-terminated array of strings (argv) */
	GTSC_CAP_IN_BUF,      /* bytes, length in argument len_arg, up to -s */
	GTSC_CAP_IN_SOCKADDR, /* struct sockaddr, length in argument len_arg */
	/*
	 * filled by the call: read at sys_exit when it succeeded, from the
	 * argument registers, which the kernel restores to the caller as they
	 * were at entry (x86-64 clobbers only rax, rcx and r11).
	 */
	GTSC_CAP_OUT_BUF,      /* bytes, length ret, up to -s */
	GTSC_CAP_OUT_STR,      /* string without NUL (readlink), length ret, up to -s */
	GTSC_CAP_OUT_SOCKADDR, /* struct sockaddr, length in *(int *)argument len_arg */
	/*
	 * A struct or int array of the spec's size bytes, never cut by -s:
	 * IN read at sys_enter (retried at exit), OUT at sys_exit when the
	 * call succeeded, as the OUT_* above.
	 */
	GTSC_CAP_IN_FIXED,
	GTSC_CAP_OUT_FIXED,
};

struct gtsc_cap_spec {
	__u8 how; /* enum gtsc_cap_how */
	__u8 arg;
	__u8 len_arg;
	__u8 __pad;
	__u16 size; /* GTSC_CAP_*_FIXED: bytes, at most GTSC_CAP_FIXED_MAX */
	__u16 __pad2;
};

enum gtsc_cap_flags {
	GTSC_CAP_F_NEWMM = 1 << 0, /* success replaces the address space (execve):
				    * a faulted read cannot be retried at exit */
};

struct gtsc_cap_set {
	__u32 flags; /* enum gtsc_cap_flags */
	struct gtsc_cap_spec spec[GTSC_CAP_SPECS];
};

#endif /* __GTSC_SYSCALLS_H */
