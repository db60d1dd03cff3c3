/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * strace-grade decoding of one syscall from its raw records: the trace's
 * syscall table entry (names, C types), the sys_enter record (six registers,
 * captured user memory) and the sys_exit record (return value, data the call
 * filled).  Pure functions of their input: no file, no tracefs, no state but
 * a cache of per-syscall decoding plans, so a trace decodes the same on any
 * machine.  Rules and tables: syscall_rules.c, xlat_*.c.
 *
 *   openat(AT_FDCWD, "/etc/hostname", O_RDONLY|O_CLOEXEC) = 3      bare
 *   openat(dfd: AT_FDCWD, filename: "/etc/hostname", flags: O_RDONLY|O_CLOEXEC) = 3
 *
 * Output goes into a caller-owned fixed buffer (no allocation per call);
 * text past its end is dropped.  The public face of this and of the joiner
 * is gtsc/syscalls.h (syscall_api.c).
 */
#ifndef __GTSC_SYSCALL_DECODE_H
#define __GTSC_SYSCALL_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include "gtsc/records.h"
#include "buf_util.h"

struct gtsc_syscall_info;
struct syscall_decoder;

/* Version of the rules and tables (syscall_rules.c); traces record it as decode_tables=N. */
extern const unsigned int gt_decode_tables_version;

enum sd_style {
	SD_ARG_NAMES = 1 << 0, /* "fd: 3" (the default of report --syscalls) */
	SD_ARG_TYPES = 1 << 1, /* "unsigned int fd: 3"; implies names */
};

struct sd_opts {
	unsigned int style;    /* enum sd_style */
	unsigned int max_data; /* strace's -s: bytes of data shown (0: all captured) */
};

/* One call as the records show it; either record may be missing. */
struct sd_call {
	int nr;
	const struct gtsc_syscall_info *si;	/* the trace's entry for nr, NULL if unknown */
	const struct gtsc_rec_sys_enter *enter; /* NULL: entered before the trace began */
	const struct gtsc_rec_sys_exit *exit;	/* NULL: not returned (yet, or ever) */
	/*
	 * A 32-bit task's call (GTSC_SYS_F_COMPAT): nr is i386's and si the
	 * i386 table's (syscall_compat.h); arguments print raw, in hex.
	 */
	bool compat;
};

/* Which part of a call's line to print (strace's interleaving of threads). */
enum sd_part {
	SD_WHOLE,      /* openat(...) = 3 */
	SD_ENTER_PART, /* wait4(6414,  <unfinished ...> */
	SD_EXIT_PART,  /* <... wait4 resumed>[{WIFEXITED(s) && ...}], 0, NULL) = 6414 */
};

/*
 * A decoder keeps a plan per syscall number, built on first use from the
 * call's syscall info, which must stay valid (the reader's) while it is used.
 */
struct syscall_decoder *gt_syscall_decoder__new(const struct sd_opts *o);
void gt_syscall_decoder__free(struct syscall_decoder *d);

/* The call's name: the trace's, else "syscall_NNN" (into TMP). */
const char *gt_sd_call_name(const struct sd_call *c, char tmp[24]);
/* True if the call returned an error (-4095..-1). */
bool gt_sd_call_failed(const struct sd_call *c);

/* Appends the strace-form text of PART of C. */
void gt_syscall_decoder__text(struct syscall_decoder *d, struct gtsc_buf *b, const struct sd_call *c,
			      enum sd_part part);
/*
 * Appends JSON members (no braces): "syscall", "nr", "args" (each with name,
 * type, raw and decoded value), "ret" (null when unknown), "ret_text",
 * "errno" when failed.
 */
void gt_syscall_decoder__json(struct syscall_decoder *d, struct gtsc_buf *b, const struct sd_call *c);

#endif
