// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "col_codec.h"
#include "kmem_analysis.h"
#include "kmem_map.h"
#include "trace_reader.h"
#include "trace_util.h"

#define PFN_FAILED ((__u64)-1) /* what mm_page_alloc reports for a failed allocation */

/* A growable array and the index map that finds its entries by key. */
struct table {
	void *items;
	size_t n, cap, size;
	struct kmem_idmap idx;
};

/* Indexes of an allocation's call site, group (slabs), gfp value and stack (if any). */
struct alloc_ids {
	__u32 site, group, gfp, stack;
};

/*
 * The indexes last found for a combination of call site, group, gfp value
 * and stack, in a direct-mapped slot: allocations repeat a few combinations,
 * and one comparison replaces four table lookups.  Table entries are never
 * removed, so a remembered index stays right.
 */
struct hot_alloc {
	__u64 call_site;
	__u64 group_key; /* 0 for pages: their group is their order */
	__u32 gfp_flags;
	__u32 stack_id;
	__u8 kind;
	bool used;
	struct alloc_ids ids;
};

#define HOT_BITS 10

struct kmem_analysis {
	struct kmem_results res;
	struct hot_alloc hot[1 << HOT_BITS];
	struct kmem_objmap objs;
	struct table sites, groups, gfps, errs, stacks;
	struct gtsc_kmem_size_class sizes[KMEM_SIZE_CLASSES];
	struct gtsc_kmem_order orders[KMEM_ORDERS];
	__u32 *pids; /* sorted */
	size_t nr_pids;
};

/* Entry of KEY in T (zeroed when new, *added set); NULL on allocation failure. */
static void *table_get(struct table *t, __u64 key, bool *added)
{
	__u32 i;

	if (kmem_idmap__intern(&t->idx, key, t->n, &i, added))
		return NULL;
	if (!*added)
		return (char *)t->items + (size_t)i * t->size;
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		void *p = realloc(t->items, cap * t->size);

		if (!p)
			return NULL;
		t->items = p;
		t->cap = cap;
	}
	t->n++;
	return memset((char *)t->items + (size_t)i * t->size, 0, t->size);
}

static void table_free(struct table *t)
{
	free(t->items);
	gt_kmem_idmap__free(&t->idx);
}

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

struct kmem_analysis *gt_kmem_analysis__new(const struct kmem_analysis_opts *opts)
{
	struct kmem_analysis *a;
	size_t n = OPTS_GET(opts, nr_pids, 0);

	if (!OPTS_VALID(opts, kmem_analysis_opts))
		return errno = EINVAL, NULL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return errno = ENOMEM, NULL;
	a->sites.size = sizeof(struct gtsc_kmem_site);
	a->groups.size = sizeof(struct gtsc_kmem_group);
	a->gfps.size = sizeof(struct gtsc_kmem_gfp_use);
	a->errs.size = sizeof(struct gtsc_kmem_err);
	a->stacks.size = sizeof(struct gtsc_kmem_stack_use);
	if (n) {
		a->pids = malloc(n * sizeof(*a->pids));
		if (!a->pids) {
			free(a);
			return errno = ENOMEM, NULL;
		}
		memcpy(a->pids, opts->pids, n * sizeof(*a->pids));
		qsort(a->pids, n, sizeof(*a->pids), cmp_u32);
		a->nr_pids = n;
	}
	return a;
}

void gt_kmem_analysis__free(struct kmem_analysis *a)
{
	if (!a)
		return;
	gt_kmem_objmap__free(&a->objs);
	table_free(&a->sites);
	table_free(&a->groups);
	table_free(&a->gfps);
	table_free(&a->errs);
	table_free(&a->stacks);
	free(a->pids);
	free(a);
}

static bool pid_wanted(const struct kmem_analysis *a, __u32 pid)
{
	return !a->nr_pids || bsearch(&pid, a->pids, a->nr_pids, sizeof(pid), cmp_u32);
}

static struct gtsc_kmem_site *site_at(struct kmem_analysis *a, __u32 i)
{
	return (struct gtsc_kmem_site *)a->sites.items + i;
}

static int intern_site(struct kmem_analysis *a, __u64 call_site, __u32 *idx)
{
	struct gtsc_kmem_site *s;
	bool added;

	s = table_get(&a->sites, call_site, &added);
	if (!s)
		return -ENOMEM;
	if (added)
		s->call_site = call_site;
	*idx = s - (struct gtsc_kmem_site *)a->sites.items;
	return 0;
}

static __u64 group_key(__u8 kind, __u64 id)
{
	/* kmalloc sizes and sizes of unknown caches must not meet cache addresses */
	return id >> 56 ? id : id ^ ((__u64)(kind + 1) << 56);
}

static struct gtsc_kmem_group *intern_group(struct kmem_analysis *a, __u8 kind, __u64 id,
					    __u32 *idx)
{
	struct gtsc_kmem_group *g;
	bool added;

	g = table_get(&a->groups, group_key(kind, id), &added);
	if (!g)
		return NULL;
	if (added) {
		g->id = id;
		g->kind = kind;
	}
	*idx = g - (struct gtsc_kmem_group *)a->groups.items;
	return g;
}

static struct gtsc_kmem_group *group_at(struct kmem_analysis *a, __u32 i)
{
	return (struct gtsc_kmem_group *)a->groups.items + i;
}

static int name_cache(struct kmem_analysis *a, const struct gtsc_rec_kmem_cache *c)
{
	struct gtsc_kmem_group *g;
	__u32 idx;

	g = intern_group(a, GTSC_KMEM_CACHE, c->cache_id, &idx);
	if (!g)
		return -ENOMEM;
	memcpy(g->name, c->name, sizeof(g->name));
	g->name[sizeof(g->name) - 1] = '\0';
	g->object_size = c->object_size;
	g->size = c->size;
	g->named = true;
	return 0;
}

/* Counts one error of class CLS between sites SITE and SITE2 (sites indexes). */
static int add_err(struct kmem_analysis *a, enum gtsc_kmem_err_class cls, __u8 kind,
		   __u8 free_kind, __u32 site, __u32 site2, __u64 ptr, __u64 ts)
{
	__u64 key = (__u64)cls << 60 | (__u64)kind << 58 | (__u64)free_kind << 56 |
		    (__u64)(site & 0xfffffff) << 28 | (site2 & 0xfffffff);
	struct gtsc_kmem_err *e;
	bool added;

	e = table_get(&a->errs, key, &added);
	if (!e)
		return -ENOMEM;
	if (added) {
		e->cls = cls;
		e->kind = kind;
		e->free_kind = free_kind;
		e->site = site_at(a, site)->call_site;
		e->site2 = site_at(a, site2)->call_site;
		e->first_ptr = ptr;
		e->first_ts = ts;
	}
	e->count++;
	a->res.err_count[cls][kind]++;
	return 0;
}

/* Records of ABI 1.0 end before stack_id: read it only when it is there. */
static __u32 rec_stack_id(const struct gtsc_rec_kmem_alloc *r)
{
	if (r->hdr.size < offsetofend(struct gtsc_rec_kmem_alloc, stack_id))
		return 0;
	return r->stack_id;
}

static void count_size(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r)
{
	struct gtsc_kmem_size_class *req = &a->sizes[kmem_size_class(r->bytes_req)];

	req->by_req++;
	req->bytes_req += r->bytes_req;
	req->bytes_alloc += r->bytes_alloc;
	a->sizes[kmem_size_class(r->bytes_alloc)].by_alloc++;
}

static unsigned int order_slot(unsigned int order)
{
	return order < KMEM_ORDERS ? order : KMEM_ORDERS - 1;
}

/* The group key of a slab allocation: its cache, or (unknown cache, kmalloc) its size. */
static __u64 alloc_group_key(const struct gtsc_rec_kmem_alloc *r, __u64 *id)
{
	/* an unknown cache (tracepoint fallback) is known by its size: one size per group */
	*id = r->kind == GTSC_KMEM_CACHE && r->cache_id ? r->cache_id : r->bytes_alloc;
	return group_key(r->kind, *id);
}

/*
 * The tables' entries of an allocation, found one by one (the hot cache
 * missed); GROUP_ID as alloc_group_key() gave it (slab kinds only).
 */
static int intern_ids(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r, __u64 group_id,
		      __u32 stack_id, struct alloc_ids *ids)
{
	struct gtsc_kmem_stack_use *st;
	struct gtsc_kmem_gfp_use *gu;
	struct gtsc_kmem_group *g;
	bool added;
	int err;

	err = intern_site(a, r->call_site, &ids->site);
	if (err)
		return err;
	if (r->kind != GTSC_KMEM_PAGE) {
		g = intern_group(a, r->kind, group_id, &ids->group);
		if (!g)
			return -ENOMEM;
	}
	gu = table_get(&a->gfps, r->gfp_flags, &added);
	if (!gu)
		return -ENOMEM;
	gu->gfp_flags = r->gfp_flags;
	ids->gfp = gu - (struct gtsc_kmem_gfp_use *)a->gfps.items;
	if (!stack_id)
		return 0;
	st = table_get(&a->stacks, stack_id, &added);
	if (!st)
		return -ENOMEM;
	st->stack_id = stack_id;
	ids->stack = st - (struct gtsc_kmem_stack_use *)a->stacks.items;
	return 0;
}

/*
 * The indexes of R's call site, group, gfp value and stack: from the hot
 * cache when the combination was seen last in its slot, else interned (new
 * entries in the same order as without the cache) and remembered.
 */
static int alloc_ids(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r, __u32 stack_id,
		     struct alloc_ids *ids)
{
	__u64 id = 0, gkey = r->kind == GTSC_KMEM_PAGE ? 0 : alloc_group_key(r, &id);
	__u64 mix = r->call_site ^ gkey * 0xff51afd7ed558ccdULL ^
		    ((__u64)r->gfp_flags << 32 | stack_id) * 0xc4ceb9fe1a85ec53ULL;
	struct hot_alloc *h = &a->hot[kmem_hash64(mix ^ r->kind, HOT_BITS)];
	int err;

	if (h->used && h->call_site == r->call_site && h->group_key == gkey &&
	    h->gfp_flags == r->gfp_flags && h->stack_id == stack_id && h->kind == r->kind) {
		*ids = h->ids;
		return 0;
	}
	*ids = (struct alloc_ids){};
	err = intern_ids(a, r, id, stack_id, ids);
	if (err)
		return err;
	*h = (struct hot_alloc){
		.call_site = r->call_site,
		.group_key = gkey,
		.gfp_flags = r->gfp_flags,
		.stack_id = stack_id,
		.kind = r->kind,
		.used = true,
		.ids = *ids,
	};
	return 0;
}

/*
 * The group an allocation is counted in: its cache or its kmalloc size (*GROUP,
 * its index, in), or its page order (*GROUP out).
 */
static void count_group(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r, bool failed,
			__u32 *group)
{
	struct gtsc_kmem_order *o;
	struct gtsc_kmem_group *g;

	if (r->kind == GTSC_KMEM_PAGE) {
		*group = order_slot(r->order);
		o = &a->orders[*group];
		o->unit = r->bytes_alloc;
		o->allocs++;
		o->failed += failed;
		o->by_migratetype[(__u8)r->migratetype < KMEM_MIGRATETYPES
					  ? r->migratetype
					  : KMEM_MIGRATETYPES - 1]++;
		return;
	}
	count_size(a, r);
	g = group_at(a, *group);
	g->unit = r->bytes_alloc;
	g->allocs++;
	g->failed += failed;
	g->bytes_req += r->bytes_req;
	g->bytes_alloc += r->bytes_alloc;
}

static void count_gfp_stack(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r,
			    __u32 stack_id, const struct alloc_ids *ids)
{
	struct gtsc_kmem_gfp_use *g = (struct gtsc_kmem_gfp_use *)a->gfps.items + ids->gfp;
	struct gtsc_kmem_stack_use *s;

	g->allocs[r->kind]++;
	g->bytes_alloc += r->bytes_alloc;
	if (!stack_id) {
		a->res.unstacked.allocs++;
		a->res.unstacked.bytes_alloc += r->bytes_alloc;
		return;
	}
	s = (struct gtsc_kmem_stack_use *)a->stacks.items + ids->stack;
	s->allocs++;
	s->bytes_alloc += r->bytes_alloc;
}

/* The counters every allocation event adds to, whatever its pointer. */
static int count_alloc(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r, bool failed,
		       __u32 *site, __u32 *group)
{
	struct gtsc_kmem_kind_stats *ks = &a->res.kind[r->kind];
	__u32 stack_id = rec_stack_id(r);
	struct alloc_ids ids;
	struct gtsc_kmem_site *s;
	int err;

	ks->allocs++;
	ks->failed += failed;
	ks->bytes_req += r->bytes_req;
	ks->bytes_alloc += r->bytes_alloc;
	err = alloc_ids(a, r, stack_id, &ids);
	if (err)
		return err;
	*site = ids.site;
	*group = ids.group;
	count_group(a, r, failed, group);
	count_gfp_stack(a, r, stack_id, &ids);
	s = site_at(a, *site);
	s->kinds |= 1 << r->kind;
	s->allocs++;
	s->failed += failed;
	s->bytes_req += r->bytes_req;
	s->bytes_alloc += r->bytes_alloc;
	return 0;
}

static int on_alloc(struct kmem_analysis *a, const struct gtsc_rec_kmem_alloc *r)
{
	bool page = r->kind == GTSC_KMEM_PAGE;
	bool failed = page ? r->ptr == PFN_FAILED : !r->ptr;
	struct kmem_obj *o;
	__u32 site, group;
	int err;

	err = count_alloc(a, r, failed, &site, &group);
	if (err)
		return err;
	if (failed)
		return add_err(a, KMEM_ERR_NULL_ALLOC, r->kind, r->kind, site, site, r->ptr,
			       r->hdr.ts_ns);
	if (!page && r->ptr <= KMEM_ZERO_SIZE_PTR)
		return 0; /* kmalloc(0): nothing to free */
	o = kmem_objmap__lookup(&a->objs, r->kind, r->ptr);
	if (!o)
		return -ENOMEM;
	if (o->state == KMEM_OBJ_LIVE) {
		err = add_err(a, KMEM_ERR_ALLOC_LIVE, r->kind, r->kind, o->site, site, r->ptr,
			      r->hdr.ts_ns);
		if (err)
			return err;
	}
	o->ts = r->hdr.ts_ns;
	o->site = site;
	o->group = group;
	o->bytes_req = r->bytes_req;
	o->cpu = r->hdr.cpu;
	kmem_objmap__set(&a->objs, o, KMEM_OBJ_LIVE);
	return 0;
}

/* Bytes an object holds: what every allocation of its group holds. */
static __u64 obj_bytes(const struct kmem_analysis *a, const struct kmem_obj *o)
{
	if (o->kind == GTSC_KMEM_PAGE)
		return a->orders[o->group].unit;
	return ((const struct gtsc_kmem_group *)a->groups.items)[o->group].unit;
}

/* The free's call site, interned only where it is needed: errors. */
static int free_site(struct kmem_analysis *a, const struct gtsc_rec_kmem_free *r, __u32 *idx)
{
	return intern_site(a, r->call_site, idx);
}

/* A matched free: what the allocation brought is returned. */
static int release(struct kmem_analysis *a, struct kmem_obj *o, const struct gtsc_rec_kmem_free *r)
{
	struct gtsc_kmem_kind_stats *ks = &a->res.kind[o->kind];
	struct gtsc_kmem_site *s = site_at(a, o->site);
	bool pingpong = r->hdr.cpu != o->cpu;
	__u64 bytes = obj_bytes(a, o);
	__u32 fsite;

	ks->frees_matched++;
	ks->bytes_freed += bytes;
	ks->pingpong += pingpong;
	s->frees++;
	s->bytes_freed += bytes;
	s->pingpong += pingpong;
	if (o->kind == GTSC_KMEM_PAGE) {
		a->orders[o->group].frees_matched++;
	} else {
		group_at(a, o->group)->frees++;
		group_at(a, o->group)->bytes_freed += bytes;
	}
	o->ts = r->hdr.ts_ns;
	kmem_objmap__set(&a->objs, o, KMEM_OBJ_FREED);
	if (o->kind != GTSC_KMEM_PAGE || order_slot(r->order) == o->group)
		return 0;
	return free_site(a, r, &fsite)
		       ?: add_err(a, KMEM_ERR_PAGE_ORDER, o->kind, r->kind, o->site, fsite, r->ptr,
				  r->hdr.ts_ns);
}

/*
 * kfree() of a kmem_cache object or kmem_cache_free() of a kmalloc one: the
 * other slab kind's live entry of the pointer, else NULL.
 */
static struct kmem_obj *other_slab_kind(struct kmem_analysis *a, const struct gtsc_rec_kmem_free *r)
{
	struct kmem_obj *o;

	if (r->kind == GTSC_KMEM_PAGE)
		return NULL;
	o = gt_kmem_objmap__peek(&a->objs, !r->kind, r->ptr);
	return o && o->state == KMEM_OBJ_LIVE ? o : NULL;
}

/*
 * A free whose pointer has no live allocation of its kind.  SITE of a
 * tombstone becomes the last free's: "freed at X, then again at Y".
 */
static int unmatched_free(struct kmem_analysis *a, struct kmem_obj *o,
			  const struct gtsc_rec_kmem_free *r)
{
	__u64 ts = r->hdr.ts_ns;
	__u32 fsite;
	int err = free_site(a, r, &fsite);

	if (err)
		return err;
	switch (o->state) {
	case KMEM_OBJ_FREED:
		err = add_err(a, KMEM_ERR_DOUBLE_FREE, o->kind, r->kind, o->site, fsite, r->ptr,
			      ts);
		break;
	case KMEM_OBJ_FREED_UNSEEN:
		err = add_err(a, KMEM_ERR_FREE_AFTER_FREE, r->kind, r->kind, o->site, fsite, r->ptr,
			      ts);
		o->site = fsite;
		break;
	default:
		err = add_err(a, KMEM_ERR_PRETRACE_FREE, r->kind, r->kind, fsite, fsite, r->ptr,
			      ts);
		o->site = fsite;
		kmem_objmap__set(&a->objs, o, KMEM_OBJ_FREED_UNSEEN);
		break;
	}
	o->ts = ts;
	return err;
}

static int on_free(struct kmem_analysis *a, const struct gtsc_rec_kmem_free *r)
{
	struct gtsc_kmem_kind_stats *ks = &a->res.kind[r->kind];
	struct kmem_obj *o, *other;
	__u32 fsite;
	int err;

	ks->frees++;
	if (r->kind == GTSC_KMEM_PAGE)
		a->orders[order_slot(r->order)].frees++;
	else if (r->ptr <= KMEM_ZERO_SIZE_PTR)
		return ks->frees_null++, 0;
	o = kmem_objmap__lookup(&a->objs, r->kind, r->ptr);
	if (!o)
		return -ENOMEM;
	if (o->state == KMEM_OBJ_LIVE)
		return release(a, o, r);
	other = other_slab_kind(a, r);
	if (!other)
		return unmatched_free(a, o, r);
	err = free_site(a, r, &fsite);
	err = err
		      ?: add_err(a,
				 other->kind == GTSC_KMEM_CACHE ? KMEM_ERR_CACHE_KFREE
								: KMEM_ERR_KMALLOC_CACHE_FREE,
				 other->kind, r->kind, other->site, fsite, r->ptr, r->hdr.ts_ns);
	return err ?: release(a, other, r);
}

static void note_time(struct kmem_analysis *a, __u64 ts)
{
	if (!a->res.events++ || ts < a->res.first_ts)
		a->res.first_ts = ts;
	if (ts > a->res.last_ts)
		a->res.last_ts = ts;
}

int gt_kmem_analysis__add(struct kmem_analysis *a, const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_kmem_alloc *al = (const void *)rec;
	const struct gtsc_rec_kmem_free *fr = (const void *)rec;

	switch (rec->type) {
	case GTSC_REC_KMEM_CACHE:
		/* names are needed whoever's event brought them */
		return name_cache(a, (const void *)rec);
	case GTSC_REC_KMEM_ALLOC:
		if (al->kind >= KMEM_KINDS || !pid_wanted(a, rec->pid))
			return 0;
		note_time(a, rec->ts_ns);
		return on_alloc(a, al);
	case GTSC_REC_KMEM_FREE:
		if (fr->kind >= KMEM_KINDS || !pid_wanted(a, rec->pid))
			return 0;
		note_time(a, rec->ts_ns);
		return on_free(a, fr);
	default:
		return 0;
	}
}

/*
 * Every field this file reads of a record: one read and not listed would
 * find a column chunk's bytes undecoded (the round-trip tests compare
 * reports of 1.1 and 1.2 files).  Not read: the header's flags and tid,
 * kmem_alloc's node, kmem_free's cache_id, padding (measured in
 * gt_kmem_stream__run_cb()), and the pid when no pid is filtered on
 * (pid_wanted()).
 */
void gt_kmem_analysis__want(const struct kmem_analysis *a, struct col_want *w)
{
	static const unsigned int types[] = { GTSC_REC_KMEM_ALLOC, GTSC_REC_KMEM_FREE,
					      GTSC_REC_KMEM_CACHE };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		COL_WANT(w, types[i], gtsc_rec_hdr, type);
		COL_WANT(w, types[i], gtsc_rec_hdr, size);
		COL_WANT(w, types[i], gtsc_rec_hdr, cpu);
		if (!a || a->nr_pids)
			COL_WANT(w, types[i], gtsc_rec_hdr, pid);
		COL_WANT(w, types[i], gtsc_rec_hdr, ts_ns);
	}
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, call_site);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, ptr);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, cache_id);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, bytes_req);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, bytes_alloc);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, gfp_flags);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, kind);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, order);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, migratetype);
	COL_WANT(w, GTSC_REC_KMEM_ALLOC, gtsc_rec_kmem_alloc, stack_id);
	COL_WANT(w, GTSC_REC_KMEM_FREE, gtsc_rec_kmem_free, call_site);
	COL_WANT(w, GTSC_REC_KMEM_FREE, gtsc_rec_kmem_free, ptr);
	COL_WANT(w, GTSC_REC_KMEM_FREE, gtsc_rec_kmem_free, kind);
	COL_WANT(w, GTSC_REC_KMEM_FREE, gtsc_rec_kmem_free, order);
	COL_WANT(w, GTSC_REC_KMEM_CACHE, gtsc_rec_kmem_cache, cache_id);
	COL_WANT(w, GTSC_REC_KMEM_CACHE, gtsc_rec_kmem_cache, object_size);
	COL_WANT(w, GTSC_REC_KMEM_CACHE, gtsc_rec_kmem_cache, size);
	COL_WANT(w, GTSC_REC_KMEM_CACHE, gtsc_rec_kmem_cache, name);
}

/* Always inlined, for the reason kmem_objmap__prefetch() is. */
static inline __attribute__((always_inline)) void prefetch(const struct kmem_analysis *a,
							   const struct gtsc_rec_hdr *rec)
{
	const struct gtsc_rec_kmem_alloc *al = (const void *)rec;
	const struct gtsc_rec_kmem_free *fr = (const void *)rec;

	if (rec->type == GTSC_REC_KMEM_ALLOC)
		kmem_objmap__prefetch(&a->objs, al->kind, al->ptr);
	else if (rec->type == GTSC_REC_KMEM_FREE)
		kmem_objmap__prefetch(&a->objs, fr->kind, fr->ptr);
}

/* Records between an object map slot's prefetch and its use: enough to hide a cache miss. */
#define AHEAD 8

int gt_kmem_analysis__add_refs(struct kmem_analysis *a, const struct trace_rec_ref *refs, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && i < AHEAD; i++)
		prefetch(a, refs[i].rec);
	for (i = 0; !err && i < n; i++) {
		if (i + AHEAD < n)
			prefetch(a, refs[i + AHEAD].rec);
		err = gt_kmem_analysis__add(a, refs[i].rec);
	}
	return err;
}

static void count_live(struct kmem_analysis *a, const struct kmem_obj *o, __u64 end)
{
	struct gtsc_kmem_site *s = site_at(a, o->site);
	__u64 age = end > o->ts ? end - o->ts : 0;

	if (!s->live || o->ts < s->live_oldest_ts)
		s->live_oldest_ts = o->ts;
	s->live++;
	s->live_bytes_req += o->bytes_req;
	s->live_bytes_alloc += obj_bytes(a, o);
	s->live_age_sum += age;
	if (o->kind == GTSC_KMEM_PAGE) {
		a->orders[o->group].live++;
		a->orders[o->group].live_age_sum += age;
	} else {
		group_at(a, o->group)->live++;
	}
}

int gt_kmem_analysis__finish(struct kmem_analysis *a, __u64 end_ns)
{
	struct kmem_results *res = &a->res;

	res->end_ts = end_ns > res->last_ts ? end_ns : res->last_ts;
	for (size_t i = 0; i < a->objs.cap; i++)
		if (a->objs.slot[i].state == KMEM_OBJ_LIVE)
			count_live(a, &a->objs.slot[i], res->end_ts);
	res->sites = a->sites.items;
	res->nr_sites = a->sites.n;
	res->groups = a->groups.items;
	res->nr_groups = a->groups.n;
	res->sizes = a->sizes;
	res->orders = a->orders;
	res->gfps = a->gfps.items;
	res->nr_gfps = a->gfps.n;
	res->errs = a->errs.items;
	res->nr_errs = a->errs.n;
	res->stacks = a->stacks.items;
	res->nr_stacks = a->stacks.n;
	res->live_objects = a->objs.live;
	res->table_slots = a->objs.cap;
	return 0;
}

const struct kmem_results *gt_kmem_analysis__results(const struct kmem_analysis *a)
{
	return &a->res;
}

static const struct {
	const char *name, *title;
} err_classes[KMEM_ERR_MAX] = {
	[KMEM_ERR_CACHE_KFREE] = { "cache_alloc_kfree",
				   "kmem_cache_alloc'd objects freed by kfree" },
	[KMEM_ERR_KMALLOC_CACHE_FREE] = { "kmalloc_cache_free",
					  "kmalloc'd objects freed by kmem_cache_free" },
	[KMEM_ERR_DOUBLE_FREE] = { "double_free",
				   "double frees (allocated in the trace, freed twice)" },
	[KMEM_ERR_FREE_AFTER_FREE] = {
		"free_after_free", "suspicious frees (never allocated in the trace, freed twice)" },
	[KMEM_ERR_PRETRACE_FREE] = { "pretrace_free",
				     "frees of objects allocated before the trace began" },
	[KMEM_ERR_ALLOC_LIVE] = { "alloc_live",
				  "allocations of a pointer still live (no free between)" },
	[KMEM_ERR_NULL_ALLOC] = { "failed_alloc", "failed allocations (NULL, or pfn -1)" },
	[KMEM_ERR_PAGE_ORDER] = { "page_order",
				  "pages freed with another order than allocated" },
};

const char *gtsc_kmem_err_name(enum gtsc_kmem_err_class cls)
{
	return cls < KMEM_ERR_MAX ? err_classes[cls].name : "?";
}

const char *gtsc_kmem_err_title(enum gtsc_kmem_err_class cls)
{
	return cls < KMEM_ERR_MAX ? err_classes[cls].title : "?";
}

const char *gtsc_kmem_err_cause(enum gtsc_kmem_err_class cls, enum gtsc_kmem_kind kind)
{
	bool page = kind == GTSC_KMEM_PAGE;

	switch (cls) {
	case KMEM_ERR_DOUBLE_FREE:
	case KMEM_ERR_FREE_AFTER_FREE:
		return page ? "or an allocation the kernel does not trace (bulk page allocation)"
			    : "or an allocation the kernel does not trace (kmem_cache_alloc_bulk)";
	case KMEM_ERR_ALLOC_LIVE:
		return page ? "pages freed in batches (mm_page_free_batched) are not recorded"
			    : "or a free the kernel does not trace (kfree_bulk, "
			      "kmem_cache_free_bulk), "
			      "or a dropped event";
	case KMEM_ERR_PRETRACE_FREE:
		return "normal: the object was allocated before recording started";
	case KMEM_ERR_PAGE_ORDER:
		return "a high-order page split (split_page) and freed in parts does this";
	default:
		return "";
	}
}

bool gt_kmem_err_benign(enum gtsc_kmem_err_class cls, __u8 kind)
{
	switch (cls) {
	case KMEM_ERR_PRETRACE_FREE:
	case KMEM_ERR_NULL_ALLOC:
		return true;
	case KMEM_ERR_ALLOC_LIVE:
	case KMEM_ERR_PAGE_ORDER:
	case KMEM_ERR_DOUBLE_FREE:
	case KMEM_ERR_FREE_AFTER_FREE:
		/* bulk allocations, batched and split frees of pages are not traced */
		return kind == GTSC_KMEM_PAGE;
	default:
		return false;
	}
}

int gtsc_kmem_kfree_cache_legal(const char *release)
{
	int major, minor;

	if (!release || sscanf(release, "%d.%d", &major, &minor) != 2)
		return -1;
	return major > 6 || (major == 6 && minor >= 4);
}
