/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The column transform of DATA chunks (file format 1.2, GTSC_CHUNK_COLS;
 * 1.3 adds a zstd frame per stream, GTSC_CHUNK_STREAMS):
 * a chunk's records, back to back as records.h lays them out, become one
 * stream per header field and per described field of each record type,
 * numbers as varints of what is left once the previous value is known.
 * Lossless for any bytes: what no field describes (padding, payloads,
 * types this build does not know) rides raw in per-type streams.  A
 * general-purpose compressor (zstd) then runs over the result.
 */
#ifndef __GTSC_COL_CODEC_H
#define __GTSC_COL_CODEC_H

#include <stddef.h>
#include <stdbool.h>
#include <linux/types.h>
#include <zstd.h>
#include "gtsc/records.h"

struct col_coder;
struct trace_rec_ref;

/*
 * The index gt_col_coder__decode() may make as it writes the records (what
 * gt_index_chunk() would make of them, without reading them again).
 */
struct col_index {
	struct trace_rec_ref *refs; /* room for out_len / sizeof(struct gtsc_rec_hdr) */
	size_t n;		    /* out: the records indexed */
	__u64 max;		    /* out: their highest timestamp */
	bool ok; /* out: every record is as gt_index_chunk() wants it; else use that */
};

/*
 * What a reader reads of the records (gt_col_coder__project()): bit B of
 * bytes[T][B / 64] says it reads byte B of records of type T; tail[T], the
 * bytes after the described fields (payloads, padding, bytes from
 * COL_WANT_BYTES on).  type, size and ts_ns are always decoded.  A field
 * none of whose bytes is wanted is not decoded: what its bytes hold in the
 * rows is unspecified (the last chunk's, in a recycled buffer).
 */
#define COL_WANT_BYTES 128
struct col_want {
	__u64 bytes[GTSC_REC_TYPE_MAX][COL_WANT_BYTES / 64];
	bool tail[GTSC_REC_TYPE_MAX];
};

/* Adds bytes [OFF, OFF + SIZE) of records of TYPE to W (tail[TYPE] past COL_WANT_BYTES). */
void gt_col_want__add(struct col_want *w, unsigned int type, unsigned int off, unsigned int size);

/* Adds FIELD of struct REC, the record of TYPE. */
#define COL_WANT(w, type, rec, field)                                                              \
	gt_col_want__add(w, type, offsetof(struct rec, field), sizeof(((struct rec *)0)->field))

/* The layout of every stream (from the field tables) and the coder's state. NULL: ENOMEM. */
struct col_coder *gt_col_coder__new(void);
void gt_col_coder__free(struct col_coder *c);

/*
 * Decodes only what W wants from now on (NULL: everything, as a new coder
 * does): skipping the columns nobody reads is what a projected decode
 * saves.  Streams not read are not checked for damage either (the chunk's
 * CRC is).
 */
void gt_col_coder__project(struct col_coder *c, const struct col_want *w);

/* Chunks of fewer bytes of records keep one frame: a frame costs ~10 bytes. */
#define COL_FRAMES_MIN (256u << 10)

/*
 * As gt_col_coder__encode(), each stream its own zstd frame at LEVEL
 * through Z (format 1.3, GTSC_CHUNK_STREAMS), into OUT's CAP bytes.  0 when
 * the records are not whole or the frames do not fit (the caller stores the
 * chunk another way).
 */
size_t gt_col_coder__encode_frames(struct col_coder *c, const void *in, size_t len, void *out,
				   size_t cap, ZSTD_CCtx *z, int level);

/*
 * The frames of IN[0, LEN) (gt_col_coder__encode_frames()) as the one
 * stream layout gt_col_coder__decode() reads, into *BUF (grown, *CAP bytes;
 * *BLEN of them written), at most MAX bytes of streams.  Only the streams
 * the projection reads are decompressed: the others' bytes are left as
 * they were.  The tail stream is left to the one gt_col_coder__decode()
 * of *BUF that comes next, which decompresses it if a record's tail is
 * read: IN and Z stay as they are until then.
 * 0, -ENOTSUP (another layout), -EBADMSG, -ENOMEM.
 */
int gt_col_coder__unpack(struct col_coder *c, ZSTD_DCtx *z, const void *in, size_t len, size_t max,
			 void **buf, size_t *cap, size_t *blen);

/* Bytes gt_col_coder__encode may write for LEN bytes of records. */
size_t gt_col_encode_bound(size_t len);

/*
 * Encodes records IN[0, LEN) (whole records, each at least a header, as
 * the writer checked them) into OUT, which holds gt_col_encode_bound(LEN).
 * Returns the encoded length.
 */
size_t gt_col_coder__encode(struct col_coder *c, const void *in, size_t len, void *out);

/*
 * Decodes IN[0, LEN) into exactly OUT_LEN bytes of records at OUT, and
 * indexes them into IX unless it is NULL.  0, or -EBADMSG when the streams
 * do not describe OUT_LEN bytes of records (never reads or writes out of
 * bounds).
 */
int gt_col_coder__decode(struct col_coder *c, const void *in, size_t len, void *out, size_t out_len,
			 struct col_index *ix);

#endif
