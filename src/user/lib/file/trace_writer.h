/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Writes a .gtsc file: header, metadata chunks, record chunks (file.h). */
#ifndef __GTSC_TRACE_WRITER_H
#define __GTSC_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include "gtsc/file.h"
#include "gtsc/records.h"

struct gtsc_writer;
struct strbuf;

/* How DATA chunks are compressed (metadata chunks are zlib's). */
enum gtsc_writer_codec {
	GTSC_WRITER_LZ4 = 0, /* decompresses several times faster than zlib: the default */
	GTSC_WRITER_ZLIB = 1, /* what format 1.0 readers can read */
	GTSC_WRITER_ZSTD = 2, /* the column transform, a zstd frame a stream (1.3): the smallest */
	GTSC_WRITER_ZSTD_ROWS = 3, /* zstd of the records as they are: to measure the columns */
	GTSC_WRITER_ZSTD_FRAME = 4, /* the columns in one zstd frame, as 1.2 wrote them: to test */
};

struct gtsc_writer_opts {
	size_t sz;
	int zlib_level;	   /* 0: store uncompressed; default 1 (fast) when the field is absent */
	size_t chunk_size; /* raw bytes of records per DATA chunk; default 1 MiB */
	long data_codec;   /* enum gtsc_writer_codec, when zlib_level is not 0 (long: no tail padding) */
	bool keep_old;	   /* a non-empty PATH becomes PATH.old first (out_file.h) */
	char *errbuf;	   /* the sentence of a refused path */
	size_t errbuf_sz;
	struct strbuf *mem; /* not NULL: the bytes are appended here, PATH is not used */
	long zstd_level;    /* 0: the default (1) */
	size_t frames_min;  /* GTSC_WRITER_ZSTD: chunks of fewer bytes of records keep one
			     * frame, as 1.2 wrote them; 0: COL_FRAMES_MIN */
};
#define gtsc_writer_opts__last_field frames_min

/*
 * Creates PATH, mode 0600 (out_file.h: links, .old), and writes the file
 * header; PATH "-" writes to the standard output.  NULL + errno.
 */
struct gtsc_writer *gt_writer__create(const char *path, const struct gtsc_writer_opts *opts);
/* One metadata chunk of TYPE holding LEN bytes. */
int gt_writer__add_chunk(struct gtsc_writer *w, enum gtsc_chunk_type type, const void *data,
			 size_t len);
/* Buffers one record (rec->size bytes); writes a DATA chunk when chunk_size is reached. */
int gt_writer__add_record(struct gtsc_writer *w, const struct gtsc_rec_hdr *rec);
/* Writes buffered records as a DATA chunk flagged GTSC_CHUNK_ROUND_END (even if empty: no-op). */
int gt_writer__end_round(struct gtsc_writer *w);
/* Bytes written to the file so far, and records accepted so far. */
__u64 gt_writer__bytes(const struct gtsc_writer *w);
__u64 gt_writer__records(const struct gtsc_writer *w);
/* Ends the round, closes the file and frees W (also on error). Returns 0 or -errno. */
int gt_writer__close(struct gtsc_writer *w);

#endif
