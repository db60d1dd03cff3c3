/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * What every event source includes: the channel write path (reserve, fill
 * the common header, submit with sparse wakeups, count drops) and the task
 * filter.  The maps and globals are defined once, in channel.bpf.c; the other
 * objects see them as externs and `bpftool gen object` links them.
 */
#ifndef __GTSC_BPF_H
#define __GTSC_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "gtsc/records.h"
#include "gtsc_shared.h"

#ifdef GTSC_DEFINE_GLOBALS
#define GTSC_EXTERN
#else
#define GTSC_EXTERN extern
#endif

struct gtsc_ring_tmpl {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* template only: real rings are made by the loader */
};

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* set by the loader: sum of every channel's rings */
	__type(key, __u32);
	__array(values, struct gtsc_ring_tmpl);
} gtsc_rings SEC(".maps");

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GTSC_MAX_CHANNELS);
	__type(key, __u32);
	__type(value, struct gtsc_chan_counters);
} gtsc_counters SEC(".maps");

/* Thread groups traced when gtsc_filter_pids is set; children join at fork. */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GTSC_MAX_TRACKED_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} gtsc_pids SEC(".maps");

/* Load-time configuration (rodata, set between open and load). */
GTSC_EXTERN const volatile __u32 gtsc_self_tgid;
GTSC_EXTERN const volatile __u32 gtsc_filter_pids;
GTSC_EXTERN const volatile struct gtsc_class_route gtsc_routes[GTSC_CLASS_MAX];

/* Run-time switch: programs stay attached, records are written only while set. */
GTSC_EXTERN volatile __u32 gtsc_on;

struct gtsc_slot {
	void *ring;
	void *rec;
	__u32 class;
};

static __always_inline bool gtsc_tgid_wanted(__u32 tgid)
{
	if (tgid == gtsc_self_tgid)
		return false;
	if (gtsc_filter_pids && !bpf_map_lookup_elem(&gtsc_pids, &tgid))
		return false;
	return true;
}

/* The filter every event passes before it may cost ring space. */
static __always_inline bool gtsc_wanted(void)
{
	if (!gtsc_on)
		return false;
	return gtsc_tgid_wanted(bpf_get_current_pid_tgid() >> 32);
}

static __always_inline void gtsc_count(__u32 class, bool dropped)
{
	__u32 chan = gtsc_routes[class].channel;
	struct gtsc_chan_counters *c = bpf_map_lookup_elem(&gtsc_counters, &chan);

	if (!c)
		return;
	/* Atomic: another of our programs may nest on this CPU (an IRQ's kmalloc). */
	if (dropped)
		__sync_fetch_and_add(&c->dropped, 1);
	else
		__sync_fetch_and_add(&c->written, 1);
}

/*
 * Reserves SIZE (a compile-time constant) bytes in the class's ring for this
 * CPU and fills the common header.  A full ring is counted as a drop, so that
 * events seen = written + dropped holds exactly.
 */
static __always_inline bool gtsc_reserve(struct gtsc_slot *s, __u32 class, __u16 type, __u32 size)
{
	__u32 idx = gtsc_routes[class].ring_base;
	struct gtsc_rec_hdr *h;
	__u64 id;

	if (gtsc_routes[class].percpu)
		idx += bpf_get_smp_processor_id();
	s->class = class;
	s->ring = bpf_map_lookup_elem(&gtsc_rings, &idx);
	if (!s->ring) {
		gtsc_count(class, true);
		return false;
	}
	s->rec = bpf_ringbuf_reserve(s->ring, size, 0);
	if (!s->rec) {
		gtsc_count(class, true);
		return false;
	}
	h = s->rec;
	id = bpf_get_current_pid_tgid();
	h->type = type;
	h->size = size;
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->ts_ns = bpf_ktime_get_ns();
	return true;
}

/* A wakeup costs ~300 ns per event: the consumer polls on a timer and is
 * woken only when the ring is filling up. */
static __always_inline void gtsc_submit(struct gtsc_slot *s)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (bpf_ringbuf_query(s->ring, BPF_RB_AVAIL_DATA) >= gtsc_routes[s->class].wake_bytes)
		flags = BPF_RB_FORCE_WAKEUP;
	gtsc_count(s->class, false);
	bpf_ringbuf_submit(s->rec, flags);
}

#endif
