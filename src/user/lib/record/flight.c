// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <linux/bpf.h>
#include "flight.h"

enum rec_state {
	REC_OK,
	REC_SKIP, /* a continuation whose first slot is gone, or overwritten since the walk began */
	REC_TORN, /* a writer is (re)writing it */
};

struct region {
	const struct gtsc_flight_slot *slot; /* slot 0 of the region */
	__u64 mask;
	__u64 head;
};

static size_t map_len(__u32 n)
{
	size_t page = sysconf(_SC_PAGESIZE), len = (size_t)n * GTSC_FLIGHT_SLOT;

	return (len + page - 1) / page * page;
}

/* A BPF_F_MMAPABLE array maps from offset 0, value 0 first (kernel/bpf/arraymap.c). */
static const void *map_ro(int fd, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

int gt_flight__map(struct gtsc_flight_map *f, const struct gtsc_channels *chans, int slots_fd,
		   __u32 nr_slots, int heads_fd, __u32 nr_heads)
{
	_Static_assert(sizeof(struct gtsc_flight_slot) == GTSC_FLIGHT_SLOT, "a slot is 64 bytes");
	_Static_assert(sizeof(struct gtsc_flight_head) == GTSC_FLIGHT_SLOT, "a head is a line");

	f->chans = chans; /* native rings: mapped by gt_channels__create */
	if (!nr_heads)
		return 0; /* no emulated region */
	f->slots_len = map_len(nr_slots);
	f->heads_len = map_len(nr_heads);
	f->nr_heads = nr_heads;
	f->slots = map_ro(slots_fd, f->slots_len);
	f->heads = map_ro(heads_fd, f->heads_len);
	if (!f->slots || !f->heads) {
		int err = -errno;

		gt_flight__unmap(f);
		return err;
	}
	return 0;
}

void gt_flight__unmap(struct gtsc_flight_map *f)
{
	if (f->slots)
		munmap((void *)f->slots, f->slots_len);
	if (f->heads)
		munmap((void *)f->heads, f->heads_len);
	f->slots = NULL;
	f->heads = NULL;
}

static __u64 seq_of(const struct gtsc_flight_slot *sl)
{
	return __atomic_load_n(&sl->seq, __ATOMIC_ACQUIRE);
}

/* What the slot at POS must say to hold the record's slot J (J = 0: its first). */
static __u64 seq_want(__u64 pos, __u32 j)
{
	return (pos + j + 1) | (j ? 0 : GTSC_FLIGHT_FIRST);
}

static enum rec_state slot_state(__u64 seq, __u64 want)
{
	if (seq == want)
		return REC_OK;
	/* A later lap took it after the head was read. */
	if ((seq & ~GTSC_FLIGHT_FIRST) >= (want & ~GTSC_FLIGHT_FIRST))
		return REC_SKIP;
	return REC_TORN; /* 0 or an older lap: its writer has not published it yet */
}

/*
 * Copies the record whose first slot is at POS into BUF (NULL: only checks
 * it), seqlock style: every slot's seq before its data, then again after a
 * fence that keeps the data loads before the second reads.
 */
static enum rec_state read_record(const struct region *rg, __u64 pos, void *buf, __u32 *k_out)
{
	const struct gtsc_flight_slot *first = &rg->slot[pos & rg->mask];
	__u64 seq = seq_of(first);
	struct gtsc_rec_hdr h;
	enum rec_state st;
	__u32 k;

	/* A continuation (no FIRST) is skipped: its record began in an overwritten slot. */
	st = slot_state(seq, seq_want(pos, 0));
	if (st != REC_OK)
		return st;
	memcpy(&h, first->data, sizeof(h));
	k = (h.size + GTSC_FLIGHT_DATA - 1) / GTSC_FLIGHT_DATA;
	if (h.size < sizeof(h) || k > GTSC_FLIGHT_MAX_SLOTS || pos + k > rg->head)
		return REC_TORN; /* the header changed under us */
	for (__u32 j = 0; j < k; j++) {
		const struct gtsc_flight_slot *sl = &rg->slot[(pos + j) & rg->mask];

		st = j ? slot_state(seq_of(sl), seq_want(pos, j)) : REC_OK;
		if (st != REC_OK)
			return st;
		if (buf)
			memcpy((char *)buf + j * GTSC_FLIGHT_DATA, sl->data, GTSC_FLIGHT_DATA);
	}
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	for (__u32 j = 0; j < k; j++)
		if (__atomic_load_n(&rg->slot[(pos + j) & rg->mask].seq, __ATOMIC_RELAXED) !=
		    seq_want(pos, j))
			return REC_TORN;
	if (buf && ((struct gtsc_rec_hdr *)buf)->size != h.size)
		return REC_TORN;
	*k_out = k;
	return REC_OK;
}

/*
 * ---- native rings (BPF_F_RB_OVERWRITE) ----
 * The kernel (kernel/bpf/ringbuf.c, "bpf: Add overwrite mode for BPF ring
 * buffer") keeps three positions in the producer page, which readers may
 * map: producer_pos, pending_pos (the oldest record still being written)
 * and overwrite_pos (the oldest record not overwritten), all byte counts
 * that only grow.  A reserve that needs room moves overwrite_pos past whole
 * records, under the ring's lock and before it publishes producer_pos with
 * a release store, and before it hands out the bytes; it never passes
 * pending_pos (the reserve fails, a counted drop, instead).  So every record
 * in [overwrite_pos, producer_pos) is whole, its 8-byte header (len with the
 * BUSY and DISCARD bits, pg_off) at an 8-aligned position.
 *
 * Reading is the same seqlock as the slots', with overwrite_pos as the
 * sequence: copy the record, then read overwrite_pos again; if it is still
 * at or before the record, no writer had its bytes while we copied (x86
 * keeps the kernel's overwrite_pos store before the writer's data stores;
 * a weaker ordering would need the writer's side to say so).  If not, the
 * walk resumes at the new overwrite_pos, a record boundary.  consumer_pos
 * stays 0: nothing is ever consumed, so the same records read again.
 */
enum { RB_PROD_POS, RB_PEND_POS, RB_OVER_POS };
/*
 * Cost (bench/vm_flight.sh, 6.19.6 under qemu TCG): a native program run
 * took 1.35x an emulated one (1082 ns against 799: the kernel's reserve
 * takes the ring's lock with interrupts off and reads the headers it
 * overwrites), and a native ring holds 1.41x the records in the same bytes.
 */

static unsigned long rb_pos(const struct gtsc_oring *r, int which)
{
	return __atomic_load_n(&r->pos[which], __ATOMIC_ACQUIRE);
}

/* The record at POS (whose header said LEN) into BUF, or REC_TORN if it is not one. */
static enum rec_state native_copy(const char *hdr, __u32 len, void *buf)
{
	__u32 size = len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT);

	if (size < sizeof(struct gtsc_rec_hdr) || size > GTSC_FLIGHT_MAX_REC)
		return REC_TORN;
	memcpy(buf, hdr + BPF_RINGBUF_HDR_SZ, size);
	return ((struct gtsc_rec_hdr *)buf)->size == size ? REC_OK : REC_TORN;
}

static int walk_native(const struct gtsc_oring *r, __u64 from, struct gtsc_sink *sink,
		       struct gtsc_flight_walk *out, void *buf)
{
	unsigned long prod = rb_pos(r, RB_PROD_POS), pos = rb_pos(r, RB_OVER_POS);
	unsigned long mask = r->size - 1;
	bool in_torn = false;

	out->head = prod;
	while (pos < prod) {
		const char *hdr = r->data + (pos & mask); /* mapped twice: never wraps */
		__u32 len = __atomic_load_n((const __u32 *)hdr, __ATOMIC_ACQUIRE);
		unsigned long step = ((len & ~(BPF_RINGBUF_BUSY_BIT | BPF_RINGBUF_DISCARD_BIT)) +
				      BPF_RINGBUF_HDR_SZ + 7) & ~7UL;
		bool wanted = sink && pos >= from, whole = !(len & BPF_RINGBUF_BUSY_BIT);
		enum rec_state st = REC_OK;
		unsigned long over;
		int err;

		if (whole && !(len & BPF_RINGBUF_DISCARD_BIT) && wanted)
			st = native_copy(hdr, len, buf);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		over = __atomic_load_n(&r->pos[RB_OVER_POS], __ATOMIC_RELAXED);
		if (over > pos || step > prod - pos) {
			pos = over > pos ? over : prod; /* overwritten under us: resume at the oldest */
			continue;
		}
		pos += step;
		if (!whole || st != REC_OK) {
			out->torn += !in_torn;
			in_torn = true;
			continue;
		}
		in_torn = false;
		if (len & BPF_RINGBUF_DISCARD_BIT)
			continue;
		out->retained++;
		if (!wanted)
			continue;
		err = sink->record(sink, buf);
		if (err)
			return err;
		out->read++;
	}
	return 0;
}

int gt_flight__walk(const struct gtsc_flight_map *f, const struct gtsc_channel *ch, __u32 region,
		    __u64 from, struct gtsc_sink *sink, struct gtsc_flight_walk *out)
{
	__u64 buf[GTSC_FLIGHT_MAX_REC / sizeof(__u64)];
	struct region rg;

	memset(out, 0, sizeof(*out));
	if (ch->native)
		return walk_native(&f->chans->orings[ch->ring_base + region], from, sink, out, buf);
	rg = (struct region){
		.slot = f->slots + ch->flight_base + (size_t)region * ch->region_slots,
		.mask = ch->region_slots - 1,
		.head = __atomic_load_n(&f->heads[ch->head_base + region].pos, __ATOMIC_ACQUIRE),
	};
	__u64 pos = rg.head > ch->region_slots ? rg.head - ch->region_slots : 0;
	bool in_torn = false;

	_Static_assert(GTSC_FLIGHT_MAX_REC % sizeof(__u64) == 0, "whole words");
	out->head = rg.head;
	while (pos < rg.head) {
		bool wanted = sink && pos >= from;
		__u32 k = 1;
		int err;

		switch (read_record(&rg, pos, wanted ? buf : NULL, &k)) {
		case REC_OK:
			out->retained++;
			in_torn = false;
			if (!wanted)
				break;
			err = sink->record(sink, (const struct gtsc_rec_hdr *)buf);
			if (err)
				return err;
			out->read++;
			break;
		case REC_TORN:
			out->torn += !in_torn; /* a record being written shows as a run of slots */
			in_torn = true;
			break;
		case REC_SKIP:
			break;
		}
		pos += k;
	}
	return 0;
}
