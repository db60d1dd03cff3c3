/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The fuzz target, shared by the AFL++ harness (fuzz_reader.c) and the unit
 * test that replays what it found (tests/unit/test_fuzz_regress.c).
 *
 * An input is one option byte, then a .gtsc file whose chunks hold their
 * payload uncompressed.  fuzz_frame() turns it into the file the reader
 * sees: a chunk flagged ZLIB, LZ4 or ZSTD (with COLS: its records as columns;
 * with STREAMS too, a zstd frame per column stream) is compressed here, and
 * every framed
 * chunk (and the file header) gets its CRC recomputed, so a mutation lands
 * in the record and metadata parsers instead of failing a CRC or a
 * decompressor.  Option bit FUZZ_VERBATIM hands the bytes over as they are,
 * for the CRC, framing and decompression paths themselves.
 */
#ifndef __GTSC_FUZZ_H
#define __GTSC_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum fuzz_opt {
	FUZZ_VERBATIM = 1 << 0,	 /* no framing, no CRC fix: the reader sees the input */
	FUZZ_UNORDERED = 1 << 1, /* gtsc_reader_opts.unordered */
	FUZZ_JSON = 1 << 2,	 /* the event printer's JSON form */
	FUZZ_WHOLE = 1 << 3,	 /* the syscall decoder's whole_calls */
	FUZZ_NAMES = 1 << 4,	 /* GTSC_SYSCALL_ARG_NAMES */
	FUZZ_TYPES = 1 << 5,	 /* GTSC_SYSCALL_ARG_TYPES */
	FUZZ_MAX_DATA = 1 << 6,	 /* strace -s 8; with FUZZ_CONVERT: CTF, not perfetto */
	FUZZ_CONVERT = 1 << 7,	 /* convert's writers instead of check */
};

struct fuzz_codecs;

struct fuzz_buf {
	uint8_t *data;
	size_t len, cap;
	struct fuzz_codecs *codecs; /* fuzz_frame's compressors, kept from input to input */
};

/* The file the reader sees for input IN (option byte included). 0 or -errno. */
int fuzz_frame(const uint8_t *in, size_t n, struct fuzz_buf *out);

/* The input (option byte OPTS) that frames to the real trace FILE: its chunks decompressed. */
int fuzz_unpack(const uint8_t *file, size_t n, uint8_t opts, struct fuzz_buf *out);

/* Where fuzz_one stages and writes. */
struct fuzz_io {
	int fd;		     /* the framed trace is written here and read back (a memfd) */
	FILE *sink;	     /* what the consumers print */
	const char *ctf_dir; /* the CTF writer's directory (tmpfs); NULL: perfetto only */
};

/* Runs one input through the reader and every consumer a library user reaches. 0, or -errno if the input could not be staged. */
int fuzz_one(const uint8_t *in, size_t n, const struct fuzz_io *io, struct fuzz_buf *scratch);

/* The whole of file PATH into B. 0 or -errno. */
int fuzz_slurp(const char *path, struct fuzz_buf *b);

void fuzz_buf_free(struct fuzz_buf *b);

#endif
