// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "ksyms.h"
#include "sink_file.h"
#include "strbuf.h"
#include "tp_class.h"

/* Open-addressing set of call sites; 0 is the empty slot (and no call site). */
struct addr_set {
	__u64 *slot;
	size_t cap, n;
};

struct gtsc_file_sink {
	struct gtsc_sink base;
	struct gtsc_writer *w;
	struct addr_set sites;
	struct strbuf stacks; /* STACKS lines */
	__u64 bytes;
	bool track_fresh; /* call sites new since the last take_fresh: */
	__u64 *fresh;
	size_t n_fresh;
	/* tracepoint fields printed as symbols (%pS, %ps), by event id */
	struct tp_sym_field *sym_fields;
	size_t nr_sym_fields;
};

static size_t addr_hash(__u64 a, size_t cap)
{
	return (size_t)((a * 0x9e3779b97f4a7c15ULL) >> 17) & (cap - 1);
}

static int addr_set_grow(struct addr_set *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	__u64 *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		size_t h;

		if (!s->slot[i])
			continue;
		for (h = addr_hash(s->slot[i], cap); slot[h]; h = (h + 1) & (cap - 1))
			;
		slot[h] = s->slot[i];
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

/* 1 when A is new, 0 when known (or 0), -ENOMEM. */
static int addr_set_add(struct addr_set *s, __u64 a)
{
	size_t h;

	if (!a)
		return 0;
	if ((s->n + 1) * 2 > s->cap && addr_set_grow(s))
		return -ENOMEM;
	for (h = addr_hash(a, s->cap); s->slot[h]; h = (h + 1) & (s->cap - 1))
		if (s->slot[h] == a)
			return 0;
	s->slot[h] = a;
	s->n++;
	return 1;
}

/* ADDR goes into the KSYMS chunk (and the next fresh batch, when a stream names them early). */
static int add_site(struct gtsc_file_sink *fs, __u64 addr)
{
	int err = addr_set_add(&fs->sites, addr);

	if (err > 0 && fs->track_fresh) {
		__u64 *f = reallocarray(fs->fresh, fs->n_fresh + 1, sizeof(*f));

		if (!f)
			return -ENOMEM;
		fs->fresh = f;
		f[fs->n_fresh++] = addr;
	}
	return err < 0 ? err : 0;
}

/* The values of REC's symbol fields, so that a report names them as perf script does. */
static int tp_sites(struct gtsc_file_sink *fs, const struct gtsc_rec_tracepoint *tp)
{
	size_t lo = 0, hi = fs->nr_sym_fields, len = tp->data_len;
	int err = 0;

	if (sizeof(*tp) + len > tp->hdr.size)
		len = tp->hdr.size - sizeof(*tp);
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (fs->sym_fields[mid].id < tp->event_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < fs->nr_sym_fields && fs->sym_fields[lo].id == tp->event_id && !err; lo++) {
		const struct tp_sym_field *f = &fs->sym_fields[lo];
		__u64 v = 0;

		if ((size_t)f->offset + f->size > len)
			continue;
		memcpy(&v, tp->data + f->offset, f->size); /* little endian */
		if (v)
			err = add_site(fs, v);
	}
	return err;
}

static int file_record(struct gtsc_sink *sink, const struct gtsc_rec_hdr *rec)
{
	struct gtsc_file_sink *fs = container_of(sink, struct gtsc_file_sink, base);
	int err = 0;

	if (rec->type == GTSC_REC_KMEM_ALLOC || rec->type == GTSC_REC_KMEM_FREE) {
		/* call_site is the first field after the header in both. */
		const struct gtsc_rec_kmem_free *k = (const void *)rec;

		err = add_site(fs, k->call_site);
	} else if (rec->type == GTSC_REC_TRACEPOINT && fs->nr_sym_fields &&
		   rec->size >= sizeof(struct gtsc_rec_tracepoint)) {
		err = tp_sites(fs, (const void *)rec);
	}
	return err ?: gt_writer__add_record(fs->w, rec);
}

static int file_round_end(struct gtsc_sink *sink)
{
	struct gtsc_file_sink *fs = container_of(sink, struct gtsc_file_sink, base);

	return gt_writer__end_round(fs->w);
}

struct gtsc_file_sink *gt_file_sink__create(const char *path,
					    const struct gtsc_writer_opts *opts)
{
	struct gtsc_file_sink *fs = calloc(1, sizeof(*fs));

	if (!fs)
		return errno = ENOMEM, NULL;
	fs->base.record = file_record;
	fs->base.round_end = file_round_end;
	fs->w = gt_writer__create(path, opts);
	if (!fs->w) {
		int err = errno;

		free(fs);
		return errno = err, NULL;
	}
	return fs;
}

struct gtsc_sink *gt_file_sink__sink(struct gtsc_file_sink *fs)
{
	return &fs->base;
}

int gt_file_sink__add_chunk(struct gtsc_file_sink *fs, enum gtsc_chunk_type type,
			    const struct strbuf *text)
{
	if (strbuf_err(text))
		return -ENOMEM;
	if (type == GTSC_CHUNK_TRACEPOINTS && !fs->sym_fields) {
		/* unparsable formats: their fields stay hex, as they print anyway */
		if (gt_tp_sym_fields__new(text->buf ?: "", text->len, &fs->sym_fields,
					  &fs->nr_sym_fields) == -ENOMEM)
			return -ENOMEM;
	}
	return gt_writer__add_chunk(fs->w, type, text->buf ? text->buf : "", text->len);
}

__u64 gt_file_sink__bytes(const struct gtsc_file_sink *fs)
{
	return fs->w ? gt_writer__bytes(fs->w) : fs->bytes;
}

int gt_file_sink__add_stack(struct gtsc_file_sink *fs, const char *source, __u32 id,
			    const __u64 *ips, size_t n)
{
	gt_strbuf_addf(&fs->stacks, "%s\t%u\t", source, id);
	for (size_t i = 0; i < n; i++) {
		int err = addr_set_add(&fs->sites, ips[i]);

		if (err < 0)
			return err;
		gt_strbuf_addf(&fs->stacks, "%s%llx", i ? " " : "", (unsigned long long)ips[i]);
	}
	gt_strbuf_add(&fs->stacks, "\n", 1);
	return strbuf_err(&fs->stacks);
}

void gt_file_sink__track_fresh(struct gtsc_file_sink *fs)
{
	fs->track_fresh = true;
}

size_t gt_file_sink__take_fresh(struct gtsc_file_sink *fs, const __u64 **sites)
{
	size_t n = fs->n_fresh;

	*sites = fs->fresh;
	fs->n_fresh = 0;
	return n;
}

static void file_sink_free(struct gtsc_file_sink *fs)
{
	free(fs->fresh);
	free(fs->sym_fields);
	gt_strbuf_free(&fs->stacks);
	free(fs->sites.slot);
	free(fs);
}

int gt_file_sink__finish(struct gtsc_file_sink *fs, const struct strbuf *trailer)
{
	struct strbuf syms = {};
	__u64 *addrs = malloc(fs->sites.n * sizeof(*addrs) + 1);
	size_t n = 0;
	int err, err2;

	err = addrs ? 0 : -ENOMEM;
	for (size_t i = 0; addrs && i < fs->sites.cap; i++)
		if (fs->sites.slot[i])
			addrs[n++] = fs->sites.slot[i];
	if (!err && fs->stacks.len)
		err = gt_file_sink__add_chunk(fs, GTSC_CHUNK_STACKS, &fs->stacks);
	/* Without kallsyms the trace still decodes, with hex call sites. */
	if (!err && gt_ksyms__resolve(NULL, addrs, n, &syms) == 0)
		err = gt_file_sink__add_chunk(fs, GTSC_CHUNK_KSYMS, &syms);
	if (!err)
		err = gt_writer__end_round(fs->w);
	if (!err)
		err = gt_file_sink__add_chunk(fs, GTSC_CHUNK_TRAILER, trailer);
	fs->bytes = gt_writer__bytes(fs->w);
	err2 = gt_writer__close(fs->w);
	fs->w = NULL;
	gt_strbuf_free(&syms);
	free(addrs);
	file_sink_free(fs);
	return err ? err : err2;
}

void gt_file_sink__abort(struct gtsc_file_sink *fs)
{
	if (!fs)
		return;
	gt_writer__close(fs->w);
	file_sink_free(fs);
}
