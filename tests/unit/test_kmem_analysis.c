/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The kmem analysis on synthetic traces with planted errors: each class of
 * error, leaks, ping-pong, sizes and the perf-compatible totals, counted
 * exactly; the pid filter; the object table staying bounded by the live
 * objects over millions of events; GFP names from a trace's formats.
 */
#include <errno.h>
#include <stdbool.h>
#include "harness.h"
#include "kmem_analysis.h"
#include "kmem_gfp.h"
#include "kmem_map.h"
#include "kmem_stream.h"
#include "test_kmem_trace.h"
#include "trace_reader.h"

#define K GTSC_KMEM_KMALLOC
#define C GTSC_KMEM_CACHE
#define P GTSC_KMEM_PAGE
#define PTR(n) (0xffff888100000000ULL + 0x100ULL * (n))

/* Analyses PATH through the reader, in time order, as report --kmem does. */
static struct kmem_analysis *analyse(const char *path, const __u32 *pids, size_t nr_pids)
{
	struct kmem_analysis_opts ao = { .sz = sizeof(ao), .pids = pids, .nr_pids = nr_pids };
	struct gtsc_reader *r = gtsc_reader__open(path, NULL);
	struct kmem_analysis *a = gt_kmem_analysis__new(&ao);
	const struct gtsc_rec_hdr *rec;
	int err = !r || !a;

	while (!err && gtsc_reader__next(r, &rec) > 0)
		err = gt_kmem_analysis__add(a, rec);
	if (!err)
		err = gt_kmem_analysis__finish(a, 0);
	gtsc_reader__close(r);
	if (err) {
		gt_kmem_analysis__free(a);
		return NULL;
	}
	return a;
}

static __u64 errs(const struct kmem_results *res, enum gtsc_kmem_err_class cls)
{
	return res->err_count[cls][K] + res->err_count[cls][C] + res->err_count[cls][P];
}

static const struct gtsc_kmem_site *site(const struct kmem_results *res, int n)
{
	for (size_t i = 0; i < res->nr_sites; i++)
		if (res->sites[i].call_site == KT_SITE(n))
			return &res->sites[i];
	return NULL;
}

static const struct gtsc_kmem_err *find_err(const struct kmem_results *res,
					    enum gtsc_kmem_err_class cls)
{
	for (size_t i = 0; i < res->nr_errs; i++)
		if (res->errs[i].cls == cls)
			return &res->errs[i];
	return NULL;
}

/*
 * One of each: a clean pair freed on the other CPU, a cache object kfree'd,
 * a kmalloc object kmem_cache_free'd, a double free, a free of an unknown
 * pointer twice, a pointer allocated twice, two leaks, a failed allocation,
 * kfree(NULL), and pages: a pair, an order mismatch, a failure.
 */
static void plant_errors(struct ktrace *t)
{
	kt_cache_name(t, "test_cache", 256);
	kt_alloc(t, K, 0, 1, PTR(1), 100, 128); /* freed on CPU 1: ping-pong */
	kt_free(t, K, 1, 9, PTR(1));
	kt_alloc(t, C, 0, 2, PTR(2), 256, 256); /* kmem_cache_alloc -> kfree */
	kt_free(t, K, 0, 9, PTR(2));
	kt_alloc(t, K, 0, 3, PTR(3), 64, 64); /* kmalloc -> kmem_cache_free */
	kt_free(t, C, 0, 9, PTR(3));
	kt_alloc(t, K, 0, 4, PTR(4), 30, 32); /* double free */
	kt_free(t, K, 0, 9, PTR(4));
	kt_free(t, K, 0, 10, PTR(4));
	kt_free(t, K, 0, 11, PTR(5));	    /* allocated before the trace... */
	kt_free(t, K, 0, 12, PTR(5));	    /* ...and freed again */
	kt_alloc(t, K, 0, 5, PTR(6), 8, 8); /* allocated twice */
	kt_alloc(t, K, 0, 6, PTR(6), 8, 8);
	kt_free(t, K, 0, 9, PTR(6));
	kt_alloc(t, K, 0, 7, PTR(7), 500, 512); /* two leaks from one site */
	kt_alloc(t, K, 1, 7, PTR(8), 700, 1024);
	kt_alloc(t, K, 0, 8, 0, 4000, 4096);	   /* failed */
	kt_free(t, K, 0, 9, 0);			   /* kfree(NULL): a no-op */
	kt_alloc(t, P, 0, 0, 0x100, 16384, 16384); /* order 2, freed as such */
	kt_free_order(t, P, 1, 0, 0x100, 2);
	kt_alloc(t, P, 0, 0, 0x200, 8192, 8192); /* order 1, freed as order 0 */
	kt_free_order(t, P, 0, 0, 0x200, 0);
	kt_alloc(t, P, 0, 0, (__u64)-1, 4096, 4096); /* failed */
}

/* The analysis of a trace of plant_errors(), NULL (and a failed check) if it failed. */
static struct kmem_analysis *planted(struct test_ctx *t, const char *name)
{
	struct kmem_analysis *a;
	struct ktrace kt;

	kt_open(&kt, name, NULL);
	plant_errors(&kt);
	kt_close(&kt);
	a = analyse(kt.path, NULL, 0);
	CHECK(t, a, "analysis failed");
	unlink(kt.path);
	return a;
}

static void test_planted_errors(struct test_ctx *t)
{
	struct kmem_analysis *a = planted(t, "errors");
	const struct kmem_results *res;

	if (!a)
		return;
	res = gt_kmem_analysis__results(a);
	CHECK(t, errs(res, KMEM_ERR_CACHE_KFREE) == 1, "cache->kfree %llu",
	      (unsigned long long)errs(res, KMEM_ERR_CACHE_KFREE));
	CHECK(t, errs(res, KMEM_ERR_KMALLOC_CACHE_FREE) == 1, "kmalloc->cache_free");
	CHECK(t, errs(res, KMEM_ERR_DOUBLE_FREE) == 1, "double free %llu",
	      (unsigned long long)errs(res, KMEM_ERR_DOUBLE_FREE));
	CHECK(t, errs(res, KMEM_ERR_PRETRACE_FREE) == 1, "pretrace %llu",
	      (unsigned long long)errs(res, KMEM_ERR_PRETRACE_FREE));
	CHECK(t, errs(res, KMEM_ERR_FREE_AFTER_FREE) == 1, "free after free");
	CHECK(t, errs(res, KMEM_ERR_ALLOC_LIVE) == 1, "alloc live");
	CHECK(t, errs(res, KMEM_ERR_NULL_ALLOC) == 2, "failed allocs %llu",
	      (unsigned long long)errs(res, KMEM_ERR_NULL_ALLOC));
	CHECK(t, errs(res, KMEM_ERR_PAGE_ORDER) == 1, "page order");
	/* where: the double free's allocation and second free sites */
	CHECK(t,
	      find_err(res, KMEM_ERR_DOUBLE_FREE)->site == KT_SITE(4) &&
		      find_err(res, KMEM_ERR_DOUBLE_FREE)->site2 == KT_SITE(10),
	      "double free sites");
	CHECK(t,
	      find_err(res, KMEM_ERR_ALLOC_LIVE)->site == KT_SITE(5) &&
		      find_err(res, KMEM_ERR_ALLOC_LIVE)->site2 == KT_SITE(6),
	      "alloc live sites");
	CHECK(t, find_err(res, KMEM_ERR_CACHE_KFREE)->first_ptr == PTR(2), "cache kfree ptr");
	/* leaks: the two from site 7, plus nothing else live in the slab */
	CHECK(t,
	      site(res, 7)->live == 2 && site(res, 7)->live_bytes_alloc == 1536 &&
		      site(res, 7)->live_bytes_req == 1200,
	      "leaks of site 7: %llu", (unsigned long long)site(res, 7)->live);
	CHECK(t, res->live_objects == 2, "live objects %zu", res->live_objects);
	/* ping-pong: only the first pair crossed CPUs (and one page pair) */
	CHECK(t, res->kind[K].pingpong == 1 && site(res, 1)->pingpong == 1, "pingpong %llu",
	      (unsigned long long)res->kind[K].pingpong);
	CHECK(t, res->kind[P].pingpong == 1, "page pingpong");
	gt_kmem_analysis__free(a);
}

/* What perf kmem stat prints, from the same planted events. */
static void test_totals(struct test_ctx *t)
{
	struct kmem_analysis *a = planted(t, "totals");
	const struct kmem_results *res;
	const struct gtsc_kmem_kind_stats *k;

	if (!a)
		return;
	res = gt_kmem_analysis__results(a);
	k = res->kind;
	/* every allocation event counts, the failed one too (perf does) */
	CHECK(t, k[K].allocs == 8 && k[C].allocs == 1, "allocs %llu %llu",
	      (unsigned long long)k[K].allocs, (unsigned long long)k[C].allocs);
	CHECK(t, k[K].bytes_req + k[C].bytes_req == 100 + 256 + 64 + 30 + 8 + 8 + 500 + 700 + 4000,
	      "bytes_req %llu", (unsigned long long)(k[K].bytes_req + k[C].bytes_req));
	CHECK(t,
	      k[K].bytes_alloc + k[C].bytes_alloc ==
		      128 + 256 + 64 + 32 + 8 + 8 + 512 + 1024 + 4096,
	      "bytes_alloc");
	/* freed: the allocations in the trace that were freed, once each */
	CHECK(t, k[K].bytes_freed + k[C].bytes_freed == 128 + 256 + 64 + 32 + 8, "bytes_freed %llu",
	      (unsigned long long)(k[K].bytes_freed + k[C].bytes_freed));
	CHECK(t, k[K].frees == 8 && k[K].frees_null == 1 && k[C].frees == 1, "frees %llu/%llu",
	      (unsigned long long)k[K].frees, (unsigned long long)k[K].frees_null);
	CHECK(t, k[K].failed == 1 && k[P].failed == 1, "failed");
	CHECK(t,
	      res->orders[2].allocs == 1 && res->orders[2].frees_matched == 1 &&
		      res->orders[1].allocs == 1 && res->orders[0].frees == 1,
	      "page orders");
	/* requested 30 -> class 17-32 (5), allocated 32 -> 5 as well; 500 -> 9, 512 -> 9 */
	CHECK(t,
	      res->sizes[5].by_req == 1 && res->sizes[9].by_req == 1 &&
		      res->sizes[10].by_alloc == 1,
	      "size classes");
	CHECK(t,
	      site(res, 1)->allocs == 1 && site(res, 1)->frees == 1 &&
		      site(res, 1)->bytes_req == 100 && site(res, 1)->bytes_alloc == 128,
	      "site 1");
	gt_kmem_analysis__free(a);
}

static void test_cache_groups(struct test_ctx *t)
{
	struct kmem_analysis *a = planted(t, "groups");
	const struct kmem_results *res;
	bool named = false, kmalloc64 = false;

	if (!a)
		return;
	res = gt_kmem_analysis__results(a);
	for (size_t i = 0; i < res->nr_groups; i++) {
		const struct gtsc_kmem_group *g = &res->groups[i];

		if (g->kind == C && g->named && !strcmp(g->name, "test_cache"))
			named = g->allocs == 1 && g->frees == 1 && g->size == 256;
		if (g->kind == K && g->id == 64)
			kmalloc64 = g->allocs == 1 && g->frees == 1;
	}
	CHECK(t, named, "test_cache not counted with its name");
	CHECK(t, kmalloc64, "kmalloc-64 not counted");
	gt_kmem_analysis__free(a);
}

static void test_pid_filter(struct test_ctx *t)
{
	static const __u32 pid = 200;
	struct ktrace kt;
	struct kmem_analysis *a;
	const struct kmem_results *res;

	kt_open(&kt, "pids", NULL);
	plant_errors(&kt); /* pid 100 */
	kt_alloc_pid(&kt, K, 0, 200, 1, PTR(100), 10, 16);
	kt_alloc_pid(&kt, K, 0, 200, 1, PTR(101), 20, 32);
	kt_close(&kt);
	a = analyse(kt.path, &pid, 1);
	CHECK(t, a, "analysis failed");
	if (!a)
		goto out;
	res = gt_kmem_analysis__results(a);
	CHECK(t, res->events == 2 && res->kind[K].allocs == 2 && res->kind[K].bytes_req == 30,
	      "events %llu", (unsigned long long)res->events);
	CHECK(t, errs(res, KMEM_ERR_DOUBLE_FREE) == 0, "other pids' errors counted");
	gt_kmem_analysis__free(a);
out:
	unlink(kt.path);
}

/*
 * Millions of short-lived objects at ever new addresses, a few live at a time:
 * the table must stay bounded (old tombstones dropped), and pairing exact.
 */
static void test_bounded_memory(struct test_ctx *t)
{
	struct kmem_analysis *a = gt_kmem_analysis__new(NULL);
	const struct kmem_results *res;
	const __u64 n = 3000000;
	int err = 0;

	for (__u64 i = 0; !err && i < n; i++) {
		struct gtsc_rec_kmem_alloc al = {
			.hdr = { .type = GTSC_REC_KMEM_ALLOC, .size = sizeof(al), .ts_ns = 2 * i },
			.call_site = KT_SITE(1),
			.ptr = PTR(i),
			.bytes_req = 32,
			.bytes_alloc = 32,
		};
		struct gtsc_rec_kmem_free fr = {
			.hdr = { .type = GTSC_REC_KMEM_FREE,
				 .size = sizeof(fr),
				 .ts_ns = 2 * i + 1 },
			.call_site = KT_SITE(2),
			.ptr = PTR(i >= 1000 ? i - 1000 : (__u64)-1),
		};

		err = gt_kmem_analysis__add(a, &al.hdr);
		if (!err && i >= 1000)
			err = gt_kmem_analysis__add(a, &fr.hdr);
	}
	err = err ?: gt_kmem_analysis__finish(a, 0);
	CHECK(t, !err, "add failed: %d", err);
	res = gt_kmem_analysis__results(a);
	CHECK(t, res->live_objects == 1000, "live %zu", res->live_objects);
	CHECK(t, res->kind[K].frees_matched == n - 1000, "matched %llu",
	      (unsigned long long)res->kind[K].frees_matched);
	CHECK(t, res->table_slots <= (1u << 20), "table grew to %zu slots for 1000 live objects",
	      res->table_slots);
	CHECK(t, errs(res, KMEM_ERR_PRETRACE_FREE) == 0, "spurious unknown frees");
	gt_kmem_analysis__free(a);
}

static void test_objmap_tombstones(struct test_ctx *t)
{
	struct kmem_objmap m = {};
	struct kmem_obj *o;

	o = kmem_objmap__lookup(&m, K, 0x1000);
	CHECK(t, o && o->state == KMEM_OBJ_EMPTY, "new slot");
	kmem_objmap__set(&m, o, KMEM_OBJ_LIVE);
	CHECK(t, m.live == 1 && m.used == 1, "live %zu used %zu", m.live, m.used);
	o = kmem_objmap__lookup(&m, C, 0x1000); /* same pointer, other kind: another key */
	CHECK(t, o && o->state == KMEM_OBJ_EMPTY, "kinds share a key");
	o = kmem_objmap__lookup(&m, K, 0x1000);
	kmem_objmap__set(&m, o, KMEM_OBJ_FREED);
	CHECK(t, m.live == 0 && m.used == 1, "freed: live %zu used %zu", m.live, m.used);
	CHECK(t, gt_kmem_objmap__peek(&m, K, 0x1000)->state == KMEM_OBJ_FREED, "tombstone gone");
	gt_kmem_objmap__free(&m);
}

/*
 * A table growing to eight times its first size (a mapped table grows where
 * it is, kmem_map.c): every live object and tombstone is found after each
 * doubling, and no slot holds a stale copy (the live count is exact).
 */
static void test_objmap_growth(struct test_ctx *t)
{
	struct kmem_objmap m = {};
	const size_t n = 300000, first = 1u << 17;
	size_t bad = 0;
	struct kmem_obj *o;

	for (size_t i = 0; i < n; i++) {
		o = kmem_objmap__lookup(&m, K, PTR(i));
		if (!o)
			break;
		o->ts = i + 1;
		kmem_objmap__set(&m, o, i % 4 ? KMEM_OBJ_LIVE : KMEM_OBJ_FREED);
	}
	CHECK(t, m.cap >= 8 * first, "the table has %zu slots, wanted at least %zu", m.cap,
	      8 * first);
	CHECK(t, m.live == n - n / 4, "live %zu of %zu", m.live, n - n / 4);
	for (size_t i = 0; i < n; i++) {
		o = gt_kmem_objmap__peek(&m, K, PTR(i));
		bad += !o || o->ts != i + 1 || o->state != (i % 4 ? KMEM_OBJ_LIVE : KMEM_OBJ_FREED);
	}
	CHECK(t, bad == 0, "%zu of %zu objects lost or changed by the growth", bad, n);
	bad = 0;
	for (size_t i = 0; i < m.cap; i++)
		bad += m.slot[i].state == KMEM_OBJ_LIVE;
	CHECK(t, bad == m.live, "%zu live slots for %zu live objects", bad, m.live);
	gt_kmem_objmap__free(&m);
}

static void test_kfree_cache_legality(struct test_ctx *t)
{
	CHECK(t, gtsc_kmem_kfree_cache_legal("6.18.44-fc-v669") == 1, "6.18");
	CHECK(t, gtsc_kmem_kfree_cache_legal("6.4.0") == 1, "6.4");
	CHECK(t, gtsc_kmem_kfree_cache_legal("6.3.13") == 0, "6.3");
	CHECK(t, gtsc_kmem_kfree_cache_legal("5.15.0-91-generic") == 0, "5.15");
	CHECK(t, gtsc_kmem_kfree_cache_legal("7.0") == 1, "7.0");
	CHECK(t, gtsc_kmem_kfree_cache_legal("?") == -1 && gtsc_kmem_kfree_cache_legal(NULL) == -1,
	      "unknown");
}

/* ---- GFP names ---- */

static void test_gfp_eval(struct test_ctx *t)
{
	static const struct {
		const char *expr;
		__u64 want;
	} cases[] = {
		{ "1", 1 },
		{ "(1UL)", 1 },
		{ "((( gfp_t)((((1UL))) << (10))))", 0x400 },
		{ "( unsigned long)((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) | (( "
		 "gfp_t)((((1UL))) << (6))))",
		 0xc40 },
		{ "(unsigned long)((( gfp_t)(0x400u|0x800u)) | (( gfp_t)0x40u) | (( gfp_t)0x80u))",
		 0xcc0 },
		{ "((( gfp_t)(((((1UL))) << (10))|((((1UL))) << (11)))) & ~(( gfp_t)((((1UL))) << "
		 "(10))))",
		 0x800 },
	};
	__u64 v;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		CHECK(t, gt_kmem_gfp__eval(cases[i].expr, strlen(cases[i].expr), &v), "'%s' failed",
		      cases[i].expr);
		CHECK(t, v == cases[i].want, "'%s' = %llx", cases[i].expr, (unsigned long long)v);
	}
	CHECK(t, !gt_kmem_gfp__eval("___GFP_IO", 9, &v), "an unexpanded macro evaluated");
}

/* A 6.1-style table (hex literals) with a bit value that moved: the trace's wins. */
static void test_gfp_from_formats(struct test_ctx *t)
{
	static const char fmt[] =
		"event: kmem/kmalloc\nname: kmalloc\nprint fmt: \"gfp_flags=%s\", "
		"(REC->gfp_flags) ? __print_flags(REC->gfp_flags, \"|\", "
		"{(unsigned long)((( gfp_t)(0x400u|0x800u)) | (( gfp_t)0x40u) | (( gfp_t)0x80u)), "
		"\"GFP_KERNEL\"}, "
		"{(unsigned long)(( gfp_t)0x100u), \"__GFP_ZERO\"}, "
		"{(unsigned long)(( gfp_t)0x4000000u), \"__GFP_OLDBIT\"}, "
		"{(unsigned long)(BOGUS_MACRO), \"__GFP_SKIPPED\"}, "
		"{ 0, ((void *)0) } ) : \"none\"\n";
	struct kmem_gfp_table g;
	char buf[128];

	CHECK(t, !gt_kmem_gfp__load(&g, fmt, sizeof(fmt) - 1), "load");
	CHECK(t, g.from_trace && g.n == 3, "from_trace %d n %zu", g.from_trace, g.n);
	gt_kmem_gfp__decode(&g, 0xdc0, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "GFP_KERNEL|__GFP_ZERO"), "0xdc0 -> %s", buf);
	gt_kmem_gfp__decode(&g, 0x4000cc0 | 0x1, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "GFP_KERNEL|__GFP_OLDBIT|0x1"), "leftover -> %s", buf);
	gt_kmem_gfp__decode(&g, 0, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "none"), "0 -> %s", buf);
	gt_kmem_gfp__free(&g);
	CHECK(t, !gt_kmem_gfp__load(&g, NULL, 0) && !g.from_trace, "fallback");
	gt_kmem_gfp__decode(&g, 0x400dc0, buf, sizeof(buf));
	CHECK(t, !strcmp(buf, "GFP_KERNEL_ACCOUNT|__GFP_ZERO"), "fallback 0x400dc0 -> %s", buf);
	gt_kmem_gfp__free(&g);
}

/* PATH through the batch path (BATCHES) or one record at a time. */
static struct kmem_analysis *stream(const char *path, bool batches)
{
	struct gtsc_reader *r = gtsc_reader__open(path, NULL);
	struct kmem_analysis *a = gt_kmem_analysis__new(NULL);
	const struct gtsc_rec_hdr *rec;
	int n = 0;

	if (r && a && !batches) {
		while ((n = gtsc_reader__next(r, &rec)) > 0 && !gt_kmem_analysis__add(a, rec))
			;
		/* aged to the recording's end, as gt_kmem_stream__run does */
		n = n ?: gt_kmem_analysis__finish(a, strtoull(gtsc_reader__meta(r, "end_ns") ?: "0",
							      NULL, 10));
	}
	if (!r || !a || n || (batches && gt_kmem_stream__run(r, a))) {
		gt_kmem_analysis__free(a);
		a = NULL;
	}
	gtsc_reader__close(r);
	return a;
}

/* The batches analysed where the reader left them: the same numbers as record by record. */
static void test_stream_batches(struct test_ctx *t)
{
	struct kmem_analysis *a, *b;
	const struct kmem_results *x, *y;
	struct ktrace kt;

	kt_open(&kt, "stream", NULL);
	for (int round = 0; round < 3000; round++) /* several batches of records */
		plant_errors(&kt);
	kt_close(&kt);
	a = stream(kt.path, false);
	b = stream(kt.path, true);
	CHECK(t, a && b, "stream failed");
	if (a && b) {
		x = gt_kmem_analysis__results(a);
		y = gt_kmem_analysis__results(b);
		CHECK(t, x->events == y->events && x->events > 50000, "events %llu %llu",
		      (unsigned long long)x->events, (unsigned long long)y->events);
		CHECK(t, !memcmp(x->kind, y->kind, sizeof(x->kind)), "kind totals differ");
		CHECK(t, !memcmp(x->err_count, y->err_count, sizeof(x->err_count)),
		      "error counts differ");
		CHECK(t, x->live_objects == y->live_objects && x->end_ts == y->end_ts,
		      "live %zu %zu", x->live_objects, y->live_objects);
	}
	gt_kmem_analysis__free(a);
	gt_kmem_analysis__free(b);
	unlink(kt.path);
}

/*
 * The public handle (gtsc/kmem.h) gives what the engine computed: no
 * results before finish, ENOENT past a table's end, and the same numbers.
 */
static void test_public_api(struct test_ctx *t)
{
	GTSC_OPTS(gtsc_kmem_analysis_opts, o);
	struct kmem_analysis *ref = planted(t, "public_ref");
	const struct gtsc_kmem_summary *sum;
	struct gtsc_kmem_analysis *a;
	const struct kmem_results *res;
	struct gtsc_reader *r;
	struct ktrace kt;
	__u64 total = 0, ref_total = 0;

	kt_open(&kt, "public", NULL);
	plant_errors(&kt);
	kt_close(&kt);
	r = gtsc_reader__open(kt.path, NULL);
	a = gtsc_kmem_analysis__new(&o);
	CHECK(t, r && a && ref, "open failed");
	if (!r || !a || !ref)
		goto out;
	CHECK(t, !gtsc_kmem_analysis__summary(a) && errno == EINVAL, "results before finish");
	CHECK(t, !gtsc_kmem_analysis__read(a, r), "read failed");
	CHECK(t, gtsc_kmem_analysis__read(a, r) == -EINVAL, "read twice");
	res = gt_kmem_analysis__results(ref);
	sum = gtsc_kmem_analysis__summary(a);
	CHECK(t, sum && sum->events == res->events && sum->nr_sites == res->nr_sites &&
			 sum->nr_errs == res->nr_errs && sum->live_objects == res->live_objects,
	      "summary differs");
	CHECK(t, !memcmp(gtsc_kmem_analysis__kind(a, GTSC_KMEM_PAGE), &res->kind[GTSC_KMEM_PAGE],
			 sizeof(res->kind[0])),
	      "page totals differ");
	for (size_t i = 0; sum && i < sum->nr_errs; i++)
		total += gtsc_kmem_analysis__err(a, i)->count;
	for (size_t i = 0; i < res->nr_errs; i++)
		ref_total += res->errs[i].count;
	CHECK(t, sum && !gtsc_kmem_analysis__err(a, sum->nr_errs) && errno == ENOENT,
	      "an error past the end");
	CHECK(t, total == ref_total && total > 0, "errors %llu, engine %llu",
	      (unsigned long long)total, (unsigned long long)ref_total);
	CHECK(t, !gtsc_kmem_analysis__order(a, GTSC_KMEM_ORDERS) && errno == ENOENT,
	      "an order past the end");
	CHECK(t, !strcmp(gtsc_kmem_err_name(GTSC_KMEM_ERR_DOUBLE_FREE), "double_free"),
	      "class name");
out:
	gtsc_kmem_analysis__free(a);
	gtsc_reader__close(r);
	gt_kmem_analysis__free(ref);
	unlink(kt.path);
}

/* A caller's opts that set a field this library does not know are refused. */
static void test_public_opts(struct test_ctx *t)
{
	struct {
		struct gtsc_kmem_analysis_opts o;
		long newer;
	} big = { .o.sz = sizeof(big), .newer = 1 };
	struct gtsc_kmem_analysis *a = gtsc_kmem_analysis__new(&big.o);

	CHECK(t, !a && errno == EINVAL, "unknown option accepted");
	big.newer = 0;
	a = gtsc_kmem_analysis__new(&big.o);
	CHECK(t, a, "zeroed tail refused");
	gtsc_kmem_analysis__free(a);
}

static const struct test_case cases[] = {
	{ "planted_errors", test_planted_errors },
	{ "totals", test_totals },
	{ "cache_groups", test_cache_groups },
	{ "pid_filter", test_pid_filter },
	{ "bounded_memory", test_bounded_memory },
	{ "stream_batches", test_stream_batches },
	{ "objmap_tombstones", test_objmap_tombstones },
	{ "objmap_growth", test_objmap_growth },
	{ "kfree_cache_legality", test_kfree_cache_legality },
	{ "gfp_eval", test_gfp_eval },
	{ "gfp_from_formats", test_gfp_from_formats },
	{ "public_api", test_public_api },
	{ "public_opts", test_public_opts },
};

int main(void)
{
	return RUN_TESTS("kmem", cases);
}
