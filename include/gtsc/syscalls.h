/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * libgtsc: part of the public API.  Include <gtsc/gtsc.h>, which includes
 * this file; it is a separate file only to keep gtsc.h readable.
 */
#ifndef __GTSC_PUBLIC_SYSCALLS_H
#define __GTSC_PUBLIC_SYSCALLS_H

#include "gtsc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- decoding syscall records ---- */

/**
 * @brief Turns a trace's GTSC_REC_SYS_ENTER and GTSC_REC_SYS_EXIT records
 * into calls, and calls into strace's text or JSON.
 *
 * Push the records in the reader's order: the decoder pairs each thread's
 * enter with its exit and hands every call to opts->fn.  A call is decoded
 * with the trace's own syscall table (names and C types of the recording
 * kernel) and the user memory captured with it, so a trace decodes the same
 * on any machine, with or without tracefs:
 *
 *   openat(dfd: AT_FDCWD, filename: "/etc/hostname", flags: O_RDONLY) = 3
 *
 * Memory is one held enter record per thread, whatever the trace's length.
 */
struct gtsc_syscall_decoder;

/** What a call handed to the callback shows (strace -f's interleaving of threads). */
enum gtsc_syscall_part {
	GTSC_SYSCALL_WHOLE = 0,	     /**< openat(...) = 3 */
	GTSC_SYSCALL_UNFINISHED = 1, /**< wait4(6414,  <unfinished ...> */
	GTSC_SYSCALL_RESUMED = 2,    /**< <... wait4 resumed>[...], 0, NULL) = 6414 */
};

/**
 * @brief One call, or one part of it, as the callback receives it; valid
 * only during the call.  Either record may be missing: ENTER is NULL for a
 * call that began before the trace (it comes as GTSC_SYSCALL_RESUMED in
 * either mode), EXIT for one that never returned (exit_group, a killed
 * thread, a lost record, the end of the trace).  Fields are only ever
 * added at the end.
 */
struct gtsc_syscall {
	enum gtsc_syscall_part part;
	__u32 pid, tid;
	int nr;
	bool failed; /**< EXIT returned an error (-4095..-1) */
	__u64 ts;    /**< when the line happens: the enter's; the exit's for a resumed part */
	const struct gtsc_rec_sys_enter *enter;
	const struct gtsc_rec_sys_exit *exit;
	/**
	 * A 32-bit (ia32) task's call on a 64-bit kernel (its records carry
	 * GTSC_SYS_F_COMPAT): NR is an i386 number, named from the i386
	 * table, and (NR | GTSC_SYSCALL_COMPAT) names it to
	 * gtsc_syscall_decoder__name.
	 */
	bool compat;
};

/**
 * ORed into a syscall number, makes it an i386 one for
 * gtsc_syscall_decoder__name: one int tells a 32-bit task's getpid (20)
 * from the x86-64 writev (20), e.g. as a key of statistics.
 */
#define GTSC_SYSCALL_COMPAT (1 << 29)

/** @brief Receives a call; a non-zero return stops the push and is what it returns. */
typedef int (*gtsc_syscall_fn)(void *ctx, const struct gtsc_syscall *call);

/** How arguments are shown; 0 is strace's bare form: openat(AT_FDCWD, "/x", O_RDONLY). */
enum gtsc_syscall_style {
	GTSC_SYSCALL_ARG_NAMES = 1 << 0, /**< openat(dfd: AT_FDCWD, ...) */
	GTSC_SYSCALL_ARG_TYPES = 1 << 1, /**< openat(int dfd: AT_FDCWD, ...); implies names */
};

struct gtsc_syscall_decoder_opts {
	size_t sz;
	unsigned int style;    /**< enum gtsc_syscall_style mask */
	unsigned int max_data; /**< strace's -s: bytes of captured data shown; 0: all */
	/**
	 * One callback per call, when it ends (for JSON, statistics, a filter
	 * on the result).  Else strace -f's interleaving: a call is held from
	 * its enter and comes out whole if it returns before anything else is
	 * shown; if another line must come first it comes out as
	 * GTSC_SYSCALL_UNFINISHED, and later GTSC_SYSCALL_RESUMED.
	 */
	bool whole_calls;
	gtsc_syscall_fn fn; /**< receives the calls; NULL: they are dropped */
	void *ctx;
	size_t : 0;
};
#define gtsc_syscall_decoder_opts__last_field ctx

/**
 * @brief A decoder for the records of R, which must outlive it.
 * @return a decoder, or NULL and errno (EINVAL: no R or bad opts; ENOMEM)
 */
GTSC_API struct gtsc_syscall_decoder *
gtsc_syscall_decoder__new(const struct gtsc_reader *r,
			  const struct gtsc_syscall_decoder_opts *opts);

/** @brief Frees D and the enter records it holds.  NULL is a no-op. */
GTSC_API void gtsc_syscall_decoder__free(struct gtsc_syscall_decoder *d);

/**
 * @brief Takes the next record: a sys_enter or sys_exit, or a task exit
 * (the thread's call, if any, never returns: "exit_group(0) = ?").  Other
 * records are ignored, so a caller may push every record.  To drop calls
 * (a filter), skip their enter, and their exit unless
 * gtsc_syscall_decoder__in_call says the thread is in a call you pushed.
 * @return 0, the callback's non-zero return, or -errno (-EINVAL: a record
 * shorter than its type)
 */
GTSC_API int gtsc_syscall_decoder__push(struct gtsc_syscall_decoder *d,
					const struct gtsc_rec_hdr *rec);

/** @brief Whether thread TID is inside a call the decoder holds (its exit belongs to it). */
GTSC_API bool gtsc_syscall_decoder__in_call(const struct gtsc_syscall_decoder *d, __u32 tid);

/**
 * @brief The caller is about to show a line of its own (a process's exit, a
 * gap in the trace): a held call comes out first, as unfinished.  Nothing
 * to do with whole_calls.
 * @return 0, the callback's non-zero return, or -errno
 */
GTSC_API int gtsc_syscall_decoder__interrupt(struct gtsc_syscall_decoder *d);

/**
 * @brief The end of the records: calls still open come out (with
 * whole_calls, as calls that never returned; else the held one as
 * unfinished, and calls shown unfinished already stay so).
 * @return 0, the callback's non-zero return, or -errno
 */
GTSC_API int gtsc_syscall_decoder__finish(struct gtsc_syscall_decoder *d);

/**
 * @brief CALL's part in strace's form, "openat(...) = 3", snprintf-style
 * into BUF: no newline, NUL-terminated if SIZE > 0.  Decoding neither
 * allocates nor calls printf: it is made for millions of calls.
 * @return the length of the text (as snprintf), or -EINVAL
 */
GTSC_API int gtsc_syscall_decoder__text(struct gtsc_syscall_decoder *d,
					const struct gtsc_syscall *call, char *buf, size_t size);

/**
 * @brief CALL as JSON object members, without the braces, snprintf-style
 * into BUF: "syscall", "nr", "args" (an array of name, type, raw value and
 * decoded value; null when the enter is missing), "ret" (null when the
 * exit is), "ret_text" and, when it failed, "errno".  A compat call has
 * "compat":true and "abi":"i386" after "nr", and raw values only.
 * @return the length of the text (as snprintf), or -EINVAL
 */
GTSC_API int gtsc_syscall_decoder__json(struct gtsc_syscall_decoder *d,
					const struct gtsc_syscall *call, char *buf, size_t size);

/**
 * @brief Syscall NR's name as the decoder shows it: the trace's, or
 * "syscall_NNN" written into BUF (SIZE bytes; 24 are always enough).
 * With GTSC_SYSCALL_COMPAT set in NR, the i386 table's.
 * @return the name, or NULL and errno EINVAL
 */
GTSC_API const char *gtsc_syscall_decoder__name(struct gtsc_syscall_decoder *d, int nr, char *buf,
						size_t size);

/**
 * @brief strace's line for a process's end, from its GTSC_TASK_EXIT
 * record: "+++ exited with 0 +++", "+++ killed by SIGSEGV (core dumped)
 * +++", snprintf-style into BUF.
 * @return the length of the text (as snprintf), or -EINVAL (not a task exit)
 */
GTSC_API int gtsc_syscall_decoder__task_exit(struct gtsc_syscall_decoder *d,
					     const struct gtsc_rec_task *tk, char *buf,
					     size_t size);

/**
 * @brief Version of this library's decoding rules and tables: any change of
 * a printed name bumps it.  A trace records its recorder's as the META key
 * "decode_tables", so that a report can say both.
 */
GTSC_API unsigned int gtsc_decode_tables_version(void);

#ifdef __cplusplus
}
#endif

#endif
