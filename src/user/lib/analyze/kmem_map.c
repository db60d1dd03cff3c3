// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "kmem_map.h"

#define IDMAP_MIN_BITS 8
#ifndef GTSC_FUZZ
#define OBJMAP_MIN_BITS 17 /* 4 MiB: small next to a kernel's live slab objects */
#else
/* `make fuzz` only: zeroing 4 MiB per input was most of an execution */
#define OBJMAP_MIN_BITS 8
#endif

/* ---- kmem_idmap ---- */

static unsigned int log2_cap(size_t cap)
{
	return (unsigned int)__builtin_ctzll(cap);
}

static int idmap_grow(struct kmem_idmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : (size_t)1 << IDMAP_MIN_BITS;
	unsigned int bits = log2_cap(cap);
	__u64 *keys = malloc(cap * sizeof(*keys));
	__u32 *vals = calloc(cap, sizeof(*vals));

	if (!keys || !vals) {
		free(keys);
		free(vals);
		return -ENOMEM;
	}
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->vals[i])
			continue;
		for (h = kmem_hash64(m->keys[i], bits); vals[h]; h = (h + 1) & (cap - 1))
			;
		keys[h] = m->keys[i];
		vals[h] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return 0;
}

/* Inserts KEY, absent, with index NEXT. */
int gt_kmem_idmap__add(struct kmem_idmap *m, __u64 key, __u32 next)
{
	size_t h, mask;

	/* at most half full: short probes */
	if ((m->n + 1) * 2 > m->cap && idmap_grow(m))
		return -ENOMEM;
	mask = m->cap - 1;
	for (h = kmem_hash64(key, log2_cap(m->cap)); m->vals[h]; h = (h + 1) & mask)
		;
	m->keys[h] = key;
	m->vals[h] = next + 1;
	m->n++;
	return 0;
}

void gt_kmem_idmap__free(struct kmem_idmap *m)
{
	free(m->keys);
	free(m->vals);
	*m = (struct kmem_idmap){};
}

/* ---- kmem_objmap ---- */

static bool tombstone(const struct kmem_obj *o)
{
	return o->state != KMEM_OBJ_EMPTY && o->state != KMEM_OBJ_LIVE;
}

static void swap64(__u64 *a, __u64 *b)
{
	__u64 t = *a;

	*a = *b;
	*b = t;
}

/* The K-th smallest of V[0, N): quickselect with a three-way partition (ties are common). */
static __u64 select_kth(__u64 *v, size_t n, size_t k)
{
	size_t lo = 0, hi = n;

	while (hi - lo > 1) {
		__u64 pivot = v[lo + (hi - lo) / 2];
		size_t lt = lo, i = lo, gt = hi;

		while (i < gt) {
			if (v[i] < pivot)
				swap64(&v[lt++], &v[i++]);
			else if (v[i] > pivot)
				swap64(&v[i], &v[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return v[lo];
}

/* Scratch of at least N elements of SIZE at *BUF (capacity *CAP); kept across rehashes. */
static void *scratch(void **buf, size_t *cap, size_t n, size_t size)
{
	void *p;

	if (n <= *cap)
		return *buf;
	p = realloc(*buf, n * size);
	if (!p)
		return NULL;
	*buf = p;
	*cap = n;
	return p;
}

/*
 * The free time before which tombstones are dropped so that KEEP of them
 * stay (the newest); 0 when all stay.  ~0 on allocation failure: drop all.
 */
static __u64 tombstone_cutoff(struct kmem_objmap *m, size_t tombs, size_t keep)
{
	__u64 *ts;
	size_t n = 0;

	if (tombs <= keep)
		return 0;
	ts = scratch((void **)&m->ts, &m->ts_cap, tombs, sizeof(*ts));
	if (!ts)
		return ~0ULL;
	for (size_t i = 0; i < m->cap; i++)
		if (tombstone(&m->slot[i]))
			ts[n++] = m->slot[i].ts;
	return select_kth(ts, n, n - keep);
}

static bool kept(const struct kmem_obj *o, __u64 cut)
{
	return o->state != KMEM_OBJ_EMPTY && !(tombstone(o) && o->ts < cut);
}

/* Tables from this size on are mapped on their own, in huge pages where the kernel allows. */
#define SLOTS_HUGE_BYTES (2u << 20)

/*
 * The kept entries go aside, the table is cleared and they come back, at
 * 1 << BITS slots.  A mapped table grows where it is (mremap): its pages
 * are not faulted in and cleared by the kernel again, which cost more than
 * clearing them here (each doubling of a fresh table was 4-8% of --kmem).
 */
static int rehash_in_place(struct kmem_objmap *m, unsigned int bits, size_t keep, __u64 cut)
{
	struct kmem_obj *tmp = scratch((void **)&m->spare, &m->spare_cap, keep + 1, sizeof(*tmp));
	size_t n = 0, bytes = m->cap * sizeof(*m->slot);

	if (!tmp)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (kept(&m->slot[i], cut))
			tmp[n++] = m->slot[i];
	if (bits != m->bits) {
		size_t grown = ((size_t)1 << bits) * sizeof(*m->slot);
		void *p = mremap(m->slot, bytes, grown, MREMAP_MAYMOVE);

		if (p == MAP_FAILED)
			return -ENOMEM;
		madvise(p, grown, MADV_HUGEPAGE); /* a hint, as in slots_alloc() */
		m->slot = p;
		m->cap = (size_t)1 << bits;
		m->bits = bits;
	}
	memset(m->slot, 0, bytes); /* what grew is zero */
	for (size_t i = 0; i < n; i++)
		*kmem_objmap__probe(m->slot, m->bits, tmp[i].kind, tmp[i].ptr) = tmp[i];
	return 0;
}

/*
 * A zeroed slot array of 1 << BITS.  The table is probed at random: with
 * 4 KiB pages nearly every probe of a big table is a TLB miss, and filling
 * it faults a page every 128 slots; huge pages make both rare.
 */
static struct kmem_obj *slots_alloc(unsigned int bits)
{
	size_t bytes = ((size_t)1 << bits) * sizeof(struct kmem_obj);
	void *p;

	if (bytes < SLOTS_HUGE_BYTES)
		return calloc((size_t)1 << bits, sizeof(struct kmem_obj));
	p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, bytes, MADV_HUGEPAGE); /* a hint: 4 KiB pages work too */
	return p;
}

static void slots_free(struct kmem_obj *slot, size_t cap)
{
	size_t bytes = cap * sizeof(*slot);

	if (bytes < SLOTS_HUGE_BYTES)
		free(slot);
	else
		munmap(slot, bytes);
}

static int rehash_to(struct kmem_objmap *m, unsigned int bits, __u64 cut)
{
	struct kmem_obj *slot = slots_alloc(bits);

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (kept(&m->slot[i], cut))
			*kmem_objmap__probe(slot, bits, m->slot[i].kind, m->slot[i].ptr) =
				m->slot[i];
	if (m->slot)
		slots_free(m->slot, m->cap);
	m->slot = slot;
	m->cap = (size_t)1 << bits;
	m->bits = bits;
	return 0;
}

/*
 * Rebuilds the table with the live objects and the newest tombstones (as
 * many as there are live objects, at least KMEM_OBJMAP_MIN_TOMBS), at a size
 * where they fill at most a quarter (half the load limit: linear probing
 * stays short), so that a rebuild is followed by as many inserts again.  A rebuild at the same size,
 * or growing a mapped table, reuses the table: none of its pages is faulted in again.
 */
int gt_kmem_objmap__rehash(struct kmem_objmap *m)
{
	size_t tombs = m->used - m->live, keep_tombs, keep = 0;
	unsigned int bits = OBJMAP_MIN_BITS;
	__u64 cut;
	int err;

	keep_tombs = m->live > KMEM_OBJMAP_MIN_TOMBS ? m->live : KMEM_OBJMAP_MIN_TOMBS;
	cut = tombstone_cutoff(m, tombs, keep_tombs);
	for (size_t i = 0; i < m->cap; i++)
		keep += kept(&m->slot[i], cut);
	while (keep * 4 > ((size_t)1 << bits))
		bits++;
	/* the same size, or a mapped table growing */
	if (m->cap && (bits == m->bits || (bits > m->bits && m->cap * sizeof(*m->slot) >= SLOTS_HUGE_BYTES)))
		err = rehash_in_place(m, bits, keep, cut);
	else
		err = rehash_to(m, bits, cut);
	if (!err)
		m->used = keep;
	return err;
}

struct kmem_obj *gt_kmem_objmap__peek(const struct kmem_objmap *m, __u8 kind, __u64 ptr)
{
	struct kmem_obj *o;

	if (!m->cap)
		return NULL;
	o = kmem_objmap__probe(m->slot, m->bits, kind, ptr);
	return o->state == KMEM_OBJ_EMPTY ? NULL : o;
}

void gt_kmem_objmap__free(struct kmem_objmap *m)
{
	if (m->slot)
		slots_free(m->slot, m->cap);
	free(m->spare);
	free(m->ts);
	*m = (struct kmem_objmap){};
}
