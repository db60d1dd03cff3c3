/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * The .gtsc trace file: a fixed header, then chunks until end of file.
 *
 *   struct gtsc_file_hdr
 *   { struct gtsc_chunk_hdr, stored bytes[len] } ...
 *
 * Every chunk carries its own length and CRC, so a file cut at any byte is
 * readable up to its last complete chunk, and a flipped byte is found by the
 * chunk it is in.  Metadata chunks are text ("key=value" or tab-separated
 * lines) so that a field can be added without a format change.  DATA chunks
 * hold records (records.h) back to back.  Records of one ring are in
 * timestamp order; rings are interleaved per drain round, and a chunk with
 * GTSC_CHUNK_ROUND_END closes a round (the reader's merge window, as perf's
 * FINISHED_ROUND).
 *
 * A DATA chunk flagged GTSC_CHUNK_COLS (1.2) stores a zstd frame of the
 * records' columns, not the records: raw_len is still the records' bytes;
 * the column layout (a version byte, the record count, one stream per
 * header field and per described field of each record type) is
 * src/user/lib/file/col_codec.c's, and a reader that does not know its version
 * says so.  A chunk of columns may hold several drain rounds; ROUND_END
 * still marks the last chunk of the rounds it holds.  Flagged
 * GTSC_CHUNK_STREAMS as well (1.3), the chunk holds the same columns with
 * each stream its own zstd frame after the stream table (col_codec.c), so
 * that a reader decompresses only the streams it reads.
 *
 * Chunk order as written: META, FEATURES, CHANNELS, SYSCALLS, EVENT_FORMATS,
 * FUNCS (when functions are probed), TRACEPOINTS (-e GROUP:NAME), DATA..., KSYMS, TRAILER.  Readers must
 * not depend on the order of metadata chunks and must skip chunk types they
 * do not know.
 */
#ifndef __GTSC_FILE_H
#define __GTSC_FILE_H

#include <linux/types.h>

#define GTSC_FILE_MAGIC "GTSCBPF" /* 8 bytes with the NUL */
#define GTSC_FILE_VERSION_MAJOR 1
/*
 * 1: DATA chunks may be LZ4 (GTSC_CHUNK_LZ4); 1.0 readers take them for damage.
 * 2: DATA chunks may be zstd (GTSC_CHUNK_ZSTD), of the column transform
 *    (GTSC_CHUNK_COLS); 1.1 readers refuse those chunks as an unknown codec.
 * 3: chunks of columns may hold a zstd frame per stream (GTSC_CHUNK_STREAMS);
 *    1.2 readers refuse those chunks as an unknown codec.
 */
#define GTSC_FILE_VERSION_MINOR 3
#define GTSC_CHUNK_MAGIC 0x4b484347u /* "GCHK" little endian */
#define GTSC_CHUNK_MAX_LEN (64u << 20) /* longer is corruption, not data */

enum gtsc_byte_order {
	GTSC_LITTLE_ENDIAN = 1,
	GTSC_BIG_ENDIAN = 2,
};

struct gtsc_file_hdr {
	char magic[8];
	__u16 version_major; /* readers refuse a major they do not know */
	__u16 version_minor;
	__u16 rec_abi_major; /* GTSC_REC_ABI_MAJOR of the recorder */
	__u16 rec_abi_minor;
	__u8 byte_order; /* enum gtsc_byte_order */
	__u8 ptr_size;
	__u16 hdr_size; /* sizeof(struct gtsc_file_hdr) as written */
	__u32 flags;
	__u32 __pad;
	__u32 crc; /* crc32 (zlib) of the bytes before this field */
};

enum gtsc_chunk_type {
	GTSC_CHUNK_META = 1,	      /* key=value lines: host, kernel, clock, options, ... */
	GTSC_CHUNK_FEATURES = 2,      /* key=value lines: the kernel feature-probe table */
	GTSC_CHUNK_CHANNELS = 3,      /* id name scope nr_rings ring_bytes mode sub_size nr_sub, tabs */
	GTSC_CHUNK_SYSCALLS = 4,      /* nr name [type arg]..., tab separated */
	GTSC_CHUNK_EVENT_FORMATS = 5, /* tracefs format files of the events recorded, verbatim */
	GTSC_CHUNK_DATA = 6,	      /* records */
	GTSC_CHUNK_KSYMS = 7,	      /* "hexaddr name" lines, sorted, for the call sites seen */
	GTSC_CHUNK_TRAILER = 8,	      /* stats lines; its presence means the recorder ended cleanly */
	GTSC_CHUNK_FUNCS = 9,	      /* probed functions (-k), tab separated: see below */
	GTSC_CHUNK_STACKS = 10,	      /* kernel stacks the records name by id: see below */
	GTSC_CHUNK_PRINTF = 11,	      /* gtsc_printf formats: "<hex id>\t<format>" lines, see below */
	GTSC_CHUNK_TRACEPOINTS = 12,  /* formats of the tracepoints recorded by name: see below */
	GTSC_CHUNK_TYPE_MAX,
};

enum gtsc_chunk_flags {
	GTSC_CHUNK_ZLIB = 1 << 0,      /* stored bytes are a zlib stream of raw_len bytes */
	GTSC_CHUNK_ROUND_END = 1 << 1, /* DATA: last chunk of a drain round */
	GTSC_CHUNK_LZ4 = 1 << 8,       /* stored bytes are one LZ4 block of raw_len bytes (1.1) */
	GTSC_CHUNK_ZSTD = 1 << 9,      /* stored bytes are one zstd frame (1.2) */
	GTSC_CHUNK_COLS = 1 << 10,     /* DATA, with ZSTD: the frame holds the records' columns (1.2) */
	GTSC_CHUNK_STREAMS = 1 << 11,  /* with COLS: a zstd frame per column stream (1.3) */
};

/*
 * Bits that name how the stored bytes are encoded: a reader refuses a chunk
 * with one it does not know (a newer codec) instead of calling it damaged.
 * Other unknown flags are hints it may ignore.
 */
#define GTSC_CHUNK_CODEC_MASK (GTSC_CHUNK_ZLIB | 0xff00u)

struct gtsc_chunk_hdr {
	__u32 magic;   /* GTSC_CHUNK_MAGIC */
	__u16 type;    /* enum gtsc_chunk_type */
	__u16 flags;   /* enum gtsc_chunk_flags */
	__u32 len;     /* stored bytes after this header */
	__u32 raw_len; /* bytes once decompressed (== len when not compressed) */
	__u32 seq;     /* 0, 1, 2, ... in file order: a gap is a lost chunk */
	__u32 crc;     /* crc32 of this header with crc = 0, continued over the stored bytes */
};

_Static_assert(sizeof(struct gtsc_file_hdr) == 32, "file header is ABI");
_Static_assert(sizeof(struct gtsc_chunk_hdr) == 24, "chunk header is ABI");

/*
 * FUNCS lines (tab separated), one per probed function, its id being what
 * struct gtsc_rec_func.func_id holds:
 *   <id> <name> <hexaddr> <probes> <kind> <return type> [<kind> <arg type> <arg name>]...
 * probes is "entry" or "entry,return"; the types are C text from the
 * recording kernel's BTF, the return type "?" (and no arguments) without
 * it.  A kind says how the register prints: 's' or 'u' and the byte size
 * for integers and enums, "p8" for pointers, "x0" (hex) for the rest.
 */

/*
 * STACKS lines (tab separated), written before KSYMS, which names their frames:
 *   <source>	<id>	<hexaddr> <hexaddr>...
 * source is "kernel": one id space for what the records hold
 * (gtsc_rec_kmem_alloc.stack_id, gtsc_rec_func.stack_id); frames innermost
 * first.  Format 1.0 wrote "kmem" (allocations only): readers take it as
 * "kernel".
 */

/*
 * PRINTF lines, one per format a BPF program's gtsc_printf() uses:
 *   <fmt id, 8 hex digits>	<format>
 * the id as records.h's GTSC_PRINTF_ID computes it; in the format, a
 * backslash, newline and tab are written \\, \n and \t.
 */

/*
 * TRACEPOINTS: what libtraceevent needs to decode GTSC_REC_TRACEPOINT
 * records without the recording kernel's tracefs, as sections
 *   <head> <length>\n<length bytes of text>\n
 * head being "header_page" (events/header_page), "event <group> <name>"
 * (events/<group>/<name>/format, whose ID line is the records' event_id)
 * or "printk_formats" (only when a print fmt prints a string by its
 * kernel address).
 */

/*
 * TRAILER lines (tab separated):
 *   stat	<channel id>	<cpu>	<written>	<dropped>
 *   flight	<channel id>	<cpu|all>	<written>	<retained>	<overwritten>	<torn>
 *                                  (an overwrite channel's region: per CPU, or "all"
 *                                  for a global one; its retained records are the
 *                                  file's records of that channel)
 *   prog	<source name>	<events the kernel skipped (recursion protection)
 *                                  that no rescue program recorded: lost>
 *   meta	<key>	<value>          (end_ns, records, ...)
 */

#endif /* __GTSC_FILE_H */
