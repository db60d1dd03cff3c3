/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kmem analysis engine: feed it the records of a trace in time order and
 * it pairs frees with allocations by (kind, pointer), aggregates per call
 * site, cache, size class, page order and gfp value, and classifies what
 * does not pair up.  Memory is bounded by the objects live at a time (see
 * kmem_map.h) and by the kernel's call sites, never by the trace's length.
 *
 * What perf kmem counts is counted the same way, so that their numbers can be
 * compared: every allocation event counts in allocs and bytes (failed ones
 * too), a free counts as freed when its pointer's allocation is in the trace,
 * and a free on another CPU than its allocation is a ping-pong.
 */
#ifndef __GTSC_KMEM_ANALYSIS_H
#define __GTSC_KMEM_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include "gtsc/records.h"

#define KMEM_KINDS 3	      /* enum gtsc_kmem_kind */
#define KMEM_SIZE_CLASSES 33  /* (2^(k-1), 2^k] for k = 0..32 */
#define KMEM_ORDERS 16	      /* page orders; higher ones count in the last */
#define KMEM_MIGRATETYPES 8   /* the last counts every type from 7 up */
#define KMEM_ZERO_SIZE_PTR 16 /* ZERO_SIZE_PTR: kmalloc(0); kfree of it or NULL is a no-op */

/* What did not pair up, in classes a user acts on differently. */
enum kmem_err_class {
	KMEM_ERR_CACHE_KFREE,	     /* kmem_cache_alloc'd, then kfree'd: legal since 6.4 */
	KMEM_ERR_KMALLOC_CACHE_FREE, /* kmalloc'd, then kmem_cache_free'd: never legal */
	KMEM_ERR_DOUBLE_FREE,	     /* allocated in the trace, freed twice */
	KMEM_ERR_FREE_AFTER_FREE,    /* never allocated in the trace, freed twice */
	KMEM_ERR_PRETRACE_FREE,	     /* never allocated in the trace: allocated before it began */
	KMEM_ERR_ALLOC_LIVE,	     /* allocated again while live: a free was not traced */
	KMEM_ERR_NULL_ALLOC,	     /* the allocation failed (NULL, pfn -1) */
	KMEM_ERR_PAGE_ORDER,	     /* pages freed with another order than allocated */
	KMEM_ERR_MAX,
};

struct kmem_kind_stats {
	__u64 allocs; /* allocation events, failed ones included */
	__u64 failed;
	__u64 frees;	     /* free events of this kind */
	__u64 frees_null;    /* of them, kfree(NULL or ZERO_SIZE_PTR): no-ops */
	__u64 frees_matched; /* frees of allocations of this kind made in the trace */
	__u64 bytes_req;
	__u64 bytes_alloc;
	__u64 bytes_freed; /* bytes_alloc of the matched frees */
	__u64 pingpong;	   /* matched frees on another CPU than the allocation */
};

/* One call site; the allocation counters are for allocations made there. */
struct kmem_site {
	__u64 call_site;
	__u64 allocs, failed, frees, bytes_req, bytes_alloc, bytes_freed, pingpong;
	/* allocations still live at the end (kmem_analysis__finish) */
	__u64 live, live_bytes_req, live_bytes_alloc, live_age_sum, live_oldest_ts;
	__u8 kinds; /* bit (1 << kind) for each kind allocated here */
};

/* A slab cache, or for kmalloc the size class it is served from. */
struct kmem_group {
	__u64 id; /* kmem_cache address; bytes_alloc for kmalloc and for unnamed caches */
	__u8 kind;
	bool named;
	char name[GTSC_CACHE_NAME_LEN];
	__u32 object_size, size;
	__u32 unit; /* bytes_alloc of every object of the group */
	__u64 allocs, failed, frees, bytes_req, bytes_alloc, bytes_freed, live;
};

/* Slab allocations whose requested (by_req) or allocated (by_alloc) size is in the class. */
struct kmem_size_class {
	__u64 by_req, by_alloc;
	__u64 bytes_req, bytes_alloc; /* of the allocations counted in by_req */
};

struct kmem_order {
	__u64 unit; /* bytes of an allocation of this order */
	__u64 allocs, failed, frees, frees_matched, live, live_age_sum;
	__u64 by_migratetype[KMEM_MIGRATETYPES];
};

struct kmem_gfp_use {
	__u64 gfp_flags;
	__u64 allocs[KMEM_KINDS];
	__u64 bytes_alloc;
};

/* One class x call sites entry; what SITE and SITE2 are depends on the class. */
struct kmem_err {
	__u8 cls;	/* enum kmem_err_class */
	__u8 kind;	/* the allocation's kind (the free's when there is none) */
	__u8 free_kind; /* the free event's kind, when there is one */
	__u64 site;	/* allocation site (first free's site for FREE_AFTER_FREE) */
	__u64 site2;	/* offending free, or the second allocation for ALLOC_LIVE */
	__u64 count;
	__u64 first_ptr; /* first occurrence */
	__u64 first_ts;
};

struct kmem_stack_use {
	__u32 stack_id;
	__u64 allocs, bytes_alloc;
};

struct kmem_results {
	struct kmem_kind_stats kind[KMEM_KINDS];
	__u64 events; /* kmem alloc/free records analysed */
	__u64 first_ts, last_ts;
	__u64 end_ts; /* what ages of live objects are measured to */
	const struct kmem_site *sites;
	size_t nr_sites;
	const struct kmem_group *groups;
	size_t nr_groups;
	const struct kmem_size_class *sizes; /* [KMEM_SIZE_CLASSES] */
	const struct kmem_order *orders;     /* [KMEM_ORDERS] */
	const struct kmem_gfp_use *gfps;
	size_t nr_gfps;
	const struct kmem_err *errs;
	size_t nr_errs;
	__u64 err_count[KMEM_ERR_MAX][KMEM_KINDS]; /* by class and allocation kind */
	const struct kmem_stack_use *stacks;
	size_t nr_stacks;
	struct kmem_stack_use unstacked; /* allocations recorded without a stack */
	size_t live_objects; /* at the end */
	size_t table_slots;  /* object table size: the analysis' memory */
};

struct kmem_analysis_opts {
	size_t sz;
	const __u32 *pids; /* only these thread groups (none: all) */
	size_t nr_pids;
};
#define kmem_analysis_opts__last_field nr_pids

struct kmem_analysis;

struct kmem_analysis *kmem_analysis__new(const struct kmem_analysis_opts *opts);
void kmem_analysis__free(struct kmem_analysis *a);
/* Feeds one record (other types than kmem are ignored). 0 or -ENOMEM. */
int kmem_analysis__add(struct kmem_analysis *a, const struct gtsc_rec_hdr *rec);
/* A hint that REC comes soon: its object's table slot starts loading (a cache miss). */
void kmem_analysis__prefetch(const struct kmem_analysis *a, const struct gtsc_rec_hdr *rec);
/* Ends the analysis: counts what is live, aged to END_NS (0: the last event). */
int kmem_analysis__finish(struct kmem_analysis *a, __u64 end_ns);
/* Valid after finish, until free. */
const struct kmem_results *kmem_analysis__results(const struct kmem_analysis *a);

/* "double_free": the class's JSON name. */
const char *kmem_err_name(enum kmem_err_class cls);
/* "double free (allocated in the trace, freed twice)": its title in text. */
const char *kmem_err_title(enum kmem_err_class cls);
/* Why the class happens other than by a kernel bug, for KIND; "" when nothing else does. */
const char *kmem_err_cause(enum kmem_err_class cls, __u8 kind);
/* True for classes that are not errors on a whole trace (informational). */
bool kmem_err_benign(enum kmem_err_class cls, __u8 kind);

/*
 * Whether kfree() may free a kmem_cache_alloc() object on the kernel
 * RELEASE (uname -r): documented as allowed from Linux 6.4 on (commit
 * ae65a5211d90, "mm/slab: document kfree() as allowed for kmem_cache_alloc()
 * objects", with SLOB's removal; SLAB and SLUB always coped).  1 legal, 0
 * not, -1 when RELEASE does not say.
 */
int kmem_kfree_cache_legal(const char *release);

/* Size class of SIZE: (2^(k-1), 2^k] -> k. */
static inline unsigned int kmem_size_class(__u32 size)
{
	return size <= 1 ? 0 : 32 - __builtin_clz(size - 1);
}

#endif
