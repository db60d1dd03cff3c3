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

/*
 * Native flight rings (BPF_F_RB_OVERWRITE): the loader gives this map an
 * overwrite ring as its inner template, which gtsc_rings' plain one is not.
 */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* set by the loader: every native flight ring */
	__type(key, __u32);
	__array(values, struct gtsc_ring_tmpl);
} gtsc_orings SEC(".maps");

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GTSC_MAX_CHANNELS);
	__type(key, __u32);
	__type(value, struct gtsc_chan_counters);
} gtsc_counters SEC(".maps");

/* Events each rescue program recorded for its hook (gtsc_shared.h). */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GTSC_RESCUE_MAX);
	__type(key, __u32);
	__type(value, __u64);
} gtsc_rescued SEC(".maps");

/* Thread groups traced when gtsc_filter_pids is set; children join at fork. */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GTSC_MAX_TRACKED_PIDS);
	__type(key, __u32);
	__type(value, __u8);
} gtsc_pids SEC(".maps");

/*
 * What this CPU last learned of gtsc_pids.  HIT: the last thread group
 * found, plus one (0: none).  Nothing deletes from gtsc_pids, so a tgid
 * found once stays wanted and any value a racing writer leaves there is
 * right.  The hash lookup it saves was ~25 ns of every event (perf on the
 * kmem bench loop, 6.18 host: htab_map_hash, lookup_nulls_elem_raw and
 * memcmp 4.5% of the loop's CPU with caches_seen).
 *
 * MISS: the last thread group not found, plus one, in the high half, and
 * the low half of gtsc_pid_gen as it was before that lookup: one store, so
 * that a nested or preempting writer on this CPU cannot pair one miss with
 * another's generation.  Every addition to gtsc_pids bumps gtsc_pid_gen
 * after the update (fork in task.bpf.c, gtsc_session__track_pid), so a
 * miss read before an addition never answers after it.  What it saves is
 * the hash lookup every other task's event costs a session following -p
 * PID: the whole system's syscalls, and each further session's (bench/
 * sessions.sh).  x86 only: elsewhere the generation's load could pass the
 * lookup's loads, and the lookup is kept.
 */
struct gtsc_pid_cache {
	__u32 hit;
	__u32 __pad;
	__u64 miss;
};

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct gtsc_pid_cache);
} gtsc_pid_hit SEC(".maps");

/*
 * The shared syscall dispatch's mask (syscalls.bpf.c's "dispatch",
 * doc/notes/sessions-dispatch.md): tgid -> the chain's slots that may
 * want its syscalls, and the word of slots that take every task.  Defined
 * in syscalls.bpf.c (the dispatch head's maps, reused by every
 * joiner); task.bpf.c sets its session's bit at fork.  Like gtsc_pids,
 * nothing deletes from the hash: a freed slot's stale bits only cost its
 * next holder a filtered call.  The word's low half is the slots taking
 * every task (and the head's GTSC_SYS_RETIRED), its high half the hash's
 * generation, bumped after each change to the hash (the head's per-CPU
 * cache, syscalls.bpf.c): one load reads both.
 */
#define GTSC_SYS_MASK_DEF                                                                          \
	{                                                                                          \
		__uint(type, BPF_MAP_TYPE_HASH);                                                   \
		__uint(max_entries, GTSC_MAX_TRACKED_PIDS);                                        \
		__type(key, __u32);                                                                \
		__type(value, __u32);                                                              \
	}
#define GTSC_SYS_EVERY_DEF                                                                         \
	{                                                                                          \
		__uint(type, BPF_MAP_TYPE_ARRAY);                                                  \
		__uint(map_flags, BPF_F_MMAPABLE);                                                 \
		__uint(max_entries, 1);                                                            \
		__type(key, __u32);                                                                \
		__type(value, __u64);                                                              \
	}

/* --cgroup: the loader puts the cgroup v2 directory's fd at index 0. */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} gtsc_cgroup SEC(".maps");

/*
 * Flight channels (layout in gtsc_shared.h).  A record is built in a per-CPU
 * scratch entry and copied into slots at submit: event code fills one
 * contiguous record, while slots interleave their seq words with the data
 * and a record may wrap at the region's end.  One entry per nesting level
 * (a kmalloc in an IRQ over a syscall's writer), claimed with an exchange so
 * that no order of writers is assumed.
 */
struct gtsc_flight_scratch {
	__u64 busy;
	__u8 data[GTSC_FLIGHT_MAX_REC];
};

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by the loader: every flight region's slots */
	__type(key, __u32);
	__type(value, struct gtsc_flight_slot);
} gtsc_flight SEC(".maps");

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by the loader: one per flight region */
	__type(key, __u32);
	__type(value, struct gtsc_flight_head);
} gtsc_flight_heads SEC(".maps");

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, GTSC_FLIGHT_NEST); /* the loader makes it 1 without flight channels */
	__type(key, __u32);
	__type(value, struct gtsc_flight_scratch);
} gtsc_flight_scratch SEC(".maps");

/*
 * Array rings (layout and protocol in gtsc_shared.h).  The value size is
 * the element's, set by the loader with gtsc_arr_shift; a session without
 * array channels keeps this one page.  Declared without a BTF value type so
 * that the loader may change the size.
 */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by the loader: every array region's elements */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, 4096);
} gtsc_arr SEC(".maps");

GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* set by the loader: one per array region */
	__type(key, __u32);
	__type(value, struct gtsc_arr_head);
} gtsc_arr_heads SEC(".maps");

/*
 * The array rings' doorbell: a record here (its content unused) wakes the
 * recorder, whose epoll waits on this ring besides the channels' own.  A
 * writer rings it when its claim carries the region past wake_bytes, as
 * gtsc_wake_flags wakes a BPF ring's consumer.
 */
GTSC_EXTERN struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} gtsc_arr_bell SEC(".maps");

/* Load-time configuration (rodata, set between open and load). */
GTSC_EXTERN const volatile __u32 gtsc_arr_shift; /* log2 of gtsc_arr's value size */
GTSC_EXTERN const volatile __u32 gtsc_self_tgid;
GTSC_EXTERN const volatile __u32 gtsc_filter_pids;
GTSC_EXTERN const volatile struct gtsc_class_route gtsc_routes[GTSC_CLASS_MAX];
/* -C: comms as two zero-padded words each; --cgroup: gtsc_cgroup[0] is the cgroup. */
GTSC_EXTERN const volatile __u32 gtsc_filter_nr_comms;
GTSC_EXTERN const volatile __u64 gtsc_filter_comms[GTSC_MAX_COMMS][2];
GTSC_EXTERN const volatile __u32 gtsc_filter_cgroup;

/* Run-time switch: programs stay attached, records are written only while set. */
GTSC_EXTERN volatile __u32 gtsc_on;
/* Bumped after each addition to gtsc_pids (see gtsc_pid_cache). */
GTSC_EXTERN volatile __u64 gtsc_pid_gen;

/*
 * --snapshot-on syscall=NR: a traced task entering NR bumps gtsc_trigger_hits,
 * which the recorder polls in the mmapped bss and answers with a snapshot;
 * at most one trigger per gtsc_trigger_gap_ns.
 */
GTSC_EXTERN const volatile __u32 gtsc_trigger_on;
GTSC_EXTERN const volatile __s32 gtsc_trigger_nr;
GTSC_EXTERN const volatile __u64 gtsc_trigger_gap_ns;
GTSC_EXTERN volatile __u64 gtsc_trigger_hits;
GTSC_EXTERN volatile __u64 gtsc_trigger_last_ns;

struct gtsc_slot {
	void *ring; /* overwrite mode: the scratch entry */
	void *rec;
	__u32 class;
	__u32 size; /* overwrite mode: bytes reserved; array ring: the commit word */
	bool flight;
	bool arr;
};

/* bpf_get_current_comm zero-pads (strncpy, later strscpy_pad): compare words. */
static __always_inline bool gtsc_comm_wanted(void)
{
	__u64 comm[2] = {};

	if (!gtsc_filter_nr_comms)
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (__u32 i = 0; i < GTSC_MAX_COMMS && i < gtsc_filter_nr_comms; i++)
		if (comm[0] == gtsc_filter_comms[i][0] && comm[1] == gtsc_filter_comms[i][1])
			return true;
	return false;
}

/* The cgroup or one below it; by fd, so that cgroup namespaces do not matter. */
static __always_inline bool gtsc_cgroup_wanted(void)
{
	if (!gtsc_filter_cgroup)
		return true;
	return bpf_current_task_under_cgroup(&gtsc_cgroup, 0) == 1;
}

/* TGID is in gtsc_pids: asked of this CPU's last hit and last miss first. */
static __always_inline bool gtsc_pid_tracked(__u32 tgid)
{
	__u32 key = 0;
	struct gtsc_pid_cache *c = bpf_map_lookup_elem(&gtsc_pid_hit, &key);
	__u64 miss;

	if (!c)
		return bpf_map_lookup_elem(&gtsc_pids, &tgid);
	if (c->hit == tgid + 1)
		return true;
#if defined(__TARGET_ARCH_x86)
	miss = (__u64)(tgid + 1) << 32 | (__u32)gtsc_pid_gen;
	if (c->miss == miss)
		return false;
	asm volatile("" ::: "memory"); /* the generation is read before the lookup */
#endif
	if (!bpf_map_lookup_elem(&gtsc_pids, &tgid)) {
#if defined(__TARGET_ARCH_x86)
		c->miss = miss;
#endif
		return false;
	}
	c->hit = tgid + 1;
	return true;
}

/*
 * Called in the context of the task the event is about, or of its parent at
 * fork (TGID is then the child's, whose comm and cgroup are still the
 * parent's): comm and cgroup are read from the current task.
 */
static __always_inline bool gtsc_tgid_wanted(__u32 tgid)
{
	if (tgid == gtsc_self_tgid)
		return false;
	if (gtsc_filter_pids && !gtsc_pid_tracked(tgid))
		return false;
	return gtsc_comm_wanted() && gtsc_cgroup_wanted();
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

static __always_inline void *gtsc_ring(__u32 class)
{
	__u32 idx = gtsc_routes[class].ring_base;

	if (gtsc_routes[class].percpu)
		idx += bpf_get_smp_processor_id();
	if (gtsc_routes[class].native) /* rodata: one of the two stays */
		return bpf_map_lookup_elem(&gtsc_orings, &idx);
	return bpf_map_lookup_elem(&gtsc_rings, &idx);
}

/* A class whose records go through the slot arrays (an emulated flight channel). */
static __always_inline bool gtsc_emulated(__u32 class)
{
	return gtsc_routes[class].mode == GTSC_MODE_OVERWRITE && !gtsc_routes[class].native;
}

/* The header but its first word (type and size): an array ring's commit. */
static __always_inline void gtsc_fill_hdr_rest(struct gtsc_rec_hdr *h, __u64 id)
{
	h->cpu = bpf_get_smp_processor_id();
	h->flags = 0;
	h->pid = id >> 32;
	h->tid = (__u32)id;
	h->ts_ns = bpf_ktime_get_ns();
}

/* ID: bpf_get_current_pid_tgid()'s value, for a caller that has it already. */
static __always_inline void gtsc_fill_hdr_id(struct gtsc_rec_hdr *h, __u16 type, __u32 size,
					     __u64 id)
{
	h->type = type;
	h->size = size;
	gtsc_fill_hdr_rest(h, id);
}

static __always_inline void gtsc_fill_hdr(struct gtsc_rec_hdr *h, __u16 type, __u32 size)
{
	gtsc_fill_hdr_id(h, type, size, bpf_get_current_pid_tgid());
}

/* ---- flight channels ---- */

static __always_inline void *gtsc_flight_reserve(struct gtsc_slot *s, __u32 size)
{
	if (size > GTSC_FLIGHT_MAX_REC)
		return NULL;
	/* Unrolled, the key apart from the counter: 6.1's verifier loses a
	 * counter whose address is taken and calls the loop infinite. */
#pragma clang loop unroll(full)
	for (__u32 d = 0; d < GTSC_FLIGHT_NEST; d++) {
		__u32 key = d;
		struct gtsc_flight_scratch *sc = bpf_map_lookup_elem(&gtsc_flight_scratch, &key);

		if (sc && !__sync_lock_test_and_set(&sc->busy, 1)) {
			s->ring = sc;
			s->size = size;
			return sc->data;
		}
	}
	return NULL; /* deeper than task, softirq, hardirq and NMI: counted as a drop */
}

/*
 * Sets SL's seq: 0 before its data changes, so that a reader copying it sees
 * the change, then the position after.  x86 makes stores visible in program
 * order (TSO): a plain store is both, with the compiler kept from moving the
 * data stores across it; elsewhere an exchange (a full barrier) is needed.
 */
static __always_inline void gtsc_flight_seq(struct gtsc_flight_slot *sl, __u64 seq)
{
#if defined(__TARGET_ARCH_x86)
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&sl->seq = seq;
	asm volatile("" ::: "memory");
#else
	__sync_lock_test_and_set(&sl->seq, seq);
#endif
}

/*
 * Claims the record's slots with one fetch-add on the region's head (writers
 * of a global channel on other CPUs, or nested ones, take the next ones) and
 * publishes each slot once its data is in.  Counted as written once
 * published, so that a reader after a stop (which waits for running
 * programs) finds every record it was told of.
 */
static __always_inline void gtsc_flight_commit(struct gtsc_slot *s)
{
	const volatile struct gtsc_class_route *r = &gtsc_routes[s->class];
	struct gtsc_flight_scratch *sc = s->ring;
	__u32 region = r->percpu ? bpf_get_smp_processor_id() : 0;
	__u32 hidx = r->head_base + region, mask = r->flight_slots - 1;
	__u32 base = r->flight_base + region * r->flight_slots;
	__u32 k = (s->size + GTSC_FLIGHT_DATA - 1) / GTSC_FLIGHT_DATA;
	struct gtsc_flight_head *h = bpf_map_lookup_elem(&gtsc_flight_heads, &hidx);
	__u64 pos;

	if (!h) {
		sc->busy = 0;
		gtsc_count(s->class, true);
		return;
	}
	pos = __sync_fetch_and_add(&h->pos, k);
	for (__u32 i = 0; i < GTSC_FLIGHT_MAX_SLOTS && i < k; i++) {
		__u32 idx = base + ((pos + i) & mask);
		struct gtsc_flight_slot *sl = bpf_map_lookup_elem(&gtsc_flight, &idx);

		if (!sl)
			break;
		gtsc_flight_seq(sl, 0);
		__builtin_memcpy(sl->data, sc->data + i * GTSC_FLIGHT_DATA, GTSC_FLIGHT_DATA);
		gtsc_flight_seq(sl, (pos + i + 1) | (i ? 0 : GTSC_FLIGHT_FIRST));
	}
	/* Reused only by a later writer on this CPU: program order suffices. */
	asm volatile("" ::: "memory");
	*(volatile __u64 *)&sc->busy = 0;
	gtsc_count(s->class, false);
}

static __always_inline bool gtsc_flight_begin_id(struct gtsc_slot *s, __u16 type, __u32 size,
						 __u64 id)
{
	s->rec = gtsc_flight_reserve(s, size);
	if (!s->rec) {
		gtsc_count(s->class, true);
		return false;
	}
	gtsc_fill_hdr_id(s->rec, type, size, id);
	return true;
}

static __always_inline bool gtsc_flight_begin(struct gtsc_slot *s, __u16 type, __u32 size)
{
	return gtsc_flight_begin_id(s, type, size, bpf_get_current_pid_tgid());
}

/* gtsc_output's overwrite mode: REC's bounds are its caller's, so a kernel read copies it. */
static __always_inline void gtsc_flight_output(__u32 class, const void *rec, __u32 size)
{
	struct gtsc_slot s = { .class = class, .flight = true, .arr = false };
	void *buf;

	if (size > GTSC_FLIGHT_MAX_REC) { /* also the read's bound, for the verifier */
		gtsc_count(class, true);
		return;
	}
	buf = gtsc_flight_reserve(&s, size);
	if (!buf) {
		gtsc_count(class, true);
		return;
	}
	/*
	 * Bounded again where it is used: with the array ring's path beside
	 * this one clang spills SIZE across the reservation, and 6.1's verifier
	 * loses the bound of the reloaded copy ("R2 unbounded memory access").
	 */
	barrier_var(size);
	if (size > GTSC_FLIGHT_MAX_REC)
		size = GTSC_FLIGHT_MAX_REC;
	bpf_probe_read_kernel(buf, size, rec);
	gtsc_flight_commit(&s);
}

/* ---- array rings (gtsc_shared.h) ---- */

/* A class whose records go to an array ring (rodata: the verifier drops the other path). */
static __always_inline bool gtsc_arr_class(__u32 class)
{
	return gtsc_routes[class].arr && gtsc_routes[class].mode == GTSC_MODE_DISCARD;
}

/* An array ring region's geometry for one claim (gtsc_arr_reserve). */
struct gtsc_arr_where {
	struct gtsc_arr_head *h;
	__u64 esz, emask, bytes, wake, room;
	__u32 first;
};

/*
 * One claim of NEED bytes at the head read now: 1 with *REC the record's
 * place, or NULL when the region is full (counted in h->full) or a lookup
 * failed; 0 when another writer (nested in an interrupt, or preempting us
 * on PREEMPT_RT) moved the head between our read and the swap, and the
 * caller should read again.  Every lookup comes before the swap: once space
 * is claimed it must be committed, or the recorder would wait at it forever.
 */
static __always_inline int gtsc_arr_claim(const struct gtsc_arr_where *w, __u32 need, void **rec)
{
	struct gtsc_arr_head *h = w->h;
	__u64 head = *(volatile __u64 *)&h->head, tail = *(volatile __u64 *)&h->tail;
	__u64 esz = w->esz, off = head & (esz - 8), start = head, end;
	__u8 *e, *pad = NULL;
	__u32 idx;

	*rec = NULL;
	if (off > w->room) { /* would cross the element: pad it, start the next */
		idx = w->first + ((head >> gtsc_arr_shift) & w->emask);
		pad = bpf_map_lookup_elem(&gtsc_arr, &idx);
		if (!pad)
			return 1;
		start = head - off + esz;
		off = 0;
	}
	end = start + need;
	/*
	 * Signed: an interrupt between the two loads may have claimed,
	 * committed and seen consumed past the head read, and an unsigned
	 * end - tail would wrap and read as full (a drop counted for a region
	 * with room); the swap below fails on the moved head.
	 */
	if ((__s64)(end - tail) > (__s64)w->bytes) {
		__sync_fetch_and_add(&h->full, 1);
		return 1; /* full: unread records are the recorder's */
	}
	idx = w->first + ((start >> gtsc_arr_shift) & w->emask);
	e = bpf_map_lookup_elem(&gtsc_arr, &idx);
	if (!e)
		return 1;
	/*
	 * off <= room, tested again where it is used: 6.1's verifier loses the
	 * bound of a copy of off spilled before the first test (6.18's keeps
	 * it).  The pointer keeps it from here, made now (clang would otherwise
	 * add a reloaded off after the swap).
	 */
	barrier_var(off);
	if (off > w->room)
		return 1;
	e += off;
	barrier_var(e);
	if (__sync_val_compare_and_swap(&h->head, head, end) != head)
		return 0;
	if (pad) /* the recorder skips to the next element from here */
		*(volatile __u32 *)(pad + (head & (esz - 8))) = GTSC_ARR_PAD;
	/* Once per fill, as gtsc_wake_flags: the claim that crosses wake_bytes. */
	if (end - tail >= w->wake && head - tail < w->wake)
		bpf_ringbuf_output(&gtsc_arr_bell, &end, sizeof(end), BPF_RB_FORCE_WAKEUP);
	*rec = e;
	return 1;
}

/*
 * Claims NEED bytes (a multiple of 8, at most MAX, both bounded by the
 * element) in the class's region for this CPU and returns where the record
 * goes, or NULL when the region is full (the caller counts the drop).
 * MAX is what the verifier checks the caller's writes against: a record
 * starts at most MAX bytes before its element's end (a variable-size
 * record may pad a little early, at most MAX in a 4 MiB element).
 *
 * The compare-and-swap is on this CPU's own head, against the tail the
 * recorder published: it never contends with another CPU (but in a global
 * channel), and a writer that interrupted or preempted us between our read
 * and the swap makes it fail, so we read again.  The first claim is inline;
 * the retries (GTSC_ARR_TRIES in all) are a loop, not unrolled, so that
 * their bound costs no code: unrolled, 32 claims made sys_exit's program
 * three times larger (377 KB against 124 KB of instructions).  The loop
 * moved clang's registers enough to spill the syscall number across
 * nr_flags' bounds check, which 6.1's verifier refused until nr_flags
 * masked it (syscalls.bpf.c).
 */
static __always_inline void *gtsc_arr_reserve(__u32 class, __u32 need, __u32 max)
{
	const volatile struct gtsc_class_route *r = &gtsc_routes[class];
	__u32 region = r->percpu ? bpf_get_smp_processor_id() : 0;
	__u32 hidx = r->arr_head + region;
	struct gtsc_arr_where w;
	void *rec;

	w.h = bpf_map_lookup_elem(&gtsc_arr_heads, &hidx);
	if (!w.h)
		return NULL;
	w.first = r->arr_base + region * r->arr_elems;
	w.esz = 1ULL << gtsc_arr_shift;
	w.emask = r->arr_elems - 1;
	w.bytes = w.esz * r->arr_elems;
	w.wake = r->wake_bytes;
	w.room = w.esz - ((max + 7) & ~7U); /* where a record may start, at most */
	if (gtsc_arr_claim(&w, need, &rec))
		return rec;
#pragma clang loop unroll(disable)
	for (__u32 i = 1; i < GTSC_ARR_TRIES; i++) {
		if (gtsc_arr_claim(&w, need, &rec)) {
			__sync_fetch_and_add(&w.h->retried, 1);
			return rec;
		}
	}
	__sync_fetch_and_add(&w.h->contended, 1);
	return NULL;
}

/*
 * Publishes a record by storing its first word (type, size) after the rest:
 * x86 keeps stores in program order (TSO), so a compiler barrier suffices;
 * elsewhere an exchange (a full barrier), as gtsc_flight_seq.  The header's
 * two u16 in one little-endian word (records.h: little endian as produced).
 */
static __always_inline void gtsc_arr_commit(void *rec, __u32 word)
{
#if defined(__TARGET_ARCH_x86)
	asm volatile("" ::: "memory");
	*(volatile __u32 *)rec = word;
#else
	__sync_lock_test_and_set((__u32 *)rec, word);
#endif
}

static __always_inline __u32 gtsc_arr_word(__u16 type, __u32 size)
{
	return type | (size << 16);
}

static __always_inline bool gtsc_arr_begin_id(struct gtsc_slot *s, __u16 type, __u32 size,
					      __u64 id)
{
	s->rec = gtsc_arr_reserve(s->class, (size + 7) & ~7U, size);
	if (!s->rec) {
		gtsc_count(s->class, true);
		return false;
	}
	s->size = gtsc_arr_word(type, size);
	gtsc_fill_hdr_rest(s->rec, id);
	return true;
}

/*
 * gtsc_output's array path: REC (header filled, SIZE <= MAX bytes) copied
 * in place, its first word last.  A dynptr over REC and a read from it (a
 * memcpy; 5.19, as the ring buffer's dynptr path): bpf_probe_read_kernel,
 * one call, copies a word at a time with faults handled and made the
 * captured calls dearer than with the ring buffer (openread, bpf_stats:
 * 405 ns in the programs a call against 370).
 */
static __always_inline void gtsc_arr_output(__u32 class, const void *rec, __u32 size, __u32 max)
{
	struct bpf_dynptr src;
	__u8 *dst;

	if (size > max || size < sizeof(struct gtsc_rec_hdr)) {
		gtsc_count(class, true);
		return;
	}
	dst = gtsc_arr_reserve(class, (size + 7) & ~7U, max);
	if (!dst) {
		gtsc_count(class, true);
		return;
	}
	/* Checked above; bounded again for a verifier that lost it in a spill (6.1). */
	barrier_var(size);
	if (size > max)
		size = max;
	if (size < sizeof(struct gtsc_rec_hdr))
		size = sizeof(struct gtsc_rec_hdr);
	bpf_dynptr_from_mem((void *)rec, size, 0, &src);
	bpf_dynptr_read(dst + 4, size - 4, &src, 4, 0);
	gtsc_count(class, false); /* before the commit, as gtsc_submit */
	gtsc_arr_commit(dst, *(const __u32 *)rec);
}

/* A trigger, at most one per gap: the compare-and-swap elects one CPU when several fire. */
static __always_inline void gtsc_trigger(void)
{
	__u64 now = bpf_ktime_get_ns(), last = gtsc_trigger_last_ns;

	if (last && now - last < gtsc_trigger_gap_ns)
		return;
	if (__sync_val_compare_and_swap((__u64 *)&gtsc_trigger_last_ns, last, now) != last)
		return;
	__sync_fetch_and_add((__u64 *)&gtsc_trigger_hits, 1);
}

/* Whether or not the call is recorded (-e syscalls=LIST), if its task is traced. */
static __always_inline void gtsc_trigger_syscall(long nr)
{
	if (gtsc_trigger_on && nr == gtsc_trigger_nr && gtsc_wanted())
		gtsc_trigger();
}

/*
 * Reserves SIZE (a compile-time constant) bytes in the class's ring for this
 * CPU and fills the common header.  A full ring is counted as a drop, so that
 * events seen = written + dropped holds exactly.
 */
static __always_inline bool gtsc_reserve_id(struct gtsc_slot *s, __u32 class, __u16 type,
					    __u32 size, __u64 id)
{
	s->class = class;
	/* Defined on every path: clang 14 merges the submit paths and would
	 * spill an undefined register for it, which the verifier refuses. */
	s->size = 0;
	/* rodata: the verifier removes the branch a class does not take */
	s->flight = gtsc_emulated(class);
	s->arr = gtsc_arr_class(class);
	if (s->flight)
		return gtsc_flight_begin_id(s, type, size, id);
	if (s->arr)
		return gtsc_arr_begin_id(s, type, size, id);
	s->ring = gtsc_ring(class);
	if (!s->ring) {
		gtsc_count(class, true);
		return false;
	}
	s->rec = bpf_ringbuf_reserve(s->ring, size, 0);
	if (!s->rec) {
		gtsc_count(class, true);
		return false;
	}
	gtsc_fill_hdr_id(s->rec, type, size, id);
	return true;
}

/* ID read before the reservation: a dropped record pays one helper call more. */
static __always_inline bool gtsc_reserve(struct gtsc_slot *s, __u32 class, __u16 type, __u32 size)
{
	return gtsc_reserve_id(s, class, type, size, bpf_get_current_pid_tgid());
}

/*
 * A wakeup costs ~300 ns: the consumer drains on a timer and is woken once
 * per fill, by the record that carries its ring past the threshold (SIZE is
 * that record's; 16 covers the ring's 8-byte header and rounding).  Waking
 * on every record above the threshold, until the consumer has caught up,
 * tripled the cost of a traced syscall.  A wakeup that finds the consumer
 * busy is not lost: epoll keeps the ring ready for its next wait.
 */
static __always_inline __u64 gtsc_wake_flags(void *ring, __u32 class, __u32 size)
{
	__u64 avail, wake = gtsc_routes[class].wake_bytes;

	if (gtsc_routes[class].native)
		return BPF_RB_NO_WAKEUP; /* a native flight ring: nobody drains it */
	avail = bpf_ringbuf_query(ring, BPF_RB_AVAIL_DATA);
	return avail >= wake && avail < wake + size + 16 ? BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void gtsc_submit(struct gtsc_slot *s)
{
	__u64 flags = BPF_RB_NO_WAKEUP;

	if (s->flight) {
		gtsc_flight_commit(s);
		return;
	}
	if (s->arr) {
		gtsc_count(s->class, false); /* before the commit: a flush cannot miss it */
		gtsc_arr_commit(s->rec, s->size);
		return;
	}
	flags = gtsc_wake_flags(s->ring, s->class, ((struct gtsc_rec_hdr *)s->rec)->size);
	gtsc_count(s->class, false);
	bpf_ringbuf_submit(s->rec, flags);
}

/*
 * Writes a record whose size is known only at run time (captured user
 * memory), built in scratch memory REC with its header filled: a dynptr
 * reservation takes a variable size where bpf_ringbuf_reserve wants a
 * constant (both 5.19+).  SIZE must be at most MAX, a constant the verifier
 * checks REC's bounds with.  Counted as gtsc_reserve/gtsc_submit count: a
 * drop when the ring is full, else written before the record is committed,
 * so that a flush waiting for consumed == written cannot miss it; the same
 * sparse wakeups.
 */
static __always_inline void gtsc_output(__u32 class, const void *rec, __u32 size, __u32 max)
{
	void *ring;
	__u64 flags = BPF_RB_NO_WAKEUP;
	struct bpf_dynptr dp;

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
	if (bpf_ringbuf_reserve_dynptr(ring, size, 0, &dp)) {
		bpf_ringbuf_discard_dynptr(&dp, 0); /* required even when reserving failed */
		gtsc_count(class, true);
		return;
	}
	bpf_dynptr_write(&dp, 0, (void *)rec, size, 0);
	flags = gtsc_wake_flags(ring, class, size);
	gtsc_count(class, false);
	bpf_ringbuf_submit_dynptr(&dp, flags);
}

/*
 * gtsc_output for a record REC on the stack, SIZE a multiple of 8, at most
 * MAX: the array ring's dynptr takes no stack memory ("Unsupported reg type
 * fp for bpf_dynptr_from_mem data", 6.18), so the words are copied one by
 * one, in a loop the verifier walks once per word up to MAX (a 112-byte
 * openat record: 14 words, where the dynptr copy took ~30 ns of helpers,
 * perf on the 6.18 host).  The other modes copy from the stack as it is.
 */
static __always_inline void gtsc_output_stack(__u32 class, const void *rec, __u32 size, __u32 max)
{
	const __u64 *src = rec;
	__u64 *dst;

	if (!gtsc_arr_class(class)) {
		gtsc_output(class, rec, size, max);
		return;
	}
	if (size > max || size < sizeof(struct gtsc_rec_hdr) || (size & 7)) {
		gtsc_count(class, true);
		return;
	}
	dst = gtsc_arr_reserve(class, size, max);
	if (!dst) {
		gtsc_count(class, true);
		return;
	}
	((__u32 *)dst)[1] = ((const __u32 *)rec)[1];
	for (__u32 i = 1; i < max / 8; i++) {
		if (i * 8 >= size)
			break;
		dst[i] = src[i];
	}
	gtsc_count(class, false); /* before the commit, as gtsc_submit */
	gtsc_arr_commit(dst, *(const __u32 *)rec);
}

/*
 * ---- binary printf ----
 * gtsc_printf("fork pid=%d flags=%llx", pid, flags) writes a GTSC_REC_PRINTF
 * record: the format's id (GTSC_PRINTF_ID, a constant the compiler folds)
 * and the arguments as raw u64s, at most GTSC_PRINTF_MAX_ARGS; the text is
 * made at report time (gtsc_reader__format, gtsc_tool__format).  The
 * format string itself goes to GTSC_PRINTF_SEC, where the loader finds it;
 * the program never copies it.  That is the seed's printf without its
 * extra copy (formatting into a buffer, then copying the buffer into the
 * ring) and without its lock (the buffer was shared): the record is
 * reserved in place, per CPU, and counted like any other (written or
 * dropped).  %s cannot be followed at report time: it prints the pointer.
 * The record goes to class GTSC_PRINTF_CLASS (define it before including
 * this header; default the function-probe class a tool's channel carries),
 * and only while recording is on.
 */
#ifndef GTSC_PRINTF_CLASS
#define GTSC_PRINTF_CLASS GTSC_CLASS_FUNCS
#endif

static __always_inline void gtsc_printf_emit(__u32 class, __u32 id, const __u64 *args, __u32 n)
{
	struct gtsc_rec_printf *r;
	struct gtsc_slot s;

	if (!gtsc_on)
		return;
	/* N is a constant here (inlined): the reservation has a fixed size */
	if (!gtsc_reserve(&s, class, GTSC_REC_PRINTF, sizeof(*r) + n * sizeof(__u64)))
		return;
	r = s.rec;
	r->fmt_id = id;
	r->nr_args = n;
	r->__pad = 0;
	for (__u32 i = 0; i < n && i < GTSC_PRINTF_MAX_ARGS; i++)
		r->args[i] = args[i];
	gtsc_submit(&s);
}

#define gtsc_printf(fmt, args...)                                                                  \
	({                                                                                         \
		static const char ___gtsc_fmt[] __attribute__((section(GTSC_PRINTF_SEC), used)) = \
			fmt;                                                                       \
		unsigned long long ___gtsc_args[___bpf_narg(args)];                                \
		_Static_assert(___bpf_narg(args) <= GTSC_PRINTF_MAX_ARGS, "too many arguments");   \
		___bpf_fill(___gtsc_args, args);                                                   \
		gtsc_printf_emit(GTSC_PRINTF_CLASS, GTSC_PRINTF_ID(fmt), ___gtsc_args,             \
				 ___bpf_narg(args));                                               \
	})

#endif
