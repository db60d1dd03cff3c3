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
#include "gtsc/gtsc.h"

/* The public names (gtsc/kmem.h) by the short ones the engine uses. */
#define KMEM_KINDS GTSC_KMEM_KINDS
#define KMEM_SIZE_CLASSES GTSC_KMEM_SIZE_CLASSES
#define KMEM_ORDERS GTSC_KMEM_ORDERS
#define KMEM_MIGRATETYPES GTSC_KMEM_MIGRATETYPES
#define KMEM_ZERO_SIZE_PTR 16 /* ZERO_SIZE_PTR: kmalloc(0); kfree of it or NULL is a no-op */

#define KMEM_ERR_CACHE_KFREE GTSC_KMEM_ERR_CACHE_KFREE
#define KMEM_ERR_KMALLOC_CACHE_FREE GTSC_KMEM_ERR_KMALLOC_CACHE_FREE
#define KMEM_ERR_DOUBLE_FREE GTSC_KMEM_ERR_DOUBLE_FREE
#define KMEM_ERR_FREE_AFTER_FREE GTSC_KMEM_ERR_FREE_AFTER_FREE
#define KMEM_ERR_PRETRACE_FREE GTSC_KMEM_ERR_PRETRACE_FREE
#define KMEM_ERR_ALLOC_LIVE GTSC_KMEM_ERR_ALLOC_LIVE
#define KMEM_ERR_NULL_ALLOC GTSC_KMEM_ERR_NULL_ALLOC
#define KMEM_ERR_PAGE_ORDER GTSC_KMEM_ERR_PAGE_ORDER
#define KMEM_ERR_MAX GTSC_KMEM_ERR_MAX

struct kmem_results {
	struct gtsc_kmem_kind_stats kind[KMEM_KINDS];
	__u64 events; /* kmem alloc/free records analysed */
	__u64 first_ts, last_ts;
	__u64 end_ts; /* what ages of live objects are measured to */
	const struct gtsc_kmem_site *sites;
	size_t nr_sites;
	const struct gtsc_kmem_group *groups;
	size_t nr_groups;
	const struct gtsc_kmem_size_class *sizes; /* [KMEM_SIZE_CLASSES] */
	const struct gtsc_kmem_order *orders;     /* [KMEM_ORDERS] */
	const struct gtsc_kmem_gfp_use *gfps;
	size_t nr_gfps;
	const struct gtsc_kmem_err *errs;
	size_t nr_errs;
	__u64 err_count[KMEM_ERR_MAX][KMEM_KINDS]; /* by class and allocation kind */
	const struct gtsc_kmem_stack_use *stacks;
	size_t nr_stacks;
	struct gtsc_kmem_stack_use unstacked; /* allocations recorded without a stack */
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
struct trace_rec_ref;

struct kmem_analysis *gt_kmem_analysis__new(const struct kmem_analysis_opts *opts);
void gt_kmem_analysis__free(struct kmem_analysis *a);
/* Feeds one record (other types than kmem are ignored). 0 or -ENOMEM. */
int gt_kmem_analysis__add(struct kmem_analysis *a, const struct gtsc_rec_hdr *rec);
/*
 * Feeds REFS[0, N)'s records in order, as gt_kmem_analysis__add, with each
 * record's object map slot loading (a cache miss) a few records ahead.
 */
int gt_kmem_analysis__add_refs(struct kmem_analysis *a, const struct trace_rec_ref *refs, size_t n);
/*
 * The bytes of records gt_kmem_analysis__add() of A reads (NULL: of any
 * analysis), into W (zeroed by the caller): a reader told them
 * (gt_reader__want()) decodes nothing else.
 */
struct col_want;
void gt_kmem_analysis__want(const struct kmem_analysis *a, struct col_want *w);
/* Ends the analysis: counts what is live, aged to END_NS (0: the last event). */
int gt_kmem_analysis__finish(struct kmem_analysis *a, __u64 end_ns);
/* Valid after finish, until free. */
const struct kmem_results *gt_kmem_analysis__results(const struct kmem_analysis *a);

/*
 * The classes' names, titles, causes and kfree-on-cache legality are public
 * (gtsc_kmem_err_name, ... in gtsc/kmem.h).  True for classes that are not
 * errors on a whole trace (informational):
 */
bool gt_kmem_err_benign(enum gtsc_kmem_err_class cls, __u8 kind);

/* Size class of SIZE: (2^(k-1), 2^k] -> k. */
static inline unsigned int kmem_size_class(__u32 size)
{
	return size <= 1 ? 0 : 32 - __builtin_clz(size - 1);
}

#endif
