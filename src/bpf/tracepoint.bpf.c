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
 */
#include "gtsc.bpf.h"

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
static __always_inline void tp_output(const void *rec, __u32 size)
{
	const __u32 class = GTSC_CLASS_EVENTS;
	__u64 pending, wake = gtsc_routes[class].wake_bytes, flags = BPF_RB_NO_WAKEUP;
	void *ring;

	if (gtsc_emulated(class)) {
		gtsc_flight_output(class, rec, size);
		return;
	}
	if (gtsc_arr_class(class)) {
		gtsc_arr_output(class, rec, size, sizeof(struct gtsc_tp_scratch));
		return;
	}
	ring = gtsc_ring(class);
	if (!ring || size > sizeof(struct gtsc_tp_scratch)) {
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
	tp_output(sc, size);
	return 1;
}
