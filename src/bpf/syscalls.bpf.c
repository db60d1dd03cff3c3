// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * raw_syscalls:sys_enter/sys_exit.  Only raw values are stored: names,
 * argument types and flag meanings are applied at report time from the
 * trace's metadata.  tp_btf reads pt_regs directly (BTF-typed, cheapest);
 * raw_tp is the fallback for kernels whose tp_btf prototype does not match,
 * and copies pt_regs with one probe read.
 *
 * Two things happen before a record costs ring space: the syscall filter
 * and, for the few syscalls whose arguments point at user memory worth
 * keeping (paths, written and read data, sockaddrs, fixed-size structs
 * such as struct stat; the table is gtsc_cap, filled by the loader), a
 * capture bounded by gtsc_syscalls.h.  One rodata
 * byte per syscall number says which: every other syscall writes the fixed
 * 80/40-byte record exactly as before, after one load and one test.
 *
 * A 32-bit task's syscall (int 0x80, sysenter, a compat syscall: the
 * kernel's in_ia32_syscall()) carries an i386 number, which the filter and
 * the capture table, keyed by x86-64 numbers, must not see: its records are
 * flagged GTSC_SYS_F_COMPAT, hold the i386 argument registers, capture
 * nothing, and are written only while no syscall filter is set.  Telling
 * costs the 64-bit path one task load and one test.
 *
 * Two records per call, not one (issue #13's first lever, measured and
 * not taken; method, prototype and script in doc/notes/one-record.md).
 * Keeping the enter arguments in per-thread storage and writing one
 * 96-byte record at exit saves the enter record's ring write (34 ns), and
 * the exit gives it back (a lookup and 96 bytes instead of 40: +43 ns).
 * Inside the programs (bpf_stats, tp_btf, 6.18, getppid with a pid
 * filter, ns per call, enter + exit, medians of 7-12 runs): today 420
 * (262 + 159); task storage 430; tid hash 446; task storage with the exit
 * trusting the stash instead of filtering again 396; hash likewise 411;
 * the floor (filters, no record) 229.  The best case saves 24 ns, 5.7% of
 * the programs' cost, under the 10% bar, before what the real design
 * adds: captures copied twice, enter-only records for calls still open,
 * and a reorder window in every reader.
 *
 * Fewer helper calls (issue #13's third lever), measured the same way
 * (bpf_stats, getppid, pid filter, tp_btf, 6.18, 2026-11-26, medians of 7
 * interleaved runs, the cost of other tasks' filtered-out calls, taken in
 * an idle window, subtracted): one read of the calling task (caller())
 * instead of three helper calls, enter + exit 382 -> 356 ns (224 + 156 ->
 * 219 + 137; paired per run -18), kept.  Empty programs cost 47 + 48, the
 * floor (filters and compat test, no record) 119 + 72.  The enter floor's
 * extra 47 ns is no helper: filtering twice at enter costs 22 ns more,
 * what exit's one pass costs (24); the first pass after user mode pays for
 * cold caches and predictors.  Measured and not kept: no bpf_ringbuf_query
 * (350, paired +0) and a plain add for the counters instead of a lock add
 * (358, paired +7): inside the noise, and each would cost a semantic
 * (sparse wakeups, exact counts under nesting or preemption).  Nothing else
 * is left to merge: the clock is read once (and must stay
 * bpf_ktime_get_ns, CLOCK_MONOTONIC), the configuration is rodata (no
 * lookup), and the verifier inlines the ring's array-of-maps lookup, the
 * counters' per-CPU lookup and, from 6.10, bpf_get_smp_processor_id.
 */
#include "gtsc.bpf.h"
#include "gtsc_syscalls.h"
#include "gtsc_mark.h"

/* libbpf 1.1 (Debian 12) stops at PARM5; x86-64 passes the 6th in r9. */
#ifndef PT_REGS_PARM6_SYSCALL
#if defined(__TARGET_ARCH_x86)
#define PT_REGS_PARM6_SYSCALL(x) ((x)->r9)
#else
#error "PT_REGS_PARM6_SYSCALL unknown for this arch: update libbpf"
#endif
#endif

#ifndef EFAULT
#define EFAULT 14
#endif

/* arch/x86/include/asm/thread_info.h: the same value from 4.x to 6.18. */
#define GTSC_TS_COMPAT 0x0002

/* Load-time configuration, set by the loader (session.c) before load. */
const volatile __u8 gtsc_sys_nr[GTSC_NR_SYSCALLS] = {}; /* enum gtsc_sys_nr_flags */
const volatile __u32 gtsc_sys_filter_on = 0; /* numbers past the table: filtered out */
const volatile struct gtsc_cap_set gtsc_cap[GTSC_NR_SYSCALLS] = {};
const volatile __u32 gtsc_cap_data = GTSC_CAP_DATA_DEFAULT; /* -s */

/*
 * A capturing call's record is built here, then copied into the ring once
 * its size is known.  Per CPU, with a busy flag: BPF programs run with
 * migration off, but PREEMPT_RT and 7.x run the syscall programs
 * preemptible (bpf_preemptible in feature_probe.c), and the enter, exit
 * and rescue programs of a task that preempted another on this CPU share
 * the scratch.  One that finds it busy writes its record without payload.
 * The flag is taken with an atomic exchange: a load then a store let two
 * programs both take it when the first was preempted between them, and
 * the second then reset the first's offsets (a 7.3.4-rt CI run got an
 * enter record sized as an exit record).  No IRQ-time program uses this map.
 *
 * Items start below ITEM_OFF_END and one takes at most 8 + GTSC_CAP_PATH_MAX
 * + 1 bytes of scratch (a string is read with room for one byte past its
 * bound), so every write stays inside SCRATCH_SZ and a record under REC_MAX
 * (12.3 KiB); a call whose items would start past ITEM_OFF_END loses them.
 */
#define SCRATCH_SZ 16384
#define ITEM_OFF_END 8192
#define ITEM_HDR ((__u32)sizeof(struct gtsc_payload_item))
#define REC_MAX (ITEM_OFF_END + ITEM_HDR + GTSC_CAP_PATH_MAX + 8)

/* A read that faulted at enter, to retry at exit (the page may be in by then). */
struct cap_retry {
	__u64 ptr;
	__u32 len; /* bytes to read, or a string's bound */
	__u8 how;  /* enum gtsc_cap_how */
	__u8 arg;
	__u8 index;
	__u8 flags; /* GTSC_PAY_TRUNCATED already known at enter */
};

/* What sys_exit needs from sys_enter, per thread: the reads to retry. */
struct cap_pending {
	__s32 nr;
	__u32 nr_retry;
	struct cap_retry retry[GTSC_CAP_RETRY_MAX];
};

/*
 * off and last live here, not on the stack: loaded from a map they are
 * unknown to the verifier, and masked to the same range on every path, so
 * that its states converge instead of multiplying with each item's length.
 */
struct cap_scratch {
	__u8 rec[SCRATCH_SZ];
	struct cap_pending pend;
	__u64 args[8]; /* 6 used: 8 for arg_index()'s mask */
	struct pt_regs regs; /* raw_tp/sys_exit's copy */
	__u32 off;  /* where the next item starts, from the record's start */
	__u32 last; /* offset of the last item written */
	__u32 busy;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cap_scratch);
} gtsc_cap_scratch SEC(".maps");

/*
 * Keyed by tid, written at enter only when a read faulted, deleted at exit,
 * also when recording is off by then.  An
 * entry outlives its call only when a thread other than the leader execs
 * after a faulted read (its exit runs under the leader's tid, de_thread()).
 * Full (8192 threads inside such calls at once): exits lose their payload.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u32);
	__type(value, struct cap_pending);
} gtsc_cap_pending SEC(".maps");

/*
 * The entries of gtsc_cap_pending, never fewer: counted up before an insert
 * and down after a delete, so that while it is 0 the exits of the calls
 * that capture at enter skip the lookup (openat's exit: ~30 ns of 147, a
 * hash of the tid and a miss, perf on the 6.18 host).  A thread's exit
 * follows its enter's count on any CPU (a migration orders them).  An entry
 * that outlives its call (see above) keeps it above 0: lookups as before.
 */
__u64 gtsc_cap_pending_n = 0;

static __always_inline void pending_put(__u32 tid, const struct cap_pending *p)
{
	__sync_fetch_and_add(&gtsc_cap_pending_n, 1);
	if (!bpf_map_update_elem(&gtsc_cap_pending, &tid, p, BPF_NOEXIST))
		return;
	__sync_fetch_and_add(&gtsc_cap_pending_n, -1);
	/* an entry left by a call whose exit was not seen: already counted */
	bpf_map_update_elem(&gtsc_cap_pending, &tid, p, BPF_EXIST);
}

static __always_inline void pending_del(__u32 tid)
{
	if (!bpf_map_delete_elem(&gtsc_cap_pending, &tid))
		__sync_fetch_and_add(&gtsc_cap_pending_n, -1);
}

/* Checked first: a filtered-out call costs neither a map lookup nor ring space. */
static __always_inline __u8 nr_flags(long nr)
{
	if ((unsigned long)nr >= GTSC_NR_SYSCALLS)
		return gtsc_sys_filter_on ? GTSC_SYS_SKIP : 0;
	/* Masked (a power of two; barrier_var keeps clang from dropping the mask
	 * the test makes redundant): clang may spill NR before the test and
	 * reload it after, and 6.1's verifier keeps no bound for an unbounded
	 * spill. */
	_Static_assert(!(GTSC_NR_SYSCALLS & (GTSC_NR_SYSCALLS - 1)), "the mask needs a power of two");
	barrier_var(nr);
	return gtsc_sys_nr[nr & (GTSC_NR_SYSCALLS - 1)];
}

/*
 * in_ia32_syscall(): TS_COMPAT is set at a 32-bit entry and cleared only on
 * the way back to user mode, after sys_exit has fired.  thread_info is the
 * first member of task_struct (CONFIG_THREAD_INFO_IN_TASK, always on x86).
 */
static __always_inline bool in_compat_btf(struct task_struct *t)
{
	return t->thread_info.status & GTSC_TS_COMPAT;
}

/* raw_tp: no BTF pointers to load through. */
static __always_inline bool in_compat_raw(void)
{
	struct task_struct *t = (void *)bpf_get_current_task();

	return BPF_CORE_READ(t, thread_info.status) & GTSC_TS_COMPAT;
}

/*
 * Asked only of a call about to be recorded (after the filters): a load
 * (raw_tp: a helper call and a probe read) that the many calls filtered out
 * never pay.  RAW is a constant at every call site; T is caller()'s task.
 */
static __always_inline bool in_compat(bool raw, struct task_struct *t)
{
	return raw ? in_compat_raw() : in_compat_btf(t);
}

/*
 * The calling task, read once per event: tp_btf loads tgid and pid from
 * the task whose status in_compat() tests, one helper call where there were
 * three (bpf_get_current_pid_tgid for the filter and for the header,
 * bpf_get_current_task_btf for the compat test).  Returns
 * bpf_get_current_pid_tgid()'s value; *T is the task (raw_tp: NULL).
 */
static __always_inline __u64 caller(bool raw, struct task_struct **t)
{
	struct task_struct *task;

	*t = NULL;
	if (raw)
		return bpf_get_current_pid_tgid();
	task = bpf_get_current_task_btf();
	*t = task;
	return (__u64)task->tgid << 32 | (__u32)task->pid;
}

/* gtsc_wanted() for a caller already read. */
static __always_inline bool traced(__u64 id)
{
	return gtsc_on && gtsc_tgid_wanted(id >> 32);
}

/* NULL when another program on this CPU is using it (see cap_scratch). */
static __always_inline struct cap_scratch *scratch_get(void)
{
	__u32 zero = 0;
	struct cap_scratch *sc = bpf_map_lookup_elem(&gtsc_cap_scratch, &zero);

	if (!sc || __sync_lock_test_and_set(&sc->busy, 1))
		return NULL;
	return sc;
}

static __always_inline void scratch_put(struct cap_scratch *sc)
{
	*(volatile __u32 *)&sc->busy = 0;
}

/* ---- payload items ---- */

static __always_inline __u32 round8(__u32 n)
{
	return (n + 7) & ~7U;
}

/* Zeroes the bytes between the data's end and the next 8-byte boundary:
 * they hold whatever an earlier record left in the scratch. */
static __always_inline void zero_pad(__u8 *rec, __u32 off, __u32 len)
{
	__u32 tail = len & 7;
	__u64 *w;

	if (!tail)
		return;
	off = (off + ITEM_HDR + (len & ~7U)) & (SCRATCH_SZ - 1);
	if (off > SCRATCH_SZ - 8)
		return;
	w = (__u64 *)(rec + off);
	*w &= (1ULL << (tail * 8)) - 1;
}

static __always_inline void put_item(struct cap_scratch *sc, __u32 off, __u8 arg, __u8 kind,
				     __u8 flags, __u8 index, __u32 len)
{
	struct gtsc_payload_item *it = (void *)(sc->rec + off);

	it->arg = arg;
	it->kind = kind;
	it->flags = flags;
	it->index = index;
	it->len = len;
	it->__pad = 0;
	zero_pad(sc->rec, off, len);
	sc->last = off;
	sc->off = off + round8(ITEM_HDR + len);
}

/* Where the next item goes, bounded for the verifier; -1 when the record is full. */
static __always_inline long item_off(struct cap_scratch *sc)
{
	__u32 off = sc->off;

	if (off >= ITEM_OFF_END)
		return -1;
	return off & (ITEM_OFF_END - 1);
}

static __always_inline void cap_fault(struct cap_scratch *sc, __u8 arg, __u8 kind, __u8 index)
{
	long off = item_off(sc);

	if (off >= 0)
		put_item(sc, off, arg, kind, GTSC_PAY_FAULT, index, 0);
}

/*
 * A string of up to MAX bytes.  Reading MAX + 2 tells a string of exactly
 * MAX bytes (returns MAX + 1, the NUL included) from a longer one.
 * 0 when captured (or the record is full), <0 when the read faulted.
 */
static __always_inline long cap_str(struct cap_scratch *sc, __u8 arg, __u8 index, __u64 ptr,
				    __u32 max)
{
	long off = item_off(sc), n;
	__u8 flags = 0;

	if (off < 0)
		return 0;
	if (max > GTSC_CAP_PATH_MAX - 1)
		max = GTSC_CAP_PATH_MAX - 1;
	n = bpf_probe_read_user_str(sc->rec + off + ITEM_HDR, max + 2, (void *)ptr);
	if (n <= 0)
		return n ? n : -EFAULT;
	n--; /* the NUL */
	if (n > max) {
		n = max;
		flags = GTSC_PAY_TRUNCATED;
	}
	put_item(sc, off, arg, GTSC_PAY_STR, flags, index, n);
	return 0;
}

/* LEN bytes (at most GTSC_CAP_DATA_MAX, else cut and flagged); as cap_str. */
static __always_inline long cap_bytes(struct cap_scratch *sc, __u8 arg, __u8 kind, __u8 flags,
				      __u64 ptr, __u32 len)
{
	long off = item_off(sc), err;

	if (off < 0)
		return 0;
	if (len > GTSC_CAP_DATA_MAX) {
		len = GTSC_CAP_DATA_MAX;
		flags |= GTSC_PAY_TRUNCATED;
	}
	err = bpf_probe_read_user(sc->rec + off + ITEM_HDR, len, (void *)ptr);
	if (err)
		return err;
	put_item(sc, off, arg, kind, flags, 0, len);
	return 0;
}

/* min(want, max), flagging the cut; max is -s for data. */
static __always_inline __u32 clamp_len(__u64 want, __u32 max, __u8 *flags)
{
	*flags = 0;
	if (want > max) {
		*flags = GTSC_PAY_TRUNCATED;
		return max;
	}
	return want;
}

static __always_inline __u8 how_kind(__u8 how)
{
	switch (how) {
	case GTSC_CAP_IN_BUF:
	case GTSC_CAP_OUT_BUF: return GTSC_PAY_BUF;
	case GTSC_CAP_IN_SOCKADDR:
	case GTSC_CAP_OUT_SOCKADDR: return GTSC_PAY_SOCKADDR;
	case GTSC_CAP_IN_FIXED:
	case GTSC_CAP_OUT_FIXED: return GTSC_PAY_BUF;
	default: return GTSC_PAY_STR;
	}
}

/* A struct's size from the table, bounded for the verifier (the loader never exceeds it). */
static __always_inline __u32 fixed_len(__u16 size)
{
	return size > GTSC_CAP_FIXED_MAX ? GTSC_CAP_FIXED_MAX : size;
}

/* ---- sys_enter ---- */

/* Saves a faulted read for exit; without room, the fault is final. */
static __always_inline void cap_retry_later(struct cap_scratch *sc, struct cap_pending *p, __u8 how,
					    __u8 arg, __u8 index, __u8 flags, __u64 ptr, __u32 len)
{
	__u32 i = p->nr_retry;
	struct cap_retry *r;

	if (i >= GTSC_CAP_RETRY_MAX) {
		cap_fault(sc, arg, how_kind(how), index);
		return;
	}
	r = &p->retry[i];
	r->ptr = ptr;
	r->len = len;
	r->how = how;
	r->arg = arg;
	r->index = index;
	r->flags = flags;
	p->nr_retry = i + 1;
}

/*
 * argv: the first GTSC_CAP_ARGV_MAX strings, each cut at -s as strace does,
 * the last one flagged GTSC_PAY_MORE when the array goes on.  A faulting
 * array ends the capture with a FAULT item at that index.
 */
static __always_inline void cap_strv(struct cap_scratch *sc, struct cap_pending *p, __u8 arg,
				     __u64 arr)
{
	__u32 max = gtsc_cap_data;
	__u64 s;
	int i;

	for (i = 0; i < GTSC_CAP_ARGV_MAX; i++) {
		if (bpf_probe_read_user(&s, sizeof(s), (void *)(arr + i * 8))) {
			cap_fault(sc, arg, GTSC_PAY_STR, i);
			return;
		}
		if (!s)
			return;
		if (cap_str(sc, arg, i, s, max))
			cap_retry_later(sc, p, GTSC_CAP_PATH, arg, i, 0, s, max);
	}
	if (!bpf_probe_read_user(&s, sizeof(s), (void *)(arr + i * 8)) && s &&
	    sc->last < SCRATCH_SZ - ITEM_HDR)
		((struct gtsc_payload_item *)(sc->rec + sc->last))->flags |= GTSC_PAY_MORE;
}

/*
 * An argument index already checked <= 5, bounded again where it is used:
 * clang may spill the spec's byte before the check and reload it after,
 * and 6.1's verifier does not carry the check over to the reloaded copy
 * (later kernels track spilled scalars).  The mask is in asm so that clang
 * cannot drop it as redundant.
 */
static __always_inline __u32 arg_index(__u32 i)
{
	asm volatile("%[i] &= 7" : [i] "+r"(i));
	return i;
}

static __always_inline void cap_enter_spec(struct cap_scratch *sc, struct cap_pending *p,
					   struct gtsc_cap_spec sp)
{
	__u64 ptr, len;
	__u8 flags;

	if (sp.arg > 5 || sp.len_arg > 5)
		return;
	ptr = sc->args[arg_index(sp.arg)];
	len = sc->args[arg_index(sp.len_arg)];
	if (!ptr)
		return; /* NULL: the report prints the argument as it is */
	switch (sp.how) {
	case GTSC_CAP_PATH:
		if (cap_str(sc, sp.arg, 0, ptr, GTSC_CAP_PATH_MAX - 1))
			cap_retry_later(sc, p, sp.how, sp.arg, 0, 0, ptr, GTSC_CAP_PATH_MAX - 1);
		break;
	case GTSC_CAP_STRV:
		cap_strv(sc, p, sp.arg, ptr);
		break;
	case GTSC_CAP_IN_BUF:
		len = clamp_len(len, gtsc_cap_data, &flags);
		if (cap_bytes(sc, sp.arg, GTSC_PAY_BUF, flags, ptr, len))
			cap_retry_later(sc, p, sp.how, sp.arg, 0, flags, ptr, len);
		break;
	case GTSC_CAP_IN_SOCKADDR:
		if ((int)len <= 0)
			break;
		len = clamp_len((int)len, GTSC_CAP_SOCKADDR_MAX, &flags);
		if (cap_bytes(sc, sp.arg, GTSC_PAY_SOCKADDR, flags, ptr, len))
			cap_retry_later(sc, p, sp.how, sp.arg, 0, flags, ptr, len);
		break;
	case GTSC_CAP_IN_FIXED:
		len = fixed_len(sp.size);
		if (cap_bytes(sc, sp.arg, GTSC_PAY_BUF, 0, ptr, len))
			cap_retry_later(sc, p, sp.how, sp.arg, 0, 0, ptr, len);
		break;
	}
}

static __always_inline void fill_args(__u64 *args, struct pt_regs *regs)
{
	args[0] = PT_REGS_PARM1_SYSCALL(regs);
	args[1] = PT_REGS_PARM2_SYSCALL(regs);
	args[2] = PT_REGS_PARM3_SYSCALL(regs);
	args[3] = PT_REGS_PARM4_SYSCALL(regs);
	args[4] = PT_REGS_PARM5_SYSCALL(regs);
	args[5] = PT_REGS_PARM6_SYSCALL(regs);
}

/* Argument I of the call, from a BTF pt_regs; false when I > 5. */
static __always_inline bool reg_arg(struct pt_regs *regs, __u8 i, __u64 *v)
{
	switch (i) {
	case 0: *v = PT_REGS_PARM1_SYSCALL(regs); return true;
	case 1: *v = PT_REGS_PARM2_SYSCALL(regs); return true;
	case 2: *v = PT_REGS_PARM3_SYSCALL(regs); return true;
	case 3: *v = PT_REGS_PARM4_SYSCALL(regs); return true;
	case 4: *v = PT_REGS_PARM5_SYSCALL(regs); return true;
	case 5: *v = PT_REGS_PARM6_SYSCALL(regs); return true;
	default: return false;
	}
}

/* False when the scratch is busy: the caller writes the plain record. */
static __always_inline bool sys_enter_capture(struct pt_regs *regs, long nr, __u64 id)
{
	__u32 tid = id;
	struct cap_scratch *sc = scratch_get();
	const volatile struct gtsc_cap_set *set;
	struct gtsc_rec_sys_enter *e;
	__u32 size;

	if (!sc)
		return false;
	set = &gtsc_cap[nr & (GTSC_NR_SYSCALLS - 1)];
	e = (void *)sc->rec;
	sc->off = sizeof(*e);
	sc->last = 0;
	sc->pend.nr = nr;
	sc->pend.nr_retry = 0;
	fill_args(sc->args, regs);
	for (int i = 0; i < GTSC_CAP_SPECS; i++)
		cap_enter_spec(sc, &sc->pend, set->spec[i]);
	size = sc->off;
	gtsc_fill_hdr_id(&e->hdr, GTSC_REC_SYS_ENTER, size, id);
	e->nr = nr;
	e->payload_len = size - sizeof(*e);
	e->__pad = 0;
	__builtin_memcpy(e->args, sc->args, sizeof(e->args));
	gtsc_output(GTSC_CLASS_SYSCALLS, e, size, REC_MAX);
	/* Even when the record was dropped: the exit record stands alone. */
	if (sc->pend.nr_retry)
		pending_put(tid, &sc->pend);
	scratch_put(sc);
	return true;
}

/*
 * ---- stack captures ----
 * Most captured calls read one short thing: the path of an open or a stat,
 * the data of a read (-s: 32 bytes), a struct stat.  Read into the scratch
 * above, each cost ~270 ns more than a plain event (perf, openread on the
 * 6.18 host: openat's enter 411 ns an event, read's exit 389, close's 140
 * and 116): the scratch's atomic flag and its generic walk of the specs,
 * and for the helpers, whose destination is a per-CPU map value, the
 * hardened usercopy checks (__check_object_size, is_vmalloc_addr,
 * __virt_addr_valid: ~65 ns a read).  A destination on the stack passes
 * those in two compares, and the calls whose shape the loader marked
 * (GTSC_SYS_ENTER_ONE, GTSC_SYS_EXIT_ONE: one read at enter, one at exit)
 * build their record there.  A longer string or buffer, a read at enter
 * that faulted, or an exit with reads to retry takes the scratch's path
 * instead (the string is read again there): the record is the same byte
 * for byte either way.  Measured (2026-11-27, 6.18 host): openat's
 * enter 411 -> 297 ns, read's exit 389 -> 226 (perf, as above); bpf_stats
 * 225 -> 185 ns an event; `make bench` open/read/close +507.5 -> +415.9 ns
 * a call (trace-cmd +554.5: 0.92x -> 0.75x), getppid unchanged.  What is
 * left of a capture is mostly the helper itself: strncpy_from_user's
 * chain ~95 ns, copy_from_user_nofault's ~88 (SRSO's return thunks on
 * this AMD host make every call level dear).
 */
#define STACK_CAP 160 /* bytes read on the stack: a string with its NUL, a struct stat (144) */

struct stack_enter {
	struct gtsc_rec_sys_enter e;
	struct gtsc_payload_item it;
	__u8 data[STACK_CAP];
};

struct stack_exit {
	struct gtsc_rec_sys_exit e;
	struct gtsc_payload_item it;
	__u8 data[STACK_CAP];
};

static __always_inline void stack_item(struct gtsc_payload_item *it, __u8 arg, __u8 kind,
				       __u8 flags, __u32 len)
{
	it->arg = arg;
	it->kind = kind;
	it->flags = flags;
	it->index = 0;
	it->len = len;
	it->__pad = 0;
}

/*
 * The item of GTSC_SYS_ENTER_ONE's spec SP at PTR into R, as
 * cap_enter_spec writes it; LENV is the length argument's value.  Returns
 * the item's bytes in the record (0: none), or -1 when the scratch's path
 * must take it: a read that faulted (retried at exit there) or a string or
 * buffer longer than STACK_CAP (read again there).
 */
static __always_inline long stack_in_item(struct stack_enter *r, struct gtsc_cap_spec sp,
					  __u64 ptr, __u64 lenv)
{
	__u8 flags = 0, kind = GTSC_PAY_BUF;
	__u32 len;
	long n;

	switch (sp.how) {
	case GTSC_CAP_PATH:
		n = bpf_probe_read_user_str(r->data, sizeof(r->data), (void *)ptr);
		if (n <= 0 || n >= (long)sizeof(r->data))
			return -1;
		stack_item(&r->it, sp.arg, GTSC_PAY_STR, 0, n - 1);
		return ITEM_HDR + round8(n - 1);
	case GTSC_CAP_IN_BUF:
		len = clamp_len(lenv, gtsc_cap_data, &flags);
		break;
	case GTSC_CAP_IN_SOCKADDR:
		if ((int)lenv <= 0)
			return 0;
		len = clamp_len((int)lenv, GTSC_CAP_SOCKADDR_MAX, &flags);
		kind = GTSC_PAY_SOCKADDR;
		break;
	case GTSC_CAP_IN_FIXED:
		len = fixed_len(sp.size);
		break;
	default:
		return -1;
	}
	if (len > sizeof(r->data) || bpf_probe_read_user(r->data, len, (void *)ptr))
		return -1;
	stack_item(&r->it, sp.arg, kind, flags, len);
	return ITEM_HDR + round8(len);
}

/* GTSC_SYS_ENTER_ONE's record (see stack captures); false: the scratch's path. */
static __always_inline bool sys_enter_stack(struct pt_regs *regs, long nr, __u64 id)
{
	struct gtsc_cap_spec sp = gtsc_cap[nr & (GTSC_NR_SYSCALLS - 1)].spec[0];
	__u32 size = sizeof(struct gtsc_rec_sys_enter);
	struct stack_enter r;
	__u64 ptr;
	long n;

	if (sp.arg > 5 || sp.len_arg > 5)
		return false;
	/* All of it: the padding after the data is the record's, and the
	 * ring buffer's copy wants every byte up to the bound initialised. */
	__builtin_memset(&r, 0, sizeof(r));
	fill_args(r.e.args, regs);
	ptr = r.e.args[arg_index(sp.arg)];
	if (ptr) { /* NULL: the report prints the argument as it is */
		n = stack_in_item(&r, sp, ptr, r.e.args[arg_index(sp.len_arg)]);
		if (n < 0)
			return false;
		size += n;
	}
	gtsc_fill_hdr_id(&r.e.hdr, GTSC_REC_SYS_ENTER, size, id);
	r.e.nr = nr;
	r.e.payload_len = size - sizeof(r.e);
	gtsc_output_stack(GTSC_CLASS_SYSCALLS, &r, size, sizeof(r));
	return true;
}

static __always_inline int sys_enter_plain(struct pt_regs *regs, long nr, __u64 id)
{
	struct gtsc_rec_sys_enter *e;
	struct gtsc_slot s;

	if (!gtsc_reserve_id(&s, GTSC_CLASS_SYSCALLS, GTSC_REC_SYS_ENTER, sizeof(*e), id))
		return 0;
	e = s.rec;
	e->nr = nr;
	e->payload_len = 0;
	e->__pad = 0;
	fill_args(e->args, regs);
	gtsc_submit(&s);
	return 0;
}

/* The i386 ABI's argument registers, 32 bits each (do_syscall_32's). */
static __always_inline int sys_enter_compat(struct pt_regs *regs, long nr, __u64 id)
{
	struct gtsc_rec_sys_enter *e;
	struct gtsc_slot s;

	if (gtsc_sys_filter_on)
		return 0;
	if (!gtsc_reserve_id(&s, GTSC_CLASS_SYSCALLS, GTSC_REC_SYS_ENTER, sizeof(*e), id))
		return 0;
	e = s.rec;
	e->hdr.flags = GTSC_SYS_F_COMPAT;
	e->nr = nr;
	e->payload_len = 0;
	e->__pad = 0;
	e->args[0] = (__u32)regs->bx;
	e->args[1] = (__u32)regs->cx;
	e->args[2] = (__u32)regs->dx;
	e->args[3] = (__u32)regs->si;
	e->args[4] = (__u32)regs->di;
	e->args[5] = (__u32)regs->bp;
	gtsc_submit(&s);
	return 0;
}

static __always_inline int sys_enter_body(struct pt_regs *regs, long nr, bool raw)
{
	struct task_struct *t;
	__u64 id;
	__u8 f;

	if (gtsc_trigger_on && !in_compat(raw, raw ? NULL : bpf_get_current_task_btf()))
		gtsc_trigger_syscall(nr); /* --snapshot-on syscall=NAME */
	/* The common case (no flag) costs one load and one test. */
	f = nr_flags(nr);
	/* a compat call whose number looks filtered out is dropped anyway: the filter is on */
	if ((f & GTSC_SYS_SKIP) || !gtsc_on)
		return 0;
	id = caller(raw, &t);
	if (!gtsc_tgid_wanted(id >> 32))
		return 0;
	if (in_compat(raw, t))
		return sys_enter_compat(regs, nr, id);
	if ((f & GTSC_SYS_ENTER_ONE) && !raw && sys_enter_stack(regs, nr, id))
		return 0;
	if ((f & GTSC_SYS_CAP_ENTER) && sys_enter_capture(regs, nr, id))
		return 0;
	return sys_enter_plain(regs, nr, id);
}

/* ---- sys_exit ---- */

static __always_inline void cap_retry(struct cap_scratch *sc, const struct cap_retry *r, bool newmm)
{
	__u8 kind = how_kind(r->how);
	long err = -EFAULT;

	/* After a successful execve the pointer means something else. */
	if (!newmm && kind == GTSC_PAY_STR)
		err = cap_str(sc, r->arg, r->index, r->ptr, r->len);
	else if (!newmm)
		err = cap_bytes(sc, r->arg, kind, r->flags, r->ptr, r->len);
	if (err)
		cap_fault(sc, r->arg, kind, r->index);
}

static __always_inline void cap_exit_spec(struct cap_scratch *sc, struct gtsc_cap_spec sp, long ret)
{
	__u64 ptr, lenp;
	__u32 len;
	__u8 flags;
	int alen;

	if (sp.arg > 5 || sp.len_arg > 5 || ret < 0)
		return;
	ptr = sc->args[arg_index(sp.arg)];
	lenp = sc->args[arg_index(sp.len_arg)];
	if (!ptr)
		return;
	switch (sp.how) {
	case GTSC_CAP_OUT_BUF:
	case GTSC_CAP_OUT_STR:
		len = clamp_len(ret, gtsc_cap_data, &flags);
		break;
	case GTSC_CAP_OUT_SOCKADDR:
		/* accept, recvfrom, getsockname: the kernel wrote back the length too. */
		if (!lenp || bpf_probe_read_user(&alen, sizeof(alen), (void *)lenp) || alen <= 0)
			return;
		len = clamp_len(alen, GTSC_CAP_SOCKADDR_MAX, &flags);
		break;
	case GTSC_CAP_OUT_FIXED:
		len = fixed_len(sp.size);
		flags = 0;
		break;
	default:
		return;
	}
	if (cap_bytes(sc, sp.arg, how_kind(sp.how), flags, ptr, len))
		cap_fault(sc, sp.arg, how_kind(sp.how), 0);
}

/*
 * As sys_enter_capture: P's retries (may be NULL), then with
 * GTSC_SYS_CAP_EXIT the output buffers, through the argument registers of
 * REGS (a BTF pointer, or RAW_REGS for raw_tp's, which must be copied).
 */
static __always_inline bool sys_exit_capture(struct pt_regs *regs, bool raw_regs,
					     const struct cap_pending *p, long nr, long ret, __u8 f,
					     __u64 id)
{
	const volatile struct gtsc_cap_set *set = &gtsc_cap[nr & (GTSC_NR_SYSCALLS - 1)];
	bool newmm = (set->flags & GTSC_CAP_F_NEWMM) && ret == 0;
	struct cap_scratch *sc = scratch_get();
	__u32 n = p ? p->nr_retry : 0, size;
	struct gtsc_rec_sys_exit *e;

	if (!sc)
		return false;
	e = (void *)sc->rec;
	sc->off = sizeof(*e);
	sc->last = 0;
	for (__u32 i = 0; i < GTSC_CAP_RETRY_MAX; i++)
		if (p && i < n)
			cap_retry(sc, &p->retry[i], newmm);
	if (f & GTSC_SYS_CAP_EXIT) {
		if (raw_regs) {
			bpf_probe_read_kernel(&sc->regs, sizeof(sc->regs), regs);
			regs = &sc->regs;
		}
		fill_args(sc->args, regs);
		for (int i = 0; i < GTSC_CAP_SPECS; i++)
			cap_exit_spec(sc, set->spec[i], ret);
	}
	size = sc->off;
	gtsc_fill_hdr_id(&e->hdr, GTSC_REC_SYS_EXIT, size, id);
	e->nr = nr;
	e->payload_len = size - sizeof(*e);
	e->__pad = 0;
	e->ret = ret;
	gtsc_output(GTSC_CLASS_SYSCALLS, e, size, REC_MAX);
	scratch_put(sc);
	return true;
}

/*
 * GTSC_SYS_EXIT_ONE's record (see stack captures), as cap_exit_spec writes
 * it, when its buffer fits STACK_CAP; false otherwise.  REGS is BTF's.
 */
static __always_inline bool sys_exit_stack(struct pt_regs *regs, long nr, long ret, __u8 f,
					   __u64 id)
{
	const volatile struct gtsc_cap_set *set = &gtsc_cap[nr & (GTSC_NR_SYSCALLS - 1)];
	struct gtsc_cap_spec sp = set->spec[GTSC_SYS_EXIT_SPEC(f)];
	__u32 size = sizeof(struct gtsc_rec_sys_exit), len;
	struct stack_exit r;
	__u8 flags = 0;
	__u64 ptr;

	if (ret < 0)
		ptr = 0; /* failed: nothing to read */
	else if (!reg_arg(regs, sp.arg, &ptr))
		return false;
	__builtin_memset(&r, 0, sizeof(r));
	if (ptr) {
		if (sp.how == GTSC_CAP_OUT_FIXED)
			len = fixed_len(sp.size);
		else
			len = clamp_len(ret, gtsc_cap_data, &flags);
		if (len > sizeof(r.data))
			return false;
		if (bpf_probe_read_user(r.data, len, (void *)ptr)) {
			flags = GTSC_PAY_FAULT;
			len = 0;
		}
		stack_item(&r.it, sp.arg, how_kind(sp.how), flags, len);
		size += ITEM_HDR + round8(len);
	}
	gtsc_fill_hdr_id(&r.e.hdr, GTSC_REC_SYS_EXIT, size, id);
	r.e.nr = nr;
	r.e.payload_len = size - sizeof(r.e);
	r.e.ret = ret;
	gtsc_output_stack(GTSC_CLASS_SYSCALLS, &r, size, sizeof(r));
	return true;
}

/* The caller has decided the task is traced.  FLAGS: enum gtsc_sys_rec_flags. */
static __always_inline int sys_exit_write(long nr, long ret, __u16 flags, __u64 id)
{
	struct gtsc_rec_sys_exit *e;
	struct gtsc_slot s;

	if (!gtsc_reserve_id(&s, GTSC_CLASS_SYSCALLS, GTSC_REC_SYS_EXIT, sizeof(*e), id))
		return 0;
	e = s.rec;
	e->hdr.flags = flags;
	e->nr = nr;
	e->payload_len = 0;
	e->__pad = 0;
	e->ret = ret;
	gtsc_submit(&s);
	return 0;
}

/* Flags set: filtered out, or captured. */
static __always_inline int sys_exit_flagged(struct pt_regs *regs, bool raw_regs, long nr,
					    long ret, __u8 f, __u64 id)
{
	__u32 tid = id;
	struct cap_pending *p = NULL;
	bool done = false, wanted;

	if (f & GTSC_SYS_SKIP)
		return 0;
	/* Before the on/off check: an entry must not outlive its call. */
	if ((f & GTSC_SYS_CAP_ENTER) && *(volatile __u64 *)&gtsc_cap_pending_n)
		p = bpf_map_lookup_elem(&gtsc_cap_pending, &tid);
	if (p && p->nr != nr) {
		/* Left by a call whose exit was not seen. */
		pending_del(tid);
		p = NULL;
	}
	/* The filter runs once: a call captured nothing still gets its plain record. */
	wanted = traced(id);
	/* P: reads to retry first, the scratch's work */
	if (wanted && !p && (f & GTSC_SYS_EXIT_ONE) && !raw_regs)
		done = sys_exit_stack(regs, nr, ret, f, id);
	if (wanted && !done && (p || (f & GTSC_SYS_CAP_EXIT)))
		done = sys_exit_capture(regs, raw_regs, p, nr, ret, f, id);
	if (p)
		pending_del(tid);
	return done || !wanted ? 0 : sys_exit_write(nr, ret, 0, id);
}

/* RAW_REGS: raw_tp's REGS, read through probes; the BTF programs' otherwise. */
static __always_inline int sys_exit_body(struct pt_regs *regs, bool raw_regs, long nr, long ret)
{
	__u8 f = nr_flags(nr);
	struct task_struct *t;
	__u64 id;

	if (!f && !gtsc_on)
		return 0;
	id = caller(raw_regs, &t);
	if (!f) {
		if (!gtsc_tgid_wanted(id >> 32))
			return 0;
		if (in_compat(raw_regs, t))
			return gtsc_sys_filter_on ? 0 : sys_exit_write(nr, ret, GTSC_SYS_F_COMPAT, id);
		return sys_exit_write(nr, ret, 0, id);
	}
	/* flagged: a compat call's number means nothing to the flags; its enter captured nothing */
	if (in_compat(raw_regs, t))
		return gtsc_sys_filter_on || !traced(id) ? 0 :
			sys_exit_write(nr, ret, GTSC_SYS_F_COMPAT, id);
	return sys_exit_flagged(regs, raw_regs, nr, ret, f, id);
}

/*
 * ---- rescue (gtsc_shared.h) ----
 * A thread's syscall events come one at a time, never from an interrupt,
 * and alternate: enter, exit, enter...  For each, the first program runs
 * (or is skipped), then the three rescue programs, in attach order, possibly
 * with the thread preempted in between.  The thread's byte says which hook
 * last had its event recorded by one of them: the first program sets it
 * before anything else; a rescue program that finds it naming the other
 * hook records the event (the programs before it skipped it) and sets it.
 * Nothing clears it: the next event, of the other hook, overwrites it.  (A
 * bit cleared by the last rescue program stayed set whenever that one was
 * skipped, and then the thread's next skipped event was taken for handled.)
 * Three levels: on PREEMPT_RT the first rescue program, recording in full,
 * was itself preempted about once in 1,000 rescues, and two lost 4 events
 * in one run of test_rt.sh on 7.3.4-rt (GTSC_RESCUE_LEVELS).  Nothing is
 * written twice; an event all four skip is lost, and counted: the first
 * program's misses minus the rescued events.
 */
/*
 * The bytes, eight threads to a value.  Only kernels that run these
 * programs preemptible need them (the feature probe's bpf_preemptible:
 * PREEMPT_RT, 7.x): elsewhere the loader leaves the rescue programs out,
 * shrinks this map to one entry and clears gtsc_sys_rescue.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GTSC_MARK_TIDS / 8);
	__type(key, __u32);
	__type(value, __u64);
} gtsc_sys_mark SEC(".maps");

const volatile __u32 gtsc_sys_rescue = 0;

#define MARK_ENTER GTSC_MARK_ENTER
#define MARK_EXIT GTSC_MARK_EXIT

static __always_inline void sys_ran(__u8 hook)
{
	if (gtsc_sys_rescue)
		gtsc_mark_ran(&gtsc_sys_mark, hook);
}

static __always_inline bool sys_skipped(__u8 hook, __u32 slot)
{
	return gtsc_mark_skipped(&gtsc_sys_mark, hook, slot);
}

static __always_inline int enter_btf(struct pt_regs *regs, long id)
{
	return sys_enter_body(regs, id, false);
}

static __always_inline int exit_btf(struct pt_regs *regs, long ret)
{
	return sys_exit_body(regs, false, regs->orig_ax, ret);
}

static __always_inline int enter_raw(struct pt_regs *regs, long id)
{
	struct pt_regs r;

	/* A compat call's id may look filtered out: with a filter set it is anyway. */
	if (!gtsc_on || (nr_flags(id) & GTSC_SYS_SKIP))
		return 0;
	bpf_probe_read_kernel(&r, sizeof(r), regs);
	return sys_enter_body(&r, id, true);
}

static __always_inline int exit_raw(struct pt_regs *regs, long ret)
{
	return sys_exit_body(regs, true, BPF_CORE_READ(regs, orig_ax), ret);
}

/*
 * ---- dispatch (doc/notes/sessions-dispatch.md, issue #13) ----
 * Where the kernel runs these programs with preemption off (no rescue
 * programs), concurrent sessions do not each attach their first pair.  The
 * first session alone attaches its pair directly, as the head; every
 * later session's pair sits in a slot of the hook's prog array, and the
 * head's programs, after their own work, call the slots (dispatch.c keeps
 * the head's links alive in every member, and retires the head's own work
 * when its session ends).  The keys are constants (gtsc_sys_slot is
 * rodata, the loops unrolled): the JIT turns each tail call into a direct
 * jump patched when the slot is filled or emptied.  Eight sessions on the
 * hook cost the kernel's per-program floor once instead of eight times,
 * and a session alone pays no program of its own beside it: a separate
 * dispatcher program attached first cost it ~30 ns a syscall (2026-11-27:
 * open/read/close 0.99x trace-cmd's added cost through it, 0.86x direct).
 *
 * The mask: the head calls only the slots that may want the event,
 * gtsc_sys_every (sessions without -p: -a, -C, --cgroup, and any whose
 * insert into the hash failed) or'ed with gtsc_sys_mask[tgid] (the -p
 * sessions' bits, set wherever a session adds a tgid to its gtsc_pids:
 * gtsc_session__track_pid and task.bpf.c's fork handler, before the child
 * runs).  It keeps the mask in a per-CPU scratch, and each session's program,
 * after its own work (its own filters: the mask only skips calls, an extra
 * bit costs a filtered call, a missing one would lose events), tail-calls
 * the next set slot after its own.  Per CPU is safe: the chain runs only
 * where these programs are not preemptible (the feature row sys_dispatch)
 * and a syscall hook does not nest, so nothing runs between the
 * head's store and the chain's last load on this CPU.  Without the
 * mask every filtered-out session cost ~35 ns a call (enter + exit: its
 * prologue, filters and tail call; 8 sessions 1.93x one, 2026-11-27).
 *
 * Two arrays: a prog array takes programs of one attach point only (the
 * kernel compares the owner's attach function since 6.11's "bpf: Prevent tail
 * call between progs attached to different hooks").  Their names are not
 * the unmasked chain's (gtsc_sys_chain_*, which dispatch.c's name check
 * of a recorder built before the mask requires): such a recorder never
 * joins this chain, where no bit would ever call its slot.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, GTSC_DISPATCH_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} gtsc_sys_mchain_enter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PROG_ARRAY);
	__uint(max_entries, GTSC_DISPATCH_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} gtsc_sys_mchain_exit SEC(".maps");

/* Outside the chain the loader shrinks the hash to one entry. */
struct GTSC_SYS_MASK_DEF gtsc_sys_mask SEC(".maps");
struct GTSC_SYS_EVERY_DEF gtsc_sys_every SEC(".maps");

/*
 * MASK: the running event's, from the head to the chain (see above).
 * The rest is this CPU's last look into gtsc_sys_mask: TGID (plus one, 0:
 * none), its bits HMASK, and GEN, the word's generation before that
 * lookup.  A writer bumps the generation after changing the hash
 * (task.bpf.c, dispatch.c), so a lookup that may have missed a change is
 * not reused after it; a forked child's first syscall comes after its
 * parent's fork handler bumped it.  What it saves is the hash lookup
 * while one task keeps calling on this CPU.  x86 only, as gtsc_pid_tracked.
 */
struct sys_cur {
	__u32 mask;
	__u32 tgid;
	__u32 hmask;
	__u32 gen;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct sys_cur);
} gtsc_sys_cur SEC(".maps");

/* Set by the loader: this session's slot, GTSC_SYS_HEAD or GTSC_SYS_DIRECT (gtsc_shared.h). */
const volatile __u32 gtsc_sys_slot = GTSC_SYS_DIRECT;

/*
 * The slots from FROM on whose bit MASK has, in order, each a direct jump;
 * a tail call that finds its slot empty (a freed slot's stale bit) falls
 * through to the next.  With FROM past the last slot the verifier prunes
 * them all.
 */
static __always_inline void chain_from(void *ctx, void *chain, __u32 from, __u32 mask)
{
#pragma unroll
	for (__u32 j = 0; j < GTSC_DISPATCH_SLOTS; j++)
		if (j >= from && (mask & (1u << j)))
			bpf_tail_call(ctx, chain, j);
}

/* The head's: the word (slots taking every task, RETIRED, the generation), read once an event. */
static __always_inline __u64 head_word(void)
{
	__u32 zero = 0;
	__u64 *word;

	if (gtsc_sys_slot != GTSC_SYS_HEAD)
		return 0;
	word = bpf_map_lookup_elem(&gtsc_sys_every, &zero);
	return word ? *(volatile __u64 *)word : 0;
}

/* The head calls the slots of WORD and of the event's tgid (see above). */
static __always_inline void dispatch(void *ctx, void *chain, __u64 w)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0, gen = w >> 32, *m;
	struct sys_cur *cur = bpf_map_lookup_elem(&gtsc_sys_cur, &zero);
	bool hit = false;

	if (!cur)
		return;
#if defined(__TARGET_ARCH_x86)
	hit = cur->tgid == tgid + 1 && cur->gen == gen;
	asm volatile("" ::: "memory"); /* the generation is read before the lookup */
#endif
	if (!hit) {
		m = bpf_map_lookup_elem(&gtsc_sys_mask, &tgid);
		cur->hmask = m ? *m : 0;
		cur->tgid = tgid + 1;
		cur->gen = gen;
	}
	cur->mask = ((__u32)w & ~GTSC_SYS_RETIRED) | cur->hmask;
	if (cur->mask)
		chain_from(ctx, chain, 0, cur->mask);
}

/* After a session's own work: the head calls the chain, a slot the next set slot. */
static __always_inline void chain_next(void *ctx, void *chain, __u64 w)
{
	struct sys_cur *cur;
	__u32 zero = 0;

	if (gtsc_sys_slot == GTSC_SYS_HEAD) {
		dispatch(ctx, chain, w);
		return;
	}
	if (gtsc_sys_slot >= GTSC_DISPATCH_SLOTS)
		return;
	cur = bpf_map_lookup_elem(&gtsc_sys_cur, &zero);
	if (cur)
		chain_from(ctx, chain, gtsc_sys_slot + 1, cur->mask);
}

/*
 * The programs of one flavour (tp_btf or raw_tp, KIND btf or raw): the
 * first pair, gtsc_sys_{enter,exit}_KIND, then each rescue pair, NAME _r,
 * _r2 and _r3 (attached only where bpf_preemptible).
 */
#define SYS_PROGS(sec, kind)                                                                       \
	SEC(sec "/sys_enter")                                                                      \
	int BPF_PROG(gtsc_sys_enter_##kind, struct pt_regs *regs, long id)                         \
	{                                                                                          \
		__u64 w = head_word();                                                             \
                                                                                                   \
		sys_ran(MARK_ENTER);                                                               \
		if (!(w & GTSC_SYS_RETIRED))                                                       \
			enter_##kind(regs, id);                                                    \
		chain_next(ctx, &gtsc_sys_mchain_enter, w);                                        \
		return 0;                                                                          \
	}                                                                                          \
	SEC(sec "/sys_exit")                                                                       \
	int BPF_PROG(gtsc_sys_exit_##kind, struct pt_regs *regs, long ret)                         \
	{                                                                                          \
		__u64 w = head_word();                                                             \
                                                                                                   \
		sys_ran(MARK_EXIT);                                                                \
		if (!(w & GTSC_SYS_RETIRED))                                                       \
			exit_##kind(regs, ret);                                                    \
		chain_next(ctx, &gtsc_sys_mchain_exit, w);                                         \
		return 0;                                                                          \
	}

#define SYS_RESCUE(sec, kind, name)                                                                \
	SEC(sec "/sys_enter")                                                                      \
	int BPF_PROG(gtsc_sys_enter_##kind##name, struct pt_regs *regs, long id)                   \
	{                                                                                          \
		if (!sys_skipped(MARK_ENTER, GTSC_RESCUE_SYS_ENTER))                               \
			return 0;                                                                  \
		return enter_##kind(regs, id);                                                     \
	}                                                                                          \
	SEC(sec "/sys_exit")                                                                       \
	int BPF_PROG(gtsc_sys_exit_##kind##name, struct pt_regs *regs, long ret)                   \
	{                                                                                          \
		if (!sys_skipped(MARK_EXIT, GTSC_RESCUE_SYS_EXIT))                                 \
			return 0;                                                                  \
		return exit_##kind(regs, ret);                                                     \
	}

SYS_PROGS("tp_btf", btf)
SYS_RESCUE("tp_btf", btf, _r)
SYS_RESCUE("tp_btf", btf, _r2)
SYS_RESCUE("tp_btf", btf, _r3)
SYS_PROGS("raw_tp", raw)
SYS_RESCUE("raw_tp", raw, _r)
SYS_RESCUE("raw_tp", raw, _r2)
SYS_RESCUE("raw_tp", raw, _r3)
