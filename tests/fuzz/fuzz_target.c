// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * One fuzz input through the reader and what reads its records: the event
 * printer (text and JSON), the syscall decoder (text and JSON), the kmem
 * analysis and its GFP names, then check or one of convert's writers
 * (perfetto's JSON, CTF) (fuzz.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>
#include <gtsc/gtsc.h>
#include <gtsc/ctf.h>
#include <gtsc/kmem.h>
#include <gtsc/print.h>
#include <gtsc/syscalls.h>

#include "col_codec.h"
#include "trace_util.h"
#include "convert.h"
#include "fuzz.h"

#define HDR_SZ sizeof(struct gtsc_file_hdr)
#define CHUNK_SZ sizeof(struct gtsc_chunk_hdr)

/* ---- staging: input <-> trace file ---- */

static int buf_room(struct fuzz_buf *b, size_t more)
{
	size_t need = b->len + more;
	uint8_t *p;

	if (need <= b->cap)
		return 0;
	if (need < b->cap * 2)
		need = b->cap * 2;
	p = realloc(b->data, need);
	if (!p)
		return -ENOMEM;
	b->data = p;
	b->cap = need;
	return 0;
}

static int buf_put(struct fuzz_buf *b, const void *p, size_t n)
{
	if (buf_room(b, n))
		return -ENOMEM;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

/*
 * What fuzz_frame compresses with, made once: a fresh column coder, zstd
 * context and zlib stream per chunk cost more than the chunk's parsing.
 */
struct fuzz_codecs {
	struct col_coder *cols;
	uint8_t *colbuf;
	size_t colbuf_cap;
	ZSTD_CCtx *zstd;
	z_stream zs;
	bool zs_ok;
};

static void codecs_free(struct fuzz_codecs *c)
{
	if (!c)
		return;
	gt_col_coder__free(c->cols);
	free(c->colbuf);
	ZSTD_freeCCtx(c->zstd);
	if (c->zs_ok)
		deflateEnd(&c->zs);
	free(c);
}

static struct fuzz_codecs *codecs_of(struct fuzz_buf *b)
{
	struct fuzz_codecs *c = b->codecs;

	if (c)
		return c;
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->cols = gt_col_coder__new();
	c->zstd = ZSTD_createCCtx();
	/* compress2()'s stream: level 1, the default window and memory */
	c->zs_ok = deflateInit(&c->zs, 1) == Z_OK;
	if (!c->cols || !c->zstd || !c->zs_ok) {
		codecs_free(c);
		return NULL;
	}
	b->codecs = c;
	return c;
}

void fuzz_buf_free(struct fuzz_buf *b)
{
	free(b->data);
	codecs_free(b->codecs);
	*b = (struct fuzz_buf){ 0 };
}

int fuzz_slurp(const char *path, struct fuzz_buf *b)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -errno;
	b->len = 0;
	for (;;) {
		if (b->len == b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 65536;
			uint8_t *p = realloc(b->data, cap);

			if (!p) {
				fclose(f);
				return -ENOMEM;
			}
			b->data = p;
			b->cap = cap;
		}
		n = fread(b->data + b->len, 1, b->cap - b->len, f);
		if (!n)
			break;
		b->len += n;
	}
	fclose(f);
	return 0;
}

/* Whether RAW holds whole, aligned records: what the column coder takes. */
static bool whole_records(const uint8_t *raw, size_t n)
{
	struct gtsc_rec_hdr h;

	for (size_t off = 0; off < n; off += h.size) {
		if (n - off < sizeof(h))
			return false;
		memcpy(&h, raw + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > n - off || h.size % 8)
			return false;
	}
	return true;
}

/* A zstd frame of RAW into OUT (BOUND bytes), its columns if H says so and RAW allows. */
static long put_zstd(struct fuzz_codecs *c, struct gtsc_chunk_hdr *h, const uint8_t *raw,
		     size_t n, uint8_t *out, size_t bound)
{
	size_t len;

	if (h->flags & GTSC_CHUNK_COLS) {
		len = gt_col_encode_bound(n);
		if (whole_records(raw, n) && len > c->colbuf_cap) {
			free(c->colbuf);
			c->colbuf = malloc(len);
			c->colbuf_cap = c->colbuf ? len : 0;
		}
		if (whole_records(raw, n) && (h->flags & GTSC_CHUNK_STREAMS)) {
			/* 1.3: the frames are the payload; they fit in the columns' bound */
			len = gt_col_coder__encode_frames(c->cols, raw, n, out, bound, c->zstd, 1);
			if (len)
				return (long)len;
		}
		if (whole_records(raw, n) && c->colbuf) {
			n = gt_col_coder__encode(c->cols, raw, n, c->colbuf);
			raw = c->colbuf;
		} else {
			h->flags &= ~GTSC_CHUNK_COLS;
		}
		h->flags &= ~GTSC_CHUNK_STREAMS;
	}
	len = ZSTD_compressCCtx(c->zstd, out, bound, raw, n, 1);
	return ZSTD_isError(len) ? -1 : (long)len;
}

/* RAW deflated into OUT (BOUND bytes), as compress2(level 1) would. */
static long put_zlib(struct fuzz_codecs *c, const uint8_t *raw, size_t n, uint8_t *out,
		     size_t bound)
{
	if (deflateReset(&c->zs) != Z_OK)
		return -1;
	c->zs.next_in = (Bytef *)raw;
	c->zs.avail_in = (uInt)n;
	c->zs.next_out = out;
	c->zs.avail_out = (uInt)bound;
	return deflate(&c->zs, Z_FINISH) == Z_STREAM_END ? (long)c->zs.total_out : -1;
}

/* Payload RAW (N bytes) stored as chunk H's codec says; fills H's len and raw_len. */
static int put_payload(struct fuzz_buf *out, struct gtsc_chunk_hdr *h, const uint8_t *raw,
		       size_t n)
{
	struct fuzz_codecs *c = codecs_of(out);
	size_t hpos = out->len;
	/* above LZ4's, zlib's and zstd's bounds, and the columns' */
	size_t bound = ZSTD_compressBound(gt_col_encode_bound(n)) + n / 255 + 64;
	long len;

	if (!c || buf_put(out, h, CHUNK_SZ) || buf_room(out, bound))
		return -ENOMEM;
	h->raw_len = (__u32)n;
	if (h->flags & GTSC_CHUNK_ZSTD) {
		len = put_zstd(c, h, raw, n, out->data + out->len, bound);
	} else if (h->flags & GTSC_CHUNK_ZLIB) {
		len = put_zlib(c, raw, n, out->data + out->len, bound);
	} else if (h->flags & GTSC_CHUNK_LZ4) {
		len = LZ4_compress_default((const char *)raw, (char *)out->data + out->len, (int)n,
					   (int)bound);
		len = len > 0 ? len : -1;
	} else {
		memcpy(out->data + out->len, raw, n);
		len = (long)n;
	}
	if (len < 0)
		return -EINVAL;
	h->len = (__u32)len;
	h->crc = trace_chunk_crc(h, out->data + out->len, (size_t)len);
	memcpy(out->data + hpos, h, CHUNK_SZ);
	out->len += (size_t)len;
	return 0;
}

/* The file header, its CRC recomputed; the bytes up to hdr_size as they are. */
static size_t frame_file_hdr(const uint8_t *in, size_t n, struct fuzz_buf *out)
{
	struct gtsc_file_hdr fh;
	size_t hdr_size;

	if (n < HDR_SZ) {
		buf_put(out, in, n);
		return n;
	}
	memcpy(&fh, in, HDR_SZ);
	fh.crc = trace_file_hdr_crc(&fh);
	hdr_size = fh.hdr_size < HDR_SZ ? HDR_SZ : fh.hdr_size;
	if (hdr_size > n)
		hdr_size = n;
	buf_put(out, &fh, HDR_SZ);
	buf_put(out, in + HDR_SZ, hdr_size - HDR_SZ);
	return hdr_size;
}

int fuzz_frame(const uint8_t *in, size_t n, struct fuzz_buf *out)
{
	struct gtsc_chunk_hdr h;
	size_t pos, raw;

	out->len = 0;
	if (!n)
		return 0;
	if (in[0] & FUZZ_VERBATIM)
		return buf_put(out, in + 1, n - 1);
	in++;
	n--;
	pos = frame_file_hdr(in, n, out);
	while (pos + CHUNK_SZ <= n) {
		memcpy(&h, in + pos, CHUNK_SZ);
		/* what cannot be framed goes as it is: the reader's framing checks */
		if (h.magic != GTSC_CHUNK_MAGIC || h.len > n - pos - CHUNK_SZ)
			break;
		raw = h.len;
		if (put_payload(out, &h, in + pos + CHUNK_SZ, raw))
			return -ENOMEM;
		pos += CHUNK_SZ + raw;
	}
	return buf_put(out, in + pos, n - pos);
}

/* A 1.3 chunk's records (its frames, then its columns decoded) into OUT; the length, or -1. */
static long unframes(const struct gtsc_chunk_hdr *h, const uint8_t *in, uint8_t *out)
{
	struct col_coder *c = gt_col_coder__new();
	ZSTD_DCtx *z = ZSTD_createDCtx();
	void *cols = NULL;
	size_t cap = 0, clen;
	long ret = -1;

	if (c && z &&
	    !gt_col_coder__unpack(c, z, in, h->len, gt_col_encode_bound(h->raw_len), &cols, &cap,
				  &clen) &&
	    !gt_col_coder__decode(c, cols, clen, out, h->raw_len, NULL))
		ret = h->raw_len;
	gt_col_coder__free(c);
	ZSTD_freeDCtx(z);
	free(cols);
	return ret;
}

/* A zstd chunk's records (its columns decoded) into OUT; the length, or -1. */
static long unzstd(const struct gtsc_chunk_hdr *h, const uint8_t *in, uint8_t *out)
{
	unsigned long long clen = ZSTD_getFrameContentSize(in, h->len);
	struct col_coder *c;
	uint8_t *cols;
	long ret = -1;

	if (!(h->flags & GTSC_CHUNK_COLS)) {
		clen = ZSTD_decompress(out, h->raw_len, in, h->len);
		return ZSTD_isError(clen) ? -1 : (long)clen;
	}
	if (h->flags & GTSC_CHUNK_STREAMS)
		return unframes(h, in, out);
	if (clen == ZSTD_CONTENTSIZE_ERROR || clen == ZSTD_CONTENTSIZE_UNKNOWN ||
	    clen > GTSC_CHUNK_MAX_LEN * 2ull)
		return -1;
	cols = malloc(clen);
	c = gt_col_coder__new();
	if (cols && c && !ZSTD_isError(ZSTD_decompress(cols, clen, in, h->len)) &&
	    !gt_col_coder__decode(c, cols, clen, out, h->raw_len, NULL))
		ret = h->raw_len;
	gt_col_coder__free(c);
	free(cols);
	return ret;
}

/* Chunk H's stored bytes IN, decompressed into OUT; the length, or -1. */
static long inflate_payload(const struct gtsc_chunk_hdr *h, const uint8_t *in, uint8_t *out)
{
	uLongf zlen = h->raw_len;

	if (h->flags & GTSC_CHUNK_ZSTD)
		return unzstd(h, in, out);
	if (h->flags & GTSC_CHUNK_ZLIB)
		return uncompress(out, &zlen, in, h->len) == Z_OK ? (long)zlen : -1;
	if (h->flags & GTSC_CHUNK_LZ4)
		return LZ4_decompress_safe((const char *)in, (char *)out, (int)h->len,
					   (int)h->raw_len);
	memcpy(out, in, h->len);
	return h->len;
}

int fuzz_unpack(const uint8_t *file, size_t n, uint8_t opts, struct fuzz_buf *out)
{
	struct gtsc_chunk_hdr h;
	size_t pos, stored;
	__u16 pos16;
	long raw;

	out->len = 0;
	if (n < HDR_SZ || buf_put(out, &opts, 1))
		return -EINVAL;
	memcpy(&pos16, file + offsetof(struct gtsc_file_hdr, hdr_size), sizeof(pos16));
	pos = pos16;
	if (pos < HDR_SZ || pos > n || buf_put(out, file, pos))
		return -EINVAL;
	while (pos + CHUNK_SZ <= n) {
		memcpy(&h, file + pos, CHUNK_SZ);
		if (h.magic != GTSC_CHUNK_MAGIC || h.len > n - pos - CHUNK_SZ ||
		    h.raw_len > GTSC_CHUNK_MAX_LEN)
			break;
		if (buf_room(out, CHUNK_SZ + h.raw_len + h.len))
			return -ENOMEM;
		raw = inflate_payload(&h, file + pos + CHUNK_SZ, out->data + out->len + CHUNK_SZ);
		if (raw < 0)
			break;
		stored = h.len;
		h.len = h.raw_len = (__u32)raw;
		memcpy(out->data + out->len, &h, CHUNK_SZ);
		out->len += CHUNK_SZ + (size_t)raw;
		pos += CHUNK_SZ + stored;
	}
	/* a cut trace stays cut */
	return buf_put(out, file + pos, n - pos);
}

/* ---- the consumers ---- */

struct pass {
	struct gtsc_reader *r;
	struct gtsc_syscall_decoder *dec;
	struct gtsc_kmem_analysis *kmem;
	struct gtsc_event_printer *printer;
	FILE *sink;
	char line[4096];
};

static int on_call(void *ctx, const struct gtsc_syscall *call)
{
	struct pass *p = ctx;

	if (gtsc_syscall_decoder__text(p->dec, call, p->line, sizeof(p->line)) >= 0)
		fputs(p->line, p->sink);
	if (gtsc_syscall_decoder__json(p->dec, call, p->line, sizeof(p->line)) >= 0)
		fputs(p->line, p->sink);
	return 0;
}

static void one_record(struct pass *p, const struct gtsc_rec_hdr *rec)
{
	__u64 off;

	gtsc_event_printer__print(p->printer, rec);
	gtsc_syscall_decoder__push(p->dec, rec);
	gtsc_kmem_analysis__add(p->kmem, rec);
	if (gtsc_reader__format(p->r, rec, p->line, sizeof(p->line)) >= 0)
		fputs(p->line, p->sink);
	if (rec->type == GTSC_REC_TASK && rec->size >= sizeof(struct gtsc_rec_task) &&
	    gtsc_syscall_decoder__task_exit(p->dec, (const void *)rec, p->line,
					    sizeof(p->line)) >= 0)
		fputs(p->line, p->sink);
	if (rec->type == GTSC_REC_KMEM_ALLOC && rec->size >= sizeof(struct gtsc_rec_kmem_alloc))
		gtsc_reader__ksym(p->r, ((const struct gtsc_rec_kmem_alloc *)rec)->call_site, &off);
}

/* What report --kmem asks of the analysis once it is finished. */
static void kmem_results(const struct gtsc_kmem_analysis *a, const struct gtsc_reader *r,
			 char *line, size_t size)
{
	const struct gtsc_kmem_summary *s = gtsc_kmem_analysis__summary(a);
	const struct gtsc_kmem_gfp_use *g;
	const struct gtsc_kmem_stack_use *st;
	struct gtsc_kmem_gfp *gfp;
	const char *fmt;
	size_t n;

	if (!s)
		return;
	fmt = gtsc_reader__chunk_text(r, GTSC_CHUNK_EVENT_FORMATS, &n);
	gfp = gtsc_kmem_gfp__new(fmt, fmt ? n : 0);
	for (size_t i = 0; gfp && i < s->nr_gfps; i++) {
		g = gtsc_kmem_analysis__gfp(a, i);
		if (g)
			gtsc_kmem_gfp__decode(gfp, g->gfp_flags, line, size);
	}
	gtsc_kmem_gfp__free(gfp);
	for (int k = 0; k < GTSC_KMEM_KINDS; k++)
		gtsc_kmem_analysis__kind(a, k);
	for (size_t i = 0; i < s->nr_sites; i++)
		gtsc_kmem_analysis__site(a, i);
	for (size_t i = 0; i < s->nr_groups; i++)
		gtsc_kmem_analysis__group(a, i);
	for (size_t i = 0; i < s->nr_errs; i++)
		gtsc_kmem_analysis__err(a, i);
	for (size_t i = 0; i < s->nr_stacks; i++) {
		st = gtsc_kmem_analysis__stack(a, i);
		if (st)
			gtsc_reader__stack(r, "kernel", st->stack_id, &n);
	}
	for (unsigned int k = 0; k < GTSC_KMEM_SIZE_CLASSES; k++)
		gtsc_kmem_analysis__size_class(a, k);
	for (unsigned int k = 0; k < GTSC_KMEM_ORDERS; k++)
		gtsc_kmem_analysis__order(a, k);
}

/* The reader's metadata accessors: what report --header shows. */
static void metadata(const struct gtsc_reader *r, FILE *sink)
{
	GTSC_OPTS(gtsc_reader_channel, ch);
	size_t n;

	fprintf(sink, "%s %s %d %d %llu\n", gtsc_reader__meta(r, "kernel") ?: "",
		gtsc_reader__damage(r) ?: "", gtsc_reader__truncated(r), gtsc_reader__has_counts(r),
		(unsigned long long)gtsc_reader__prog_misses(r));
	for (size_t i = 0; !gtsc_reader__channel(r, i, &ch); i++)
		fprintf(sink, "%s\n", ch.name);
	gtsc_reader__channel_by_name(r, "syscalls", &ch);
	gtsc_reader__funcs(r, &n);
	for (int nr = -1; nr < 4; nr++)
		gtsc_reader__syscall_name(r, nr);
	gtsc_reader__chunk_text(r, GTSC_CHUNK_EVENT_FORMATS, &n);
}

static void read_pass(const char *path, unsigned int opts, FILE *sink)
{
	char err[256];
	GTSC_OPTS(gtsc_reader_opts, ro, .unordered = opts & FUZZ_UNORDERED, .errbuf = err,
		  .errbuf_sz = sizeof(err));
	struct pass *p = calloc(1, sizeof(*p));
	const struct gtsc_rec_hdr *rec;

	if (!p)
		return;
	p->sink = sink;
	p->r = gtsc_reader__open(path, &ro);
	if (!p->r)
		goto out;
	GTSC_OPTS(gtsc_syscall_decoder_opts, so, .whole_calls = opts & FUZZ_WHOLE,
		  .style = (opts & FUZZ_NAMES ? GTSC_SYSCALL_ARG_NAMES : 0) |
			   (opts & FUZZ_TYPES ? GTSC_SYSCALL_ARG_TYPES : 0),
		  .max_data = opts & FUZZ_MAX_DATA ? 8 : 0, .fn = on_call, .ctx = p);
	p->dec = gtsc_syscall_decoder__new(p->r, &so);
	p->kmem = gtsc_kmem_analysis__new(NULL);
	GTSC_OPTS(gtsc_event_printer_opts, po, .json = opts & FUZZ_JSON);
	p->printer = gtsc_event_printer__new(p->r, sink, &po);
	if (!p->dec || !p->kmem || !p->printer)
		goto out;
	metadata(p->r, sink);
	while (gtsc_reader__next(p->r, &rec) > 0)
		one_record(p, rec);
	gtsc_syscall_decoder__finish(p->dec);
	if (!gtsc_kmem_analysis__finish(p->kmem, 0))
		kmem_results(p->kmem, p->r, p->line, sizeof(p->line));
out:
	gtsc_event_printer__free(p->printer);
	gtsc_kmem_analysis__free(p->kmem);
	gtsc_syscall_decoder__free(p->dec);
	gtsc_reader__close(p->r);
	free(p);
}

static void check_pass(const char *path, FILE *sink)
{
	struct gtsc_check *k = gtsc_check__run(path, NULL);

	if (k)
		fputs(gtsc_check__findings(k), sink);
	gtsc_check__free(k);
}

/* convert's writers: perfetto's JSON, or the library's CTF into CTF_DIR. */
static void convert_pass(const char *path, bool ctf, const char *ctf_dir, FILE *sink)
{
	struct gtsc_reader *r = gtsc_reader__open(path, NULL);
	GTSC_OPTS(gtsc_ctf_opts, co, .packet_bytes = 4096);
	__u64 events;

	if (r && ctf)
		gtsc_reader__write_ctf(r, ctf_dir, &co);
	else if (r)
		convert_perfetto(r, sink, &events);
	gtsc_reader__close(r);
}

int fuzz_one(const uint8_t *in, size_t n, const struct fuzz_io *io, struct fuzz_buf *scratch)
{
	unsigned int opts = n ? in[0] : 0;
	char path[64];

	if (fuzz_frame(in, n, scratch))
		return -ENOMEM;
	if (ftruncate(io->fd, 0) ||
	    pwrite(io->fd, scratch->data, scratch->len, 0) != (ssize_t)scratch->len)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", io->fd);
	read_pass(path, opts, io->sink);
	if (opts & FUZZ_CONVERT)
		convert_pass(path, opts & FUZZ_MAX_DATA && io->ctf_dir, io->ctf_dir, io->sink);
	else
		check_pass(path, io->sink);
	fflush(io->sink);
	return 0;
}
