// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * Any tracepoint by name (-e GROUP:NAME): one classic tracepoint program,
 * attached by the loader to every tracepoint asked for, copies the raw entry
 * the kernel built for perf (ctx) into a GTSC_REC_TRACEPOINT record.  Nothing
 * is formatted here; gtsc_tp_infos says how far the entry's fixed part and
 * its __data_loc data reach.  The kernel stores a pt_regs pointer over the
 * entry's first 8 bytes, the common fields, before it runs the program
 * (perf_trace_run_bpf_submit): the attach cookie says which event it is
 * (its index in gtsc_tp_infos, which holds the id, common_type), and the
 * common fields are rebuilt: type and pid, flags and preempt count 0.
 * Classic tracepoint programs are the ones that see the entry: raw_tp and
 * tp_btf get the tracepoint's arguments, which differ per event.
 *
 * Except for syscall events on kernels that skip them (the feature probe's
 * syscall_tp_classic): there the loader leaves syscalls:sys_enter_X /
 * sys_exit_X and raw_syscalls:* to the tp_btf programs at the end of this
 * file, which build the same entry from raw_syscalls sys_enter/sys_exit.
 */
#include "gtsc.bpf.h"
#include "gtsc_syscalls.h"
#include "gtsc_mark.h"

/* An array (its lookup is inlined), indexed by the attach cookie. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GTSC_TP_MAX_EVENTS);
	__type(key, __u32);
	__type(value, struct gtsc_tp_info);
} gtsc_tp_infos SEC(".maps");

struct gtsc_tp_scratch {
	__u8 raw[sizeof(struct gtsc_rec_tracepoint) + GTSC_TP_MAX_DATA];
};

/*
 * One entry per CPU is enough: the kernel does not nest this program on a
 * CPU (classic tracepoint programs share the per-CPU bpf_prog_active guard,
 * a nested run is skipped).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gtsc_tp_scratch);
} gtsc_tp_scratch SEC(".maps");

/* struct trace_entry: common_type, _flags, _preempt_count, _pid */
#define TP_COMMON 8

/* Where the entry's last dynamic field ends, from its __data_loc/__rel_loc words. */
static __always_inline __u32 tp_entry_len(void *ctx, const struct gtsc_tp_info *info)
{
	__u32 len = info->fixed;

#pragma clang loop unroll(full)
	for (__u32 i = 0; i < GTSC_TP_MAX_DYN; i++) {
		__u16 at = info->dyn[i] & ~GTSC_TP_DYN_REL;
		__u32 loc = 0, end;

		if (i >= info->nr_dyn)
			break;
		bpf_probe_read_kernel(&loc, sizeof(loc), ctx + at);
		end = (loc & 0xffff) + (loc >> 16);
		if (info->dyn[i] & GTSC_TP_DYN_REL)
			end += at + sizeof(loc);
		if (end > len)
			len = end;
	}
	return len;
}

/*
 * gtsc_output's write with one helper call instead of three (dynptr
 * reserve, write, submit): bpf_ringbuf_output copies REC in.  Counted once
 * the call says whether it went in; the same sparse wakeups, decided on the
 * data pending before this record.
 */
static __always_inline void tp_output(const void *rec, __u32 size, __u32 max)
{
	const __u32 class = GTSC_CLASS_EVENTS;
	__u64 pending, wake = gtsc_routes[class].wake_bytes, flags = BPF_RB_NO_WAKEUP;
	void *ring;

	if (gtsc_emulated(class)) {
		gtsc_flight_output(class, rec, size);
		return;
	}
	if (gtsc_arr_class(class)) {
		gtsc_arr_output(class, rec, size, max);
		return;
	}
	ring = gtsc_ring(class);
	if (!ring || size > max) {
		gtsc_count(class, true);
		return;
	}
	pending = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA) + size + 8;
	if (!gtsc_routes[class].native && pending >= wake && pending < wake + size + 16)
		flags = BPF_RB_FORCE_WAKEUP;
	gtsc_count(class, bpf_ringbuf_output(ring, (void *)rec, size, flags) != 0);
}

/*
 * Returns 1 always: a classic tracepoint program's 0 tells the kernel to
 * drop the event for every perf user of the tracepoint (perf record,
 * another tracer) system-wide (perf_trace_run_bpf_submit); 1 lets it pass.
 */
SEC("tracepoint")
int gtsc_tracepoint(void *ctx)
{
	struct gtsc_rec_tracepoint *r;
	struct gtsc_tp_scratch *sc;
	struct gtsc_tp_info *info;
	__u32 key, len, size;
	__u16 type;

	if (!gtsc_wanted())
		return 1;
	key = bpf_get_attach_cookie(ctx);
	info = bpf_map_lookup_elem(&gtsc_tp_infos, &key);
	key = 0;
	sc = bpf_map_lookup_elem(&gtsc_tp_scratch, &key);
	if (!info || !sc)
		return 1;
	type = info->id;
	r = (void *)sc->raw;
	len = tp_entry_len(ctx, info);
	gtsc_fill_hdr(&r->hdr, GTSC_REC_TRACEPOINT, 0);
	if (len > GTSC_TP_MAX_DATA) {
		len = GTSC_TP_MAX_DATA;
		r->hdr.flags = GTSC_TP_F_TRUNCATED;
	}
	if (len < TP_COMMON)
		len = TP_COMMON;
	bpf_probe_read_kernel(r->data + TP_COMMON, len - TP_COMMON, ctx + TP_COMMON);
	*(__u16 *)r->data = type;
	*(__u16 *)(r->data + 2) = 0; /* common_flags, common_preempt_count */
	*(__u32 *)(r->data + 4) = r->hdr.tid;
	size = (sizeof(*r) + len + 7) & ~7U;
	r->hdr.size = size;
	r->event_id = type;
	r->data_len = len;
	r->__pad = 0;
	tp_output(sc, size, sizeof(*sc));
	return 1;
}

/*
 * ---- syscall events from raw_syscalls ----
 * Linux 7.x runs the perf handlers of syscall events (syscalls:*, and
 * raw_syscalls:*, whose tracepoints are the faultable ones) preemptible, so
 * a task preempted inside a classic program holds the CPU's bpf_prog_active
 * and every other task's classic program on that CPU is skipped: three
 * getppid storms on one CPU of 7.3.4 kept 118,214 of 300,000
 * sys_enter_getppid; a task:task_rename storm lost nothing (test_tp_preempt.sh).
 * tp_btf programs are guarded per program instead, and what they skip the
 * rescue programs take (gtsc_shared.h, the scheme of syscalls.bpf.c).
 *
 * They write the entry the kernel's perf_syscall_enter/exit builds (the
 * loader checked the event's format has this layout, else the event stays
 * with the classic program): the common fields as gtsc_tracepoint rebuilds
 * them, then the number (syscalls: int __syscall_nr and 4 zero bytes;
 * raw_syscalls: long id), then the arguments (syscall_get_arguments) or
 * the return value.  As the kernel, syscalls:* leave out 32-bit tasks'
 * calls (x86's ARCH_TRACE_IGNORE_COMPAT_SYSCALLS); raw_syscalls:* take their
 * i386 argument registers.
 *
 * Per syscall number, the index + 1 in gtsc_tp_infos of its
 * syscalls:sys_enter_X ([0]) and sys_exit_X ([1]) event, 0 for none;
 * raw_syscalls:sys_enter and sys_exit's, for every call.
 */
const volatile __u16 gtsc_tp_sys_ev[2][GTSC_NR_SYSCALLS] = {};
const volatile __u16 gtsc_tp_raw_ev[2] = {};
const volatile __u32 gtsc_tp_sys_rescue = 0;

/* The rescue marks (gtsc_mark.h); one entry where the loader attaches no rescue programs. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, GTSC_MARK_TIDS / 8);
	__type(key, __u32);
	__type(value, __u64);
} gtsc_tp_sys_mark SEC(".maps");

/* arch/x86/include/asm/thread_info.h, as syscalls.bpf.c's GTSC_TS_COMPAT */
#define TP_TS_COMPAT 0x0002

#define TP_SYS_DATA (TP_COMMON + 8 + 6 * 8) /* common, number, args[6] */

struct tp_sys_rec {
	__u8 raw[sizeof(struct gtsc_rec_tracepoint) + TP_SYS_DATA];
};

/*
 * tp_output for a record on the stack: an array ring's copy
 * (gtsc_arr_output: bpf_dynptr_from_mem) takes no stack memory ("Unsupported
 * reg type fp", 6.18), so the record is reserved there and copied with one
 * probe read, its first word committed last as gtsc_arr_output does.
 */
static __always_inline void tp_sys_output(const void *rec, __u32 size)
{
	struct gtsc_slot s = { .class = GTSC_CLASS_EVENTS, .arr = true };
	const __u32 max = sizeof(struct tp_sys_rec);

	if (!gtsc_arr_class(GTSC_CLASS_EVENTS) || gtsc_emulated(GTSC_CLASS_EVENTS)) {
		tp_output(rec, size, max);
		return;
	}
	if (size > max || size < sizeof(struct gtsc_rec_hdr)) {
		gtsc_count(GTSC_CLASS_EVENTS, true);
		return;
	}
	s.rec = gtsc_arr_reserve(GTSC_CLASS_EVENTS, (size + 7) & ~7U, max);
	if (!s.rec) {
		gtsc_count(GTSC_CLASS_EVENTS, true);
		return;
	}
	s.size = *(const __u32 *)rec;
	/* bounded again: 6.1's verifier loses the spilled bound ("R2 unbounded memory access") */
	barrier_var(size);
	if (size > max)
		size = max;
	if (size < sizeof(struct gtsc_rec_hdr))
		size = sizeof(struct gtsc_rec_hdr);
	bpf_probe_read_kernel(s.rec + 4, size - 4, rec + 4);
	gtsc_submit(&s);
}

/* Event KEY's entry (index + 1 in gtsc_tp_infos): number NR, then VALS (args, or ret). */
static __always_inline void tp_sys_write(__u32 key, long nr, const __u64 *vals, __u64 id)
{
	struct tp_sys_rec rec;
	struct gtsc_rec_tracepoint *r = (void *)rec.raw;
	struct gtsc_tp_info *info;
	__u32 len, size;

	key--;
	info = bpf_map_lookup_elem(&gtsc_tp_infos, &key);
	if (!info)
		return;
	len = info->fixed;
	if (len > TP_SYS_DATA)
		len = TP_SYS_DATA;
	__builtin_memset(&rec, 0, sizeof(rec));
	gtsc_fill_hdr_id(&r->hdr, GTSC_REC_TRACEPOINT, 0, id);
	*(__u16 *)r->data = info->id;
	*(__u32 *)(r->data + 4) = (__u32)id;
	*(__s64 *)(r->data + TP_COMMON) = nr;
	__builtin_memcpy(r->data + TP_COMMON + 8, vals, 6 * 8);
	size = (sizeof(*r) + len + 7) & ~7U;
	r->hdr.size = size;
	r->event_id = info->id;
	r->data_len = len;
	tp_sys_output(&rec, size);
}

static __always_inline int tp_sys(struct pt_regs *regs, int exit, long ret)
{
	struct task_struct *t;
	__u32 named = 0, raw = gtsc_tp_raw_ev[exit];
	long nr = regs->orig_ax;
	bool compat;
	__u64 vals[6], id;

	if (nr >= 0 && nr < GTSC_NR_SYSCALLS)
		named = gtsc_tp_sys_ev[exit][nr];
	if ((!named && !raw) || !gtsc_on)
		return 0;
	t = bpf_get_current_task_btf();
	id = (__u64)t->tgid << 32 | (__u32)t->pid;
	if (!gtsc_tgid_wanted(id >> 32))
		return 0;
	compat = t->thread_info.status & TP_TS_COMPAT;
	if (exit) {
		vals[0] = ret;
	} else if (compat) {
		vals[0] = regs->bx;
		vals[1] = regs->cx;
		vals[2] = regs->dx;
		vals[3] = regs->si;
		vals[4] = regs->di;
		vals[5] = regs->bp;
	} else {
		vals[0] = regs->di;
		vals[1] = regs->si;
		vals[2] = regs->dx;
		vals[3] = regs->r10;
		vals[4] = regs->r8;
		vals[5] = regs->r9;
	}
	if (exit)
		vals[1] = vals[2] = vals[3] = vals[4] = vals[5] = 0;
	if (raw)
		tp_sys_write(raw, nr, vals, id);
	if (named && !compat)
		tp_sys_write(named, nr, vals, id);
	return 0;
}

/* The first pair, then the rescue pairs _r, _r2 and _r3 (attached only where bpf_preemptible). */
SEC("tp_btf/sys_enter")
int BPF_PROG(gtsc_tp_sys_enter, struct pt_regs *regs, long id)
{
	if (gtsc_tp_sys_rescue)
		gtsc_mark_ran(&gtsc_tp_sys_mark, GTSC_MARK_ENTER);
	return tp_sys(regs, 0, 0);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(gtsc_tp_sys_exit, struct pt_regs *regs, long ret)
{
	if (gtsc_tp_sys_rescue)
		gtsc_mark_ran(&gtsc_tp_sys_mark, GTSC_MARK_EXIT);
	return tp_sys(regs, 1, ret);
}

#define TP_SYS_RESCUE(name)                                                                        \
	SEC("tp_btf/sys_enter")                                                                    \
	int BPF_PROG(gtsc_tp_sys_enter##name, struct pt_regs *regs, long id)                       \
	{                                                                                          \
		if (!gtsc_mark_skipped(&gtsc_tp_sys_mark, GTSC_MARK_ENTER,                         \
				       GTSC_RESCUE_TP_SYS_ENTER))                                  \
			return 0;                                                                  \
		return tp_sys(regs, 0, 0);                                                         \
	}                                                                                          \
	SEC("tp_btf/sys_exit")                                                                     \
	int BPF_PROG(gtsc_tp_sys_exit##name, struct pt_regs *regs, long ret)                       \
	{                                                                                          \
		if (!gtsc_mark_skipped(&gtsc_tp_sys_mark, GTSC_MARK_EXIT,                          \
				       GTSC_RESCUE_TP_SYS_EXIT))                                   \
			return 0;                                                                  \
		return tp_sys(regs, 1, ret);                                                       \
	}

TP_SYS_RESCUE(_r)
TP_SYS_RESCUE(_r2)
TP_SYS_RESCUE(_r3)
