// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * The public kmem API (gtsc/kmem.h) over the engine: the analysis handle,
 * GFP names and the checker.  The engine's own structs
 * are the public result structs; what is here checks arguments and state.
 */
#include <errno.h>
#include <stdlib.h>
#include "kmem_analysis.h"
#include "kmem_check.h"
#include "kmem_gfp.h"
#include "kmem_stream.h"
#include "opts.h"

struct gtsc_kmem_analysis {
	struct kmem_analysis *a;
	const struct kmem_results *res; /* set once finished */
	struct gtsc_kmem_summary sum;
};

struct gtsc_kmem_gfp {
	struct kmem_gfp_table t;
};

struct gtsc_check {
	struct kmem_check k;
};

/* ---- the analysis ---- */

struct gtsc_kmem_analysis *gtsc_kmem_analysis__new(const struct gtsc_kmem_analysis_opts *opts)
{
	struct kmem_analysis_opts ao = {
		.sz = sizeof(ao),
		.pids = OPTS_GET(opts, pids, NULL),
		.nr_pids = OPTS_GET(opts, nr_pids, 0),
	};
	struct gtsc_kmem_analysis *ka;

	if (!OPTS_VALID(opts, gtsc_kmem_analysis_opts) || (ao.nr_pids && !ao.pids))
		return errno = EINVAL, NULL;
	ka = calloc(1, sizeof(*ka));
	if (!ka)
		return errno = ENOMEM, NULL;
	ka->a = gt_kmem_analysis__new(&ao);
	if (!ka->a) {
		free(ka);
		return NULL;
	}
	return ka;
}

void gtsc_kmem_analysis__free(struct gtsc_kmem_analysis *a)
{
	if (!a)
		return;
	gt_kmem_analysis__free(a->a);
	free(a);
}

int gtsc_kmem_analysis__add(struct gtsc_kmem_analysis *a, const struct gtsc_rec_hdr *rec)
{
	if (!a || !rec || a->res)
		return -EINVAL;
	return gt_kmem_analysis__add(a->a, rec);
}

/* The engine has finished: the results become readable. */
static void finished(struct gtsc_kmem_analysis *a)
{
	const struct kmem_results *res = gt_kmem_analysis__results(a->a);

	a->res = res;
	a->sum = (struct gtsc_kmem_summary){
		.events = res->events,
		.first_ts = res->first_ts,
		.last_ts = res->last_ts,
		.end_ts = res->end_ts,
		.live_objects = res->live_objects,
		.table_slots = res->table_slots,
		.unstacked_allocs = res->unstacked.allocs,
		.unstacked_bytes = res->unstacked.bytes_alloc,
		.nr_sites = res->nr_sites,
		.nr_groups = res->nr_groups,
		.nr_gfps = res->nr_gfps,
		.nr_errs = res->nr_errs,
		.nr_stacks = res->nr_stacks,
	};
}

int gtsc_kmem_analysis__finish(struct gtsc_kmem_analysis *a, __u64 end_ns)
{
	int err;

	if (!a || a->res)
		return -EINVAL;
	err = gt_kmem_analysis__finish(a->a, end_ns);
	if (!err)
		finished(a);
	return err;
}

int gtsc_kmem_analysis__read(struct gtsc_kmem_analysis *a, struct gtsc_reader *r)
{
	int err;

	if (!a || !r || a->res)
		return -EINVAL;
	/* decompressing and analysing cost about the same: a pipeline halves the time */
	err = gt_kmem_stream__run(r, a->a);
	if (!err)
		finished(a);
	return err;
}

static const struct kmem_results *results(const struct gtsc_kmem_analysis *a)
{
	if (!a || !a->res)
		errno = EINVAL;
	return a ? a->res : NULL;
}

static bool in_range(size_t i, size_t n)
{
	if (i >= n)
		errno = ENOENT;
	return i < n;
}

const struct gtsc_kmem_summary *gtsc_kmem_analysis__summary(const struct gtsc_kmem_analysis *a)
{
	return results(a) ? &a->sum : NULL;
}

const struct gtsc_kmem_kind_stats *gtsc_kmem_analysis__kind(const struct gtsc_kmem_analysis *a,
							    enum gtsc_kmem_kind kind)
{
	const struct kmem_results *res = results(a);

	return res && in_range(kind, KMEM_KINDS) ? &res->kind[kind] : NULL;
}

const struct gtsc_kmem_site *gtsc_kmem_analysis__site(const struct gtsc_kmem_analysis *a, size_t i)
{
	const struct kmem_results *res = results(a);

	return res && in_range(i, res->nr_sites) ? &res->sites[i] : NULL;
}

const struct gtsc_kmem_group *gtsc_kmem_analysis__group(const struct gtsc_kmem_analysis *a,
							size_t i)
{
	const struct kmem_results *res = results(a);

	return res && in_range(i, res->nr_groups) ? &res->groups[i] : NULL;
}

const struct gtsc_kmem_size_class *
gtsc_kmem_analysis__size_class(const struct gtsc_kmem_analysis *a, unsigned int k)
{
	const struct kmem_results *res = results(a);

	return res && in_range(k, KMEM_SIZE_CLASSES) ? &res->sizes[k] : NULL;
}

const struct gtsc_kmem_order *gtsc_kmem_analysis__order(const struct gtsc_kmem_analysis *a,
							unsigned int order)
{
	const struct kmem_results *res = results(a);

	return res && in_range(order, KMEM_ORDERS) ? &res->orders[order] : NULL;
}

const struct gtsc_kmem_gfp_use *gtsc_kmem_analysis__gfp(const struct gtsc_kmem_analysis *a,
							size_t i)
{
	const struct kmem_results *res = results(a);

	return res && in_range(i, res->nr_gfps) ? &res->gfps[i] : NULL;
}

const struct gtsc_kmem_err *gtsc_kmem_analysis__err(const struct gtsc_kmem_analysis *a, size_t i)
{
	const struct kmem_results *res = results(a);

	return res && in_range(i, res->nr_errs) ? &res->errs[i] : NULL;
}

const struct gtsc_kmem_stack_use *gtsc_kmem_analysis__stack(const struct gtsc_kmem_analysis *a,
							    size_t i)
{
	const struct kmem_results *res = results(a);

	return res && in_range(i, res->nr_stacks) ? &res->stacks[i] : NULL;
}

/* ---- GFP names ---- */

struct gtsc_kmem_gfp *gtsc_kmem_gfp__new(const char *formats, size_t len)
{
	struct gtsc_kmem_gfp *g = calloc(1, sizeof(*g));
	int err;

	if (!g)
		return errno = ENOMEM, NULL;
	err = gt_kmem_gfp__load(&g->t, formats, len);
	if (err) {
		free(g);
		return errno = -err, NULL;
	}
	return g;
}

bool gtsc_kmem_gfp__from_formats(const struct gtsc_kmem_gfp *g)
{
	return g && g->t.from_trace;
}

int gtsc_kmem_gfp__decode(const struct gtsc_kmem_gfp *g, __u64 flags, char *buf, size_t size)
{
	if (!g || !buf || !size)
		return -EINVAL;
	gt_kmem_gfp__decode(&g->t, flags, buf, size);
	return 0;
}

void gtsc_kmem_gfp__free(struct gtsc_kmem_gfp *g)
{
	if (!g)
		return;
	gt_kmem_gfp__free(&g->t);
	free(g);
}

/* ---- the checker ---- */

struct gtsc_check *gtsc_check__run(const char *path, const struct gtsc_check_opts *opts)
{
	struct gtsc_check *k;
	int err;

	if (!path || !OPTS_VALID(opts, gtsc_check_opts))
		return errno = EINVAL, NULL;
	k = calloc(1, sizeof(*k));
	if (!k)
		return errno = ENOMEM, NULL;
	k->k.on_progress = OPTS_GET(opts, on_progress, NULL);
	k->k.ctx = OPTS_GET(opts, ctx, NULL);
	err = gt_kmem_check__run(path, &k->k);
	if (err) {
		gtsc_check__free(k);
		return errno = -err, NULL;
	}
	return k;
}

const struct gtsc_check_stats *gtsc_check__stats(const struct gtsc_check *k)
{
	if (!k)
		return errno = EINVAL, NULL;
	return &k->k.s;
}

const char *gtsc_check__findings(const struct gtsc_check *k)
{
	return k && k->k.findings.buf ? k->k.findings.buf : "";
}

const char *gtsc_check__notes(const struct gtsc_check *k)
{
	return k && k->k.notes.buf ? k->k.notes.buf : "";
}

const char *gtsc_check__warnings(const struct gtsc_check *k)
{
	return k && k->k.warnings.buf ? k->k.warnings.buf : "";
}

void gtsc_check__free(struct gtsc_check *k)
{
	if (!k)
		return;
	gt_kmem_check__free(&k->k);
	free(k);
}
