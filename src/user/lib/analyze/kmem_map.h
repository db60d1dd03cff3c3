/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The two hash tables of the kmem analysis, both open addressing with linear
 * probing and no per-insert allocation:
 *
 *  - kmem_idmap: any 64-bit key -> a small index (call sites, caches, gfp
 *    values, stack ids, error classes), for tables that are bounded by the
 *    kernel's code, not by the trace;
 *  - kmem_objmap: (kind, ptr) -> the object's state, live or freed.  Freed
 *    entries stay as tombstones (a double free needs the earlier free) until
 *    a rehash, which keeps only the newest of them, as many as there are live
 *    objects (at least KMEM_OBJMAP_MIN_TOMBS): the table is bounded by the
 *    live objects, not by the length of the trace.
 */
#ifndef __GTSC_KMEM_MAP_H
#define __GTSC_KMEM_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct kmem_idmap {
	__u64 *keys;
	__u32 *vals; /* index + 1; 0 marks an empty slot, so every key is usable */
	size_t cap, n;
};

/*
 * Fibonacci hashing: the high bits of the product depend on every bit of
 * the key, and slab pointers differ mostly in their middle bits.
 */
static inline size_t kmem_hash64(__u64 key, unsigned int bits)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

/* True and *idx if KEY is present. */
static inline bool kmem_idmap__find(const struct kmem_idmap *m, __u64 key, __u32 *idx)
{
	size_t h, mask = m->cap - 1;

	if (!m->cap)
		return false;
	for (h = kmem_hash64(key, __builtin_ctzll(m->cap)); m->vals[h]; h = (h + 1) & mask) {
		if (m->keys[h] == key) {
			*idx = m->vals[h] - 1;
			return true;
		}
	}
	return false;
}

int gt_kmem_idmap__add(struct kmem_idmap *m, __u64 key, __u32 next);

/*
 * Index of KEY; a new key gets NEXT (the caller's next free index) and
 * *added = true.  Inline: every allocation event looks up four of these
 * tables, nearly always finding the key.
 */
static inline int kmem_idmap__intern(struct kmem_idmap *m, __u64 key, __u32 next, __u32 *idx,
				     bool *added)
{
	*added = !kmem_idmap__find(m, key, idx);
	if (!*added)
		return 0;
	*idx = next;
	return gt_kmem_idmap__add(m, key, next);
}
void gt_kmem_idmap__free(struct kmem_idmap *m);

enum kmem_obj_state {
	KMEM_OBJ_EMPTY = 0,
	KMEM_OBJ_LIVE = 1,	   /* allocated in the trace, not freed yet */
	KMEM_OBJ_FREED = 2,	   /* allocated in the trace, then freed */
	KMEM_OBJ_FREED_UNSEEN = 3, /* freed without an allocation in the trace */
};

/*
 * 32 bytes, two to a cache line: the only per-object memory of the analysis.
 * What an object's group implies (its allocated size) is kept in the group.
 */
struct kmem_obj {
	__u64 ptr;   /* pointer, or pfn for pages */
	__u64 ts;    /* when it was allocated (live) or last freed */
	__u32 site;  /* sites index: of the allocation, or of the last free if none was seen */
	__u32 group; /* cache, kmalloc size or page order it came from */
	__u32 bytes_req;
	__u16 cpu;
	__u8 kind;  /* enum gtsc_kmem_kind */
	__u8 state; /* enum kmem_obj_state */
};

/* Frees remembered at least, however few objects are live: the double-free window. */
#define KMEM_OBJMAP_MIN_TOMBS (1u << 15)

struct kmem_objmap {
	struct kmem_obj *slot;
	struct kmem_obj *spare; /* rehash scratch, kept: a rehash then faults no pages in */
	size_t spare_cap;
	__u64 *ts; /* rehash scratch for the tombstones' times */
	size_t ts_cap;
	size_t cap; /* power of two: 1 << bits */
	unsigned int bits;
	size_t used; /* non-empty slots */
	size_t live; /* KMEM_OBJ_LIVE slots */
};

static inline __u64 kmem_obj_key(__u8 kind, __u64 ptr)
{
	/* pfns and pointers live in different spaces: keep them apart */
	return ptr ^ ((__u64)kind << 59);
}

/* The slot of (KIND, PTR) in SLOT[0, 1 << BITS): its entry or the empty slot ending its probe. */
static inline struct kmem_obj *kmem_objmap__probe(struct kmem_obj *slot, unsigned int bits,
						  __u8 kind, __u64 ptr)
{
	size_t mask = ((size_t)1 << bits) - 1;
	size_t h = kmem_hash64(kmem_obj_key(kind, ptr), bits);

	for (; slot[h].state != KMEM_OBJ_EMPTY; h = (h + 1) & mask)
		if (slot[h].ptr == ptr && slot[h].kind == kind)
			break;
	return &slot[h];
}

/* Rebuilds the table, dropping old tombstones, at the size the kept entries need. */
int gt_kmem_objmap__rehash(struct kmem_objmap *m);

/*
 * The slot of (KIND, PTR): the existing entry, or an empty slot with kind and
 * ptr filled in (state KMEM_OBJ_EMPTY) that kmem_objmap__set() takes.  NULL
 * on allocation failure.  Valid until the next lookup.  Inline: two lookups
 * per event.
 */
static inline struct kmem_obj *kmem_objmap__lookup(struct kmem_objmap *m, __u8 kind, __u64 ptr)
{
	struct kmem_obj *o;

	if ((m->used + 1) * 2 > m->cap && gt_kmem_objmap__rehash(m))
		return NULL;
	o = kmem_objmap__probe(m->slot, m->bits, kind, ptr);
	if (o->state == KMEM_OBJ_EMPTY) {
		o->ptr = ptr;
		o->kind = kind;
	}
	return o;
}

/*
 * Starts loading the cache line of (KIND, PTR)'s slot.  Always inlined: a
 * function holding only __builtin_prefetch has no effect GCC can see, so
 * GCC 12 found it pure and dropped the calls whole (no prefetch was in the
 * binary).  With it, `report --kmem --caller -n 0` of a 14.6 M-event
 * kmem_load trace: 840 -> 752 ms CPU (one thread, medians of 9 alternating).
 */
static inline __attribute__((always_inline)) void
kmem_objmap__prefetch(const struct kmem_objmap *m, __u8 kind, __u64 ptr)
{
	if (m->cap)
		__builtin_prefetch(&m->slot[kmem_hash64(kmem_obj_key(kind, ptr), m->bits)]);
}
/* The entry of (KIND, PTR) or NULL; never grows the table. */
struct kmem_obj *gt_kmem_objmap__peek(const struct kmem_objmap *m, __u8 kind, __u64 ptr);
void gt_kmem_objmap__free(struct kmem_objmap *m);

/* Moves O (from a lookup) to STATE, keeping the counts right. */
static inline void kmem_objmap__set(struct kmem_objmap *m, struct kmem_obj *o,
				    enum kmem_obj_state state)
{
	m->used += o->state == KMEM_OBJ_EMPTY;
	m->live += (state == KMEM_OBJ_LIVE) - (o->state == KMEM_OBJ_LIVE);
	o->state = state;
}

#endif
