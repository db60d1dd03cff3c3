// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * DATA chunks to records (chunk_unpack.h), and the worker that does it
 * ahead of the reader.
 *
 * Why a worker: a 1.2 chunk (zstd of columns) costs ~30 ns per record to
 * decode, against a few for LZ4's rows, and a report spends about as long
 * printing them.  With a second CPU, the next chunks are read, checked,
 * decompressed, decoded and indexed while the caller prints this one.  The
 * reader stays single-threaded to its caller and deterministic: chunks are
 * taken in file order, and what the worker found (damage, errors) is
 * reported by the reader's thread when it takes that chunk, as if it had
 * read it itself.  Only indexed traces get one: a stream's metadata arrives
 * between its chunks and is parsed where it comes.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <lz4.h>

#include "chunk_unpack.h"
#include "col_codec.h"
#include "trace_util.h"

ssize_t gt_trace_pread_full(int fd, void *buf, size_t len, __u64 off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t ret = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			break;
		done += ret;
	}
	return done;
}

#define HUGE_PAGE (2u << 20)

/*
 * Whether a buffer of CAP bytes suits a chunk of NEED: big enough, and not
 * one of huge pages for a small chunk, whose first touch would clear 2 MiB
 * where a small buffer faults a few pages.
 */
static bool buf_fits(size_t cap, size_t need)
{
	return cap >= need && (cap < HUGE_PAGE || need >= HUGE_PAGE / 2);
}

void *gt_chunk_buf_alloc(size_t need, size_t *cap)
{
	void *p;

	for (*cap = 4096; *cap < need; *cap *= 2)
		;
	if (*cap < HUGE_PAGE)
		return malloc(*cap);
	if (posix_memalign(&p, HUGE_PAGE, *cap))
		return NULL;
	/* a hint: where THP is off or refused, small pages do */
	madvise(p, *cap, MADV_HUGEPAGE);
	return p;
}

void gt_unpacker__free(struct unpacker *u)
{
	if (u->zs_ready)
		inflateEnd(&u->zs);
	ZSTD_freeDCtx(u->zstd);
	gt_col_coder__free(u->cols);
	free(u->colbuf);
	free(u->stored);
	memset(u, 0, sizeof(*u));
}

__attribute__((format(printf, 2, 3))) static int damaged(struct unpacker *u, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(u->why, sizeof(u->why), fmt, ap);
	va_end(ap);
	return 1;
}

static int bad_size(struct unpacker *u, const struct data_chunk *c)
{
	return damaged(u, "chunk %u at byte %llu does not decompress to its stated %u bytes; records before it are readable",
		       c->idx, (unsigned long long)c->pos, c->h.raw_len);
}

int gt_trace_grow_array(void **arr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need)
		ncap *= 2;
	p = reallocarray(*arr, ncap, elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

static int unlz4(struct unpacker *u, const struct data_chunk *c, const char *in, char *out)
{
	const struct gtsc_chunk_hdr *h = &c->h;

	if (LZ4_decompress_safe(in, out, (int)h->len, (int)h->raw_len) == (int)h->raw_len)
		return 0;
	return bad_size(u, c);
}

/* U's zstd context: one per thread, kept (making one costs more than a small chunk's frame). */
static ZSTD_DCtx *zstd_of(struct unpacker *u)
{
	if (!u->zstd)
		u->zstd = ZSTD_createDCtx();
	return u->zstd;
}

/* Zstd's frame IN into OUT, exactly LEN bytes: 0, 1 when damaged, -errno. */
static int unzstd_to(struct unpacker *u, const struct data_chunk *c, const char *in, char *out,
		     size_t len)
{
	size_t n;

	if (!zstd_of(u))
		return -ENOMEM;
	n = ZSTD_decompressDCtx(u->zstd, out, len, in, c->h.len);
	if (ZSTD_isError(n) || n != len)
		return bad_size(u, c);
	return 0;
}

/*
 * A zstd chunk (1.2): the frame holds the records, or their columns
 * (GTSC_CHUNK_COLS), which are decoded into OUT's raw_len bytes; or (1.3,
 * GTSC_CHUNK_STREAMS) each stream of the columns is a frame of its own.
 */
static int unzstd(struct unpacker *u, const struct data_chunk *c, const char *in, char *out)
{
	unsigned long long clen;
	size_t blen;
	int err;

	if (!(c->h.flags & GTSC_CHUNK_COLS))
		return unzstd_to(u, c, in, out, c->h.raw_len);
	if (!u->cols && !(u->cols = gt_col_coder__new()))
		return -ENOMEM;
	if (u->cols_want != u->want) {
		gt_col_coder__project(u->cols, u->want);
		u->cols_want = u->want;
	}
	if (c->h.flags & GTSC_CHUNK_STREAMS) {
		if (!zstd_of(u))
			return -ENOMEM;
		err = gt_col_coder__unpack(u->cols, u->zstd, in, c->h.len,
					   gt_col_encode_bound(c->h.raw_len), (void **)&u->colbuf,
					   &u->colbuf_cap, &blen);
		clen = blen;
	} else {
		clen = ZSTD_getFrameContentSize(in, c->h.len);
		if (clen > gt_col_encode_bound(c->h.raw_len))
			return bad_size(u, c);
		if (gt_trace_grow_array((void **)&u->colbuf, &u->colbuf_cap, clen, 1))
			return -ENOMEM;
		err = unzstd_to(u, c, in, u->colbuf, clen);
		if (err)
			return err;
	}
	if (!err)
		err = gt_col_coder__decode(u->cols, u->colbuf, clen, out, c->h.raw_len,
					   u->ix.refs ? &u->ix : NULL);
	if (err == -ENOMEM)
		return err;
	u->indexed = !err && u->ix.ok ? u->ix.refs : NULL;
	if (err == -ENOTSUP)
		return damaged(u, "chunk %u at byte %llu holds columns of a layout this gtsc-bpf does not know: a newer recorder wrote it; records before it are readable",
			       c->idx, (unsigned long long)c->pos);
	return err ? bad_size(u, c) : 0;
}

static int unzlib(struct unpacker *u, const struct data_chunk *c, const char *in, char *out)
{
	int ret;

	if (!u->zs_ready) {
		if (inflateInit(&u->zs) != Z_OK)
			return -ENOMEM;
		u->zs_ready = true;
		/* the chunk CRC already vouches for the stream: skip zlib's adler32 pass */
		inflateValidate(&u->zs, 0);
	} else if (inflateReset(&u->zs) != Z_OK) {
		return -ENOMEM;
	}
	u->zs.next_in = (Bytef *)in;
	u->zs.avail_in = c->h.len;
	u->zs.next_out = (Bytef *)out;
	u->zs.avail_out = c->h.raw_len;
	ret = inflate(&u->zs, Z_FINISH);
	if (ret == Z_MEM_ERROR)
		return -ENOMEM;
	if (ret != Z_STREAM_END || u->zs.avail_out)
		return bad_size(u, c);
	return 0;
}

int gt_unpack_chunk(struct unpacker *u, int fd, const char *stored, const struct data_chunk *c,
		    char *out)
{
	const struct gtsc_chunk_hdr *h = &c->h;
	bool packed = h->flags & (GTSC_CHUNK_ZLIB | GTSC_CHUNK_LZ4 | GTSC_CHUNK_ZSTD);
	char *in = out;
	ssize_t n;

	u->indexed = NULL;
	if (packed && !stored) {
		if (gt_trace_grow_array((void **)&u->stored, &u->stored_cap, h->len, 1))
			return -ENOMEM;
		in = u->stored;
	}
	if (stored) {
		in = packed ? (char *)stored : memcpy(out, stored, h->len);
		n = h->len;
	} else {
		n = gt_trace_pread_full(fd, in, h->len, c->pos + sizeof(*h));
	}
	if (n < 0)
		return (int)n;
	if ((size_t)n < h->len) /* the file shrank since open() */
		return damaged(u, "the file is truncated: it ends inside chunk %u at byte %llu; records up to there are readable",
			       c->idx, (unsigned long long)c->pos);
	if (trace_chunk_crc(h, in, h->len) != h->crc)
		return damaged(u, "chunk %u at byte %llu fails its CRC check; records before it are readable",
			       c->idx, (unsigned long long)c->pos);
	if (h->flags & GTSC_CHUNK_LZ4)
		return unlz4(u, c, in, out);
	if (h->flags & GTSC_CHUNK_ZSTD)
		return unzstd(u, c, in, out);
	if (h->flags & GTSC_CHUNK_ZLIB)
		return unzlib(u, c, in, out);
	return 0;
}

size_t gt_index_chunk(const struct data_chunk *c, const char *data, struct trace_rec_ref *out,
		      __u64 *max_ts, char *why)
{
	size_t off = 0, len = c->h.raw_len, n = 0;
	__u64 max = *max_ts;
	const char *bad = NULL;
	struct gtsc_rec_hdr h;

	while (off < len) {
		if (len - off < sizeof(h)) {
			bad = "crosses the chunk's end";
			break;
		}
		/* records need not be aligned in a damaged file: read the header by bytes */
		memcpy(&h, data + off, sizeof(h));
		if (h.size < sizeof(h) || h.size > len - off) {
			bad = h.size < sizeof(h) ? "is shorter than a record header"
						 : "crosses the chunk's end";
			break;
		}
		if (h.type < GTSC_REC_TYPE_MAX && h.size < trace_rec_min_sizes[h.type]) {
			bad = "is shorter than its type's minimum size";
			break;
		}
		/* records are handed out as typed pointers: the next must stay aligned */
		if (h.size % 8) {
			bad = "has a size that is not a multiple of 8";
			break;
		}
		out[n].ts = h.ts_ns;
		out[n].rec = (const struct gtsc_rec_hdr *)(data + off);
		n++;
		if (h.ts_ns > max)
			max = h.ts_ns;
		off += h.size;
	}
	*max_ts = max;
	why[0] = '\0';
	if (bad)
		snprintf(why, UNPACK_WHY,
			 "the record at offset %zu of chunk %u (at byte %llu) %s; the rest of that chunk is skipped",
			 off, c->idx, (unsigned long long)c->pos, bad);
	return n;
}

size_t gt_unpack_index(const struct unpacker *u, const struct data_chunk *c, const char *data,
		       struct trace_rec_ref *refs, __u64 *max, char *why)
{
	if (!refs || refs != u->indexed)
		return gt_index_chunk(c, data, refs, max, why);
	/* the decoder's index saves a pass over the rows: ~4% of report --kmem's CPU */
	if (u->ix.max > *max)
		*max = u->ix.max;
	why[0] = '\0';
	return u->ix.n;
}

/* ---- the prefetch worker ---- */

/*
 * Chunks decoded ahead: slot[i % SLOTS] holds chunk i.  Two: the worker
 * fills one while the other waits to be taken; a taken slot is the
 * worker's again once the reader has copied its refs (gt_prefetch__drop()).
 */
#define SLOTS 2
/*
 * Buffers the reader is done with, given back (gt_prefetch__give()) for
 * the slots to fill next.  Each buffer a reader makes is fresh memory to
 * fault in and clear, huge pages for a big chunk: the worker used to get
 * one spare a take and allocate when it had none, so that a small chunk
 * sat in a 4 MiB buffer and the reader ended up holding 7 of them (14
 * huge pages for bench/read_speed.sh's openread trace, against 4 read on
 * one thread).  With the pool: 4 (8 huge pages); clear_page_erms 3-38% of
 * --summary's samples -> 2-16%, and CPU, medians of 11 alternating on
 * the 6.18 host: --syscalls 265.8 -> 247.7 ms (one thread 239.3), --kmem
 * --caller -n 0 328.3 -> 285.1 (279.3), wall time unchanged.
 */
#define POOL 16

struct slot {
	char *data;
	size_t cap;
	struct trace_rec_ref *refs;
	size_t cap_refs, n_refs;
	__u64 max;
	int ret;
	char why[UNPACK_WHY];
	char rec_why[UNPACK_WHY];
	bool ready; /* decoded, not taken yet */
};

struct prefetch {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t more; /* the worker waits for a free slot */
	pthread_cond_t done; /* the reader waits for a ready one */
	struct slot slot[SLOTS];
	const struct data_chunk *chunks;
	size_t n, next; /* the worker's next chunk */
	size_t held;	/* the chunk the reader holds + 1, 0 if none */
	int *fds;
	size_t n_fds;
	bool quit;
	struct unpacker u; /* the worker's own */
	struct pooled {
		char *data;
		size_t cap;
	} pool[POOL]; /* the reader's buffers, given back for the next chunks */
	size_t n_pool;
};

/* Decodes chunk C into S; runs without the lock (S is the worker's meanwhile). */
static void fill_slot(struct prefetch *p, const struct data_chunk *c, struct slot *s)
{
	size_t need = c->h.raw_len / sizeof(struct gtsc_rec_hdr);

	s->n_refs = 0;
	s->max = 0;
	s->rec_why[0] = '\0';
	if (!s->data || !buf_fits(s->cap, c->h.raw_len)) {
		/* contents need not survive: no realloc copy */
		free(s->data);
		s->data = gt_chunk_buf_alloc(c->h.raw_len, &s->cap);
		if (!s->data) {
			s->cap = 0;
			s->ret = -ENOMEM;
			return;
		}
	}
	if (need > s->cap_refs) {
		size_t cap = 1;

		/*
		 * A power of two, as the records' buffers: sized to the need, it
		 * was freed and fresh pages faulted in with nearly every chunk.
		 * bench/read_speed.sh's traces with the worker (medians of 21,
		 * load ~3): --summary 3778 -> 2762 page faults, 110.6 -> 107.1
		 * ms CPU; --kmem --caller 4527 -> 3933 faults; max RSS the same.
		 */
		while (cap < need)
			cap *= 2;
		free(s->refs);
		s->refs = malloc(cap * sizeof(*s->refs));
		s->cap_refs = s->refs ? cap : 0;
		if (!s->refs) {
			s->ret = -ENOMEM;
			return;
		}
	}
	p->u.ix.refs = s->refs;
	s->ret = c->in < p->n_fds ? gt_unpack_chunk(&p->u, p->fds[c->in], NULL, c, s->data) : -EINVAL;
	if (s->ret == 1)
		memcpy(s->why, p->u.why, sizeof(s->why));
	if (!s->ret)
		s->n_refs = gt_unpack_index(&p->u, c, s->data, s->refs, &s->max, s->rec_why);
	p->u.ix.refs = NULL;
}

/*
 * Under the lock: the pooled buffer that suits the chunk of NEED bytes S
 * is for best (the smallest), when S has none that does.  S's own goes to
 * the pool, or is freed by fill_slot() when the pool is full.
 */
static void slot_from_pool(struct prefetch *p, struct slot *s, size_t need)
{
	size_t best = p->n_pool;
	struct pooled b = {};

	if (s->data && buf_fits(s->cap, need))
		return;
	for (size_t i = 0; i < p->n_pool; i++)
		if (buf_fits(p->pool[i].cap, need) &&
		    (best == p->n_pool || p->pool[i].cap < p->pool[best].cap))
			best = i;
	if (best < p->n_pool) {
		b = p->pool[best];
		p->pool[best] = p->pool[--p->n_pool];
	}
	if (s->data && p->n_pool < POOL) {
		p->pool[p->n_pool++] = (struct pooled){ s->data, s->cap };
		s->data = NULL;
	}
	if (!b.data)
		return; /* fill_slot() allocates */
	free(s->data);
	s->data = b.data;
	s->cap = b.cap;
}

static void *worker(void *arg)
{
	struct prefetch *p = arg;

	pthread_mutex_lock(&p->mu);
	while (!p->quit && p->next < p->n) {
		size_t i = p->next;
		struct slot *s = &p->slot[i % SLOTS];

		/* free: not waiting to be taken, not held by the reader */
		if (s->ready || (p->held && (p->held - 1) % SLOTS == i % SLOTS)) {
			pthread_cond_wait(&p->more, &p->mu);
			continue;
		}
		slot_from_pool(p, s, p->chunks[i].h.raw_len);
		pthread_mutex_unlock(&p->mu);
		fill_slot(p, &p->chunks[i], s);
		pthread_mutex_lock(&p->mu);
		s->ready = true;
		p->next++;
		pthread_cond_signal(&p->done);
		/* after damage or an error the reader stops: nothing more to read */
		if (s->ret)
			break;
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

struct prefetch *gt_prefetch__start(const struct data_chunk *chunks, size_t n, size_t first,
				    const int *fds, size_t n_fds, const struct col_want *want)
{
	struct prefetch *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->u.want = want;
	p->fds = malloc(n_fds * sizeof(*fds));
	if (!p->fds) {
		free(p);
		return NULL;
	}
	memcpy(p->fds, fds, n_fds * sizeof(*fds));
	p->n_fds = n_fds;
	p->chunks = chunks;
	p->n = n;
	p->next = first;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->more, NULL);
	pthread_cond_init(&p->done, NULL);
	if (pthread_create(&p->thread, NULL, worker, p)) {
		pthread_cond_destroy(&p->done);
		pthread_cond_destroy(&p->more);
		pthread_mutex_destroy(&p->mu);
		free(p->fds);
		free(p);
		return NULL;
	}
	return p;
}

bool gt_prefetch__give(struct prefetch *p, char *data, size_t cap)
{
	bool kept;

	pthread_mutex_lock(&p->mu);
	kept = p->n_pool < POOL;
	if (kept)
		p->pool[p->n_pool++] = (struct pooled){ data, cap };
	pthread_mutex_unlock(&p->mu);
	return kept;
}

void gt_prefetch__drop(struct prefetch *p)
{
	pthread_mutex_lock(&p->mu);
	p->held = 0;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
}

void gt_prefetch__take(struct prefetch *p, size_t idx, struct prefetched *out)
{
	struct slot *s = &p->slot[idx % SLOTS];

	pthread_mutex_lock(&p->mu);
	p->held = 0; /* the chunk taken before is copied: its slot is free */
	pthread_cond_signal(&p->more);
	while (!s->ready)
		pthread_cond_wait(&p->done, &p->mu);
	s->ready = false;
	p->held = idx + 1;
	pthread_mutex_unlock(&p->mu);
	/* the slot is the reader's until the next take: the worker skips it */
	*out = (struct prefetched){
		.data = s->data,
		.cap = s->cap,
		.refs = s->refs,
		.n_refs = s->n_refs,
		.max = s->max,
		.ret = s->ret,
		.why = s->why,
		.rec_why = s->rec_why,
	};
	s->data = NULL;
	s->cap = 0;
}

void gt_prefetch__stop(struct prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->mu);
	p->quit = true;
	pthread_cond_signal(&p->more);
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	for (size_t i = 0; i < SLOTS; i++) {
		free(p->slot[i].data);
		free(p->slot[i].refs);
	}
	for (size_t i = 0; i < p->n_pool; i++)
		free(p->pool[i].data);
	gt_unpacker__free(&p->u);
	pthread_cond_destroy(&p->done);
	pthread_cond_destroy(&p->more);
	pthread_mutex_destroy(&p->mu);
	free(p->fds);
	free(p);
}
