// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "kmem_analysis.h"
#include "kmem_stream.h"
#include "trace_reader.h"

#define BATCH_BYTES (256u << 10)
#define NR_BATCHES 4

struct batch {
	char *buf; /* kmem records back to back (their sizes keep them 8-byte aligned) */
	size_t len;
};

/* Batches [head, tail) are filled; the reader thread fills tail, the analysis takes head. */
struct pipeline {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct batch b[NR_BATCHES];
	unsigned int head, tail;
	bool done;
	int err; /* the reader's */
	struct gtsc_reader *r;
};

static bool kmem_record(const struct gtsc_rec_hdr *rec)
{
	return rec->type >= GTSC_REC_KMEM_ALLOC && rec->type <= GTSC_REC_KMEM_CACHE &&
	       rec->size <= 4096;
}

static __u64 end_ns(const struct gtsc_reader *r)
{
	const char *v = gtsc_reader__meta(r, "end_ns");

	return v ? strtoull(v, NULL, 10) : 0;
}

#define AHEAD 8

/* The reader's records in place; the object map slots AHEAD records on are being loaded. */
static int analyse_span(struct kmem_analysis *a, const struct trace_rec_ref *s, size_t n)
{
	size_t i;
	int err = 0;

	for (i = 0; i < n && i < AHEAD; i++)
		kmem_analysis__prefetch(a, s[i].rec);
	for (i = 0; !err && i < n; i++) {
		if (i + AHEAD < n)
			kmem_analysis__prefetch(a, s[i + AHEAD].rec);
		err = kmem_analysis__add(a, s[i].rec);
	}
	return err;
}

static int run_inline(struct gtsc_reader *r, struct kmem_analysis *a)
{
	const struct trace_rec_ref *span;
	ssize_t n;
	int err = 0;

	while (!err && (n = gtsc_reader__next_span(r, &span)) > 0)
		err = analyse_span(a, span, (size_t)n);
	return err ?: (int)n;
}

/* ---- the reader thread ---- */

/* Hands the batch being filled to the analysis; waits for a free one. */
static void publish(struct pipeline *p)
{
	pthread_mutex_lock(&p->lock);
	p->tail++;
	pthread_cond_broadcast(&p->cond);
	while (p->tail - p->head == NR_BATCHES)
		pthread_cond_wait(&p->cond, &p->lock);
	pthread_mutex_unlock(&p->lock);
	p->b[p->tail % NR_BATCHES].len = 0;
}

static void *read_thread(void *arg)
{
	struct pipeline *p = arg;
	const struct gtsc_rec_hdr *rec;
	struct batch *b = &p->b[0];
	int n;

	while ((n = gtsc_reader__next(p->r, &rec)) > 0) {
		if (!kmem_record(rec))
			continue;
		if (b->len + rec->size > BATCH_BYTES) {
			publish(p);
			b = &p->b[p->tail % NR_BATCHES];
		}
		memcpy(b->buf + b->len, rec, rec->size);
		b->len += rec->size;
	}
	pthread_mutex_lock(&p->lock);
	p->err = n;
	p->tail += b->len > 0;
	p->done = true;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* ---- the analysis, on the caller's thread ---- */

/* The next filled batch, NULL at the end. */
static struct batch *take(struct pipeline *p)
{
	struct batch *b = NULL;

	pthread_mutex_lock(&p->lock);
	while (p->head == p->tail && !p->done)
		pthread_cond_wait(&p->cond, &p->lock);
	if (p->head != p->tail)
		b = &p->b[p->head % NR_BATCHES];
	pthread_mutex_unlock(&p->lock);
	return b;
}

static void give_back(struct pipeline *p)
{
	pthread_mutex_lock(&p->lock);
	p->head++;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
}

static int analyse_batch(struct kmem_analysis *a, const struct batch *b)
{
	size_t off = 0, ahead = 0;
	int err = 0;

	for (int i = 0; i < AHEAD && ahead < b->len; i++) {
		kmem_analysis__prefetch(a, (const void *)(b->buf + ahead));
		ahead += ((const struct gtsc_rec_hdr *)(b->buf + ahead))->size;
	}
	while (!err && off < b->len) {
		const struct gtsc_rec_hdr *rec = (const void *)(b->buf + off);

		if (ahead < b->len) {
			kmem_analysis__prefetch(a, (const void *)(b->buf + ahead));
			ahead += ((const struct gtsc_rec_hdr *)(b->buf + ahead))->size;
		}
		err = kmem_analysis__add(a, rec);
		off += rec->size;
	}
	return err;
}

/* After an analysis error the batches are still taken: the reader thread must not block. */
static int consume(struct pipeline *p, struct kmem_analysis *a)
{
	struct batch *b;
	int err = 0;

	while ((b = take(p))) {
		if (!err)
			err = analyse_batch(a, b);
		give_back(p);
	}
	return err ?: p->err;
}

static int run_threaded(struct gtsc_reader *r, struct kmem_analysis *a)
{
	struct pipeline p = { .r = r };
	pthread_t tid;
	int err = 0, i;

	pthread_mutex_init(&p.lock, NULL);
	pthread_cond_init(&p.cond, NULL);
	for (i = 0; i < NR_BATCHES && !err; i++) {
		p.b[i].buf = malloc(BATCH_BYTES);
		err = p.b[i].buf ? 0 : -ENOMEM;
	}
	if (!err)
		err = -pthread_create(&tid, NULL, read_thread, &p);
	if (!err) {
		err = consume(&p, a);
		pthread_join(tid, NULL);
	}
	for (i = 0; i < NR_BATCHES; i++)
		free(p.b[i].buf);
	pthread_cond_destroy(&p.cond);
	pthread_mutex_destroy(&p.lock);
	return err;
}

int kmem_stream__run(struct gtsc_reader *r, struct kmem_analysis *a, bool threaded)
{
	int err = threaded ? run_threaded(r, a) : run_inline(r, a);

	return err ?: kmem_analysis__finish(a, end_ns(r));
}
