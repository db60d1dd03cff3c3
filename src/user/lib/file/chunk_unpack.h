/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * A DATA chunk from its stored bytes to indexed records, without the
 * reader's state (trace_reader.c): run on the reader's own thread, or ahead
 * of it on a prefetch worker, which decodes the next chunks of an indexed
 * trace while the caller prints.  Not part of any API.
 */
#ifndef __GTSC_CHUNK_UNPACK_H
#define __GTSC_CHUNK_UNPACK_H

#include <stdbool.h>
#include <stddef.h>
#include <zlib.h>
#include <zstd.h>
#include "gtsc/file.h"
#include "col_codec.h"
#include "trace_reader.h"

struct data_chunk {
	__u64 pos; /* of its header */
	__u32 idx; /* chunk number in file order */
	__u32 in;  /* which input */
	struct gtsc_chunk_hdr h;
};

#define UNPACK_WHY 256

/* What decompresses chunks: each thread has its own. */
struct unpacker {
	z_stream zs;
	bool zs_ready;
	char *stored; /* compressed bytes of the chunk being read */
	size_t stored_cap;
	ZSTD_DCtx *zstd;		/* made at the first zstd chunk */
	struct col_coder *cols; /* made at the first column chunk */
	/* what column chunks decode (gt_col_coder__project()): NULL all; the reader's */
	const struct col_want *want;
	const struct col_want *cols_want; /* what cols was last told */
	char *colbuf;		/* the columns of the chunk being read */
	size_t colbuf_cap;
	char why[UNPACK_WHY]; /* the damage, when gt_unpack_chunk() says 1 */
	/*
	 * Set ix.refs (room for raw_len / sizeof(header) refs) around
	 * gt_unpack_chunk() of a DATA chunk, and a column chunk is indexed as it
	 * is decoded: gt_unpack_index() then need not read the records again.
	 */
	struct col_index ix;
	const struct trace_rec_ref *indexed; /* where the last chunk was indexed, or NULL */
};

/* Grows *ARR (*CAP elements of ELEM bytes) to hold NEED, doubling: 0 or -ENOMEM. */
int gt_trace_grow_array(void **arr, size_t *cap, size_t need, size_t elem);

/* Bytes read from FD at OFF, short only at end of file, or -errno. */
ssize_t gt_trace_pread_full(int fd, void *buf, size_t len, __u64 off);

/*
 * Room for NEED bytes of records, *CAP of them (a power of two, so that
 * buffers recycle across chunks of every size).  Those of 2 MiB and more
 * are aligned and asked to be huge pages: a 4 MiB chunk is then two page
 * faults, not 1024, and faults cost a VM dearly.  free() frees it.
 */
void *gt_chunk_buf_alloc(size_t need, size_t *cap);

void gt_unpacker__free(struct unpacker *u);

/*
 * Reads chunk C's payload (from FD, or from STORED, its bytes already in
 * memory, when not NULL), checks it and decompresses it into OUT (room for
 * raw_len bytes).  0: good; 1: damaged, u->why says how; -errno.
 */
int gt_unpack_chunk(struct unpacker *u, int fd, const char *stored, const struct data_chunk *c,
		    char *out);

/*
 * Indexes the records of chunk C, decompressed at DATA, into OUT (room for
 * raw_len / sizeof(header) refs); raises *MAX to their highest timestamp.
 * Damage ends the chunk, not the file: WHY (UNPACK_WHY bytes) then says
 * where, else it is "".  Returns the records indexed.
 */
size_t gt_index_chunk(const struct data_chunk *c, const char *data, struct trace_rec_ref *out,
		      __u64 *max, char *why);

/* gt_index_chunk() into REFS, unless gt_unpack_chunk() indexed the chunk there already. */
size_t gt_unpack_index(const struct unpacker *u, const struct data_chunk *c, const char *data,
		       struct trace_rec_ref *refs, __u64 *max, char *why);

/* ---- the prefetch worker ---- */

struct prefetch;

/* A chunk the worker read, handed to the reader's thread. */
struct prefetched {
	char *data; /* the records: the taker's from now on */
	size_t cap;
	const struct trace_rec_ref *refs; /* refs[0, n_refs): valid until drop or the next take */
	size_t n_refs;
	__u64 max;	/* highest timestamp of the refs (0 if none) */
	int ret;	/* gt_unpack_chunk()'s */
	const char *why;     /* ret 1: the chunk's damage (valid as refs) */
	const char *rec_why; /* damage that ended the chunk's records early, or "" (likewise) */
};

/*
 * Starts a worker decoding CHUNKS[FIRST, N) in order, of inputs whose
 * descriptors are FDS[]; the arrays must not change while it runs.  NULL
 * when no thread can be made (the caller reads on its own).  WANT (NULL:
 * all) is what column chunks decode (gt_col_coder__project()); it must
 * outlive the worker.
 */
struct prefetch *gt_prefetch__start(const struct data_chunk *chunks, size_t n, size_t first,
				    const int *fds, size_t n_fds, const struct col_want *want);
/*
 * Gives the worker DATA, a chunk buffer of CAP bytes the reader is done
 * with, for a later chunk: false when it has enough (the reader keeps it).
 */
bool gt_prefetch__give(struct prefetch *p, char *data, size_t cap);
/* Waits for chunk IDX (the one after the last taken) and takes it. */
void gt_prefetch__take(struct prefetch *p, size_t idx, struct prefetched *out);
/* The refs of the chunk taken last are copied: the worker may reuse their slot. */
void gt_prefetch__drop(struct prefetch *p);
/* Stops and frees the worker and what it holds. */
void gt_prefetch__stop(struct prefetch *p);

#endif
