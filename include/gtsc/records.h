/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The one definition of every record that crosses from BPF to userspace and
 * into a trace file.  BPF programs, the file writer, the reader and embedders
 * all include this header; nothing else may define a record layout.
 *
 * Rules (the record ABI):
 *  - every record starts with struct gtsc_rec_hdr; hdr.size is the whole
 *    record including the header and any variable payload, so a reader can
 *    skip a type it does not know, and a multiple of 8, so that every
 *    record starts aligned (readers call another size damage);
 *  - fields are fixed width, naturally aligned, little endian as produced;
 *  - a new field is appended at the end of a record and GTSC_REC_ABI_MINOR is
 *    bumped; moving or resizing a field bumps GTSC_REC_ABI_MAJOR, which
 *    readers refuse.
 */
#ifndef __GTSC_RECORDS_H
#define __GTSC_RECORDS_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define GTSC_REC_ABI_MAJOR 1
#define GTSC_REC_ABI_MINOR 5 /* 1: kmem_alloc.stack_id, 2: GTSC_REC_FUNC, 3: GTSC_REC_PRINTF,
			     * 4: GTSC_SYS_F_COMPAT, 5: GTSC_REC_TRACEPOINT */

enum gtsc_rec_type {
	GTSC_REC_NONE = 0,
	GTSC_REC_SYS_ENTER = 1,
	GTSC_REC_SYS_EXIT = 2,
	GTSC_REC_KMEM_ALLOC = 3,
	GTSC_REC_KMEM_FREE = 4,
	GTSC_REC_KMEM_CACHE = 5, /* names a cache id, once per cache */
	GTSC_REC_TASK = 6,	 /* fork/exec/exit: gives pids their comm */
	GTSC_REC_DROPS = 7,	 /* written by userspace: drops seen in a drain window */
	GTSC_REC_FUNC = 8,	 /* function probe hit (-k): entry or return */
	GTSC_REC_PRINTF = 9,	 /* gtsc_printf() of a BPF program: format id + raw args */
	GTSC_REC_TRACEPOINT = 10, /* any tracepoint (-e GROUP:NAME): its raw trace entry */
	GTSC_REC_TYPE_MAX,
};

/* 24 bytes, first in every record. */
struct gtsc_rec_hdr {
	__u16 type;  /* enum gtsc_rec_type */
	__u16 size;  /* whole record in bytes, header and payload included */
	__u16 cpu;   /* CPU the event happened on */
	__u16 flags; /* per-type; unused bits are zero */
	__u32 pid;   /* thread group id (what userspace calls pid) */
	__u32 tid;   /* thread id */
	__u64 ts_ns; /* CLOCK_MONOTONIC (bpf_ktime_get_ns); file meta gives the wall offset */
};

/*
 * sys_enter: the raw syscall number and the six argument registers.  A
 * variable payload (captured strings and buffers) may follow args[]; its
 * layout is described by the payload's own header and counted in hdr.size.
 */
struct gtsc_rec_sys_enter {
	struct gtsc_rec_hdr hdr;
	__s32 nr;
	__u16 payload_len; /* bytes after args[] */
	__u16 __pad;
	__u64 args[6];
	/* __u8 payload[payload_len]; */
};

struct gtsc_rec_sys_exit {
	struct gtsc_rec_hdr hdr;
	__s32 nr;
	__u16 payload_len;
	__u16 __pad;
	__s64 ret;
	/* __u8 payload[payload_len]; */
};

/*
 * hdr.flags of sys_enter/sys_exit (ABI 1.4; older records have none set).
 * COMPAT: a 32-bit (ia32) syscall of a task on a 64-bit kernel, what the
 * kernel's in_ia32_syscall() tells: nr is an i386 number (<asm/unistd_32.h>),
 * args[] are ebx, ecx, edx, esi, edi, ebp, and no payload is captured.
 */
enum gtsc_sys_rec_flags {
	GTSC_SYS_F_COMPAT = 1 << 0,
};

/*
 * The variable payload of sys_enter/sys_exit (payload_len bytes after the
 * fixed part) is a list of items: an 8-byte gtsc_payload_item, then len
 * bytes of data, the next item starting at the next 8-byte boundary.  User
 * memory read at sys_enter (paths, written data, sockaddrs) rides on the
 * enter record; data a call returns (read buffers) and reads retried after
 * a fault at enter ride on the exit record.
 */
enum gtsc_payload_kind {
	GTSC_PAY_STR = 1,      /* NUL-terminated string (len includes no NUL) */
	GTSC_PAY_BUF = 2,      /* raw bytes */
	GTSC_PAY_SOCKADDR = 3, /* struct sockaddr_* as the caller passed it */
};

enum gtsc_payload_flags {
	GTSC_PAY_TRUNCATED = 1 << 0, /* more data than captured (-s) */
	GTSC_PAY_FAULT = 1 << 1,     /* the read faulted: len 0, print the pointer */
	GTSC_PAY_MORE = 1 << 2,      /* last element captured of an array that goes on */
};

struct gtsc_payload_item {
	__u8 arg;   /* syscall argument index 0..5 */
	__u8 kind;  /* enum gtsc_payload_kind */
	__u8 flags; /* enum gtsc_payload_flags */
	__u8 index; /* element of an array argument (execve argv), else 0 */
	__u16 len;  /* data bytes that follow */
	__u16 __pad;
};

/* Allocator the event came from: perf kmem's slab/page split, kept finer. */
enum gtsc_kmem_kind {
	GTSC_KMEM_KMALLOC = 0, /* kmalloc / kfree */
	GTSC_KMEM_CACHE = 1,   /* kmem_cache_alloc / kmem_cache_free */
	GTSC_KMEM_PAGE = 2,    /* mm_page_alloc / mm_page_free */
};

/*
 * kmemtrace-style allocation.  For pages, ptr is the pfn, bytes_* are
 * PAGE_SIZE << order and call_site is 0 (the tracepoint has none).
 * stack_id (ABI 1.1; records of 1.0 end before it) is the allocation's
 * kernel stack in the trace's GTSC_CHUNK_STACKS, 0 when none was taken.
 */
struct gtsc_rec_kmem_alloc {
	struct gtsc_rec_hdr hdr;
	__u64 call_site;
	__u64 ptr;
	__u64 cache_id; /* kmem_cache address, 0 when unknown; see GTSC_REC_KMEM_CACHE */
	__u32 bytes_req;
	__u32 bytes_alloc;
	__u32 gfp_flags; /* raw, decoded at report time from the trace's tables */
	__s32 node;
	__u8 kind; /* enum gtsc_kmem_kind */
	__u8 order;
	__s8 migratetype; /* pages only, -1 otherwise */
	__u8 __pad[5];
	__u32 stack_id; /* the BPF stack map's id + 1; 0: none */
	__u32 __pad2;
};

struct gtsc_rec_kmem_free {
	struct gtsc_rec_hdr hdr;
	__u64 call_site;
	__u64 ptr;
	__u64 cache_id;
	__u8 kind;
	__u8 order;
	__u8 __pad[6];
};

#define GTSC_CACHE_NAME_LEN 32

struct gtsc_rec_kmem_cache {
	struct gtsc_rec_hdr hdr;
	__u64 cache_id;
	__u32 object_size;
	__u32 size;
	char name[GTSC_CACHE_NAME_LEN];
};

enum gtsc_task_event {
	GTSC_TASK_FORK = 0, /* hdr.pid/tid = child; other_pid = parent tgid */
	GTSC_TASK_EXEC = 1, /* comm is the new image's */
	GTSC_TASK_EXIT = 2, /* exit_code as in wait(2) status */
	GTSC_TASK_COMM = 3, /* written by userspace for tasks alive at start */
};

#define GTSC_COMM_LEN 16

struct gtsc_rec_task {
	struct gtsc_rec_hdr hdr;
	__u32 event; /* enum gtsc_task_event */
	__u32 other_pid;
	__s32 exit_code;
	__u32 __pad;
	char comm[GTSC_COMM_LEN];
};

/* Drops on one channel and CPU since the previous GTSC_REC_DROPS for them. */
struct gtsc_rec_drops {
	struct gtsc_rec_hdr hdr; /* ts_ns: end of the window, cpu: the ring's CPU */
	__u64 since_ns;		 /* start of the window */
	__u64 count;
	__u32 channel;
	__u32 __pad;
};

enum gtsc_func_kind {
	GTSC_FUNC_ENTRY = 0,
	GTSC_FUNC_RETURN = 1,
};

/*
 * A function probe hit.  func_id indexes the trace's FUNCS chunk (name,
 * address, prototype).  Entry: args[] are the first six argument registers,
 * ret and latency_ns are 0.  Return: ret is the return register, latency_ns
 * the time since this thread's entry into the same function (0 when that
 * entry was not seen), args[] are 0.
 */
struct gtsc_rec_func {
	struct gtsc_rec_hdr hdr;
	__u32 func_id;
	__u8 kind; /* enum gtsc_func_kind */
	__u8 __pad[3];
	__u32 stack_id; /* as kmem_alloc's (source "funcs"); 0: none */
	__u32 __pad2;
	__u64 ip; /* probed address as the kernel reports it (0 if it cannot say) */
	__u64 ret;
	__u64 latency_ns;
	__u64 args[6];
};

/*
 * gtsc_printf() (gtsc.bpf.h): the format string is not copied, only its id,
 * a hash the compiler computes (gtsc_printf_hash below); the loader keeps
 * the strings (the trace's PRINTF chunk) and the text is made at report
 * time.  args[] are the raw values, each widened to 64 bits.
 */
#define GTSC_PRINTF_MAX_ARGS 12

struct gtsc_rec_printf {
	struct gtsc_rec_hdr hdr;
	__u32 fmt_id;
	__u16 nr_args;
	__u16 __pad;
	__u64 args[]; /* nr_args */
};

/*
 * The format id: FNV-1a (32 bits) over the format's first 64 bytes, then
 * its length.  For a string literal the compiler folds GTSC_PRINTF_ID into
 * one constant (each step is written once, so the expansion grows linearly);
 * the loader hashes the strings it finds in GTSC_PRINTF_SEC the same way.
 */
#define GTSC_PRINTF_SEC ".rodata.gtsc_fmt"
#define GTSC_FNV_BASIS 2166136261u
#define GTSC_FNV_PRIME 16777619u
#define ___GTSC_IN(s, i) ((i) < sizeof(s) - 1)
#define ___GTSC_C(s, i)                                                                            \
	(___GTSC_IN(s, i) ? (__u32)(unsigned char)(s)[___GTSC_IN(s, i) ? (i) : 0] : 0u)
#define ___GTSC_H1(h, s, i) (((h) ^ ___GTSC_C(s, i)) * (___GTSC_IN(s, i) ? GTSC_FNV_PRIME : 1u))
#define ___GTSC_H4(h, s, i)                                                                        \
	___GTSC_H1(___GTSC_H1(___GTSC_H1(___GTSC_H1(h, s, i), s, i + 1), s, i + 2), s, i + 3)
#define ___GTSC_H16(h, s, i)                                                                       \
	___GTSC_H4(___GTSC_H4(___GTSC_H4(___GTSC_H4(h, s, i), s, i + 4), s, i + 8), s, i + 12)
#define ___GTSC_H64(h, s, i)                                                                       \
	___GTSC_H16(___GTSC_H16(___GTSC_H16(___GTSC_H16(h, s, i), s, i + 16), s, i + 32), s, i + 48)
#define GTSC_PRINTF_ID(s)                                                                          \
	((__u32)((___GTSC_H64(GTSC_FNV_BASIS, s, 0) ^ (__u32)(sizeof(s) - 1)) * GTSC_FNV_PRIME))

/*
 * A tracepoint's raw entry as the kernel laid it out for perf (struct
 * trace_entry's common fields first), not formatted: event_id is the
 * entry's common_type, which the trace's TRACEPOINTS chunk maps to the
 * format file that describes the rest.  The entry's fixed part comes with
 * its __data_loc/__rel_loc strings and arrays; the copy stops at
 * GTSC_TP_MAX_DATA bytes, and GTSC_TP_F_TRUNCATED in hdr.flags says a
 * dynamic field reaches past data_len (readers clamp it there).  hdr.size
 * is 8-aligned: data_len can be less than what follows.
 */
#define GTSC_TP_MAX_DATA 4064

enum gtsc_tp_rec_flags {
	GTSC_TP_F_TRUNCATED = 1 << 0,
};

struct gtsc_rec_tracepoint {
	struct gtsc_rec_hdr hdr;
	__u16 event_id; /* the kernel's common_type (tracefs events/G/N/id) */
	__u16 data_len; /* bytes of the raw entry in data[] */
	__u32 __pad;
	__u8 data[]; /* the raw entry */
};

/* Sizes are ABI: a change here is a major ABI change. */
#define GTSC_REC_ASSERT_SIZE(type, sz) _Static_assert(sizeof(type) == (sz), #type " changed size")
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_hdr, 24);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_sys_enter, 80);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_sys_exit, 40);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_kmem_alloc, 80);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_kmem_free, 56);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_kmem_cache, 72);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_task, 56);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_drops, 48);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_func, 112);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_printf, 32);
GTSC_REC_ASSERT_SIZE(struct gtsc_rec_tracepoint, 32);
GTSC_REC_ASSERT_SIZE(struct gtsc_payload_item, 8);

/*
 * Smallest valid size of each known type: a reader rejects a shorter record
 * and ignores bytes past the fields it knows (they were appended later).
 * A type that grew keeps its first size here, so that older traces read.
 */
#define GTSC_REC_MIN_SIZES                                                                          \
	{                                                                                          \
		[GTSC_REC_SYS_ENTER] = sizeof(struct gtsc_rec_sys_enter),                          \
		[GTSC_REC_SYS_EXIT] = sizeof(struct gtsc_rec_sys_exit),                            \
		[GTSC_REC_KMEM_ALLOC] = __builtin_offsetof(struct gtsc_rec_kmem_alloc, stack_id),  \
		[GTSC_REC_KMEM_FREE] = sizeof(struct gtsc_rec_kmem_free),                          \
		[GTSC_REC_KMEM_CACHE] = sizeof(struct gtsc_rec_kmem_cache),                        \
		[GTSC_REC_TASK] = sizeof(struct gtsc_rec_task),                                    \
		[GTSC_REC_DROPS] = sizeof(struct gtsc_rec_drops),                                  \
		[GTSC_REC_FUNC] = sizeof(struct gtsc_rec_func),                                    \
		[GTSC_REC_PRINTF] = sizeof(struct gtsc_rec_printf),                                \
		[GTSC_REC_TRACEPOINT] = sizeof(struct gtsc_rec_tracepoint),                        \
	}

#endif /* __GTSC_RECORDS_H */
