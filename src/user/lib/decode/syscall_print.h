/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* The value printers behind syscall_decode.c (syscall_print.c): strace's forms. */
#ifndef __GTSC_SYSCALL_PRINT_H
#define __GTSC_SYSCALL_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "syscall_decode.h"
#include "xlat.h"

/* Little-endian fields of captured bytes. */
__u32 gt_sp_get32(const __u8 *p);
__u64 gt_sp_get64(const __u8 *p);

void gt_sp_oct(struct gtsc_buf *b, __u64 v); /* strace's %#03o: 000, 022, 0644 */
/* "..." with C escapes and short octal (\0, \177), or every byte as \xHH; MORE appends "...". */
void gt_sp_quoted(struct gtsc_buf *b, const __u8 *s, size_t n, bool more, bool hex);
/* A name of X, else hex followed by a comment with X's "unknown" text (IPPROTO_???). */
void gt_sp_enum(struct gtsc_buf *b, const struct xlat *x, __u64 v);
/* Names of X or'ed in table order, unknown bits as hex: O_APPEND|0x800000; 0 as X's zero. */
void gt_sp_flags(struct gtsc_buf *b, const struct xlat *x, __u64 v);
void gt_sp_signal(struct gtsc_buf *b, __s64 sig); /* SIGUSR1, SIGRTMIN, SIGRT_3, 0 */
void gt_sp_mode(struct gtsc_buf *b, __u64 mode);  /* S_IFDIR|S_ISVTX|0777 */

/* Captured structs. */
void gt_sp_sockaddr(struct gtsc_buf *b, const __u8 *p, size_t n); /* {sa_family=AF_INET, ...} */
void gt_sp_stat(struct gtsc_buf *b, const __u8 *p, size_t n);     /* {st_mode=..., st_size=..., ...} */
void gt_sp_wstatus(struct gtsc_buf *b, __u32 s);		      /* [{WIFEXITED(s) && ...}] */
void gt_sp_ints(struct gtsc_buf *b, const __u8 *p, size_t n);     /* [3, 4] */
void gt_sp_sigset(struct gtsc_buf *b, __u64 set);		      /* [USR1 TERM], ~[RTMIN RT_1] */
void gt_sp_sigaction(struct gtsc_buf *b, const __u8 *p, size_t n);
void gt_sp_rlim(struct gtsc_buf *b, __u64 v); /* RLIM64_INFINITY, 8192*1024 */
void gt_sp_pollfds(struct gtsc_buf *b, const __u8 *p, size_t n);    /* [{fd=3, events=POLLIN}] */
void gt_sp_clone_args(struct gtsc_buf *b, const __u8 *p, size_t n); /* {flags=..., ...} */

/* Flag words with a part that is not a flag. */
void gt_sp_open_flags(struct gtsc_buf *b, __u64 v);	/* access mode | O_* */
void gt_sp_mmap_flags(struct gtsc_buf *b, __u64 v);	/* map type | MAP_* | MAP_HUGE_2MB */
void gt_sp_clone_flags(struct gtsc_buf *b, __u64 v); /* CLONE_* | exit signal */
void gt_sp_sock_type(struct gtsc_buf *b, __u64 v);	/* SOCK_STREAM | SOCK_CLOEXEC */
void gt_sp_futex_op(struct gtsc_buf *b, __u32 v);	/* FUTEX_WAKE_PRIVATE|FUTEX_CLOCK_REALTIME */
void gt_sp_futex_wake_op(struct gtsc_buf *b, __u32 v);
void gt_sp_ioctl_cmd(struct gtsc_buf *b, __u32 v); /* TCGETS, _IOC(_IOC_READ, 0x54, 0x13, 0x8) */

#endif
