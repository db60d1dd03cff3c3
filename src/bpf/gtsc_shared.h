/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Constants and map values shared by the BPF programs and the loader.  The
 * records themselves live in include/gtsc/records.h; this header only holds
 * what configures and counts the channels.
 */
#ifndef __GTSC_SHARED_H
#define __GTSC_SHARED_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* Event classes: each writes into the channel the loader maps it to. */
enum gtsc_class {
	GTSC_CLASS_TASK = 0, /* fork/exec/exit: always on, names pids */
	GTSC_CLASS_SYSCALLS = 1,
	GTSC_CLASS_KMEM = 2,
	GTSC_CLASS_FUNCS = 3, /* function probes (-k) */
	GTSC_CLASS_EVENTS = 4, /* tracepoints by name (-e GROUP:NAME) */
	GTSC_CLASS_MAX,
};

#define GTSC_MAX_CHANNELS 16
#define GTSC_MAX_CPUS 1024
#define GTSC_MAX_TRACKED_PIDS 65536
#define GTSC_MAX_COMMS 8 /* -C names per session */

/*
 * A function probe's BPF cookie: the function id (FUNCS chunk) in the low
 * 32 bits, and this bit when a return probe wants the entry time.
 */
#define GTSC_FUNC_COOKIE_TIMED (1ULL << 32)

/*
 * Where a class writes: rings of all channels sit in one ARRAY_OF_MAPS, a
 * per-CPU channel owning nr_cpus consecutive slots from ring_base and a
 * global one a single slot.  Per-CPU value of the counters map, indexed by
 * channel id.
 */
struct gtsc_class_route {
	__u32 channel;
	__u32 ring_base;
	__u32 percpu;
	__u32 mode;	  /* enum gtsc_chan_mode */
	__u64 wake_bytes; /* wake the consumer only once this much is pending */
	/* Overwrite mode: the class's regions in gtsc_flight, one per CPU or one. */
	__u32 flight_base;  /* first slot of region 0 */
	__u32 flight_slots; /* slots per region, a power of two */
	__u32 head_base;    /* region 0's entry in gtsc_flight_heads */
	__u32 native;	    /* overwrite mode in BPF_F_RB_OVERWRITE rings of gtsc_orings */
	/* Discard mode in an array ring (ring=array): the class's regions in gtsc_arr. */
	__u32 arr;	 /* records go to gtsc_arr, not to a BPF ring buffer */
	__u32 arr_base;	 /* region 0's first element in gtsc_arr */
	__u32 arr_elems; /* elements per region, a power of two */
	__u32 arr_head;	 /* region 0's entry in gtsc_arr_heads */
};

enum gtsc_chan_mode {
	GTSC_MODE_DISCARD = 0,	 /* BPF ring buffer: a full ring drops (and counts) the record */
	GTSC_MODE_OVERWRITE = 1, /* flight region: the newest records overwrite the oldest */
};

/*
 * Flight channels (overwrite mode) where the kernel has BPF_F_RB_OVERWRITE
 * (Linux 6.19) are rings like the discard ones, in their own ARRAY_OF_MAPS
 * (gtsc_orings: an inner map's flags must match its template's), never
 * consumed.  Elsewhere, or with GTSC_FEATURES_OFF=ringbuf_overwrite, they
 * are emulated:
 * one BPF_F_MMAPABLE array of 64-byte slots, a region of a power of two
 * slots per (channel, CPU) or per global channel, and a head per region
 * counting the slots ever claimed in it.  A record takes the consecutive
 * positions head..head+k-1 (modulo the region), 56 bytes of it per slot;
 * each slot's seq is 0 while it is written, then its position + 1, with
 * GTSC_FLIGHT_FIRST on the record's first slot.  Readers check seq before
 * and after copying (a seqlock), so a record overwritten under them is
 * skipped, never half read.
 */
#define GTSC_FLIGHT_SLOT 64
#define GTSC_FLIGHT_DATA 56
#define GTSC_FLIGHT_FIRST (1ULL << 63)
/* A record spans at most this many slots: 14 KiB, more than a syscall record
 * with captured memory takes; a region has at least this many. */
#define GTSC_FLIGHT_MAX_SLOTS 256
#define GTSC_FLIGHT_MAX_REC (GTSC_FLIGHT_MAX_SLOTS * GTSC_FLIGHT_DATA)
/* Writers one CPU can nest: task, softirq, hardirq, NMI. */
#define GTSC_FLIGHT_NEST 4

struct gtsc_flight_slot {
	__u64 seq;
	__u8 data[GTSC_FLIGHT_DATA];
};

/* A cache line each: CPUs writing their own regions do not share one. */
struct gtsc_flight_head {
	__u64 pos; /* slots claimed so far */
	__u64 __pad[7];
};

/*
 * Array rings (--channel NAME:ring=array; issue #13's cheaper reserve).  A
 * discard channel's alternative to BPF_MAP_TYPE_RINGBUF, whose reserve takes
 * a spinlock with interrupts off: one BPF_F_MMAPABLE array (gtsc_arr) of
 * large elements, all of one size (2^gtsc_arr_shift bytes), a region of
 * arr_elems consecutive elements per CPU (or one for a global channel), and
 * a head per region (gtsc_arr_heads): HEAD, the bytes ever claimed in the
 * region by the programs, and TAIL, the bytes the recorder has consumed and
 * zeroed.  A record is written in place at HEAD modulo the region and never
 * crosses an element: a writer whose record would cross writes
 * GTSC_ARR_PAD at HEAD and claims from the next element.  A claim is a
 * compare-and-swap of HEAD against TAIL, so no writer (nested in an
 * interrupt, or preempted on PREEMPT_RT) can take unread space: a full
 * region is a counted drop.  The record's first 32-bit word (hdr.type and
 * hdr.size, never 0 in a record) is stored last: 0 there means claimed and
 * not yet committed, and the recorder stops at it.  The recorder reads in
 * order from TAIL and zeroes what it consumed before it publishes TAIL
 * again, so that unclaimed space is always zero.
 */
#define GTSC_ARR_PAD 0xffffffffU /* the rest of the element is empty */
#define GTSC_ARR_ELEM_MIN (64U << 10) /* holds the largest record (captures, tracepoints) */
#define GTSC_ARR_ELEM_MAX (4U << 20)  /* KMALLOC_MAX_SIZE of x86-64 before 6.x: the old cap */
/*
 * Compare-and-swap attempts before a claim counts as a drop (h->contended):
 * each failure is another writer's success, nested in an interrupt or, on
 * PREEMPT_RT, preempting us inside the program.  4 were too few there: on
 * 7.3.4-rt in a TCG guest, rtpair's low-priority task lost 4 swaps in a row
 * (its high-priority child writing in between each time) for 1 and 2 of its
 * 8,000 write events in 2 of 7 test_rt.sh runs: the drops, all of them
 * contended, none full.  With 32 (gtsc_arr_reserve's loop), none in 24
 * runs, 15 claims won after a lost swap (2026-11-26).
 */
#define GTSC_ARR_TRIES 32

/*
 * The shared syscall dispatch (syscalls.bpf.c's "dispatch", dispatch.c):
 * its chains' slots, under the 33 tail calls a run may make, and one step
 * of the mask hash's generation in the high half of gtsc_sys_every's word.
 * gtsc_sys_slot, beside a slot: DIRECT (attached alone, no chain) or HEAD
 * (attached, and its programs call the chain).  RETIRED, in the word's low
 * half beside the slots' bits: the head's session has ended, its programs
 * only call the chain.
 */
#define GTSC_DISPATCH_SLOTS 16
#define GTSC_SYS_DIRECT GTSC_DISPATCH_SLOTS
#define GTSC_SYS_HEAD (GTSC_DISPATCH_SLOTS + 1)
#define GTSC_SYS_RETIRED (1u << 31)
#define GTSC_SYS_GEN_ONE (1ULL << 32)

/* Head and tail on their own cache lines: programs move one, the recorder the other. */
struct gtsc_arr_head {
	__u64 head;
	/* Claims, counted by the programs beside HEAD (on the line they write
	 * anyway, and only off the common path): refused for a full region,
	 * refused after GTSC_ARR_TRIES lost swaps, and won after a lost swap. */
	__u64 full;
	__u64 contended;
	__u64 retried;
	__u64 __pad[4];
	__u64 tail;
	__u64 __pad2[7];
};

/*
 * Rescue programs.  The kernel runs a program at most once per CPU at a
 * time (prog->active): an event that fires while the same program is
 * running on that CPU is skipped and counted in its recursion_misses.
 * That happens when an interrupt's event nests in the program and, on
 * PREEMPT_RT, where programs run preemptible with only migration disabled,
 * whenever a task is preempted inside the program and the next task on
 * that CPU hits the same hook.  A second program on the hook, attached
 * after the first, records exactly the events the first one skipped; a
 * slot per hook counts them (per CPU, in gtsc_rescued), so that the
 * first's misses minus its rescued events are the events really lost.
 */
enum gtsc_rescue_slot {
	GTSC_RESCUE_SYS_ENTER = 0,
	GTSC_RESCUE_SYS_EXIT = 1,
	/* kmem.bpf.c: one per kmem hook, in its KMEM_HOOK_* order */
	GTSC_RESCUE_KMALLOC = 2,
	GTSC_RESCUE_KFREE = 3,
	GTSC_RESCUE_CACHE_ALLOC = 4,
	GTSC_RESCUE_CACHE_FREE = 5,
	GTSC_RESCUE_PAGE_ALLOC = 6,
	GTSC_RESCUE_PAGE_FREE = 7,
	/* tracepoint.bpf.c: named syscall events built from raw_syscalls */
	GTSC_RESCUE_TP_SYS_ENTER = 8,
	GTSC_RESCUE_TP_SYS_EXIT = 9,
	GTSC_RESCUE_MAX = 16,
};

/* Tids the rescue marks cover: PID_MAX_LIMIT on 64-bit (pid_max's ceiling). */
#define GTSC_MARK_TIDS (1U << 22)

/*
 * -e GROUP:NAME: what the one generic tracepoint program needs to copy an
 * entry, by the event's index in the session's set (the attach cookie).  dyn[] are the offsets of
 * the __data_loc words (GTSC_TP_DYN_REL set: __rel_loc, whose offset counts
 * from the end of the word); the copy reaches the furthest end of their data.
 */
#define GTSC_TP_MAX_DYN 8
#define GTSC_TP_DYN_REL 0x8000
#define GTSC_TP_MAX_EVENTS 4096

struct gtsc_tp_info {
	__u16 id;    /* common_type: the record's event_id */
	__u16 fixed; /* the entry's fixed part: max offset + size over the format's fields */
	__u16 nr_dyn;
	__u16 dyn[GTSC_TP_MAX_DYN];
};

struct gtsc_chan_counters {
	__u64 written; /* records submitted */
	__u64 dropped; /* reserves that failed: ring full */
};

#endif
