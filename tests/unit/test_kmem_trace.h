/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Synthetic kmem traces for the kmem unit tests, written with the real
 * writer: the metadata a recorder writes (META, CHANNELS, KSYMS, a TRAILER
 * whose counts match the records unless a test says otherwise) around the
 * records a test plants.
 */
#ifndef __GTSC_TEST_KMEM_TRACE_H
#define __GTSC_TEST_KMEM_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "trace_writer.h"

#define KT_START_NS 1000000000ULL
#define KT_SITE(n) (0xffffffff81000000ULL + 0x1000ULL * (n)) /* symbol "site_<n>" */
#define KT_NR_SITES 16
#define KT_KMEM_CHANNEL 2 /* ids as a recorder numbers them: task, syscalls, kmem */

struct ktrace {
	struct gtsc_writer *w;
	char path[64];
	const char *kernel;
	__u64 written[2];    /* kmem records per CPU, for the trailer */
	__u64 dropped;	     /* the trailer's drops on CPU 0 */
	__u64 extra_written; /* a lie the trailer tells */
	__u64 ts;	     /* the next record's time stamp */
	char trailer[256];   /* more trailer lines (flight, meta snapshot) */
};

static inline void kt_chunk(struct ktrace *t, enum gtsc_chunk_type type, const char *text)
{
	gt_writer__add_chunk(t->w, type, text, strlen(text));
}

/* MORE: META lines of the test's (filter=...); KMEM_MODE: the kmem channel's mode. */
static inline void kt_meta(struct ktrace *t, const char *more, const char *kmem_mode)
{
	char meta[384], chans[256], syms[KT_NR_SITES * 40] = "";
	size_t len = 0;

	snprintf(meta, sizeof(meta), "hostname=test\nkernel=%s\nnr_cpus=2\nstart_ns=%llu\n%s",
		 t->kernel, KT_START_NS, more);
	kt_chunk(t, GTSC_CHUNK_META, meta);
	snprintf(chans, sizeof(chans),
		 "0\ttask\tglobal\t1\t1048576\tdiscard\n"
		 "1\tsyscalls\tpercpu\t2\t8388608\tdiscard\n"
		 "2\tkmem\tpercpu\t2\t8388608\t%s\n",
		 kmem_mode);
	kt_chunk(t, GTSC_CHUNK_CHANNELS, chans);
	for (int i = 1; i < KT_NR_SITES; i++)
		len += snprintf(syms + len, sizeof(syms) - len, "%llx site_%d\n", KT_SITE(i), i);
	kt_chunk(t, GTSC_CHUNK_KSYMS, syms);
}

/* kt_open with more META lines and the kmem channel's mode. */
static inline void kt_open_ex(struct ktrace *t, const char *name, const char *kernel,
			      const char *more_meta, const char *kmem_mode)
{
	struct gtsc_writer_opts wo = { .sz = sizeof(wo), .chunk_size = 4096 };

	memset(t, 0, sizeof(*t));
	snprintf(t->path, sizeof(t->path), "%s/kt-%s-%d.gtsc",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name, (int)getpid());
	t->kernel = kernel ? kernel : "6.18.0";
	t->ts = KT_START_NS + 1000;
	t->w = gt_writer__create(t->path, &wo);
	if (!t->w)
		abort();
	kt_meta(t, more_meta, kmem_mode);
}

/* A trace file under the test's name in TMPDIR; KERNEL is META's release. */
static inline void kt_open(struct ktrace *t, const char *name, const char *kernel)
{
	kt_open_ex(t, name, kernel, "", "discard");
}

static inline void kt_hdr(struct ktrace *t, struct gtsc_rec_hdr *h, __u16 type, __u16 size,
			  __u16 cpu, __u32 pid)
{
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	h->pid = h->tid = pid;
	h->ts_ns = t->ts;
	t->ts += 1000;
}

static inline void kt_add(struct ktrace *t, const struct gtsc_rec_hdr *h)
{
	if (h->cpu < 2 && h->type >= GTSC_REC_KMEM_ALLOC && h->type <= GTSC_REC_KMEM_CACHE)
		t->written[h->cpu]++;
	gt_writer__add_record(t->w, h);
}

static inline void kt_alloc_pid(struct ktrace *t, __u8 kind, __u16 cpu, __u32 pid, int site,
				__u64 ptr, __u32 req, __u32 alloc)
{
	struct gtsc_rec_kmem_alloc a = {
		.call_site = kind == GTSC_KMEM_PAGE ? 0 : KT_SITE(site),
		.ptr = ptr,
		.cache_id = kind == GTSC_KMEM_CACHE ? 0xffff888000001000ULL : 0,
		.bytes_req = req,
		.bytes_alloc = alloc,
		.gfp_flags = 0xcc0,
		.node = -1,
		.kind = kind,
		.order = kind == GTSC_KMEM_PAGE ? __builtin_ctz(alloc / 4096) : 0,
		.migratetype = kind == GTSC_KMEM_PAGE ? 0 : -1,
	};

	kt_hdr(t, &a.hdr, GTSC_REC_KMEM_ALLOC, sizeof(a), cpu, pid);
	kt_add(t, &a.hdr);
}

static inline void kt_alloc(struct ktrace *t, __u8 kind, __u16 cpu, int site, __u64 ptr, __u32 req,
			    __u32 alloc)
{
	kt_alloc_pid(t, kind, cpu, 100, site, ptr, req, alloc);
}

static inline void kt_free_order(struct ktrace *t, __u8 kind, __u16 cpu, int site, __u64 ptr,
				 __u8 order)
{
	struct gtsc_rec_kmem_free f = {
		.call_site = kind == GTSC_KMEM_PAGE ? 0 : KT_SITE(site),
		.ptr = ptr,
		.kind = kind,
		.order = order,
	};

	kt_hdr(t, &f.hdr, GTSC_REC_KMEM_FREE, sizeof(f), cpu, 100);
	kt_add(t, &f.hdr);
}

static inline void kt_free(struct ktrace *t, __u8 kind, __u16 cpu, int site, __u64 ptr)
{
	kt_free_order(t, kind, cpu, site, ptr, 0);
}

static inline void kt_cache_name(struct ktrace *t, const char *name, __u32 size)
{
	struct gtsc_rec_kmem_cache c = {
		.cache_id = 0xffff888000001000ULL,
		.object_size = size,
		.size = size,
	};

	snprintf(c.name, sizeof(c.name), "%s", name);
	kt_hdr(t, &c.hdr, GTSC_REC_KMEM_CACHE, sizeof(c), 0, 100);
	kt_add(t, &c.hdr);
}

/* Ends the round and writes the trailer (counts as recorded unless a test lied). */
static inline void kt_close(struct ktrace *t)
{
	char tr[768];

	gt_writer__end_round(t->w);
	snprintf(tr, sizeof(tr),
		 "stat\t0\t0\t0\t0\nstat\t1\t0\t0\t0\nstat\t1\t1\t0\t0\n"
		 "stat\t2\t0\t%llu\t%llu\nstat\t2\t1\t%llu\t0\nmeta\tend_ns\t%llu\n%s",
		 (unsigned long long)(t->written[0] + t->extra_written),
		 (unsigned long long)t->dropped, (unsigned long long)t->written[1],
		 (unsigned long long)t->ts, t->trailer);
	kt_chunk(t, GTSC_CHUNK_TRAILER, tr);
	if (gt_writer__close(t->w))
		abort();
	t->w = NULL;
}

#endif
