/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * .gtsc writer (file.h).  It runs on the recorder's drain thread, so a
 * record costs one bounds check and one memcpy into a preallocated buffer;
 * everything else happens once per chunk: one compression (LZ4 for records,
 * deflate for metadata) into a second preallocated buffer and one writev(2)
 * of header and payload.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include <lz4.h>
#include <zlib.h>
#include <zstd.h>

#include "channel.h" /* gtsc_mono_ns */
#include "col_codec.h"
#include "out_file.h"
#include "strbuf.h"
#include "trace_writer.h"
#include "trace_util.h"

#define DEFAULT_CHUNK_SIZE (1u << 20)
/*
 * zstd chunks hold several drain rounds, up to 4 MiB of records or half a
 * second: on bench/size.sh's none traces, zstd level 1 of the columns went
 * from 8.60 to 7.53 bytes per event (tar), 5.76 to 4.72 (make), 2.79 to
 * 2.26 (pipesock), 1.00 to 0.96 (getppid) against one chunk per round
 * (1 MiB at most), with 4 MiB chunks.  How long a round may wait is what a
 * killed recorder loses: a second of tar (~2 MB of records) made 7.13, half
 * a second (~1.1 MB) ~7.4 (recoded: 600 KB chunks 7.69, 1.2 MB 7.40).
 */
#define ZSTD_CHUNK_SIZE (4u << 20)
#define ZSTD_HOLD_NS 500000000ull
#define DEFAULT_ZLIB_LEVEL 1
#define DEFAULT_ZSTD_LEVEL 1
/* A record can be this long (hdr.size is a __u16) whatever chunk_size is. */
#define MAX_REC_SIZE 0xffffu

struct gtsc_writer {
	int fd;
	struct strbuf *mem; /* instead of fd: the live view's bytes */
	/* First write error; sticky because the file no longer ends on a chunk. */
	int err;
	int zlib_level;
	int zstd_level;
	bool zs_ready;
	void *lz4_state; /* LZ4_sizeofState() bytes; NULL: DATA chunks are deflated */
	ZSTD_CCtx *zstd;	 /* DATA chunks: columns (cols), then zstd */
	struct col_coder *cols;
	bool frames;		 /* cols: a zstd frame a stream (1.3) where the chunk is large */
	size_t frames_min;	 /* ... of at least this many bytes of records */
	char *cbuf; /* gt_col_encode_bound(cap) bytes: the columns of a chunk */
	/* Records since the last ROUND_END chunk: a round to close. */
	bool round_open;
	/* zstd holds rounds (hold_round()): */
	__u64 first_ns; /* when the first held round ended, 0: none held */
	size_t held;	/* buf[0, held) are whole rounds held */
	bool split;	/* part of the open round went out without ROUND_END */
	__u32 seq;
	size_t chunk_size;
	size_t cap; /* bytes buf and zbuf hold */
	size_t len; /* record bytes in buf */
	char *buf;
	char *zbuf;
	z_stream zs;
	__u64 bytes;
	__u64 records;
};

static int write_mem(struct gtsc_writer *w, const struct iovec *iov, int n)
{
	for (int i = 0; i < n; i++) {
		gt_strbuf_add(w->mem, iov[i].iov_base, iov[i].iov_len);
		w->bytes += iov[i].iov_len;
	}
	return strbuf_err(w->mem);
}

static int write_iov(struct gtsc_writer *w, struct iovec *iov, int n)
{
	if (w->mem)
		return write_mem(w, iov, n);
	while (n > 0) {
		ssize_t ret = writev(w->fd, iov, n);

		if (ret < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (ret == 0)
			return -EIO;
		w->bytes += ret;
		/* short write: skip what went out, resume inside the iovec it ended in */
		while (n > 0 && (size_t)ret >= iov->iov_len) {
			ret -= iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + ret;
			iov->iov_len -= ret;
		}
	}
	return 0;
}

/*
 * Deflates IN into OUT, which holds in_len - 1 bytes: a stream that does not
 * fit did not shrink the data, and the chunk is better stored raw.  Returns
 * the compressed length, or 0 to store raw.
 */
static size_t compress_chunk(struct gtsc_writer *w, const void *in, size_t in_len, void *out)
{
	int ret;

	if (!w->zs_ready || in_len < 2)
		return 0;
	if (deflateReset(&w->zs) != Z_OK)
		return 0;
	w->zs.next_in = (Bytef *)in;
	w->zs.avail_in = (uInt)in_len;
	w->zs.next_out = out;
	w->zs.avail_out = (uInt)(in_len - 1);
	ret = deflate(&w->zs, Z_FINISH);
	if (ret != Z_STREAM_END)
		return 0;
	return in_len - 1 - w->zs.avail_out;
}

/* As compress_chunk(), with LZ4: 0 when the block does not fit OUT. */
static size_t lz4_chunk(struct gtsc_writer *w, const void *in, size_t in_len, void *out)
{
	int n;

	if (in_len < 2)
		return 0;
	n = LZ4_compress_fast_extState(w->lz4_state, in, out, (int)in_len, (int)(in_len - 1), 1);
	return n > 0 ? (size_t)n : 0;
}

/*
 * As compress_chunk(), with the column transform then zstd: a frame per
 * stream (format 1.3) from frames_min bytes of records on, one frame (1.2)
 * below or when those do not fit; *FLAGS gets the codec bits.  Without the
 * columns (out of memory) the records themselves are zstd'ed.
 */
static size_t zstd_chunk(struct gtsc_writer *w, const void *in, size_t in_len, void *out,
			 __u16 *flags)
{
	size_t clen = 0, n;

	if (in_len < 2)
		return 0;
	if (w->cols && w->frames && in_len >= w->frames_min) {
		n = gt_col_coder__encode_frames(w->cols, in, in_len, out, in_len - 1, w->zstd,
						w->zstd_level);
		if (n) {
			*flags |= GTSC_CHUNK_ZSTD | GTSC_CHUNK_COLS | GTSC_CHUNK_STREAMS;
			return n;
		}
	}
	if (w->cols)
		clen = gt_col_coder__encode(w->cols, in, in_len, w->cbuf);
	n = ZSTD_compressCCtx(w->zstd, out, in_len - 1, clen ? w->cbuf : in, clen ? clen : in_len,
			      w->zstd_level);
	if (ZSTD_isError(n))
		return 0;
	*flags |= GTSC_CHUNK_ZSTD | (clen ? GTSC_CHUNK_COLS : 0);
	return n;
}

/* ZOUT has room for raw_len - 1 bytes, or is NULL not to compress. */
static int put_chunk(struct gtsc_writer *w, __u16 type, __u16 flags, const void *raw,
		     size_t raw_len, void *zout)
{
	bool data = zout && type == GTSC_CHUNK_DATA;
	bool lz4 = data && w->lz4_state;
	bool zstd = data && w->zstd;
	__u16 codec = 0;
	struct gtsc_chunk_hdr h = {
		.magic = GTSC_CHUNK_MAGIC,
		.type = type,
		.flags = flags,
		.len = (__u32)raw_len,
		.raw_len = (__u32)raw_len,
		.seq = w->seq,
	};
	const void *payload = raw;
	size_t zlen = zstd ? zstd_chunk(w, raw, raw_len, zout, &codec)
		      : lz4 ? lz4_chunk(w, raw, raw_len, zout)
		      : zout ? compress_chunk(w, raw, raw_len, zout)
			     : 0;
	struct iovec iov[2];
	int err;

	if (zlen) {
		payload = zout;
		h.len = (__u32)zlen;
		h.flags |= codec ? codec : lz4 ? GTSC_CHUNK_LZ4 : GTSC_CHUNK_ZLIB;
	}
	h.crc = trace_chunk_crc(&h, payload, h.len);
	iov[0] = (struct iovec){.iov_base = &h, .iov_len = sizeof(h)};
	iov[1] = (struct iovec){.iov_base = (void *)payload, .iov_len = h.len};
	err = write_iov(w, iov, 2);
	if (err) {
		w->err = err;
		return err;
	}
	w->seq++;
	return 0;
}

/* Writes buf[0, N) as a DATA chunk; what follows moves to the front. */
static int flush_data_n(struct gtsc_writer *w, size_t n, __u16 flags)
{
	int err;

	err = put_chunk(w, GTSC_CHUNK_DATA, flags, w->buf, n, w->zbuf);
	if (err)
		return err;
	memmove(w->buf, w->buf + n, w->len - n);
	w->len -= n;
	w->held = 0;
	w->first_ns = 0;
	if (flags & GTSC_CHUNK_ROUND_END) {
		w->round_open = w->len > 0;
		w->split = false;
	} else {
		w->split = true;
	}
	return 0;
}

static int flush_data(struct gtsc_writer *w, __u16 flags)
{
	return flush_data_n(w, w->len, flags);
}

/*
 * A full buffer: the rounds it holds whole go out as a chunk that ends
 * them; without any, the open round is split over chunks.
 */
static int make_room(struct gtsc_writer *w, size_t size)
{
	int err;

	if (w->held) {
		err = flush_data_n(w, w->held, GTSC_CHUNK_ROUND_END);
		if (err || w->len + size <= w->chunk_size || !w->len)
			return err;
	}
	return flush_data(w, 0);
}

int gt_writer__add_record(struct gtsc_writer *w, const struct gtsc_rec_hdr *rec)
{
	size_t size = rec->size, padded = (size + 7) & ~(size_t)7;
	struct gtsc_rec_hdr *out;
	int err;

	if (w->err)
		return w->err;
	/* the reader would call such a record damage: refuse to write it */
	if (size < sizeof(*rec) || padded > MAX_REC_SIZE ||
	    (rec->type < GTSC_REC_TYPE_MAX && size < trace_rec_min_sizes[rec->type]))
		return -EINVAL;
	if (w->len + padded > w->chunk_size && w->len) {
		err = make_room(w, padded);
		if (err)
			return err;
	}
	/*
	 * A tool's record may have any size; the reader hands records out as
	 * typed pointers, so each starts 8-byte aligned: zeros pad it, and
	 * hdr.size counts them (readers ignore bytes past the fields they know).
	 */
	out = (struct gtsc_rec_hdr *)(w->buf + w->len);
	memcpy(out, rec, size);
	memset((char *)out + size, 0, padded - size);
	out->size = padded;
	w->len += padded;
	w->records++;
	w->round_open = true;
	return 0;
}

/*
 * zstd: whether to keep this round's records buffered with the next
 * rounds'.  A chunk of several whole rounds flagged ROUND_END is one wider
 * merge window for the reader: a record still reaches it at most one
 * window late.  A round already split over chunks ends now: the reader's
 * window (and memory) must not grow past the rounds a chunk holds.
 */
static bool hold_round(struct gtsc_writer *w)
{
	__u64 now;

	if (!w->zstd || w->split || w->len >= w->chunk_size)
		return false;
	now = gtsc_mono_ns();
	if (!w->first_ns)
		w->first_ns = now;
	return now - w->first_ns < ZSTD_HOLD_NS;
}

static int end_round(struct gtsc_writer *w, bool force)
{
	if (w->err)
		return w->err;
	if (!w->round_open)
		return 0;
	if (!force && hold_round(w)) {
		w->held = w->len;
		return 0;
	}
	return flush_data(w, GTSC_CHUNK_ROUND_END);
}

/*
 * A round closed by an empty chunk (its records went out in full chunks)
 * still gets its ROUND_END, so the reader's merge window stays one round.
 */
int gt_writer__end_round(struct gtsc_writer *w)
{
	return end_round(w, false);
}

int gt_writer__add_chunk(struct gtsc_writer *w, enum gtsc_chunk_type type, const void *data,
			 size_t len)
{
	void *zout = NULL;
	int err;

	if (w->err)
		return w->err;
	if ((int)type <= 0 || type > 0xffff || type == GTSC_CHUNK_DATA || (len && !data))
		return -EINVAL;
	if (len > GTSC_CHUNK_MAX_LEN)
		return -E2BIG;
	/* records buffered so far precede this chunk in the file, as they came */
	if (w->len) {
		err = flush_data(w, w->held == w->len ? GTSC_CHUNK_ROUND_END : 0);
		if (err)
			return err;
	}
	if (w->zs_ready && len > 1) {
		/* metadata is rare and small: a chunk bigger than zbuf gets its own buffer */
		zout = len - 1 <= w->cap ? w->zbuf : malloc(len - 1);
		if (!zout)
			return -ENOMEM;
	}
	err = put_chunk(w, type, 0, data, len, zout);
	if (zout && zout != w->zbuf)
		free(zout);
	return err;
}

__u64 gt_writer__bytes(const struct gtsc_writer *w)
{
	return w->bytes;
}

__u64 gt_writer__records(const struct gtsc_writer *w)
{
	return w->records;
}

static int write_file_hdr(struct gtsc_writer *w)
{
	struct gtsc_file_hdr h = {
		.version_major = GTSC_FILE_VERSION_MAJOR,
		.version_minor = GTSC_FILE_VERSION_MINOR,
		.rec_abi_major = GTSC_REC_ABI_MAJOR,
		.rec_abi_minor = GTSC_REC_ABI_MINOR,
		.byte_order = TRACE_HOST_BYTE_ORDER,
		.ptr_size = sizeof(void *),
		.hdr_size = sizeof(struct gtsc_file_hdr),
	};
	struct iovec iov = {.iov_base = &h, .iov_len = sizeof(h)};

	memcpy(h.magic, GTSC_FILE_MAGIC, sizeof(h.magic));
	h.crc = trace_file_hdr_crc(&h);
	return write_iov(w, &iov, 1);
}

static void writer_free(struct gtsc_writer *w)
{
	if (w->zs_ready)
		deflateEnd(&w->zs);
	if (w->fd >= 0)
		close(w->fd);
	free(w->buf);
	free(w->zbuf);
	free(w->lz4_state);
	ZSTD_freeCCtx(w->zstd);
	gt_col_coder__free(w->cols);
	free(w->cbuf);
	free(w);
}

static int writer_setup(struct gtsc_writer *w, const char *path, long codec,
			const struct gtsc_writer_opts *opts)
{
	w->buf = malloc(w->cap);
	if (!w->buf)
		return -ENOMEM;
	if (w->zlib_level > 0) {
		w->zbuf = malloc(w->cap);
		if (!w->zbuf)
			return -ENOMEM;
		if (deflateInit(&w->zs, w->zlib_level) != Z_OK)
			return -ENOMEM;
		w->zs_ready = true;
		if (codec == GTSC_WRITER_LZ4) {
			w->lz4_state = malloc(LZ4_sizeofState());
			if (!w->lz4_state)
				return -ENOMEM;
		}
		if (codec >= GTSC_WRITER_ZSTD) {
			w->zstd = ZSTD_createCCtx();
			if (!w->zstd)
				return -ENOMEM;
		}
		if (codec == GTSC_WRITER_ZSTD || codec == GTSC_WRITER_ZSTD_FRAME) {
			w->frames = codec == GTSC_WRITER_ZSTD;
			w->cols = gt_col_coder__new();
			w->cbuf = malloc(gt_col_encode_bound(w->cap));
			if (!w->cols || !w->cbuf)
				return -ENOMEM;
		}
	}
	w->mem = OPTS_GET(opts, mem, NULL);
	if (w->mem)
		return write_file_hdr(w);
	/* "-": a stream on the standard output, as perf record -o - */
	if (!strcmp(path, "-")) {
		w->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
		if (w->fd < 0)
			return -errno;
	} else {
		w->fd = gt_out_file__create(path, OPTS_GET(opts, keep_old, false),
					    OPTS_GET(opts, errbuf, NULL), OPTS_GET(opts, errbuf_sz, 0));
		if (w->fd < 0)
			return w->fd;
	}
	return write_file_hdr(w);
}

struct gtsc_writer *gt_writer__create(const char *path, const struct gtsc_writer_opts *opts)
{
	struct gtsc_writer *w;
	int level, err;
	long codec;
	size_t chunk;

	if (!path || !OPTS_VALID(opts, gtsc_writer_opts)) {
		errno = EINVAL;
		return NULL;
	}
	level = OPTS_GET(opts, zlib_level, DEFAULT_ZLIB_LEVEL);
	codec = OPTS_GET(opts, data_codec, GTSC_WRITER_LZ4);
	chunk = OPTS_GET(opts, chunk_size, 0)
			?: (codec == GTSC_WRITER_ZSTD || codec == GTSC_WRITER_ZSTD_FRAME
				    ? ZSTD_CHUNK_SIZE
				    : DEFAULT_CHUNK_SIZE);
	if (level < 0 || level > 9 || chunk > GTSC_CHUNK_MAX_LEN || codec < 0 ||
	    codec > GTSC_WRITER_ZSTD_FRAME) {
		errno = EINVAL;
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		errno = ENOMEM;
		return NULL;
	}
	w->fd = -1;
	w->zlib_level = level;
	w->zstd_level = OPTS_GET(opts, zstd_level, 0) ?: DEFAULT_ZSTD_LEVEL;
	w->frames_min = OPTS_GET(opts, frames_min, 0) ?: COL_FRAMES_MIN;
	w->chunk_size = chunk;
	w->cap = chunk > MAX_REC_SIZE ? chunk : MAX_REC_SIZE;
	err = writer_setup(w, path, codec, opts);
	if (err) {
		writer_free(w);
		errno = -err;
		return NULL;
	}
	return w;
}

int gt_writer__close(struct gtsc_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = end_round(w, true);
	/* close(2) reports delayed write errors (NFS, quota) */
	if (w->fd >= 0 && close(w->fd) && !err)
		err = -errno;
	w->fd = -1;
	writer_free(w);
	return err;
}
